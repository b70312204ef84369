"""PyTorch Lightning's ``ModelSummary`` tables: the plain ``| Name | Type | Params |`` table and
the boxed one ``RichModelSummary`` draws, their counts rounded (``593 K``, ``1.2 M``): a dialect
of the generic table reader (:mod:`.dialect`) whose rounding is :func:`interval`.

Lightning writes each count with ``get_human_readable_count``: below 1,000 the number itself,
else the number in thousands (K), millions (M), billions (B) or trillions (T), with one decimal
below 100 of its unit (``64.0 K``) and truncated to a whole one from 100 on (``593 K``). A count
is therefore an interval, read back exactly here by the same arithmetic (:func:`interval`);
the ``In sizes`` / ``Out sizes`` columns, printed when the module has an
``example_input_array``, give the widths the solver needs. A row's depth is the number of dots
in its name (``enc.0``); the totals below the table are rounded the same way.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence

from paramcount.reading.accounting import Unread
from paramcount.reading.patterns import lazy
from paramcount.reading.tables.dialect import Dialect, Scan, continues, layer, printout
from paramcount.reading.tables.table import Printout, Row
from paramcount.usertext import NOT_ASCII_DIGITS, digits_value, foreign_digits

_UNITS = ("", "K", "M", "B", "T")
_PLAIN = lazy(r"\s*\|\s*Name\s*\|\s*Type\s*\|\s*Params\b")
_RICH = lazy(r"\s*┃\s*┃\s*Name\s*┃\s*Type\s*┃\s*Params\b")
_COUNT = lazy(r"([0-9]{1,3}(?:,[0-9]{3})*|[0-9]+)(?:\.([0-9]))?\s*([KMBT]?)")
_FOOTER = lazy(r"\s*([0-9.,]+\s*[KMBT]?\s+(Trainable|Non-trainable|Total|Modules)|"
                     r"(Trainable|Non-trainable|Total|Modules)\b|[0-9.]+\s+Total estimated)")
_BOTTOM = frozenset("└┴┘─━")
"""The rule under a boxed table (``└──┴──┘``): its rows end there."""


def human(number: int) -> str:
    """``get_human_readable_count`` of Lightning 2.x, reproduced (so a rounded count is read
    back as exactly the numbers that print it), without the padding."""
    digits = int(math.floor(math.log10(number)) + 1 if number > 0 else 1)
    groups = min(math.ceil(digits / 3), len(_UNITS))
    scaled = number * (10 ** (-3 * (groups - 1)))
    index = groups - 1
    if index < 1 or scaled >= 100:
        return f"{int(scaled):,d} {_UNITS[index]}".rstrip()
    return f"{scaled:,.1f} {_UNITS[index]}"


def interval(cell: str) -> tuple[int, int] | None:
    """Every count that Lightning prints as ``cell`` (``593 K`` → 593,000 to 593,999): the
    first and last, or None where ``cell`` is no count Lightning prints. The printed value
    grows with the count, so both ends are found by bisection on it, each checked by
    :func:`human`."""
    text = cell.strip()
    target = _value(text)
    if target is None:
        return None
    low = _first(lambda n: (_value(human(n)) or (0, 0)) >= target)
    high = _first(lambda n: (_value(human(n)) or (0, 0)) > target) - 1
    if low > high or human(low) != text or human(high) != text:
        return None
    return low, high


_TOP = 10 ** 21
"""Beyond every count Lightning prints (it never abbreviates past trillions)."""


def _first(test: Callable[[int], bool]) -> int:
    """The least n in [0, _TOP] for which ``test`` (false, then true) holds."""
    low, high = 0, _TOP
    while low < high:
        middle = (low + high) // 2
        if test(middle):
            high = middle
        else:
            low = middle + 1
    return low


def _value(text: str) -> tuple[int, int] | None:
    """A printed count as a key that grows with the count: its size in tenths of a unit's
    thousandth (so ``1.2 M`` and ``1,200 K`` compare by size), then whether it is printed
    whole (``100.0 B``, rounded up from below 100, comes before ``100 B``); None where it is
    no printed count."""
    match = _COUNT.fullmatch(text)
    if match is None:
        return None
    whole, tenth, unit = match.group(1), match.group(2), match.group(3)
    if "," in whole and not re.fullmatch(r"[0-9]{1,3}(,[0-9]{3})+", whole):
        return None
    return (digits_value(whole.replace(",", "")) * 10 + int(tenth or 0)) * 10 ** (
        3 * _UNITS.index(unit)), int(tenth is None)


def starts(line: str) -> bool:
    """Whether ``line`` is the header of a Lightning summary table."""
    return _PLAIN.match(line) is not None or _RICH.match(line) is not None


def read(lines: Sequence[str], start: int) -> tuple[Printout, int] | None:
    """The Lightning summary whose header is ``lines[start]`` (0-based); its rows carry the
    interval each rounded count stands for."""
    rich = _RICH.match(lines[start]) is not None
    bar = "┃" if rich else "|"
    header = lines[start].strip().strip(bar) if rich else lines[start]
    titles = [cell.strip() for cell in header.split(bar)]
    scan = Scan(lines, start, DIALECT)
    body: list[tuple[int, list[str]]] = []
    bottom = not rich
    for index, line in scan:
        stripped = line.strip()
        if stripped.startswith("└") and set(stripped) <= _BOTTOM:
            bottom = True
            scan.close(index + 1)
            break
        if rich and stripped.startswith("│"):
            cells = [c.strip() for c in stripped.strip("│").split("│")]
            if not continues(body, cells):
                body.append((index, cells))
        elif not rich and re.match(r"\s*[0-9]+\s*\|", line):
            body.append((index, [c.strip() for c in line.split("|")]))
        else:
            break
    rows: list[Row] = []
    unread: list[Unread] = []
    for at, cells in body:
        named = dict(zip(titles, cells, strict=False))  # the row number's column has no title
        name, kind = named.get("Name", ""), named.get("Type", "")
        if not name or not re.fullmatch(r"\w+", kind):
            unread.append(Unread(at + 1, lines[at], "a row whose Name or Type cell is not a "
                                 "module's"))
        elif foreign_digits(" ".join(cells)) is not None:
            unread.append(Unread(at + 1, lines[at], NOT_ASCII_DIGITS))
        else:
            rows.append(layer(DIALECT, DIALECT.roles(named), at + 1, name, kind,
                              depth=name.count(".") + 1))
    if not rows:
        return None
    return printout(DIALECT, DIALECT.first(lines, start), scan, rows, unread,
                    cropped=() if bottom else ("no bottom border",)), scan.end


DIALECT = Dialect(
    "lightning", {"Name": "name", "Type": "type", "Params": "params", "In sizes": "input",
                  "Out sizes": "output"},
    after=_FOOTER, opens=_FOOTER, counts=interval, above=lazy(r"\s*┏"),
    rules=frozenset("-─━┡╇┩"),
    total=lazy(r"\s*(?:([0-9.,]+\s*[KMBT]?)\s+Total params"
                     r"|Total params:\s*([0-9.,]+\s*[KMBT]?))\s*$"))
"""Its columns; its counts rounded (:func:`interval`); its footer after the rows, where
its total stands before or after its words (``17.2 K  Total params``, ``Total params:
17.2 K``); the box's rule above its header and between its rows."""
