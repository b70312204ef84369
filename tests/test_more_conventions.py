"""The ONNX, Flax and TF1 conventions: totals, names, closed forms, validation and CLI errors.

The TF1 layers (tf.compat.v1 rnn_cell, CuDNNLSTM / CuDNNGRU) cannot be installed next to
TensorFlow 2.21, so their rules are checked here against the published formulas and the TF 1.15
sources (restated in ``closed_form``); ONNX and Flax are also checked against the real
libraries in test_verify_onnx.py and test_verify_flax.py.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings

import paramcount
from paramcount.engine.report import build_report
from paramcount.engine.spec import Cell, Framework, LayerSpec
from tests.conftest import CLI
from tests.strategies_more import more_specs

SEEDS = [
    ("onnx-bilstm-2", dict(cell="lstm", input_size=32, hidden_size=128, num_layers=2,
                           bidirectional=True, framework="onnx"), 561_152),
    ("onnx-bilstm-2-peepholes", dict(cell="lstm", input_size=32, hidden_size=128, num_layers=2,
                                     bidirectional=True, framework="onnx", peepholes=True),
     562_688),
    ("onnx-gru-no-bias", dict(cell="gru", input_size=10, hidden_size=20, bias=False,
                              framework="onnx"), 1_800),
    ("linen-gru", dict(cell="gru", input_size=13, hidden_size=20, framework="flax-linen"), 2_060),
    ("nnx-gru", dict(cell="gru", input_size=13, hidden_size=20, framework="flax-nnx"), 2_040),
    ("linen-bilstm", dict(cell="lstm", input_size=28, hidden_size=128, bidirectional=True,
                          framework="flax-linen"), 160_768),
    ("nnx-simple-cell", dict(cell="rnn", input_size=10, hidden_size=20, single_cell=True,
                             framework="flax-nnx"), 620),
    # The MNIST LSTM of the TF1 tutorials: BasicLSTMCell / LSTMCell(128) on 28 pixels a row.
    ("tf1-mnist-lstm", dict(cell="lstm", input_size=28, hidden_size=128, framework="tf1"),
     80_384),
    ("tf1-lstmp", dict(cell="lstm", input_size=40, hidden_size=2048, proj_size=512,
                       peepholes=True, framework="tf1"), 5_584_896),
    ("tf1-gru-cell", dict(cell="gru", input_size=13, hidden_size=20, single_cell=True,
                          framework="tf1"), 2_040),
    ("tf1-multi-rnn-cell", dict(cell="lstm", input_size=28, hidden_size=128, num_layers=2,
                                framework="tf1"), 211_968),
    ("tf1-stack-bidir", dict(cell="lstm", input_size=28, hidden_size=128, num_layers=2,
                             bidirectional=True, framework="tf1"), 555_008),
    # Keras 2's LSTM(64) on 100 features is 42,240; CuDNNLSTM(64) carries 4·64 more biases.
    ("cudnn-lstm", dict(cell="lstm", input_size=100, hidden_size=64, framework="tf1-cudnn"),
     42_496),
    ("cudnn-gru", dict(cell="gru", input_size=13, hidden_size=20, framework="tf1-cudnn"), 2_100),
]


@pytest.mark.parametrize(("kwargs", "total"), [s[1:] for s in SEEDS], ids=[s[0] for s in SEEDS])
def test_seed_totals(kwargs: dict[str, Any], total: int) -> None:
    """The worked examples of formulas.md come out exactly."""
    assert paramcount.count(**kwargs).total == total


TENSORS = [
    ("onnx-W-layer1", dict(cell="lstm", input_size=5, hidden_size=7, num_layers=2,
                           bidirectional=True, framework="onnx"), "layer1/W", (2, 28, 14)),
    ("onnx-B", dict(cell="gru", input_size=5, hidden_size=7, framework="onnx"), "layer0/B",
     (1, 42)),
    ("onnx-P", dict(cell="lstm", input_size=5, hidden_size=7, framework="onnx", peepholes=True),
     "layer0/P", (1, 21)),
    ("linen-rnn", dict(cell="lstm", input_size=5, hidden_size=7, framework="flax-linen"),
     "params/cell/ii/kernel", (5, 7)),
    ("linen-stack-bidir", dict(cell="gru", input_size=5, hidden_size=7, num_layers=2,
                               bidirectional=True, framework="flax-linen"),
     "params/layers_1/backward_rnn/cell/ir/kernel", (14, 7)),
    ("linen-gru-hn-bias", dict(cell="gru", input_size=5, hidden_size=7, framework="flax-linen"),
     "params/cell/hn/bias", (7,)),
    ("linen-cell", dict(cell="rnn", input_size=5, hidden_size=7, single_cell=True,
                        framework="flax-linen"), "params/i/kernel", (5, 7)),
    ("nnx-lstm-if_", dict(cell="lstm", input_size=5, hidden_size=7, framework="flax-nnx"),
     "cell/if_/kernel", (5, 7)),
    ("nnx-gru-dense-h", dict(cell="gru", input_size=5, hidden_size=7, num_layers=2,
                             framework="flax-nnx"), "layers/1/cell/dense_h/kernel", (7, 21)),
    ("tf1-kernel", dict(cell="lstm", input_size=5, hidden_size=7, framework="tf1"),
     "rnn/lstm_cell/kernel", (12, 28)),
    ("tf1-proj-kernel", dict(cell="lstm", input_size=5, hidden_size=7, proj_size=9,
                             framework="tf1"), "rnn/lstm_cell/kernel", (14, 28)),
    ("tf1-projection", dict(cell="lstm", input_size=5, hidden_size=7, proj_size=9,
                            framework="tf1"), "rnn/lstm_cell/projection/kernel", (7, 9)),
    ("tf1-peephole", dict(cell="lstm", input_size=5, hidden_size=7, peepholes=True,
                          framework="tf1"), "rnn/lstm_cell/w_f_diag", (7,)),
    ("tf1-multi", dict(cell="gru", input_size=5, hidden_size=7, num_layers=2, framework="tf1"),
     "rnn/multi_rnn_cell/cell_1/gru_cell/gates/kernel", (14, 14)),
    ("tf1-stack-bidir", dict(cell="rnn", input_size=5, hidden_size=7, num_layers=2,
                             bidirectional=True, framework="tf1"),
     "stack_bidirectional_rnn/cell_1/bidirectional_rnn/bw/basic_rnn_cell/kernel", (21, 7)),
    ("tf1-bidir", dict(cell="lstm", input_size=5, hidden_size=7, bidirectional=True,
                       framework="tf1"), "bidirectional_rnn/fw/lstm_cell/bias", (28,)),
    ("cudnn-bias", dict(cell="lstm", input_size=5, hidden_size=7, framework="tf1-cudnn"),
     "cu_dnnlstm/bias", (56,)),
    ("cudnn-bidir", dict(cell="gru", input_size=5, hidden_size=7, num_layers=2,
                         bidirectional=True, framework="tf1-cudnn"),
     "bidirectional_1/backward_cu_dnngru_1/kernel", (14, 21)),
]


@pytest.mark.parametrize(
    ("kwargs", "name", "shape"), [t[1:] for t in TENSORS], ids=[t[0] for t in TENSORS]
)
def test_tensor_name_and_shape(kwargs: dict[str, Any], name: str, shape: tuple[int, ...]) -> None:
    """A tensor is named and shaped as its framework (or paramcount's ONNX naming) has it."""
    tensors = {t.name: t.shape for t in paramcount.count(**kwargs).tensors}
    assert tensors[name] == shape


def closed_form(spec: LayerSpec) -> int:
    """The totals of /work/shared/conventions.md and the TF1 sources, restated independently."""
    g, i, h, p = spec.cell.gates, spec.input_size, spec.hidden_size, spec.proj_size
    b, d, n = int(spec.bias), spec.directions, spec.num_layers
    peep = 3 * h if spec.peepholes else 0
    if spec.framework is Framework.ONNX:
        return d * (g * h * (i + h + 2 * b) + peep) + (n - 1) * d * (
            g * h * (d * h + h + 2 * b) + peep)
    if spec.framework in (Framework.FLAX_LINEN, Framework.FLAX_NNX):
        biases = {Cell.RNN: 1, Cell.LSTM: 4, Cell.GRU: 4}[spec.cell]
        if spec.framework is Framework.FLAX_NNX and spec.cell is Cell.GRU:
            biases = 3
        per = [g * h * (width + h) + biases * h for width in [i] + [d * h] * (n - 1)]
        return d * sum(per)
    if spec.framework is Framework.TF1:
        hr = p or h
        cell = [4 * h * (width + hr + 1) + peep + p * h if spec.cell is Cell.LSTM
                else g * h * (width + h + 1) for width in [i] + [d * hr] * (n - 1)]
        return d * sum(cell)
    assert spec.framework is Framework.TF1_CUDNN
    return d * sum(g * h * (width + h + 2) for width in [i] + [d * h] * (n - 1))


@settings(max_examples=300, deadline=None)
@given(more_specs())
def test_tensors_formula_and_closed_form_agree(spec: LayerSpec) -> None:
    """Tensor list, the convention's formula, an independent closed form and subtotals agree."""
    report = build_report(spec)
    assert report.total == report.formula.total == closed_form(spec)
    assert sum(row.total for row in report.layers) == report.total
    assert len({t.name for t in report.tensors}) == len(report.tensors)


@settings(max_examples=100, deadline=None)
@given(more_specs())
def test_growth_is_fully_attributed(spec: LayerSpec) -> None:
    """The gap between the naive guess and the total is the sum of the per-layer extras."""
    growth = build_report(spec).growth
    if growth is not None:
        assert growth.difference == sum(row.extra for row in growth.rows)


@settings(max_examples=100, deadline=None)
@given(more_specs(frameworks=(Framework.ONNX,)))
def test_onnx_is_torch_plus_peepholes(spec: LayerSpec) -> None:
    """ONNX counts what torch counts (two biases, D·H inputs), plus 3H per peephole direction."""
    torch = spec.replace(framework=Framework.TORCH, peepholes=False)
    peepholes = 3 * spec.hidden_size * spec.directions * spec.num_layers * spec.peepholes
    assert build_report(spec).total == build_report(torch).total + peepholes


def test_onnx_per_direction_split() -> None:
    """An ONNX [D, ...] tensor counts half to each direction in the per-layer table."""
    report = paramcount.count("lstm", 32, 128, num_layers=2, bidirectional=True, framework="onnx")
    torch = paramcount.count("lstm", 32, 128, num_layers=2, bidirectional=True)
    assert report.layers == torch.layers


INVALID = [
    ("peepholes-gru", dict(cell="gru", framework="onnx", peepholes=True),
     r"peepholes=True applies only to LSTM"),
    ("peepholes-torch", dict(peepholes=True), r"nn.LSTM has no peephole weights"),
    ("peepholes-keras", dict(framework="keras", peepholes=True), r"keras.layers.LSTM has no"),
    ("peepholes-not-bool", dict(framework="onnx", peepholes="yes"), r"must be True or False"),
    ("proj-onnx", dict(framework="onnx", proj_size=4), r"ONNX LSTM operator has no projection"),
    ("proj-flax", dict(framework="flax-linen", proj_size=4), r"Flax recurrent cells have no"),
    ("proj-cudnn", dict(framework="tf1-cudnn", proj_size=4), r"CuDNNLSTM has no projection"),
    ("proj-tf1-gru", dict(cell="gru", framework="tf1", proj_size=4),
     r"GRUCell has no num_proj"),
    ("cell-onnx", dict(framework="onnx", single_cell=True), r"one operator node runs"),
    ("cell-cudnn", dict(framework="tf1-cudnn", single_cell=True), r"they have no cell class"),
    ("rnn-cudnn", dict(cell="rnn", framework="tf1-cudnn"), r"no CuDNN layer"),
    ("no-bias-linen", dict(framework="flax-linen", bias=False), r"Flax's recurrent cells"),
    ("no-bias-nnx", dict(framework="flax-nnx", bias=False), r"always have biases"),
    ("no-bias-tf1", dict(framework="tf1", bias=False), r"rnn_cell cells always have"),
    ("no-bias-cudnn", dict(framework="tf1-cudnn", bias=False), r"CuDNNLSTM and CuDNNGRU"),
    ("merge-onnx", dict(framework="onnx", bidirectional=True, merge_mode="sum"),
     r"ONNX always concatenates"),
    ("reset-after-flax", dict(cell="gru", framework="flax-nnx", reset_after=False),
     r"nnx.GRUCell has one fixed bias layout"),
    ("reset-after-onnx", dict(cell="gru", framework="onnx", reset_after=True),
     r"is a Keras GRU option"),
]


@pytest.mark.parametrize(("changes", "message"), [i[1:] for i in INVALID],
                         ids=[i[0] for i in INVALID])
def test_invalid_configuration(changes: dict[str, Any], message: str) -> None:
    """Every configuration the framework refuses raises SpecError naming the argument."""
    kwargs: dict[str, Any] = dict(cell="lstm", input_size=8, hidden_size=16) | changes
    with pytest.raises(paramcount.SpecError, match=message):
        paramcount.count(**kwargs)


def test_tf1_projection_may_exceed_hidden() -> None:
    """tf1 LSTMCell's num_proj is not bounded by num_units (torch's proj_size is)."""
    assert paramcount.count("lstm", 4, 8, proj_size=16, framework="tf1").total == (
        4 * 8 * (4 + 16 + 1) + 8 * 16)


BAD = [
    ("peepholes-gru", ["gru", "-i", "8", "-H", "16", "-f", "onnx", "--peepholes"],
     "--peepholes applies only to LSTM"),
    ("peepholes-torch", ["lstm", "-i", "8", "-H", "16", "--peepholes"],
     "--peepholes is an ONNX / tf1 LSTMCell option: nn.LSTM has no peephole weights"),
    ("proj-onnx", ["lstm", "-i", "8", "-H", "16", "-f", "onnx", "--proj", "4"],
     "--proj 4 is a PyTorch option (and tf1's num_proj): the ONNX LSTM operator has no"),
    ("all-proj", ["lstm", "-i", "8", "-H", "16", "-f", "all", "--proj", "4"],
     "[keras refuses it; pick frameworks with a comma list, e.g. --framework torch,keras]"),
    ("all-no-bias", ["lstm", "-i", "8", "-H", "16", "-f", "all", "--no-bias"],
     "--no-bias: Flax's recurrent cells always have biases (no use_bias option) "
     "[flax-linen refuses it"),
    ("onnx-cell", ["lstm", "-i", "8", "-H", "16", "-f", "onnx", "--cell"],
     "--cell does not apply to ONNX"),
    ("cudnn-rnn", ["rnn", "-i", "8", "-H", "16", "-f", "tf1-cudnn"],
     "cell rnn has no CuDNN layer in TF1"),
    ("flax-no-bias", ["gru", "-i", "8", "-H", "16", "-f", "flax-nnx", "--no-bias"],
     "--no-bias: Flax's recurrent cells always have biases"),
    ("unknown-in-list", ["lstm", "-i", "8", "-H", "16", "-f", "torch,jax"],
     "'jax' is not one of torch, keras, onnx, flax-linen, flax-nnx, tf1, tf1-cudnn, all"),
    ("empty-in-list", ["lstm", "-i", "8", "-H", "16", "-f", "torch,"], "'' is not one of"),
]


@pytest.mark.parametrize(("args", "message"), [b[1:] for b in BAD], ids=[b[0] for b in BAD])
def test_bad_input_is_one_line_exit_2(cli: CLI, args: list[str], message: str) -> None:
    """Bad input prints one line naming option, value and rule, and exits 2."""
    result = cli(*args)
    assert (result.code, result.out) == (2, "")
    assert result.err.count("\n") == 1 and result.err.startswith("Error: ")
    assert message in result.err


def test_all_is_current_frameworks_and_lists_choose(cli: CLI) -> None:
    """``all`` shows the five current conventions; a comma list shows those named, once each."""
    every = json.loads(cli("gru", "-i", "13", "-H", "20", "-f", "all", "--json").out)
    assert [r["framework"] for r in every["reports"]] == [f.value for f in Framework.current()]
    assert Framework.TF1 not in Framework.current()
    chosen = json.loads(cli("gru", "-i", "13", "-H", "20", "-f", "tf1,tf1-cudnn,tf1", "--json").out)
    assert [(r["framework"], r["total"]) for r in chosen["reports"]] == [
        ("tf1", 2_040), ("tf1-cudnn", 2_100)]


def test_single_framework_error_has_no_hint(cli: CLI) -> None:
    """With one framework the error is the plain rule, without the comma-list hint."""
    result = cli("lstm", "-i", "8", "-H", "16", "-f", "flax-linen", "--no-bias")
    assert "refuses" not in result.err and result.code == 2


@pytest.mark.parametrize("framework", ["onnx", "flax-linen", "flax-nnx", "tf1", "tf1-cudnn"])
def test_new_frameworks_import_no_framework(framework: str) -> None:
    """Counting in the new conventions imports no framework (they are pure formula modules)."""
    from tests.test_imports import HEAVY, loaded_after

    args = ["lstm", "-i", "8", "-H", "16", "-L", "2", "--bidir", "-f", framework]
    code = (
        "import contextlib, io\nfrom paramcount.cli.main import run\n"
        f"with contextlib.redirect_stdout(io.StringIO()): assert run({args!r}) == 0"
    )
    assert not loaded_after(code) & {*HEAVY, "rich"}


@settings(max_examples=60, deadline=None)
@given(more_specs())
def test_every_renderer_draws_the_new_conventions(spec: LayerSpec) -> None:
    """Plain text, Markdown and JSON all render any new-convention report with its total."""
    from paramcount.render.breakdown import breakdown
    from paramcount.render.data import report_data
    from paramcount.render.markdown import to_markdown
    from paramcount.render.plain import to_text

    report = build_report(spec)
    document = breakdown(report)
    total = f"{report.total:,}"
    assert total in to_text(document) and total in to_markdown(document)
    assert report_data(report)["config"]["peepholes"] == spec.peepholes


@pytest.mark.parametrize("framework", ["onnx", "flax-linen", "flax-nnx", "tf1", "tf1-cudnn"])
def test_other_commands_accept_or_refuse_the_new_frameworks(cli: CLI, framework: str) -> None:
    """explain works in every convention, compare in every one but TF1 (whose fused kernel it
    cannot align); shapes and trace refuse cleanly (exit 2)."""
    args = ["-i", "32", "-H", "128", "-L", "2", "--bidir", "-f", framework]
    explained = cli("explain", "lstm", *args)
    assert explained.code == 0 and explained.err == ""
    compared = cli("compare", f"lstm {' '.join(args)}", "lstm -i 32 -H 128")
    assert compared.code == (2 if framework == "tf1" else 0), compared.err
    for command in (["shapes", "lstm", *args], ["trace", "lstm", *args]):
        result = cli(*command)
        assert result.code == 2 and result.err.count("\n") == 1, (command, result.err)


@settings(max_examples=50, deadline=None)
@given(more_specs(frameworks=(Framework.ONNX,)))
def test_onnx_compute_matches_torch(spec: LayerSpec) -> None:
    """An ONNX stack does the work of the same torch stack: its B holds both biases."""
    from paramcount.analysis.compute import forward

    torch = spec.replace(framework=Framework.TORCH, peepholes=False)
    assert forward(spec.replace(peepholes=False), seq_len=3, batch=2).flops == forward(
        torch, seq_len=3, batch=2).flops
