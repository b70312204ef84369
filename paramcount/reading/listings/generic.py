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
         r"(?:True|False|torch\.\w{1,20}|cpu|cuda(?::\d{1,3})?|meta|mps|float\d{0,3}|"
         r"bfloat16|u?int\d{1,2}|bool)['\"]?)*+)")
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


_OPEN = re.compile(r"\s*+(?:OrderedDict\(\s*+\[|odict_items\(\s*+\[|\{|\[\s*+\()")
_ENTRY = re.compile(
    r"""['"](?P<name>[^'"\s]{1,300})['"]\s*+[:,]\s*+(?P<shape>torch\.Size\(\[[\d,\s]*+\]\)|
        TensorShape\(\[[\d,\s]*+\]\)|\([\d,\s]*+\)|\[[\d,\s]*+\])""", re.X)
_LEFT = re.compile(r"[\s{}\[\](),]*+")
_LINES = 5_000
"""The most lines one literal may run over (a printed state dict of a large model)."""


def starts_literal(line: str) -> bool:
    """Whether ``line`` opens a literal of names and shapes (``{'gru.weight_ih_l0':
    torch.Size(...``)."""
    found = _OPEN.match(line)
    return found is not None and _ENTRY.match(line, found.end()) is not None


def read_literal(lines: Sequence[str], start: int) -> tuple[Printout, int] | None:
    """The dict or list literal of names and shapes opening at ``lines[start]``, over as many
    lines as its brackets take: its tensors (buffers marked not trainable) and the line past
    it. Text inside it that is no ``'name': shape`` entry is named unread."""
    if not starts_literal(lines[start]):
        return None
    depth, index = 0, start
    tensors: list[NamedTensor] = []
    numbers: list[int] = []
    unread: list[Unread] = []
    while index < len(lines) and index - start < _LINES:
        line = lines[index]
        at = 0
        left: list[str] = []
        for entry in _ENTRY.finditer(line):
            left.append(line[at:entry.start()])
            at = entry.end()
            dims = tuple(number(d) for d in re.findall(r"\d+", entry.group("shape")))
            if None in dims:
                unread.append(Unread(index + 1, line, "a dimension beyond 2^63 − 1"))
                continue
            name = entry.group("name")
            tensors.append(NamedTensor(name, tuple(d for d in dims if d is not None),
                                       trainable=not is_buffer(name)))
            numbers.append(index + 1)
        left.append(line[at:])
        rest = "".join(left).replace("OrderedDict", "").replace("odict_items", "")
        if _LEFT.fullmatch(rest) is None:
            unread.append(Unread(index + 1, line, "text inside the listing that is no "
                                 "`'name': shape` entry"))
        depth += sum(rest.count(c) for c in "([{") - sum(rest.count(c) for c in ")]}")
        index += 1
        if depth <= 0:
            break
    if not tensors:
        return None
    cropped = ("its closing bracket is not in the paste",) if depth > 0 else ()
    return Printout("shapes", "tensors", start + 1, index, tensors=tuple(tensors),
                    tensor_lines=tuple(numbers), accounting=Accounting.span(
                        start + 1, index, unread, cropped)), index
