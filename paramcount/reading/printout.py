"""Printouts in a paste, each read by the module of the printer that made it.

A printer is a source: Keras summaries of both eras (``keras_summary``), torchinfo tables
(``torchinfo``), torchsummary tables (``torchsummary``), ``print(model)`` reprs
(``torch_repr``) and shape dumps (``shape_dump``). Each is found by its own landmarks (the
``Layer (type`` header and the rule above it, ``(name): Class(...)`` lines, ``torch.Size``)
and read into rows or named tensors; the lines it spans are claimed, so the code reader does
not see them. A torch RNN's sizes are read here from torchinfo's per-tensor rows; what else
a printout hides (a recurrent row's sizes) is solved from its counts by
:mod:`paramcount.reading.solve`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence

from paramcount.reading.listings import generic as listing
from paramcount.reading.listings import shape_dump
from paramcount.reading.patterns import lazy
from paramcount.reading.reprs import hf_repr, pytree, torch_repr
from paramcount.reading.tables import (
    aligned,
    flax_tabulate,
    haiku_tabulate,
    keras_summary,
    lightning,
    model_summary,
    texttable,
    torchinfo,
    torchsummary,
    torchtnt_summary,
)
from paramcount.reading.tables import generic as generic_table
from paramcount.reading.tables.table import Printout as Printout
from paramcount.reading.tables.table import Row as Row
from paramcount.reading.tables.table import Window
from paramcount.record import replace

Reader = Callable[[Sequence[str], int], "tuple[Printout, int] | None"]


def header_reader(lines: Sequence[str], index: int) -> Reader | None:
    """The reader of the table whose ``Layer (type`` header is ``lines[index]``: told apart by
    the rule above it (torchinfo ``===``, torchsummary ``---``, Keras 2 ``___``, Keras 3's
    box), else by the header's own columns and indentation."""
    line = lines[index]
    if "Layer" not in line and not line[:2].lstrip().startswith("L"):
        return None  # the most lines of a paste: no header of any table below
    if re.match(r"\s*[┃|] Layer\b", line):
        return keras_summary.read  # Keras 3's box (in ASCII too), its header cells wrapped
    if model_summary.is_header(line):
        return model_summary.read
    if "Layer (type" not in line:  # a narrow Keras 2 table wraps its header cells
        wrapped = line[:2].lstrip().startswith("L") and (keras_summary.is_header(
            lines, index) or (line.startswith("Layer (") and any(
                keras_summary.MODEL.match(above.strip()) for above in lines[max(index - 3, 0):
                                                                            index])))
        return keras_summary.read if wrapped else None
    above = lines[index - 1].strip()[:3] if index else ""
    if above == "===":
        return torchinfo.read
    if above == "---" or re.match(r"\s{3,}Layer \(type\)", line):
        return torchsummary.read
    if above == "___" or "Connected to" in line:
        return keras_summary.read
    if any(t in line for t in (":depth-idx", "var_name", "Mult-Adds", "Kernel Shape",
                               "Input Shape", "Param %")):
        return torchinfo.read
    following = next((x for x in lines[index + 1:index + 4] if x.strip() and not re.fullmatch(
        r"[=_\-\s]+", x)), "")
    if following.lstrip().startswith(("├", "└", "+ ")):
        return torchinfo.read
    return keras_summary.read if "Param #" in line or keras_summary.is_header(
        lines, index) else None


def landmark_reader(line: str) -> Reader | None:
    """The reader of a printout whose first line is ``line`` by a landmark of its own
    (Lightning's ``| Name | Type | Params`` header)."""
    if line.endswith("(") and hf_repr.starts(line):
        return hf_repr.read
    if "Name" in line and lightning.starts(line):
        return lightning.read
    if "path" in line and flax_tabulate.starts(line):
        return flax_tabulate.read
    if line.startswith("Name") and "# Parameters" in line:
        return torchtnt_summary.read
    if "Hierarchical" in line and model_summary.is_banner(line):
        return model_summary.read_hierarchical
    return None


def generic_reader(lines: Sequence[str], index: int) -> Reader | None:
    """The generic reader of a table no dialect claims, headed at ``lines[index]``: a pipe
    table, or one aligned by runs of spaces (:mod:`paramcount.reading.tables.generic`)."""
    first = lines[index][:1]
    if first == "|" and haiku_tabulate.starts(lines, index):
        return haiku_tabulate.read
    if first == "|" and generic_table.starts(lines, index):
        return generic_table.read
    if first in "│┃║" and first and generic_table.starts_box(lines, index):
        return generic_table.read_box
    if first.isalpha() and aligned.heads(lines[index]) and aligned.starts(lines, index):
        return aligned.read
    if index + 1 < len(lines) and lines[index + 1][:3] == "===" and texttable.starts(
            lines, index):
        return texttable.read
    return None


def find_printouts(lines: Sequence[str]) -> tuple[list[Printout], set[int]]:
    """Every printout in ``lines`` and the (1-based) line numbers they span."""
    found: list[Printout] = []
    claimed: set[int] = set()
    starts = [at for at, text in enumerate(lines) if _starts(lines, at, text)]
    starting = set(starts)  # a line no landmark or header starts is not asked again below
    following = 0  # the index in ``starts`` of the first start after ``index``
    index = 0
    while index < len(lines):
        line = lines[index]
        while following < len(starts) and starts[following] <= index:
            following += 1
        stop = starts[following] if following < len(starts) else len(lines)
        prior = following - 1 - (following > 0 and starts[following - 1] == index)
        before = starts[prior] + 1 if prior >= 0 else 0
        result: tuple[Printout, int] | None = None
        started = index in starting
        reader = (started and (landmark_reader(line) or header_reader(lines, index))
                  ) or generic_reader(lines, index)
        if reader is not None:
            result = reader(_span(lines, stop, before), index)
        elif line.rstrip().endswith("(") and not line.startswith(" "):
            span = _span(lines, stop, before)
            result = (pytree.read(span, index) if pytree.starts(span, index) else None
                      ) or torch_repr.read(span, index)
        elif "torch.Size" in line or shape_dump.is_dump(line) or listing.starts_literal(line):
            span = _span(lines, stop, before)
            result = (listing.read_literal(span, index) or shape_dump.read_bare(span, index)
                      or shape_dump.read_named(span, index))
        if line[:1] in _PREFIXED and (result is None or not result[0].accounting.whole) and (
                shifted := _read_prefixed(lines, index, before, stop, started)) is not None and (
                result is None or _better(shifted, result)):
            result = shifted  # a printout read whole as it stands is not read again
        if result is None:
            result = torch_repr.read_single(line, index)
        if result is None and torch_repr.may_list(line):
            result = torch_repr.read_listed(_span(lines, stop, before), index)
        if result is None:
            index += 1
            continue
        printout, end = result
        found.append(printout)
        claimed.update(range(printout.first, end + 1))
        index = max(end, index + 1)
    return listing.by_where(found, lines), claimed


def _span(lines: Sequence[str], stop: int, before: int) -> Window:
    """The lines a reader may read from a start: none of another printout's."""
    return Window(lines, stop, floor=before)


# -- printouts under a prefix ------------------------------------------------------------------

_PREFIXED = (" ", "\t", "#")
_COMMENT = lazy(r"\A#+ ?")
_REPR_START = lazy(r"[A-Za-z_]\w*\($")


def _starts(lines: Sequence[str], index: int, line: str) -> bool:
    """Whether ``line`` starts a table or a landmarked printout (as it stands, or under a
    prefix): where the scan of the printout above it ends."""
    if landmark_reader(line) or header_reader(lines, index):
        return True
    if line[:1] not in _PREFIXED:
        return False
    comment = line.lstrip().startswith("#")
    bare = _COMMENT.sub("", line.lstrip(), 1) if comment else line.lstrip()
    return bool(landmark_reader(bare) or "Layer (type" in bare or model_summary.is_header(bare)
                or _wrapped_header(lines, index, bare, comment))


def _read_prefixed(lines: Sequence[str], index: int, before: int = 0, stop: int | None = None,
                   started: bool = True) -> tuple[Printout, int] | None:
    """A printout whose every line carries a prefix, read as it would be without: indented as
    a Markdown code block (four spaces, or a tab), or commented out in the code it was pasted
    with (``# Total params: 618``). Tried only where the line without its prefix starts a
    printout (a table's header, a landmark, ``Net(``, a shape dump), on a view of the paste
    whose lines around it (the block that carries the prefix) are taken off it, line for
    line. ``started``: False where :func:`_starts` found no landmark or header there, which
    is not looked for again."""
    line = lines[index]
    comment = line.lstrip().startswith("#")
    bare = _COMMENT.sub("", line.lstrip(), 1) if comment else line.lstrip()
    if not ((started and (landmark_reader(bare) or "Layer (type" in bare
                          or model_summary.is_header(bare)
                          or _wrapped_header(lines, index, bare, comment)))
            or _REPR_START.match(bare.rstrip())
            or "torch.Size" in bare or shape_dump.is_dump(bare) or bare[:1] == "|"
            or listing.starts_literal(bare)
            or (aligned.heads(bare) and aligned.starts([bare, *_next(lines, index)], 0))):
        return None
    view = _unprefixed(lines, index, comment, before, len(lines) if stop is None else stop)
    reader = landmark_reader(view[index]) or header_reader(view, index) or generic_reader(
        view, index)
    if reader is not None:
        found = reader(view, index)
    elif _REPR_START.match(view[index].rstrip()):
        found = torch_repr.read(view, index)
    else:
        found = (listing.read_literal(view, index) or shape_dump.read_bare(view, index)
                 or shape_dump.read_named(view, index))
    if found is None:
        return None
    printout, end = found
    return replace(printout, shown=tuple(view[printout.first - 1:printout.last])), end


def _wrapped_header(lines: Sequence[str], index: int, bare: str, comment: bool) -> bool:
    """Whether ``lines[index]``, without its prefix (``bare``), starts a narrow Keras 2 table's
    header, its cells wrapped down the lines below it (``Layer (typ`` / ``e)``): told by its
    columns, read on the header's lines taken off the prefix they share."""
    if not bare[:2].lstrip().startswith("L"):
        return False
    block: list[str] = []
    for text in lines[index:index + keras_summary.HEADER_LINES]:
        stripped = text.lstrip()
        inside = stripped.startswith("#") if comment else (
            not stripped or text.startswith((" ", "\t")))
        if not inside:
            break
        block.append(_COMMENT.sub("", stripped, 1) if comment else text)
    if not comment:
        depth = min(len(text) - len(text.lstrip()) for text in block if text.strip())
        block = [text[depth:] for text in block]
    return keras_summary.is_header(block, 0)


def _next(lines: Sequence[str], index: int) -> list[str]:
    """The line after ``index`` without the prefix it shares (for a header's rule)."""
    if index + 1 >= len(lines):
        return []
    following = lines[index + 1].lstrip()
    return [_COMMENT.sub("", following, 1) if following.startswith("#") else following]


def _better(shifted: tuple[Printout, int], raw: tuple[Printout, int]) -> bool:
    """Whether a printout read without its lines' prefix is the better reading of what the
    paste holds than the one read with it: it reads further, or reads whole where the other
    could not (a table indented as a code block read with its indentation stops at its first
    row)."""
    return shifted[1] > raw[1] or (shifted[0].accounting.whole and not raw[0].accounting.whole)


def _unprefixed(lines: Sequence[str], index: int, comment: bool, before: int, stop: int
                ) -> Window:
    """``lines`` up to ``stop`` with the block around ``index`` (from ``before`` on) taken off
    its prefix: the comment marks of the commented lines around it, or the indentation every
    non-blank line around it shares (blank lines inside the block kept: an editor comments out
    none of them)."""
    def inside(text: str) -> bool:
        return not text.strip() or (text.lstrip().startswith("#") if comment else
                                    text.startswith((" ", "\t")))

    first = index
    while first > before and inside(lines[first - 1]):
        first -= 1
    last = index
    while last + 1 < stop and inside(lines[last + 1]):
        last += 1
    if comment:
        return Window(lines, stop, {at: _COMMENT.sub("", lines[at].lstrip(), 1)
                                    for at in range(first, last + 1)}, before)
    depth = min(len(text) - len(text.lstrip()) for text in lines[first:last + 1] if text.strip())
    return Window(lines, stop, {at: lines[at][depth:] for at in range(first, last + 1)}, before)


# -- inference --------------------------------------------------------------------------------

_TENSOR = lazy(r"(weight|bias)_(ih|hh|hr)(\w*)")
_GATES = {"RNN": 1, "GRU": 3, "LSTM": 4}


def torch_shapes(row: Row) -> dict[str, tuple[int, ...]]:
    """A torchinfo row's per-tensor shapes: its Kernel Shape column where printed, else solved
    from each tensor's count where a torch RNN's names tell them (a bias gives the gate rows
    G·H; without biases or projection, weight_hh holds G·H² values)."""
    if row.kernels:
        return dict(row.kernels)
    gates = _GATES.get(row.type.removesuffix("Cell"))
    if gates is None:
        return {}
    counts = dict(row.tensors)
    shapes: dict[str, tuple[int, ...]] = {}
    for name, number in row.tensors:
        match = _TENSOR.fullmatch(name)
        if match is None:
            return {}
        suffix = match.group(3)
        rows = counts.get(f"bias_ih{suffix}") or counts.get(f"bias_hh{suffix}")
        hh = counts.get(f"weight_hh{suffix}")
        if rows is None and hh is not None and f"weight_hr{suffix}" not in counts:
            root = math.isqrt(hh * gates)
            rows = root if root * root == hh * gates and root % gates == 0 else None
        if not rows:
            return {}
        role = match.group(1) + "_" + match.group(2)
        if role.startswith("bias"):
            shapes[name] = (number,)
        elif role in ("weight_ih", "weight_hh") and number % rows == 0:
            shapes[name] = (rows, number // rows)
        elif role == "weight_hr" and number % (rows // gates) == 0:
            shapes[name] = (number // (rows // gates), rows // gates)
        else:
            return {}
    return shapes
