"""Any tensor listing: a name and a shape in every printed form, and the buffers among them.

What :mod:`.shape_dump` reads one tensor a line, this module reads where the printer is no
loop of ``print(n, p.shape)``: a dict or list literal of names and shapes on one line or over
several (``print({k: v.shape for k, v in sd.items()})``, ``OrderedDict([('a', torch.Size([..
]))])``, pprint's wrapped form), and the columns a loop prints after the shape
(``p.requires_grad``, ``p.dtype``, ``p.device``: :data:`EXTRA`). A state dict holds buffers
beside the parameters (BatchNorm's ``running_mean``, ``running_var``, ``num_batches_tracked``,
pruning's ``*_mask``): they are told apart by name (:func:`is_buffer`), shown, and never counted
as parameters.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from paramcount.files.listing import NamedTensor
from paramcount.files.state_dict import is_buffer as _norm_buffer
from paramcount.reading.accounting import Accounting, Unread
from paramcount.reading.tables.table import Printout, number

__all__ = ["EXTRA", "is_buffer", "read_literal", "starts_literal"]

EXTRA = (r"(?P<extra>(?:\s*+,?\s*+(?:requires_grad=|dtype=|device=|trainable=)?['\"]?"
         r"(?:True|False|torch\.\w{1,20}|cpu|cuda(?::[0-9]{1,3})?|meta|mps|float[0-9]{0,3}|"
         r"bfloat16|u?int[0-9]{1,2}|bool)['\"]?)*+)")
"""The columns a listing prints after a tensor's shape: ``True`` / ``False``
(``p.requires_grad``), ``requires_grad=True``, a dtype (``torch.float32``), a device."""

_BUFFER_NAMES = ("position_ids", "inv_freq", "masked_bias", "_float_tensor")
"""Buffers other libraries register under names no parameter takes."""


def is_buffer(name: str) -> bool:
    """Whether a listed tensor's name is a buffer's, not a parameter's: a normalisation
    layer's running statistics, a pruning mask (``weight_mask``), or a buffer libraries
    register by a name of its own (``position_ids``, ``inv_freq``)."""
    last = name.rsplit(".", 1)[-1]
    return _norm_buffer(name) or last.endswith("_mask") or last in _BUFFER_NAMES


_SHAPE = (r"(?:torch\.Size\(\[[0-9,\s]*+\]\)|TensorShape\(\[[0-9,\s]*+\]\)|\([0-9,\s]*+\)|"
          r"\[[0-9,\s]*+\]|ShapeDtypeStruct\(shape=\([0-9,\s]*+\)[^()]{0,200}\))")
_WRAPPER = r"(?:OrderedDict|odict_items|FrozenDict|FrozenVarDict|State|dict)\(\s*+"
_TOKEN = re.compile(
    r"""(?P<entry>['"](?P<name>[^'"\s]{1,300})['"]\s*+[:,]\s*+(?P<shape>""" + _SHAPE + r"""))
        |(?P<key>['"](?P<inner>[^'"\s]{1,300})['"]\s*+:\s*+(?:""" + _WRAPPER + r""")?\{)
        |(?P<open>(?:""" + _WRAPPER + r""")?[{\[(])|(?P<close>[}\])])|(?P<skip>[\s,]++)""", re.X)
_ENTRY = re.compile(r"""['"][^'"\s]{1,300}['"]\s*+[:,]\s*+""" + _SHAPE)
"""A ``'name': shape`` entry: a literal's first line holds one (a nested config holds none)."""
_OPEN = re.compile(r"\s*+(?:" + _WRAPPER + r")?[{\[]\s*+(?:\(\s*+)?")
_DIMS = re.compile(r"[(\[]([0-9,\s]*+)[)\]]")
_LINES = 5_000
"""The most lines one literal may run over (a printed state dict of a large model)."""
_BARREN = 50
"""The most lines read into a literal before its first ``'name': shape`` entry (a nested
config is no listing: each line that opens one is not read to its end)."""


def starts_literal(line: str) -> bool:
    """Whether ``line`` opens a literal of names and shapes (``{'gru.weight_ih_l0':
    torch.Size(...``, ``{'params': {'Dense_0': {'bias': (10,)``)."""
    first = line.lstrip()[:1]
    if not first or first not in "{[OoFSd":
        return False
    found = _OPEN.match(line)
    if found is None:
        return False
    token = _TOKEN.match(line, found.end())
    return token is not None and (token.group("entry") or token.group("key")) is not None and (
        _ENTRY.search(line) is not None)


def read_literal(lines: Sequence[str], start: int) -> tuple[Printout, int] | None:
    """The dict or list literal of names and shapes opening at ``lines[start]``, over as many
    lines as its brackets take: its tensors (buffers marked not trainable; a nested dict's
    keys joined by ``/`` as a parameter tree's path: ``params/Dense_0/kernel``) and the line
    past it. Text inside it that is no ``'name': shape`` entry is named unread."""
    if not starts_literal(lines[start]):
        return None
    keys: list[str | None] = []
    """The keys of the dicts open around the scan (None for a bracket without one)."""
    index = start
    tensors: list[NamedTensor] = []
    numbers: list[int] = []
    unread: list[Unread] = []
    opened = False
    while index < len(lines) and index - start < _LINES:
        line = lines[index]
        at, bad = 0, False
        while at < len(line):
            token = _TOKEN.match(line, at)
            if token is None:
                bad = True
                at = _next_token(line, at)
                continue
            at = token.end()
            if token.group("entry"):
                name = "/".join([k for k in keys if k] + [token.group("name")])
                dims = _DIMS.search(token.group("shape"))
                values = tuple(number(d) for d in re.findall(r"[0-9]+", dims.group(1))
                               ) if dims else ()
                if None in values:
                    unread.append(Unread(index + 1, line, "a dimension beyond 2^63 − 1"))
                    continue
                tensors.append(NamedTensor(name, tuple(d for d in values if d is not None),
                                           trainable=not is_buffer(name)))
                numbers.append(index + 1)
            elif token.group("key"):
                keys.append(token.group("inner"))
                opened = True
            elif token.group("open"):
                keys.append(None)
                opened = True
            elif token.group("close") and keys:
                keys.pop()
        if bad:
            unread.append(Unread(index + 1, line, "text inside the listing that is no "
                                 "`'name': shape` entry"))
        index += 1
        if (opened and not keys) or (not tensors and index - start >= _BARREN):
            break
    if not tensors:
        return None
    cropped = ("its closing bracket is not in the paste",) if keys else ()
    return Printout("shapes", "tensors", start + 1, index, tensors=tuple(tensors),
                    tensor_lines=tuple(numbers), accounting=Accounting.span(
                        start + 1, index, unread, cropped)), index


def _next_token(line: str, at: int) -> int:
    """Past text no token reads: to the next comma, bracket or quote after ``at``."""
    found = re.compile(r"[,{}\[\]()'\"]").search(line, at + 1)
    return found.start() if found else len(line)
