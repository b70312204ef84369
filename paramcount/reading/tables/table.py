"""What every printed table shares: its rows, its columns found by their headers, its cells.

A printer lays its columns out under header cells (``Param #``, ``Output Shape``, ``Mult-Adds``
...); a cell is found under its header, so a count is only ever read from the parameter
column. A count cell reads ``1,234`` or ``1234`` (``(1,234)`` for torchinfo's frozen layers);
``--``, a blank, ``(recursive)`` and ``0 (unused)`` are unknown (None), never zero. Shapes read
``(None, 30, 64)``, ``[2, 30, 64]`` and ``[(None, 256), (None, 256)]`` (every output).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import overload

from paramcount.engine.spec import MAX_SIZE
from paramcount.files.listing import NamedTensor
from paramcount.reading.accounting import Accounting
from paramcount.reading.code.python_code import Block
from paramcount.reading.patterns import lazy
from paramcount.record import field, record
from paramcount.usertext import ascii_digits

Shape = tuple[int | None, ...]


@record
class Row:
    """One layer row of a summary table."""

    name: str
    type: str
    shape: Shape | None
    """The printed output shape (None for the batch axis), where the table shows one."""
    params: int | None
    """The printed count (None where the table prints ``--``, a blank or ``(recursive)``)."""
    line: int
    depth: int = 1
    tensors: tuple[tuple[str, int], ...] = ()
    """torchinfo's per-tensor rows under this layer: (name, count)."""
    outputs: tuple[Shape, ...] = ()
    """Every output shape a row prints (an LSTM with ``return_state``: three)."""
    source: tuple[str, int] | None = None
    """The first ``Connected to`` entry of a functional table: (layer name, output index)."""
    input_shape: Shape | None = None
    """torchinfo's Input Shape column, where printed."""
    kernels: tuple[tuple[str, tuple[int, ...]], ...] = ()
    """torchinfo's Kernel Shape of each per-tensor row: (name, shape)."""
    note: str = ""
    """What the printer is known to get wrong about this row (torchsummary's RNN zero)."""
    rounded: tuple[int, int] | None = None
    """A count printed rounded (Lightning's ``593 K``): the first and last number it stands
    for (``params`` is then None)."""


@record
class Printout:
    """One printout found in the paste."""

    kind: str
    """``keras-summary``, ``torchinfo``, ``torchsummary``, ``repr`` or ``shapes``."""
    title: str
    first: int
    last: int
    rows: tuple[Row, ...] = ()
    total: int | None = None
    tensors: tuple[NamedTensor, ...] = ()
    tensor_lines: tuple[int, ...] = ()
    block: Block | None = None
    """A repr, read as the layer calls it prints."""
    functional: bool | None = False
    """Whether the table has a ``Connected to`` column (a functional Keras model); None where
    a cropped table does not show whether it has one."""
    total_known: bool = True
    """False where the printer's own total is known to leave parameters out."""
    rounded_total: tuple[int, int] | None = None
    """A total printed rounded: the first and last number it stands for."""
    accounting: Accounting = field(kw_only=True)
    """The lines it claimed, those it could not read and why, and whether it is cut off
    (:mod:`paramcount.reading.accounting`): every printer's reader must say."""
    how: str = field(default="", kw_only=True)
    """How a generic reader read a printout no dialect names (``read as a table: name /
    parameters columns``); empty for a known printer's."""
    shown: tuple[str, ...] = field(default=(), kw_only=True)
    """Its lines as they were read, where a prefix every line carries was taken off
    (indentation, a quote's or a comment's mark); empty where they are the paste's own."""
    modelled: bool = field(default=True, kw_only=True)
    """False where its tensors' names are a library's paramcount models no convention of
    (equinox's fields): counted, never recognised as a torch or Keras layer."""

    def text(self, paste: Sequence[str]) -> Sequence[str]:
        """Its lines as read, from ``paste`` (the paste's lines) where no prefix was taken."""
        return self.shown or paste[self.first - 1:self.last]


class Window(Sequence[str]):
    """A paste's lines as one reader sees them, without copying the paste: blank above
    ``floor`` and ending at ``stop`` (a reader's scan, down or up, ends where another
    printout starts), some of them replaced (``changed``: a block seen without its prefix).
    Each printout of a paste of many is read in its own span, so the paste is read in linear
    time."""

    def __init__(self, lines: Sequence[str], stop: int, changed: dict[int, str] | None = None,
                 floor: int = 0) -> None:
        self.lines = lines
        self.stop = min(stop, len(lines))
        self.changed = changed or {}
        self.floor = floor

    def __len__(self) -> int:
        return self.stop

    @overload
    def __getitem__(self, index: int) -> str: ...

    @overload
    def __getitem__(self, index: slice) -> list[str]: ...

    def __getitem__(self, index: int | slice) -> str | list[str]:
        if isinstance(index, slice):
            return [self[at] for at in range(*index.indices(self.stop))]
        if index < 0:
            index += self.stop
        if not 0 <= index < self.stop:
            raise IndexError(index)
        text = self.changed.get(index)
        if text is None:
            return self.lines[index] if index >= self.floor else ""
        return text


_COUNT = lazy(r"\(?([0-9]{1,3}(?:,[0-9]{3})++|[0-9]++)\)?")
_DIGITS = len(str(MAX_SIZE))


def number(digits: str) -> int | None:
    """ASCII decimal digits as a number, None beyond 2^63 − 1 (never a huge conversion) or
    where they are not ASCII digits (``int`` reads ``٣`` as 3)."""
    if not ascii_digits(digits) or len(digits.lstrip("0")) > _DIGITS:
        return None
    value = int(digits)
    return value if value <= MAX_SIZE else None


def count(cell: str) -> int | None:
    """A count cell as a number: ``1,234``, ``1234``, ``(1,234)``; anything else is unknown."""
    text = cell.strip()
    match = _COUNT.fullmatch(text)
    if match is None or (text.startswith("(") != text.endswith(")")):
        return None
    return number(match.group(1).replace(",", ""))


NO_TOTAL = "no `Total params` line"
"""Why a table without its footer is taken for a crop (its last rows may be missing)."""

TOTAL = lazy(r"\s*Total params:\s*([0-9,]+)")


_SHAPE = lazy(r"[(\[]([^()\[\]]*)[)\]]")


def shapes(text: str) -> tuple[Shape, ...]:
    """Every innermost ``(...)`` or ``[...]`` in ``text`` read as a shape, in order."""
    found: list[Shape] = []
    for match in _SHAPE.finditer(text):
        dims: list[int | None] = []
        for part in match.group(1).split(","):
            part = part.strip()
            if not part:
                continue
            if part in ("None", "?", "-1"):
                dims.append(None)
            elif ascii_digits(part) and (value := number(part)) is not None:
                dims.append(value)
            else:
                break
        else:
            found.append(tuple(dims))
    return tuple(found)


def first_shape(text: str) -> Shape | None:
    """The first shape in ``text``, if any."""
    found = shapes(text)
    return found[0] if found else None


@record
class Column:
    """A header cell: its title and where it starts on the line."""

    title: str
    start: int


def columns(header: str, titles: Sequence[str]) -> list[Column]:
    """The columns a header line names (each of ``titles`` found), in order of position."""
    found = [Column(title, header.find(title)) for title in titles if title in header]
    return sorted(found, key=lambda c: c.start)


def slices(line: str, found: Sequence[Column]) -> dict[str, str]:
    """A line cut under each column, from its header's start to the next header's start."""
    cells: dict[str, str] = {}
    for index, column in enumerate(found):
        end = found[index + 1].start if index + 1 < len(found) else len(line)
        cells[column.title] = line[column.start:end].strip()
    return cells


def tokens(text: str) -> list[tuple[int, str]]:
    """Runs of text separated by two or more spaces, with where each starts."""
    return [(m.start(), m.group()) for m in re.finditer(r"\S+(?: \S+)*", text)]


SQUEEZED_ROW = "a row of a table whose spacing was lost, its cells not told apart"
"""Why a row of a squeezed table (:func:`collapsed`) was not read."""


def collapsed(header: str, titles: Sequence[str]) -> list[str] | None:
    """The titles of a header whose spacing was lost (``Layer (type) Output Shape Param #``:
    every run of spaces squeezed to one, as a page that does not keep the paste's spaces shows
    it), in order; None where the header keeps its column spacing. ``titles[0]`` is the layer
    column's title, which must open the header."""
    text = header.strip()
    if not text.startswith(titles[0]) or re.search(r"\S {2,}\S", text):
        return None
    found = [titles[0]]
    rest = text[len(titles[0]):]
    while rest:
        title = next((t for t in titles[1:] if rest.startswith(" " + t)), None)
        if title is None:
            return None
        found.append(title)
        rest = rest[len(title) + 1:]
    return found if len(found) > 1 else None


_CLOSE = {"(": ")", "[": "]"}


def group_end(text: str, start: int) -> int | None:
    """The index past the bracket group opening at ``text[start]`` (nested groups inside),
    None where it does not close."""
    stack: list[str] = []
    for index in range(start, len(text)):
        char = text[index]
        if char in _CLOSE:
            stack.append(_CLOSE[char])
        elif char in ")]":
            if not stack or stack.pop() != char:
                return None
            if not stack:
                return index + 1
    return None


def squeezed_cells(text: str) -> list[str] | None:
    """A row's cells where its spacing was lost: each a bracket group (``[2, 5, 32]``,
    ``[(None, 256), (None, 256)]``, several joined by ``, `` as pytorch-model-summary prints
    an LSTM's outputs) or a run of text without spaces (``9,728``, ``--``, ``multiple``);
    None where a bracket does not close."""
    cells: list[str] = []
    index, end = 0, len(text)
    while index < end:
        if text[index] == " ":
            index += 1
            continue
        if text[index] in _CLOSE:
            stop = group_end(text, index)
            if stop is None:
                return None
            while text.startswith(", ", stop) and stop + 2 < end and text[stop + 2] in _CLOSE:
                after = group_end(text, stop + 2)
                if after is None:
                    return None
                stop = after
        else:
            stop = text.find(" ", index)
            stop = end if stop < 0 else stop
        cells.append(text[index:stop])
        index = stop
    return cells


def row_cells(line: str, count: int) -> list[str]:
    """A row's ``count`` cells: split at runs of two or more spaces, or, where that does not
    give ``count`` (its spacing lost), told apart by their forms; [] where neither does."""
    cells = [text for _, text in tokens(line)]
    if len(cells) != count:
        cells = squeezed_cells(line.strip()) or []
    return cells if len(cells) == count else []
