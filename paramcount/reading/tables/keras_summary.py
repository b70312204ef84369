"""Keras ``model.summary()`` tables of both eras, read column by column under their headers.

Keras 2 (tf-keras) lays its columns out at fixed positions under ``Layer (type)``, ``Output
Shape``, ``Param #`` and, for a functional model, ``Connected to``; a cell too long for its
column wraps onto the next lines of the same record (``bidirectional (Bidirection`` / ``al)``,
``[(None, 256),`` / `` (None, 256)]``, a count of eight digits), and records are separated by
blank lines (TF 2.9+) or lines of underscores (older). Keras 3 draws the same table with box
characters, each cell between ``│`` bars, wrapped at spaces, rows separated by ``├──┼`` rules.
Counts are read only under ``Param #``. Both are a dialect of :mod:`.drawn` (``DIALECT``: the
columns, the ``name (Class)`` cell, the sources, the total and its footer, the nesting bars),
which reads the box, the fixed columns, the rows and the total; what stays here is what is
Keras's alone: the header's place among the printouts, a cut class matched to Keras's classes,
the squeezed table's records (spacing lost, so cells are told by their forms) and a summary
whose rows could not be placed.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from paramcount.engine.layers import KERAS_FREE_RESHAPING, KERAS_KEEP_WIDTH, KERAS_SIGNATURES
from paramcount.reading.accounting import Accounting, Unread
from paramcount.reading.patterns import lazy
from paramcount.reading.tables.dialect import LIMIT, Dialect
from paramcount.reading.tables.drawn import (
    Record,
    ascii_box,
    box_cropped,
    box_header,
    box_records,
    caption,
    column_records,
    row,
    stacked_header,
    total_below,
)
from paramcount.reading.tables.table import (
    NO_TOTAL,
    SQUEEZED_ROW,
    TOTAL,
    Printout,
    Row,
    collapsed,
    count,
    group_end,
    number,
    squeezed_cells,
)

TITLES = ("Layer (type)", "Output Shape", "Param #", "Connected to", "Trainable")
_AFTER_TOTAL = lazy(r"\s*((Non-)?[Tt]rainable params|Optimizer params|_{5,}|={5,}|$)")
MODEL = lazy(r'Model:\s*"([^"]{1,200})"')
_NAME_TYPE = lazy(r"(?P<name>[^()]*?)\s*\((?P<type>[\w.]+(?:\)|…\)?)?)")
"""A layer cell: ``name (Class)``; Keras 3 cuts a long class to ``(Bidirectio…``, Keras 2.2 to
2.3 (TF 1.x to 2.3) at the column's edge with no mark at all (``bidirectional_1 (Bidirection``)."""
_CLOSED = lazy(r"(?P<name>[^()]*?)\s*\((?P<type>[\w.]+(?:\)|…\)?))")
"""A layer cell known to be whole (its class closed, or cut with ``…``): a record that holds
one and meets a new name, shape and count is over, even with no blank line between (a cell
without its ``)`` may be a narrow table's wrapped ``(GR`` / ``U)``, so it is not)."""
_SOURCE = lazy(r"[\[' ]*(?P<name>[\w./-]+)(?P<cut>…)?(?:\[(?P<node>[0-9]+)\])?"
                     r"(?:\[(?P<index>[0-9]+)\])?")
HEADER_LINES = 16
"""The most lines a wrapped Keras 2 header spans, its rule included."""
TYPES = frozenset({*(k for k in KERAS_SIGNATURES if not k.endswith("Cell")),
                   *KERAS_KEEP_WIDTH, *KERAS_FREE_RESHAPING, "InputLayer", "Functional",
                   "Sequential"})
"""The Keras classes a cut ``(Bidirectio…`` is matched against."""


def read(lines: Sequence[str], start: int) -> tuple[Printout, int] | None:
    """A Keras 2 or Keras 3 summary whose header is at ``start`` (0-based)."""
    if lines[start].lstrip().startswith("|"):
        lines = ascii_box(lines, start)
    while start and lines[start - 1].lstrip().startswith("┃"):
        start -= 1  # a narrow table wraps its header cells too
    named = caption(lines, start, DIALECT)
    name, first = named if named is not None else ("model", start)
    boxed = "┃" in lines[start]
    unread: list[Unread] = []
    bottom = False
    if boxed:
        titles, body = box_header(lines, start, TITLES)
        box = box_records(lines, titles, body, DIALECT)
        records, bottom = box.records, box.bottom
        end, total = total_below(lines, box.end, DIALECT)
    elif squeezed := collapsed(lines[start], TITLES) or _wrapped_squeezed(lines[start]):
        titles = squeezed
        rule = next((i for i in range(start + 1, min(start + HEADER_LINES, len(lines)))
                     if lines[i].startswith("=")), start)
        records, end, total = _squeezed(lines, titles, rule + 1, unread)
    else:
        header, body = stacked_header(lines, start, TITLES, HEADER_LINES)
        titles = [column.title for column in header]
        records, body = column_records(lines, header, body, DIALECT, _ended) if (
            titles and titles[0] == TITLES[0]) else ([], body)
        end, total = total_below(lines, body, DIALECT)
    rows: list[Row] = []
    for record, line in records:
        read_row = row(record, line, DIALECT)
        if read_row is not None:
            rows.append(read_row)
        else:
            unread.append(Unread(line, lines[line - 1], "a row whose layer and class cell "
                                 "paramcount could not read"))
    if not rows:
        return _unplaced(lines, start, first, name) if first != start else None
    # a table cropped by a narrow console may hide its Connected to column: then it is not
    # known to be sequential, and no row's input is taken from the row above
    functional: bool | None = any(t.startswith("Conn") for t in titles)
    if not functional and boxed and box_cropped(lines, start):
        functional = None
    cropped = [] if total is not None else [NO_TOTAL]
    if boxed and not bottom:
        cropped.insert(0, "no bottom border `└`")
    accounting = Accounting.span(first + 1, end, unread, cropped)
    return Printout(DIALECT.kind, name, first + 1, end, tuple(rows), total,
                    functional=functional, accounting=accounting), end


def is_header(lines: Sequence[str], index: int) -> bool:
    """Whether ``lines[index]`` starts a Keras 2 header whose cells, joined down their wrapped
    lines, name the layer column first and the count column."""
    header, _ = stacked_header(lines, index, TITLES, HEADER_LINES)
    titles = [column.title for column in header]
    return bool(titles) and titles[0] == TITLES[0] and "Param #" in titles


_START = lazy(r"(?P<label>[^\s()]+ \((?P<type>[\w.]+)(?:\)|…\)|…)?)(?= |$)(?P<rest>.*)")
"""The first line of a record whose spacing was lost: ``name (Class)`` (its class perhaps cut
at the column's edge, ``(Bidirection``), then the other cells."""
_OPEN_SHAPE = lazy(r"(?P<shape>\[[^\[\]]*?\),) (?P<rest>[0-9,]+(?: .*)?)")
"""A first line whose list of output shapes wraps: ``[(None, 1),`` before the count."""
_SOURCE_CELL = lazy(r"\[.*\]|[\w./-]+(?:…)?(?:\[[0-9]+\]){1,2}")
"""A ``Connected to`` cell: a list (Keras 2.9+) or ``lstm_1[0][0]``."""


def _balance(text: str) -> int:
    """How many brackets ``text`` leaves open."""
    return sum(text.count(c) for c in "([") - sum(text.count(c) for c in ")]")


def _wrapped_squeezed(header: str) -> list[str] | None:
    """The titles of a squeezed header whose cells a narrow table wrapped (``Layer (type)
    Output Shape Pa Connected to``, ``ra`` / ``m`` / ``#`` below): its records wrap in every
    column too, so only those whose cells all take their forms on their lines are read."""
    text = header.strip()
    if not text.startswith(TITLES[0] + " Output Shape ") or re.search(r"\S {2,}\S", text):
        return None
    return [*TITLES[:3], *(t for t in TITLES[3:] if t in text)]


class _Squeezed:
    """One record of a squeezed table, its cells joined down the lines it wraps onto."""

    def __init__(self, label: str, rest: str, line: int) -> None:
        self.lines = [line]
        self.label = label
        self.cells: list[str] | None = None
        self.flag: list[str] = []
        if _balance(rest) and (flag := re.fullmatch(r"(.*) ([YN])", rest)):
            rest, self.flag = flag[1], [flag[2]]  # Trainable, on the first line of a wrap
        if _balance(rest) == 0:
            self.cells = squeezed_cells(rest)
        elif rest[:1] in "([" and group_end(rest, 0) is None:  # its shapes wrap
            opened = _OPEN_SHAPE.fullmatch(rest)
            tail = None if opened is None else squeezed_cells(opened["rest"]) if _balance(
                opened["rest"]) == 0 else _open_cells(opened["rest"])
            if opened is not None and tail is not None:
                self.cells = [opened.group("shape"), *tail]
        else:  # its sources wrap
            self.cells = _open_cells(rest)

    def more(self, text: str, line: int) -> None:
        """A line the record wraps onto: the rest of its class (``al)``), of its output
        shapes (``(None, 1)]``) and of its sources (``'simple_rnn[0][1]']``, ``']``), in that
        order; anything else (a count's last digits) leaves the record unread."""
        self.lines.append(line)
        if self.cells is None:
            return
        if not self.label.endswith(")") and (cut := re.match(r"[\w.]*\)", text)):
            self.label += cut.group()
            text = text[cut.end():].strip()
        shape = self.cells[0] if self.cells else ""
        if text and _balance(shape) > 0:
            depth, end = _balance(shape), 0
            while end < len(text) and depth > 0:
                depth += (text[end] in "([") - (text[end] in ")]")
                end += 1
            self.cells[0] = f"{shape} {text[:end]}"
            text = text[end:].strip()
        if text and len(self.cells) > 2 and _balance(self.cells[-1]) > 0 and not re.match(
                r"[0-9,]+(?: |$)", text) and _balance(self.cells[-1] + text) >= 0:
            self.cells[-1] += " " + text
        elif text:
            self.cells = None

    def record(self, titles: Sequence[str]) -> Record | None:
        """Its cells under ``titles``, or None where they do not take their forms (a shape,
        then a count, then a source list and a flag where the header has them)."""
        cells = None if self.cells is None else [*self.cells, *self.flag]
        if cells is None or len(cells) < 2 or count(cells[1]) is None or any(
                _balance(cell) for cell in cells):
            return None
        shape, params, more = cells[0], cells[1], cells[2:]
        if not (shape[:1] in "([" or shape == "multiple"):
            return None
        record = {TITLES[0]: self.label, "Output Shape": shape, "Param #": params}
        if "Trainable" in titles:
            if not more or more[-1] not in ("Y", "N"):
                return None
            record["Trainable"], more = more[-1], more[:-1]
        if more:
            if "Connected to" not in titles or not all(_SOURCE_CELL.fullmatch(m) for m in more):
                return None
            record["Connected to"] = " ".join(more)
        return record


def _open_cells(rest: str) -> list[str] | None:
    """The cells of a first line whose last cell (its sources) wraps: the closed ones, then
    the open list as it reads so far."""
    at = rest.rfind(" [")
    head = squeezed_cells(rest[:at]) if at > 0 else None
    return None if head is None else [*head, rest[at + 1:]]


def _squeezed(lines: Sequence[str], titles: Sequence[str], index: int,
              unread: list[Unread]) -> tuple[list[tuple[Record, int]], int, int | None]:
    """Keras 2's table where every run of spaces was squeezed to one (a page that does not
    keep a paste's spaces): no column positions are left, so each record is read by its cells'
    forms: ``name (Class)``, then a shape (or ``multiple``), the count, and where the header
    has them the ``Connected to`` list and the ``Trainable`` flag; the lines a record wraps
    onto are joined to it cell by cell. A record whose cells do not take these forms is named
    in ``unread``."""
    start = index
    records: list[tuple[Record, int]] = []
    current: _Squeezed | None = None

    def close() -> None:
        nonlocal current
        if current is not None:
            record = current.record(titles)
            if record is None:
                unread.extend(Unread(n, lines[n - 1], SQUEEZED_ROW) for n in current.lines)
            else:
                records.append((record, current.lines[0]))
        current = None

    while index < len(lines) and index - start < LIMIT:
        line = lines[index].strip()
        if TOTAL.match(line) or _ended(line):
            break
        if not line or re.fullmatch(r"[_=\-¯]+", line):
            close()
            index += 1
            continue
        begun = _START.fullmatch(line)
        if begun is not None and (current is None or current.record(titles) is not None or (
                _Squeezed(begun["label"], begun["rest"].strip(), 0).record(titles)
                is not None)):
            close()
            current = _Squeezed(begun["label"], begun["rest"].strip(), index + 1)
        elif current is not None:
            current.more(line, index + 1)
        else:
            unread.append(Unread(index + 1, lines[index], SQUEEZED_ROW))
        index += 1
    close()
    return records, *total_below(lines, index, DIALECT)


def _unplaced(lines: Sequence[str], start: int, first: int, title: str
              ) -> tuple[Printout, int] | None:
    """A summary under its ``Model: "..."`` line whose header and rows paramcount could not
    place (a narrow table, every cell wrapped, its indentation lost): none of its rows is
    read, each is named, and its printed total kept; None where its header is no Keras
    header."""
    if not lines[start].strip().startswith("Layer ("):
        return None
    unread: list[Unread] = []
    index = start + 1
    while index < len(lines) and index - start < LIMIT and not TOTAL.match(lines[index]) and (
            not _ended(lines[index])):
        if lines[index].strip() and not re.fullmatch(r"[_=\-¯]+", lines[index].strip()):
            unread.append(Unread(index + 1, lines[index], "a line of a summary whose columns "
                                 "paramcount could not place (its cells wrapped, its "
                                 "indentation lost)"))
        index += 1
    end, total = total_below(lines, index, DIALECT)
    accounting = Accounting.span(first + 1, end, unread, () if total is not None else (
        NO_TOTAL,))
    return Printout("keras-summary", title, first + 1, end, (), total,
                    accounting=accounting), end


_FENCE = lazy(r"\s*(```|~~~)")


def _ended(line: str) -> bool:
    """Whether ``line`` cannot be in a Keras 2 table's body, so a table cut before its totals
    ends above it: a Markdown fence, the next summary's ``Model: "..."`` or header."""
    return _FENCE.match(line) is not None or MODEL.match(line.strip()) is not None or (
        line.strip().startswith(TITLES[0]))


def _snake(kind: str) -> str:
    """The name Keras gives a layer of class ``kind`` (``bidirectional``, ``simple_rnn``,
    ``batch_normalization``): where a cut class (``(B``) could be several, a layer named as
    Keras names it (``bidirectional_29``) says which."""
    return re.sub(r"([a-z])([A-Z])", r"\1_\2",
                  re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", kind)).lower()


def _label(cell: str) -> tuple[str, str] | None:
    """A layer cell as (name, class): a class a narrow table cut (``(Bidirectio…``) as the
    one known class it can be, where one is."""
    match = _NAME_TYPE.fullmatch(cell.strip())
    if match is None:
        return None
    name = re.sub(r"\s+", "", match.group("name"))
    kind = match.group("type")
    kind = kind.removesuffix(")") if kind.endswith(")") else kind.removesuffix("…") + "…"
    if kind.endswith("…"):  # a narrow table cut it: the one known class it can be, if one
        known = [k for k in TYPES if k.startswith(kind[:-1]) and len(k) >= len(kind)]
        named = [k for k in known if _snake(k) == re.sub(r"_[0-9]+$", "", name)]
        kind = known[0] if len(known) == 1 else named[0] if len(named) == 1 else kind
    return name, kind


def _source(cell: str) -> tuple[str, int] | None:
    """A ``Connected to`` cell's first input: (layer name, output index; -1 where unprinted)."""
    connected = cell.strip()
    found = _SOURCE.match(connected) if connected and connected != "-" else None
    if found is None:
        return None
    index = found.group("index")
    return (found.group("name") + (found.group("cut") or ""),
            (number(index) or 0) if index is not None else -1)


DIALECT = Dialect("keras-summary", {"Layer (type)": "label", "Output Shape": "output",
                                    "Param #": "params", "Connected to": "source"},
                  after=_AFTER_TOTAL, name_type=_label, source=_source,
                  closed=_CLOSED, bars="|", caption=MODEL, rules=frozenset("_=-¯─━"))
"""Keras's table: ``name (Class)`` in one cell, its first input under ``Connected to``, its
total under ``Total params:`` with the trainable, non-trainable and optimizer lines after it;
Keras 2 nests a model's rows between ``|`` bars and ends a record whose class cell closed; the
model named by ``Model: "..."`` over it."""
