"""``print(model)`` of a torch module, read as the layer calls it prints (never evaluated).

``Net(`` then ``(name): Class(args)`` lines, nested modules indented under theirs, then ``)``;
or one module on one line (``LSTM(32, 128, num_layers=2, bidirectional=True)``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from paramcount.read.python_code import Block, Call, Step, layer_call
from paramcount.read.table import Printout


def read(lines: Sequence[str], start: int) -> tuple[Printout, int] | None:
    """A ``print(model)`` repr: ``Net(`` then ``(name): Class(...)`` lines, then ``)``."""
    head = re.match(r"^([A-Za-z_]\w*)\($", lines[start].rstrip())
    if head is None or start + 1 >= len(lines) or not re.match(
            r"^\s+\([\w.-]+\): ", lines[start + 1]):
        return None
    steps: list[Step] = []
    path: list[tuple[int, str]] = []
    index = start + 1
    while index < len(lines):
        line = lines[index].rstrip()
        if line == ")":
            index += 1
            break
        match = re.match(r"^(\s*)\((?P<attr>[\w.-]+)\): (?P<cls>[A-Za-z_]\w*)\((?P<rest>.*)$",
                         line)
        if match is None:
            if re.match(r"^\s*\)$", line):
                indent = len(line) - len(line.lstrip())
                path = [(i, a) for i, a in path if i < indent]
                index += 1
                continue
            break
        indent = len(match.group(1))
        path = [(i, a) for i, a in path if i < indent]
        attribute = ".".join([a for _, a in path] + [match.group("attr")])
        rest = match.group("rest")
        cls = match.group("cls")
        if rest == "":
            path.append((indent, match.group("attr")))
            if cls in _OWN_PARAMETERS:
                steps.append(Step(_unknown(cls, index + 1), attribute))
        else:
            call = _call(f"{cls}({rest}", index + 1)
            # a class paramcount cannot count is kept, so the model gets no total without it
            steps.append(Step(call if call is not None else _unknown(cls, index + 1),
                              attribute))
        index += 1
    if not steps:
        return None
    block = Block(head.group(1), "repr", start + 1, tuple(steps))
    return Printout("repr", head.group(1), start + 1, index, block=block), index


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
_ONE_MODULE = re.compile(r"(LSTM|GRU|RNN|LSTMCell|GRUCell|RNNCell)\(\d++, \d++"
                         r"(?:, \w++=[^,()=]++)*+\)")


def read_single(line: str, index: int) -> tuple[Printout, int] | None:
    """``print(lstm)`` of one module: ``LSTM(32, 128, num_layers=2, bidirectional=True)``."""
    if not line.startswith(_SINGLE) or (match := _ONE_MODULE.fullmatch(line.rstrip())) is None:
        return None
    call = _call(line.strip(), index + 1)
    if call is None:
        return None
    block = Block(match.group(1), "repr", index + 1, (Step(call, ""),))
    return Printout("repr", match.group(1), index + 1, index + 1, block=block), index + 1
