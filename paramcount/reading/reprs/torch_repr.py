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
from collections.abc import Sequence

from paramcount.reading.accounting import Accounting, Unread
from paramcount.reading.code.python_code import Block, Call, Step, layer_call
from paramcount.reading.patterns import lazy
from paramcount.reading.reprs.generic import (
    parameters_figure,
    parameters_share,
    walk,
)
from paramcount.reading.tables.table import Printout
from paramcount.record import replace


def read(lines: Sequence[str], start: int) -> tuple[Printout, int] | None:
    """A ``print(model)`` repr: ``Net(`` then ``(name): Class(...)`` lines, then ``)``, its
    tree found by :func:`.generic.walk`; each module line read as the torch call it prints."""
    tree = walk(lines, start)
    if tree is None:
        return None
    steps: list[Step] = []
    unread = list(tree.unread)
    calls: dict[int, Call] = {}
    """Each line's call, read once: a folded repeat's further copies are copies of it."""
    for module in tree.modules:
        if module.opens:
            if module.cls in _OWN_PARAMETERS:
                steps.append(Step(_unknown(module.cls, module.line), module.path))
            continue
        call = calls.get(module.line)
        if call is not None:
            steps.append(Step(replace(call), module.path))
            continue
        call = _call(f"{module.cls}({module.rest}", module.line)
        if call is None:
            unread.append(Unread(module.line, lines[module.line - 1].rstrip(),
                                 _why(module.cls, module.rest)))
            # kept as a module paramcount cannot count, so no total is claimed without it
            call = _unknown(module.cls, module.line)
        calls[module.line] = call
        steps.append(Step(call, module.path))
    if not steps:
        return None
    unread.sort(key=lambda u: u.line)
    block = Block(tree.root, "repr", start + 1, tuple(steps))
    accounting = Accounting.span(start + 1, tree.end, unread,
                                 () if tree.closed else ("no closing `)`",))
    figures = tree.figures
    figure = parameters_figure(figures) if figures is not None else None
    share = parameters_share(figures) if figures is not None else None
    if share is not None and float(share) < 100:
        accounting = accounting + Accounting(cropped=(
            f"its printer figures the modules it shows at {share}% of the model's parameters: "
            "the rest are the model's own, which no repr line shows",))
    return Printout("repr", tree.root, start + 1, tree.end, block=block,
                    rounded_total=figure, accounting=accounting), tree.end


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
_ONE_MODULE = lazy(r"(LSTM|GRU|RNN|LSTMCell|GRUCell|RNNCell)\([0-9]++, [0-9]++"
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
