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
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from paramcount.files.listing import NamedTensor
from paramcount.files.state_dict import is_buffer as _norm_buffer
from paramcount.reading.accounting import Accounting, Unread
from paramcount.reading.tables.table import Printout, number
from paramcount.usertext import NOT_ASCII_DIGITS, foreign_digits

__all__ = ["EXTRA", "Dialect", "dims", "is_buffer", "is_line", "read_lines", "read_literal",
           "starts_literal"]

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
_DIMS = re.compile(r"[(\[]([0-9,\s]*+)[)\]]")
_OPEN = re.compile(r"\s*+(?:" + _WRAPPER + r")?[{\[]\s*+(?:\(\s*+)?")
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
                bracket = _DIMS.search(token.group("shape"))
                values = dims(bracket.group(1)) if bracket else ()
                if values is None:
                    unread.append(Unread(index + 1, line, "a dimension beyond 2^63 − 1"))
                    continue
                tensors.append(NamedTensor(name, values, trainable=not is_buffer(name)))
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


def dims(text: str) -> tuple[int, ...] | None:
    """The numbers of a printed shape, None where one is beyond 2^63 − 1."""
    values = tuple(number(d) for d in re.findall(r"[0-9]+", text))
    return None if None in values else tuple(d for d in values if d is not None)


# -- one tensor a line -------------------------------------------------------------------------

_LINE = re.compile(
    r"""^\s*+\(?\s*+['"]?(?P<name>[A-Za-z_0-9][\w./:\-\[\]]*?)['"]?(?>\s*+[,:=]\s*+|\s++)(?:shape\s*+[=:]\s*+)?(?P<shape>
        torch\.Size\(\[[0-9,\s]*+\]\)|TensorShape\(\[[0-9,\s]*+\]\)|\([0-9,\s]*+\)|\[[0-9,\s]*+\])
        """ + EXTRA + r"""\s*+\)?\s*+,?\s*+$""", re.X)
"""One tensor's line: its name and its shape in any printed form (``name torch.Size([512,
32])``, ``('name', torch.Size(...))``, ``name: (28, 256)``, ``name shape=(..)``), the
columns of :data:`EXTRA` after it."""


def is_line(line: str) -> bool:
    """Whether ``line`` reads as one ``name shape`` line of a listing."""
    return _LINE.match(line) is not None


@dataclass(frozen=True)
class Dialect:
    """What the generic line reader cannot know of a printer's listing."""

    form: Callable[[str], tuple[str, str] | None] = lambda line: None
    """The printer's own form of a tensor's line: (name, shape as printed), None for a line
    that is not one."""
    runs_to: str = ""
    """In that form, a tensor's printed values run on to the line that ends in this."""
    suffix: str = ""
    """What the printer adds to each tensor's name (TensorFlow's output index ``:0``)."""

    def name(self, printed: str) -> str:
        """A tensor's name as printed, without the printer's :attr:`suffix`."""
        return printed[:-len(self.suffix)] if self.suffix and printed.endswith(
            self.suffix) else printed

    def line(self, text: str) -> tuple[str, str] | None:
        """A tensor's line in the generic form or the printer's: (name, shape)."""
        found = _LINE.match(text)
        return (found["name"], found["shape"]) if found is not None else self.form(text)


def read_lines(lines: Sequence[str], start: int, dialect: Dialect = Dialect()
               ) -> tuple[Printout, int] | None:
    """Consecutive ``name shape`` lines (``named_parameters()``, a state dict, Keras weights),
    in the generic form or the ``dialect``'s; a line of dashes ends one model's listing, and
    so does a blank line before a name already read (the next listing of the same model)."""
    tensors: list[NamedTensor] = []
    numbers: list[int] = []
    skipped: list[Unread] = []
    cropped: list[str] = []
    index = start
    while index < len(lines) and not cropped:
        found = dialect.line(lines[index])
        at = index
        if found is not None and _LINE.match(lines[index]) is None and dialect.runs_to:
            while index + 1 < len(lines) and not lines[index].rstrip().endswith(
                    dialect.runs_to):
                index += 1  # its values, read past: only its shape counts
            if not lines[index].rstrip().endswith(dialect.runs_to):
                cropped.append(f"the values of line {at + 1}'s variable have no closing "
                               f"`{dialect.runs_to}`")
        elif found is None:
            if (ascii := foreign_digits(lines[index])) is not None and dialect.line(ascii):
                skipped.append(Unread(index + 1, lines[index], NOT_ASCII_DIGITS))
                index += 1  # a tensor's line whose shape is no ASCII number: named, not read
                continue
            following = lines[index + 1] if index + 1 < len(lines) else ""
            again = (dialect.line(following) or ("", ""))[0]
            if not lines[index].strip() and again and dialect.name(again) not in {
                    t.name for t in tensors}:
                index += 1  # a blank line inside one dump; a name read again starts another
                continue
            break
        named, shape = found
        values = dims(shape)
        if values is None:
            break
        name = dialect.name(named)
        if re.search(r"[A-Za-z]", name) and not re.fullmatch(r"torch\.Size|TensorShape", name):
            tensors.append(NamedTensor(name, values, trainable=not is_buffer(name)))
            numbers.append(at + 1)
        else:
            skipped.append(Unread(at + 1, lines[at], "a shape without a tensor's name"))
        index += 1
    if len(tensors) < 2 and not (tensors and re.search(r"weight|kernel|bias", tensors[0].name)):
        return None
    return Printout("shapes", "tensors", start + 1, index, tensors=tuple(tensors),
                    tensor_lines=tuple(numbers), accounting=Accounting.span(
                        start + 1, index, skipped, cropped)), index
