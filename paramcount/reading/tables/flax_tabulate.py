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
alike cells under it is one bidirectional layer. ANSI colour codes are dropped.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from math import isqrt

from paramcount.engine.spec import Cell
from paramcount.reading.accounting import Accounting, Unread
from paramcount.reading.tables.table import Printout, Row, Shape, count
from paramcount.usertext import digits_value

_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_HEADER = re.compile(r"\s*┃\s*path\s*┃\s*module\s*┃")
_COUNT = re.compile(r"([0-9,]+) \(")
_TOTAL = re.compile(r"\s*Total Parameters: ([0-9,]+)")
_LIMIT = 400_000
CELLS = {"LSTMCell": (Cell.LSTM, 8), "OptimizedLSTMCell": (Cell.LSTM, 8),
         "GRUCell": (Cell.GRU, 6), "SimpleCell": (Cell.RNN, 2)}
"""linen's cells: the cell and how many gate rows it has under it."""


def clean(line: str) -> str:
    """``line`` without ANSI colour codes."""
    return _ANSI.sub("", line) if "\x1b" in line else line


def starts(line: str) -> bool:
    """Whether ``line`` is a tabulate header (``┃ path ┃ module ┃``)."""
    return _HEADER.match(clean(line)) is not None


def read(lines: Sequence[str], start: int) -> tuple[Printout, int] | None:
    """The table whose header is ``lines[start]`` (0-based): one Row per module, its count
    the one its params cell ends with."""
    titles = [c.strip() for c in clean(lines[start]).strip().strip("┃").split("┃")]
    first = start
    if first and clean(lines[first - 1]).lstrip().startswith("┏"):
        first -= 1
        if first and re.fullmatch(r"\s*\w+ Summary\s*", clean(lines[first - 1])):
            first -= 1
    rows: list[Row] = []
    unread: list[Unread] = []
    cells: list[str] | None = None
    at = 0
    index = start + 1
    total = None
    bottom = False

    def close() -> None:
        if cells is not None:
            named = dict(zip(titles, cells, strict=False))
            module = named.get("module", "").strip()
            found = _COUNT.findall(named.get("params", ""))
            number = count(found[-1]) if found else None
            if "\n" in module:  # the module cell is cut, never wrapped: two rows run together
                unread.append(Unread(at + 1, lines[at], "two rows run together (the line "
                                     "between them is not in the paste)"))
            if module:
                inputs = _shapes(named.get("inputs", ""))
                rows.append(Row(named.get("path", "").strip(), module, None,
                                number if found else 0, at + 1,
                                outputs=tuple(_shapes(named.get("outputs", ""))),
                                input_shape=inputs[-1] if inputs else None))

    while index < len(lines) and index - start < _LIMIT:
        line = clean(lines[index]).strip()
        if line.startswith(("┡", "├")):
            close()
            cells = None
            index += 1
            continue
        if line.startswith("│"):
            parts = [c.strip() for c in line.strip("│").split("│")]
            if cells is None:
                cells, at = parts, index
            else:
                cells = [f"{a}\n{b}" if b else a for a, b in zip(cells, parts, strict=False)]
            index += 1
            continue
        if line.startswith("└"):
            bottom = True
            last = cells
            if last is not None and "Total" in " ".join(last):
                found = _COUNT.findall(" ".join(last).replace("\n", " "))
                total = count(found[-1]) if found else None
            else:
                close()
            index += 1
            break
        break
    while index < len(lines) and index - start < _LIMIT:
        line = clean(lines[index])
        if match := _TOTAL.match(line):
            total = count(match.group(1))
            index += 1
            break
        if line.strip():
            break
        index += 1
    rows = [row for row in rows if row.type != "Total"]
    if not rows:
        return None
    cropped = ([] if bottom else ["no bottom border"]) + (
        [] if total is not None else ["no `Total Parameters` line"])
    return Printout("flax-tabulate", _title(lines, start), first + 1, index, tuple(rows),
                    total, accounting=Accounting.span(first + 1, index, unread, cropped)), index


_SHAPE = re.compile(r"\[([0-9]+(?:,\s*[0-9]+)*)\]")


def _shapes(cell: str) -> list[Shape]:
    """The array shapes an inputs or outputs cell prints (``float32[2,32]``), in order."""
    return [tuple(digits_value(d.strip()) for d in match.split(",")) for match in
            _SHAPE.findall(cell)]


def _title(lines: Sequence[str], start: int) -> str:
    """The ``M Summary`` caption above the table, as the model's name."""
    for back in range(1, 4):
        if start - back >= 0 and (match := re.fullmatch(r"\s*(\w+) Summary\s*",
                                                         clean(lines[start - back]))):
            return match.group(1)
    return "model"


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
