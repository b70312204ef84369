"""Tables aligned by runs of spaces that no dialect reads, found by their header's titles.

torchscan's ``summary`` (``Layer  Type  Output Shape  Param #  Trainable`` between rules, tree
glyphs ``├─`` for nesting, ``Total params: 19,466`` under it) and tabulate's plain tables
(``name  shape  params`` over dash groups ``-----  -----``) carry no landmark of their own:
the header is known by its titles (a name column first, a parameter or shape column among
them) and the rule under it. Columns are cut where the rule's dash groups stand, else where
the header's titles start. A table whose names are tensors' or that has a shape column is read
by :func:`paramcount.reading.tables.generic.interpret`; one of modules as rows (depth from the
tree glyphs, outputs from ``Output Shape``), the total under its own words. A normalisation
row in a table with a ``Trainable`` column counts its running statistics (torchscan prints 65
for a ``BatchNorm1d(16)``'s 32 parameters): that row is not read as parameters.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from paramcount.reading.accounting import Accounting, Unread
from paramcount.reading.patterns import lazy
from paramcount.reading.tables.dialect import Dialect, Scan, once
from paramcount.reading.tables.generic import TENSOR, TYPE, interpret, own_counts, path_depth
from paramcount.reading.tables.table import Printout, Row, count, shapes, tokens
from paramcount.record import replace

__all__ = ["heads", "read", "starts"]

_TITLE = lazy(
    r"(?:layer|name|module|parameter name|param name|tensor|type|class|(?:output |input |"
    r"kernel )?shape|param #|#params|# params|params|parameters|numel|count|trainable|"
    r"requires_grad|dtype|device|mult-adds|flops|macs)(?: \(\w{1,20}\))?", re.I)
_FIRST = lazy(r"(?:layer|name|module|parameter name|param name|tensor)\b", re.I)
_PARAMS = lazy(r"param #|#params|# params|params|parameters|numel|(?:tensor )?shape",
                     re.I)
_RULE = lazy(r"\s*+[=\-_─━]{5,}\s*+$")
_GROUPS = lazy(r"\s*+-{2,}(?: {1,4}-{2,})++\s*+$")
_GLYPH = lazy(r"(?P<lead>(?:[|│]\s{3,4}|\s{4,5})*+)(?:[├└]─+|\+ ?-+ ?)?")
"""A row's tree glyphs (``|    └─``): the depth is read from the lead before the branch."""
_NORM = lazy(r"(?:Sync|Lazy)?BatchNorm[0-9]d|InstanceNorm[0-9]d")
"""A normalisation class whose row torchscan counts with its running statistics."""
_AFTER = lazy(r"\s*+((Non-)?[Tt]rainable params|Total params|Model size|Params size|"
                    r"Estimated Total|Input size|Forward/backward|-{5,}|_{5,}|={5,})")
DIALECT = Dialect("aligned", {}, _AFTER, lazy(r"\s*+Total params:\s*+([0-9,]++)\s*+$"),
                  above=_RULE, rules=frozenset(), blank=True)
"""The generic dialect of such tables: its columns found by what they hold; its total under
``Total params:``, the lines after it its footer's; its rows ended by a blank line."""


def heads(line: str) -> bool:
    """Whether ``line`` opens with a name column's title (``Layer``, ``name``): the cheap
    first test of :func:`starts`."""
    return _FIRST.match(line) is not None


def starts(lines: Sequence[str], index: int) -> bool:
    """Whether ``lines[index]`` heads such a table: every title one a parameter table prints,
    the first a name's, one a parameter count's or a shape's, and a rule under it."""
    line = lines[index]
    if _FIRST.match(line) is None or len(line) > 400 or "  " not in line.strip() or (
            index + 1 >= len(lines)):
        return False
    titles = [t for _, t in tokens(line)]
    return (len(titles) >= 2 and _FIRST.match(titles[0]) is not None
            and all(_TITLE.fullmatch(t) for t in titles)
            and any(_PARAMS.fullmatch(t) for t in titles[1:])
            and (_RULE.match(lines[index + 1]) is not None
                 or _GROUPS.match(lines[index + 1]) is not None
                 or _filled(lines[index + 1], len(titles))))


def _filled(line: str, width: int) -> bool:
    """Whether ``line``, right under a header with no rule (tabulate's ``plain``), is a row of
    its ``width`` cells, a shape or a count among them."""
    cells = [t for _, t in tokens(line)]
    return len(cells) == width and any(shapes(c) or count(c) is not None for c in cells[1:])


def read(lines: Sequence[str], start: int) -> tuple[Printout, int] | None:
    """The space-aligned table headed at ``lines[start]``: its rows cut into the header's
    columns, read as tensors or as modules."""
    found = tokens(lines[start])
    titles = [t for _, t in found]
    rule = lines[start + 1]
    groups = [m.start() for m in re.finditer(r"-{2,}", rule)] if _GROUPS.match(rule) else []
    starts_at = groups if len(groups) == len(titles) else [at for at, _ in found]
    ruled = bool(groups) or _RULE.match(rule) is not None  # else cut a row at its own gaps
    first = DIALECT.first(lines, start)
    body: list[tuple[int, list[str]]] = []
    leads: list[int] = []
    scan = Scan(lines, start, DIALECT)
    for index, line in scan:
        if not line.strip() and body:
            break
        if not line.strip() or _AFTER.match(line) or _GROUPS.match(line):
            continue
        own = [t for _, t in tokens(line)]
        if own == titles:
            break  # its header again: the same table printed once more, a printout of its own
        glyph = _GLYPH.match(line)
        lead = glyph.end() if glyph else 0
        cells = own if not ruled and len(own) == len(titles) else [
            line[max(at, lead if k == 0 else at):(
                starts_at[k + 1] if k + 1 < len(starts_at) else len(line))].strip()
            for k, at in enumerate(starts_at)]
        body.append((index, cells))
        leads.append(len(glyph.group("lead")) if glyph and lead else -1)
    index, total = scan.end, count(scan.total) if scan.total is not None else None
    if not body:
        return None
    if any(re.fullmatch(r"(?:tensor |param(?:eter)? )?shape", t, re.I) for t in titles) or all(
            TENSOR.search(cells[0].rsplit(".", 1)[-1]) for _, cells in body):
        return interpret(lines, first, index, titles, body, total)
    return _modules(lines, first, index, titles, body, leads, total), index


def _modules(lines: Sequence[str], first: int, end: int, titles: Sequence[str],
             body: Sequence[tuple[int, list[str]]], leads: Sequence[int],
             total: int | None) -> Printout:
    """A table of modules: a row each, its depth from its tree glyphs (the root, without any,
    0), its outputs from ``Output Shape``, its count from the parameter column."""
    lowered = [t.lower() for t in titles]
    params_at = next(k for k, t in enumerate(titles) if _PARAMS.fullmatch(t))
    type_at = lowered.index("type") if "type" in lowered else None
    out_at = lowered.index("output shape") if "output shape" in lowered else None
    rows: list[Row] = []
    unread: list[Unread] = []
    for (at, cells), lead in zip(body, leads, strict=True):
        name, cell = cells[0], cells[params_at]
        kind = cells[type_at] if type_at is not None else "module"
        params = count(cell)
        if not name or not TYPE.fullmatch(kind) or (params is None and cell not in (
                "-", "--", "")):
            unread.append(Unread(at + 1, lines[at], "a row whose cells are not under the "
                                 "header's columns"))
            continue
        depth = 0 if lead < 0 else 1 + lead // 4
        outputs = shapes(cells[out_at]) if out_at is not None else ()
        note = ""
        if params and "trainable" in lowered and _NORM.fullmatch(kind):
            params, note = None, (f"its row's {cell} counts its running statistics beside its "
                                  "parameters (torchscan): not read")
        rows.append(Row(name, kind, outputs[0] if outputs else None, params, at + 1,
                        depth=depth, outputs=outputs, note=note))
    glyphs = any(lead >= 0 for lead in leads)
    how = "read as a table: " + " / ".join(
        t for k, t in enumerate(titles) if k in (0, type_at, params_at)) + (
        " columns, nesting by its tree glyphs" if glyphs else " columns")
    if not glyphs and any(path_depth(r.name) > 1 for r in rows):  # nested by its paths
        rows = [replace(r, depth=path_depth(r.name)) for r in rows]
        how += ", nesting by its paths"
    rows, repeated = once(rows)
    if repeated:
        how += "; " + repeated
    if not glyphs:
        rows = own_counts(rows)
    cropped: tuple[str, ...] = () if total is not None else ("no `Total params` line",)
    known = sum(r.params or 0 for r in rows)
    if total is not None and known != total and all(r.params is not None for r in rows):
        cropped = (f"its rows add up to {known:,}, not its Total params {total:,}: rows are "
                   "hidden below its depth, or a row counts what is no parameter",)
    return Printout("table", "model", first + 1, end, tuple(rows), total, how=how,
                    accounting=Accounting.span(first + 1, end, unread, cropped))
