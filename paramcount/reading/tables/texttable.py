"""texttable's tables without borders (``set_deco(Texttable.HEADER)``, with or without
``VLINES``): titles centred over one ``===`` rule, read by the generic table reader.

texttable's default decoration draws ``+---+`` borders, which the generic pipe reader reads.
Without them, what the generic reader cannot know is where the columns are: the rule spans
the whole table (``=====``, or ``===+===`` where ``VLINES`` draws bars between cells), the
titles are centred, and the cells are padded to their column's width with three spaces (or
`` | ``) between columns. The columns are cut at the rule's ``+`` where it has them, else at
the runs of three or more spaces every row has in the same place; the table is then read on a
view of the paste (line for line) drawn as the pipe table it is.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence

from paramcount.reading.patterns import lazy
from paramcount.reading.tables import generic
from paramcount.reading.tables.dialect import LIMIT
from paramcount.reading.tables.table import Printout

__all__ = ["read", "starts"]

_RULE = lazy(r"={3,}(?:\+={3,})*")
_ABOVE = lazy(r"[=_\-]{5,}")
_TOTAL = lazy(r"\s*(?:Total|Totals|Sum)\b", re.I)
"""A total under its own words after the table: not a row."""


def starts(lines: Sequence[str], index: int) -> bool:
    """Whether ``lines[index]`` is such a header: titles over a ``===`` rule exactly as wide
    as the table (texttable pads the header line to it)."""
    if index + 1 >= len(lines):
        return False
    rule, header = lines[index + 1].rstrip(), lines[index].rstrip()
    if index and _ABOVE.fullmatch(lines[index - 1].strip()):
        return False  # a rule above the header: torchscan's table, or another's
    return (_RULE.fullmatch(rule) is not None and 0 < len(header) <= len(rule)
            and len(header.split()) >= 2 and len(rule) - len(header) < 20)


def _cuts(rule: str, rows: Sequence[str]) -> list[tuple[int, int]]:
    """Each column's span: between the rule's ``+`` marks, else between the runs of three or
    more spaces every row has in the same place."""
    if "+" in rule:
        edges = [-1, *[at for at, char in enumerate(rule) if char == "+"], len(rule)]
        return [(a + 1, b) for a, b in itertools.pairwise(edges)]
    width = len(rule)
    blank = [all(at >= len(row) or row[at] == " " for row in rows) for at in range(width)]
    spans, begin, at = [], 0, 0
    while at < width:
        if blank[at]:
            end = at
            while end < width and blank[end]:
                end += 1
            if end - at >= 3 and at > begin and end < width:  # not the padding at the end
                spans.append((begin, at))
                begin = end
            at = end
        else:
            at += 1
    if begin < width:
        spans.append((begin, width))
    return spans


def read(lines: Sequence[str], start: int) -> tuple[Printout, int] | None:
    """The table headed at ``lines[start]``, read by :func:`generic.read` on a view of it
    drawn as a pipe table."""
    rule = lines[start + 1].rstrip()
    index = start + 2
    while index < len(lines) and index - start < LIMIT and lines[index].strip() and (
            len(lines[index].rstrip()) <= len(rule)) and _TOTAL.match(lines[index]) is None and (
            lines[index].count("|") == rule.count("+")):
        index += 1
    body = [line.rstrip() for line in lines[start + 2:index]]
    if not body:
        return None
    spans = _cuts(rule, body)
    if len(spans) < 2:
        return None
    view = list(lines)
    for at in (start, *range(start + 2, index)):
        text = lines[at].rstrip().ljust(len(rule))
        cells = [text[a:b].strip().strip("|").strip() for a, b in spans]
        view[at] = "| " + " | ".join(cells) + " |"
    view[start + 1] = "|---|"
    return generic.read_rewritten(view, lines, start, "texttable's table")
