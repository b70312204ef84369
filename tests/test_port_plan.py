"""The port plan without any framework: shapes, refusals, and bit-exact round trips (numpy)."""

from __future__ import annotations

import random
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from paramcount.engine import conventions
from paramcount.engine.spec import Cell, Framework, LayerSpec
from paramcount.porting import expr
from paramcount.porting.execute import evaluate
from paramcount.porting.layouts import Side
from paramcount.porting.plan import PortRefused, TargetOptions, plan, target_side
from tests.port_cases import options_for, random_arrays, random_side

np = pytest.importorskip("numpy")

FRAMEWORKS = list(Framework)


def port_arrays(source: Side, target: Side, arrays: dict[str, object]) -> dict[str, object]:
    """Every target tensor of the plan, evaluated with numpy."""
    module = plan(source, target)
    return {row.name: evaluate(row.expr, arrays.__getitem__, np.float32)
            for row in module.rows}


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**32), st.sampled_from(FRAMEWORKS), st.sampled_from(FRAMEWORKS))
def test_every_port_is_planned_or_refused(seed: int, source_fw: Framework,
                                          target_fw: Framework) -> None:
    """A plan names the target convention's tensors in order, at their shapes, from sources."""
    source = random_side(random.Random(seed), source_fw)
    try:
        target = target_side(source, TargetOptions(target_fw))
    except PortRefused as error:
        assert "exact targets: --to" in str(error) or "no target is exact" in str(error)
        return
    module = plan(source, target)
    expected = [(t.name, t.shape) for t in conventions.tensors(target.spec)]
    assert [(r.name, r.shape) for r in module.rows] == expected
    read = {name for row in module.rows for name in row.sources}
    assert read == {source.name(t) for t in conventions.tensors(source.spec)}
    made = port_arrays(source, target, random_arrays(source, seed))
    assert all(made[name].shape == shape for name, shape in expected)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**32), st.sampled_from(FRAMEWORKS), st.sampled_from(FRAMEWORKS))
def test_round_trip_returns_the_source_bit_for_bit(seed: int, source_fw: Framework,
                                                   target_fw: Framework) -> None:
    """A -> B -> A gives back every tensor of A exactly, where A -> B only moves values."""
    source = random_side(random.Random(seed), source_fw)
    try:
        target = target_side(source, TargetOptions(target_fw))
    except PortRefused:
        return
    forward = plan(source, target)
    if not all(row.exact for row in forward.rows) or not source.spec.bias:
        return
    arrays = random_arrays(source, seed)
    middle = port_arrays(source, target, arrays)
    if source_fw is Framework.FLAX_NNX and source.spec.cell is Cell.GRU:
        # nnx.GRUCell lacks the recurrent n-gate bias every other GRU has: ports into it
        # are refused even when that bias happens to be zero.
        with pytest.raises(PortRefused):
            target_side(target, options_for(source))
        return
    back = target_side(target, options_for(source))
    assert back.spec == source.spec
    returned = port_arrays(target, back, middle)
    assert returned.keys() == arrays.keys()
    for name, array in arrays.items():
        assert returned[name].dtype == array.dtype
        assert np.array_equal(returned[name], array), name


def test_a_bias_sum_is_the_only_inexact_step_from_torch_to_keras() -> None:
    """torch -> Keras LSTM transposes the kernels and sums the two biases, nothing else."""
    source = Side(LayerSpec(Cell.LSTM, 3, 4))
    module = plan(source, target_side(source, TargetOptions(Framework.KERAS)))
    steps = {row.name: (row.sources, row.steps) for row in module.rows}
    assert steps == {
        "lstm/lstm_cell/kernel": (["weight_ih_l0"], ["transpose"]),
        "lstm/lstm_cell/recurrent_kernel": (["weight_hh_l0"], ["transpose"]),
        "lstm/lstm_cell/bias": (["bias_ih_l0", "bias_hh_l0"], ["sum"]),
    }


@pytest.mark.parametrize(
    ("target", "order"),
    [(Framework.ONNX, "gates r,z,n → z,r,h"), (Framework.KERAS, "gates r,z,n → z,r,h")],
    ids=["onnx", "keras"],
)
def test_gru_gates_are_reordered(target: Framework, order: str) -> None:
    """torch's r,z,n rows become z,r,h in ONNX and Keras."""
    source = Side(LayerSpec(Cell.GRU, 3, 4))
    module = plan(source, target_side(source, TargetOptions(target)))
    assert all(order in row.steps for row in module.rows)


def test_tf1_forget_bias_is_folded_into_the_forget_gate() -> None:
    """TF1's forget_bias, added at run time, becomes part of torch's forget-gate bias."""
    source = Side(LayerSpec(Cell.LSTM, 2, 3, framework=Framework.TF1), forget_bias=1.0)
    module = plan(source, target_side(source, TargetOptions(Framework.TORCH)))
    arrays = {"rnn/lstm_cell/kernel": np.zeros((5, 12), np.float32),
              "rnn/lstm_cell/bias": np.arange(12, dtype=np.float32)}
    bias = {r.name: evaluate(r.expr, arrays.__getitem__, np.float32) for r in module.rows}
    # TF1 i,j,f,o blocks: i 0..2, j 3..5, f 6..8, o 9..11 -> torch i,f,g,o with f + 1.
    assert bias["bias_ih_l0"].tolist() == [0, 1, 2, 7, 8, 9, 3, 4, 5, 9, 10, 11]
    assert bias["bias_hh_l0"].tolist() == [0] * 12


REFUSALS = [
    ("torch-gru-to-keras-reset-before", Side(LayerSpec(Cell.GRU, 3, 4)),
     TargetOptions(Framework.KERAS, reset_after=False),
     "reset gate after the recurrent matmul, and Keras GRU(reset_after=False) applies it "
     "before", "--to keras --reset-after"),
    ("torch-gru-to-onnx-linear-before-reset-0", Side(LayerSpec(Cell.GRU, 3, 4)),
     TargetOptions(Framework.ONNX, linear_before_reset=False),
     "ONNX GRU(linear_before_reset=0)", "--to onnx --linear-before-reset"),
    ("keras-reset-before-to-torch",
     Side(LayerSpec(Cell.GRU, 3, 4, framework=Framework.KERAS, reset_after=False),
          reset_after=False),
     TargetOptions(Framework.TORCH), "nn.GRU applies it after",
     "--to onnx --no-linear-before-reset, --to tf1"),
    ("projection-to-keras", Side(LayerSpec(Cell.LSTM, 3, 4, proj_size=2)),
     TargetOptions(Framework.KERAS), "a projected LSTM (proj_size 2) has no counterpart in "
     "Keras", "--to tf1"),
    ("projection-to-onnx", Side(LayerSpec(Cell.LSTM, 3, 4, proj_size=2)),
     TargetOptions(Framework.ONNX), "has no counterpart in ONNX", "--to tf1"),
    ("peepholes-to-torch",
     Side(LayerSpec(Cell.LSTM, 3, 4, framework=Framework.ONNX, peepholes=True)),
     TargetOptions(Framework.TORCH), "PyTorch LSTMs have no peepholes", "--to tf1"),
    ("hard-sigmoid-to-torch",
     Side(LayerSpec(Cell.LSTM, 3, 4, framework=Framework.KERAS),
          recurrent_activation="hard_sigmoid"),
     TargetOptions(Framework.TORCH), "recurrent_activation='hard_sigmoid'", "no target is exact"),
    ("relu-rnn-as-tanh",
     Side(LayerSpec(Cell.RNN, 3, 4, framework=Framework.ONNX, nonlinearity="relu")),
     TargetOptions(Framework.TORCH, nonlinearity="tanh"),  # type: ignore[arg-type]
     "uses relu, not --nonlinearity tanh", "--to keras"),
    ("torch-gru-to-nnx", Side(LayerSpec(Cell.GRU, 3, 4)), TargetOptions(Framework.FLAX_NNX),
     "nnx.GRUCell has no bias on the recurrent part of its n gate", "--to flax-linen"),
    ("sum-merge-between-layers",
     Side(LayerSpec(Cell.LSTM, 3, 4, num_layers=2, bidirectional=True,
                    framework=Framework.KERAS, merge_modes=("sum", "concat"))),
     TargetOptions(Framework.TORCH), "merges them with 'sum,concat'",
     "exact targets: --to tf1-cudnn"),
    ("torch-proj-not-below-hidden",
     Side(LayerSpec(Cell.LSTM, 3, 4, proj_size=5, framework=Framework.TF1)),
     TargetOptions(Framework.TORCH), "must be smaller than", "no target is exact"),
]


@pytest.mark.parametrize(("source", "options", "reason", "exact"),
                         [case[1:] for case in REFUSALS], ids=[case[0] for case in REFUSALS])
def test_refused_ports_say_why_and_name_exact_targets(
    source: Side, options: TargetOptions, reason: str, exact: str
) -> None:
    """What no weights can make equal is refused, with the reason and the exact targets."""
    with pytest.raises(PortRefused) as caught:
        target_side(source, options)
    message = str(caught.value)
    assert reason in message
    assert exact in message
    assert "\n" not in message


def test_exact_targets_are_tried_not_guessed() -> None:
    """Every target named as exact is accepted when asked for."""
    source = Side(LayerSpec(Cell.GRU, 3, 4))
    with pytest.raises(PortRefused) as caught:
        target_side(source, TargetOptions(Framework.TF1))
    named = str(caught.value).split("exact targets: ")[1].split(", ")
    assert named == ["--to keras --reset-after", "--to onnx --linear-before-reset",
                     "--to flax-linen", "--to tf1-cudnn"]
    for words in named:
        parts = words.split()
        fw = Framework(parts[1])
        flags = {"--reset-after": {"reset_after": True},
                 "--linear-before-reset": {"linear_before_reset": True}}
        extra = flags.get(parts[2], {}) if len(parts) > 2 else {}
        target_side(source, TargetOptions(fw, **extra))  # type: ignore[arg-type]


def test_simplification_keeps_a_copy_a_copy() -> None:
    """Moving a tensor and moving it back leaves the tensor itself, with no operation."""
    w = expr.Source("w", (12, 3))
    there = expr.gates(w, ("r", "z", "n"), ("z", "r", "n"))
    assert expr.gates(there, ("z", "r", "n"), ("r", "z", "n")) == w
    assert expr.transpose(expr.transpose(w)) == w
    halves = (expr.rows(w, 0, 4, "a"), expr.rows(w, 4, 12, "b"))
    assert expr.concat(halves, "c") == w
    both = expr.stack((expr.take(expr.Source("s", (2, 5)), 0, "f"),
                       expr.take(expr.Source("s", (2, 5)), 1, "b")), "d")
    assert both == expr.Source("s", (2, 5))
    assert expr.add(w, expr.Zeros((12, 3))) == w


def test_side_prefix_applies_to_names_not_paired() -> None:
    """A side without file names names its tensors as prefix + the convention's name."""
    side = replace(Side(LayerSpec(Cell.RNN, 2, 2)), prefix="encoder.rnn.")
    names = [side.name(t) for t in conventions.tensors(side.spec)]
    assert names == ["encoder.rnn.weight_ih_l0", "encoder.rnn.weight_hh_l0",
                     "encoder.rnn.bias_ih_l0", "encoder.rnn.bias_hh_l0"]


def _loaded(code: str) -> set[str]:
    """Top-level modules loaded by ``code`` in a fresh interpreter."""
    import subprocess
    import sys

    probe = f"{code}\nimport sys\nprint(' '.join(sorted({{m.split('.')[0] for m in sys.modules}})))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True)
    return set(out.stdout.split("\n")[-2].split())


HEAVY = {"torch", "tensorflow", "keras", "jax", "flax", "onnx", "onnxruntime", "h5py"}


def test_the_plan_core_imports_no_array_library() -> None:
    """Planning (expressions, layouts, refusals) needs neither numpy nor any framework."""
    loaded = _loaded("import paramcount.porting.plan, paramcount.cli.commands.port")
    assert not loaded & {*HEAVY, "numpy", "safetensors"}


def test_planning_a_safetensors_file_imports_no_framework(tmp_path: Path) -> None:
    """Porting a .safetensors file to Keras arrays runs no framework, only numpy and
    safetensors."""
    safetensors_numpy = pytest.importorskip("safetensors.numpy")
    source = tmp_path / "gru.safetensors"
    spec = LayerSpec(Cell.GRU, 3, 4)
    safetensors_numpy.save_file(
        {t.name: np.ones(t.shape, np.float32) for t in conventions.tensors(spec)}, str(source))
    out = tmp_path / "gru.npz"
    code = ("import contextlib, io\nfrom paramcount.cli.main import run\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            f"    assert run(['port', {str(source)!r}, '--to', 'keras', '--out', "
            f"{str(out)!r}]) == 0")
    assert not _loaded(code) & HEAVY
    assert sorted(np.load(out)) == ["gru/gru_cell/bias", "gru/gru_cell/kernel",
                                    "gru/gru_cell/recurrent_kernel"]
