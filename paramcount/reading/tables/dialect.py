"""A known printer's table read as a dialect of the generic table reader.

A dialect (:class:`Dialect`, the one record every printer's table declares) says only what the
generic reader cannot tell from the table: which header word heads which column, how it prints
a count (whole, or rounded: Lightning's ``1.2 K`` is an interval; Flax's at the foot of its
cell), how it prints a shape, where its total stands and what else its footer and rules hold,
and for a drawn table (:mod:`.drawn`) how its cells wrap and nest. The machinery here does the
rest for every dialect: its footer and total (:func:`footer`), the row loop (:class:`Scan`),
cells placed under their columns, a wrapped row joined, counts parsed, rows built by their
columns' roles, rows numbered in call order (``LSTM-4``) and the printout with its accounting;
:mod:`.drawn` reads boxes and fixed columns by the same record, and the generic readers
(:mod:`.generic`, :mod:`.aligned`) are dialects whose columns are found by what they hold.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping, Sequence

from paramcount.reading.accounting import Accounting, Unread
from paramcount.reading.patterns import lazy
from paramcount.reading.tables.table import (
    NO_TOTAL,
    TOTAL,
    Column,
    Printout,
    Row,
    Shape,
    columns,
    count,
    row_cells,
    shapes,
    tokens,
)
from paramcount.record import record

__all__ = ["DRAWN_LIMIT", "LIMIT", "NOTHING", "Dialect", "Scan", "continues", "exact",
           "footer", "layer", "numbered", "once", "placed", "printout", "repeated", "whole"]

LIMIT = 200_000
"""The most lines one table's scan reads below its header."""
DRAWN_LIMIT = 2 * LIMIT
"""The same for a table drawn with a rule under every row (Keras 3, Flax, haiku): twice the
lines for as many rows."""


def exact(cell: str) -> tuple[int, int] | None:
    """A count printed whole (``1,234``, torchinfo's frozen ``(1,234)``) as the one number it
    stands for; None where the cell is no count (``--``, ``(recursive)``, a blank)."""
    number = count(cell)
    return None if number is None else (number, number)


def whole(counted: tuple[int, int] | None) -> int | None:
    """A count read as an interval (:attr:`Dialect.counts`) as the one number it is, where it
    is one."""
    return counted[0] if counted and counted[0] == counted[1] else None


NOTHING = lazy(r"(?!)")
"""A pattern no line matches: a dialect's part it does not have."""


@record
class Dialect:
    """What one printer's table says that the generic reader cannot know."""

    kind: str
    """The printer, as :attr:`Printout.kind <paramcount.reading.tables.table.Printout.kind>`
    (``torchinfo``, ``lightning`` ...)."""
    columns: Mapping[str, str]
    """Each header title the printer prints → its column's role: ``label`` (a ``name
    (Class)`` or ``Class-N`` cell), ``name``, ``type``, ``output``, ``input``, ``params``,
    ``source`` ..."""
    after: re.Pattern[str] = NOTHING
    """The lines of its footer after the line that opens it."""
    total: re.Pattern[str] = TOTAL
    """The footer line that holds its total (its first non-empty group)."""
    opens: re.Pattern[str] | None = None
    """Where its footer opens; None: at its total's line."""
    counts: Callable[[str], tuple[int, int] | None] = exact
    """How it prints a count: a cell → the first and last count it stands for, or None."""
    above: re.Pattern[str] = lazy("---")
    """The rule above its header (that line is the table's first)."""
    rules: frozenset[str] = frozenset("=-")
    """The characters of the rules between its rows and above its footer (passed over)."""
    blank: bool = False
    """Whether the row loop yields its blank lines (the reader's own to pass over or end at)."""
    label: re.Pattern[str] | None = None
    """Its label cell's form, group ``type`` the class (torchsummary's ``Conv1d-1``)."""
    shapes: Callable[[str], Sequence[Shape]] = shapes
    """A shape cell as every shape it prints."""
    name_type: Callable[[str], tuple[str, str] | None] | None = None
    """A ``label`` cell as (name, class), None where it cannot be read (where it has one)."""
    source: Callable[[str], tuple[str, int] | None] | None = None
    """A ``source`` cell as its first input (layer name, output index), where it has one."""
    join: str = " "
    """How a drawn cell's wrapped lines are joined."""
    unwrapped: frozenset[str] = frozenset()
    """The columns whose cells are cut at the edge, never wrapped: two lines there are two rows
    whose rule was lost."""
    total_row: bool = False
    """Whether the box's last row may be a ``Total`` row (its params cell the total)."""
    nest: int = 3
    """How far a box row's ``└`` glyph moves in per level of nesting."""
    gap: bool = False
    """Whether blank lines may stand between the table and its total."""
    closed: re.Pattern[str] | None = None
    """A ``label`` cell known to be whole: in a fixed-column table, a row that holds one is over
    where a line brings a new name, shape and count, even with no blank line between."""
    bars: str = ""
    """The character a nested model's rows stand between in a fixed-column table, one a level
    (its depth)."""
    caption: re.Pattern[str] = NOTHING
    """The line over the table that names the model (the name in group 1)."""
    input_at: int = 0
    """Which of an input cell's shapes is the layer's own input (Flax stacks a cell's carry
    before it: -1)."""

    def first(self, lines: Sequence[str], start: int) -> int:
        """The table's first line (0-based): the rule above its header at ``start``, if any."""
        return start - 1 if start and self.above.match(lines[start - 1]) else start

    def found(self, header: str) -> list[Column]:
        """The columns its header line names, in order of position."""
        return columns(header, tuple(self.columns))

    def roles(self, cells: Mapping[str, str]) -> dict[str, str]:
        """A row's cells (by their columns' titles) by their columns' roles."""
        return {self.columns[t]: text for t, text in cells.items() if t in self.columns}

    def column(self, role: str) -> str | None:
        """The title of the column that holds ``role``, if the dialect has one."""
        return next((title for title, held in self.columns.items() if held == role), None)

    def number(self, cell: str) -> int | None:
        """A params cell as the one count it prints (None: no count, or a rounded one)."""
        return whole(self.counts(cell))

    def rule(self, line: str) -> bool:
        """Whether ``line`` is one of its rules (a line of its rule characters)."""
        stripped = line.strip()
        return bool(stripped) and set(stripped) <= self.rules


def footer(lines: Sequence[str], index: int, dialect: Dialect) -> tuple[int, str | None] | None:
    """The footer ``dialect`` opens at ``index`` (0-based) and the lines after it that its
    ``after`` matches: (the line past them, its total as printed, where it holds one); None
    where no footer opens there."""
    if index >= len(lines) or not (dialect.opens or dialect.total).match(lines[index]):
        return None
    total: str | None = None
    while True:
        if total is None and (match := dialect.total.match(lines[index])):
            total = next((g for g in match.groups() if g), None)
        index += 1
        if index >= len(lines) or not lines[index].strip() or not dialect.after.match(
                lines[index]):
            return index, total


class Scan:
    """The generic row loop over the lines below a table's header: iterating gives each line
    that may be a row, (index, line), past rules and blank lines, until its footer, whose
    total is kept; a reader that meets a line that is no row stops by ``break``."""

    def __init__(self, lines: Sequence[str], start: int, dialect: Dialect) -> None:
        self.lines, self.start, self.dialect = lines, start, dialect
        self.end = start + 1
        """The line past the table (0-based), as far as it has been walked."""
        self.total: str | None = None
        """Its total as printed, where its footer holds one."""

    def __iter__(self) -> Iterator[tuple[int, str]]:
        index = self.start + 1
        while index < len(self.lines) and index - self.start < LIMIT:
            if self.close(index):
                return
            if (self.dialect.blank or self.lines[index].strip()) and not self.dialect.rule(
                    self.lines[index]):
                yield index, self.lines[index]
            index += 1
        self.end = index

    def close(self, index: int) -> bool:
        """End the rows above ``index`` (0-based); whether its footer opens there (then read
        through, its total kept)."""
        ended = footer(self.lines, index, self.dialect)
        if ended is None:
            self.end = index
            return False
        self.end = ended[0]
        self.total = ended[1] if self.total is None else self.total
        return True


def placed(line: str, found: Sequence[Column]) -> dict[str, str]:
    """A row's value cells: in order when every column has one (so a cell wider than its
    column, which pushes the rest right, is still placed), else under the header positions."""
    start = found[0].start
    parts = tokens(line[start:])
    if len(parts) == len(found):
        return {c.title: text for c, (_, text) in zip(found, parts, strict=True)}
    cells: dict[str, str] = {}
    for offset, text in parts:
        position = start + offset
        owner = max((c for c in found if c.start <= position), key=lambda c: c.start,
                    default=found[0])
        cells[owner.title] = (cells.get(owner.title, "") + " " + text).strip()
    return cells


def continues(body: Sequence[tuple[int, list[str]]], cells: Sequence[str]) -> bool:
    """Whether a row whose first cell is empty continues the row above it (a cell wrapped
    onto the next line, as rich draws a long name): its cells are then joined to that row's."""
    if cells and not cells[0] and body:
        previous = body[-1][1]
        for at, text in enumerate(cells):
            if text and at < len(previous):
                previous[at] = f"{previous[at]} {text}"
        return True
    return False


def layer(dialect: Dialect, role: Mapping[str, str], line: int, name: str, kind: str,
          depth: int = 1, note: str = "") -> Row:
    """One layer's row from its cells by their columns' roles (:meth:`Dialect.roles`), read as
    ``dialect`` prints them: its outputs, its input's shape, its count (a rounded one as its
    interval) and its first input (``source``), where printed."""
    outputs = tuple(dialect.shapes(role["output"])) if "output" in role else ()
    inputs = dialect.shapes(role["input"]) if "input" in role else ()
    counted = dialect.counts(role.get("params", ""))
    one = whole(counted)
    return Row(name, kind, outputs[0] if outputs else None, one, line, depth, outputs=outputs,
               input_shape=inputs[dialect.input_at] if inputs else None, note=note,
               rounded=counted if counted and one is None else None,
               source=dialect.source(role.get("source", "")) if dialect.source else None)


def numbered(lines: Sequence[str], start: int, dialect: Dialect) -> tuple[list[Row], Scan]:
    """The rows of a table that numbers its layers in call order (``LSTM-4``: torchsummary,
    pytorch-model-summary), a cell under each of its header's columns; its rows end at the
    first line that is not one."""
    roles = [dialect.columns[c.title] for c in dialect.found(lines[start])]
    scan = Scan(lines, start, dialect)
    rows: list[Row] = []
    for index, line in scan:
        cells = row_cells(line, len(roles))
        label = dialect.label.fullmatch(cells[0]) if cells and dialect.label else None
        if label is None:
            break
        rows.append(layer(dialect, dict(zip(roles, cells, strict=True)), index + 1, cells[0],
                          label.group("type")))
    return rows, scan


_CLASS_NAME = re.compile(r"[A-Z][A-Za-z0-9_]*")
"""A name cell that is a class's name (``Linear``), not a module's path: two such rows are
two modules of one class."""


_PATH = re.compile(r"[A-Za-z_][\w.\-/:]{0,300}")
"""A name cell that may be a module's path (``lstm``, ``enc.0.fc``, ``lstm/linear``)."""


def once(rows: Sequence[Row]) -> tuple[list[Row], str]:
    """A per-layer table's rows with each module listed again (a row per call, as haiku's
    ``tabulate`` prints an unrolled LSTM: the same full path with the same count) kept once,
    and what the answer says of it (empty where none was). A row's full path is its name under
    the names of the rows it is nested in (by depth), so a bare name repeated under two
    parents (``lstm`` in ``enc`` and in ``dec``) is two modules; a class's name (``Linear``),
    a row without a count (torchinfo's ``(recursive)``) or with another count is never one
    module's repeat."""
    kept: list[Row] = []
    paths: dict[tuple[int, str], int] = {}
    """Each full path read: (its parent's path, its name) → its own number."""
    seen: set[tuple[int, int | None, tuple[int, int] | None]] = set()
    repeats: dict[str, int] = {}
    chain: list[tuple[int, int]] = [(-(1 << 62), 0)]
    """The rows above this one that hold it: (depth, path), under the table's root (0)."""
    for row in rows:
        while chain[-1][0] >= row.depth:
            chain.pop()
        path = paths.setdefault((chain[-1][1], row.name), len(paths) + 1)
        chain.append((row.depth, path))
        if (row.params is None and row.rounded is None) or row.name == row.type or (
                _CLASS_NAME.fullmatch(row.name) or not _PATH.fullmatch(row.name)):
            kept.append(row)
            continue
        key = (path, row.params, row.rounded)
        if key in seen:
            repeats[row.name] = repeats.get(row.name, 1) + 1
            continue
        seen.add(key)
        kept.append(row)
    return kept, repeated(repeats)


def repeated(rows: Mapping[str, int]) -> str:
    """What the answer says of the modules (or tensors) a table lists more than once, each by
    how many rows it has (``rows``: every listed name's, or only theirs); empty where none
    is."""
    again = [f"{name} ({n} rows)" for name, n in rows.items() if n > 1]
    return ("the same module listed more than once (a row each time it was called), counted "
            "once: " + ", ".join(again)) if again else ""


def printout(dialect: Dialect, first: int, scan: Scan, rows: Sequence[Row],
             unread: Sequence[Unread] = (), cropped: Sequence[str] = (), title: str = "model",
             total_known: bool = True) -> Printout:
    """The table read, from its first line (0-based) to where its scan ended: its total read
    as the dialect prints counts (a rounded one as its interval), a table without one taken
    for a crop."""
    total = dialect.counts(scan.total) if scan.total is not None else None
    one = whole(total)
    said = ([] if total is not None else [NO_TOTAL]) + list(cropped)
    rows, repeated = once(rows)
    return Printout(dialect.kind, title, first + 1, scan.end, tuple(rows), one,
                    total_known=total_known, how=repeated,
                    rounded_total=total if total and one is None else None,
                    accounting=Accounting.span(first + 1, scan.end, unread, said))
