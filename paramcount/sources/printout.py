"""Printouts in a paste: Keras summaries, torchinfo tables, ``print(model)`` reprs, shape dumps.

Each is found by its own landmarks (``Layer (type)`` and ``Param #`` headers, ``Total
params:``, ``(name): Class(...)`` lines, ``torch.Size([...])``) and read into rows or named
tensors; the lines it spans are claimed, so the code reader does not see them. Keras 2 rows
(``lstm (LSTM)  (None, 64)  16896``, long names wrapped onto the next line) and Keras 3 rows
(box-drawing cells) are read alike. What a printout hides (a recurrent row's sizes) is solved
from its counts by :mod:`paramcount.solve`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from paramcount.sources.base import NamedTensor
from paramcount.sources.python_code import Block, Call, Step, layer_call


@dataclass(frozen=True)
class Row:
    """One layer row of a summary table."""

    name: str
    type: str
    shape: tuple[int | None, ...] | None
    """The printed output shape (None for the batch axis), where the table shows one."""
    params: int | None
    """The printed count (None for torchinfo's ``--``)."""
    line: int
    depth: int = 1
    tensors: tuple[tuple[str, int], ...] = ()
    """torchinfo's per-tensor rows under this layer: (name, count)."""


@dataclass(frozen=True)
class Printout:
    """One printout found in the paste."""

    kind: str
    """``keras-summary``, ``torchinfo``, ``repr`` or ``shapes``."""
    title: str
    first: int
    last: int
    rows: tuple[Row, ...] = ()
    total: int | None = None
    tensors: tuple[NamedTensor, ...] = ()
    tensor_lines: tuple[int, ...] = ()
    block: Block | None = None
    """A repr, read as the layer calls it prints."""


_BOX = str.maketrans({c: "  " for c in "│┃║|"})
_COUNT = re.compile(r"^[\d,]+$")
_TOTAL = re.compile(r"^\s*Total params:\s*([\d,]+)")
_SHAPE = re.compile(r"\(([^()]*)\)")
_LIST = re.compile(r"\[([^\[\]()]*)\]")


def _int(text: str) -> int | None:
    text = text.strip().lstrip("├└─").replace(",", "")
    return int(text) if text.isdigit() else None


def _dims(text: str) -> tuple[int | None, ...] | None:
    match = _SHAPE.search(text) or _LIST.search(text)
    if match is None:
        return None
    inner = match.group(1)
    dims: list[int | None] = []
    for part in inner.split(","):
        part = part.strip()
        if not part:
            continue
        if part == "None" or part == "?":
            dims.append(None)
        elif part.isdigit():
            dims.append(int(part))
        else:
            return None
    return tuple(dims)


def _cells(line: str) -> list[str]:
    return [c for c in re.split(r"\s{2,}", line.translate(_BOX).strip()) if c]


def _keras_summary(lines: Sequence[str], start: int) -> tuple[Printout, int] | None:
    """A Keras 2 or Keras 3 summary whose header is at ``start`` (0-based)."""
    title = "model"
    first = start
    for back in range(start - 1, max(start - 4, -1), -1):
        found = re.search(r'Model:\s*"([^"]+)"', lines[back])
        if found:
            title, first = found.group(1), back
            break
    rows: list[Row] = []
    pending: list[str] | None = None
    total = None
    index = start + 1
    while index < len(lines) and index - start < 200_000:
        line = lines[index]
        match = _TOTAL.match(line.translate(_BOX))
        if match:
            total = _int(match.group(1))
            index += 1
            while index < len(lines) and re.match(
                    r"^\s*((Non-)?[Tt]rainable params|Optimizer params|_{5,}|={5,})",
                    lines[index]):
                index += 1
            break
        cells = _cells(line)
        stripped = line.strip().strip("━┏┓┡┩└┘├┤┼─┴┬╇╈┳╋═╧╪").strip()
        if not cells or not stripped or re.fullmatch(r"[_=\-─━ ]+", line.strip()):
            index += 1
            continue
        if len(cells) >= 3 and _int(cells[2]) is not None:
            pending = cells
            name_type = cells[0]
            rows.append(_row(name_type, cells[1], _int(cells[2]), index + 1))
        elif rows and pending is not None and len(cells) <= 3 and (
                len(cells) < 3 or _int(cells[-1]) is None):
            previous = rows[-1]
            joined = _join(f"{previous.name} ({previous.type}" if previous.type else
                           previous.name, cells[0])
            rows[-1] = _row(joined, "", previous.params, previous.line, previous.shape)
        else:
            break
        index += 1
    if not rows:
        return None
    return Printout("keras-summary", title, first + 1, index, tuple(rows), total), index


def _join(head: str, tail: str) -> str:
    """A wrapped name cell put back together: ``bidirectional (Bidirectiona`` + ``l)``."""
    if head.count("(") > head.count(")"):
        return head + tail
    return head + " " + tail


def _row(name_type: str, shape: str, params: int | None, line: int,
         dims: tuple[int | None, ...] | None = None) -> Row:
    match = re.match(r"^(\S+)\s*\(([\w.]*)\)?$", name_type.strip())
    if match:
        name, kind = match.group(1), match.group(2)
    else:
        name, kind = name_type.strip(), ""
    return Row(name, kind, dims if dims is not None else _dims(shape), params, line)


_TREE = re.compile(r"^(?P<indent>[│ ]*)(?P<branch>[├└]─)(?P<label>.*)$")


def _torchinfo(lines: Sequence[str], start: int) -> tuple[Printout, int] | None:
    """A torchinfo table whose header ``Layer (type...)`` is at ``start``."""
    first = start - 1 if start and lines[start - 1].startswith("===") else start
    rows: list[Row] = []
    title = "model"
    total = None
    top: Row | None = None  # a module without children is its table's only row
    index = start + 1
    while index < len(lines) and index - start < 200_000:
        line = lines[index].rstrip()
        match = _TOTAL.match(line)
        if match:
            total = _int(match.group(1))
            index += 1
            while index < len(lines) and re.match(
                    r"^\s*((Non-)?[Tt]rainable params|Total mult-adds|Input size|Forward/"
                    r"backward|Params size|Estimated Total|={5,})", lines[index]):
                index += 1
            break
        if not line.strip() or set(line.strip()) <= {"=", "-"}:
            index += 1
            continue
        tree = _TREE.match(line)
        if tree is None:
            cells = _cells(line)
            if cells and not rows:
                title = cells[0].split(" ")[0]
                count = _int(cells[-1]) if len(cells) > 1 else None
                if count is not None and re.fullmatch(r"\w+", title):
                    top = Row("", title, _dims(cells[1]) if len(cells) > 2 else None, count,
                              index + 1, 0)
            index += 1
            continue
        depth = len(tree.group("indent")) // 5 + 1
        cells = _cells(tree.group("label"))
        label = cells[0] if cells else ""
        count = _int(cells[-1]) if len(cells) > 1 else None
        typed = re.match(r"^(\w+)(?::\s*[\d-]+| \((\S+)\))?$", label)
        if typed and (typed.group(2) or ":" in label or rows == [] or not cells[-1].startswith(
                ("├", "└"))) and not (len(cells) > 1 and cells[-1].startswith(("├─", "└─"))):
            shape = _dims(cells[1]) if len(cells) > 2 else None
            rows.append(Row(typed.group(2) or "", typed.group(1), shape, count, index + 1,
                            depth))
        elif rows and count is not None:
            previous = rows[-1]
            rows[-1] = Row(previous.name, previous.type, previous.shape, previous.params,
                           previous.line, previous.depth, (*previous.tensors, (label, count)))
        index += 1
    if not rows and top is not None:
        rows = [top]
    if not rows:
        return None
    return Printout("torchinfo", title, first + 1, index, tuple(rows), total), index


_REPR_HEAD = re.compile(r"^(\s*)(?:\((?P<attr>[\w.-]+)\): )?(?P<cls>[A-Za-z_]\w*)\((?P<rest>.*)$")


def _repr(lines: Sequence[str], start: int) -> tuple[Printout, int] | None:
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


_DUMP = re.compile(
    r"""^\s*\(?\s*['"]?(?P<name>[A-Za-z_][\w./:\-\[\]]*?)['"]?\s*[,:=\t ]\s*(?P<shape>
        torch\.Size\(\[[\d,\s]*\]\)|TensorShape\(\[[\d,\s]*\]\)|\([\d,\s]*\)|\[[\d,\s]*\])
        \s*\)?\s*,?\s*$""", re.X)
_BARE = re.compile(r"^\s*torch\.Size\(\[(?P<dims>[\d,\s]*)\]\)\s*,?\s*$")


def _shapes(lines: Sequence[str], start: int) -> tuple[Printout, int] | None:
    """Consecutive ``name shape`` lines (``named_parameters()``, a state dict, Keras weights);
    a line of dashes ends one model's dump."""
    tensors: list[NamedTensor] = []
    numbers: list[int] = []
    index = start
    while index < len(lines):
        match = _DUMP.match(lines[index])
        if match is None:
            if not lines[index].strip() and index + 1 < len(lines) and _DUMP.match(
                    lines[index + 1]):
                index += 1
                continue
            break
        dims = tuple(int(d) for d in re.findall(r"\d+", match.group("shape")))
        name = re.sub(r":0$", "", match.group("name"))
        if re.search(r"[A-Za-z]", name) and not re.fullmatch(r"torch\.Size|TensorShape", name):
            tensors.append(NamedTensor(name, dims))
            numbers.append(index + 1)
        index += 1
    if len(tensors) < 2 and not (tensors and re.search(r"weight|kernel|bias", tensors[0].name)):
        return None
    return Printout("shapes", "tensors", start + 1, index, tensors=tuple(tensors),
                    tensor_lines=tuple(numbers)), index


def _bare(lines: Sequence[str], start: int) -> tuple[Printout, int] | None:
    """Consecutive bare ``torch.Size([...])`` lines (``for p in model.parameters()``): named
    in torch's order where they form recurrent layers."""
    sizes: list[tuple[int, ...]] = []
    numbers: list[int] = []
    index = start
    while index < len(lines):
        match = _BARE.match(lines[index])
        if match is None:
            break
        sizes.append(tuple(int(d) for d in re.findall(r"\d+", match.group("dims"))))
        numbers.append(index + 1)
        index += 1
    if len(sizes) < 2:
        return None
    tensors = tuple(NamedTensor(name, shape) for name, shape in name_bare(sizes))
    return Printout("shapes", "parameters", start + 1, index, tensors=tensors,
                    tensor_lines=tuple(numbers)), index


def name_bare(sizes: Sequence[tuple[int, ...]]) -> list[tuple[str, tuple[int, ...]]]:
    """Names for unnamed parameter shapes, so recognition can read them.

    Each run shaped like a torch RNN layer — (G·H, in), (G·H, Hr) and two (G·H,) biases — is
    named as one (``rnn0.weight_ih_l0``...). A second identical run right after the first is
    its ``_reverse`` direction when the runs after the pair read 2·Hr (or nothing follows); a
    1-layer bidirectional stack and a 2-layer one whose input equals its hidden size have the
    same shapes and the same total, and are named as the former. Anything else is ``param{N}``.
    """
    named: list[tuple[str, tuple[int, ...]]] = []
    index, group = 0, 0
    while index < len(sizes):
        run = _rnn_run(sizes, index)
        if not run:
            named.append((f"param{index}", sizes[index]))
            index += 1
            continue
        rows, hr = sizes[index][0], sizes[index + 1][1]
        pair = tuple(sizes[index + run:index + 2 * run]) == tuple(sizes[index:index + run])
        after = index + 2 * run
        bidirectional = pair and (_rnn_run(sizes, after) == 0 or sizes[after][0] != rows
                                  or sizes[after][1] == 2 * hr)
        prefix, layer = f"rnn{group}.", 0
        group += 1
        while run and sizes[index][0] == rows:
            directions = ("", "_reverse") if bidirectional else ("",)
            if index + run * len(directions) > len(sizes):
                break
            for suffix in directions:
                roles = ["weight_ih", "weight_hh", "bias_ih", "bias_hh"][:run]
                named += [(f"{prefix}{role}_l{layer}{suffix}", sizes[index + k])
                          for k, role in enumerate(roles)]
                index += run
            layer += 1
            run = _rnn_run(sizes, index)
    return named


def _rnn_run(sizes: Sequence[tuple[int, ...]], index: int) -> int:
    """4 (or 2 without biases) when a torch RNN layer's tensors start at ``index``, else 0."""
    if index + 1 >= len(sizes):
        return 0
    ih, hh = sizes[index], sizes[index + 1]
    if len(ih) != 2 or len(hh) != 2 or ih[0] != hh[0] or hh[0] % hh[1] or (
            hh[0] // hh[1] not in (1, 3, 4)):
        return 0
    biases = sizes[index + 2:index + 4]
    return 4 if len(biases) == 2 and all(b == (ih[0],) for b in biases) else 2


def find_printouts(lines: Sequence[str]) -> tuple[list[Printout], set[int]]:
    """Every printout in ``lines`` and the (1-based) line numbers they span."""
    found: list[Printout] = []
    claimed: set[int] = set()
    index = 0
    while index < len(lines):
        line = lines[index]
        result: tuple[Printout, int] | None = None
        if "Layer (type" in line and ":depth-idx" not in line and "var_name" not in line \
                and "Param #" in line:
            result = _keras_summary(lines, index)
        elif re.match(r"^\s*Layer \(type", line):
            result = _torchinfo(lines, index)
        elif line.rstrip().endswith("(") and not line.startswith(" "):
            result = _repr(lines, index)
        elif "torch.Size" in line or _DUMP.match(line):
            result = _bare(lines, index) or _shapes(lines, index)
        if result is None:
            single = _single_repr(line, index)
            if single is not None:
                result = single
        if result is None:
            index += 1
            continue
        printout, end = result
        found.append(printout)
        claimed.update(range(printout.first, end + 1))
        index = max(end, index + 1)
    return found, claimed


def _single_repr(line: str, index: int) -> tuple[Printout, int] | None:
    """``print(lstm)`` of one module: ``LSTM(32, 128, num_layers=2, bidirectional=True)``."""
    match = re.match(r"^(LSTM|GRU|RNN|LSTMCell|GRUCell|RNNCell)\(\d+, \d+[^=]*(, \w+=[^,]+)*\)$",
                     line.strip())
    if match is None or line.startswith((" ", "\t")):
        return None
    call = _call(line.strip(), index + 1)
    if call is None:
        return None
    block = Block(match.group(1), "repr", index + 1, (Step(call, ""),))
    return Printout("repr", match.group(1), index + 1, index + 1, block=block), index + 1


# -- what a row shows ----------------------------------------------------------------------

def torch_shapes(row: Row) -> dict[str, tuple[int, ...]]:
    """A torchinfo row's per-tensor counts as shapes, where a torch RNN's names tell them."""
    counts = dict(row.tensors)
    shapes: dict[str, tuple[int, ...]] = {}
    for name, count in row.tensors:
        suffix = name.split("_", 2)[-1] if name.startswith(("weight_", "bias_")) else ""
        bias = counts.get(f"bias_ih_{suffix}") or counts.get(f"bias_hh_{suffix}")
        hh = counts.get(f"weight_hh_{suffix}")
        if name.startswith("bias_"):
            shapes[name] = (count,)
        elif name.startswith(("weight_ih_", "weight_hh_")) and bias and count % bias == 0:
            shapes[name] = (bias, count // bias)
        elif name.startswith("weight_hr_") and hh and bias:
            hidden = bias // (4 if row.type.startswith("LSTM") else 1)
            if hidden and count % hidden == 0:
                shapes[name] = (count // hidden, hidden)
    return shapes
