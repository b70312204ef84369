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

from paramcount.files.listing import NamedTensor
from paramcount.files.state_dict import is_buffer as _norm_buffer
from paramcount.reading.accounting import Accounting, Unread
from paramcount.reading.patterns import lazy
from paramcount.reading.tables.table import Printout, number
from paramcount.record import record, replace
from paramcount.usertext import NOT_ASCII_DIGITS, foreign_digits

__all__ = ["EXTRA", "Dialect", "Naming", "by_where", "dims", "is_buffer", "is_line",
           "printed_from", "read_lines", "read_literal", "read_unnamed", "starts_literal"]

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
_TOKEN = lazy(
    r"""(?P<entry>['"](?P<name>[^'"\s]{1,300})['"]\s*+[:,]\s*+(?P<shape>""" + _SHAPE + r"""))
        |(?P<key>['"](?P<inner>[^'"\s]{1,300})['"]\s*+:\s*+(?:""" + _WRAPPER + r""")?\{)
        |(?P<open>(?:""" + _WRAPPER + r""")?[{\[(])|(?P<close>[}\])])|(?P<skip>[\s,]++)""", re.X)
_ENTRY = lazy(r"""['"][^'"\s]{1,300}['"]\s*+[:,]\s*+""" + _SHAPE)
"""A ``'name': shape`` entry: a literal's first line holds one (a nested config holds none)."""
_DIMS = lazy(r"[(\[]([0-9,\s]*+)[)\]]")
_OPEN = lazy(r"\s*+(?:" + _WRAPPER + r")?[{\[]\s*+(?:\(\s*+)?")
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
    buffers = printed_from(lines, start) == "buffers"
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
                tensors.append(NamedTensor(name, values, trainable=not (
                    buffers or is_buffer(name))))
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

_LINE = lazy(
    r"""^\s*+\(?\s*+['"]?(?P<name>[A-Za-z_0-9][\w./:\-\[\]]*?)['"]?(?>\s*+[,:=]\s*+|\s++)(?:shape\s*+[=:]\s*+)?(?P<shape>
        torch\.Size\(\[[0-9,\s]*+\]\)|TensorShape\(\[[0-9,\s]*+\]\)|\([0-9,\s]*+\)|\[[0-9,\s]*+\])
        """ + EXTRA + r"""\s*+\)?\s*+,?\s*+$""", re.X)
"""One tensor's line: its name and its shape in any printed form (``name torch.Size([512,
32])``, ``('name', torch.Size(...))``, ``name: (28, 256)``, ``name shape=(..)``), the
columns of :data:`EXTRA` after it."""


def is_line(line: str) -> bool:
    """Whether ``line`` reads as one ``name shape`` line of a listing."""
    return _LINE.match(line) is not None


@record
class Dialect:
    """What the generic line reader cannot know of a printer's listing."""

    form: Callable[[str], tuple[str, str] | None] = lambda line: None
    """The printer's own form of a tensor's line: (name, shape as printed), None for a line
    that is not one."""
    runs_to: str = ""
    """In that form, a tensor's printed values run on to the line that ends in this."""
    suffix: str = ""
    """What the printer adds to each tensor's name (TensorFlow's output index ``:0``)."""

    def line(self, text: str) -> tuple[str, str] | None:
        """A tensor's line in the generic form or the printer's: (name, shape)."""
        found = _LINE.match(text)
        return (found["name"], found["shape"]) if found is not None else self.form(text)


GENERIC = Dialect()
"""The generic form alone, no printer's own."""


def _run_to(lines: Sequence[str], index: int, text: str, closing: str
            ) -> tuple[int, str | None, bool]:
    """Past a variable's printed values, from ``text`` (``lines[index]`` or its rest) to its
    ``closing``: the index of the line it closes on, the rest of that line where another
    variable follows in a printed list (``...]]>, <Variable path=...``), and whether it
    closed."""
    separator = f"{closing}, <"
    current = text
    while True:
        if (split := current.find(separator, 1)) >= 0:
            return index, current[split + len(separator) - 1:], True
        if current.rstrip().endswith((closing, f"{closing}]", f"{closing},")):
            return index, None, True
        if index + 1 >= len(lines):
            return index, None, False
        index += 1
        current = lines[index]


def read_lines(lines: Sequence[str], start: int, dialect: Dialect = GENERIC
               ) -> tuple[Printout, int] | None:
    """Consecutive ``name shape`` lines (``named_parameters()``, a state dict, Keras weights),
    in the generic form or the ``dialect``'s; a line of dashes ends one model's listing, and
    so does a blank line before a name already read (the next listing of the same model), and
    the first name read again (that listing printed right after it)."""
    tensors: list[NamedTensor] = []
    numbers: list[int] = []
    skipped: list[Unread] = []
    cropped: list[str] = []
    buffers = printed_from(lines, start) == "buffers"
    index = start
    pending: str | None = None
    """The rest of a line after a variable's closing ``>, `` (a list of them printed)."""
    while index < len(lines) and not cropped:
        text = lines[index] if pending is None else pending
        pending = None
        found = dialect.line(text)
        at = index
        if found is not None and _LINE.match(text) is None and dialect.runs_to:
            index, pending, ended = _run_to(lines, index, text, dialect.runs_to)
            if not ended:
                cropped.append(f"the values of line {at + 1}'s variable have no closing "
                               f"`{dialect.runs_to}`")
        elif found is None:
            if (ascii := foreign_digits(lines[index])) is not None and dialect.line(ascii):
                skipped.append(Unread(index + 1, lines[index], NOT_ASCII_DIGITS))
                index += 1  # a tensor's line whose shape is no ASCII number: named, not read
                continue
            following = lines[index + 1] if index + 1 < len(lines) else ""
            again = (dialect.line(following) or ("", ""))[0]
            if not lines[index].strip() and again and again.removesuffix(dialect.suffix) not in {
                    t.name for t in tensors}:
                index += 1  # a blank line inside one dump; a name read again starts another
                continue
            break
        named, shape = found
        values = dims(shape)
        if values is None:
            break
        name = named.removesuffix(dialect.suffix)
        if _again(name, tensors):
            break  # the listing printed again (the model after a step), no line between
        if re.search(r"[A-Za-z]", name) and not re.fullmatch(r"torch\.Size|TensorShape", name):
            tensors.append(NamedTensor(name, values, trainable=not (buffers or is_buffer(name))))
            numbers.append(at + 1)
        else:
            skipped.append(Unread(at + 1, lines[at], "a shape without a tensor's name"))
        index += pending is None
    if len(tensors) < 2 and not (tensors and (buffers or re.search(r"weight|kernel|bias",
                                                                   tensors[0].name))):
        return None
    return Printout("shapes", "tensors", start + 1, index, tensors=tuple(tensors),
                    tensor_lines=tuple(numbers), accounting=Accounting.span(
                        start + 1, index, skipped, cropped),
                    how="its tensors printed as buffers" if buffers else ""), index


def _again(name: str, tensors: Sequence[NamedTensor]) -> bool:
    """Whether a tensor's line named ``name`` starts the same listing again: its name is the
    first one read and a path (``rnn.weight_ih_l0``; a module lists each tensor once, where
    Keras 3's short names, ``kernel`` in every layer, repeat)."""
    return bool(tensors) and name == tensors[0].name and ("." in name or "/" in name)


Naming = Callable[[Sequence[tuple[int, ...]]], list[tuple[str, tuple[int, ...]]]]
"""A dialect's names for unnamed shapes, in its framework's order of a layer's tensors."""


def read_unnamed(lines: Sequence[str], start: int, form: re.Pattern[str], name: Naming
                 ) -> tuple[Printout, int] | None:
    """Consecutive lines of a shape alone, in the dialect's ``form`` (its ``dims`` group the
    numbers), at least two, named by the dialect's ``name``."""
    sizes: list[tuple[int, ...]] = []
    index = start
    while index < len(lines) and (match := form.match(lines[index])) is not None and (
            shape := dims(match.group("dims"))) is not None:
        sizes.append(shape)
        index += 1
    if len(sizes) < 2:
        return None
    tensors = tuple(NamedTensor(named, shape) for named, shape in name(sizes))
    return Printout("shapes", "parameters", start + 1, index, tensors=tensors,
                    tensor_lines=tuple(range(start + 1, index + 1)),
                    accounting=Accounting.span(start + 1, index), how=_repeated(
                        sizes, tensors)), index


def _repeated(sizes: Sequence[tuple[int, ...]], tensors: Sequence[NamedTensor]) -> str:
    """What the answer says of unnamed shapes that are one list of shapes over and over: a
    model whose layers repeat, or one ``parameters()`` printed again right after itself (its
    count then the list's once); empty where they are not."""
    for period in range(1, len(sizes) // 2 + 1):
        times, left = divmod(len(sizes), period)
        if not left and list(sizes) == list(sizes[:period]) * times:
            once = sum(t.count for t in tensors) // times
            said = "twice" if times == 2 else f"{times} times"
            return (f"its {len(sizes)} shapes are the same {period} shape"
                    f"{'s' if period > 1 else ''} {said} over: a model whose layers repeat, "
                    f"or one model's parameters() printed {said} ({once:,} each); the shapes "
                    "do not tell")
    return ""


# -- where a listing was printed from ----------------------------------------------------------

_HEADING = r"^[#*=\-\s]*{}\s*:?[#*=\-\s]*$"
_WHERE = (
    ("buffers", lazy(r"named_buffers\(|\bin [\w.]+\.buffers\(|" + _HEADING.format(
        r"(?:registered\s+)?buffers?"), re.I)),
    ("state_dict()", lazy(r"(?<!load_)state_dict\(\)|" + _HEADING.format(
        r"state[\s_]dict"), re.I)),
    ("named_parameters()", lazy(r"named_parameters\(|\bin [\w.]+\.parameters\(|"
                                      + _HEADING.format(r"(?:trainable\s+)?param(?:eter)?s"),
                                      re.I)))
"""What the line above a listing says it was printed from: ``named_buffers()`` or a
``Buffers:`` heading, ``state_dict()``, ``named_parameters()`` or a ``Parameters:`` heading."""


def printed_from(lines: Sequence[str], start: int) -> str:
    """Where the listing opening at ``lines[start]`` says it was printed from (the code line or
    heading right above it, a blank line between at most): ``buffers``, ``state_dict()``,
    ``named_parameters()``; empty where nothing says."""
    for at in range(start - 1, max(start - 3, -1), -1):
        text = lines[at].strip()[:300]
        if text:
            return next((where for where, said in _WHERE if said.search(text)), "")
    return ""


def by_where(printouts: Sequence[Printout], lines: Sequence[str]) -> list[Printout]:
    """The printouts with the buffers their listings' sources tell: a listing printed from
    ``named_buffers()`` (or under a ``Buffers:`` heading) right after a listing of parameters
    joins it, its tensors shown and never counted; a state dict's tensors that a
    ``named_parameters()`` listing of the same model (each of its tensors in the state dict,
    the same shape) does not hold are buffers (``pe``, registered under a name of its
    own)."""
    found: list[Printout] = []
    sources: list[str] = []
    for printout in printouts:
        where = printed_from(lines, printout.first - 1) if _listing(printout) else ""
        if where == "buffers" and found and sources[-1] != "buffers" and _listing(found[-1]) and (
                not found[-1].shown and not printout.shown) and not (
                {t.name for t in found[-1].tensors} & {t.name for t in printout.tensors}):
            before = found[-1]
            found[-1] = replace(
                before, last=printout.last, tensors=before.tensors + printout.tensors,
                tensor_lines=before.tensor_lines + printout.tensor_lines,
                accounting=before.accounting + printout.accounting,
                how=_joined(before.how, f"{_names(printout.tensors)} printed as buffers "
                                        f"({_lines(printout)}): not parameters"))
            continue
        found.append(printout)
        sources.append(where)
    for index, where in enumerate(sources):
        if where != "state_dict()":
            continue
        held = {t.name: t.shape for t in found[index].tensors}
        beside = next((found[at] for at in (index - 1, index + 1) if 0 <= at < len(found) and (
            sources[at] == "named_parameters()") and found[at].tensors and all(
            held.get(t.name) == t.shape for t in found[at].tensors)), None)
        found[index] = _told(found[index], beside) if beside is not None else (
            replace(found[index], how=_joined(found[index].how, _UNTOLD)))
    return found


_UNTOLD = ("printed from state_dict(): a buffer registered under a name of its own (a "
           "positional table) cannot be told from a parameter and is counted as one; a "
           "named_parameters() listing of the same model beside it tells them apart")


def _names(tensors: Sequence[NamedTensor]) -> str:
    """The first few tensors' names, for a note."""
    return ", ".join(t.name for t in tensors[:6]) + (", …" if len(tensors) > 6 else "")


def _lines(printout: Printout) -> str:
    """The lines a printout spans, in words."""
    return f"line {printout.first}" if printout.first == printout.last else (
        f"lines {printout.first}–{printout.last}")


def _listing(printout: Printout) -> bool:
    """Whether a printout is a named listing of tensors."""
    return printout.kind == "shapes" and printout.title == "tensors"


def _joined(how: str, more: str) -> str:
    """Two sayings of how a printout was read, as one."""
    return f"{how}; {more}" if how else more


def _told(state: Printout, parameters: Printout) -> Printout:
    """A state dict's listing whose tensors not in ``parameters`` are marked buffers."""
    names = {t.name for t in parameters.tensors}
    others = [t for t in state.tensors if t.name not in names and t.trainable]
    if not others:
        return state
    return replace(
        state, tensors=tuple(t if t.name in names else replace(t, trainable=False)
                             for t in state.tensors),
        how=_joined(state.how, f"{_names(others)} in the state dict and not among "
                               f"named_parameters() ({_lines(parameters)}): buffers"))
