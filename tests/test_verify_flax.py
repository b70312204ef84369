"""The Flax conventions against real linen and NNX modules, built without memory."""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, given, settings

from paramcount.engine import conventions
from paramcount.engine.spec import Cell, Framework, LayerSpec
from tests.strategies_more import more_specs

pytest.importorskip("flax")
pytestmark = pytest.mark.flax

from paramcount.verify import flax_backend as verify_flax  # noqa: E402

FLAX = (Framework.FLAX_LINEN, Framework.FLAX_NNX)


def engine(spec: LayerSpec) -> list[tuple[str, tuple[int, ...]]]:
    """paramcount's tensors of ``spec``, in the parameter tree's sorted order."""
    return sorted((t.name, t.shape) for t in conventions.tensors(spec))


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(more_specs(frameworks=FLAX, max_size=16))
def test_parameter_tree_matches_the_engine(spec: LayerSpec) -> None:
    """Every path and shape of the real parameter tree is the engine's, and nothing else."""
    assert sorted(verify_flax.real_tensors(spec)) == engine(spec)


@pytest.mark.parametrize("framework", FLAX, ids=[f.value for f in FLAX])
def test_gru_cells_differ_by_h(framework: Framework) -> None:
    """linen's GRUCell keeps a bias on hn, NNX's does not: the totals differ by exactly H."""
    spec = LayerSpec(Cell.GRU, 13, 20, framework=framework)
    real = sum(math.prod(shape) for _, shape in verify_flax.real_tensors(spec))
    assert real == (2_060 if framework is Framework.FLAX_LINEN else 2_040)


def test_a_billion_parameters_cost_no_memory() -> None:
    """eval_shape initialises a 9-billion-parameter stack without allocating it."""
    spec = LayerSpec(Cell.LSTM, 4096, 16384, num_layers=2, bidirectional=True,
                     framework=Framework.FLAX_LINEN)
    real = sum(math.prod(shape) for _, shape in verify_flax.real_tensors(spec))
    assert real == sum(t.count for t in conventions.tensors(spec)) == 9_127_067_648


@pytest.mark.parametrize("framework", FLAX, ids=[f.value for f in FLAX])
@pytest.mark.parametrize(("layers", "bidirectional"), [(1, False), (2, True)], ids=["one", "bi-2"])
def test_optimized_lstm_cell_counts_the_same(
    framework: Framework, layers: int, bidirectional: bool
) -> None:
    """OptimizedLSTMCell holds exactly the parameters of LSTMCell (NNX fuses their names)."""
    spec = LayerSpec(Cell.LSTM, 6, 9, num_layers=layers, bidirectional=bidirectional,
                     framework=framework)
    build = (verify_flax.linen_tensors if framework is Framework.FLAX_LINEN
             else verify_flax.nnx_tensors)
    optimized = build(spec, optimized=True)
    assert sum(math.prod(s) for _, s in optimized) == sum(t.count for t in
                                                          conventions.tensors(spec))
    if framework is Framework.FLAX_LINEN:
        assert sorted(optimized) == engine(spec)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(more_specs(frameworks=FLAX, max_size=8, max_layers=12))
def test_verify_backend_lists_the_tree_in_flow_order(spec: LayerSpec) -> None:
    """``--verify -f flax-*`` matches position by position: layers numerically, forward first."""
    from paramcount.verify import verify

    assert verify(spec).match
