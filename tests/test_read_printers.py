"""``paramcount read`` on what the torch printers really print, each made at test time.

Random torch models (every recurrent class and option, with embedding, linear, conv and norm
layers) are printed by ``print(model)``, torchinfo 1.8 (any columns in any order, depth,
``verbose=2``, row settings), torchsummary and ``named_parameters()`` / ``state_dict()`` /
``parameters()`` dumps, and read back: every recurrent layer exact, honestly ambiguous or
honestly unsized, never wrong; totals equal to torch's; no disagreement claimed while every
printed count is true, one found when a count is changed.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from paramcount.engine.spec import Cell, LayerSpec
from paramcount.reading.listings.unnamed import MOST_RUNS
from paramcount.reading.pipeline import read
from tests.conftest import CLI, have
from tests.printers import (
    Paste,
    Score,
    TorchPlan,
    altered,
    build_torch,
    check,
    dump_text,
    grouped,
    torch_pastes,
    torch_plans,
    torchinfo_text,
    torchsummary_text,
)

pytestmark = [
    pytest.mark.torch,
    pytest.mark.skipif(not (have("torch") and have("torchinfo") and have("torchsummary")),
                       reason="needs torch, torchinfo and torchsummary"),
    pytest.mark.filterwarnings("ignore:LSTM with projections is not supported:UserWarning"),
]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(torch_plans(), st.data(), st.integers(0, 99))
def test_every_torch_printer_reads_back_never_wrong(plan: TorchPlan, data: st.DataObject,
                                                    seed: int) -> None:
    """Every printer's text of a random model: no recurrent layer read wrong, totals equal to
    torch's, no disagreement claimed; a changed count in a table found."""
    score = Score()
    for paste in torch_pastes(plan, data.draw):
        check(paste, score)
        changed = altered(paste, seed)
        if changed is not None:
            assert read(changed).disagreements, (paste.printer, changed)
    assert not score.wrong, score.wrong[0]


def _gru_model() -> tuple[Any, Any]:
    """The issue's model: Embedding(1000, 64), a 2-layer bidirectional GRU(64, 128), Linear."""
    plan = TorchPlan(1000, 64, (("rnn", LayerSpec(Cell.GRU, 64, 128, num_layers=2,
                                                  bidirectional=True)),
                                ("linear", 10)), (True,))
    net, truth, example = build_torch(plan)
    assert truth.total == 512_010
    return net, example.repeat(1, 10)


def test_mult_adds_are_never_read_as_counts() -> None:
    """The known failure: with Mult-Adds after Param #, the GRU was read as 26,726,400 and the
    model as 26,859,540; the counts come from the Param # column only."""
    net, example = _gru_model()
    text = torchinfo_text(net, example, {"col_names": ("input_size", "output_size",
                                                       "num_params", "mult_adds"),
                                         "depth": 3, "verbose": 0, "row_settings": ()})
    assert "26,726,400" in text
    answer = read(text)
    (model,) = answer.models
    gru = next(layer for layer in model.layers if layer.recurrent)
    assert (gru.params, gru.printed) == (445_440, 445_440)
    assert (model.total, model.printed_total) == (512_010, 512_010)
    assert not answer.disagreements


COLUMNS = [("num_params",), ("mult_adds", "num_params"), ("kernel_size", "num_params"),
           ("params_percent", "num_params", "trainable"),
           ("num_params", "params_percent", "kernel_size", "mult_adds", "trainable"),
           ("trainable", "mult_adds", "params_percent", "num_params", "output_size",
            "input_size", "kernel_size")]


@pytest.mark.parametrize("columns", COLUMNS, ids=["-".join(c) for c in COLUMNS])
@pytest.mark.parametrize("rows", [(), ("var_names", "depth"), ("ascii_only",)],
                         ids=["plain", "names-depth", "ascii"])
def test_torchinfo_columns_in_any_order(columns: tuple[str, ...], rows: tuple[str, ...]
                                        ) -> None:
    """Whatever columns surround Param #, and in whatever order, each count is the layer's."""
    net, example = _gru_model()
    answer = read(torchinfo_text(net, example, {"col_names": columns, "depth": 3, "verbose": 0,
                                                "row_settings": rows}))
    (model,) = answer.models
    assert [layer.params for layer in model.layers] == [64_000, 445_440, 2_570]
    assert model.printed_total == 512_010
    assert not answer.disagreements


def test_verbose_tables_with_kernel_shapes_size_the_gru() -> None:
    """``verbose=2`` with the Kernel Shape column: the GRU's tensors give its configuration."""
    net, example = _gru_model()
    text = torchinfo_text(net, example, {"col_names": ("kernel_size", "num_params"),
                                         "depth": 2, "verbose": 2, "row_settings": ()})
    answer = read(text)
    (gru,) = [layer for _, layer in answer.recurrent]
    assert gru.spec == LayerSpec(Cell.GRU, 64, 128, num_layers=2, bidirectional=True)


def test_unknown_cells_are_never_zero() -> None:
    """``--`` (a container, a layer without parameters) and ``(recursive)`` (a module used
    twice) are not zero: the shared module is counted once, as torch counts it."""
    from torch import nn

    class Shared(nn.Module):
        """A GRU applied twice, and a dropout."""

        def __init__(self) -> None:
            super().__init__()
            self.gru = nn.GRU(4, 4, batch_first=True)
            self.drop = nn.Dropout()

        def forward(self, x: Any) -> Any:
            """The same GRU twice."""
            return self.drop(self.gru(self.gru(x)[0])[0])

    import torch

    net = Shared()
    text = torchinfo_text(net, torch.zeros(2, 3, 4), {
        "col_names": ("num_params", "mult_adds"), "depth": 3, "verbose": 0,
        "row_settings": ("var_names",)})
    assert "(recursive)" in text and "--" in text
    answer = read(text)
    (model,) = answer.models
    assert model.total == model.printed_total == sum(p.numel() for p in net.parameters())
    assert not answer.disagreements


def test_frozen_layers_in_parentheses_are_counted() -> None:
    """torchinfo prints a frozen layer's count in parentheses; it is still its count."""
    net, example = _gru_model()
    for parameter in net.embedding.parameters():
        parameter.requires_grad = False
    text = torchinfo_text(net, example, {"col_names": ("num_params",), "depth": 3,
                                         "verbose": 0, "row_settings": ()})
    assert "(64,000)" in text
    (model,) = read(text).models
    assert model.total == 512_010


def test_torchsummary_zero_for_a_gru_is_unknown(cli: CLI, tmp_path: Any) -> None:
    """torchsummary prints 0 for nn.GRU (it counts only .weight and .bias): the GRU's count is
    unknown, the model has no total, nothing is claimed to disagree, and what its output shape
    allows is listed (a GRU of 16 or a bidirectional one of 8, any depth, bias or not)."""
    plan = TorchPlan(None, 8, (("rnn", LayerSpec(Cell.GRU, 8, 16)), ("linear", 3)), (True,))
    net, truth, example = build_torch(plan)
    text = torchsummary_text(net, example)
    assert re.search(r"GRU-\d+\s+\S.*\s0\n", text)
    score = Score()
    answer = check(Paste("torchsummary", text, truth, total_printed=False), score)
    (model,) = answer.models
    assert model.total is None and score.counts["torchsummary", "ambiguous"] == 1
    gru = next(layer for layer in model.layers if layer.recurrent)
    assert gru.params is None and gru.solution is not None
    assert [fit.text for fit in gru.solution.choices] == [
        "nn.GRU(?, 16): any input width, any num_layers, with or without biases",
        "nn.GRU(?, 8, bidirectional=True): any input width, any num_layers, with or without "
        "biases"]
    assert any("torchsummary counts only .weight and .bias" in n
               for layer in model.layers for n in layer.notes)
    path = tmp_path / "summary.txt"
    path.write_text(text)
    result = cli("read", str(path))
    assert result.code == 0 and "GRU" in result.out


def test_the_command_reads_what_each_printer_prints(cli: CLI, tmp_path: Any) -> None:
    """``paramcount read FILE --json`` on every printer's text: exit 0, and the recurrent
    layers and totals the library reads."""
    import json

    plan = TorchPlan(None, 6, (("rnn", LayerSpec(Cell.GRU, 6, 5, num_layers=2)),
                               ("linear", 4)), (False,),
                     LayerSpec(Cell.RNN, 4, 3, single_cell=True))
    options = iter([{"col_names": ("num_params", "mult_adds"), "depth": 2, "verbose": 2,
                     "row_settings": ("var_names",)}, "print(n, p.shape)"])
    for paste in torch_pastes(plan, lambda _: next(options)):
        path = tmp_path / "paste.txt"
        path.write_text(paste.text)
        result = cli("read", str(path), "--json")
        assert result.code == 0, (paste.printer, result.err)
        data = json.loads(result.out)
        answer = read(paste.text)
        assert [(r["name"], r["params"], r["hidden"]) for r in data["recurrent"]] == [
            (layer.name, layer.params, layer.spec.hidden_size if layer.spec else None)
            for _, layer in answer.recurrent], paste.printer
        assert [m["total"] for m in data["models"]] == [m.total for m in answer.models]


def test_an_uncounted_row_takes_what_the_total_leaves() -> None:
    """torchinfo without a Param # column: where the GRU is the only row that can hold
    parameters, its count is the printed total, and with its Input and Output Shape columns the
    one configuration that gives it is found."""
    spec = LayerSpec(Cell.GRU, 64, 128, num_layers=2, bidirectional=True)
    net, truth, example = build_torch(TorchPlan(None, 64, (("rnn", spec),), (True,)))
    text = torchinfo_text(net, example, {"col_names": ("input_size", "output_size"),
                                         "depth": 2, "verbose": 0, "row_settings": ()})
    assert "Param #" not in text
    (model,) = read(text).models
    (gru,) = [layer for layer in model.layers if layer.recurrent]
    assert gru.spec == spec and gru.params == truth.total == 445_440 and gru.printed is None
    assert any("the printed total less every other row" in note for note in gru.notes)


def test_a_total_that_does_not_fit_is_not_taken_for_the_layer() -> None:
    """A model that holds a parameter of its own beside its GRU: the total less the other rows
    is not the GRU's count, fits no GRU with the widths shown, and is not used: what the shapes
    allow is listed, and nothing is claimed to disagree."""
    import torch
    from torch import nn

    class Scaled(nn.Module):
        """A GRU and a learned scale the table shows no row for."""

        def __init__(self) -> None:
            super().__init__()
            self.scale = nn.Parameter(torch.ones(7))
            self.gru = nn.GRU(6, 5, batch_first=True)

        def forward(self, x: Any) -> Any:
            return self.gru(x)[0] * self.scale[:5]

    text = torchinfo_text(Scaled(), torch.zeros(2, 3, 6),
                          {"col_names": ("input_size", "output_size"), "depth": 2,
                           "verbose": 0, "row_settings": ()})
    answer = read(text)
    (gru,) = [layer for layer in answer.models[0].layers if layer.recurrent]
    assert gru.spec is None and gru.params is None and not answer.disagreements
    assert gru.solution is not None
    assert gru.solution.admits(LayerSpec(Cell.GRU, 6, 5))
    assert [fit.text for fit in gru.solution.choices] == [
        "nn.GRU(6, 5): any num_layers, with or without biases"]


@st.composite
def recurrent_runs(draw: st.DrawFn) -> TorchPlan:
    """Torch recurrent layers right after one another (and perhaps a cell), small enough that
    their shapes often repeat: parameters() then prints runs that group more ways than one
    (no more runs than :data:`MOST_RUNS`, beyond which the ways are not listed)."""
    width = draw(st.integers(1, 3))
    first, blocks = width, []
    for _ in range(draw(st.integers(1, 3))):
        cell = draw(st.sampled_from(list(Cell)))
        hidden = draw(st.integers(1, 3))
        proj = draw(st.integers(0, hidden - 1)) if cell is Cell.LSTM else 0
        spec = LayerSpec(cell, first, hidden, num_layers=draw(st.integers(1, 3)),
                         bidirectional=draw(st.booleans()), bias=draw(st.booleans()),
                         proj_size=proj)
        blocks.append(("rnn", spec))
        first = spec.directions * spec.output_size
    cell = None
    if draw(st.booleans()):
        cell = LayerSpec(draw(st.sampled_from(list(Cell))), first, draw(st.integers(1, 3)),
                         bias=draw(st.booleans()), single_cell=True)
    assume(sum(spec.num_layers * spec.directions for _, spec in blocks) < MOST_RUNS)
    return TorchPlan(None, width, tuple(blocks), (True,) * len(blocks), cell)


def _bare(plan: TorchPlan) -> tuple[Paste, Score]:
    """``plan``'s model as ``parameters()`` prints it, read back and scored."""
    net, truth, _ = build_torch(plan)
    paste = Paste("bare", dump_text(net, "bare"), truth)
    score = Score()
    check(paste, score)
    return paste, score


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(recurrent_runs())
def test_unnamed_shapes_list_every_grouping(plan: TorchPlan) -> None:
    """Recurrent layers in a row, printed without names: nothing claimed, and every true layer
    is among the readings listed, as one layer or as a part of a split (two layers read as one
    stacked, a layer and a cell read as one bidirectional)."""
    paste, score = _bare(plan)
    assert score.counts["bare", "ambiguous"] == len(paste.truth.specs), (score, paste.text)


def test_three_layers_read_as_one_stack() -> None:
    """Three ``nn.RNN(1, 1, bias=False)`` in a row print the shapes of one 3-layer stack: that
    reading and every split of it are listed, three in a row among them."""
    spec = LayerSpec(Cell.RNN, 1, 1, bias=False)
    paste, score = _bare(TorchPlan(None, 1, (("rnn", spec),) * 3, (True,) * 3))
    assert score.counts["bare", "ambiguous"] == 3
    (layer,) = [x for _, x in read(paste.text).recurrent]
    assert layer.spec is None and layer.params == 6
    assert "nn.RNN(1, 1, num_layers=3, bias=False)" in layer.notes[-1]
    assert ("nn.RNN(1, 1, bias=False) + nn.RNN(1, 1, bias=False) + nn.RNN(1, 1, bias=False)"
            in layer.notes[-1])


def test_projected_lstms_are_read_from_unnamed_shapes() -> None:
    """A bidirectional LSTM with ``proj_size`` (its ``weight_hr`` after each direction's
    weights) and the GRU after it are each read as a layer, and the true one listed."""
    plan = TorchPlan(None, 8, (("rnn", LayerSpec(Cell.LSTM, 8, 10, bidirectional=True,
                                                 bias=False, proj_size=3)),
                               ("rnn", LayerSpec(Cell.GRU, 6, 10))), (True, True))
    paste, score = _bare(plan)
    assert score.counts["bare", "ambiguous"] == 2
    assert [x.params for _, x in read(paste.text).recurrent] == list(paste.truth.counts)


def test_a_grouping_not_listed_is_wrong() -> None:
    """The scorer's side: a true layer that no listed grouping has, where a layer read covers
    it, is wrong, not ambiguous."""
    spec = LayerSpec(Cell.RNN, 1, 1, bias=False)
    paste, _ = _bare(TorchPlan(None, 1, (("rnn", spec),) * 3, (True,) * 3))
    layers = [x for _, x in read(paste.text).recurrent]
    other = LayerSpec(Cell.RNN, 2, 1, bias=False)
    assert grouped(1, (spec, other, spec), (2, 2, 2), layers)[0] == "wrong"
    assert grouped(1, (spec, spec, spec), (2, 2, 2), layers)[0] == "ambiguous"


def test_a_long_stack_is_not_split() -> None:
    """A stack of more runs than :data:`MOST_RUNS`: read as one layer (its one-layer readings
    listed), its splits too many to list, which the note says."""
    spec = LayerSpec(Cell.GRU, 2, 2, num_layers=MOST_RUNS + 1)
    paste, score = _bare(TorchPlan(None, 2, (("rnn", spec),), (True,)))
    assert score.counts["bare", "ambiguous"] == 1
    (layer,) = [x for _, x in read(paste.text).recurrent]
    assert not layer.groupings and "too many ways to list" in layer.notes[-1]


def test_a_norm_after_a_bias_free_rnn_is_listed_as_a_reading() -> None:
    """A bias-free 2-layer ``nn.RNN(5, 3)`` then ``nn.LayerNorm(3)``: the norm's weight and
    bias print as the shapes of the second layer's biases, so the shapes read as a bias-free
    RNN and a biased one; the true stack is listed among the readings, and said why."""
    plan = TorchPlan(None, 5, (("rnn", LayerSpec(Cell.RNN, 5, 3, num_layers=2, bias=False)),
                               ("norm", None)), (True,))
    paste, score = _bare(plan)
    assert score.counts["bare", "ambiguous"] == 1, score
    first, second = [x for _, x in read(paste.text).recurrent]
    assert "nn.RNN(5, 3, num_layers=2, bias=False)" in first.notes[-1]
    assert "nn.LayerNorm(3)" in first.notes[-1] and "nn.LayerNorm(3)" in second.notes[-1]


def test_a_norm_after_a_lone_bias_free_rnn_is_listed_as_a_reading() -> None:
    """``nn.RNN(12, 9, bias=False)`` then ``nn.LayerNorm(9)`` print the shapes of a biased
    ``nn.RNN(12, 9)``: the bias-free layer followed by a norm is listed as a reading."""
    plan = TorchPlan(None, 12, (("rnn", LayerSpec(Cell.RNN, 12, 9, bias=False)),
                                ("norm", None)), (True,))
    paste, score = _bare(plan)
    assert score.counts["bare", "ambiguous"] == 1, score
    (layer,) = [x for _, x in read(paste.text).recurrent]
    assert layer.spec is None
    assert "nn.RNN(12, 9, bias=False) then the norm" in layer.notes[-1]


def _linears(twice: bool) -> Any:
    """A model whose forward pass calls one Linear(4, 4) twice (``twice``), or two alike
    Linear(4, 4) once each, then a Linear(4, 2): the same table from torchsummary."""
    from torch import nn

    class Linears(nn.Module):
        """``fc`` twice, or ``fc`` then ``again``, then ``out``."""

        def __init__(self) -> None:
            super().__init__()
            self.fc, self.out = nn.Linear(4, 4), nn.Linear(4, 2)
            self.again = self.fc if twice else nn.Linear(4, 4)

        def forward(self, x: Any) -> Any:
            return self.out(self.again(self.fc(x)))

    return Linears()


ALIKE = ("Linear-1 and Linear-2 print the same class, shape and count: torchsummary prints a "
         "module called twice as two rows, so the model may hold 20 fewer")
"""The note torchsummary's table of :func:`_linears` gets."""


@pytest.mark.parametrize("twice", [True, False], ids=["one-linear-called-twice",
                                                       "two-alike-linears"])
def test_torchsummary_rows_alike_name_a_module_called_twice(cli: CLI, tmp_path: Any,
                                                            twice: bool) -> None:
    """torchsummary prints a row per call: one Linear called twice and two alike Linears print
    the same table, read as printed (50) with the note that the model may hold 20 fewer, in
    the text and the JSON; the true count is one of the two."""
    import json

    import torch

    net = _linears(twice)
    text = torchsummary_text(net, torch.zeros(1, 4))
    assert text == torchsummary_text(_linears(not twice), torch.zeros(1, 4))
    (model,) = read(text).models
    truth = sum(p.numel() for p in net.parameters())
    assert model.total == 50 and truth == (30 if twice else 50)
    assert ALIKE in model.notes
    path = tmp_path / "summary.txt"
    path.write_text(text)
    data = json.loads(cli("read", str(path), "--json").out)
    assert data["models"][0]["total"] == 50 and ALIKE in data["models"][0]["notes"]
    said = cli("read", str(path)).out
    assert "may hold 20" in said and "fewer" in said


PER_MODULE = ("torchinfo", "pytorch-model-summary", "lightning")
"""The printers that print a module once however often it is called."""


@pytest.mark.parametrize("printer", PER_MODULE)
def test_a_per_module_table_of_a_module_called_twice_gets_no_note(printer: str) -> None:
    """torchinfo, pytorch-model-summary and Lightning print one Linear called twice once: its
    count is read exact (30) and no note says the model may hold fewer."""
    import torch

    net, example = _linears(True), torch.zeros(1, 4)
    if printer == "torchinfo":
        text = torchinfo_text(net, example, {"col_names": ("output_size", "num_params"),
                                             "depth": 3, "verbose": 0, "row_settings": ()})
    else:
        pytest.importorskip("pytorch_model_summary" if printer != "lightning" else "lightning")
        from tests.printers_more import lightning_text, pms_text

        text = (pms_text(net, example, "plain") if printer != "lightning"
                else lightning_text(net, example, False, 1, False))
    (model,) = read(text).models
    assert model.total == 30, text
    assert not any("may hold" in note for note in model.notes)
