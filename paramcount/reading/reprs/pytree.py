"""A JAX pytree module printed with its arrays' types: equinox's ``print(model)`` and
``eqx.tree_pprint``, read as the tensors it lists.

An equinox module prints as a constructor call whose fields hold arrays as JAX prints their
types (``weight_ih=f32[128,16]``), nested modules (``cell=LSTMCell(...)``), tuples and lists
of them (``layers=(Linear(...), Linear(...))``) and plain values (``hidden_size=32``). Every
array is a tensor, named by its field path (``cell.weight_ih``, ``layers.0.weight``), as
``eqx.filter(model, eqx.is_array)`` counts them; plain values are read past. Text inside the
call that is neither is named unread; a call whose closing parenthesis is not in the paste is
a crop. Equinox's cells are counted as tensors, not read as configurations (paramcount models
no equinox convention).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from paramcount.files.listing import NamedTensor
from paramcount.reading.accounting import Accounting, Unread
from paramcount.reading.patterns import lazy
from paramcount.reading.tables.table import Printout
from paramcount.usertext import digits_value

__all__ = ["read", "starts"]

_ARRAY = (r"(?:bf16|f16|f32|f64|i8|i16|i32|i64|u8|u16|u32|u64|bool|c64|c128)"
          r"\[(?P<dims>[0-9,]{0,200})\]")
_TOKEN = lazy(
    r"\s*+(?:(?P<field>[A-Za-z_]\w{0,100})=)?(?:"
    r"(?P<array>" + _ARRAY + r")"
    r"|(?P<call>[A-Za-z_][\w.]{0,200}(?:<locals>[\w.]{1,200})?)\("
    r"|(?P<open>[(\[{])"
    r"|(?P<close>[)\]}])"
    r"|(?P<comma>,)"
    r"|(?P<plain>-?[0-9][\w.+\-]{0,60}|True|False|None|'[^']{0,300}'|\"[^\"]{0,300}\""
    r"|<(?:[^<>]|<[^<>]{0,300}>){0,300}>|[A-Za-z_][\w.]{0,200}(?![\w.(]))"
    r")")
_START = lazy(r"[A-Za-z_][\w.]{0,200}(?:<locals>[\w.]{1,200})?\($")
_LOOK = 40
_LINES = 200_000


def starts(lines: Sequence[str], index: int) -> bool:
    """Whether ``lines[index]`` opens a module call (``Net(``) whose next lines print arrays'
    types as fields (``weight=f32[5,8]``)."""
    if _START.match(lines[index].rstrip()) is None:
        return False
    ahead = lines[index + 1:index + _LOOK]
    return any("=" in line and re.search(r"=" + _ARRAY, line) for line in ahead)


def read(lines: Sequence[str], start: int) -> tuple[Printout, int] | None:
    """The module call opening at ``lines[start]``, over as many lines as its parentheses
    take: every array a tensor named by its field path, and the line past it."""
    if not starts(lines, start):
        return None
    path: list[tuple[str, list[int]]] = []
    """Each open bracket's name in the path, and its next unnamed item's index."""
    tensors: list[NamedTensor] = []
    numbers: list[int] = []
    unread: list[Unread] = []
    index, opened = start, False
    while index < len(lines) and index - start < _LINES:
        line, at, bad = lines[index], 0, False
        while at < len(line) and line[at:].strip():
            token = _TOKEN.match(line, at)
            if token is None:
                bad = True
                break
            at = token.end()
            field = token.group("field")
            here = field if field is not None else str(path[-1][1][0]) if path else ""
            if token.group("array") is not None:
                dims = [digits_value(d) for d in token.group("dims").split(",") if d]
                tensors.append(NamedTensor(".".join([p for p, _ in path[1:]] + [here]),
                                           tuple(dims)))
                numbers.append(index + 1)
            elif token.group("call") is not None or token.group("open") is not None:
                path.append((here, [0]))
                opened = True
            elif token.group("close") is not None:
                path.pop()
                if not path:
                    break
            elif token.group("comma") is not None and path:
                path[-1][1][0] += 1
        if bad:
            unread.append(Unread(index + 1, line, "text inside the module that is no field, "
                                 "array or value"))
        index += 1
        if opened and not path:
            break
    if not tensors:
        return None
    cropped = ("its closing parenthesis is not in the paste",) if path else ()
    how = ("read as a JAX pytree module: its arrays (`f32[..]`) as tensors named by their "
           "fields, not as any framework's layers")
    return Printout("shapes", lines[start].strip()[:-1], start + 1, index,
                    tensors=tuple(tensors), tensor_lines=tuple(numbers), how=how,
                    modelled=False, accounting=Accounting.span(
                        start + 1, index, unread, cropped)), index
