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
unread); a table of counts alone as its rows. The answer says how it was read (``read as a
table: name / parameters-or-shape columns``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from fractions import Fraction

from paramcount.files.listing import NamedTensor
from paramcount.reading.accounting import Accounting, Unread
from paramcount.reading.listings.generic import is_buffer
from paramcount.reading.tables.table import Printout, Row, count, shapes

__all__ = ["approximate", "kind_of", "read", "starts"]

_RULE = re.compile(r"\s*+\|?(?:\s*+:?-{3,}:?\s*+\|)++\s*+(?::?-{3,}:?\s*+)?$")
_LIMIT = 200_000
_UNITS = {"": 1, "k": 10**3, "K": 10**3, "M": 10**6, "G": 10**9, "B": 10**9, "T": 10**12}
_ROUNDED = re.compile(r"(?P<value>\d{1,3}(?:,\d{3})*+(?:\.\d{1,6})?|\d{1,15}(?:\.\d{1,6})?)"
                      r"\s?(?P<unit>[kKMGBT])")
_PERCENT = re.compile(r"\s*+\(?\s*+[\d.]{1,12}\s?%\s*+\)?\s*+(?:Params)?\s*+$")
_NAME = re.compile(r"[A-Za-z_][\w.\-/:]{0,300}|\d[\w.\-/:]{0,300}")
_TYPE = re.compile(r"[A-Za-z_][\w.]{0,100}")
_TOTAL = re.compile(r"\**\s*(?:total|totals|sum)\b", re.I)


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
    text = match.group("value").replace(",", "")
    decimals = len(text.split(".")[1]) if "." in text else 0
    value, step, unit = Fraction(text), Fraction(1, 10**decimals), _UNITS[match.group("unit")]
    low = (value - step / 2) * unit
    high = (value + step) * unit
    return max(0, -(-low.numerator // low.denominator)), high.numerator // high.denominator


def _cell_kind(cell: str) -> str:
    """What one cell holds: ``count``, ``rounded``, ``shape``, ``name``, ``empty`` or
    ``other``."""
    text = _PERCENT.sub("", cell.strip()) if "%" in cell else cell.strip()
    if not text or text in ("-", "--"):
        return "empty"
    if count(text) is not None:
        return "count"
    if approximate(text) is not None:
        return "rounded"
    if text[0] in "([" and shapes(text) and shapes(text)[0] is not None and re.fullmatch(
            r"[(\[][\d,\s]*[)\]]", text):
        return "shape"
    if _NAME.fullmatch(text):
        return "name"
    return "other"


_NOT_PARAMS = re.compile(r"flop|mac|mult|memory|size|time|latency|activation|output|input|"
                         r"%|percent|bytes|kernel", re.I)
_PARAMS = re.compile(r"param|element|weight|numel|count", re.I)


def kind_of(title: str, cells: Sequence[str]) -> str:
    """A column's role from its title and its cells: ``name``, ``type``, ``params`` (counts,
    rounded counts or tensors' shapes), or ``other`` (flops, memory, output shapes ...)."""
    lowered = title.lower()
    kinds = [_cell_kind(c) for c in cells]
    filled = [k for k in kinds if k != "empty"]
    if re.search(r"\b(type|class)\b", lowered):
        return "type"
    if re.search(r"\b(name|module|layer|path)\b", lowered) and filled and all(
            k == "name" for k in filled):
        return "name"
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


def read(lines: Sequence[str], start: int) -> tuple[Printout, int] | None:
    """The pipe table whose header is ``lines[start]``: read as a listing where it lists
    tensors' shapes, else as rows of counts; None where no column holds parameters."""
    titles = _cells(lines[start])
    body: list[tuple[int, list[str]]] = []
    index = start + 2
    while index < len(lines) and index - start < _LIMIT:
        line = lines[index]
        if not line.lstrip().startswith("|"):
            break
        cells = _cells(line)
        if len(cells) != len(titles):
            break
        body.append((index, cells))
        index += 1
    if not body:
        return None
    roles = [kind_of(t, [cells[k] for _, cells in body]) for k, t in enumerate(titles)]
    if "params" not in roles:
        return None
    name_at = roles.index("name") if "name" in roles else 0
    type_at = roles.index("type") if "type" in roles else None
    params_at = roles.index("params")
    how = "read as a table: " + " / ".join(
        f"{t or '(unnamed)'} ({r})" for t, r in zip(titles, roles, strict=True)
        if r != "other") + " columns"
    if any(_cell_kind(cells[params_at]) == "shape" for _, cells in body):
        return _listing(lines, start, index, body, name_at, params_at, how), index
    return _rows(lines, start, index, body, name_at, type_at, params_at, how), index


def _listing(lines: Sequence[str], start: int, end: int, body: Sequence[tuple[int, list[str]]],
             name_at: int, params_at: int, how: str) -> Printout:
    """A table that lists tensors (fvcore): its tensors, each module row's rounded count
    checked against the tensors under it."""
    tensors: list[NamedTensor] = []
    numbers: list[int] = []
    modules: list[tuple[int, str, str]] = []
    unread: list[Unread] = []
    cropped: list[str] = []
    for at, cells in body:
        name, cell = cells[name_at], _PERCENT.sub("", cells[params_at])
        kind = _cell_kind(cell)
        if kind == "shape":
            dims = shapes(cell)[0]
            if None in dims:
                unread.append(Unread(at + 1, lines[at], "a shape with an unknown dimension"))
                continue
            tensors.append(NamedTensor(name, tuple(d for d in dims if d is not None),
                                       trainable=not is_buffer(name)))
            numbers.append(at + 1)
        elif kind in ("count", "rounded"):
            modules.append((at, name, cell))
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
    return Printout("shapes", "tensors", start + 1, end, tensors=tuple(tensors),
                    tensor_lines=tuple(numbers), how=how, accounting=Accounting.span(
                        start + 1, end, unread, cropped))


def _rows(lines: Sequence[str], start: int, end: int, body: Sequence[tuple[int, list[str]]],
          name_at: int, type_at: int | None, params_at: int, how: str) -> Printout:
    """A table of counts alone: each row a module with its count (a rounded count named
    unread: no exact total is claimed from it), nested by its dotted path."""
    rows: list[Row] = []
    unread: list[Unread] = []
    total: int | None = None
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
        exact = count(cell)
        rounded = approximate(cell) if exact is None else None
        if rounded is not None:
            unread.append(Unread(at + 1, lines[at], f"its count is printed rounded ({cell})"))
        rows.append(Row(name, kind or "module", None, exact, at + 1, depth=name.count(".") + 1,
                        rounded=rounded, note=cell if rounded else ""))
    return Printout("table", "model", start + 1, end, tuple(rows), total, how=how,
                    rounded_total=rounded_total if total is None else None,
                    accounting=Accounting.span(start + 1, end, unread))


# -- tables aligned by runs of spaces -------------------------------------------------------------

_NAME_TITLES = ("Layer", "Name", "Module")
_PARAM_TITLES = ("Param #", "#Params", "Params", "Parameters", "# Params")
_OTHER_TITLES = ("Type", "Output Shape", "Input Shape", "Trainable", "Kernel Shape",
                 "Mult-Adds", "FLOPs", "MACs")
_GLYPH = re.compile(r"(?P<lead>(?:[|│]\s{3,4}|\s{4,5})*+)(?:[├└]─+|\+ ?-+ ?)?")
_NORM = re.compile(r"(?:Sync)?BatchNorm\dd|InstanceNorm\dd|LazyBatchNorm\dd")
_AFTER = re.compile(r"\s*+((Non-)?[Tt]rainable params|Total params|Model size|Params size|"
                    r"Estimated Total|Input size|Forward/backward|-{5,}|_{5,}|={5,})")


def starts_aligned(lines: Sequence[str], index: int) -> bool:
    """Whether ``lines[index]`` heads a table aligned by runs of spaces that no dialect reads:
    a name column (``Layer``), a parameter column (``Param #``) and a rule or tree row after
    it (torchscan's ``Layer  Type  Output Shape  Param #  Trainable``)."""
    line = lines[index]
    if len(line) > 400 or not line.lstrip().startswith(_NAME_TITLES) or "  " not in line:
        return False
    titles = [t for _, t in _tokens(line)]
    return (titles[0] in _NAME_TITLES and any(t in _PARAM_TITLES for t in titles)
            and all(t in (*_NAME_TITLES, *_PARAM_TITLES, *_OTHER_TITLES) for t in titles)
            and index + 1 < len(lines) and re.fullmatch(r"\s*[=\-_─━]{5,}\s*", lines[index + 1])
            is not None)


def _tokens(line: str) -> list[tuple[int, str]]:
    """Runs of text separated by two or more spaces, with where each starts."""
    return [(m.start(), m.group()) for m in re.finditer(r"\S+(?: \S+)*", line)]


def read_aligned(lines: Sequence[str], start: int) -> tuple[Printout, int] | None:
    """The space-aligned table headed at ``lines[start]``: a row per module, its depth from
    its tree glyphs, its count from the parameter column, the total from ``Total params``."""
    header = lines[start]
    found = _tokens(header)
    titles = [t for _, t in found]
    starts_at = [at for at, _ in found]
    params_at = next(k for k, t in enumerate(titles) if t in _PARAM_TITLES)
    type_at = titles.index("Type") if "Type" in titles else None
    first = start - 1 if start and re.fullmatch(r"\s*[_=\-]{5,}\s*", lines[start - 1]) else start
    rows: list[Row] = []
    unread: list[Unread] = []
    total: int | None = None
    index = start + 1
    while index < len(lines) and index - start < _LIMIT:
        line = lines[index]
        if (match := re.match(r"\s*Total params:\s*([\d,]+)\s*$", line)) is not None:
            total = count(match.group(1))
            index += 1
            while index < len(lines) and lines[index].strip() and _AFTER.match(lines[index]):
                index += 1
            break
        if not line.strip() or _AFTER.match(line):
            if not line.strip() and rows:
                break
            index += 1
            continue
        cells = [line[at:(starts_at[k + 1] if k + 1 < len(starts_at) else len(line))].strip()
                 for k, at in enumerate(starts_at)]
        glyph = _GLYPH.match(line)
        lead = glyph.end() if glyph else 0
        name = line[lead:starts_at[1] if len(starts_at) > 1 else len(line)].strip()
        kind = cells[type_at] if type_at is not None else "module"
        params = count(cells[params_at])
        if not name or not _TYPE.fullmatch(kind) or (params is None and cells[params_at] not in (
                "0", "-", "--", "")):
            unread.append(Unread(index + 1, line, "a row whose cells are not under the "
                                 "header's columns"))
            index += 1
            continue
        depth = 0 if lead == 0 else 1 + len(re.findall(r"[|│]|\s{4,5}", glyph.group("lead")
                                                       if glyph else ""))
        outputs = shapes(cells[titles.index("Output Shape")]) if "Output Shape" in titles else ()
        note = ""
        if params and "Trainable" in titles and _NORM.fullmatch(kind):
            params, note = None, (f"its row's {cells[params_at]} counts its running statistics "
                                  "beside its parameters (torchscan): not read")
        rows.append(Row(name, kind, outputs[0] if outputs else None, params, index + 1,
                        depth=depth, outputs=outputs, note=note))
        index += 1
    if not rows:
        return None
    how = "read as a table: " + " / ".join(t for t in titles if t in (
        *_NAME_TITLES, "Type", *_PARAM_TITLES)) + " columns, nesting by its tree glyphs"
    cropped = () if total is not None else ("no `Total params` line",)
    known = sum(r.params or 0 for r in rows)
    if total is not None and known != total and all(r.params is not None for r in rows):
        cropped = (f"its rows add up to {known:,}, not its Total params {total:,}: rows are "
                   "hidden below its depth, or a row counts what is no parameter",)
    return Printout("table", "model", first + 1, index, tuple(rows), total, how=how,
                    accounting=Accounting.span(first + 1, index, unread, cropped)), index
