"""torchinfo ``summary()`` tables, read column by column under their headers: a dialect of the
generic table reader (:mod:`.dialect`).

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

from paramcount.reading.accounting import Unread
from paramcount.reading.patterns import lazy
from paramcount.reading.tables.dialect import Dialect, Scan, layer, placed, printout
from paramcount.reading.tables.table import (
    SQUEEZED_ROW,
    Printout,
    Row,
    collapsed,
    count,
    first_shape,
    squeezed_cells,
)
from paramcount.record import replace

DIALECT = Dialect(
    "torchinfo", {"Input Shape": "input", "Output Shape": "output", "Param #": "params",
                  "Param %": "share", "Kernel Shape": "kernel", "Mult-Adds": "mult-adds",
                  "Trainable": "trainable"},
    after=lazy(r"\s*((Non-)?[Tt]rainable params|Total mult-adds|Input size|Forward/"
                     r"backward|Params size|Estimated Total|={5,})"), above=re.compile("==="))
"""Its value columns (the layer column before them has no fixed title: ``Layer
(type:depth-idx)``, ``Layer (type (var_name))``); the footer under its ``Total params``."""
TITLES = tuple(DIALECT.columns)
_TREE = lazy(r"(?P<indent>(?:[│|] {4})*)(?P<branch>├─|└─|\+ )(?P<label>.*)")
_LABEL = lazy(r"(?P<type>\w+)(?: \((?P<name>[^()]*)\))?(?::\s*[0-9]+-[0-9]+)?")
_TENSOR = lazy(r"[a-z_][\w.]*")
"""A tensor's name under its layer (``weight_ih_l0``, ``0.bias``); classes are capitalised."""


_SQUEEZED_TREE = lazy(r"(?P<indent>(?:[│|] ?)*)(?P<branch>├─|└─|\+ )(?P<label>.*)")


def _squeezed_header(header: str) -> list[str] | None:
    """The titles of a header whose spacing was lost (``Layer (type:depth-idx) Output Shape
    Param #``), the layer column's first; None where it keeps its spacing."""
    text = header.strip()
    cuts = [text.find(" " + t) for t in TITLES if " " + t in text]
    return collapsed(text, (text[:min(cuts)], *TITLES)) if cuts else None


def _squeezed_cells(line: str, titles: Sequence[str]) -> tuple[str, dict[str, str]] | None:
    """A squeezed row's label (its tree prefix kept) and value cells: the label as the header
    says it is written (``LSTM (l): 1-2``), then one cell a column; a tensor's row under its
    layer holds only its count (``├─512``) and its kernel shape. None where the cells do not
    fall one a column."""
    layer = titles[0]
    tree = _SQUEEZED_TREE.fullmatch(line.strip())
    body = tree.group("label") if tree else line.strip()
    pattern = r"\w+" + (r" \([^()]*\)" if "var_name" in layer else "") + (
        r"(?:: ?[0-9]+-[0-9]+)?" if "depth-idx" in layer else "")
    prefix = line.strip()[:len(line.strip()) - len(body)]
    tensor = re.match(r"(?:[0-9]+\.)*[a-z_][\w.]*(?= |$)", body) if tree else None
    label = tensor or re.match(pattern + r"(?= |$)", body)
    cells = squeezed_cells(body[label.end():]) if label else None
    if label is None or cells is None:
        return None
    if tensor is not None:  # a tensor's row under its layer: its count and its kernel shape
        values: dict[str, str] = {}
        for cell in cells:
            title = "Param #" if cell.startswith(("├─", "└─")) else "Kernel Shape"
            if title in values or title not in titles or (
                    title == "Kernel Shape" and not cell.startswith("[")):
                return None
            values[title] = cell
        return prefix + label.group(), values
    if len(cells) != len(titles) - 1:
        return None
    return prefix + label.group(), dict(zip(titles[1:], cells, strict=True))


def read(lines: Sequence[str], start: int) -> tuple[Printout, int] | None:
    """A torchinfo table whose header ``Layer (type...)`` is at ``start`` (0-based): its root
    row (no tree prefix) first, each layer under it by its tree prefix, each tensor's row
    (``verbose=2``) kept on its layer's."""
    header = lines[start]
    found = DIALECT.found(header)
    if not found:
        return None
    squeezed = _squeezed_header(header)
    unread: list[Unread] = []
    rows: list[Row] = []
    title = "model"
    scan = Scan(lines, start, DIALECT)
    for index, text in scan:
        line = text.rstrip()
        if squeezed:
            split = _squeezed_cells(line, squeezed)
            if split is None:
                unread.append(Unread(index + 1, line, SQUEEZED_ROW))
                continue
            label_text, cells = split
            tree = _SQUEEZED_TREE.fullmatch(label_text)
        else:
            label_text = line[:found[0].start].rstrip() if len(line) > found[0].start else line
            cells = placed(line, found) if len(line) > found[0].start else {}
            tree = _TREE.fullmatch(label_text)
        params_cell = cells.get("Param #", "")
        if tree is None:
            if rows:
                break
            label = _LABEL.match(label_text.strip())
            title = label.group("type") if label else label_text.split(" ")[0]
            rows.append(_layer(label_text.strip(), cells, index + 1, 0))
            continue
        depth = (len(re.findall("[│|]", tree.group("indent"))) if squeezed else
                 len(tree.group("indent")) // 5) + 1
        name = tree.group("label").strip()
        if rows and (params_cell.startswith(("├─", "└─")) or _TENSOR.fullmatch(name)):
            rows[-1] = _tensor(rows[-1], name, count(params_cell[2:]),
                               first_shape(cells.get("Kernel Shape", "")))
        else:
            rows.append(_layer(name, cells, index + 1, depth))
    if not rows:
        return None
    if len(rows) > 1 and rows[0].depth == 0 and rows[0].params is None:
        rows = rows[1:]
    return printout(DIALECT, DIALECT.first(lines, start), scan, rows, unread,
                    title=title), scan.end


def _tensor(row: Row, name: str, number: int | None, kernel: tuple[int | None, ...] | None
            ) -> Row:
    """A layer's row with one of its tensors' rows (``verbose=2``) kept on it: its count and
    its kernel shape, where printed."""
    return replace(
        row, tensors=(*row.tensors, (name, number)) if number is not None else row.tensors,
        kernels=(*row.kernels, (name, tuple(d or 0 for d in kernel))) if (
            kernel and None not in kernel) else row.kernels)


def _layer(label: str, cells: dict[str, str], line: int, depth: int) -> Row:
    """One layer row: its class and name from the label, shapes and count from their columns."""
    match = _LABEL.fullmatch(label)
    kind = match.group("type") if match else label.split(" ")[0]
    name = (match.group("name") or "") if match else ""
    recursive = cells.get("Param #", "").strip() == "(recursive)"
    return layer(DIALECT, DIALECT.roles(cells), line, name, kind, depth, note=(
        "(recursive): a module used again, counted where it first appears" if recursive
        else ""))
