"""How one target tensor is made from source tensors: a small tree of exact array operations.

Every operation here is exact in floating point except :class:`Add` (a bias sum) and
:class:`Shift` (TF1's forget_bias): transposes, slices, gate permutations, stacking and
concatenation only move values. Building a tree simplifies it as it goes (a transpose of a
transpose, a slice of a concatenation that is one of its parts, a sum with zeros), so a plan shows
only the operations that really happen, and a round trip returns the source bit for bit.
"""

from __future__ import annotations

from dataclasses import dataclass

Shape = tuple[int, ...]


@dataclass(frozen=True)
class Source:
    """A tensor of the source file, by its name there."""

    name: str
    shape: Shape


@dataclass(frozen=True)
class Zeros:
    """A tensor of zeros, where the target has a slot that the source lacks."""

    shape: Shape
    note: str = "zeros"
    dtype: str | None = None
    """Its own dtype (torch's int64 batch counter), else the module's."""


@dataclass(frozen=True)
class Transpose:
    """A 2-D tensor transposed: (rows, columns) -> (columns, rows)."""

    arg: Expr

    @property
    def shape(self) -> Shape:
        """The transposed shape."""
        return tuple(reversed(self.arg.shape))


@dataclass(frozen=True)
class Permute:
    """Axes put in another order: ``axes[k]`` is the argument's axis that becomes axis ``k``.

    A convolution's kernel moves between torch's (out, in, k…) and Keras' (k…, in, out).
    """

    arg: Expr
    axes: tuple[int, ...]
    note: str

    @property
    def shape(self) -> Shape:
        """The permuted shape."""
        return tuple(self.arg.shape[a] for a in self.axes)


@dataclass(frozen=True)
class Take:
    """One entry along axis 0 (ONNX's direction axis, Keras' two GRU bias rows)."""

    arg: Expr
    index: int
    note: str

    @property
    def shape(self) -> Shape:
        """The shape without its first axis."""
        return self.arg.shape[1:]


@dataclass(frozen=True)
class Rows:
    """Rows ``start:stop`` along axis 0."""

    arg: Expr
    start: int
    stop: int
    note: str

    @property
    def shape(self) -> Shape:
        """The shape with ``stop - start`` rows."""
        return (self.stop - self.start, *self.arg.shape[1:])


@dataclass(frozen=True)
class Gates:
    """Gate blocks of equal height along axis 0 put in another order.

    ``order[k]`` is the block of the argument that becomes block ``k``; ``names`` spell the
    argument's order and ``target_names`` the result's, for the plan.
    """

    arg: Expr
    order: tuple[int, ...]
    names: tuple[str, ...]
    target_names: tuple[str, ...]

    @property
    def shape(self) -> Shape:
        """Unchanged: the blocks only move."""
        return self.arg.shape


@dataclass(frozen=True)
class Add:
    """The elementwise sum of tensors of one shape (merging a double bias into one)."""

    args: tuple[Expr, ...]

    @property
    def shape(self) -> Shape:
        """The common shape."""
        return self.args[0].shape


@dataclass(frozen=True)
class Shift:
    """A constant added to one gate block: TF1's forget_bias folded in or taken out."""

    arg: Expr
    start: int
    stop: int
    value: float
    note: str

    @property
    def shape(self) -> Shape:
        """Unchanged."""
        return self.arg.shape


@dataclass(frozen=True)
class Concat:
    """Tensors joined along axis 0."""

    args: tuple[Expr, ...]
    note: str

    @property
    def shape(self) -> Shape:
        """The rows of all parts together."""
        return (sum(a.shape[0] for a in self.args), *self.args[0].shape[1:])


@dataclass(frozen=True)
class Stack:
    """Tensors of one shape stacked on a new leading axis (ONNX's [D, ...])."""

    args: tuple[Expr, ...]
    note: str

    @property
    def shape(self) -> Shape:
        """(len(args), *shape)."""
        return (len(self.args), *self.args[0].shape)


Expr = Source | Zeros | Transpose | Permute | Take | Rows | Gates | Add | Shift | Concat | Stack


def transpose(arg: Expr) -> Expr:
    """``arg`` transposed; a transposed transpose is the tensor itself."""
    if isinstance(arg, Transpose):
        return arg.arg
    if isinstance(arg, Zeros):
        return Zeros(tuple(reversed(arg.shape)), arg.note)
    return Transpose(arg)


def permute(arg: Expr, axes: tuple[int, ...], note: str) -> Expr:
    """``arg`` with its axes in the order ``axes``; two permutations compose, none is nothing."""
    if isinstance(arg, Permute):
        return permute(arg.arg, tuple(arg.axes[a] for a in axes), note)
    if axes == tuple(range(len(axes))):
        return arg
    if isinstance(arg, Zeros):
        return Zeros(tuple(arg.shape[a] for a in axes), arg.note, arg.dtype)
    return Permute(arg, axes, note)


def take(arg: Expr, index: int, note: str) -> Expr:
    """Entry ``index`` of axis 0; of a stack, that part."""
    if isinstance(arg, Stack):
        return arg.args[index]
    if isinstance(arg, Zeros):
        return Zeros(arg.shape[1:], arg.note)
    return Take(arg, index, note)


def rows(arg: Expr, start: int, stop: int, note: str) -> Expr:
    """Rows ``start:stop``; all rows are the tensor itself, a part of a concatenation that part."""
    if start == 0 and stop == arg.shape[0]:
        return arg
    if isinstance(arg, Zeros):
        return Zeros((stop - start, *arg.shape[1:]), arg.note)
    if isinstance(arg, Rows):
        return rows(arg.arg, arg.start + start, arg.start + stop, note)
    if isinstance(arg, Concat):
        offset = 0
        for part in arg.args:
            height = part.shape[0]
            if offset <= start and stop <= offset + height:
                return rows(part, start - offset, stop - offset, note)
            offset += height
    if isinstance(arg, Add):
        return add(*(rows(a, start, stop, note) for a in arg.args))
    if isinstance(arg, Gates):
        block = arg.shape[0] // len(arg.order)
        if start % block == 0 and stop - start == block:
            source = arg.order[start // block] * block
            return rows(arg.arg, source, source + block, note)
    return Rows(arg, start, stop, note)


def gates(
    arg: Expr,
    names: tuple[str, ...],
    target_names: tuple[str, ...],
    labels: tuple[str, ...] | None = None,
    target_labels: tuple[str, ...] | None = None,
) -> Expr:
    """The gate blocks of ``arg`` (meaning ``names``) reordered as ``target_names``.

    ``labels`` and ``target_labels`` spell the two orders with the frameworks' own letters
    (Keras' ``c`` for torch's ``g``) for the plan; they default to the names.
    """
    labels = labels or names
    target_labels = target_labels or target_names
    if isinstance(arg, Zeros):
        return arg
    if names == target_names:
        if isinstance(arg, Gates) and arg.target_names != target_labels:
            return Gates(arg.arg, arg.order, arg.names, target_labels)
        return arg
    order = tuple(names.index(n) for n in target_names)
    if isinstance(arg, Gates):
        combined = tuple(arg.order[k] for k in order)
        if combined == tuple(range(len(combined))):
            return arg.arg
        return Gates(arg.arg, combined, arg.names, target_labels)
    if isinstance(arg, Add):
        return add(*(gates(a, names, target_names, labels, target_labels) for a in arg.args))
    return Gates(arg, order, labels, target_labels)


def add(*args: Expr) -> Expr:
    """The sum of ``args``, leaving out zeros (so nothing is added where nothing need be)."""
    parts = tuple(a for a in args if not isinstance(a, Zeros))
    if not parts:
        return args[0]
    if len(parts) == 1:
        return parts[0]
    return Add(parts)


def concat(args: tuple[Expr, ...], note: str) -> Expr:
    """``args`` joined along axis 0; the consecutive rows of one tensor are that tensor."""
    if len(args) == 1:
        return args[0]
    if all(isinstance(a, Zeros) for a in args):
        return Zeros((sum(a.shape[0] for a in args), *args[0].shape[1:]))
    first = args[0]
    if all(isinstance(a, Rows) for a in args) and isinstance(first, Rows):
        whole = first.arg
        position = 0
        for a in args:
            assert isinstance(a, Rows)
            if a.arg != whole or a.start != position:
                break
            position = a.stop
        else:
            if position == whole.shape[0]:
                return whole
    return Concat(args, note)


def stack(args: tuple[Expr, ...], note: str) -> Expr:
    """``args`` stacked on a new axis 0; every entry of one tensor in order is that tensor."""
    if all(isinstance(a, Zeros) for a in args):
        return Zeros((len(args), *args[0].shape))
    first = args[0]
    if isinstance(first, Take) and all(
        isinstance(a, Take) and a.arg == first.arg and a.index == k for k, a in enumerate(args)
    ) and len(args) == first.arg.shape[0]:
        return first.arg
    return Stack(args, note)


def shift(arg: Expr, start: int, stop: int, value: float, note: str) -> Expr:
    """``value`` added to rows ``start:stop``; nothing when it is 0."""
    if value == 0:
        return arg
    if isinstance(arg, Shift) and (arg.start, arg.stop) == (start, stop):
        total = arg.value + value
        return arg.arg if total == 0 else Shift(arg.arg, start, stop, total, note)
    return Shift(arg, start, stop, value, note)


def sources(expr: Expr) -> list[str]:
    """The source tensors ``expr`` reads, each once, in order."""
    found: list[str] = []

    def walk(e: Expr) -> None:
        if isinstance(e, Source):
            if e.name not in found:
                found.append(e.name)
        elif isinstance(e, Zeros):
            return
        elif isinstance(e, Add | Concat | Stack):
            for a in e.args:
                walk(a)
        else:
            walk(e.arg)

    walk(expr)
    return found


def steps(expr: Expr) -> list[str]:
    """Every operation ``expr`` applies, innermost first, each named once."""
    found: list[str] = []

    def note(text: str) -> None:
        if text not in found:
            found.append(text)

    def walk(e: Expr) -> None:
        if isinstance(e, Source):
            return
        if isinstance(e, Zeros):
            note(e.note)
            return
        if isinstance(e, Add | Concat | Stack):
            for a in e.args:
                walk(a)
        else:
            walk(e.arg)
        if isinstance(e, Transpose):
            note("transpose")
        elif isinstance(e, Take | Rows | Concat | Stack | Shift | Permute):
            note(e.note)
        elif isinstance(e, Gates):
            note(f"gates {','.join(e.names)} → {','.join(e.target_names)}")
        elif isinstance(e, Add):
            note("sum")

    walk(expr)
    return found


def exact(expr: Expr) -> bool:
    """Whether ``expr`` only moves values (no sum, no constant added): a bit-exact copy."""
    if isinstance(expr, Add | Shift):
        return False
    if isinstance(expr, Source | Zeros):
        return True
    if isinstance(expr, Concat | Stack):
        return all(exact(a) for a in expr.args)
    return exact(expr.arg)
