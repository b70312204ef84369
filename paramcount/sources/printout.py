"""Printouts in a paste, each read by the module of the printer that made it.

A printer is a source: Keras summaries of both eras (``keras_summary``), torchinfo tables
(``torchinfo``), torchsummary tables (``torchsummary``), ``print(model)`` reprs
(``torch_repr``) and shape dumps (``shape_dump``). Each is found by its own landmarks (the
``Layer (type`` header and the rule above it, ``(name): Class(...)`` lines, ``torch.Size``)
and read into rows or named tensors; the lines it spans are claimed, so the code reader does
not see them. What a printout hides is inferred here from its counts: the input width of a
Keras recurrent layer (solving the count formula for I in whole numbers), whether an old Keras
GRU had ``reset_after=False``, the cell a ``Bidirectional`` row wraps, a torch RNN's sizes
from torchinfo's per-tensor rows.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from paramcount import conventions
from paramcount.errors import SpecError
from paramcount.sources import keras_summary, shape_dump, torch_repr, torchinfo, torchsummary
from paramcount.sources.table import Printout as Printout
from paramcount.sources.table import Row as Row
from paramcount.spec import Cell, Framework, LayerSpec, MergeMode

Reader = Callable[[Sequence[str], int], "tuple[Printout, int] | None"]


def header_reader(lines: Sequence[str], index: int) -> Reader | None:
    """The reader of the table whose ``Layer (type`` header is ``lines[index]``: told apart by
    the rule above it (torchinfo ``===``, torchsummary ``---``, Keras 2 ``___``, Keras 3's
    box), else by the header's own columns and indentation."""
    line = lines[index]
    if "┃" in line and re.match(r"\s*┃ Layer\b", line):
        return keras_summary.read  # Keras 3's box, its header cells perhaps wrapped
    if "Layer (type" not in line:
        return None
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
    return keras_summary.read if "Param #" in line else None


def find_printouts(lines: Sequence[str]) -> tuple[list[Printout], set[int]]:
    """Every printout in ``lines`` and the (1-based) line numbers they span."""
    found: list[Printout] = []
    claimed: set[int] = set()
    index = 0
    while index < len(lines):
        line = lines[index]
        result: tuple[Printout, int] | None = None
        reader = header_reader(lines, index)
        if reader is not None:
            result = reader(lines, index)
        elif line.rstrip().endswith("(") and not line.startswith(" "):
            result = torch_repr.read(lines, index)
        elif "torch.Size" in line or shape_dump.is_dump(line):
            result = shape_dump.read_bare(lines, index) or shape_dump.read_named(lines, index)
        if result is None:
            result = torch_repr.read_single(line, index)
        if result is None:
            index += 1
            continue
        printout, end = result
        found.append(printout)
        claimed.update(range(printout.first, end + 1))
        index = max(end, index + 1)
    return found, claimed


# -- inference --------------------------------------------------------------------------------

def solve_input(printed: int, spec: LayerSpec) -> list[int]:
    """The input width I for which ``spec`` holds exactly ``printed`` parameters, if any.

    Only the first layer's input weights depend on I, so the count is linear in it:
    count(I) = count(1) + (I − 1)·slope, with slope = count(2) − count(1) (D·G·H).
    """
    one, slope = _line(spec.replace(input_size=1) if spec.input_size != 1 else spec)
    if slope <= 0 or (printed - one) % slope:
        return []
    width = 1 + (printed - one) // slope
    return [width] if width > 0 else []


@functools.lru_cache(maxsize=4096)
def _line(spec: LayerSpec) -> tuple[int, int]:
    """count(1) and the slope D·G·H of a spec's count in its input width (a long table
    repeats a few configurations, so each is worked out once)."""
    one = conventions.total(spec)
    return one, conventions.total(spec.replace(input_size=2)) - one


@functools.lru_cache(maxsize=4096)
def _trial(cell: Cell, hidden: int, merge: MergeMode | None, bias: bool, framework: Framework,
           reset_after: bool | None) -> LayerSpec | None:
    """A configuration on one input feature, or None where the framework refuses it."""
    try:
        return LayerSpec(cell, 1, hidden, bidirectional=merge is not None, bias=bias,
                         framework=framework, merge_modes=(merge,) if merge else None,
                         reset_after=reset_after)
    except SpecError:
        return None


_KERAS_CELLS = {"LSTM": Cell.LSTM, "GRU": Cell.GRU, "SimpleRNN": Cell.RNN,
                "CuDNNLSTM": Cell.LSTM, "CuDNNGRU": Cell.GRU}


@dataclass(frozen=True)
class Inferred:
    """A Keras recurrent row's configuration, solved from its printed count."""

    spec: LayerSpec | None
    note: str
    candidates: tuple[LayerSpec, ...] = ()


def _bidirectional_options(row: Row, out: int) -> tuple[list[tuple[MergeMode, int]], str]:
    """The merge modes and hidden sizes a ``Bidirectional`` row's outputs allow, and what the
    table leaves open: with states (or ``merge_mode=None``) the last output is H wide, and an
    even number of outputs is the two directions' unmerged; otherwise concat (2H) or a merge
    that keeps H (sum, mul and ave print alike)."""
    same = "merge_mode sum, mul or ave: the output width does not tell them apart"
    if len(row.outputs) >= 2 and row.outputs[-1]:
        hidden = row.outputs[-1][-1] or 0
        if len(row.outputs) % 2 == 0:
            return [(MergeMode.NONE, hidden)], ""
        if out == 2 * hidden:
            return [(MergeMode.CONCAT, hidden)], ""
        return ([(MergeMode.SUM, hidden)], same) if out == hidden else ([], "")
    options = [(MergeMode.CONCAT, out // 2)] if out % 2 == 0 else []
    return [*options, (MergeMode.SUM, out)], same


def infer_keras(row: Row, width: int | None) -> Inferred:
    """The spec a Keras summary row implies, given the width it reads (None where the table
    does not show it): one configuration, or every one that fits when several do."""
    out = row.shape[-1] if row.shape else None
    if row.params is None or out is None:
        return Inferred(None, "the row shows no output width or count")
    merge_note = ""
    if row.type in _KERAS_CELLS:
        cells = [_KERAS_CELLS[row.type]]
        hidden = row.outputs[-1][-1] if len(row.outputs) > 1 and row.outputs[-1] else out
        options: list[tuple[MergeMode | None, int]] = [(None, hidden or 0)]
    elif row.type == "Bidirectional":
        cells = [Cell.LSTM, Cell.GRU, Cell.RNN]
        modes, merge_note = _bidirectional_options(row, out)
        options = list(modes)
    else:
        return Inferred(None, "not a recurrent row")
    framework = Framework.TF1_CUDNN if row.type.startswith("CuDNN") else Framework.KERAS
    candidates: list[LayerSpec] = []
    for cell in cells:
        for merge, hidden in options:
            for reset_after in ((True, False) if cell is Cell.GRU and framework is
                                Framework.KERAS else (None,)):
                for bias in (True, False):
                    trial = _trial(cell, hidden, merge, bias, framework, reset_after)
                    if trial is None:
                        continue
                    for solved in solve_input(row.params, trial):
                        if width is None or solved == width:
                            candidates.append(trial.replace(input_size=solved))
    # The usual configuration first: biases on, today's GRU default, concat.
    candidates.sort(key=lambda s: (not s.bias, s.reset_after is False))
    if not candidates:
        return Inferred(None, f"no recurrent layer with {out} outputs holds {row.params:,} "
                              f"parameters" + (f" reading {width} features" if width else ""))
    if len(candidates) == 1:
        spec = candidates[0]
        note = f"input width {spec.input_size} solved from the count"
        if spec.cell is Cell.GRU and spec.reset_after is False:
            note += ("; reset_after=False (Keras before 2.3 or tf.compat.v1): one bias of "
                     f"{spec.gate_rows} per direction")
        if merge_note and spec.merge_modes == (MergeMode.SUM,):
            note += "; " + merge_note
        return Inferred(spec, note, tuple(candidates))
    described = "; ".join(conventions.describe(c) for c in candidates)
    reads = "" if width is not None else " or what it reads"
    return Inferred(None, f"{len(candidates)} configurations fit this count (the table does "
                          f"not show what it wraps{reads}): {described}", tuple(candidates))


_TENSOR = re.compile(r"(weight|bias)_(ih|hh|hr)(\w*)")
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
