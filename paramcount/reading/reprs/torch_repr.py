"""``print(model)`` of a torch module, read as the layer calls it prints (never evaluated).

``Net(`` then ``(name): Class(args)`` lines, nested modules indented under theirs, then ``)``;
or one module on one line (``LSTM(32, 128, num_layers=2, bidirectional=True)``). torch ≥ 2
folds repeated modules of a ``ModuleList`` or ``Sequential`` into one line,
``(1-2): 2 x GRU(60, 30)`` or ``(0-23): 24 x Block(`` over the first copy's lines: each copy
is counted. A line that is none of these is named unread; a repr without its closing ``)`` is
a crop, never summed as a whole model (:mod:`paramcount.reading.accounting`). A flop
counter's figures before a module's arguments (ptflops, calflops) are read past
(:mod:`.generic`).
"""

from __future__ import annotations

import ast
import dataclasses
import re
from collections.abc import Sequence
from dataclasses import dataclass

from paramcount.reading.accounting import Accounting, Unread
from paramcount.reading.code.python_code import Block, Call, Step, layer_call
from paramcount.reading.reprs.generic import (
    arguments,
    figures_only,
    parameters_figure,
    parameters_share,
)
from paramcount.reading.tables.table import Printout
from paramcount.usertext import digits_value

_ITEM = re.compile(r"^(?P<indent>\s*)\((?P<attr>[\w.-]+)\): (?:(?P<times>[0-9]+) x )?"
                   r"(?P<cls>[A-Za-z_][\w.]*)\((?P<rest>.*)$")
_CLOSE = re.compile(r"^(?P<indent>\s*)\)$")
_RANGE = re.compile(r"([0-9]+)-([0-9]+)")
MAX_COPIES = 100_000
"""The most copies a folded line is read as (a larger fold is named unread)."""


@dataclass
class _Frame:
    """A module whose children are being read: where it opened, and its fold, if folded."""

    indent: int
    attr: str
    copies: range | None = None
    """A folded module (``(0-2): 3 x Block(``): the indices of its copies, the first read."""
    start: int = 0
    """The index of its first step among the steps read."""


def read(lines: Sequence[str], start: int) -> tuple[Printout, int] | None:
    """A ``print(model)`` repr: ``Net(`` then ``(name): Class(...)`` lines, then ``)``."""
    head = re.match(r"^([A-Za-z_]\w*)\($", lines[start].rstrip())
    opening = start + 2 if start + 2 < len(lines) and figures_only(lines[start + 1]) else (
        start + 1)
    if head is None or opening >= len(lines) or not _ITEM.match(lines[opening]):
        return None
    steps: list[Step] = []
    stack: list[_Frame] = []
    unread: list[Unread] = []
    closed = False
    # indentation lost (every line flush left): nesting follows the brackets instead, each
    # module line ending in ``(`` opening one level and each ``)`` closing the innermost
    flush = not lines[opening].startswith((" ", "\t"))
    index = start + 1
    while index < len(lines):
        line = lines[index].rstrip()
        if line == ")" and flush and stack:
            _pop(stack, stack[-1].indent, steps)
            index += 1
            continue
        if line == ")":
            _pop(stack, 0, steps)
            closed = True
            index += 1
            break
        if not line.strip() or not (flush or line.startswith((" ", "\t"))):
            break  # a blank or unindented line: the repr was cut off above it
        if (close := _CLOSE.match(line)) is not None and not flush:
            _pop(stack, len(close["indent"]), steps)
            index += 1
            continue
        match = _ITEM.match(line)
        if match is None and figures_only(line):
            index += 1  # a printer's figures for the module above (ptflops): read past
            continue
        if match is None and flush:
            break  # not the repr's: it was cut off above this line
        if match is None:
            unread.append(Unread(index + 1, line, "not a `(name): Class(...)` line of a "
                                 "torch repr"))
            index += 1
            continue
        indent = len(stack) + 1 if flush else len(match["indent"])
        _pop(stack, indent, steps)
        copies, problem = _copies(match["attr"], match["times"])
        if problem:
            unread.append(Unread(index + 1, line, problem))
            index += 1
            continue
        attr = str(copies.start) if copies is not None else match["attr"]
        attribute = ".".join([f.attr for f in stack] + [attr])
        cls, rest = match["cls"], match["rest"]
        rest = rest[arguments(rest):]  # past a printer's own figures (ptflops, calflops)
        if rest == "":
            if cls in _OWN_PARAMETERS:
                steps.append(Step(_unknown(cls, index + 1), attribute))
            stack.append(_Frame(indent, attr, copies, len(steps)))
        else:
            call = _call(f"{cls}({rest}", index + 1)
            if call is None:
                unread.append(Unread(index + 1, line, _why(cls, rest)))
                # kept as a module paramcount cannot count, so no total is claimed without it
                call = _unknown(cls, index + 1)
            first = len(steps)
            steps.append(Step(call, attribute))
            if copies is not None:
                _repeat(steps, first, copies, ".".join(f.attr for f in stack))
        index += 1
    if not steps:
        return None
    if not closed:
        _pop(stack, 0, steps)
    cropped = () if closed else ("no closing `)`",)
    block = Block(head.group(1), "repr", start + 1, tuple(steps))
    accounting = Accounting.span(start + 1, index, unread, cropped)
    figure = parameters_figure(lines[start + 1]) if opening == start + 2 else None
    share = parameters_share(lines[start + 1]) if opening == start + 2 else None
    if share is not None and float(share) < 100:
        accounting = accounting + Accounting(cropped=(
            f"its printer figures the modules it shows at {share}% of the model's parameters: "
            "the rest are the model's own, which no repr line shows",))
    return Printout("repr", head.group(1), start + 1, index, block=block,
                    rounded_total=figure, accounting=accounting), index


def _copies(attr: str, times: str | None) -> tuple[range | None, str]:
    """A folded line's copies (``1-2`` with ``2 x``: indices 1 and 2), or why they cannot be
    read; (None, "") for a line that is not folded."""
    if times is None:
        return None, ""
    bounds = _RANGE.fullmatch(attr)
    if bounds is None:
        return None, "a folded repeat of an unknown form"
    low, high, count = digits_value(bounds[1]), digits_value(bounds[2]), digits_value(times)
    if high - low + 1 != count or count < 1:
        return None, f"a folded repeat of {count} copies over the indices {attr}"
    if count > MAX_COPIES:
        return None, f"a folded repeat of more than {MAX_COPIES:,} copies"
    return range(low, high + 1), ""


def _pop(stack: list[_Frame], indent: int, steps: list[Step]) -> None:
    """Close every module opened at ``indent`` or deeper, repeating each folded one's steps
    once for each further copy."""
    while stack and stack[-1].indent >= indent:
        frame = stack.pop()
        if frame.copies is not None:
            _repeat(steps, frame.start, frame.copies, ".".join(f.attr for f in stack))


def _repeat(steps: list[Step], first: int, copies: range, parent: str) -> None:
    """Steps ``first`` onwards (the first copy, at ``parent.{copies.start}``) repeated for
    each further copy, their attributes renumbered."""
    copy = steps[first:]
    head = f"{parent}.{copies.start}" if parent else str(copies.start)
    for number in copies[1:]:
        other = f"{parent}.{number}" if parent else str(number)
        for step in copy:
            rest = step.attribute[len(head):] if step.attribute.startswith(head) else ""
            steps.append(Step(dataclasses.replace(step.call), other + rest))


def _why(cls: str, rest: str) -> str:
    """Why a module line was not read: a class paramcount does not count, or arguments cut
    off or not Python."""
    try:
        ast.parse(f"{cls}({rest}", mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return f"the arguments of {cls} could not be read (cut off, or not Python)"
    return f"{cls} is a module paramcount does not count"


_OWN_PARAMETERS = frozenset({"MultiheadAttention"})
"""torch containers that hold parameters of their own, which ``print(model)`` does not show."""


def _unknown(cls: str, line: int) -> Call:
    """A repr line's module that cannot be read or counted, as a bare call of its class."""
    return Call(f"nn.{cls}", f"torch.nn.{cls}", (), (), line)


def _call(text: str, line: int) -> Call | None:
    """A repr line's ``Class(args)`` read as a torch call (never evaluated)."""
    value = layer_call(text, line)
    if value is not None:
        return Call(f"nn.{value.name}", f"torch.nn.{value.name}", value.args, value.kwargs,
                    line)
    return None


_SINGLE = ("LSTM", "GRU", "RNN")
_ONE_MODULE = re.compile(r"(LSTM|GRU|RNN|LSTMCell|GRUCell|RNNCell)\([0-9]++, [0-9]++"
                         r"(?:, \w++=[^,()=]++)*+\)")


def read_single(line: str, index: int) -> tuple[Printout, int] | None:
    """``print(lstm)`` of one module: ``LSTM(32, 128, num_layers=2, bidirectional=True)``."""
    if not line.startswith(_SINGLE) or (match := _ONE_MODULE.fullmatch(line.rstrip())) is None:
        return None
    call = _call(line.strip(), index + 1)
    if call is None:
        return None
    block = Block(match.group(1), "repr", index + 1, (Step(call, ""),))
    return Printout("repr", match.group(1), index + 1, index + 1, block=block,
                    accounting=Accounting.span(index + 1, index + 1)), index + 1
