"""Haiku's ``hk.experimental.tabulate``: a grid table of every module CALL, read by its tensors.

Its rows are calls, not modules: an ``hk.LSTM`` unrolled over 7 steps prints 7 alike
``lstm (LSTM)`` rows, each with the whole count of ``lstm`` (``Param count`` holds a module's
parameters and its submodules'), and the ``lstm/linear (Linear)`` the cell calls 7 more, each
with the call stack under its name (``└ lstm (LSTM)``). What the generic reader cannot know is
which column is which: the ``Module`` cell is ``path (Class.method)``, the ``Module params``
cell lists the tensors the module owns as JAX prints their types (``w: f32[48,128]``, read by
:func:`paramcount.reading.tables.generic.tensor_cells`), and ``Param count`` holds the
submodules' too. So each module path is read once (the rule of every table reader,
:func:`.dialect.once`, here on its tensors: a module called again is counted once, and the
answer says so in :func:`.dialect.repeated`'s words), its tensors named ``path/name`` as haiku
names them, and each path's
printed count is checked against the tensors under it. A table printed without its ``Module
params`` column is left to the generic reader. Haiku prints no total: parameters created
outside any module (``hk.get_parameter`` in the function itself) are in no row.
"""

from __future__ import annotations

from collections.abc import Sequence

from paramcount.files.listing import NamedTensor
from paramcount.reading.accounting import Accounting, Unread
from paramcount.reading.patterns import lazy
from paramcount.reading.tables.dialect import DRAWN_LIMIT, repeated
from paramcount.reading.tables.generic import tensor_cells
from paramcount.reading.tables.table import Printout, count

__all__ = ["read", "starts"]

_HEADER = lazy(r"\s*\|\s*Module\s*\|.*\|\s*Module params\s*\|")
_RULE = lazy(r"\s*\+(?:[-=]{3,}\+)+\s*$")
_MODULE = lazy(r"(?P<path>[\w~/.\-]{1,300}) \((?P<type>[\w.]{1,200})\)")


def starts(lines: Sequence[str], index: int) -> bool:
    """Whether ``lines[index]`` is haiku's header (``| Module | ... | Module params |``) over
    its ``+===+`` rule."""
    return (_HEADER.match(lines[index]) is not None and index + 1 < len(lines)
            and lines[index + 1].lstrip().startswith("+=") and _RULE.match(lines[index + 1])
            is not None)


def _cells(line: str) -> list[str]:
    """A grid row's cells, the outer bars taken off."""
    return [c.strip() for c in line.strip()[1:-1].split("|")]


def read(lines: Sequence[str], start: int) -> tuple[Printout, int] | None:
    """The table headed at ``lines[start]`` (0-based): each module path's own tensors once,
    each path's ``Param count`` checked against the tensors under it."""
    titles = _cells(lines[start])
    if "Module params" not in titles:
        return None
    at_params = titles.index("Module params")
    at_count = titles.index("Param count") if "Param count" in titles else None
    first = start - 1 if start and _RULE.match(lines[start - 1]) else start
    records: list[tuple[int, list[list[str]]]] = []
    """Each row: its first line (0-based) and every column's lines."""
    index, closed = start + 2, False
    while index < len(lines) and index - start < DRAWN_LIMIT:
        line = lines[index]
        if _RULE.match(line):
            closed = True
            index += 1
            continue
        if not line.strip().startswith("|") or len(cells := _cells(line)) != len(titles) or (
                cells == titles):
            break  # not a row, or the header of the same table printed again
        if closed or not records:
            records.append((index, [[c] for c in cells]))
        else:
            for column, cell in zip(records[-1][1], cells, strict=True):
                column.append(cell)
        closed = False
        index += 1
    if not records:
        return None
    tensors: list[NamedTensor] = []
    numbers: list[int] = []
    printed: dict[str, int] = {}
    """Each module path's printed count (its first row's)."""
    calls: dict[str, int] = {}
    owned: dict[str, list[tuple[str, tuple[int, ...]]]] = {}
    unread: list[Unread] = []
    for at, columns in records:
        module = _MODULE.fullmatch(columns[0][0])
        found = tensor_cells(columns[at_params])
        if module is None or found is None:
            unread.append(Unread(at + 1, lines[at], "a row whose module or tensors are not "
                                 "haiku's `path (Class)` and `w: f32[..]`"))
            continue
        path = module.group("path")
        calls[path] = calls.get(path, 0) + 1
        if at_count is not None and (number := count(columns[at_count][0])) is not None:
            printed.setdefault(path, number)
        if path in owned:
            if found and found != owned[path]:
                unread.append(Unread(at + 1, lines[at], f"{path}'s tensors differ from those "
                                     "an earlier call of it prints"))
            continue
        owned[path] = found
        for name, shape in found:
            tensors.append(NamedTensor(f"{path}/{name}", shape))
            numbers.append(at + 1)
    cropped = [] if closed else ["no closing rule"]
    for path, number in printed.items():
        under = sum(t.count for t in tensors if t.name.startswith(path + "/"))
        if under != number:
            cropped.append(f"the tensors listed under {path} hold {under:,}, not the {number:,} "
                           "its row prints: a row is missing")
    how = "read as haiku's tabulate: each module path once, its `Module params` tensors"
    if again := repeated(calls):
        how += "; " + again
    return Printout("shapes", "tensors", first + 1, index, tensors=tuple(tensors),
                    tensor_lines=tuple(numbers), how=how, accounting=Accounting.span(
                        first + 1, index, unread, cropped)), index
