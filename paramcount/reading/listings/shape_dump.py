"""Shape dumps: ``named_parameters()``, state dicts and Keras weight lists, one tensor a line.

``name torch.Size([512, 32])``, ``('name', torch.Size(...))``, ``name: (28, 256)`` (a
``requires_grad``, dtype or device column after the shape read past; buffers such as
``running_mean`` marked, never counted: :mod:`.generic`),
TensorFlow's ``<tf.Variable 'name:0' shape=(28, 256) dtype=float32>``, a line of dashes between
models; or bare ``torch.Size([...])`` lines from ``model.parameters()``, named
in torch's order where they form recurrent layers.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from paramcount.files.listing import NamedTensor
from paramcount.reading.accounting import Accounting, Unread
from paramcount.reading.listings.generic import EXTRA, is_buffer
from paramcount.reading.tables.table import Printout, number
from paramcount.usertext import NOT_ASCII_DIGITS, foreign_digits

_DUMP = re.compile(
    r"""^\s*+\(?\s*+['"]?(?P<name>[A-Za-z_0-9][\w./:\-\[\]]*?)['"]?(?>\s*+[,:=]\s*+|\s++)(?:shape\s*+[=:]\s*+)?(?P<shape>
        torch\.Size\(\[[0-9,\s]*+\]\)|TensorShape\(\[[0-9,\s]*+\]\)|\([0-9,\s]*+\)|\[[0-9,\s]*+\])
        """ + EXTRA + r"""\s*+\)?\s*+,?\s*+$""", re.X)
_VARIABLE = re.compile(r"^\s*+\[?<(?:tf\.|Keras)?Variable\b(?=.*?\bshape=\()(?P<rest>.*)")
"""A framework's repr of a variable: TensorFlow's ``<tf.Variable 'rnn/lstm_cell/kernel:0'
shape=(138, 512) dtype=float32_ref>`` (TF 1.x, a ``tf.trainable_variables()`` loop; TF 2 adds
``numpy=array(...`` over the next lines), Keras 3's ``<Variable path=lstm/lstm_cell/kernel,
shape=(3, 16), dtype=float32, value=[[...`` (``<KerasVariable shape=..., path=...>`` before
3.4): its values, where printed, run on to the line that ends in ``>``."""
_VARIABLE_NAME = re.compile(r"'(?P<quoted>[^'\s]{1,300})'|\bpath=(?P<path>[^\s,>]{1,300})")
_VARIABLE_SHAPE = re.compile(r"\bshape=(?P<shape>\([0-9,\s]*+\))")


def _variable(line: str) -> tuple[str, str] | None:
    """A variable's repr on its first line: (name, shape), None where it is none."""
    found = _VARIABLE.match(line)
    if found is None:
        return None
    head = found.group("rest").split("value=")[0].split("numpy=")[0]
    name, shape = _VARIABLE_NAME.search(head), _VARIABLE_SHAPE.search(head)
    if name is None or shape is None:
        return None
    return name.group("quoted") or name.group("path"), shape.group("shape")


_BARE = re.compile(r"^\s*+torch\.Size\(\[(?P<dims>[0-9,\s]*+)\]\)\s*+,?\s*+$")


def _dims(text: str) -> tuple[int, ...] | None:
    """The numbers of a printed shape, None where one is beyond 2^63 − 1."""
    dims = tuple(number(d) for d in re.findall(r"[0-9]+", text))
    return None if None in dims else tuple(d for d in dims if d is not None)


def read_named(lines: Sequence[str], start: int) -> tuple[Printout, int] | None:
    """Consecutive ``name shape`` lines (``named_parameters()``, a state dict, Keras weights);
    a line of dashes ends one model's dump, and so does a blank line before a name already
    read (the next dump of the same model)."""
    tensors: list[NamedTensor] = []
    numbers: list[int] = []
    skipped: list[Unread] = []
    cropped: list[str] = []
    index = start
    while index < len(lines) and not cropped:
        match = _DUMP.match(lines[index])
        variable = _variable(lines[index]) if match is None else None
        at = index
        if variable is not None:
            while index + 1 < len(lines) and not lines[index].rstrip().endswith(">"):
                index += 1  # its values, read past: only its shape counts
            if not lines[index].rstrip().endswith(">"):
                cropped.append(f"the values of line {at + 1}'s variable have no closing `>`")
        elif match is None:
            if (ascii := foreign_digits(lines[index])) is not None and (
                    _DUMP.match(ascii) or _variable(ascii)):
                skipped.append(Unread(index + 1, lines[index], NOT_ASCII_DIGITS))
                index += 1  # a tensor's line whose shape is no ASCII number: named, not read
                continue
            following = lines[index + 1] if index + 1 < len(lines) else ""
            after = _DUMP.match(following)
            again = after.group("name") if after else (_variable(following) or ("", ""))[0]
            if not lines[index].strip() and again and re.sub(
                    r":0$", "", again) not in {t.name for t in tensors}:
                index += 1  # a blank line inside one dump; a name read again starts another
                continue
            break
        named, shape = variable if variable is not None else (
            match.group("name"), match.group("shape")) if match is not None else ("", "")
        dims = _dims(shape)
        if dims is None:
            break
        name = re.sub(r":0$", "", named)
        if re.search(r"[A-Za-z]", name) and not re.fullmatch(r"torch\.Size|TensorShape", name):
            tensors.append(NamedTensor(name, dims, trainable=not is_buffer(name)))
            numbers.append(at + 1)
        else:
            skipped.append(Unread(at + 1, lines[at], "a shape without a tensor's name"))
        index += 1
    if len(tensors) < 2 and not (tensors and re.search(r"weight|kernel|bias", tensors[0].name)):
        return None
    return Printout("shapes", "tensors", start + 1, index, tensors=tuple(tensors),
                    tensor_lines=tuple(numbers), accounting=Accounting.span(
                        start + 1, index, skipped, cropped)), index


def read_bare(lines: Sequence[str], start: int) -> tuple[Printout, int] | None:
    """Consecutive bare ``torch.Size([...])`` lines (``for p in model.parameters()``): named
    in torch's order where they form recurrent layers."""
    sizes: list[tuple[int, ...]] = []
    numbers: list[int] = []
    index = start
    while index < len(lines):
        match = _BARE.match(lines[index])
        if match is None:
            break
        dims = _dims(match.group("dims"))
        if dims is None:
            break
        sizes.append(dims)
        numbers.append(index + 1)
        index += 1
    if len(sizes) < 2:
        return None
    tensors = tuple(NamedTensor(name, shape) for name, shape in name_bare(sizes))
    return Printout("shapes", "parameters", start + 1, index, tensors=tensors,
                    tensor_lines=tuple(numbers),
                    accounting=Accounting.span(start + 1, index)), index


def name_bare(sizes: Sequence[tuple[int, ...]]) -> list[tuple[str, tuple[int, ...]]]:
    """Names for unnamed parameter shapes, so recognition can read them.

    Each run shaped like a torch RNN layer — (G·H, in), (G·H, Hr), two (G·H,) biases and, for
    an LSTM with ``proj_size``, (Hr, H) — is named as one (``rnn0.weight_ih_l0``...). A second
    identical run right after the first is its ``_reverse`` direction when the runs after the
    pair read 2·Hr (or nothing follows); a 1-layer bidirectional stack and a 2-layer one whose
    input equals its hidden size have the same shapes and the same total, and are named as the
    former. The runs after are further layers of the stack while they have the same roles and
    read its output width. Anything else is ``param{N}``.
    """
    named: list[tuple[str, tuple[int, ...]]] = []
    index, group = 0, 0
    while index < len(sizes):
        roles = _roles(sizes, index)
        if not roles:
            named.append((f"param{index}", sizes[index]))
            index += 1
            continue
        directions = 2 if _bidirectional(sizes, index, len(roles)) else 1
        for layer in range(_depth(sizes, index, roles, directions)):
            for suffix in ("", "_reverse")[:directions]:
                named += [(f"rnn{group}.{role}_l{layer}{suffix}", sizes[index + k])
                          for k, role in enumerate(roles)]
                index += len(roles)
        group += 1
    return named


def _roles(sizes: Sequence[tuple[int, ...]], index: int) -> tuple[str, ...]:
    """The roles of a torch RNN layer's tensors starting at ``index`` (``weight_ih``,
    ``weight_hh``, the biases where present, ``weight_hr`` for an LSTM's projection), or none."""
    if index + 1 >= len(sizes):
        return ()
    ih, hh = sizes[index], sizes[index + 1]
    if len(ih) != 2 or len(hh) != 2 or ih[0] != hh[0] or not hh[1]:
        return ()
    rows = ih[0]
    biased = tuple(sizes[index + 2:index + 4]) == ((rows,), (rows,))
    roles = ("weight_ih", "weight_hh", *(("bias_ih", "bias_hh") if biased else ()))
    if rows % hh[1] == 0 and rows // hh[1] in (1, 3, 4):
        return roles
    hidden, after = rows // 4, index + len(roles)
    if rows % 4 == 0 and hh[1] < hidden and after < len(sizes) and sizes[after] == (
            hh[1], hidden):
        return (*roles, "weight_hr")
    return ()


def _bidirectional(sizes: Sequence[tuple[int, ...]], index: int, run: int) -> bool:
    """Whether the run at ``index`` is repeated right after as its reverse direction (with the
    same roles: no biases of its own after it) and the pair is not followed by a run of the
    same rows that reads one direction's width."""
    if tuple(sizes[index + run:index + 2 * run]) != tuple(sizes[index:index + run]) or len(
            _roles(sizes, index + run)) != run:
        return False
    after = index + 2 * run
    return not _roles(sizes, after) or sizes[after][0] != sizes[index][0] or (
        sizes[after][1] == 2 * sizes[index + 1][1])


def _depth(sizes: Sequence[tuple[int, ...]], index: int, roles: tuple[str, ...],
           directions: int) -> int:
    """How many layers the stack starting at ``index`` has: each further layer's runs have the
    same roles and shapes as the first's, but read the width it gives (directions · Hr)."""
    run = len(roles)
    width = directions * sizes[index + 1][1]
    layers, at = 1, index + run * directions
    while _roles(sizes, at) == roles and sizes[at] == (sizes[index][0], width) and (
            tuple(sizes[at + 1:at + run]) == tuple(sizes[index + 1:index + run])) and all(
            tuple(sizes[at + d * run:at + (d + 1) * run]) == tuple(sizes[at:at + run])
            for d in range(1, directions)):
        layers += 1
        at += run * directions
    return layers


def is_dump(line: str) -> bool:
    """Whether ``line`` reads as one ``name shape`` line of a dump."""
    return _DUMP.match(line) is not None or _variable(line) is not None
