"""Any per-layer table no dialect names: a Markdown (pipe) table read by what its columns hold.

A printer paramcount has no reader for still draws a table whose columns say what they are:
fvcore's ``parameter_count_table`` (``| name | #elements or shape |``) and
``flop_count_table`` (``| module | #parameters or shape | #flops |``), or a table a post
wrote by hand. Its header and the ``|:---|`` rule under it start it; each column is told by
its title and what its cells hold (:func:`kind_of`): a name or dotted path, a type, a
parameter column whose cells are counts (``1,234``), rounded counts (``19.5K``, ``1.2 M``,
``18.82 k``, a percentage beside them read past) or a tensor's shape (``(192, 32)``); columns
of flops, memory or output shapes are never read as parameters. A table that lists tensors
is read as a listing of names and shapes, each module's rounded count checked against the
tensors under it (a module whose tensors are not listed, cut at the printer's depth, is named
unread); a table of tensors' counts (``count_parameters`` with prettytable, ``+---+``
borders) by its tensors; a table of counts alone as its rows. A total under its own words
after it (``Total Trainable Params: 39813``) checks them. The answer says how it was read
(``read as a table: name (name) / #elements or shape (params) columns``). Tables aligned by
runs of spaces are found by :mod:`.aligned` and read by :func:`interpret` too. Both are
dialects whose columns are found by what they hold: their rows come from the dialects' row loop
(:class:`.dialect.Scan`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from paramcount.files.listing import NamedTensor
from paramcount.reading.accounting import Accounting, Unread
from paramcount.reading.listings.generic import is_buffer
from paramcount.reading.patterns import lazy
from paramcount.reading.tables.dialect import LIMIT, NOTHING, Dialect, Scan, once, repeated
from paramcount.reading.tables.table import Printout, Row, count, shapes
from paramcount.record import replace
from paramcount.usertext import NOT_ASCII_DIGITS, foreign_digits

__all__ = ["TENSOR", "TYPE", "approximate", "interpret", "kind_of", "own_counts", "path_depth",
           "read", "read_box", "starts", "starts_box", "tensor_cells"]

_RULE = lazy(r"\s*+[|+]?(?:\s*+:?(?:-{3,}|={3,}):?\s*+[|+])++\s*+(?::?-{3,}:?\s*+)?$")
_UNITS = {"": 1, "k": 10**3, "K": 10**3, "M": 10**6, "G": 10**9, "B": 10**9, "T": 10**12}
_ROUNDED = lazy(r"(?P<value>[0-9]{1,3}(?:,[0-9]{3})*+(?:\.[0-9]{1,6})?"
                      r"|[0-9]{1,15}(?:\.[0-9]{1,6})?)"
                      r"\s?(?P<unit>[kKMGBT])")
_PERCENT = lazy(r"\s*+\(?\s*+[0-9.]{1,12}\s?%\s*+\)?\s*+(?:Params)?\s*+$")
_NAME = lazy(r"[A-Za-z_][\w.\-/:]{0,300}|[0-9][\w.\-/:]{0,300}")
TYPE = _TYPE = lazy(r"[A-Za-z_][\w.]{0,100}")
_TOTAL = lazy(r"\**\s*(?:total|totals|sum)\b", re.I)


def starts(lines: Sequence[str], index: int) -> bool:
    """Whether ``lines[index]`` is a pipe table's header: ``| a | b |`` with a rule
    (``|:---|---:|``) under it."""
    line = lines[index]
    return (line.lstrip().startswith("|") and line.count("|") >= 3 and index + 1 < len(lines)
            and _RULE.match(lines[index + 1]) is not None)


def approximate(cell: str) -> tuple[int, int] | None:
    """The counts a rounded cell can stand for (``19.5K``: 19,450 to 19,599; read loosely,
    since printers round or cut the last digit), None where it is no rounded count."""
    match = _ROUNDED.fullmatch(cell.strip())
    if match is None:
        return None
    whole, _, tenths = match.group("value").replace(",", "").partition(".")
    scaled, scale = int(whole + tenths), 10 ** len(tenths)  # the value is scaled / scale
    unit = _UNITS[match.group("unit")]
    low = -(-(2 * scaled - 1) * unit // (2 * scale))  # (value − half a step) · unit, up
    return max(0, low), (scaled + 1) * unit // scale


_SHAPE_CELL = lazy(r"[(\[][0-9,\s]*[)\]]")


def _cell_kind(cell: str) -> str:
    """What one cell holds: ``count``, ``rounded``, ``shape``, ``name``, ``empty``,
    ``foreign`` (a number or shape but for its digits, which are not ASCII digits: ``٣``,
    ``²``) or ``other``."""
    text = _PERCENT.sub("", cell.strip()) if "%" in cell else cell.strip()
    if not text or text in ("-", "--"):
        return "empty"
    if (ascii := foreign_digits(text)) is not None:
        return "foreign" if _cell_kind(ascii) in ("count", "rounded", "shape") else "other"
    if count(text) is not None:
        return "count"
    if _ROUNDED.fullmatch(text) is not None:
        return "rounded"
    if _SHAPE_CELL.fullmatch(text) and shapes(text):
        return "shape"
    if _NAME.fullmatch(text):
        return "name"
    return "other"


_NOT_PARAMS = lazy(r"flop|mac|mult|memory|size|time|latency|activation|output|input|"
                         r"%|percent|bytes|kernel", re.I)
_PARAMS = lazy(r"param|element|weight|numel|count", re.I)


def kind_of(title: str, cells: Sequence[str]) -> str:
    """A column's role from its title and its cells: ``name``, ``type``, ``params`` (counts,
    rounded counts or tensors' shapes), or ``other`` (flops, memory, output shapes ...)."""
    lowered = title.lower()
    kinds = [_cell_kind(c) for c in cells]
    filled = [k for k in kinds if k not in ("empty", "foreign")]  # told by the others
    if re.search(r"\b(type|class|kind)\b", lowered):
        return "type"
    if re.search(r"\b(name|module|layer|path)\b", lowered) and filled and all(
            k == "name" for k in filled):
        return "name"
    if re.fullmatch(r"(?:tensor |param(?:eter)? )?shapes?", lowered) and filled and all(
            k == "shape" for k in filled):
        return "shape"
    if _PARAMS.search(lowered) and not _NOT_PARAMS.search(lowered.replace(
            "shape", "")) and filled and all(k in ("count", "rounded", "shape") for k in filled):
        return "params"
    return "other"


def _cells(line: str) -> list[str]:
    """A pipe table row's cells (the outer bars taken off)."""
    text = line.strip()
    if text.startswith("|"):
        text = text[1:]
    if text.endswith("|"):
        text = text[:-1]
    return [c.strip() for c in text.split("|")]


_BORDER = lazy(r"\s*+\+(?:[-=]{3,}\+)++\s*+$")
_WORDS_TOTAL = lazy(r"\s*+(?:Total|Totals|Sum)(?: [A-Za-z]{1,20}){0,3}\s*+[:=]\s*+"
                          r"(?P<count>[0-9]{1,3}(?:,[0-9]{3})++|[0-9]++)\s*+$", re.I)
"""A total under its own words after a table (``Total Trainable Params: 39813``)."""
_PIPE = Dialect("pipe", {}, total=NOTHING, above=_BORDER, rules=frozenset(), blank=True)
"""The generic dialect of pipe tables: its columns found by what they hold (:func:`interpret`),
its rows between ``+---+`` borders, its total under its own words read after them."""


def read_rewritten(view: Sequence[str], lines: Sequence[str], start: int,
                   printer: str) -> tuple[Printout, int] | None:
    """The pipe table a dialect rewrote ``lines`` into (``view``, line for line) read by
    :func:`read`, told as ``printer``'s (``read as texttable's table: ...``), each line it
    could not read named as the paste wrote it, not as rewritten."""
    found = read(view, start)
    if found is None:
        return None
    printout, end = found
    accounting = printout.accounting
    unread = tuple(replace(u, text=lines[u.line - 1]) for u in accounting.unread)
    how = printout.how.replace("read as a table:", f"read as {printer}:", 1)
    return replace(printout, how=how,
                               accounting=replace(accounting, unread=unread)), end


def read(lines: Sequence[str], start: int) -> tuple[Printout, int] | None:
    """The pipe table whose header is ``lines[start]`` (Markdown; or bordered by ``+---+``
    rules, as prettytable and tabulate's ``grid`` draw it): read by :func:`interpret`."""
    titles = _cells(lines[start])
    body: list[tuple[int, list[str]]] = []
    scan = Scan(lines, start + 1, _PIPE)
    for index, line in scan:
        if _BORDER.match(line):
            continue
        if not line.lstrip().startswith("|") or len(cells := _cells(line)) != len(titles) or (
                cells == titles):
            break  # not a row, or the header of the same table printed again
        body.append((index, cells))
    return interpret(lines, _PIPE.first(lines, start), scan.end, titles, body)


_BOX_BAR = str.maketrans({"│": "|", "┃": "|", "║": "|"})
_BOX_RULE = lazy(r"\s*+[┏┡┢┣╒╞╟╔╠├┌└┗╘╚╰╭┕┝┞┟┠┨┪┫][─━═┳╇╈╋╤╪╫╦╬┼┬┴┻╧╩┷┯┿╀╁╂╃╄╅╆╊\s]*+"
                       r"[┓┩┪┫╕╡╢╗╣┤┐┘┛╛╝╯╮┥┦┧┨]\s*+$")


def starts_box(lines: Sequence[str], index: int) -> bool:
    """Whether ``lines[index]`` is the header of a table drawn in box characters (rich's
    tables, tabulate's ``fancy_grid`` and ``rounded_outline``): ``│ a │ b │`` over a rule."""
    line = lines[index].strip()
    return (line[:1] in "│┃║" and line.count(line[0]) >= 3 and index + 1 < len(lines)
            and _BOX_RULE.match(lines[index + 1]) is not None)


def read_box(lines: Sequence[str], start: int) -> tuple[Printout, int] | None:
    """The box-drawn table headed at ``lines[start]``, read as the pipe table it draws: its
    bars read as ``|``, its rules as ``+---+``, on a view of the paste (line for line)."""
    view = list(lines)
    index = max(start - 1, 0)
    while index < len(lines) and index - start < LIMIT:
        line = lines[index]
        if _BOX_RULE.match(line):
            view[index] = "+---+"
        elif line.lstrip()[:1] in "│┃║":
            view[index] = line.translate(_BOX_BAR)
        elif index > start:
            break
        index += 1
    view[start + 1] = "|---|"
    return read(view, start)


def interpret(lines: Sequence[str], first: int, index: int, titles: Sequence[str],
              body: Sequence[tuple[int, list[str]]], stated: int | None = None
              ) -> tuple[Printout, int] | None:
    """A table's rows read by what its columns hold (``first`` its first line, ``index`` the
    line past its last row, where a total under its own words may follow): a listing where it
    shows tensors' shapes, per-tensor counts where its names are tensors', else rows of
    module counts; None where no column holds parameters."""
    if not body:
        return None
    roles = [kind_of(t, [cells[k] for _, cells in body]) for k, t in enumerate(titles)]
    if "params" not in roles and "shape" not in roles:
        return None
    if stated is None and index < len(lines) and (
            words := _WORDS_TOTAL.match(lines[index])) is not None:
        stated = count(words.group("count"))
        index += 1
    name_at = roles.index("name") if "name" in roles else 0
    type_at = roles.index("type") if "type" in roles else None
    how = "read as a table: " + " / ".join(
        f"{t or '(unnamed)'} ({r})" for t, r in zip(titles, roles, strict=True)
        if r != "other") + " columns"
    if "shape" in roles:
        return _listing(lines, first, index, body, name_at, roles.index("shape"), how,
                        roles.index("params") if "params" in roles else None, stated), index
    params_at = roles.index("params")
    if any(_cell_kind(cells[params_at]) == "shape" for _, cells in body):
        return _listing(lines, first, index, body, name_at, params_at, how, None,
                        stated), index
    if all(_TENSOR.search(cells[name_at].rsplit(".", 1)[-1]) for _, cells in body):
        return _counts(lines, first, index, body, name_at, params_at, how, stated), index
    return _rows(lines, first, index, body, name_at, type_at, params_at, how, stated), index


TENSOR = _TENSOR = lazy(r"^(?:weight|bias|kernel|recurrent_kernel|gamma|beta|scale|embedding|"
                     r"in_proj_|out_proj_|running_|num_batches)|_(?:weight|bias)\b|weight_|"
                     r"bias_")
"""The last part of a tensor's name (``weight``, ``bias_ih_l0``, ``in_proj_weight``)."""


def _counts(lines: Sequence[str], first: int, end: int, body: Sequence[tuple[int, list[str]]],
            name_at: int, params_at: int, how: str, stated: int | None) -> Printout:
    """A table of tensors' counts (``count_parameters`` with prettytable): a row per tensor,
    buffers left out; its total checked against the one stated under it."""
    rows: list[Row] = []
    unread: list[Unread] = []
    cropped: list[str] = []
    for at, cells in body:
        name, number_ = cells[name_at], count(_PERCENT.sub("", cells[params_at]))
        if number_ is None:
            unread.append(Unread(at + 1, lines[at], "a tensor's count that is no whole number"))
        elif not is_buffer(name):
            rows.append(Row(name, "tensor", None, number_, at + 1))
    shown = sum(r.params or 0 for r in rows)
    if stated is not None and not unread and shown != stated:
        cropped.append(f"its rows add up to {shown:,}, not the total {stated:,} under it: a row "
                       "is missing")
    return Printout("counts", "tensors", first + 1, end, tuple(rows), stated, how=how,
                    accounting=Accounting.span(first + 1, end, unread, cropped))


def _listing(lines: Sequence[str], start: int, end: int, body: Sequence[tuple[int, list[str]]],
             name_at: int, params_at: int, how: str, counts_at: int | None = None,
             stated: int | None = None) -> Printout:
    """A table that lists tensors (fvcore; a shape column beside a count column): its
    tensors, each module row's rounded count checked against the tensors under it, each
    tensor's printed count against its shape, the total under it against them all."""
    tensors: list[NamedTensor] = []
    numbers: list[int] = []
    modules: list[tuple[int, str, str]] = []
    unread: list[Unread] = []
    cropped: list[str] = []
    listed: dict[str, int] = {}
    """Each tensor's name: the rows that list it (a module listed once per call lists its
    tensors again)."""
    for at, cells in body:
        name, cell = cells[name_at], _PERCENT.sub("", cells[params_at])
        kind = _cell_kind(cell)
        if kind == "shape":
            dims = shapes(cell)[0]
            if None in dims:
                unread.append(Unread(at + 1, lines[at], "a shape with an unknown dimension"))
                continue
            tensor = NamedTensor(name, tuple(d for d in dims if d is not None),
                                 trainable=not is_buffer(name))
            if name in listed and ("." in name or "/" in name):  # a path, not `kernel`
                listed[name] += 1
                if all(t.shape == tensor.shape for t in tensors if t.name == name):
                    continue  # the same tensor listed again: counted once
                unread.append(Unread(at + 1, lines[at], f"{name} listed again with another "
                                     "shape"))
                continue
            listed[name] = 1
            tensors.append(tensor)
            numbers.append(at + 1)
            printed = count(cells[counts_at]) if counts_at is not None else None
            if printed is not None and printed != tensor.count:
                unread.append(Unread(at + 1, lines[at], f"its count {printed:,} is not its "
                                     f"shape's {tensor.count:,}"))
        elif kind in ("count", "rounded"):
            modules.append((at, name, cell))
        elif kind == "foreign":
            unread.append(Unread(at + 1, lines[at], NOT_ASCII_DIGITS))
    held: dict[str, int] = {}
    """Every dotted prefix of a listed tensor's name: the parameters under it."""
    for tensor in tensors:
        parts = tensor.name.split(".")
        for depth in range(1, len(parts)):
            prefix = ".".join(parts[:depth])
            held[prefix] = held.get(prefix, 0) + (tensor.count if tensor.trainable else 0)
    whole = sum(t.count for t in tensors if t.trainable)
    for at, name, cell in modules:
        root = at == body[0][0] and name not in held
        exact = count(cell)
        low, high = (exact, exact) if exact is not None else approximate(cell) or (0, -1)
        if not root and name not in held:
            if low > 0 or exact is None:
                unread.append(Unread(at + 1, lines[at], f"a module's count ({cell}) without "
                                     "its tensors' shapes (below the printer's depth)"))
            continue
        under = whole if root else held[name]
        if not low <= under <= high:
            cropped.append(f"the tensors listed under {name} hold {under:,}, not the {cell} "
                           "its row prints: a row is missing")
    if stated is not None and stated != whole:
        cropped.append(f"its tensors hold {whole:,}, not the total {stated:,} under it: a row "
                       "is missing")
    if again := repeated(listed):
        how += "; " + again
    return Printout("shapes", "tensors", start + 1, end, tensors=tuple(tensors),
                    tensor_lines=tuple(numbers), how=how, accounting=Accounting.span(
                        start + 1, end, unread, cropped))


def _rows(lines: Sequence[str], start: int, end: int, body: Sequence[tuple[int, list[str]]],
          name_at: int, type_at: int | None, params_at: int, how: str,
          stated: int | None = None) -> Printout:
    """A table of counts alone: each row a module with its count (a rounded count named
    unread: no exact total is claimed from it), nested by its dotted path."""
    rows: list[Row] = []
    unread: list[Unread] = []
    total: int | None = stated
    rounded_total: tuple[int, int] | None = None
    for at, cells in body:
        name = cells[name_at]
        if _TOTAL.match(name) or (at == body[0][0] and name == "model"):
            cell = _PERCENT.sub("", cells[params_at])  # fvcore's first row: the model's
            total, rounded_total = count(cell), approximate(cell)
            continue
        kind = cells[type_at] if type_at is not None else ""
        if type_at is not None and not _TYPE.fullmatch(kind):
            unread.append(Unread(at + 1, lines[at], "a row whose type is no class name"))
            continue
        cell = _PERCENT.sub("", cells[params_at])
        if _cell_kind(cell) == "foreign":
            unread.append(Unread(at + 1, lines[at], NOT_ASCII_DIGITS))
            continue
        exact = count(cell)
        rounded = approximate(cell) if exact is None else None
        if rounded is not None:
            unread.append(Unread(at + 1, lines[at], f"its count is printed rounded ({cell})"))
        rows.append(Row(name, kind or "module", None, exact, at + 1, depth=path_depth(name),
                        rounded=rounded, note=cell if rounded else ""))
    rows, repeated = once(rows)
    if repeated:
        how += "; " + repeated
    rows = own_counts(rows)
    cropped: list[str] = []
    shown = sum(r.params or 0 for r in rows)
    if total is not None and all(r.params is not None for r in rows) and shown != total:
        cropped.append(f"its rows add up to {shown:,}, not its total {total:,}: a row is "
                       "missing")
    if total is None and rounded_total is None and type_at is None:
        cropped.append("no total and no type column: whether its rows are one model's "
                       "layers is not known")
    return Printout("table", "model", start + 1, end, tuple(rows), total, how=how,
                    rounded_total=rounded_total if total is None else None,
                    accounting=Accounting.span(start + 1, end, unread, cropped))


def path_depth(name: str) -> int:
    """A row's depth by its path (``enc.0.lstm``, haiku's ``lstm/linear``): one a part."""
    return name.count(".") + name.count("/") + 1


def own_counts(rows: Sequence[Row]) -> list[Row]:
    """Rows nested by their dotted paths with each container's count made its own: a count
    that holds its rows' (``enc`` 300 over ``enc.0`` 100 and ``enc.1`` 200) is theirs and
    what is left over (nothing here); one below their sum is its own already."""
    found = list(rows)
    for index, row in enumerate(rows):
        inner = []
        for other in rows[index + 1:]:
            if other.depth <= row.depth:
                break
            if other.depth == row.depth + 1:
                inner.append(other.params)
        if not inner or row.params is None or None in inner:
            continue
        held = sum(n or 0 for n in inner)
        if row.params >= held:
            found[index] = replace(row, params=row.params - held, note=(
                f"its printed {row.params:,} holds its rows' {held:,}"))
    return found



_TENSOR_CELL = lazy(r"\s*+(?P<name>[A-Za-z_][\w.]{0,100}):\s*+(?P<dtype>[a-z]{1,8}[0-9]{0,3})"
                          r"\[(?P<dims>[0-9,\s]{0,200})\]\s*+")
"""A tensor printed as JAX prints an array's type in a cell (``w: f32[48,128]``, ``b:
bf16[128]``, a scalar ``s: f32[]``)."""


def tensor_cells(lines: Sequence[str]) -> list[tuple[str, tuple[int, ...]]] | None:
    """The tensors a cell's lines print as ``name: dtype[dims]`` (haiku's ``Module params``),
    in order; None where a filled line is no such tensor."""
    found = []
    for line in lines:
        if not line.strip():
            continue
        match = _TENSOR_CELL.fullmatch(line)
        if match is None:
            return None
        dims = [d.strip() for d in match.group("dims").split(",") if d.strip()]
        sizes = [count(d) for d in dims]
        if any(s is None for s in sizes):
            return None
        found.append((match.group("name"), tuple(s for s in sizes if s is not None)))
    return found
