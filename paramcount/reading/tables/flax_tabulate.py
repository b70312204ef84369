"""Flax linen's ``Module.tabulate``: the boxed table (``path``, ``module``, ``inputs``,
``outputs``, ``params`` ...), each row's parameter count at the foot of its params cell.

A linen cell holds no parameters of its own: each gate is a Dense row under it, in call order
(``LSTMCell``: ``ii`` (in, H) without bias, then ``hi`` (H, H) with bias, for the gates i, f,
g, o; ``GRUCell``: ``ir``, ``hr``, ``iz``, ``hz``, ``in``, ``hn``, the input gates and ``hn``
with biases; ``SimpleCell``: ``i`` with bias, ``h`` without; ``OptimizedLSTMCell``: its
``DenseParams`` rows in the same order as LSTMCell's). The counts alone give a cell's sizes
(H from a hidden gate's H² or H² + H, the input width from an input gate's count), and every
gate's count is checked against them before the cell is claimed. At ``depth=1`` a cell is one
row holding its whole count: H from its output shapes, the input width from its count (and its
input shape), checked the same way. Paths and classes cut at the
column's edge (``OptimizedLST…``) are read by their prefix. A ``Bidirectional`` row with two
alike cells under it is one bidirectional layer. ANSI colour codes are dropped. The table is a
dialect of :mod:`.drawn` (``DIALECT``), which reads its box, rows and total.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from math import isqrt

from paramcount.engine.spec import Cell
from paramcount.reading.accounting import Accounting, Unread
from paramcount.reading.patterns import lazy
from paramcount.reading.tables.dialect import DRAWN_LIMIT, Dialect, exact
from paramcount.reading.tables.drawn import (
    box_header,
    box_records,
    caption,
    row,
    total_below,
)
from paramcount.reading.tables.table import Printout, Shape, Window
from paramcount.usertext import digits_value

_ANSI = lazy(r"\x1b\[[0-9;]*m")
_HEADER = lazy(r"\s*┃\s*path\s*┃\s*module\s*┃")
_COUNT = lazy(r"([0-9,]+) \(")
CELLS = {"LSTMCell": (Cell.LSTM, 8), "OptimizedLSTMCell": (Cell.LSTM, 8),
         "GRUCell": (Cell.GRU, 6), "SimpleCell": (Cell.RNN, 2)}
"""linen's cells: the cell and how many gate rows it has under it."""


def clean(line: str) -> str:
    """``line`` without ANSI colour codes."""
    return _ANSI.sub("", line) if "\x1b" in line else line


def starts(line: str) -> bool:
    """Whether ``line`` is a tabulate header (``┃ path ┃ module ┃``)."""
    return _HEADER.match(clean(line)) is not None


def _params(cell: str) -> tuple[int, int] | None:
    """A params cell's count, the one at its foot (``544 (2.2 KB)``), as the interval of one
    number it is; 0 where it has none."""
    found = _COUNT.findall(cell)
    return exact(found[-1]) if found else (0, 0)


def _shapes(cell: str) -> list[Shape]:
    """The array shapes an inputs or outputs cell prints (``float32[2,32]``), in order."""
    return [tuple(digits_value(d.strip()) for d in match.split(",")) for match in
            _SHAPE.findall(cell)]


DIALECT = Dialect("flax-tabulate", {"path": "name", "module": "type", "inputs": "input",
                                    "outputs": "output", "params": "params"},
                  total=re.compile(r"\s*Total Parameters: ([0-9,]+)"), join="\n",
                  unwrapped=frozenset({"module"}), total_row=True, counts=_params,
                  shapes=_shapes, gap=True, rules=frozenset("_=-─━"),
                  caption=re.compile(r"^\s*(\w+) Summary\s*$"), input_at=-1)
"""tabulate's table: a cell's entries stacked (joined by line), its module cell cut at the
column's edge, never wrapped; its total in a ``Total`` row and under the box; the model named
in the ``Net Summary`` caption over it."""


def read(lines: Sequence[str], start: int) -> tuple[Printout, int] | None:
    """The table whose header is ``lines[start]`` (0-based): one Row per module, its count
    the one its params cell ends with."""
    lines = _plain(lines, start)
    first = start - 1 if start and lines[start - 1].lstrip().startswith("┏") else start
    named = caption(lines, start, DIALECT)
    first = named[1] if named is not None and first < start and named[1] == first - 1 else first
    titles, body = box_header(lines, start, tuple(DIALECT.columns))
    box = box_records(lines, titles, body, DIALECT)
    index, total = total_below(lines, box.end, DIALECT)
    total = box.total if total is None else total
    unread = [Unread(at, lines[at - 1], "two rows run together (the line between them is not "
                     "in the paste)") for at in box.merged]
    rows = [found for record, at in box.records if (found := row(record, at, DIALECT))
            is not None and found.type and found.type != "Total"]
    if not rows:
        return None
    cropped = ([] if box.bottom else ["no bottom border"]) + (
        [] if total is not None else ["no `Total Parameters` line"])
    return Printout(DIALECT.kind, named[0] if named else "model", first + 1, index, tuple(rows),
                    total, accounting=Accounting.span(first + 1, index, unread, cropped)), index


def _plain(lines: Sequence[str], start: int) -> Sequence[str]:
    """The table's lines without ANSI colour codes (a view of the paste, line for line)."""
    changed: dict[int, str] = {}
    index = max(start - 3, 0)
    while index < len(lines) and index - start < DRAWN_LIMIT:
        text = clean(lines[index])
        if text is not lines[index]:
            changed[index] = text
        if index > start and text.strip() and text.lstrip()[:1] not in "│├┡└":
            break  # the line under the box: its total, or what follows
        index += 1
    return Window(lines, len(lines), changed) if changed else lines


_SHAPE = lazy(r"\[([0-9]+(?:,\s*[0-9]+)*)\]")


def cell_class(module: str) -> str | None:
    """The linen cell a module cell names, read by its prefix where it is cut (``…``)."""
    if module in CELLS:
        return module
    if module.endswith("…"):
        stem = module[:-1]
        found = [name for name in CELLS if name.startswith(stem)]
        return found[0] if len(found) == 1 else None
    return None


def sizes(cell: Cell, counts: Sequence[int | None]) -> tuple[int, int] | None:
    """(input width, H) of a cell whose gate rows count ``counts``, each gate checked."""
    if None in counts:
        return None
    values = [int(c or 0) for c in counts]
    if cell is Cell.LSTM:
        root = isqrt(4 * values[1] + 1)
        hidden = (root - 1) // 2 if root * root == 4 * values[1] + 1 else 0
    else:
        square = values[1]
        hidden = isqrt(square) if isqrt(square) ** 2 == square else 0
    if hidden <= 0:
        return None
    if cell is Cell.LSTM:
        width, rest = divmod(values[0], hidden)
        expected = [width * hidden, hidden * hidden + hidden] * 4
    elif cell is Cell.GRU:
        width, rest = divmod(values[0] - hidden, hidden)
        into, back = width * hidden + hidden, hidden * hidden
        expected = [into, back, into, back, into, back + hidden]
    else:
        width, rest = divmod(values[0] - hidden, hidden)
        expected = [width * hidden + hidden, hidden * hidden]
    if rest or width <= 0 or values != expected:
        return None
    return width, hidden
