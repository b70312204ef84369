"""The compute core: per-step costs of every cell, packed batches, merges and bad values."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paramcount.analysis.compute import forward, is_bias, step_cost
from paramcount.engine import conventions
from paramcount.engine.spec import Cell, Framework, LayerSpec
from paramcount.errors import SpecError
from tests.strategies_more import more_specs

STEP_CASES = [
    # spec kwargs, (input MACs, recurrent MACs, projection MACs, bias adds, elementwise, nonlinear)
    ({"cell": "lstm", "input_size": 32, "hidden_size": 128}, (16384, 65536, 0, 1024, 1024, 640)),
    ({"cell": "lstm", "input_size": 32, "hidden_size": 128, "framework": "keras"},
     (16384, 65536, 0, 512, 1024, 640)),
    ({"cell": "lstm", "input_size": 10, "hidden_size": 20, "proj_size": 5},
     (800, 400, 100, 160, 160, 100)),
    ({"cell": "lstm", "input_size": 10, "hidden_size": 20, "bias": False},
     (800, 1600, 0, 0, 160, 100)),
    ({"cell": "gru", "input_size": 10, "hidden_size": 20}, (600, 1200, 0, 120, 160, 60)),
    ({"cell": "gru", "input_size": 10, "hidden_size": 20, "framework": "keras"},
     (600, 1200, 0, 120, 160, 60)),
    ({"cell": "gru", "input_size": 10, "hidden_size": 20, "framework": "keras",
      "reset_after": False}, (600, 1200, 0, 60, 160, 60)),
    ({"cell": "rnn", "input_size": 10, "hidden_size": 20}, (200, 400, 0, 40, 20, 20)),
    ({"cell": "rnn", "input_size": 10, "hidden_size": 20, "framework": "keras"},
     (200, 400, 0, 20, 20, 20)),
]


@pytest.mark.parametrize(("kwargs", "expected"), STEP_CASES,
                         ids=["-".join(str(v) for v in k.values()) for k, _ in STEP_CASES])
def test_step_cost(kwargs: dict[str, Any], expected: tuple[int, ...]) -> None:
    """One step of each cell costs what formulas.md derives."""
    spec = LayerSpec(**kwargs)
    cost = step_cost(spec, spec.input_size)
    assert (cost.input_macs, cost.recurrent_macs, cost.projection_macs, cost.bias_adds,
            cost.elementwise, cost.activations) == expected
    assert cost.flops == 2 * cost.macs + sum(expected[3:])


def test_stack_totals() -> None:
    """A 2-layer bidirectional LSTM over 4 × 10 steps: layer 1 reads 2H; 40 steps per direction."""
    compute = forward(LayerSpec(Cell.LSTM, 32, 128, num_layers=2, bidirectional=True),
                      seq_len=10, batch=4)
    assert [(r.layer, r.direction.value, r.input_width, r.macs) for r in compute.rows] == [
        (0, "forward", 32, 3_276_800), (0, "backward", 32, 3_276_800),
        (1, "forward", 256, 7_864_320), (1, "backward", 256, 7_864_320),
    ]
    assert compute.macs == 22_282_240
    assert compute.flops == 44_994_560


def test_packed_counts_only_real_steps() -> None:
    """Lengths 7,3,1 compute 11 sample-steps per direction, not 3 × 7 = 21."""
    spec = LayerSpec(Cell.GRU, 8, 16, bidirectional=True)
    packed = forward(spec, lengths=[7, 3, 1])
    padded = forward(spec, seq_len=7, batch=3)
    assert (packed.batch, packed.seq_len, packed.steps) == (3, 7, 11)
    assert packed.macs * 21 == padded.macs * 11


@pytest.mark.parametrize(
    ("modes", "expected"),
    [("concat", []), ("sum", [(0, 320), (1, 32)]), ("ave", [(0, 640), (1, 64)]),
     (("mul", "none"), [(0, 320)])],
    ids=["concat", "sum", "ave", "mul-none"],
)
def test_keras_merges(modes: Any, expected: list[tuple[int, int]]) -> None:
    """Keras merges cost per merged element; the last layer merges only its final step."""
    spec = LayerSpec(Cell.LSTM, 4, 8, num_layers=2, bidirectional=True, framework=Framework.KERAS,
                     merge_modes=modes)
    compute = forward(spec, seq_len=10, batch=4)
    assert [(m.layer, m.flops) for m in compute.merges] == expected
    assert compute.flops == sum(r.flops for r in compute.rows) + sum(f for _, f in expected)


BAD = [
    ({"seq_len": 0}, "seq_len=0 must be a positive integer"),
    ({"seq_len": 5, "batch": -1}, "batch=-1 must be a positive integer"),
    ({}, "needs a sequence length"),
    ({"lengths": []}, "lengths='' is empty"),
    ({"lengths": [3, 0]}, "has 0: every length must be positive"),
    ({"lengths": [3, -2]}, "has -2: every length must be positive"),
    ({"lengths": [3, 2], "batch": 3}, "lists 2 lengths but batch=3"),
    ({"lengths": [9, 2], "seq_len": 5}, "has 9, longer than seq_len=5"),
]


@pytest.mark.parametrize(("kwargs", "message"), BAD, ids=[m for _, m in BAD])
def test_bad_values(kwargs: dict[str, Any], message: str) -> None:
    """Impossible batch shapes raise SpecError naming the value."""
    with pytest.raises(SpecError, match=message):
        forward(LayerSpec(Cell.LSTM, 4, 8), **kwargs)


def test_lengths_not_for_cells() -> None:
    """Packed lengths apply to layers, not to a single-step cell."""
    with pytest.raises(SpecError, match="not to a single-step cell"):
        forward(LayerSpec(Cell.LSTM, 4, 8, single_cell=True), lengths=[2, 1])


def test_keras_computes_masked_steps() -> None:
    """Keras masks padded steps but computes them: lengths change nothing but N and T."""
    spec = LayerSpec(Cell.LSTM, 4, 8, framework=Framework.KERAS)
    masked = forward(spec, lengths=[5, 2, 1])
    assert not masked.packed and masked.steps == 15
    assert masked.macs == forward(spec, seq_len=5, batch=3).macs


@st.composite
def specs(draw: st.DrawFn) -> LayerSpec:
    """Any valid torch or Keras spec with small sizes."""
    cell = draw(st.sampled_from(list(Cell)))
    framework = draw(st.sampled_from([Framework.TORCH, Framework.KERAS]))
    hidden = draw(st.integers(2, 40))
    single = draw(st.booleans())
    layers = 1 if single else draw(st.integers(1, 4))
    bidir = False if single else draw(st.booleans())
    proj = 0
    if cell is Cell.LSTM and framework is Framework.TORCH and not single and draw(st.booleans()):
        proj = draw(st.integers(1, hidden - 1))
    reset_after = None
    if cell is Cell.GRU and framework is Framework.KERAS:
        reset_after = draw(st.booleans())
    modes = None
    if framework is Framework.KERAS and bidir:
        inner = st.sampled_from(["concat", "sum", "mul", "ave"])
        modes = (*draw(st.lists(inner, min_size=layers - 1, max_size=layers - 1)),
                 draw(st.sampled_from(["concat", "sum", "mul", "ave", "none"])))
    return LayerSpec(cell, draw(st.integers(1, 40)), hidden, num_layers=layers,
                     bidirectional=bidir, bias=draw(st.booleans()), proj_size=proj,
                     framework=framework, merge_modes=modes, reset_after=reset_after,
                     single_cell=single)


@settings(max_examples=150, deadline=None)
@given(specs())
def test_one_step_macs_are_the_weights(spec: LayerSpec) -> None:
    """One sample-step does one MAC per weight and one add per bias element, in every convention."""
    compute = forward(spec, seq_len=1, batch=1)
    tensors = conventions.tensors(spec)
    assert compute.macs == sum(t.count for t in tensors if "bias" not in t.role)
    assert sum(r.step.bias_adds for r in compute.rows) == sum(
        t.count for t in tensors if "bias" in t.role
    )
    for row in compute.rows:
        assert step_cost(spec, row.input_width) == row.step


@settings(max_examples=100, deadline=None)
@given(specs(), st.integers(1, 30), st.integers(1, 9))
def test_work_scales_with_sample_steps(spec: LayerSpec, seq_len: int, batch: int) -> None:
    """MACs grow exactly with N·T, and FLOPs are 2·MACs plus the rest."""
    one = forward(spec, seq_len=1, batch=1)
    many = forward(spec, seq_len=seq_len, batch=batch)
    assert many.macs == one.macs * seq_len * batch
    assert many.matmul_flops == 2 * many.macs
    rest = sum((r.step.bias_adds + r.step.elementwise + r.step.activations) * r.steps
               for r in many.rows)
    assert many.flops == 2 * many.macs + rest + many.merge_flops


@pytest.mark.parametrize("module", ["paramcount.analysis.compute",
                                    "paramcount.analysis.memory", "paramcount.analysis.fit"])
def test_docstring_examples(module: str) -> None:
    """The examples in the memory, compute and fit modules' docstrings run."""
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(module))
    assert result.failed == 0 and result.attempted > 0


def _is_peephole(role: str) -> bool:
    return role == "P" or role.endswith("_diag")


@settings(max_examples=150, deadline=None)
@given(more_specs())
def test_one_step_matches_the_tensors_in_other_conventions(spec: LayerSpec) -> None:
    """ONNX, Flax and TF1: one sample-step does a MAC per weight, an add per bias element, and
    (with peepholes) a multiply and an add per peephole weight."""
    compute = forward(spec, seq_len=1, batch=1)
    tensors = conventions.tensors(spec)
    weights = sum(t.count for t in tensors if not is_bias(t) and not _is_peephole(t.role))
    assert compute.macs == weights
    assert sum(r.step.bias_adds for r in compute.rows) == sum(
        t.count for t in tensors if is_bias(t))
    peepholes = sum(t.count for t in tensors if _is_peephole(t.role))
    plain = forward(spec.replace(peepholes=False), seq_len=1, batch=1) if spec.peepholes else None
    if plain is not None:
        extra = sum(r.step.elementwise for r in compute.rows) - sum(
            r.step.elementwise for r in plain.rows)
        assert extra == 2 * peepholes
