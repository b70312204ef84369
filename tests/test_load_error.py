"""``inspect --error``'s analysis of failed loads, on error texts that real torch produces."""

from __future__ import annotations

import json
import traceback
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings

from paramcount.cli.output import show
from paramcount.engine.spec import Cell, Framework, LayerSpec
from paramcount.reading.messages.load_error import LoadErrorAnalysis, NoLoadError, analyse
from paramcount.render.load_error import data, document
from tests.strategies import layer_specs
from tests.test_recognise_frameworks import torch_spec

torch = pytest.importorskip("torch")
nn = torch.nn
pytestmark = pytest.mark.torch


class Net(nn.Module):  # type: ignore[misc]
    """A model as people write them: an embedding, one recurrent module, a linear head."""

    def __init__(self, rnn: Any) -> None:
        super().__init__()
        self.embed = nn.Embedding(10, 16)
        self.rnn = rnn
        self.fc = nn.Linear(4, 3)


def load_error(saved: Any, target: Any) -> str:
    """The text of the error torch raises loading ``saved``'s state dict into ``target``."""
    with pytest.raises(RuntimeError) as caught:
        target.load_state_dict(saved.state_dict())
    return str(caught.value)


def run_error(call: Callable[[], object]) -> str:
    """The text of the error torch raises running ``call``."""
    with pytest.raises(RuntimeError) as caught:
        call()
    return str(caught.value)


def count(module: Any) -> int:
    """What torch says the module holds."""
    return sum(p.numel() for p in module.parameters())


LOADS = {
    "hidden": (nn.LSTM(16, 32, 2, bidirectional=True), nn.LSTM(16, 64, 2, bidirectional=True),
               ["hidden"], "build it with hidden_size=32"),
    "cell type": (nn.LSTM(16, 32, 2), nn.GRU(16, 32, 2), ["cell"], "build it as nn.LSTM"),
    "bidirectional": (nn.GRU(16, 32, 2, bidirectional=True), nn.GRU(16, 32, 2),
                      ["bidirectional"], "build it with bidirectional=True"),
    "layers": (nn.LSTM(16, 32, 2), nn.LSTM(16, 32, 3), ["layers"], "build it with num_layers=2"),
    "more layers": (nn.RNN(16, 32, 3), nn.RNN(16, 32, 1), ["layers"],
                    "build it with num_layers=3"),
    "input": (nn.LSTM(8, 32), nn.LSTM(16, 32), ["input"], "build it with input_size=8"),
    "bias": (nn.GRU(16, 32), nn.GRU(16, 32, bias=False), ["bias"], "build it with bias=True"),
    "projection": (nn.LSTM(16, 32, proj_size=8), nn.LSTM(16, 32), ["proj"],
                   "build it with proj_size=8"),
    "cell vs layer": (nn.LSTM(16, 32), nn.LSTMCell(16, 32), ["cell_only"],
                      "build it as a layer stack"),
    "layer vs cell": (nn.GRUCell(16, 32), nn.GRU(16, 32), ["cell_only"],
                      "build it as a single-step cell"),
    "hidden and layers": (nn.GRU(16, 32, 3, bidirectional=True),
                          nn.GRU(16, 48, 2, bidirectional=True), ["hidden", "layers"],
                          "build it with hidden_size=32, num_layers=3"),
}


@pytest.mark.parametrize(("saved", "wanted", "fields", "fix"), LOADS.values(), ids=LOADS)
def test_a_state_dict_that_does_not_fit_is_explained(
    saved: Any, wanted: Any, fields: list[str], fix: str
) -> None:
    """Each difference torch reports is named, with a fix; every field known is the truth."""
    text = load_error(Net(saved), Net(wanted))
    analysis = analyse(text)
    assert analysis.model_class == "Net"
    assert [d.field for d in analysis.differences] == fields
    [line] = analysis.fixes
    assert line.startswith("the checkpoint's `rnn` is ") and fix in line
    [checkpoint], [model] = analysis.checkpoint, analysis.model
    for partial, module in ((checkpoint, saved), (model, wanted)):
        truth = torch_spec(module)
        assert partial.name == "rnn"
        for field in ("cell", "input_size", "hidden_size", "num_layers", "bidirectional",
                      "bias", "proj_size"):
            known = getattr(partial, field)
            real = getattr(truth, field) if not (truth.single_cell and field == "num_layers") \
                else None
            assert known is None or known == real, (field, known, real)
        assert partial.cell_only in (None, truth.single_cell)
        if partial.spec is not None:
            assert partial.spec == truth
            assert partial.params == count(module)


def test_the_issue_example_is_told_in_full() -> None:
    """A hidden-size mismatch shows both layers whole, counted as torch counts them."""
    saved, wanted = nn.LSTM(16, 32, 2, bidirectional=True), nn.LSTM(16, 64, 2, bidirectional=True)
    analysis = analyse(load_error(Net(saved), Net(wanted)))
    assert analysis.fixes == (
        "the checkpoint's `rnn` is LSTM(16, 32, 2 layers, bidirectional); your model asks for "
        "hidden 64 — build it with hidden_size=32",
    )
    assert [layer.params for layer in analysis.checkpoint + analysis.model] == [
        count(saved), count(wanted)]
    assert analysis.checkpoint[0].command == "paramcount lstm -i 16 -H 32 -L 2 --bidir"
    assert any("_reverse" in note for note in analysis.notes)
    assert analysis.other == ()  # the head reads 4 features on both sides


def test_a_cell_left_open_lists_its_candidates() -> None:
    """Only weight_ih's rows in the text: the cell is not guessed, the options are listed."""
    analysis = analyse(load_error(Net(nn.GRU(8, 32)), Net(nn.GRU(16, 32))))
    assert analysis.checkpoint[0].cell is None
    assert "`rnn`: 96 gate rows could be an LSTM with hidden 24, a GRU with hidden 32 or an RNN " \
           "with hidden 96" in analysis.notes


@pytest.mark.parametrize("wrapped_side", ["checkpoint", "model"])
def test_a_data_parallel_prefix_is_named_and_stripped(wrapped_side: str) -> None:
    """``module.`` on one side only is nn.DataParallel's; the fix says which way to go."""
    net = Net(nn.LSTM(16, 32))
    if wrapped_side == "checkpoint":
        text = load_error(nn.DataParallel(net), Net(nn.LSTM(16, 32)))
    else:
        text = load_error(net, nn.DataParallel(Net(nn.LSTM(16, 32))))
    analysis = analyse(text)
    [difference] = analysis.differences
    assert difference.field == "prefix"
    assert "removeprefix('module.')" in analysis.fixes[0] if wrapped_side == "checkpoint" \
        else "`.module`" in analysis.fixes[0]
    assert analysis.checkpoint == analysis.model == ()


def test_the_error_is_found_inside_a_whole_traceback() -> None:
    """Piped output of a crashed script: the traceback around the message is passed over."""
    try:
        Net(nn.LSTM(16, 32)).load_state_dict(Net(nn.LSTM(16, 64)).state_dict())
    except RuntimeError:
        text = "epoch 1\n" + traceback.format_exc() + "\nexiting\n"
    analysis = analyse(text)
    assert [d.field for d in analysis.differences] == ["hidden"]


RUNS = {
    "h0 layers": (lambda: nn.LSTM(16, 32, 2)(torch.zeros(5, 3, 16),
                                              (torch.zeros(4, 3, 32), torch.zeros(4, 3, 32))),
                  ["h0"], "= 2, not 4"),
    "c0 hidden": (lambda: nn.LSTM(16, 32)(torch.zeros(5, 3, 16),
                                          (torch.zeros(1, 3, 32), torch.zeros(1, 3, 16))),
                  ["c0"], "hidden_size, 32, not 16"),
    "input": (lambda: nn.GRU(16, 32)(torch.zeros(5, 3, 32)), ["input"], "input_size=32, or "
              "feed inputs whose last dimension is 16"),
    "batch_first state": (lambda: nn.GRU(16, 32, batch_first=True)(
        torch.zeros(5, 7, 16), torch.zeros(1, 7, 32)), ["h0", "batch"], "the batch size, 5 "
        "(batch_first does not apply to the state)"),
    "cell input": (lambda: nn.LSTMCell(16, 32)(torch.zeros(3, 32)), ["input"],
                   "feed (batch, 16) inputs"),
    "cell state": (lambda: nn.GRUCell(16, 32)(torch.zeros(3, 16), torch.zeros(3, 8)),
                   ["h0"], "hidden_size=8"),
}


@pytest.mark.parametrize(("call", "fields", "fix"), RUNS.values(), ids=RUNS)
def test_a_runtime_size_error_is_explained(
    call: Callable[[], object], fields: list[str], fix: str
) -> None:
    """The layer's own checks on input and state: what it expects, what it got, the fix."""
    analysis = analyse(run_error(call))
    assert analysis.kind == "runtime"
    assert [d.field for d in analysis.differences] == fields
    assert analysis.fixes[0].endswith(fix) or any(f.endswith(fix) for f in analysis.fixes)
    assert data(analysis)["differences"][0].keys() == {
        "module", "field", "passed", "expected", "explanation"}


@pytest.mark.parametrize("text", ["", "Traceback: KeyError: 'x'", "\x00" * 100, "size mismatch"],
                         ids=["empty", "another error", "binary", "a phrase alone"])
def test_text_without_a_load_error_is_refused(text: str) -> None:
    """Nothing to explain: one clear error (exit 2), not an empty analysis."""
    with pytest.raises(NoLoadError, match="no load_state_dict error") as caught:
        analyse(text)
    assert caught.value.exit_code == 2


class TwoRNNs(nn.Module):  # type: ignore[misc]
    """An encoder and a decoder, each with its own recurrent layer."""

    def __init__(self, hidden: int, layers: int) -> None:
        super().__init__()
        self.encoder = nn.Module()
        self.encoder.rnn = nn.GRU(8, hidden, bidirectional=True)
        self.decoder = nn.Module()
        self.decoder.rnn = nn.LSTM(8, 16, num_layers=layers)


def test_each_recurrent_module_is_told_apart() -> None:
    """An encoder whose hidden size differs and a decoder whose depth does: one fix each."""
    analysis = analyse(load_error(TwoRNNs(32, 2), TwoRNNs(24, 1)))
    by_name = {layer.name: layer for layer in analysis.checkpoint}
    assert by_name["encoder.rnn"].spec == torch_spec(nn.GRU(8, 32, bidirectional=True))
    assert by_name["decoder.rnn"].num_layers == 2
    assert sorted(analysis.fixes) == [
        "the checkpoint's `decoder.rnn` is recurrent layer(?, ?, 2 layers); your model asks for "
        "1 layer — build it with num_layers=2",
        "the checkpoint's `encoder.rnn` is GRU(8, 32, 1 layer, bidirectional); your model asks "
        "for hidden 24 — build it with hidden_size=32",
    ]


def test_a_large_hostile_text_is_read_without_harm() -> None:
    """Megabytes of look-alike fragments: no error to explain, refused in one line."""
    text = ("size mismatch for " + "x" * 100_000 + " Expected hidden size (\n") * 20
    with pytest.raises(NoLoadError):
        analyse(text)


def test_json_gives_both_sides_with_null_where_unknown() -> None:
    """The documented keys, on each side of each module; nulls where the text cannot tell."""
    analysis = analyse(load_error(Net(nn.LSTM(16, 32, 2)), Net(nn.LSTM(16, 32, 3))))
    got = json.loads(json.dumps(data(analysis)))
    keys = {"name", "framework", "cell", "input", "hidden", "layers", "bidirectional", "bias",
            "proj", "cell_only", "reset_after", "params", "command", "layer"}
    assert got["checkpoint"][0].keys() == got["model"][0].keys() == keys
    assert (got["checkpoint"][0]["layers"], got["model"][0]["layers"]) == (2, 3)
    assert got["checkpoint"][0]["hidden"] is None and got["checkpoint"][0]["params"] is None
    assert got["differences"] == [{
        "module": "rnn", "field": "layers", "checkpoint": 2, "model": 3,
        "explanation": "the checkpoint's `rnn` has 2 layers; your model's has 3 layers"}]


def test_the_document_shows_each_side_and_the_fix(capsys: pytest.CaptureFixture[str]) -> None:
    """Plain text: both sides per module, their counts, the fix, the commands."""
    analysis: LoadErrorAnalysis = analyse(load_error(Net(nn.GRU(16, 32)), Net(nn.GRU(16, 8))))
    show(document(analysis), "plain")
    out = capsys.readouterr().out
    assert "GRU(16, 32, 1 layer)" in out and "GRU(16, 8, 1 layer)" in out
    assert f"{count(nn.GRU(16, 32)):,}" in out
    assert "build it with hidden_size=32" in out
    assert "paramcount gru -i 16 -H 32" in out


@settings(max_examples=60, deadline=None)
@given(saved=layer_specs(frameworks=(Framework.TORCH,), max_size=12, max_layers=3),
       wanted=layer_specs(frameworks=(Framework.TORCH,), max_size=12, max_layers=3))
def test_whatever_torch_reports_is_explained_truthfully(
    saved: LayerSpec, wanted: LayerSpec
) -> None:
    """Any two torch layers: every field the analysis claims is true, and a failed load is
    explained by at least one difference."""
    from paramcount.verify import torch_backend

    checkpoint, model = torch_backend.module(saved), torch_backend.module(wanted)
    try:
        Net(model).load_state_dict(Net(checkpoint).state_dict())
    except RuntimeError as error:
        analysis = analyse(str(error))
    else:
        return
    assert analysis.differences
    for partials, truth in ((analysis.checkpoint, saved), (analysis.model, wanted)):
        for partial in partials:
            assert partial.name == "rnn"
            for field in ("cell", "input_size", "hidden_size", "bidirectional", "bias"):
                assert getattr(partial, field) in (None, getattr(truth, field)), field
            assert partial.cell_only in (None, truth.single_cell)
            if not truth.single_cell:
                assert partial.num_layers in (None, truth.num_layers)
                assert partial.proj_size in (None, truth.proj_size)
            if partial.spec is not None:
                assert partial.spec == truth.replace(nonlinearity=None)


def test_bidirectional_stack_against_one_direction_is_determined() -> None:
    """A bidirectional 2-layer LSTM loaded into a one-direction one: torch lists the `_reverse`
    keys as unexpected and weight_ih_l1 as mismatched; its D·H width gives both sides' hidden
    size, their cells, and (every later layer failing) their layer counts."""
    text = load_error(Net(nn.LSTM(16, 32, 2, bidirectional=True)), Net(nn.LSTM(16, 32, 2)))
    analysis = analyse(text)
    (ck,), (md,) = analysis.checkpoint, analysis.model
    assert (ck.cell, ck.hidden_size, ck.num_layers, ck.bidirectional, ck.proj_size) == (
        Cell.LSTM, 32, 2, True, 0)
    assert ck.describe() == "LSTM(?, 32, 2 layers, bidirectional)"
    assert md.describe() == "LSTM(?, 32, 2 layers)"
    assert [d.field for d in analysis.differences] == ["bidirectional"]


def _sizes(saved: Any, target: Any) -> list[tuple[str, Any, Any]]:
    """(key, the model's torch.Size, the checkpoint's torch.Size) of each key whose shape
    differs, as real torch modules hold them."""
    ours = target.state_dict()
    return [(key, ours[key].size(), value.size()) for key, value in saved.state_dict().items()
            if key in ours and ours[key].shape != value.shape]


# The wordings torch used before the current one, each filled in with real torch.Size values:
OLD_WORDINGS = {
    # torch 0.3.x, Module.load_state_dict (raised at the first bad key; pytorch#3568 fixed its
    # arguments): model's dimensions first, checkpoint's second, name unquoted.
    "torch-0.3": lambda key, model, stored: (
        f"RuntimeError: While copying the parameter named {key}, whose dimensions in the model "
        f"are {model} and whose dimensions in the checkpoint are {stored}."),
    # torch 0.4.0, Module._load_from_state_dict: the same, the name in double quotes.
    "torch-0.4.0": lambda key, model, stored: (
        f'Error(s) in loading state_dict for Net:\n\tWhile copying the parameter named "{key}", '
        f"whose dimensions in the model are {model} and whose dimensions in the checkpoint "
        f"are {stored}."),
    # torch 0.4.1 (pytorch#8619): format(key, param.shape, input_param.shape), so the model's
    # shape stands where the words say "from checkpoint" (pytorch#11499, fixed by #11200).
    "torch-0.4.1": lambda key, model, stored: (
        f"Error(s) in loading state_dict for Net:\n\tsize mismatch for {key}: copying a param of "
        f"{model} from checkpoint, where the shape is {stored} in current model."),
}


@pytest.mark.parametrize("wording", list(OLD_WORDINGS))
def test_old_size_mismatch_wordings_read_as_the_current_one(wording: str) -> None:
    """Each old wording, filled with the shapes of a real failed load, gives the same
    checkpoint and model as the current wording that real torch prints."""
    saved, target = Net(nn.GRU(16, 32, 2)), Net(nn.GRU(16, 64, 2))
    current = analyse(load_error(saved, target))
    text = "\n\t".join(OLD_WORDINGS[wording](*item) for item in _sizes(saved, target))
    old = analyse(text)
    assert [p.describe() for p in old.checkpoint] == [p.describe() for p in current.checkpoint]
    assert [p.describe() for p in old.model] == [p.describe() for p in current.model]
    assert old.checkpoint[0].describe() == "GRU(16, 32, 2 layers)"
    assert any("torch 0.4.1" in n for n in old.notes) == (wording == "torch-0.4.1")


def test_torch_0_3_missing_and_unexpected_keys() -> None:
    """torch 0.3's KeyErrors (`unexpected key "K" in state_dict`, `missing keys in state_dict:
    "{...}"` printing a Python set) name the keys as the current sections do."""
    saved, target = Net(nn.LSTM(16, 32, 2, bidirectional=True)), Net(nn.LSTM(16, 32, 2))
    current = analyse(load_error(saved, target))
    unexpected = sorted(set(saved.state_dict()) - set(target.state_dict()))
    old = analyse(f"KeyError: 'unexpected key \"{unexpected[0]}\" in state_dict'")
    assert old.checkpoint[0].bidirectional is current.checkpoint[0].bidirectional is True
    saved, target = Net(nn.LSTM(16, 32, 1)), Net(nn.LSTM(16, 32, 2))
    current = analyse(load_error(saved, target))
    missing = set(target.state_dict()) - set(saved.state_dict())
    old = analyse("KeyError: " + repr(f"missing keys in state_dict: \"{missing}\""))
    assert [(p.describe(), q.describe()) for p, q in zip(old.checkpoint, old.model,
                                                         strict=True)] == [
        (p.describe(), q.describe()) for p, q in zip(current.checkpoint, current.model,
                                                     strict=True)]
    assert old.model[0].num_layers == 2 and old.checkpoint[0].num_layers == 1


ARABIC_INDIC = str.maketrans("0123456789", "٠١٢٣٤٥٦٧٨٩")


def _foreign(text: str, first: str) -> str:
    """``text`` with the digits of the first line that holds ``first`` in Arabic-Indic."""
    lines = text.splitlines()
    k = next(i for i, line in enumerate(lines) if first in line)
    lines[k] = lines[k].translate(ARABIC_INDIC)
    return "\n".join(lines)


def test_a_line_of_foreign_digits_is_named_not_read() -> None:
    """A size-mismatch line torch printed, its digits rewritten in Arabic-Indic: it is named
    under "Not read" (text and JSON) and the summary says the analysis is of the lines read;
    the same error in ASCII digits is read whole."""
    text = load_error(Net(nn.LSTM(8, 16)), Net(nn.LSTM(10, 16)))
    assert analyse(text).differences and not analyse(text).unread
    analysis = analyse(_foreign(text, "weight_ih_l0"))
    assert not analysis.differences
    assert len(analysis.unread) == 1
    assert "rnn.weight_ih_l" in analysis.unread[0] and "not all ASCII digits" in analysis.unread[0]
    assert data(analysis)["unread"] == list(analysis.unread)
    assert "1 line of the error not read" in document(analysis).summary


def test_an_error_with_only_foreign_digits_names_the_line() -> None:
    """A runtime error torch raised, its digits rewritten: the refusal names the line not read
    (it is not "no load error in the text")."""
    text = run_error(lambda: nn.LSTMCell(16, 32)(torch.zeros(3, 32))).translate(ARABIC_INDIC)
    with pytest.raises(NoLoadError, match=r"no line of the error was read: .*ASCII") as caught:
        analyse(text)
    assert caught.value.exit_code == 2
