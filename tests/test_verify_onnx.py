"""The ONNX convention against the real onnx package and torch's ONNX exporter."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from paramcount.engine import conventions
from paramcount.engine.spec import Cell, Framework, LayerSpec
from paramcount.record import replace
from tests.conftest import CLI
from tests.strategies_more import more_specs

pytest.importorskip("onnx")
pytestmark = pytest.mark.onnx

from paramcount.verify import onnx_backend as verify_onnx  # noqa: E402


def engine(spec: LayerSpec) -> list[tuple[str, tuple[int, ...]]]:
    """paramcount's tensors of ``spec``: names and shapes, in order."""
    return [(t.name, t.shape) for t in conventions.tensors(spec)]


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(more_specs(frameworks=(Framework.ONNX,), max_size=12))
def test_graph_built_from_the_engine_checks_and_runs(spec: LayerSpec) -> None:
    """A graph whose initializers are the engine's tensors passes onnx.checker and runs."""
    assert verify_onnx.graph_tensors(spec) == engine(spec)


@pytest.mark.torch
@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(more_specs(frameworks=(Framework.ONNX,), max_size=12))
def test_torch_export_has_the_engine_shapes(spec: LayerSpec) -> None:
    """torch.onnx.export writes W, R and B initializers of exactly the engine's shapes."""
    pytest.importorskip("torch")
    spec = spec.replace(peepholes=False)
    assert verify_onnx.torch_export_tensors(spec) == engine(spec)


@pytest.mark.parametrize(
    ("cell", "wrong"),
    [(Cell.LSTM, "R"), (Cell.GRU, "W"), (Cell.RNN, "B")],
    ids=["lstm-R", "gru-W", "rnn-B"],
)
def test_a_wrong_shape_is_caught(monkeypatch: pytest.MonkeyPatch, cell: Cell, wrong: str) -> None:
    """The reference run rejects a tensor one column too wide: the check has teeth."""

    spec = LayerSpec(cell, 3, 4, num_layers=2, framework=Framework.ONNX)
    real = conventions.tensors

    def widened(s: LayerSpec) -> list[conventions.Tensor]:
        return [
            replace(t, shape=(*t.shape[:-1], t.shape[-1] + 1))
            if t.role == wrong and t.layer == 1 else t
            for t in real(s)
        ]

    monkeypatch.setattr(verify_onnx.conventions, "tensors", widened)
    with pytest.raises(Exception):  # noqa: B017 - onnx raises several error types
        verify_onnx.graph_tensors(spec)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(more_specs(frameworks=(Framework.ONNX,), max_size=8))
def test_verify_backend_matches(spec: LayerSpec) -> None:
    """``--verify -f onnx`` runs the graph and matches every initializer."""
    from paramcount.verify import verify

    assert verify(spec).match


@pytest.mark.parametrize("framework", ["tf1", "tf1-cudnn"])
def test_tf1_cannot_be_verified_exit_3(cli: CLI, framework: str) -> None:
    """The legacy conventions have no backend: --verify says why, in one line, exit 3."""
    result = cli("lstm", "-i", "3", "-H", "4", "-f", framework, "--verify")
    assert result.code == 3 and result.err.count("\n") == 1
    assert "cannot be verified here: TensorFlow 1's layers do not install" in result.err


def _drop_b(tensors: list[Any]) -> list[Any]:
    return [t for t in tensors if t.role != "B"]


def _rename_w(tensors: list[Any]) -> list[Any]:
    return [replace(t, name=t.name.replace("/W", "/X")) for t in tensors]


def _swap_first_two(tensors: list[Any]) -> list[Any]:
    return [tensors[1], tensors[0], *tensors[2:]]


@pytest.mark.parametrize(
    ("mutate", "args"),
    [
        (_drop_b, []),
        (_rename_w, []),
        (_swap_first_two, []),
        (_drop_b, ["--peepholes"]),
    ],
    ids=["dropped-bias", "renamed-weight", "swapped-order", "dropped-bias-peepholes"],
)
def test_verify_catches_a_wrong_engine(
    cli: CLI, monkeypatch: pytest.MonkeyPatch, mutate: Any, args: list[str]
) -> None:
    """ONNX --verify fails (exit 1) when the engine drops, renames or reorders a tensor."""
    from paramcount.engine.conventions import onnx as onnx_convention

    if "--peepholes" not in args:
        pytest.importorskip("torch")
    original = onnx_convention.tensors
    monkeypatch.setattr(onnx_convention, "tensors", lambda spec: mutate(original(spec)))
    result = cli("lstm", "-i", "6", "-H", "5", "-L", "2", "--bidir", "-f", "onnx", "--verify",
                 *args)
    assert result.code == 1, result.out + result.err


def test_verify_refuses_stacks_too_large_to_build(cli: CLI) -> None:
    """ONNX verification holds real arrays, so a huge stack is refused in one line (exit 2)."""
    result = cli("lstm", "-i", "8192", "-H", "16384", "-L", "8", "--bidir", "-f", "onnx",
                 "--verify")
    assert result.code == 2
    assert "verifying ONNX builds real weights" in result.err and result.err.count("\n") == 1
