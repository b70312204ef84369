"""torchinfo ``summary()`` tables, read column by column under their headers.

torchinfo 1.8 writes the layer column (``Layer (type:depth-idx)``, with `` (var_name)`` and
``:depth-idx`` as ``row_settings`` ask) then any subset of ``Input Shape``, ``Output Shape``,
``Param #``, ``Param %``, ``Kernel Shape``, ``Mult-Adds`` and ``Trainable``, each left-aligned
in a column of fixed width. A row's depth is its tree prefix (``├─``, ``│    └─``, or ``+ ``
with ``ascii_only``); ``verbose=2`` adds each tensor under its layer, its count after a branch
(``├─12,288``). Counts are read only under ``Param #``: ``--`` and ``(recursive)`` are unknown,
``(1,234)`` is a frozen layer's count.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from paramcount.read.accounting import Accounting
from paramcount.read.table import (
    NO_TOTAL,
    Column,
    Printout,
    Row,
    columns,
    count,
    first_shape,
    footer,
    tokens,
)

TITLES = ("Input Shape", "Output Shape", "Param #", "Param %", "Kernel Shape", "Mult-Adds",
          "Trainable")
_TREE = re.compile(r"(?P<indent>(?:[│|] {4})*)(?P<branch>├─|└─|\+ )(?P<label>.*)")
_LABEL = re.compile(r"(?P<type>\w+)(?: \((?P<name>[^()]*)\))?(?::\s*\d+-\d+)?")
_TENSOR = re.compile(r"[a-z_][\w.]*")
"""A tensor's name under its layer (``weight_ih_l0``, ``0.bias``); classes are capitalised."""
_AFTER = re.compile(r"\s*((Non-)?[Tt]rainable params|Total mult-adds|Input size|Forward/"
                    r"backward|Params size|Estimated Total|={5,})")
_LIMIT = 200_000


def _cells(line: str, found: Sequence[Column]) -> dict[str, str]:
    """A row's value cells: in order when every column has one (so a cell wider than its
    column, which pushes the rest right, is still placed), else under the header positions."""
    start = found[0].start
    parts = tokens(line[start:])
    if len(parts) == len(found):
        return {c.title: text for c, (_, text) in zip(found, parts, strict=True)}
    cells: dict[str, str] = {}
    for offset, text in parts:
        position = start + offset
        owner = max((c for c in found if c.start <= position), key=lambda c: c.start,
                    default=found[0])
        cells[owner.title] = (cells.get(owner.title, "") + " " + text).strip()
    return cells


def read(lines: Sequence[str], start: int) -> tuple[Printout, int] | None:
    """A torchinfo table whose header ``Layer (type...)`` is at ``start`` (0-based)."""
    header = lines[start]
    found = columns(header, TITLES)
    if not found:
        return None
    first = start - 1 if start and lines[start - 1].startswith("===") else start
    rows: list[Row] = []
    title = "model"
    total = None
    index = start + 1
    while index < len(lines) and index - start < _LIMIT:
        line = lines[index].rstrip()
        if (ended := footer(lines, index, _AFTER)) is not None:
            index, total = ended
            break
        if not line.strip() or set(line.strip()) <= {"=", "-"}:
            index += 1
            continue
        label_text = line[:found[0].start].rstrip() if len(line) > found[0].start else line
        cells = _cells(line, found) if len(line) > found[0].start else {}
        tree = _TREE.fullmatch(label_text)
        params_cell = cells.get("Param #", "")
        if tree is None:
            if rows:
                break
            label = _LABEL.match(label_text.strip())
            title = label.group("type") if label else label_text.split(" ")[0]
            rows.append(_layer(label_text.strip(), cells, index + 1, 0))
            index += 1
            continue
        depth = len(tree.group("indent")) // 5 + 1
        tensor = params_cell.startswith(("├─", "└─")) or _TENSOR.fullmatch(
            tree.group("label").strip()) is not None
        if tensor and rows:
            previous = rows[-1]
            name = tree.group("label").strip()
            number = count(params_cell[2:])
            kernel = first_shape(cells.get("Kernel Shape", ""))
            tensors = (*previous.tensors, (name, number)) if number is not None else (
                previous.tensors)
            kernels = (*previous.kernels, (name, tuple(d or 0 for d in kernel))) if (
                kernel and None not in kernel) else previous.kernels
            rows[-1] = Row(previous.name, previous.type, previous.shape, previous.params,
                           previous.line, previous.depth, tensors, previous.outputs,
                           input_shape=previous.input_shape, kernels=kernels)
        else:
            rows.append(_layer(tree.group("label").strip(), cells, index + 1, depth))
        index += 1
    if not rows:
        return None
    if len(rows) > 1 and rows[0].depth == 0 and rows[0].params is None:
        rows = rows[1:]
    accounting = Accounting.span(first + 1, index, cropped=() if total is not None else (
        NO_TOTAL,))
    return Printout("torchinfo", title, first + 1, index, tuple(rows), total,
                    accounting=accounting), index


def _layer(label: str, cells: dict[str, str], line: int, depth: int) -> Row:
    """One layer row: its class and name from the label, shapes and count from their columns."""
    match = _LABEL.fullmatch(label)
    kind = match.group("type") if match else label.split(" ")[0]
    name = (match.group("name") or "") if match else ""
    output = first_shape(cells.get("Output Shape", ""))
    params = cells.get("Param #", "")
    recursive = params.strip() == "(recursive)"
    return Row(name, kind, output, count(params), line, depth,
               outputs=(output,) if output else (),
               input_shape=first_shape(cells.get("Input Shape", "")),
               note="(recursive): a module used again, counted where it first appears"
               if recursive else "")
