"""Rows of a summary table whose header is not in the paste: named, never silently dropped.

A printout cut at the top keeps its rows but loses the header line that each printer's reader
starts from (``Layer (type`` and the rule above it), so no reader claims them. They are found
here by the shape of a row of each printer (torchinfo's tree branches with a count, a Keras 3
box row, a Keras 2 ``name (Class)`` row with a shape and a count, a torchsummary
``Class-N  [shape]  count`` row, a Flax tabulate box row ending ``17 (68 B)``, colour codes
and all) among the lines nothing claimed, so that the answer names them as not read instead
of answering for the rest of the paste as if they were not there.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from paramcount.reading.accounting import Unread
from paramcount.reading.patterns import lazy

__all__ = ["headless_rows"]

_ROWS = (
    ("torchinfo", lazy(r"^(?:[│|] {4})*(?:├─|└─)\w+(?:[ :(].*)?\s{2,}(?:[0-9,]+|--)\s*$")),
    ("Keras 3", lazy(r"^\s*│ [^│]*\(\w+\)\s*│.*│\s*[0-9,]+\s*│")),
    ("Keras 2", lazy(r"^ ?[\w./-]+ \(\w+\)?\s{2,}[(\[].*?[)\]]\s{2,}[0-9,]+\b")),
    ("torchsummary", lazy(r"^\s+\w+-[0-9]+\s+\[[-0-9, ]+\]\s+[0-9,]+\s*$")),
    ("Flax tabulate", lazy(r"^\s*│.*│\s*[0-9,]+ \([0-9.]+ [KMGT]?B\)\s*│\s*$")),
)
_ANSI = lazy(r"\x1b\[[0-9;]*m")
_HEADERS = {"Flax tabulate": "`┃ path ┃ module ┃`"}
"""Each printer's header line where it is not ``Layer (type)``."""


def headless_rows(lines: Sequence[str], claimed: Collection[int]) -> tuple[list[Unread], str]:
    """The unclaimed lines that are rows of a summary table, each as Unread (1-based lines),
    and one sentence naming them ("" where there are none)."""
    found: list[Unread] = []
    printers: list[str] = []
    for number, line in enumerate(lines, 1):
        if number in claimed or len(line) > 2_000 or not line.strip():
            continue
        plain = _ANSI.sub("", line) if "\x1b" in line else line
        for printer, row in _ROWS:
            if row.match(plain):
                found.append(Unread(number, line, f"a row of a {printer} table whose header "
                                    "is not in the paste"))
                printers.append(printer)
                break
    if not found:
        return [], ""
    spans = _spans([u.line for u in found])
    kinds = " and ".join(dict.fromkeys(printers))
    one = len(found) == 1
    said = "looks like a row" if one else "look like rows"
    they = "it was" if one else "they were"
    header = " or ".join(dict.fromkeys(_HEADERS.get(p, "`Layer (type)`") for p in printers))
    return found, (f"{_lines(spans)} {said} of a {kinds} summary cut off above its header "
                   f"(the {header} line): {they} not read, and nothing here counts "
                   f"{'it' if one else 'them'}; paste the table from its header")


def _spans(numbers: Sequence[int]) -> list[tuple[int, int]]:
    """Consecutive numbers as (first, last) runs."""
    spans: list[tuple[int, int]] = []
    for number in numbers:
        if spans and number <= spans[-1][1] + 2:  # a blank or rule line between rows
            spans[-1] = (spans[-1][0], number)
        else:
            spans.append((number, number))
    return spans


def _lines(spans: Sequence[tuple[int, int]]) -> str:
    """``line 4`` / ``lines 4–9, 12``."""
    parts = [f"{a}" if a == b else f"{a}–{b}" for a, b in spans]
    single = len(spans) == 1 and spans[0][0] == spans[0][1]
    return ("line " if single else "lines ") + ", ".join(parts)
