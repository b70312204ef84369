"""Real runs: ``shapes --verify`` checks every claim and ``trace`` rebuilds stacks, torch and Keras.

Sizes are tiny: the computation flow does not depend on them.
"""

from __future__ import annotations

import dataclasses
import subprocess
import sys

import pytest

from paramcount.analysis.flow import keras_flow, torch_flow
from paramcount.engine.spec import Cell, LayerSpec
from tests.conftest import CLI

Q4 = ["rnn", "-i", "25", "-H", "50", "-L", "4", "--bidir"]

TORCH_CONFIGS = [
    ("q4-rnn", Q4),
    ("q4-rnn-batch-first", [*Q4, "--batch-first"]),
    ("lstm-proj-bidir", ["lstm", "-i", "6", "-H", "8", "-L", "3", "--bidir", "--proj", "3",
                         "--batch-first"]),
    ("gru-uni", ["gru", "-i", "5", "-H", "7", "-L", "2"]),
    ("rnn-relu-nobias", ["rnn", "-i", "4", "-H", "6", "-L", "2", "--bidir", "--no-bias",
                         "--nonlinearity", "relu"]),
    ("lstm-one-step", ["lstm", "-i", "4", "-H", "5", "--bidir", "--seq-len", "1"]),
]


@pytest.mark.torch
@pytest.mark.parametrize("args", [c[1] for c in TORCH_CONFIGS], ids=[c[0] for c in TORCH_CONFIGS])
def test_torch_shapes_verify(cli: CLI, args: list[str]) -> None:
    """Every claim shapes prints holds in a real torch forward pass."""
    pytest.importorskip("torch")
    result = cli("shapes", *args, "--verify")
    assert result.code == 0, result.out + result.err
    assert "✗" not in result.out
    assert "all hold" in result.out.splitlines()[1]


@pytest.mark.torch
def test_torch_verify_counts_every_claim(cli: CLI) -> None:
    """For question 4: 3 shapes, 8 final states, 8 h_0 entries and 2 slices are checked."""
    pytest.importorskip("torch")
    result = cli("shapes", *Q4, "--batch", "3", "--seq-len", "7", "--verify")
    assert result.out.splitlines()[1] == (
        "21 claims checked with a real PyTorch forward pass: all hold"
    )
    assert result.out.count("✓") == 21


@pytest.mark.torch
def test_torch_verify_catches_a_wrong_claim() -> None:
    """A wrong claim (slices swapped to h_n[-1] and h_n[-2]) is marked failed."""
    pytest.importorskip("torch")
    from paramcount.verify import torch_run

    flow = torch_flow(LayerSpec(Cell.RNN, 5, 6, 2, True), 2, 4)
    wrong = dataclasses.replace(flow, slices=tuple(
        dataclasses.replace(c, index=-1 - (c.index == -1)) for c in flow.slices
    ))
    checks = torch_run.verify_flow(wrong)
    assert not checks["slice:0"].ok and not checks["slice:1"].ok
    assert all(c.ok for k, c in checks.items() if not k.startswith("slice"))


@pytest.mark.torch
def test_shapes_verify_exit_1_on_a_failed_claim(cli: CLI, monkeypatch: pytest.MonkeyPatch) -> None:
    """shapes --verify exits 1 when a printed claim does not hold."""
    pytest.importorskip("torch")
    import paramcount.cli.commands.shapes as shapes_module

    real = shapes_module.make_flow

    def wrong_flow(*args: object) -> object:
        flow = real(*args)  # type: ignore[arg-type]
        shapes = tuple(dataclasses.replace(s, shape=(9, 9, 9)) if s.name == "h_n" else s
                       for s in flow.shapes)
        return dataclasses.replace(flow, shapes=shapes)

    monkeypatch.setattr(shapes_module, "make_flow", wrong_flow)
    result = cli("shapes", "gru", "-i", "3", "-H", "4", "--verify")
    assert result.code == 1
    assert "✗ torch: (1, 3, 4)" in result.out
    assert "1 FAILED" in result.out


@pytest.mark.torch
def test_question_4_trace(cli: CLI) -> None:
    """Question 4: nn.RNN(25, 50, 4) bidirectional rebuilt from 8 RNNs matches layer by layer."""
    pytest.importorskip("torch")
    from paramcount.verify import torch_run

    spec = LayerSpec(Cell.RNN, 25, 50, 4, True)
    trace = torch_run.trace(spec, 3, 5)
    assert trace.ok
    assert [(r.layer, r.direction) for r in trace.rows] == [
        (layer, d) for layer in range(4) for d in ("forward", "backward")
    ]
    assert max(max(r.state_diff, r.output_diff or 0) for r in trace.rows) < 1e-5
    result = cli("trace", *Q4)
    assert result.code == 0
    out = " ".join(result.out.split())
    assert "rebuilt from 8 unidirectional single-layer modules" in out
    assert "the backward direction reads the forward outputs too" in out
    assert "initial state (h_0[2l+1]) is applied at the last time step, t = T−1" in out


@pytest.mark.torch
def test_question_4_mistake_diverges_at_layer_1() -> None:
    """Without flipping back, layer 0's states still match and layer 1's do not."""
    pytest.importorskip("torch")
    from paramcount.verify import torch_run

    trace = torch_run.trace(LayerSpec(Cell.RNN, 25, 50, 4, True), 3, 5, mistake=True)
    states = {(r.layer, r.direction): r.state_diff <= r.tolerance for r in trace.rows}
    assert states[(0, "forward")] and states[(0, "backward")]
    assert not states[(1, "forward")]
    first = trace.first_divergence
    assert first is not None and (first.layer, first.direction) == (0, "backward")
    assert first.state_diff == 0 or first.state_diff <= first.tolerance
    assert any("counting from 1: layer 1 matches, layer 2 does not" in n for n in trace.notes)
    assert any("reversed in time" in n for n in trace.notes)


TRACE_CONFIGS = [
    ("lstm-proj", ["lstm", "-i", "6", "-H", "8", "-L", "3", "--bidir", "--proj", "3"]),
    ("gru", ["gru", "-i", "5", "-H", "7", "-L", "2", "--bidir", "--seed", "3"]),
    ("uni", ["lstm", "-i", "5", "-H", "7", "-L", "3"]),
    ("nobias-relu", ["rnn", "-i", "4", "-H", "6", "-L", "3", "--bidir", "--no-bias",
                     "--nonlinearity", "relu", "-T", "9", "-N", "1"]),
]


@pytest.mark.torch
@pytest.mark.parametrize("args", [c[1] for c in TRACE_CONFIGS], ids=[c[0] for c in TRACE_CONFIGS])
def test_torch_trace_matches(cli: CLI, args: list[str]) -> None:
    """The rebuild matches the real stack for every cell, projection, bias and direction."""
    pytest.importorskip("torch")
    result = cli("trace", *args, "--show-mistake")
    assert result.code == 0, result.out + result.err
    rebuilt = result.out.split("The common mistake")[0]
    assert "✗" not in rebuilt and "✓" in rebuilt


@pytest.mark.torch
def test_trace_exits_1_when_the_rebuild_does_not_match(
    cli: CLI, monkeypatch: pytest.MonkeyPatch
) -> None:
    """trace exits 1 and says so when the rebuild does not match."""
    pytest.importorskip("torch")
    from paramcount.verify import torch_run

    real = torch_run.trace
    monkeypatch.setattr(torch_run, "trace",
                        lambda *a, **k: real(*a, **{**k, "mistake": True}))
    result = cli("trace", "rnn", "-i", "3", "-H", "4", "-L", "2", "--bidir")
    assert result.code == 1
    assert "DOES NOT match" in result.out


@pytest.mark.torch
def test_huge_config_is_refused(cli: CLI) -> None:
    """A configuration too large to run for real is refused with exit 2, before allocating."""
    result = cli("trace", "lstm", "-i", "4096", "-H", "4096", "-L", "8", "--bidir")
    assert result.code == 2
    assert "too large to run for real" in result.err
    result = cli("shapes", "lstm", "-i", "4", "-H", "4", "--verify", "-N", "100000",
                 "-T", "100000")
    assert result.code == 2


def test_missing_torch_is_exit_3(cli: CLI, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without torch, trace and shapes --verify exit 3 with the pip command."""
    monkeypatch.setitem(sys.modules, "torch", None)
    for args in (["trace", "rnn", "-i", "3", "-H", "4"],
                 ["shapes", "rnn", "-i", "3", "-H", "4", "--verify"]):
        result = cli(*args)
        assert result.code == 3
        assert "pip install 'paramcount[torch]'" in result.err


def test_missing_keras_is_exit_3(cli: CLI, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without keras, the Keras trace exits 3 with the pip command."""
    monkeypatch.setitem(sys.modules, "keras", None)
    result = cli("trace", "lstm", "-i", "3", "-H", "4", "-f", "keras")
    assert result.code == 3
    assert "pip install 'paramcount[keras]'" in result.err


@pytest.mark.parametrize(
    "args",
    [
        ["explain", "lstm", "-i", "32", "-H", "128", "-L", "2", "--bidir"],
        ["compare", "lstm -i 28 -H 256 -f keras", "lstm -i 28 -H 128 --bidir -f keras"],
        ["shapes", "rnn", "-i", "25", "-H", "50", "-L", "4", "--bidir"],
    ],
    ids=["explain", "compare", "shapes"],
)
def test_formula_commands_import_no_framework(args: list[str]) -> None:
    """explain, compare and shapes without --verify import no framework and no matplotlib."""
    code = (
        "import contextlib, io, sys\nfrom paramcount.cli.main import run\n"
        f"with contextlib.redirect_stdout(io.StringIO()): assert run({args!r}) == 0\n"
        "print(' '.join(sorted({m.split('.')[0] for m in sys.modules})))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    loaded = set(out.stdout.split())
    assert not loaded & {"torch", "tensorflow", "keras", "jax", "matplotlib", "rich"}


KERAS_CONFIGS = [
    ("concat-2", ["lstm", "-i", "5", "-H", "4", "-L", "2", "--bidir"]),
    ("mixed-merge", ["gru", "-i", "5", "-H", "4", "-L", "3", "--bidir",
                     "--merge-mode", "concat,ave,none"]),
    ("uni-relu", ["rnn", "-i", "5", "-H", "4", "-L", "2", "--nonlinearity", "relu"]),
]


@pytest.mark.keras
@pytest.mark.parametrize("args", [c[1] for c in KERAS_CONFIGS], ids=[c[0] for c in KERAS_CONFIGS])
def test_keras_shapes_verify_and_trace(cli: CLI, args: list[str]) -> None:
    """Keras: every shapes claim holds; the Bidirectional rebuild matches; the mistake diverges."""
    pytest.importorskip("keras")
    result = cli("shapes", *args, "-f", "keras", "--verify")
    assert result.code == 0, result.out + result.err
    assert "✗" not in result.out and "all hold" in result.out
    result = cli("trace", *args, "-f", "keras", "--show-mistake", "-T", "4")
    assert result.code == 0, result.out + result.err
    rebuilt, _, mistake = result.out.partition("The common mistake")
    assert "✗" not in rebuilt
    if "--bidir" in args:
        assert "✗" in mistake


@pytest.mark.keras
def test_keras_mistake_locates_layer_1() -> None:
    """Keras: without flipping the go_backwards output, layer 1 is the first state that differs."""
    pytest.importorskip("keras")
    from paramcount.verify import keras_run

    spec = LayerSpec(Cell.LSTM, 5, 4, 3, True, framework="keras")
    trace = keras_run.trace(spec, 2, 5, mistake=True)
    first_state = next(r for r in trace.rows if r.state_diff > r.tolerance)
    assert (first_state.layer, first_state.direction) == (1, "forward")
    flow = keras_flow(spec, 2, 5)
    checks = keras_run.verify_flow(flow)
    assert checks["init:2"].claim == "initial_state[2] enters layer 2 backward at t = 4"
    assert all(c.ok for c in checks.values())


@pytest.mark.keras
@pytest.mark.parametrize("mode", ["sum", "mul", "ave"])
def test_keras_state_names_are_checked_by_value(mode: str) -> None:
    """With no output slice to compare (sum/mul/ave), swapping the claimed h and c still fails."""
    pytest.importorskip("keras")
    import dataclasses

    from paramcount.analysis.flow import flow as make_flow
    from paramcount.verify import keras_run

    spec = LayerSpec(Cell.LSTM, 4, 6, num_layers=1, bidirectional=True, framework="keras",
                     merge_modes=(mode,))
    real = make_flow(spec, 3, 5)
    assert all(c.ok for c in keras_run.verify_flow(real).values())
    swap = {"forward_h": "forward_c", "forward_c": "forward_h"}
    wrong = dataclasses.replace(real, shapes=tuple(
        dataclasses.replace(s, name=swap.get(s.name, s.name)) for s in real.shapes))
    assert not all(c.ok for c in keras_run.verify_flow(wrong).values())
