"""The solver: every configuration whose tensors give a printed count, checked two ways.

Properties: a random configuration's own total, with the widths a printout would show, solves
back to a set of configurations that holds the true one, each of them giving exactly that
count. Printers: the issue's three layers, printed at test time by tf-keras (Keras 2's
summary) and torchinfo, read back to exactly the one configuration that fits, or to every
configuration that fits, or to a disagreement when a printed count is altered.
"""

from __future__ import annotations

import os
import warnings
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from paramcount.engine import conventions
from paramcount.engine.spec import Cell, Framework, LayerSpec, MergeMode
from paramcount.reading.found import from_total
from paramcount.reading.keras_version import KerasVersion, old_gru_default, summary_version
from paramcount.reading.pipeline import read
from paramcount.reading.solve import Clues, integer_roots, solve
from tests.conftest import have
from tests.docfiles.read import (
    gru_tagger,
    keras2_gru,
    keras2_summary,
    torchinfo_table,
)


@st.composite
def printed_layers(draw: st.DrawFn,
                   frameworks: tuple[Framework, ...] = (Framework.TORCH, Framework.KERAS)
                   ) -> LayerSpec:
    """A layer as a printout shows one: a torch stack (any depth, projection, directions), or a
    Keras layer (one layer, any merge mode but None, reset_after either way)."""
    framework = draw(st.sampled_from(frameworks))
    cell = draw(st.sampled_from(list(Cell)))
    hidden = draw(st.integers(1, 48))
    bidirectional = draw(st.booleans())
    torch = framework is Framework.TORCH
    proj = 0
    if torch and cell is Cell.LSTM and hidden > 1 and draw(st.booleans()):
        proj = draw(st.integers(1, hidden - 1))
    modes = None
    if not torch and bidirectional:
        modes = (draw(st.sampled_from([m for m in MergeMode if m is not MergeMode.NONE])),)
    return LayerSpec(cell, draw(st.integers(1, 48)), hidden,
                     num_layers=draw(st.integers(1, 3)) if torch else 1,
                     bidirectional=bidirectional, bias=draw(st.booleans()), proj_size=proj,
                     framework=framework, merge_modes=modes,
                     reset_after=draw(st.booleans()) if cell is Cell.GRU and not torch else None)


def output_width(spec: LayerSpec) -> int:
    """The last axis of the layer's printed output."""
    factor = spec.merge_modes[-1].width_factor if spec.merge_modes else spec.directions
    return factor * spec.output_size


@settings(max_examples=300, deadline=None)
@given(printed_layers(), st.sampled_from(["input", "output", "both"]))
def test_the_true_configuration_is_among_the_fits(spec: LayerSpec, shown: str) -> None:
    """Count + the widths shown -> the fits hold the true spec, each giving the count; the
    answer, where there is one, gives it too."""
    count = conventions.total(spec)
    keras = spec.framework is Framework.KERAS
    if shown == "input" and keras:
        shown = "both"  # a Keras row always shows its output
    clues = Clues(count, spec.framework, (spec.cell,),
                  output=None if shown == "input" else output_width(spec),
                  input=None if shown == "output" else spec.input_size,
                  bidirectional=spec.bidirectional if keras else None)
    solution = solve(clues)
    assert solution.admits(spec)
    assert all(conventions.total(fit.spec) == count for fit in solution.fits if not fit.open)
    if spec.proj_size and shown != "both":
        # a projection needs both widths to be searched: none is claimed, its family listed
        assert not solution.complete and solution.spec is None
        return
    assert spec in [fit.spec for fit in solution.fits]
    if solution.spec is not None:
        assert conventions.total(solution.spec) == count


@settings(max_examples=300, deadline=None)
@given(printed_layers(), st.sampled_from(["input", "output", "both", "neither"]),
       printed_layers())
def test_without_a_count_the_shapes_allow_a_family_that_holds_the_truth(
        spec: LayerSpec, shown: str, other: LayerSpec) -> None:
    """No printed count: the families the shapes allow hold the true spec, claim none, and
    admit no configuration whose shown widths differ (another random layer is admitted only
    where it shows the same widths)."""
    keras = spec.framework is Framework.KERAS
    clues = Clues(None, spec.framework, (spec.cell,),
                  output=None if shown in ("input", "neither") else output_width(spec),
                  input=None if shown in ("output", "neither") else spec.input_size,
                  bidirectional=spec.bidirectional if keras else None)
    solution = solve(clues)
    assert solution.spec is None and solution.ambiguous and solution.admits(spec)
    for fit in solution.fits:  # a family, with ? where a size is open
        assert fit.open and ("?" in fit.text.split(": ")[0]) == bool(
            {"input_size", "hidden_size"} & set(fit.open))
    if solution.admits(other):
        assert other.cell is spec.cell and other.framework is spec.framework
        if clues.output is not None:
            assert output_width(other) == clues.output
        if clues.input is not None:
            assert other.input_size == clues.input


@settings(max_examples=200, deadline=None)
@given(printed_layers((Framework.TORCH,)), printed_layers((Framework.TORCH,)))
def test_a_count_without_widths_is_the_family_that_totals_it(spec: LayerSpec,
                                                             other: LayerSpec) -> None:
    """A torch row with a count and no shapes: every configuration of the cell that totals the
    count, and only those, is admitted."""
    count = conventions.total(spec)
    solution = solve(Clues(count, Framework.TORCH, (spec.cell,)))
    assert solution.spec is None and not solution.complete and solution.admits(spec)
    assert solution.admits(other) == (other.cell is spec.cell and
                                      conventions.total(other) == count)


def test_a_family_is_worded_with_what_it_leaves_open() -> None:
    """Where a table shows an LSTM's widths but no count: its hidden size or a projection,
    any depth, bias or not, with the count of one layer."""
    solution = solve(Clues(None, Framework.TORCH, (Cell.LSTM,), output=6, input=4))
    assert [fit.text for fit in solution.choices] == [
        "nn.LSTM(4, 6): any num_layers, with or without biases",
        "nn.LSTM(4, ?, proj_size=6): any hidden size (above proj_size), any num_layers, with "
        "or without biases",
        "nn.LSTM(4, 3, bidirectional=True): any num_layers, with or without biases",
        "nn.LSTM(4, ?, bidirectional=True, proj_size=3): any hidden size (above proj_size), "
        "any num_layers, with or without biases"]
    assert "288 with one layer and biases, 336 more per layer" in solution.how
    assert solution.admits(LayerSpec(Cell.LSTM, 4, 20, num_layers=3, proj_size=6, bias=False))
    assert not solution.admits(LayerSpec(Cell.LSTM, 5, 6))


def test_the_one_uncounted_row_takes_what_the_total_leaves() -> None:
    """A table's total less its counted rows is the one uncounted row's count, only where that
    row is recurrent and the only one open."""
    assert from_total(100, [10, None, 0], [False, True, False]) == {1: 90}
    assert from_total(100, [10, None, None], [False, True, False]) == {}
    assert from_total(100, [None, 10], [False, True]) == {}
    assert from_total(None, [None, 10], [True, False]) == {}
    assert from_total(10, [None, 10], [True, False]) == {}


@settings(max_examples=200, deadline=None)
@given(st.integers(-5, 5), st.integers(-20, 20), st.integers(-50, 50), st.integers(0, 40))
def test_integer_roots_are_every_whole_root(a: int, b: int, c: int, start: int) -> None:
    """The whole roots of a quadratic that grows with x (as every count does with a size),
    from three of its values, are exactly those found by trying every x."""
    assume(a >= 0 and a * (2 * start + 1) + b > 0)

    def total(x: int) -> int:
        return a * x * x + b * x + c

    for target in {total(x) for x in range(start, start + 30)}:
        found = integer_roots(total, target, start)
        assert set(found) == {x for x in range(start, start + 30) if total(x) == target}
        assert all(total(x) == target and x >= start for x in found)


def test_a_count_that_fits_nothing_says_so() -> None:
    """One parameter more than a GRU(16) on 15 features: no configuration with those widths."""
    solution = solve(Clues(1537, Framework.KERAS, (Cell.GRU,), 16, 15, "the Input row", False))
    assert solution.fits == () and solution.spec is None
    assert solution.how == ("no Keras GRU layer with 16 outputs and reading 15 features holds "
                            "1,537 parameters, in any configuration")


def test_a_wrong_neighbour_width_falls_back_to_the_count_alone() -> None:
    """A width from the row above that the count cannot read: the fits without it, said so."""
    solution = solve(Clues(140, Framework.KERAS, (Cell.RNN,), 10, 7, "the layer before, x",
                           False))
    assert solution.spec is not None and solution.spec.input_size == 3
    assert solution.how.startswith("140 does not fit reading 7 features (the layer before, x)")


@pytest.mark.parametrize(("qualified", "old"), [
    ("keras.layers.recurrent.GRU", True),
    ("tensorflow.compat.v1.keras.layers.GRU", True),
    ("keras.layers.GRU", False),
    ("tensorflow.keras.layers.GRU", False),
    ("tf_keras.layers.GRU", False),
], ids=["keras-recurrent", "compat-v1", "keras", "tf-keras-2", "tf_keras"])
def test_which_gru_defaults_to_reset_before(qualified: str, old: bool) -> None:
    """The import paths whose GRU defaults to reset_after=False."""
    assert old_gru_default(qualified) is old


# -- the real printers --------------------------------------------------------------------------

needs_tf_keras = pytest.mark.skipif(not (have("tf_keras") and have("tensorflow")),
                                    reason="needs tf-keras (Keras 2) and tensorflow")
needs_torchinfo = pytest.mark.skipif(not (have("torch") and have("torchinfo")),
                                     reason="needs torch and torchinfo")


@pytest.fixture(scope="module")
def tf_keras() -> Any:
    """Keras 2 (tf-keras), imported once, quietly."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return pytest.importorskip("tf_keras")


@pytest.mark.keras
@needs_tf_keras
def test_keras2_gru_with_its_input_row(tf_keras: Any) -> None:
    """The issue's GRU, printed by Keras 2 with its Input row: exactly GRU(16,
    reset_after=False) on 15 features, and the answer says which Keras and what Keras 3
    builds."""
    model = keras2_gru(functional=True)
    table = keras2_summary(model)
    assert summary_version(table.splitlines()) is KerasVersion.KERAS2
    answer = read(table)
    [(_, layer)] = answer.recurrent
    gru = model.layers[1]
    assert layer.spec == LayerSpec(Cell.GRU, 15, 16, framework=Framework.KERAS,
                                   reset_after=False)
    assert layer.printed == gru.count_params() == conventions.total(layer.spec)
    today = tf_keras.layers.GRU(16)
    today.build((None, 64, 15))
    assert answer.reason.startswith("A Keras 2 summary: its gru prints 1,536, which only "
                                    "reset_after=False gives")
    assert answer.reason.endswith(f"build {today.count_params():,} for it.")
    assert not answer.disagreements


@pytest.mark.keras
@needs_tf_keras
def test_keras2_gru_without_an_input_row_lists_every_fit(tf_keras: Any) -> None:
    """The same GRU in a Sequential summary, which shows no input width: both defaults' fits
    are listed, the true one among them, with what would tell them apart."""
    answer = read(keras2_summary(keras2_gru(functional=False)))
    [(_, layer)] = answer.recurrent
    assert layer.spec is None and layer.solution is not None and layer.solution.ambiguous
    choices = [fit.spec for fit in layer.solution.choices]
    assert LayerSpec(Cell.GRU, 15, 16, framework=Framework.KERAS, reset_after=False) in choices
    assert LayerSpec(Cell.GRU, 14, 16, framework=Framework.KERAS) in choices
    assert "the input width" in layer.solution.apart
    assert answer.reason.startswith("gru: 2 configurations give 1,536")


@pytest.mark.keras
@needs_tf_keras
def test_keras2_simple_rnn(tf_keras: Any) -> None:
    """The issue's SimpleRNN printed as 140 with output (None, 10): SimpleRNN(10) on 3
    features, the no-bias fit named as the alternative it is."""
    model = tf_keras.Sequential([tf_keras.layers.SimpleRNN(10, input_shape=(None, 3)),
                                 tf_keras.layers.Dense(1)])
    answer = read(keras2_summary(model))
    [(_, layer)] = answer.recurrent
    assert layer.spec == LayerSpec(Cell.RNN, 3, 10, framework=Framework.KERAS)
    assert layer.params == model.layers[0].count_params() == 140
    assert "use_bias=False: SimpleRNN(10, use_bias=False) on 4 features" in layer.notes[0]


@pytest.mark.keras
@needs_tf_keras
def test_an_altered_keras2_count_is_a_disagreement(tf_keras: Any) -> None:
    """One parameter added to the printed GRU: it fits no configuration, flagged as such."""
    table = keras2_summary(keras2_gru(functional=True)).replace(" 1536 ", " 1537 ")
    answer = read(table)
    [disagreement] = answer.disagreements
    assert (disagreement.printed, disagreement.computed) == (1537, None)
    assert "holds 1,537 parameters, in any configuration" in disagreement.reason


@pytest.mark.keras
@needs_tf_keras
def test_keras_layers_recurrent_code_with_its_keras2_summary(tf_keras: Any) -> None:
    """Code importing keras.layers.recurrent's GRU, beside the Keras 2 summary of that layer:
    counted with that GRU's default (reset_after=False, as tf-keras' own v1 GRU still has it),
    nothing flagged, and the answer says why Keras 3 differs."""
    import inspect

    from tf_keras.src.layers.rnn.gru_v1 import GRU as V1GRU

    assert inspect.signature(V1GRU.__init__).parameters["reset_after"].default is False
    code = ("from keras.models import Model\nfrom keras.layers import Input, Dense\n"
            "from keras.layers.recurrent import GRU\n"
            "inputs = Input(shape=(64, 15))\n"
            "x = GRU(16, return_sequences=True)(inputs)\n"
            "model = Model(inputs, Dense(1)(x))\n")
    model = keras2_gru(functional=True)
    answer = read(code + "\n" + keras2_summary(model))
    assert not answer.disagreements
    totals = {m.source: m.total for m in answer.models}
    assert totals == {"code": model.count_params(), "keras-summary": model.count_params()}
    assert answer.reason.startswith("Code for Keras 2.0–2.3 (multi-backend)")


@pytest.mark.torch
@needs_torchinfo
def test_torchinfo_gru_after_an_embedding() -> None:
    """The issue's torchinfo GRU (445,440, output [2, 30, 256], after an embedding of 64): a
    2-layer bidirectional GRU(64, 128), as the real module is."""
    module: Any = gru_tagger()
    answer = read(torchinfo_table(module))
    [(_, layer)] = answer.recurrent
    gru = module.gru
    assert layer.spec == LayerSpec(Cell.GRU, gru.input_size, gru.hidden_size,
                                   num_layers=gru.num_layers, bidirectional=gru.bidirectional)
    assert layer.printed == sum(p.numel() for p in gru.parameters()) == 445_440
    assert answer.models[0].printed_total == sum(p.numel() for p in module.parameters())


@pytest.mark.torch
@needs_torchinfo
def test_torchinfo_gru_without_its_neighbours_lists_every_fit() -> None:
    """The GRU's row alone (no embedding row above it): every configuration that gives the
    count with that output width, the real one among them."""
    table = torchinfo_table(gru_tagger())
    alone = "\n".join(line for line in table.splitlines() if "Embedding" not in line)
    [(_, layer)] = read(alone).recurrent
    assert layer.solution is not None and layer.solution.ambiguous
    assert LayerSpec(Cell.GRU, 64, 128, num_layers=2, bidirectional=True) in [
        fit.spec for fit in layer.solution.choices]



# -- round trips through the real printers ------------------------------------------------------

@st.composite
def torch_layers(draw: st.DrawFn) -> dict[str, Any]:
    """A torch recurrent layer's arguments, as a model after an embedding would take them."""
    cell = draw(st.sampled_from(["RNN", "GRU", "LSTM"]))
    hidden = draw(st.integers(2, 24))
    options: dict[str, Any] = {
        "cell": cell, "input_size": draw(st.integers(1, 24)), "hidden_size": hidden,
        "num_layers": draw(st.integers(1, 3)), "bidirectional": draw(st.booleans()),
        "bias": draw(st.booleans())}
    if cell == "LSTM" and draw(st.booleans()):
        options["proj_size"] = draw(st.integers(1, hidden - 1))
    return options


@pytest.mark.torch
@needs_torchinfo
@settings(max_examples=12, deadline=None)
@given(torch_layers())
def test_torchinfo_round_trip(options: dict[str, Any]) -> None:
    """A random recurrent layer after an embedding, printed by torchinfo with output shapes:
    the real configuration is among the fits, the answer (where one) is it or says what it
    assumed, every printed count is true, and nothing is flagged."""
    import torch.nn as nn

    cell = options["cell"]
    sizes = {key: value for key, value in options.items() if key != "cell"}

    class Model(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.embedding = nn.Embedding(50, sizes["input_size"])
            self.rnn = getattr(nn, cell)(batch_first=True, **sizes)

        def forward(self, x: Any) -> Any:
            return self.rnn(self.embedding(x))[0]

    module = Model()
    answer = read(torchinfo_table(module))
    [(_, layer)] = answer.recurrent
    real = LayerSpec(Cell(cell.lower()), **sizes)
    assert layer.printed == sum(p.numel() for p in module.rnn.parameters())
    assert layer.solution is not None and real in [fit.spec for fit in layer.solution.fits]
    assert layer.spec in (None, real) or not real.bias
    assert not answer.disagreements


@st.composite
def keras_layers(draw: st.DrawFn) -> dict[str, Any]:
    """A Keras recurrent layer (perhaps wrapped in Bidirectional) and its input width."""
    cell = draw(st.sampled_from(["SimpleRNN", "GRU", "LSTM"]))
    options: dict[str, Any] = {"units": draw(st.integers(1, 24)),
                               "use_bias": draw(st.booleans())}
    if cell == "GRU":
        options["reset_after"] = draw(st.booleans())
    merge = draw(st.sampled_from([None, "concat", "sum", "mul", "ave"]))
    return {"cell": cell, "options": options, "merge": merge,
            "width": draw(st.integers(1, 24))}


@pytest.mark.keras
@needs_tf_keras
@settings(max_examples=12, deadline=None)
@given(keras_layers())
def test_keras2_round_trip(tf_keras: Any, layer: dict[str, Any]) -> None:
    """A random Keras layer printed by Keras 2's summary after its Input row: the real
    configuration is among the fits, the answer is it unless it needs a non-default option
    (then listed beside it), and the printed count is the real one."""
    inner = getattr(tf_keras.layers, layer["cell"])(**layer["options"])
    wrapped = inner if layer["merge"] is None else tf_keras.layers.Bidirectional(
        inner, merge_mode=layer["merge"])
    inputs = tf_keras.Input(shape=(7, layer["width"]))
    model = tf_keras.Model(inputs, wrapped(inputs))
    answer = read(keras2_summary(model))
    [(_, found)] = answer.recurrent
    options = layer["options"]
    real = LayerSpec(Cell({"SimpleRNN": "rnn"}.get(layer["cell"], layer["cell"].lower())),
                     layer["width"], options["units"], bidirectional=layer["merge"] is not None,
                     bias=options["use_bias"], framework=Framework.KERAS,
                     merge_modes=(MergeMode(layer["merge"]),) if layer["merge"] else None,
                     reset_after=options.get("reset_after"))
    assert found.printed == wrapped.count_params()
    assert found.solution is not None
    fits = [fit.spec for fit in found.solution.fits]
    assert real in fits
    if found.spec is not None and found.spec != real:
        assert not real.bias or (found.spec.merge_modes or ()) != real.merge_modes
        assert conventions.tensors(found.spec) == conventions.tensors(real) or not real.bias
    assert not answer.disagreements


def test_a_guessed_width_that_needs_an_unusual_option_is_not_trusted() -> None:
    """The row above a torch GRU reads 12, and 12 fits only without biases: what the count
    fits with biases on another width is as likely, so both are listed, none chosen."""
    count = conventions.total(LayerSpec(Cell.GRU, 10, 8))
    solution = solve(Clues(count, Framework.TORCH, (Cell.GRU,), 8, 12, "the layer before, x",
                           guessed=True))
    assert solution.spec is None and solution.ambiguous
    choices = [fit.spec for fit in solution.choices]
    assert LayerSpec(Cell.GRU, 10, 8) in choices
    assert LayerSpec(Cell.GRU, 12, 8, bias=False) in choices
    certain = solve(Clues(count, Framework.TORCH, (Cell.GRU,), 8, 12, "the Input row"))
    assert certain.spec == LayerSpec(Cell.GRU, 12, 8, bias=False)
    assert certain.how.endswith("with bias=False")


def test_a_guessed_width_without_a_count_is_left_open() -> None:
    """The row above's width is only a guess at what a layer reads: with a count it is checked,
    without one it is not used (a conv's last axis is its length, not its channels)."""
    solution = solve(Clues(None, Framework.TORCH, (Cell.GRU,), output=16, input=3,
                           input_from="the layer before, conv", guessed=True))
    assert [fit.text for fit in solution.choices] == [
        "nn.GRU(?, 16): any input width, any num_layers, with or without biases",
        "nn.GRU(?, 8, bidirectional=True): any input width, any num_layers, with or without "
        "biases"]
    assert solution.admits(LayerSpec(Cell.GRU, 4, 16))
