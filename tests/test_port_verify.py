"""Ports proved by the real layers: torch, Keras, ONNX and Flax compute the same after a port.

Each case draws a random stack in one convention with random non-zero weights and biases,
ports it to another, builds both real layers and runs them on the same random input with
non-zero initial states; outputs and final states must agree within 1e-5. Mutations (a gate
order left alone, a transpose left out) must make them disagree, so the comparison can fail.
"""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

import pytest

from paramcount.engine import conventions
from paramcount.engine.spec import Cell, Framework, LayerSpec
from paramcount.porting import layouts
from paramcount.porting.execute import evaluate
from paramcount.porting.layouts import Side
from paramcount.porting.plan import PortRefused, TargetOptions, plan, target_side
from paramcount.porting.verify import Comparison, compare
from tests.conftest import have
from tests.port_cases import RUNNABLE, random_arrays, random_side

np = pytest.importorskip("numpy")

NEEDS = {
    Framework.TORCH: ("torch",),
    Framework.KERAS: ("keras", "tensorflow"),
    Framework.ONNX: ("onnx",),
    Framework.FLAX_LINEN: ("jax", "flax"),
    Framework.FLAX_NNX: ("jax", "flax"),
}


def ported(source: Side, target_fw: Framework, seed: int,
           options: dict[str, Any] | None = None) -> Comparison | None:
    """Port random weights of ``source`` to ``target_fw`` and run both; None when refused."""
    try:
        target = target_side(source, TargetOptions(target_fw, **(options or {})))
    except PortRefused:
        return None
    arrays = random_arrays(source, seed)
    module = plan(source, target)
    made = {row.name: evaluate(row.expr, arrays.__getitem__, np.float32)
            for row in module.rows}
    plain = {t.name: arrays[source.name(t)] for t in conventions.tensors(source.spec)}
    return compare(source, plain, target, made, seed)


def available(*frameworks: Framework) -> bool:
    """Whether every framework's packages are installed."""
    return all(have(m) for f in frameworks for m in NEEDS[f])


PAIRS = [(a, b) for a in RUNNABLE for b in RUNNABLE if a is not b]


def cells_for(position: int) -> tuple[Cell, Cell]:
    """LSTM for every pair, and GRU or RNN by turns (both framework runs cost seconds)."""
    return (Cell.LSTM, Cell.GRU if position % 2 == 0 else Cell.RNN)


@pytest.mark.parametrize(("position", "source_fw", "target_fw"),
                         [(k, a, b) for k, (a, b) in enumerate(PAIRS)],
                         ids=[f"{a.value}-to-{b.value}" for a, b in PAIRS])
def test_ported_layers_compute_the_same(position: int, source_fw: Framework,
                                        target_fw: Framework) -> None:
    """Random stacks (layers, directions, biases, cells) ported between two frameworks compute
    the same as the source."""
    if not available(source_fw, target_fw):
        pytest.skip("needs " + ", ".join(NEEDS[source_fw] + NEEDS[target_fw]))
    for cell in cells_for(position):
        rng = random.Random(f"{source_fw}-{target_fw}-{cell}")
        for attempt in range(8):
            source = random_side(rng, source_fw, cell, max_size=4, max_layers=2)
            comparison = ported(source, target_fw, seed=attempt)
            if comparison is not None:
                assert comparison.ok, (source.spec, comparison)
                break
        else:
            raise AssertionError(f"no {cell} port from {source_fw} to {target_fw} was exact")


@pytest.mark.parametrize(
    ("spec", "target"),
    [
        (LayerSpec(Cell.GRU, 4, 3, num_layers=2, bidirectional=True, bias=False),
         Framework.KERAS),
        (LayerSpec(Cell.GRU, 4, 3, num_layers=3), Framework.ONNX),
        (LayerSpec(Cell.RNN, 2, 3, num_layers=2, bidirectional=True, nonlinearity="relu"),
         Framework.ONNX),
        (LayerSpec(Cell.LSTM, 3, 4, single_cell=True), Framework.KERAS),
        (LayerSpec(Cell.GRU, 3, 4, single_cell=True), Framework.FLAX_LINEN),
    ],
    ids=["gru-no-bias-keras", "gru-3-layers-onnx",
         "relu-rnn-onnx", "lstm-cell-keras", "gru-cell-flax"],
)
def test_chosen_configurations(spec: LayerSpec, target: Framework) -> None:
    """Missing biases, deep stacks, relu and single cells port exactly from torch."""
    if not available(Framework.TORCH, target):
        pytest.skip("needs the frameworks")
    comparison = ported(Side(spec), target, seed=1)
    assert comparison is not None and comparison.ok, comparison


@pytest.mark.parametrize(
    ("reset_after", "target", "options"),
    [(False, Framework.ONNX, {"linear_before_reset": False}),
     (True, Framework.ONNX, {"linear_before_reset": True}),
     (True, Framework.TORCH, {})],
    ids=["reset-before-to-onnx-lbr0", "reset-after-to-onnx-lbr1", "reset-after-to-torch"],
)
def test_keras_gru_variants(reset_after: bool, target: Framework,
                            options: dict[str, Any]) -> None:
    """Keras GRU with and without reset_after ports to the ONNX GRU that computes the same."""
    if not available(Framework.KERAS, target):
        pytest.skip("needs keras and the target")
    spec = LayerSpec(Cell.GRU, 3, 4, num_layers=2, bidirectional=True,
                     framework=Framework.KERAS, reset_after=reset_after)
    comparison = ported(Side(spec, reset_after=reset_after), target, seed=2, options=options)
    assert comparison is not None and comparison.ok, comparison


def test_a_wrong_gate_order_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """With ONNX's LSTM gate order taken for torch's, the two layers disagree."""
    if not available(Framework.TORCH, Framework.ONNX):
        pytest.skip("needs torch and onnx")
    source = Side(LayerSpec(Cell.LSTM, 3, 4, bidirectional=True))
    good = ported(source, Framework.ONNX, seed=3)
    assert good is not None and good.ok
    monkeypatch.setitem(layouts._ONNX, Cell.LSTM, layouts.CANONICAL[Cell.LSTM])
    bad = ported(source, Framework.ONNX, seed=3)
    assert bad is not None and bad.largest > 1e-2


def test_a_missing_transpose_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without the transpose of square per-gate kernels, torch and Flax disagree."""
    if not available(Framework.TORCH, Framework.FLAX_LINEN):
        pytest.skip("needs torch and flax")
    source = Side(LayerSpec(Cell.LSTM, 3, 4))
    good = ported(source, Framework.FLAX_LINEN, seed=4)
    assert good is not None and good.ok
    real = layouts.transpose

    def square_left_alone(arg: Any) -> Any:
        shape = arg.shape
        return arg if len(shape) == 2 and shape[0] == shape[1] else real(arg)

    monkeypatch.setattr(layouts, "transpose", square_left_alone)
    bad = ported(source, Framework.FLAX_LINEN, seed=4)
    assert bad is not None and bad.largest > 1e-2


def test_a_dropped_recurrent_bias_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """Non-zero biases matter: dropping torch's bias_hh from the Keras bias is caught."""
    if not available(Framework.TORCH, Framework.KERAS):
        pytest.skip("needs torch and keras")
    source = Side(LayerSpec(Cell.LSTM, 3, 4))
    monkeypatch.setattr(layouts, "_summed", lambda c: c.bx)
    bad = ported(source, Framework.KERAS, seed=5)
    assert bad is not None and bad.largest > 1e-2


def tf1_reference(side: Side, arrays: dict[str, Any], given: Any) -> tuple[Any, Any, Any]:
    """TF 1.15's LSTMCell.call and GRUCell.call, transcribed in numpy, run by dynamic_rnn.

    TensorFlow 1 does not install next to TensorFlow 2, so this stands in for the real cell:
    it follows rnn_cell_impl.py line by line (kernel on [inputs, state], i, j, f, o split,
    forget_bias added to f, peepholes w_*_diag, projection after the output gate; GRU gates r, u
    and a candidate on [inputs, r * state]).
    """
    spec = side.spec
    scope = "rnn/lstm_cell/" if spec.cell is Cell.LSTM else "rnn/gru_cell/"

    def sigmoid(v: Any) -> Any:
        return 1 / (1 + np.exp(-v))

    outputs = []
    if spec.cell is Cell.LSTM:
        c, m = given.c0[0], given.h0[0]
        for t in range(given.x.shape[1]):
            matrix = np.concatenate([given.x[:, t], m], 1) @ arrays[scope + "kernel"] + \
                arrays[scope + "bias"]
            i, j, f, o = np.split(matrix, 4, axis=1)
            if spec.peepholes:
                c = sigmoid(f + side.forget_bias + arrays[scope + "w_f_diag"] * c) * c + \
                    sigmoid(i + arrays[scope + "w_i_diag"] * c) * np.tanh(j)
                m = sigmoid(o + arrays[scope + "w_o_diag"] * c) * np.tanh(c)
            else:
                c = sigmoid(f + side.forget_bias) * c + sigmoid(i) * np.tanh(j)
                m = sigmoid(o) * np.tanh(c)
            if spec.proj_size:
                m = m @ arrays[scope + "projection/kernel"]
            outputs.append(m)
        return np.stack(outputs, 1), m[None], c[None]
    h = given.h0[0]
    for t in range(given.x.shape[1]):
        value = sigmoid(np.concatenate([given.x[:, t], h], 1) @ arrays[scope + "gates/kernel"]
                        + arrays[scope + "gates/bias"])
        r, u = np.split(value, 2, axis=1)
        candidate = np.tanh(np.concatenate([given.x[:, t], r * h], 1)
                            @ arrays[scope + "candidate/kernel"] + arrays[scope + "candidate/bias"])
        h = u * h + (1 - u) * candidate
        outputs.append(h)
    return np.stack(outputs, 1), h[None], None


@pytest.mark.parametrize(
    ("spec", "target", "options"),
    [
        (LayerSpec(Cell.LSTM, 3, 5, framework=Framework.TF1), Framework.TORCH, {}),
        (LayerSpec(Cell.LSTM, 3, 5, proj_size=2, framework=Framework.TF1), Framework.TORCH, {}),
        (LayerSpec(Cell.LSTM, 3, 4, peepholes=True, framework=Framework.TF1), Framework.ONNX,
         {}),
        (LayerSpec(Cell.GRU, 3, 4, framework=Framework.TF1), Framework.ONNX,
         {"linear_before_reset": False}),
    ],
    ids=["lstm-to-torch", "projected-lstm-to-torch", "peepholes-to-onnx",
         "gru-to-onnx-linear-before-reset-0"],
)
def test_tf1_ports_match_tf1s_own_equations(spec: LayerSpec, target: Framework,
                                            options: dict[str, Any]) -> None:
    """TF1 cells (forget_bias 0.7, i,j,f,o gates, peepholes, projection) port exactly to
    layers that run, judged against TF1's equations."""
    if not available(target):
        pytest.skip("needs the target framework")
    from paramcount.porting.verify import inputs, run

    source = Side(spec, reset_after=False, forget_bias=0.7)
    arrays = random_arrays(source, 6)
    goal = target_side(source, TargetOptions(target, forget_bias=0.7, **options))
    made = {row.name: evaluate(row.expr, arrays.__getitem__, np.float32)
            for row in plan(source, goal).rows}
    given = inputs(source, seed=6)
    y, h, c = tf1_reference(source, arrays, given)
    ran = run(goal, made, given)
    assert np.max(np.abs(ran.output - y)) < 1e-5
    assert np.max(np.abs(ran.h - h)) < 1e-5
    if c is not None:
        assert np.max(np.abs(ran.c - c)) < 1e-5
    if spec.cell is Cell.LSTM:  # forgetting forget_bias is caught by the same comparison
        unfolded = Side(spec, reset_after=False, forget_bias=0.0)
        wrong = {row.name: evaluate(row.expr, arrays.__getitem__, np.float32)
                 for row in plan(unfolded, replace(goal, forget_bias=0.0)).rows}
        assert np.max(np.abs(run(goal, wrong, given).output - y)) > 1e-3
