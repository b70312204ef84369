"""Tables as printers draw them, rich's boxes and fixed columns, read by a declared dialect.

Each printer draws a table any reader could cut into rows and cells; what only the printer's
own reader knows is small, declared in the one :class:`~.dialect.Dialect` record every table
printer fills: which of its header words is which column (its ``columns``: ``label`` a ``name
(Class)`` cell, ``name``, ``type``, ``output``, ``input``, ``params``, ``source``), how a count
cell reads (``1,234``; Flax's ``544 (2.2 KB)`` at the foot of its cell), how a shape reads
(``(None, 30, 64)``; Flax's ``float32[2,32]``), how a cell's wrapped lines join (Keras 3 wraps
at spaces, Flax stacks a cell's entries), which columns never wrap (two lines there are two rows
whose rule was lost), how a fixed-column row goes on over lines, its rules, and where its total
stands (``Total params:`` and the lines after it, by :func:`.dialect.footer`; a ``Total`` row in
the box). The machinery here does the rest: a box table's header joined down its wrapped lines
(:func:`box_header`) and its records between rules (:func:`box_records`, also for a box drawn in
ASCII, :func:`ascii_box`); a fixed-column header stacked down to its rule
(:func:`stacked_header`) and its records (:func:`column_records`); a header cell named as the
title it is (:func:`title`), a record made a :class:`Row` by its columns' roles (:func:`row`),
and the total under the table (:func:`total_below`).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Sequence

from paramcount.reading.patterns import lazy
from paramcount.reading.tables.dialect import DRAWN_LIMIT, Dialect, footer, layer
from paramcount.reading.tables.table import Column, Row, Window, count, tokens
from paramcount.record import record

Record = dict[str, str]
"""One row of a table: each column's text (its wrapped lines joined), by the column's title."""
DEPTH = "depth"
"""The key under which a record keeps its nesting (1 at the top), where its printer shows it."""


def title(text: str, known: Sequence[str]) -> str:
    """A header cell joined from its wrapped lines, as the title it is: compared without
    spaces, each ``…`` standing for the cut end of a word (Keras 2's ``Pa`` / ``ra`` / ``m`` /
    ``#`` and Keras 3's ``Par…`` / ``#`` are ``Param #``); any other text as it reads."""
    squeezed = re.sub(r"\s+", "", text)
    pattern = re.compile(".*?".join(map(re.escape, squeezed.split("…"))))
    found = [t for t in known if pattern.fullmatch(t.replace(" ", ""))]
    return found[0] if len(found) == 1 else " ".join(text.split())


def caption(lines: Sequence[str], start: int, dialect: Dialect, reach: int = 3
            ) -> tuple[str, int] | None:
    """The model's name the printer prints within ``reach`` lines above its table's header
    at ``start``, and that line's index; None where none stands there."""
    for back in range(start - 1, max(start - 1 - reach, -1), -1):
        if (found := dialect.caption.search(lines[back])) is not None:
            return found.group(1), back
    return None


def box_cropped(lines: Sequence[str], start: int) -> bool:
    """Whether a console narrower than a box table cropped it on the right: its top border
    does not close with ``┓`` (where no border is pasted: its header line with ``┃``), so a
    column may be hidden, cut right after a bar."""
    border = lines[start - 1].strip() if start else ""
    if border.startswith("┏"):
        return not border.endswith("┓")
    return not lines[start].rstrip().endswith("┃")


def box_cells(line: str, bar: str, width: int | None = None) -> list[str]:
    """A box row's cells (``width`` of them, for a row under a header of that many). A console
    narrower than the table crops its lines: a row's last cell is then cut short, and left
    blank (unknown), unless the crop fell in its padding (two spaces or more after its text:
    ``line_length=200`` on an 80-column console keeps the layer names whole); a header's is
    kept (``Conne`` still says Connected to)."""
    cells = line.strip().split(bar)[1:]
    if width is None:
        return cells[:-1] if line.rstrip().endswith(bar) else cells
    if len(cells) == width + 1 and not cells[-1].strip():
        return cells[:-1]
    if len(cells) != width:
        return []
    whole = line.endswith("  ") and cells[-1].strip() != ""
    return cells if whole else [*cells[:-1], ""]


def box_header(lines: Sequence[str], start: int, known: Sequence[str]) -> tuple[list[str], int]:
    """A box table's header cells at ``start`` (``┃ a ┃ b ┃``), each joined down the lines a
    narrow table wraps it onto (``Par…`` / ``#``) and named by :func:`title`, and the index of
    the line below them."""
    cells = [cell.strip() for cell in box_cells(lines[start], "┃")]
    index = start + 1
    while index < len(lines) and (line := lines[index].strip()).startswith("┃") and len(
            more := box_cells(line, "┃")) == len(cells):
        cells = [" ".join(filter(None, (t, c.strip()))) for t, c in zip(cells, more,
                                                                         strict=True)]
        index += 1
    return [title(cell, list(known)) for cell in cells], index


@record
class Box:
    """A box table's body as read: its records (each with its first line, 1-based), the index
    past it, whether its bottom border was seen, the count its ``Total`` row states and the
    lines where two rows ran together."""

    records: list[tuple[Record, int]]
    end: int
    bottom: bool
    total: int | None
    merged: list[int]


def box_records(lines: Sequence[str], titles: Sequence[str], index: int, dialect: Dialect
                ) -> Box:
    """A box table's rows below its header (``index`` its first line): cells between ``│``
    bars, a row's wrapped lines joined as ``dialect`` joins them, rows ended by rules (``├``,
    ``┡``), blank lines or the bottom border; a row's nesting from the ``└`` glyph opening its
    first cell (``expand_nested``)."""
    start = index
    records: list[tuple[Record, int]] = []
    current: dict[str, list[str]] = {}
    merged: list[int] = []
    at = 0
    first = titles[0] if titles else ""
    total: int | None = None

    def close() -> None:
        if current:
            record = {t: dialect.join.join(v) for t, v in current.items()}
            if any(len(current.get(t, ())) > 1 for t in dialect.unwrapped):
                merged.append(at)
            records.append((record, at))
            current.clear()

    bottom = False
    while index < len(lines) and index - start < DRAWN_LIMIT:
        line = lines[index].strip()
        if line.startswith("│") and (cells := box_cells(lines[index], "│", len(titles))):
            if not current:
                at = index + 1
                nested = re.match(r"(\s*)└", cells[0])
                if nested is not None:
                    current[DEPTH] = [str(1 + max(len(nested[1]) - 1, 0) // dialect.nest)]
            for name, cell in zip(titles, cells, strict=True):
                text = cell.strip()
                if text:
                    current.setdefault(name, []).append(
                        text.removeprefix("└").strip() if name == first else text)
        elif line.startswith(("├", "┡", "└")) or not line:
            if line.startswith("└"):
                bottom = True
                last = {t: " ".join(v) for t, v in current.items()}
                if dialect.total_row and "Total" in last.values():
                    total = dialect.number(last.get(dialect.column("params") or "", ""))
                    current.clear()
                close()
                index += 1
                break
            close()
        else:
            break
        index += 1
    close()
    return Box(records, index, bottom, total, merged)


def stacked_header(lines: Sequence[str], start: int, known: Sequence[str], reach: int
                   ) -> tuple[list[Column], int]:
    """A fixed-column header at ``start``: its columns, each starting where its cell does on
    the first line, titled (:func:`title`) by the fragments a narrow table stacks under that
    start down to the ``===`` rule within ``reach`` lines (``Layer (typ`` / ``e)``, ``Pa`` /
    ``ra`` / ``m`` / ``#``); and the index of the line after the header (one line where no
    rule follows)."""
    rule = next((i for i in range(start + 1, min(start + reach, len(lines)))
                 if lines[i].startswith("=")), None)
    starts = [at for at, _ in tokens(lines[start])]
    parts: list[list[str]] = [[] for _ in starts]
    for line in lines[start:rule if rule is not None else start + 1]:
        for at, text in tokens(line):
            parts[max(bisect_right(starts, at) - 1, 0)].append(text)
    header = [Column(title(" ".join(part), known), at)
              for part, at in zip(parts, starts, strict=True)]
    return header, rule if rule is not None else start + 1


def column_records(lines: Sequence[str], header: Sequence[Column], index: int,
                   dialect: Dialect, ended: Callable[[str], bool]
                   ) -> tuple[list[tuple[Record, int]], int]:
    """A fixed-column table's rows below its header (``index`` its first line), up to its total
    or a line ``ended`` says cannot be in it: each line cut under the header's columns (the
    first from the line's start), a row's wrapped lines joined cell by cell as cut, rows ended
    by blank lines and rules, or by a new name, shape and count under a whole label
    (``dialect.closed``); a row's depth from the bars it stands between (``dialect.bars``); a
    later line that lost its indentation (flush, opening with a bracket) read as its outputs'.
    Also the index where the rows end."""
    start = index
    starts = [0] + [c.start for c in header[1:]]
    titles = [c.title for c in header]
    label, params, outputs = titles[0], dialect.column("params"), dialect.column("output")
    shape_at = titles.index(outputs) if outputs in titles else 1
    records: list[tuple[Record, int]] = []
    current: dict[str, str] = {}
    at = 0

    def close() -> None:
        if current:
            records.append((dict(current), at))
            current.clear()

    while index < len(lines) and index - start < DRAWN_LIMIT:
        line = lines[index]
        level = len(line) - len(line.lstrip(dialect.bars)) if dialect.bars else 0
        if level:  # a nested model's rows between bars, one a level
            body = line[level:].rstrip()
            line = " " * level + (body[:-level] if body.endswith(dialect.bars * level) else body)
        stripped = line.strip()
        if dialect.total.match(line) or ended(line):
            break
        if not stripped or dialect.rule(stripped):
            close()
            index += 1
            continue
        cells = [line[begin:(starts[k + 1] if k + 1 < len(starts) else len(line))]
                 for k, begin in enumerate(starts)]
        name = cells[0].strip()
        number = cells[titles.index(params)].strip() if params in titles else ""
        shape = cells[shape_at] if len(cells) > shape_at else ""
        whole = dialect.closed is not None and dialect.closed.fullmatch(
            current.get(label, "").strip()) is not None
        if name and number and shape.strip()[:1] in "([" and whole:
            close()  # the blank lines between rows were lost in the paste
        if not current:
            at = index + 1
            if level:
                current[DEPTH] = str(level + 1)
        elif not re.fullmatch(r"[0-9,]+", number) and line[:1] in "(['" and whole:
            # a row's later line that lost its indentation (a paste left flush): its text is
            # the outputs' and sources', not the complete label's
            if stripped[:1] in "([" and outputs in titles:
                current[outputs or ""] += re.split(r"\s{2,}", stripped)[0]
            index += 1
            continue
        for heading, cell in zip(titles, cells, strict=True):
            chunk = cell.rstrip()
            if heading == label:
                chunk = chunk[1:] if chunk.startswith(" ") else chunk
            if chunk.strip():
                current[heading] = current.get(heading, "") + chunk
        index += 1
    close()
    return records, index


_ASCII_RULE = lazy(r"\|[-+|=]+\|?")
_ASCII_EDGE = lazy(r"\+-+\+?")


def ascii_box(lines: Sequence[str], start: int) -> Window:
    """A box table as rich draws it where the console cannot show box characters (an ASCII or
    cp1252 console, a log piped on Windows): ``+---+`` edges, ``|`` bars, ``|---+---|`` rules.
    The lines of the table around ``start`` (its header) are given the box characters rich
    draws elsewhere, line for line, so one reader reads both."""
    out: dict[int, str] = {}
    top = start
    while top and lines[top - 1].lstrip().startswith("|") and not _ASCII_RULE.fullmatch(
            lines[top - 1].strip()):
        top -= 1  # the header's wrapped cells above its first line
    if top and _ASCII_EDGE.fullmatch(edge := lines[top - 1].strip()):
        out[top - 1] = "┏" + "━" * (len(edge) - 2) + ("┓" if edge.endswith("+") else "━")
    header = True
    for index in range(top, len(lines)):
        text = lines[index]
        stripped = text.strip()
        indent = text[:len(text) - len(text.lstrip())]
        if _ASCII_RULE.fullmatch(stripped):
            out[index] = indent + "├" + stripped[1:]
            header = False
        elif stripped.startswith("|"):
            out[index] = text.replace("|", "┃" if header else "│")
        elif _ASCII_EDGE.fullmatch(stripped):
            out[index] = indent + "└" + stripped[1:]
            break
        else:
            break
    return Window(lines, len(lines), out)


def row(record: Record, line: int, dialect: Dialect) -> Row | None:
    """A record read as a layer's row (:func:`.dialect.layer`), its name and class from one
    ``label`` cell or from ``name`` and ``type``, its depth where the printer shows it; None
    where its name and class cannot be read."""
    role = dialect.roles(record)
    if dialect.name_type is not None:
        named = dialect.name_type(role.get("label", ""))
        if named is None:
            return None
        name, kind = named
    else:
        name, kind = role.get("name", "").strip(), role.get("type", "").strip()
    return layer(dialect, role, line, name, kind, int(record.get(DEPTH, "1")))


def total_below(lines: Sequence[str], index: int, dialect: Dialect) -> tuple[int, int | None]:
    """The total ``dialect`` states at or after ``index`` (past rules, and blank lines where
    the printer leaves them) with the footer lines after it: (the line past them, the total);
    (the line past the rules, None) where none stands there."""
    while index < len(lines) and (dialect.rule(lines[index]) if lines[index].strip()
                                  else dialect.gap):
        index += 1
    ended = footer(lines, index, dialect)
    return (ended[0], count(ended[1] or "")) if ended is not None else (index, None)
