"""What every convention's recogniser shares: reading gates from shapes, and the exact check.

A recogniser proposes a spec from a few tensors (hidden size from the recurrent weight, the cell
from gate rows ÷ hidden, the input width from the first input weight), then accepts it only if
the convention, asked for that spec's tensors, writes exactly the tensors it found: same names
under the prefix, same shapes, nothing missing and nothing extra. So whatever a recogniser
claims is the inverse of ``tensors(spec)`` by construction, and a group that is almost but not
quite a layer (a missing bias, a layer with another width) is left unrecognised rather than
guessed at.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from paramcount.engine.conventions.base import Tensor
from paramcount.engine.spec import Cell, LayerSpec
from paramcount.errors import SpecError

Shapes = Mapping[str, tuple[int, ...]]
"""Tensor name -> shape, in the source's order."""

GATES = {1: Cell.RNN, 3: Cell.GRU, 4: Cell.LSTM}
"""The cell whose weights stack this many gate blocks of H rows."""

RNN_NONLINEARITY = (
    "a plain RNN's nonlinearity (tanh or relu) is not stored in its weights; the count is the "
    "same either way"
)


def cell_from_rows(gate_rows: int, hidden: int) -> Cell | None:
    """The cell whose G·H rows are ``gate_rows`` for hidden size ``hidden``, if there is one."""
    if hidden <= 0 or gate_rows <= 0 or gate_rows % hidden:
        return None
    return GATES.get(gate_rows // hidden)


def build(**fields: object) -> LayerSpec | None:
    """A LayerSpec from ``fields``, or None if the framework would refuse that configuration."""
    try:
        return LayerSpec(**fields)  # type: ignore[arg-type]
    except (SpecError, TypeError):
        return None


def matches(
    found: Shapes,
    prefix: str,
    written: Iterable[Tensor],
    rename: Callable[[str], str] = lambda name: name,
) -> bool:
    """Whether ``found`` holds exactly the ``written`` tensors under ``prefix``.

    ``rename`` maps a convention's name to the part after the prefix (Flax linen drops its
    ``params/`` root, which belongs to the prefix).
    """
    expected = {prefix + rename(t.name): t.shape for t in written}
    return len(expected) == len(found) and all(
        found.get(name) == shape for name, shape in expected.items()
    )


def in_order(names: Iterable[str], index: Mapping[str, int]) -> tuple[str, ...]:
    """``names`` in the source's order."""
    return tuple(sorted(names, key=index.__getitem__))


def index_of(shapes: Shapes) -> dict[str, int]:
    """Each name's position in the source."""
    return {name: i for i, name in enumerate(shapes)}


def is_shape(shape: object, rank: int) -> bool:
    """Whether ``shape`` is a tuple of ``rank`` positive ints."""
    return (
        isinstance(shape, tuple)
        and len(shape) == rank
        and all(isinstance(n, int) and not isinstance(n, bool) and n > 0 for n in shape)
    )
