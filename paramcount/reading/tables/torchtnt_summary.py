"""torchtnt's module summary (``print(get_module_summary(model))``): a pipe table without
outer bars, read by the generic table reader.

Its header is ``Name | Type | # Parameters | # Trainable Parameters | Size (bytes) | ...``
over one unbroken dash rule; each module a row, nested by its dotted name; counts rounded
(``6.4 K``) unless ``get_summary_table(summary, human_readable_nums=False)`` printed them. What
the generic reader cannot know: the bars are only between the cells, and the first row, with
no name, is the whole model's (its count the total). The table is read on a view of the paste
(line for line) with the outer bars drawn and that row named ``model``, as fvcore names it.
"""

from __future__ import annotations

from collections.abc import Sequence

from paramcount.reading.patterns import lazy
from paramcount.reading.tables import generic
from paramcount.reading.tables.dialect import LIMIT
from paramcount.reading.tables.table import Printout

__all__ = ["read", "starts"]

_HEADER = lazy(r"\s*Name\s*\|\s*Type\s*\|\s*# Parameters\s*\|")
_RULE = lazy(r"\s*-{10,}\s*$")


def starts(lines: Sequence[str], index: int) -> bool:
    """Whether ``lines[index]`` is torchtnt's header over its dash rule."""
    return (_HEADER.match(lines[index]) is not None and index + 1 < len(lines)
            and _RULE.match(lines[index + 1]) is not None)


def read(lines: Sequence[str], start: int) -> tuple[Printout, int] | None:
    """The summary headed at ``lines[start]``, read by :func:`generic.read` on a view with
    its outer bars drawn and its first, unnamed row named ``model``."""
    width = lines[start].count("|")
    view = list(lines)
    view[start] = f"| {lines[start].strip()} |"
    view[start + 1] = "|---|"
    index = start + 2
    while index < len(lines) and index - start < LIMIT and lines[index].count("|") == width:
        line = lines[index].rstrip()
        if index == start + 2 and not line.split("|", 1)[0].strip():
            line = "model" + line
        view[index] = f"| {line} |"
        index += 1
    return generic.read_rewritten(view, lines, start, "torchtnt's module summary")
