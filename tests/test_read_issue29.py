"""Issue 29's examples, each a regression test: ``read`` answers for exactly what it was handed.

Every printout here is made by its real printer at test time (torch's ``print(model)``,
torchinfo, tf-keras and Keras 3 ``summary()``), and every total is checked against the real
framework's own count; nothing is typed by hand but the code a user would paste.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import warnings
from collections.abc import Iterator
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from paramcount.reading.accounting import Accounting, Unread, bound_words
from paramcount.reading.pipeline import Answer, NothingFound, read
from tests.conftest import CLI, have
from tests.printers import TorchPlan, keras2_old_text, torch_pastes, torch_plans

torch = pytest.importorskip("torch")
nn = torch.nn


def _numel(module: Any) -> int:
    """A torch module's real parameter count (tied tensors once, as torch holds them)."""
    return sum(p.numel() for p in module.parameters())


def _code_model(answer: Answer, source: str = "code") -> Any:
    """The one model of ``source`` the answer found."""
    found = [m for m in answer.models if m.source == source]
    assert len(found) == 1, [(m.name, m.source) for m in answer.models]
    return found[0]


# -- the accounting type --------------------------------------------------------------------------

def test_an_accounting_is_whole_only_with_nothing_unread_or_cut() -> None:
    """Claimed lines less the unread ones are the used ones; a crop or an unread line makes
    the account not whole, and the bound names the line and why."""
    whole = Accounting.span(3, 6)
    assert whole.whole and whole.used == frozenset({3, 4, 5, 6})
    unread = Unread(5, "    (1-2): 2 x Foo(1, 2)", "a folded repeat of an unknown form")
    partial = Accounting.span(3, 6, [unread])
    assert not partial.whole and partial.used == frozenset({3, 4, 6}) and not partial.stray
    assert bound_words(61_824, partial) == (
        "at least 61,824; line 5 `(1-2): 2 x Foo(1, 2)` not read: a folded repeat of an "
        "unknown form")
    assert not Accounting.span(1, 2, cropped=["no closing `)`"]).whole
    assert (whole + partial).unread == (unread,)


# -- bare and inline constructors ----------------------------------------------------------------

@pytest.mark.parametrize(("paste", "module"), [
    ("nn.GRU(10, 20)", lambda: nn.GRU(10, 20)),
    ("nn.LSTMCell(10, 20)", lambda: nn.LSTMCell(10, 20)),
    ("I made lstm = nn.LSTM(10, 20, num_layers=2) and it says 5,920, why?",
     lambda: nn.LSTM(10, 20, num_layers=2)),
    ("Why does `nn.GRU(8, 16, bidirectional=True)` hold so many?",
     lambda: nn.GRU(8, 16, bidirectional=True)),
], ids=["bare-gru", "bare-cell", "in-a-sentence", "in-backticks"])
def test_a_torch_constructor_alone_or_in_a_sentence_is_counted(paste: str, module: Any
                                                               ) -> None:
    """A torch layer constructed on its own line, or inside a sentence, is that layer, with
    torch's own count (it used to exit 2 with "nothing countable found")."""
    answer = read(paste)
    assert _code_model(answer).total == _numel(module())


@pytest.fixture(scope="module")
def keras3() -> Iterator[Any]:
    """Keras 3, imported once, quietly."""
    if not (have("keras") and have("tensorflow")):
        pytest.skip("needs keras 3 and tensorflow")
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        import keras
    yield keras


@pytest.fixture(scope="module")
def keras2() -> Iterator[Any]:
    """Keras 2 (tf-keras), imported once, quietly."""
    if not (have("tf_keras") and have("tensorflow")):
        pytest.skip("needs tf-keras and tensorflow")
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        import tf_keras
    yield tf_keras


@pytest.mark.keras
@pytest.mark.parametrize(("paste", "build"), [
    ("LSTM(128, input_shape=(100, 28))", lambda k: [k.Input((100, 28)), k.layers.LSTM(128)]),
    ("model.add(LSTM(64, input_shape=(10, 8)))", lambda k: [k.Input((10, 8)),
                                                            k.layers.LSTM(64)]),
    ("tf.keras.layers.GRU(32, input_shape=(10, 4))", lambda k: [k.Input((10, 4)),
                                                                k.layers.GRU(32)]),
    ("model.add(LSTM(64, input_shape=(10, 8)))\nmodel.add(Dense(3))",
     lambda k: [k.Input((10, 8)), k.layers.LSTM(64), k.layers.Dense(3)]),
], ids=["bare-keras", "add-without-sequential", "tf-keras-path", "two-adds"])
def test_a_keras_constructor_alone_is_counted(keras3: Any, paste: str, build: Any) -> None:
    """A Keras layer on its own line (``input_shape`` giving its input width), and
    ``model.add(...)`` lines without the ``Sequential()`` line, count as Keras 3 builds them."""
    model = keras3.Sequential(build(keras3))
    assert _code_model(read(paste)).total == model.count_params()


# -- torch reprs -------------------------------------------------------------------------------

class _Tagger(nn.Module):  # type: ignore[misc]
    """The issue's model: a ModuleList of three GRUs whose last two torch folds into one line."""

    def __init__(self) -> None:
        super().__init__()
        self.rnns = nn.ModuleList(
            [nn.GRU(20, 30, batch_first=True, bidirectional=True)]
            + [nn.GRU(60, 30, batch_first=True, bidirectional=True) for _ in range(2)])
        self.head = nn.Linear(100, 10)


_TAGGER_CODE = '''import torch.nn as nn

class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnns = nn.ModuleList(
            [nn.GRU(20, 30, batch_first=True, bidirectional=True)]
            + [nn.GRU(60, 30, batch_first=True, bidirectional={bidirectional}) for _ in range(2)])
        self.head = nn.Linear(100, 10)
'''


def test_a_folded_modulelist_repr_counts_every_copy() -> None:
    """``(1-2): 2 x GRU(60, 30, ...)`` is two GRUs: the repr's total is torch's 43,490, not
    the first GRU's 9,360."""
    model = _Tagger()
    text = str(model)
    assert "(1-2): 2 x GRU(60, 30" in text  # torch ≥ 2 folds the repeats
    answer = read(text)
    found = _code_model(answer, "repr")
    assert found.total == _numel(model) == 43_490
    assert [layer.name for layer in found.layers] == ["rnns.0", "rnns.1", "rnns.2", "head"]


def test_a_folded_container_repeats_its_children() -> None:
    """``(0-2): 3 x Sequential(`` over the first copy's lines counts the copy three times."""
    model = nn.Sequential(nn.Embedding(50, 8), nn.ModuleList(
        [nn.Sequential(nn.Linear(8, 8), nn.LSTM(8, 8)) for _ in range(3)]))
    text = str(model)
    assert "3 x Sequential(" in text
    assert _code_model(read(text), "repr").total == _numel(model)


def test_a_repr_cut_off_at_the_bottom_gives_a_bound_not_a_total() -> None:
    """A repr without its closing ``)`` is never summed as a whole model: the total is null,
    the bound is what was read, and the crop is named."""
    model = _Tagger()
    lines = str(model).split("\n")
    cut = "\n".join(lines[:4])  # the fold and the head are not pasted
    found = _code_model(read(cut), "repr")
    assert found.total is None
    assert found.at_least == _numel(model.rnns[0]) + _numel(model.rnns[1]) + _numel(
        model.rnns[2])
    assert found.accounting.cropped == ("no closing `)`",)
    assert found.bound.startswith(f"at least {found.at_least:,}; the printout is cut off")


def test_a_repr_line_not_understood_is_named_and_the_total_is_a_bound() -> None:
    """A module line paramcount cannot read is named with its line and why, and the answer is
    "at least" the rest (no total claimed)."""
    text = str(_Tagger()).replace("2 x GRU(60", "2 x Mystery(60")
    found = _code_model(read(text), "repr")
    assert found.total is None
    assert found.at_least == _numel(nn.GRU(20, 30, bidirectional=True)) + _numel(
        nn.Linear(100, 10))
    [unread] = found.accounting.unread
    assert unread.line == 4 and "Mystery" in unread.reason
    assert "line 4 `(1-2): 2 x Mystery(60" in found.bound


def test_code_and_its_repr_in_one_post_agree() -> None:
    """The code of a model and its ``print(model)`` in one paste give one total."""
    paste = _TAGGER_CODE.format(bidirectional=True) + "\nprint(model):\n\n" + str(_Tagger())
    answer = read(paste)
    assert _code_model(answer).total == _code_model(answer, "repr").total == 43_490
    assert not answer.disagreements


def test_code_and_a_repr_that_differ_are_said_to_differ_and_where() -> None:
    """Where the code builds a layer other than the repr prints, the answer says which layer
    and how, not two totals side by side."""
    paste = _TAGGER_CODE.format(bidirectional=False) + "\nprint(model):\n\n" + str(_Tagger())
    answer = read(paste)
    assert {d.layer for d in answer.disagreements} == {"rnns.1", "rnns.2"}
    first = answer.disagreements[0]
    assert first.source == "repr" and "bidirectional=True" in first.reason
    assert first.printed == _numel(nn.GRU(60, 30, bidirectional=True))
    assert first.computed == _numel(nn.GRU(60, 30))


def test_the_json_says_total_null_with_the_bound_and_the_unread_lines(cli: CLI,
                                                                      tmp_path: Any) -> None:
    """``--json`` of a cut repr: ``total: null``, ``at_least``, ``exact: false``, and what
    shows the crop; of a whole one, the exact total."""
    path = tmp_path / "cut.txt"
    path.write_text("\n".join(str(_Tagger()).split("\n")[:4]) + "\n")
    result = cli("read", str(path), "--json")
    assert result.code == 0, result.err
    [model] = json.loads(result.out)["models"]
    assert model["total"] is None and model["exact"] is False
    assert model["at_least"] == 43_490 - _numel(nn.Linear(100, 10))
    assert model["cropped"] == ["no closing `)`"] and model["unread"] == []
    path.write_text(str(_Tagger()) + "\n")
    [model] = json.loads(cli("read", str(path), "--json").out)["models"]
    assert model["total"] == 43_490 and model["exact"] is True and model["at_least"] is None


# -- Keras summaries -----------------------------------------------------------------------------

@pytest.mark.keras
def test_old_keras2_cells_cut_at_the_column_edge_are_read(keras2: Any) -> None:
    """``bidirectional_1 (Bidirecti`` and ``time_distributed (TimeDist`` (TF 1.x / Keras 2.2
    to 2.3 cut the cell, with no mark) are read as their classes: no row dropped, no blame
    put on the paste, and the total is Keras' own."""
    k = keras2
    k.backend.clear_session()  # layer names as in a fresh session, whatever ran before
    model = k.Sequential([
        k.layers.Embedding(1000, 32, input_length=20),
        k.layers.Bidirectional(k.layers.LSTM(64, return_sequences=True)),
        k.layers.TimeDistributed(k.layers.Dense(10)),
        k.layers.Bidirectional(k.layers.GRU(16)),
        k.layers.Dense(1)])
    model.build((None, 20))
    text = keras2_old_text(model, 65, [.45, .85, 1.])
    assert "(Bidirecti " in text and "(TimeDist " in text and " al)" not in text
    answer = read(text)
    found = _code_model(answer, "keras-summary")
    assert found.accounting.whole
    assert found.total == found.printed_total == model.count_params()
    assert not answer.disagreements
    recurrent = [layer for _, layer in answer.recurrent]
    assert [layer.params for layer in recurrent] == [
        model.layers[1].count_params(), model.layers[3].count_params()]


def _keras3_nested() -> Any:
    """A Keras 3 model with a nested Sequential (itself nesting one) and a shared layer."""
    import keras

    deep = keras.Sequential([keras.Input((10, 4)), keras.layers.Dense(5)], name="deep")
    inner = keras.Sequential([keras.Input((10, 8)), keras.layers.LSTM(16, return_sequences=True),
                              keras.layers.Dense(4), deep], name="inner")
    inputs = keras.Input((10, 8))
    shared = keras.layers.Dense(8, name="shared")
    mixed = keras.layers.Concatenate()([shared(inputs), shared(inputs), inputs])
    merged = keras.layers.Concatenate()([keras.layers.Flatten()(inner(inputs)),
                                         keras.layers.GRU(12)(mixed)])
    return keras.Model(inputs, keras.layers.Dense(3)(merged))


@pytest.mark.keras
def test_keras3_expand_nested_counts_nested_rows_once(keras3: Any,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """``summary(expand_nested=True)`` prints a nested model's rows under its own row, whose
    count already includes theirs: the answer is Keras' total, not double it, with no
    disagreement; a layer applied twice is counted once."""
    monkeypatch.setenv("COLUMNS", "200")  # a console wide enough for every column
    model = _keras3_nested()
    with contextlib.redirect_stdout(io.StringIO()) as out:
        model.summary(expand_nested=True, line_length=120)
    text = out.getvalue()
    assert re.search(r"└ lstm\w* \(LSTM\)", text) and re.search(r" └ dense\w* \(Dense\)", text)
    answer = read(text)
    found = _code_model(answer, "keras-summary")
    assert found.total == found.printed_total == model.count_params()
    assert not answer.disagreements
    inner = model.get_layer("inner").layers[0]
    lstm = next(layer for _, layer in answer.recurrent if layer.name == inner.name)
    assert lstm.printed == inner.count_params()


@pytest.mark.keras
def test_keras2_expand_nested_counts_nested_rows_once(keras2: Any) -> None:
    """tf-keras' ``expand_nested`` rows, between ``|`` bars, are counted once too."""
    k = keras2
    deep = k.Sequential([k.layers.Dense(5, input_shape=(10, 4))], name="deep")
    inner = k.Sequential([k.layers.LSTM(16, return_sequences=True, input_shape=(10, 8)),
                          k.layers.Dense(4), deep], name="inner")
    inputs = k.Input((10, 8))
    merged = k.layers.Concatenate()([k.layers.Flatten()(inner(inputs)),
                                     k.layers.GRU(12)(inputs)])
    model = k.Model(inputs, k.layers.Dense(3)(merged))
    lines: list[str] = []
    model.summary(expand_nested=True, print_fn=lambda line, *a, **kw: lines.append(line))
    text = "\n".join(lines)
    assert re.search(r"\| lstm\w* \(LSTM\)", text)
    answer = read(text)
    found = _code_model(answer, "keras-summary")
    assert found.total == found.printed_total == model.count_params()
    assert not answer.disagreements


@pytest.mark.keras
def test_a_keras_table_without_its_totals_is_a_crop(keras3: Any) -> None:
    """A Keras 3 summary cut before its ``Total params`` line claims no total: at least the
    rows it shows, the crop named."""
    model = keras3.Sequential([keras3.Input((10, 8)), keras3.layers.LSTM(16),
                               keras3.layers.Dense(3)])
    with contextlib.redirect_stdout(io.StringIO()) as out:
        model.summary()
    text = out.getvalue()
    cut = text[:text.index("Total params")]
    found = _code_model(read(cut), "keras-summary")
    assert found.total is None and found.at_least == model.count_params()
    assert "no `Total params` line" in found.accounting.cropped


# -- torchinfo ----------------------------------------------------------------------------------

class _LanguageModel(nn.Module):  # type: ignore[misc]
    """An embedding, an LSTM and an output layer, its weight tied to the embedding's or not."""

    def __init__(self, tied: bool) -> None:
        super().__init__()
        self.emb = nn.Embedding(100, 16)
        self.lstm = nn.LSTM(16, 16, batch_first=True)
        self.head = nn.Linear(16, 100, bias=False)
        if tied:
            self.head.weight = self.emb.weight

    def forward(self, x: Any) -> Any:
        """Token ids to logits."""
        return self.head(self.lstm(self.emb(x))[0])


@pytest.mark.skipif(not have("torchinfo"), reason="needs torchinfo")
@pytest.mark.parametrize("tied", [True, False], ids=["tied", "untied"])
def test_torchinfo_tied_weights_are_not_claimed_twice(tied: bool) -> None:
    """torchinfo counts a weight shared by the embedding and the output layer twice, in its
    rows and its Total params: the answer claims no total, gives a bound that holds either way
    (the real count, tied, is never below it), and names both totals."""
    import torchinfo

    model = _LanguageModel(tied)
    text = str(torchinfo.summary(model, input_data=torch.zeros(2, 5, dtype=torch.long),
                                 verbose=0))
    found = _code_model(read(text), "torchinfo")
    untied = _numel(_LanguageModel(False))
    assert found.printed_total == untied  # torchinfo's own total counts the tie twice
    assert found.total is None
    assert found.at_least == _numel(_LanguageModel(True)) <= _numel(model)
    [note] = found.notes
    assert f"{_numel(_LanguageModel(True)):,} if it does, {untied:,} if not" in note


# -- answers a machine can use --------------------------------------------------------------------

def test_every_candidate_configuration_is_structured_in_the_json(cli: CLI, tmp_path: Any
                                                                 ) -> None:
    """Bare ``parameters()`` shapes: the one-layer reading is a fit and every grouping a list
    of layers, each with its cell, sizes, count and command as fields; the truth (a GRU, then a
    two-layer GRU) is among the groupings, with torch's counts."""
    model = nn.Sequential(nn.GRU(8, 16), nn.GRU(16, 16, num_layers=2))
    path = tmp_path / "shapes.txt"
    path.write_text("\n".join(str(p.shape) for p in model.parameters()) + "\n")
    result = cli("read", str(path), "--json")
    assert result.code == 0, result.err
    [layer] = json.loads(result.out)["recurrent"]
    [fit] = layer["solved"]["fits"]
    assert (fit["cell"], fit["input"], fit["hidden"], fit["layers"]) == ("gru", 8, 16, 3)
    truth = [[(part["input"], part["hidden"], part["layers"], part["params"]) for part in g]
             for g in layer["groupings"]]
    assert [(8, 16, 1, _numel(model[0])), (16, 16, 2, _numel(model[1]))] in truth
    assert all(part["command"].startswith("paramcount gru") for g in layer["groupings"]
               for part in g)


@pytest.mark.skipif(not have("torchinfo"), reason="needs torchinfo")
def test_a_solver_fit_is_structured_in_the_json(cli: CLI, tmp_path: Any) -> None:
    """A printed count several configurations fit: each fit's fields in the JSON, null where
    the printout leaves one open."""
    import torchinfo

    model = nn.Sequential(nn.Embedding(20, 6), nn.GRU(6, 5))
    path = tmp_path / "table.txt"
    path.write_text(str(torchinfo.summary(model, verbose=0)) + "\n")
    [layer] = json.loads(cli("read", str(path), "--json").out)["recurrent"]
    fits = layer["solved"]["fits"]
    assert fits and all(f["cell"] == "gru" for f in fits)
    opened = {"input": "input_size", "hidden": "hidden_size", "layers": "num_layers",
              "bidirectional": "bidirectional", "bias": "bias", "proj": "proj_size"}
    for fit in fits:
        for key, field in opened.items():
            assert (fit[key] is None) == (field in fit["open"]), (key, fit)
        assert (fit["params"] is None) == bool(fit["open"])


@pytest.mark.skipif(not have("torchinfo"), reason="needs torchinfo")
def test_a_table_cut_above_its_header_is_named_not_dropped(cli: CLI, tmp_path: Any) -> None:
    """torchinfo rows pasted without the table's header are not read, and the answer says
    which lines they are, beside what else the paste holds (alone: exit 2 saying so)."""
    import torchinfo

    model = _LanguageModel(False)
    table = str(torchinfo.summary(model, input_data=torch.zeros(2, 5, dtype=torch.long),
                                  verbose=0)).split("\n")
    rows = [line for line in table if line.startswith(("├─", "└─"))]
    assert len(rows) == 3
    path = tmp_path / "rows.txt"
    path.write_text("import torch.nn as nn\nrnn = nn.GRU(3, 4)\n\n" + "\n".join(rows) + "\n")
    answer = read(path.read_text())
    assert _code_model(answer).total == _numel(nn.GRU(3, 4))
    assert any(note.startswith("lines 4–6 look like rows of a torchinfo summary cut off above "
                               "its header") for note in answer.notes)
    path.write_text("\n".join(rows) + "\n")
    result = cli("read", str(path))
    assert result.code == 2 and "lines 1–3 look like rows of a torchinfo summary" in result.err


_LM_CODE = '''import torch.nn as nn

class LM(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(100, 16)
        self.lstm = nn.LSTM(16, 16, batch_first=True)
        self.head = nn.Linear(16, 100, bias=False)
        self.head.weight = self.emb.weight
'''


def test_code_that_ties_a_weight_counts_it_once() -> None:
    """``self.head.weight = self.emb.weight``: the code's total is torch's, the shared tensor
    counted once, in the embedding."""
    answer = read(_LM_CODE)
    found = _code_model(answer)
    assert found.total == _numel(_LanguageModel(True))
    head = next(layer for layer in found.layers if layer.name == "head")
    assert head.params == 0 and any("tied" in note for note in head.notes)


@pytest.mark.skipif(not have("torchinfo"), reason="needs torchinfo")
def test_tied_code_and_its_torchinfo_table_agree_on_the_count_held() -> None:
    """The code that ties a weight beside torchinfo's table of it: no disagreement; the answer
    says torchinfo counts the tied tensor twice and the model holds torch's count."""
    import torchinfo

    model = _LanguageModel(True)
    table = str(torchinfo.summary(model, input_data=torch.zeros(2, 5, dtype=torch.long),
                                  verbose=0))
    answer = read(_LM_CODE + "\ntorchinfo says:\n\n" + table)
    assert not answer.disagreements
    assert _code_model(answer).total == _numel(model)
    assert any(f"the model holds {_numel(model):,}" in note for note in answer.notes)


# -- crops of real printouts ----------------------------------------------------------------------

_LANDMARK = {"print(model)": re.compile(r"^\)$"), "torchinfo": re.compile(r"^Total params"),
             "torchsummary": re.compile(r"^Total params")}
"""The last line a whole printout of each printer needs: its closing ``)`` or its total."""


@pytest.mark.skipif(not have("torchinfo"), reason="needs torchinfo")
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(plan=torch_plans(), share=st.fractions(0, 1), data=st.data())
def test_a_printout_cut_at_the_bottom_never_claims_a_whole_total(
        plan: TorchPlan, share: Fraction, data: st.DataObject) -> None:
    """Real repr, torchinfo and torchsummary printouts of generated models, cut after a random
    share of their lines: a total is claimed only where the cut kept the printout's last
    needed line, and then it is the framework's; where it did not, the total is null, the crop
    named, and the bound never above the truth."""
    try:
        pastes = torch_pastes(plan, data.draw)
    except RuntimeError:  # torchinfo refuses a few generated models
        assume(False)
    for paste in pastes:
        if paste.printer not in _LANDMARK:
            continue
        lines = paste.text.rstrip("\n").split("\n")
        end = next(i for i, line in enumerate(lines) if _LANDMARK[paste.printer].match(line))
        cut = max(2, int(len(lines) * share))
        try:
            models = read("\n".join(lines[:cut]) + "\n").models
        except NothingFound:  # a cut that leaves no row
            continue
        found = [m for m in models if m.source in ("repr", "torchinfo", "torchsummary")]
        for model in found:
            if model.total is not None:
                assert cut > end and model.total == paste.truth.total, paste.printer
            if cut <= end:
                assert model.total is None and model.accounting.cropped, paste.printer
            if model.at_least is not None:
                assert model.at_least <= paste.truth.total, paste.printer


def test_a_layer_statement_that_does_not_parse_is_named_and_no_total_claimed() -> None:
    """Code cut mid-call (``nn.Linear(20, 3`` then a sentence): the statement is named as not
    read, and no model total is given for what is left (it would leave that layer out)."""
    paste = ("import torch.nn as nn\nclass M(nn.Module):\n    def __init__(self):\n"
             "        super().__init__()\n        self.a = nn.LSTM(10, 20)\n"
             "        self.b = nn.Linear(20, 3\n\nthat is my model, why does it crash?\n")
    model = _code_model(read(paste))
    assert model.total is None and model.at_least == 4 * 20 * (10 + 20 + 2)
    assert [(u.line, u.text) for u in model.accounting.unread] == [
        (6, "        self.b = nn.Linear(20, 3")]
    assert model.bound.startswith("at least 2,560; line 6 `self.b = nn.Linear(20, 3` not read")


@pytest.mark.parametrize("value", ["make_encoder(cfg)", "self.build_encoder(cfg)",
                                   "encoders.get(cfg.kind)(cfg)"])
def test_a_submodule_built_by_a_function_the_paste_does_not_show_makes_the_total_a_bound(
        value: str) -> None:
    """``self.enc = make_encoder(cfg)`` may be a module with parameters: the answer names the
    line and gives the rest as a bound (torch's count of what is shown), never a total."""
    import torch.nn as nn

    paste = ("import torch.nn as nn\nfrom mylib import make_encoder, encoders\n\n"
             "class Tagger(nn.Module):\n    def __init__(self, cfg):\n"
             "        super().__init__()\n        self.emb = nn.Embedding(1000, 64)\n"
             f"        self.enc = {value}\n"
             "        self.rnn = nn.LSTM(64, 128, bidirectional=True)\n"
             "        self.out = nn.Linear(256, 10)\n        self.scale = math.sqrt(64)\n")
    shown = nn.ModuleList([nn.Embedding(1000, 64), nn.LSTM(64, 128, bidirectional=True),
                           nn.Linear(256, 10)])
    answer = read(paste)
    model = _code_model(answer)
    assert model.total is None
    assert model.at_least == sum(p.numel() for p in shown.parameters())
    assert [u.line for u in model.accounting.unread] == [8] or [
        missing for missing in answer.unresolved if missing.line == 8] != []
    assert model.accounting.used >= {7, 9, 10, 11}  # self.scale: a value, read, not a module


def test_a_repr_with_its_indentation_lost_is_read_by_its_brackets() -> None:
    """``print(model)`` pasted flush left (nested containers and a folded repeat among them)
    gives torch's own count; cut before its last ``)`` it gives a bound, never a total."""
    import torch.nn as nn

    class Net(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.rnns = nn.ModuleList([nn.GRU(40, 30)] + [
                nn.GRU(60, 30, bidirectional=True) for _ in range(2)])
            self.out = nn.Linear(60, 10)

    model = Net()
    flush = "\n".join(line.strip() for line in str(model).splitlines())
    found = _code_model(read(flush), "repr")
    assert found.total == _numel(model)
    cut = "\n".join(flush.splitlines()[:-1])
    assert _code_model(read(cut), "repr").total is None


def test_a_bare_parameters_dump_beside_its_repr_raises_no_disagreement() -> None:
    """``print(model)`` and ``for p in model.parameters(): print(p.shape)`` of one model: the
    dump's layers have made-up names and only readings of their grouping, so it is paired with
    nothing (its made-up ``rnn0`` once met the repr's ``rnn0``: 12 printed, 6 computed)."""
    import torch.nn as nn

    class Net(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.rnn0 = nn.GRU(1, 1, bias=False)
            self.cell = nn.GRUCell(1, 1, bias=False)

    model = Net()
    dump = "\n".join(str(p.shape) for p in model.parameters())
    answer = read(f"My model:\n\n{model}\n\nand its parameters:\n\n{dump}\n")
    assert answer.disagreements == ()
    assert _code_model(answer, "repr").total == _numel(model)
