"""The formula engine: seeds, exact names and shapes, validation, and self-consistency."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import paramcount
from paramcount.engine import conventions
from paramcount.engine.report import build_report
from paramcount.engine.spec import Cell, DType, Framework, LayerSpec
from tests.strategies import layer_specs

SEEDS = [
    ("torch-bilstm-2", dict(cell="lstm", input_size=32, hidden_size=128, num_layers=2,
                            bidirectional=True), 561_152),
    ("torch-lstm-2", dict(cell="lstm", input_size=32, hidden_size=128, num_layers=2), 215_040),
    ("keras-lstm-256", dict(cell="lstm", input_size=28, hidden_size=256, framework="keras"),
     291_840),
    ("keras-bilstm-128", dict(cell="lstm", input_size=28, hidden_size=128, bidirectional=True,
                              framework="keras"), 160_768),
    ("keras-gru-reset-after", dict(cell="gru", input_size=13, hidden_size=20,
                                   framework="keras"), 2_100),
    ("keras-gru-no-reset-after", dict(cell="gru", input_size=13, hidden_size=20,
                                      framework="keras", reset_after=False), 2_040),
    ("torch-lstm-cell", dict(cell="lstm", input_size=10, hidden_size=20, single_cell=True), 2_560),
    ("torch-birnn-4", dict(cell="rnn", input_size=25, hidden_size=50, num_layers=4,
                           bidirectional=True), 53_300),
    ("torch-lstm-proj", dict(cell="lstm", input_size=64, hidden_size=512, num_layers=3,
                             proj_size=256), 3_158_016),
    ("torch-gru-nobias", dict(cell="gru", input_size=10, hidden_size=20, bias=False), 1_800),
    ("keras-bilstm-sum", dict(cell="lstm", input_size=16, hidden_size=32, num_layers=2,
                              bidirectional=True, framework="keras", merge_mode="sum"), 29_184),
    ("torch-huge", dict(cell="lstm", input_size=10, hidden_size=10**9),
     4_000_000_048_000_000_000),
]


@pytest.mark.parametrize(("kwargs", "total"), [s[1:] for s in SEEDS], ids=[s[0] for s in SEEDS])
def test_seed_totals(kwargs: dict[str, Any], total: int) -> None:
    """The published numbers come out exactly."""
    assert paramcount.count(**kwargs).total == total


TENSORS = [
    ("torch-reverse", dict(cell="lstm", input_size=32, hidden_size=128, num_layers=2,
                           bidirectional=True), "weight_ih_l1_reverse", (512, 256)),
    ("torch-proj-hr", dict(cell="lstm", input_size=8, hidden_size=16, proj_size=4),
     "weight_hr_l0", (4, 16)),
    ("torch-proj-hh", dict(cell="lstm", input_size=8, hidden_size=16, proj_size=4),
     "weight_hh_l0", (64, 4)),
    ("torch-cell", dict(cell="gru", input_size=8, hidden_size=16, single_cell=True),
     "weight_hh", (48, 16)),
    ("keras-bidir", dict(cell="lstm", input_size=28, hidden_size=128, bidirectional=True,
                         framework="keras"), "bidirectional/forward_lstm/lstm_cell/kernel",
     (28, 512)),
    ("keras-bidir-2", dict(cell="lstm", input_size=28, hidden_size=16, num_layers=2,
                           bidirectional=True, framework="keras"),
     "bidirectional_1/backward_lstm_1/lstm_cell/kernel", (32, 64)),
    ("keras-stacked", dict(cell="rnn", input_size=5, hidden_size=4, num_layers=3,
                           framework="keras"), "simple_rnn_2/simple_rnn_cell/recurrent_kernel",
     (4, 4)),
    ("keras-gru-bias", dict(cell="gru", input_size=5, hidden_size=3, framework="keras"),
     "gru/gru_cell/bias", (2, 9)),
    ("keras-gru-v1-bias", dict(cell="gru", input_size=5, hidden_size=3, framework="keras",
                               reset_after=False), "gru/gru_cell/bias", (9,)),
    ("keras-cell", dict(cell="lstm", input_size=5, hidden_size=8, framework="keras",
                        single_cell=True), "lstm_cell/recurrent_kernel", (8, 32)),
]


@pytest.mark.parametrize(
    ("kwargs", "name", "shape"), [t[1:] for t in TENSORS], ids=[t[0] for t in TENSORS]
)
def test_tensor_name_and_shape(kwargs: dict[str, Any], name: str, shape: tuple[int, ...]) -> None:
    """A tensor is named and shaped exactly as its framework names and shapes it."""
    tensors = {t.name: t.shape for t in paramcount.count(**kwargs).tensors}
    assert tensors[name] == shape


def test_torch_order_is_named_parameters_order() -> None:
    """Torch tensors come layer by layer, forward then reverse, ih/hh/biases/hr."""
    names = [t.name for t in paramcount.count("lstm", 4, 6, num_layers=2, bidirectional=True,
                                              proj_size=3).tensors]
    block = ["weight_ih", "weight_hh", "bias_ih", "bias_hh", "weight_hr"]
    expected = [f"{n}_l{layer}{sfx}" for layer in (0, 1) for sfx in ("", "_reverse")
                for n in block]
    assert names == expected


INVALID = [
    ("zero-hidden", dict(hidden_size=0), r"hidden_size=0 must be a positive integer"),
    ("negative-input", dict(input_size=-3), r"input_size=-3 must be a positive integer"),
    ("float-input", dict(input_size=12.5), r"input_size=12.5 must be a whole number"),
    ("bool-layers", dict(num_layers=True), r"num_layers=True must be a whole number"),
    ("zero-layers", dict(num_layers=0), r"num_layers=0 must be a positive integer"),
    ("proj-gru", dict(cell="gru", proj_size=4), r"applies only to LSTM \(nn.GRU has no"),
    ("proj-equal", dict(proj_size=16), r"proj_size=16 must be smaller than hidden_size=16"),
    ("proj-negative", dict(proj_size=-1), r"proj_size=-1 must be 0 \(no projection\) or more"),
    ("too-many-layers", dict(num_layers=10**22), r"more layers than paramcount lists"),
    ("none-bias", dict(bias=None), r"bias=None must be True or False"),
    ("text-bidirectional", dict(bidirectional="no"), r"bidirectional='no' must be True or"),
    ("text-reset-after", dict(cell="gru", reset_after="no"), r"must be True, False or None"),
    ("number-merge-mode", dict(framework="keras", bidirectional=True, merge_mode=5),
     r"merge_modes=5 must be a merge mode"),
    ("proj-keras", dict(proj_size=4, framework="keras"), r"Keras recurrent layers have no"),
    ("proj-cell", dict(proj_size=4, single_cell=True), r"nn.LSTMCell has no proj_size"),
    ("merge-torch", dict(bidirectional=True, merge_mode="sum"), r"PyTorch always concatenates"),
    ("merge-unidir", dict(framework="keras", merge_mode="sum"), r"needs bidirectional=True"),
    ("merge-length", dict(framework="keras", bidirectional=True, num_layers=3,
                          merge_mode=["sum", "sum"]), r"lists 2 modes for num_layers=3"),
    ("merge-none-early", dict(framework="keras", bidirectional=True, num_layers=2,
                              merge_mode=["none", "concat"]), r"'none' before the last layer"),
    ("merge-none-all", dict(framework="keras", bidirectional=True, num_layers=2,
                            merge_mode="none"), r"'none' before the last layer"),
    ("merge-unknown", dict(framework="keras", bidirectional=True, merge_mode="avg"),
     r"merge_modes='avg' is not one of"),
    ("reset-after-torch", dict(cell="gru", reset_after=False), r"nn.GRU always applies"),
    ("reset-after-lstm", dict(framework="keras", reset_after=False), r"applies only to GRU"),
    ("cell-layers", dict(single_cell=True, num_layers=2), r"does not apply to a single-step"),
    ("cell-bidir", dict(single_cell=True, bidirectional=True), r"does not apply to a single"),
    ("nonlinearity-lstm", dict(nonlinearity="relu"), r"applies only to RNN"),
    ("unknown-cell", dict(cell="lstmm"), r"cell='lstmm' is not one of: rnn, lstm, gru"),
    ("unknown-framework", dict(framework="jax"), r"framework='jax' is not one of"),
    ("unknown-dtype", dict(dtype="fp8"), r"dtype='fp8' is not one of"),
]


@pytest.mark.parametrize(("changes", "message"), [i[1:] for i in INVALID],
                         ids=[i[0] for i in INVALID])
def test_invalid_configuration(changes: dict[str, Any], message: str) -> None:
    """Every configuration the framework refuses raises SpecError naming the argument."""
    kwargs: dict[str, Any] = dict(cell="lstm", input_size=8, hidden_size=16) | changes
    with pytest.raises(paramcount.SpecError, match=message):
        paramcount.count(**kwargs)


def closed_form(spec: LayerSpec) -> int:
    """The totals of /work/shared/conventions.md, restated independently of the engine."""
    g, i, h, p = spec.cell.gates, spec.input_size, spec.hidden_size, spec.proj_size
    b, d, n = int(spec.bias), spec.directions, spec.num_layers
    if spec.framework is Framework.TORCH:
        hr = p or h
        if spec.single_cell:
            return g * h * (i + h + 2 * b)
        return d * (g * h * (i + hr + 2 * b) + p * h) + (n - 1) * d * (
            g * h * (d * hr + hr + 2 * b) + p * h)
    biases = 2 if spec.cell is Cell.GRU and spec.reset_after else 1
    total, width = 0, i
    for layer in range(n):
        total += d * g * h * (width + h + biases * b)
        mode = spec.merge_modes[layer].value if spec.merge_modes else "concat"
        width = 2 * h if d == 2 and mode == "concat" else h
    return total


@settings(max_examples=300, deadline=None)
@given(layer_specs())
def test_tensors_formula_and_closed_form_agree(spec: LayerSpec) -> None:
    """The tensor list, the convention's formula and an independent closed form agree."""
    report = build_report(spec)
    assert report.total == report.formula.total == closed_form(spec)
    assert sum(row.total for row in report.layers) == report.total


@settings(max_examples=200, deadline=None)
@given(layer_specs())
def test_growth_is_fully_attributed(spec: LayerSpec) -> None:
    """The gap between naive guess and total is exactly the sum of the per-layer extras."""
    growth = build_report(spec).growth
    if growth is None:
        assert spec.single_cell or (spec.num_layers == 1 and not spec.bidirectional)
        return
    assert growth.actual == build_report(spec).total
    assert growth.difference == sum(row.extra for row in growth.rows)


@settings(max_examples=200, deadline=None)
@given(layer_specs(frameworks=(Framework.TORCH,)))
def test_torch_and_keras_differ_only_in_biases(spec: LayerSpec) -> None:
    """The same config is G·H per direction and layer smaller in Keras (GRU: equal)."""
    if spec.proj_size:
        spec = spec.replace(proj_size=0)
    keras = spec.replace(framework=Framework.KERAS, nonlinearity=spec.nonlinearity)
    biases_dropped = 0 if spec.cell is Cell.GRU else 1
    expected_gap = spec.directions * spec.num_layers * spec.gate_rows * int(spec.bias)
    assert build_report(spec).total - build_report(keras).total == expected_gap * biases_dropped


@settings(max_examples=100, deadline=None)
@given(layer_specs(), st.sampled_from(list(DType)))
def test_bytes_are_total_times_element_size(spec: LayerSpec, dtype: DType) -> None:
    """The size in bytes is the exact total times the element size."""
    report = build_report(spec, dtype)
    assert report.bytes == report.total * dtype.bytes


@settings(max_examples=100, deadline=None)
@given(layer_specs())
def test_depth_table_starts_at_two(spec: LayerSpec) -> None:
    """One bidirectional layer is exactly twice one unidirectional layer."""
    report = build_report(spec)
    if report.depth:
        assert report.depth[0].ratio == 2
        assert report.depth[spec.num_layers - 1].bidirectional == report.total


def test_input_widths_follow_merge_modes() -> None:
    """After concat a Keras layer reads 2H, after sum/mul/ave H."""
    spec = LayerSpec(Cell.LSTM, 7, 5, num_layers=4, bidirectional=True, framework=Framework.KERAS,
                     merge_modes=("concat", "sum", "ave", "none"))  # type: ignore[arg-type]
    assert conventions.input_widths(spec) == [7, 10, 5, 5]
