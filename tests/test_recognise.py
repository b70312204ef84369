"""Recognition, the inverse of the conventions: tensors(spec) read back gives the spec.

Compared fields: every LayerSpec field, except what no weight stores, which the recognised spec
leaves at its default: an RNN's nonlinearity (None), a Keras / CuDNN Bidirectional's merge mode
(concat), a Keras GRU's reset_after when it has no biases (True). Keras and CuDNN give one
recognised layer per Keras layer (num_layers=1, reading that layer's input width), and a bare
Keras cell under a prefix reads as that prefix's layer.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paramcount.engine import conventions
from paramcount.engine.conventions import Recognised, recognise
from paramcount.engine.conventions.recognition import RNN_NONLINEARITY
from paramcount.engine.spec import Cell, Framework, LayerSpec
from tests.strategies import layer_specs
from tests.strategies_more import more_specs

ALL_SPECS = st.one_of(layer_specs(max_size=24, max_layers=3), more_specs())
_PER_LAYER = (Framework.KERAS, Framework.TF1_CUDNN)
_SEGMENTS = ["encoder", "module", "model", "block_2", "sequential", "decoder"]


def separator(framework: Framework) -> str:
    """How a framework joins the names of nested modules."""
    return "." if framework is Framework.TORCH else "/"


@st.composite
def prefixes(draw: st.DrawFn, framework: Framework) -> str:
    """A random module path ending in the framework's separator, or nothing."""
    segments = draw(st.lists(st.sampled_from(_SEGMENTS), max_size=3))
    sep = separator(framework)
    return "".join(segment + sep for segment in segments)


def normal(spec: LayerSpec, **changes: object) -> LayerSpec:
    """``spec`` with what the weights cannot tell set to the default recognition reports."""
    fields: dict[str, object] = {"nonlinearity": None}
    if spec.merge_modes is not None:
        fields["merge_modes"] = None
    if spec.framework is Framework.KERAS and spec.cell is Cell.GRU and not spec.bias:
        fields["reset_after"] = None
    fields.update(changes)
    return spec.replace(**fields)


def expected(spec: LayerSpec, prefix: str) -> list[tuple[str, LayerSpec]]:
    """What recognising ``spec``'s tensors under ``prefix`` gives: (prefix, spec) per layer."""
    if spec.framework is Framework.FLAX_LINEN:
        return [(prefix + "params/", normal(spec))]
    if spec.framework not in _PER_LAYER:
        return [(prefix, normal(spec))]
    if spec.single_cell:
        if prefix:  # a bare cell under a module path reads as that module's layer
            return [(prefix, normal(spec, single_cell=False))]
        return [("", normal(spec))]
    snake = {Cell.RNN: "simple_rnn", Cell.LSTM: "lstm", Cell.GRU: "gru"}[spec.cell]
    if spec.framework is Framework.TF1_CUDNN:
        snake = "cu_dnn" + spec.cell.value
    out = []
    for layer, width in enumerate(conventions.input_widths(spec)):
        suffix = f"_{layer}" if layer else ""
        own = f"bidirectional{suffix}/" if spec.bidirectional else f"{snake}{suffix}/"
        out.append((prefix + own, normal(spec, num_layers=1, input_size=width)))
    return out


def unrelated(framework: Framework, prefix: str, width: int) -> dict[str, tuple[int, ...]]:
    """Tensors of an embedding and a linear head, named as the framework names them."""
    if framework is Framework.TORCH:
        return {f"{prefix}embedding.weight": (100, width), f"{prefix}fc.weight": (3, width),
                f"{prefix}fc.bias": (3,)}
    if framework is Framework.FLAX_LINEN:
        return {f"{prefix}params/Embed_0/embedding": (100, width),
                f"{prefix}params/Dense_0/kernel": (width, 3), f"{prefix}params/Dense_0/bias": (3,)}
    return {f"{prefix}embedding/embeddings": (100, width), f"{prefix}dense/kernel": (width, 3),
            f"{prefix}dense/bias": (3,)}


def written(spec: LayerSpec, prefix: str) -> dict[str, tuple[int, ...]]:
    """``spec``'s tensors as the convention writes them, under ``prefix``."""
    return {prefix + t.name: t.shape for t in conventions.tensors(spec)}


def summary(found: list[Recognised]) -> list[tuple[str, LayerSpec]]:
    """(prefix, spec) of each recognised layer."""
    return [(r.prefix, r.spec) for r in found]


@settings(max_examples=300, deadline=None)
@given(data=st.data(), spec=ALL_SPECS)
def test_recognising_the_written_tensors_gives_back_the_spec(
    data: st.DataObject, spec: LayerSpec
) -> None:
    """Any valid spec in any convention, under any prefix, among unrelated tensors, round-trips."""
    prefix = data.draw(prefixes(spec.framework))
    head = unrelated(spec.framework, prefix, spec.input_size)
    before = data.draw(st.booleans())
    shapes = {**head, **written(spec, prefix)} if before else {**written(spec, prefix), **head}
    found = recognise(shapes)
    assert summary(found) == expected(spec, prefix)
    claimed = [name for r in found for name in r.names]
    assert sorted(claimed) == sorted(written(spec, prefix))
    assert claimed == [name for name in shapes if name in set(claimed)]  # source order
    assert sum(conventions.total(r.spec) for r in found) == conventions.total(spec)


@settings(max_examples=100, deadline=None)
@given(first=ALL_SPECS, second=ALL_SPECS)
def test_two_layers_in_one_source_come_back_in_source_order(
    first: LayerSpec, second: LayerSpec
) -> None:
    """Two layers of any conventions in one mapping are both found, first one first."""
    a = "enc" + separator(first.framework)
    b = "dec" + separator(second.framework)
    shapes = {**written(first, a), **written(second, b)}
    assert summary(recognise(shapes)) == expected(first, a) + expected(second, b)


@settings(max_examples=100, deadline=None)
@given(spec=ALL_SPECS)
def test_naming_only_the_right_framework_finds_it(spec: LayerSpec) -> None:
    """Limiting recognition to the spec's framework finds it; to the others, nothing."""
    shapes = written(spec, "")
    assert summary(recognise(shapes, [spec.framework])) == expected(spec, "")
    others = [f for f in Framework if f is not spec.framework]
    assert recognise(shapes, others) == []


@pytest.mark.parametrize(
    "spec",
    [
        LayerSpec(Cell.RNN, 3, 4),
        LayerSpec(Cell.RNN, 3, 4, framework=Framework.KERAS),
        LayerSpec(Cell.RNN, 3, 4, framework=Framework.ONNX),
        LayerSpec(Cell.RNN, 3, 4, framework=Framework.FLAX_NNX),
        LayerSpec(Cell.RNN, 3, 4, framework=Framework.TF1),
    ],
    ids=lambda spec: spec.framework.value,
)
def test_a_plain_rnn_says_its_nonlinearity_cannot_be_told(spec: LayerSpec) -> None:
    """tanh and relu RNNs have the same weights: the note says so and nothing is guessed."""
    relu = written(spec.replace(nonlinearity="relu"), "")
    [found] = recognise(relu)
    assert RNN_NONLINEARITY in found.notes
    assert found.spec.nonlinearity is None


def test_a_bidirectional_keras_layer_notes_its_unknown_merge_mode() -> None:
    """The merge mode shapes only the next layer's input, so one layer's weights cannot tell."""
    spec = LayerSpec(Cell.LSTM, 3, 4, bidirectional=True, framework=Framework.KERAS,
                     merge_modes="sum")
    [found] = recognise(written(spec, ""))
    assert any("merge_mode" in note for note in found.notes)
    assert found.prefix == "bidirectional/"


def test_a_data_parallel_prefix_is_named() -> None:
    """A ``module.`` prefix is kept and explained (strip it to load into the bare model)."""
    [found] = recognise(written(LayerSpec(Cell.GRU, 3, 4), "module.rnn."))
    assert found.prefix == "module.rnn."
    assert any("DataParallel" in note for note in found.notes)


TORCH_LSTM = written(LayerSpec(Cell.LSTM, 3, 4, num_layers=2), "lstm.")


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        ({"lstm.bias_hh_l1": None}, "a layer without one of its biases"),
        ({"lstm.weight_ih_l1": (16, 5)}, "a second layer reading another width"),
        ({"lstm.weight_hh_l0": (15, 4)}, "rows that are no whole number of gates"),
        ({"lstm.weight_hh_l0": (8, 4), "lstm.weight_hh_l1": (8, 4)}, "two gate blocks"),
        ({"lstm.weight_ih_l2": (16, 4)}, "a third layer with only an input weight"),
        ({"lstm.weight_ih_l0": (16,)}, "a weight of the wrong rank"),
    ],
    ids=lambda value: value if isinstance(value, str) else "",
)
def test_almost_a_torch_layer_is_left_unrecognised(
    change: dict[str, tuple[int, ...] | None], reason: str
) -> None:
    """A group that is not exactly what nn.LSTM holds is not claimed as one."""
    shapes = dict(TORCH_LSTM)
    for name, shape in change.items():
        if shape is None:
            del shapes[name]
        else:
            shapes[name] = shape
    assert recognise(shapes) == [], reason


def test_awd_lstm_raw_weights_are_left_to_the_reader() -> None:
    """AWD-LSTM's ``weight_hh_l0_raw`` beside ``weight_hh_l0`` is not part of the nn.LSTM."""
    shapes = {**TORCH_LSTM, "lstm.weight_hh_l0_raw": (16, 4)}
    [found] = recognise(shapes)
    assert "lstm.weight_hh_l0_raw" not in found.names
    assert found.spec == LayerSpec(Cell.LSTM, 3, 4, num_layers=2)


def test_keras_2_paths_without_a_cell_scope_are_read_from_the_shapes() -> None:
    """Keras 2 files store ``lstm_1/kernel:0``: the cell comes from G·H ÷ H."""
    shapes = {"lstm_1/kernel:0": (3, 16), "lstm_1/recurrent_kernel:0": (4, 16),
              "lstm_1/bias:0": (16,), "dense_1/kernel:0": (4, 2), "dense_1/bias:0": (2,)}
    [found] = recognise(shapes)
    assert (found.prefix, found.spec) == (
        "lstm_1/", LayerSpec(Cell.LSTM, 3, 4, framework=Framework.KERAS))


def test_a_keras_cell_scope_that_disagrees_with_the_shapes_is_not_claimed() -> None:
    """A ``gru_cell`` whose kernel holds four gate blocks is not a GRU (nor an LSTM)."""
    shapes = {"gru/gru_cell/kernel": (3, 16), "gru/gru_cell/recurrent_kernel": (4, 16),
              "gru/gru_cell/bias": (16,)}
    assert recognise(shapes) == []


def test_ten_thousand_unrelated_tensors_are_passed_over() -> None:
    """A large state dict with one LSTM among thousands of linear layers gives that LSTM."""
    shapes: dict[str, tuple[int, ...]] = {}
    for block in range(5000):
        shapes[f"blocks.{block}.linear.weight"] = (8, 8)
        shapes[f"blocks.{block}.linear.bias"] = (8,)
    shapes.update(written(LayerSpec(Cell.LSTM, 8, 8, bidirectional=True), "head.rnn."))
    [found] = recognise(shapes)
    assert found.prefix == "head.rnn."


@pytest.mark.parametrize("module", ["paramcount.engine.conventions",
                                    "paramcount.reading.messages.load_error"])
def test_docstring_examples_run(module: str) -> None:
    """The examples in the recognition dispatcher's and the load-error reader's docstrings run."""
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(module))
    assert result.failed == 0 and result.attempted > 0
