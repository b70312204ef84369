"""pytorch-model-summary's ``summary(model, x)``: its table (``Output Shape`` or, with
``show_input=True``, ``Input Shape``; ``Param #`` and ``Tr. Param #``) and, with
``show_hierarchical=True``, the ``print(model)`` repr after it whose lines end in
``, 2,208 params``.

Unlike torchsummary it counts every parameter of a module (an RNN's ``weight_ih_l0`` too), so
its rows' counts are whole; it lists the leaf modules a forward pass calls, numbered in call
order (``LSTM-4``), read by the generic loop of such tables (:func:`.dialect.numbered`). An
output cell may hold several shapes (an LSTM's output, ``h_n`` and ``c_n``): the first is the
output. The hierarchical repr is read as ``print(model)`` once its
count suffixes are cut off.
"""

from __future__ import annotations

from collections.abc import Sequence

from paramcount.reading.accounting import Accounting
from paramcount.reading.patterns import lazy
from paramcount.reading.reprs import torch_repr
from paramcount.reading.tables.dialect import LIMIT, Dialect, numbered, printout
from paramcount.reading.tables.table import Printout, Window
from paramcount.usertext import digits_value

DIALECT = Dialect(
    "pytorch-model-summary", {"Layer (type)": "label", "Output Shape": "output",
                              "Input Shape": "input", "Param #": "params",
                              "Tr. Param #": "trainable"},
    after=lazy(r"\s*((Non-)?[Tt]rainable params|-{5,})"),
    label=lazy(r"(?P<type>\w+)-(?P<index>[0-9]+)"))
"""Its columns (``Input Shape`` in place of ``Output Shape`` with ``show_input=True``); the
footer under its ``Total params``; its rows labelled ``Class-N``."""
_SUFFIX = lazy(r", [0-9,]+ params$")
_BANNER = lazy(r"\s*=+ Hierarchical Summary =+\s*$")


def is_header(line: str) -> bool:
    """Whether ``line`` is pytorch-model-summary's header (its ``Tr. Param #`` column)."""
    return "Layer (type)" in line and "Tr. Param #" in line


def read(lines: Sequence[str], start: int) -> tuple[Printout, int] | None:
    """The table whose header is ``lines[start]`` (0-based)."""
    rows, scan = numbered(lines, start, DIALECT)
    if not rows:
        return None
    return printout(DIALECT, DIALECT.first(lines, start), scan, rows), scan.end


def is_banner(line: str) -> bool:
    """Whether ``line`` is the ``=== Hierarchical Summary ===`` banner."""
    return _BANNER.match(line) is not None


def read_hierarchical(lines: Sequence[str], start: int) -> tuple[Printout, int] | None:
    """The hierarchical repr after the banner at ``lines[start]``: read as ``print(model)``
    with each line's ``, N params`` cut off, through the closing ``====`` rule."""
    index = start + 1
    while index < len(lines) and not lines[index].strip():
        index += 1
    if index >= len(lines):
        return None
    end = index
    while end < len(lines) and not lines[end].startswith("===") and end - index < LIMIT:
        end += 1
    cut = Window(lines, end, {at: _SUFFIX.sub("", lines[at].rstrip())
                             for at in range(index, end)})
    found = torch_repr.read(cut, index)
    if found is None:
        return None
    printout, last = found
    while last < len(lines) and (not lines[last].strip() or lines[last].startswith("===")):
        last += 1
        if lines[last - 1].startswith("==="):
            break
    inner = printout.accounting
    cropped = (*inner.cropped, *_unbalanced(lines[index:end], index))
    accounting = Accounting.span(start + 1, last, inner.unread, cropped)
    return Printout(printout.kind, printout.title, start + 1, last, block=printout.block,
                    accounting=accounting), last


def _unbalanced(lines: Sequence[str], offset: int = 0) -> list[str]:
    """Where a hierarchical repr's printed counts do not add up (a container's ``), N params``
    is not the sum of its children's): a line is missing from it (``offset``: the 0-based
    index of its first line in the paste)."""
    said: list[str] = []
    stack: list[int] = [0]
    for number, line in enumerate(lines):
        text = line.rstrip()
        suffix = _SUFFIX.search(text)
        value = digits_value(suffix.group()[2:-7].replace(",", "")) if suffix else None
        body = _SUFFIX.sub("", text)
        if body.endswith("(") and not body.lstrip().startswith(")"):
            stack.append(0)
        elif body.strip() == ")" and len(stack) > 1:
            children = stack.pop()
            if value is not None and children != value:
                said.append(f"the counts under line {offset + number + 1} add up to "
                            f"{children:,}, not the {value:,} it prints: a line is missing")
            if value is not None:
                stack[-1] += value
        elif value is not None:
            stack[-1] += value
    return said
