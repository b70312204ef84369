"""Any repr tree ``(name): Class(args…)``, and a printer's own figures beside the arguments.

:func:`walk` finds the tree every dialect reads (:mod:`.torch_repr`, :mod:`.hf_repr`): each
module's path, class and arguments, nesting by indentation or by brackets, torch's folded
repeats expanded copy by copy. A per-layer flop counter prints ``print(model)`` with its
figures first in each module's brackets: ptflops ``(gru): GRU(18.82 k, 94.358% Params, 385.28
KMac, 95.935% MACs, 32, 64, batch_first=True)``, calflops ``GRU(18.82 K = 96.66% Params, 385.28
KMACs = 99.83% MACs, ...)``, and a line of figures alone under each container's ``Net(``. The
constructor's arguments follow the figures: :func:`arguments` finds where they start (after the
last leading argument that carries a printer's word or unit), so :mod:`.torch_repr` reads the
layer calls as it reads a plain repr; :func:`figures_only` tells a container's line of figures,
read past.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from paramcount.reading.accounting import Unread
from paramcount.reading.patterns import lazy
from paramcount.reading.tables.generic import approximate
from paramcount.reading.tables.table import count
from paramcount.record import record, replace
from paramcount.usertext import ascii_digits, digits_value

__all__ = [
    "MAX_COPIES",
    "Module",
    "Tree",
    "arguments",
    "figures_only",
    "listed",
    "parameters_figure",
    "parameters_share",
    "repeats",
    "sizeless",
    "walk",
]

_FIGURE = lazy(
    r"""\s*+-?[0-9.,]{1,30}\s?(?:[kKMGTPB]|[kKMGT]?(?:Mac|MACs?|FLOPS|FLOPs?|B)|[mun]?s)?\s?%?
        (?:\s?(?:Params|params|MACs?|FLOPs?|FLOPS|Mac))?
        (?:\s?=\s?[0-9.,]{1,30}\s?%\s?(?:Params|params|MACs?|FLOPs?|FLOPS|latency))?\s*+""",
    re.X)
"""One figure: ptflops' ``18.82 k``, ``94.358% Params``; calflops' ``18.82 K = 96.66% Params``;
DeepSpeed's profiler's latency too (``107.05 us = 1.64% latency``)."""
_WORDED = lazy(r"[A-Za-z%]")
_LIMIT = 12
"""The most leading figures one module line carries (ptflops 4, calflops 3 to 6)."""


def _leading(text: str) -> list[str]:
    """The first arguments of ``text`` (split at top-level commas, at most a few), as printed."""
    parts: list[str] = []
    depth, begin = 0, 0
    for at, char in enumerate(text):
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
            if depth < 0:
                parts.append(text[begin:at])
                return parts
        elif char == "," and depth == 0:
            parts.append(text[begin:at])
            begin = at + 1
            if len(parts) > _LIMIT:
                return parts
    parts.append(text[begin:])
    return parts


def arguments(rest: str) -> int:
    """Where the constructor's own arguments start in ``rest`` (a module line after its
    ``Class(``): past the printer's leading figures, the last of which carries a unit, a
    percent or a word (``18.82 k``, ``94.358% Params``, ``650.0 Mac``); 0 where it carries
    none (a plain repr: ``GRU(32, 64)`` keeps its 32 and 64)."""
    end, at = 0, 0
    for part in _leading(rest)[:_LIMIT]:
        if _FIGURE.fullmatch(part) is None or not part.strip():
            break
        at += len(part) + 1
        if _WORDED.search(part) is not None:
            end = at
    if end == 0:
        return 0
    while end < len(rest) and rest[end] == " ":
        end += 1
    return min(end, len(rest))


def figures_only(line: str) -> bool:
    """Whether ``line`` holds a printer's figures and nothing else (ptflops' line under a
    container's ``Net(``: ``19.47 k, 100.000% Params, 385.93 KMac, 100.000% MACs,``)."""
    text = line.strip().rstrip(",")
    if not text or not ascii_digits(text[0]) or len(text) > 400:
        return False
    parts = text.split(",")
    return len(parts) >= 2 and all(_FIGURE.fullmatch(p) is not None for p in parts) and any(
        _WORDED.search(p) is not None for p in parts)


def parameters_figure(line: str) -> tuple[int, int] | None:
    """The parameter count a line of figures leads with (ptflops' ``19.47 k, 100.000% Params,
    ...``): the counts it stands for, None where it leads with none."""
    first = line.strip().split(",", 1)[0].strip()
    exact = count(first)
    return (exact, exact) if exact is not None else approximate(first)


_SHARE = lazy(r"\b([0-9]{1,3}(?:\.[0-9]{1,6})?)\s?% Params")


def parameters_share(line: str) -> str | None:
    """The share of the model's parameters a line of figures gives its module (ptflops'
    ``19.974% Params``), as printed; None where it gives none."""
    found = _SHARE.search(line[:400])
    return found.group(1) if found else None


# -- the tree ----------------------------------------------------------------------------------

_HEAD = lazy(r"([A-Za-z_]\w*)\($")
_ITEM = lazy(r"(?P<indent>\s*)\((?P<attr>[\w.-]+)\): (?:(?P<times>[0-9]+) x )?"
                   r"(?P<cls>[A-Za-z_][\w.]*)\((?P<rest>.*)$")
_RANGE = lazy(r"([0-9]+)-([0-9]+)")
_ARGUMENTS = lazy(r"\s++[a-z_]\w*+=[^()=,]*+(?:, [a-z_]\w*+=[^()=,]*+)*+,?\s*+$")
"""A line of keyword arguments alone under a module's ``Class(`` (torch's ``extra_repr`` of a
module with children: ``ParametrizedLinear(`` then ``in_features=32, out_features=10, ...``)."""
MAX_COPIES = 100_000
"""The most copies a folded line is read as (a larger fold is named unread)."""
MAX_MODULES = 200_000
"""The most modules one repr's folds expand to, nested folds multiplied (a fold that would
pass it is named unread, its first copy kept: the total a bound, the read linear)."""


@record
class Module:
    """One module of a repr tree, each copy of a folded repeat its own: its dotted path
    (``layers.1.mixer``), class, constructor arguments as printed (a printer's figures read
    past; empty for a module whose children follow on the lines below) and line (1-based)."""

    path: str
    cls: str
    rest: str
    line: int
    opens: bool
    """Whether its children follow (the line ends in ``Class(``)."""


@record
class Tree:
    """What :func:`walk` read of a repr: the root's class, every module in the order torch
    names them (each copy of a folded repeat after the one before), the lines it could not
    read, whether its closing ``)`` was read, the index past its last line, and the line of
    figures under its head, if a printer wrote one (ptflops)."""

    root: str
    modules: tuple[Module, ...]
    unread: tuple[Unread, ...]
    closed: bool
    end: int
    figures: str | None


@record
class _Frame:
    """A module whose children are being read: where it opened, and its fold, if folded."""

    indent: int
    attr: str
    copies: range | None
    start: int
    """The index of its own entry among the modules read."""


def walk(lines: Sequence[str], start: int, *, brackets: bool = False, listed: bool = False
         ) -> Tree | None:
    """The ``(name): Class(args…)`` tree whose head ``Net(`` is ``lines[start]``, up to its
    closing ``)``: nesting by indentation, or by brackets where the indentation is lost (every
    line flush left) or where the dialect says (``brackets``: a paste that mixes tabs and
    spaces), each ``Class(`` at a line's end opening one level and each ``)`` closing the
    innermost; torch's folded repeats (``(0-23): 24 x Block(``) expanded, copy after copy;
    a printer's figures before the arguments, and its lines of figures alone, read past. A
    line that is no module line is named unread; a blank line, or an unindented one where
    the indentation is kept, ends the tree (it was cut off above it). None where
    ``lines[start]`` opens no such tree."""
    head = _HEAD.fullmatch(lines[start].rstrip())
    figures = start + 1 < len(lines) and figures_only(lines[start + 1])
    opening = start + 1 + figures
    if head is None or opening >= len(lines) or not _ITEM.match(lines[opening]):
        return None
    flush = not lines[opening].startswith((" ", "\t"))
    nested = brackets or flush
    modules: list[Module] = []
    stack: list[_Frame] = []
    unread: list[Unread] = []
    closed = False
    index = opening
    while index < len(lines):
        line = lines[index].rstrip()
        index += 1
        if listed and line[:1] == ")" and line[1:2] in (",", ")"):
            _pop(stack, 0, modules, unread)  # the root's close, the listing going on after it
            closed = True
            break
        if line.strip() == ")":
            if nested and stack:
                _pop(stack, stack[-1].indent, modules, unread)
                continue
            if nested or line == ")":
                _pop(stack, 0, modules, unread)
                closed = True
                break
            _pop(stack, len(line) - len(line.lstrip()), modules, unread)
            continue
        if not line.strip() or not (flush or line.startswith((" ", "\t"))):
            index -= 1
            break
        match = _ITEM.match(line)
        if match is None and figures_only(line):
            continue  # a printer's figures for the module above (ptflops): read past
        if match is None and flush:
            index -= 1
            break  # not the repr's: it was cut off above this line
        if match is None:
            unread.append(Unread(index, line, "not a `(name): Class(...)` line of a torch repr"))
            continue
        indent = len(stack) + 1 if nested else len(match["indent"])
        _pop(stack, indent, modules, unread)
        copies, problem = _copies(match["attr"], match["times"])
        if problem:
            unread.append(Unread(index, line, problem))
            continue
        attr = str(copies.start) if copies is not None else match["attr"]
        path = ".".join([f.attr for f in stack] + [attr])
        rest = match["rest"]
        rest = rest[arguments(rest):]  # past a printer's own figures (ptflops, calflops)
        opens, at = not rest, index
        if opens and index < len(lines) and _ARGUMENTS.match(lines[index]) is not None:
            rest = lines[index].strip().rstrip(",") + ")"  # a parametrized module's arguments
            index += 1
        modules.append(Module(path, match["cls"], rest, at, opens))
        if opens:
            stack.append(_Frame(indent, attr, copies, len(modules) - 1))
        elif copies is not None:
            _repeat(modules, len(modules) - 1, copies, ".".join(f.attr for f in stack), unread)
    if not closed:
        _pop(stack, 0, modules, unread)
    return Tree(head.group(1), tuple(modules), tuple(unread), closed, index,
                lines[start + 1] if figures else None)


def _copies(attr: str, times: str | None) -> tuple[range | None, str]:
    """A folded line's copies (``1-2`` with ``2 x``: indices 1 and 2), or why they cannot be
    read; (None, "") for a line that is not folded."""
    if times is None:
        return None, ""
    bounds = _RANGE.fullmatch(attr)
    if bounds is None:
        return None, "a folded repeat of an unknown form"
    low, high, copies = digits_value(bounds[1]), digits_value(bounds[2]), digits_value(times)
    if high - low + 1 != copies or copies < 1:
        return None, f"a folded repeat of {copies} copies over the indices {attr}"
    if copies > MAX_COPIES:
        return None, f"a folded repeat of more than {MAX_COPIES:,} copies"
    return range(low, high + 1), ""


def _pop(stack: list[_Frame], indent: int, modules: list[Module], unread: list[Unread]) -> None:
    """Close every module opened at ``indent`` or deeper, repeating each folded one (itself
    and all read under it) once for each further copy."""
    while stack and stack[-1].indent >= indent:
        frame = stack.pop()
        if frame.copies is not None:
            _repeat(modules, frame.start, frame.copies, ".".join(f.attr for f in stack), unread)


def _repeat(modules: list[Module], first: int, copies: range, parent: str,
            unread: list[Unread]) -> None:
    """Modules ``first`` onwards (the first copy, at ``parent.{copies.start}``) repeated for
    each further copy, their paths renumbered; where that would pass :data:`MAX_MODULES`
    (folds nested in folds), the fold is named unread and its first copy alone kept."""
    copy = modules[first:]
    if len(modules) + len(copy) * (len(copies) - 1) > MAX_MODULES:
        fold = modules[first]
        unread.append(Unread(fold.line, f"({copies.start}-{copies[-1]}): {len(copies)} x "
                             f"{fold.cls}(...)", f"a folded repeat whose copies hold more than "
                             f"{MAX_MODULES:,} modules in all: only its first copy is read"))
        return
    head = f"{parent}.{copies.start}" if parent else str(copies.start)
    for number in copies[1:]:
        other = f"{parent}.{number}" if parent else str(number)
        modules += [replace(m, path=other + m.path[len(head):]) for m in copy]


_SCRIPTED = lazy(r"\s*+(?:\([\w.-]++\): )?RecursiveScriptModule\(original_name=(\w++)\)?$")


def sizeless(lines: Sequence[str]) -> str | None:
    """Why a paste that holds a repr holds no sizes, where it is one that prints none: a
    scripted module's (``torch.jit.script``: ``RecursiveScriptModule(original_name=Net``); None
    otherwise."""
    for number, line in enumerate(lines[:10_000], 1):
        if (found := _SCRIPTED.match(line)) is not None:
            return (f"line {number} `{line.strip()[:60]}` is the repr of a scripted module "
                    f"(`torch.jit.script`), which prints each module's class "
                    f"(`{found[1]}`) but none of its sizes: paste `print(model)` before "
                    "scripting it, or its `named_parameters()`")
    return None


# -- modules listed: named_modules(), modules(), children() -----------------------------------

_ROOT_LISTED = lazy(r"(\[\('', |\[| )([A-Za-z_]\w*)\($")
"""The model's repr as the first of a listing of modules: ``[('', Net(`` (``list(model.
named_modules())``), ``[Net(`` (``list(model.modules())``), `` Net(`` (``for name, m in
model.named_modules(): print(name, m)``, the model's name empty)."""
_NAMED_ENTRY = lazy(r"([\w.]+) ([A-Za-z_]\w*)\((.*\))$")
"""``emb Embedding(100, 16)``: a module printed after its name (``named_children()``)."""
_NAMED_OPENING = lazy(r"([\w.]+) ([A-Za-z_]\w*)\($")
"""``rnn Sequential(``: a container printed after its name, its modules on the lines below."""
_MAX_ENTRIES = 10_000


class _Headed(Sequence[str]):
    """``lines`` with the one at ``at`` read as ``head`` (the listing's root as a repr's head)."""

    def __init__(self, lines: Sequence[str], at: int, head: str) -> None:
        self._lines, self._at, self._head = lines, at, head

    def __len__(self) -> int:
        return len(self._lines)

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, int) and index == self._at:
            return self._head
        return self._lines[index] if isinstance(index, int) else [
            self[i] for i in range(*index.indices(len(self)))]


def listed(lines: Sequence[str], start: int, known: Callable[[str], bool]
           ) -> tuple[Tree, str] | None:
    """A listing of modules that starts at ``lines[start]``, read as the repr tree it holds,
    with how it was read: the model's repr first and then each of its modules again
    (``named_modules()``, ``modules()``: the repeats read past, never counted twice), or the
    model's children alone, one a line after its name (``named_children()``) or one list
    on one line (``list(model.children())``), each of whose classes ``known`` knows."""
    line = lines[start].rstrip()
    if (root := _ROOT_LISTED.fullmatch(line)) is not None:
        tree = walk(_Headed(lines, start, f"{root[2]}("), start, listed=True)
        if tree is None or not tree.closed:
            return None
        end = repeats(lines, tree, root[1] == " ")
        return replace(tree, end=end), (
            "read as the model's repr, listed first among its modules; the modules listed "
            "after it are the same modules again, not counted twice")
    if line[:1] == "[" and line.endswith(")]"):
        parts = _entries(line[1:-1])
        modules = [Module(str(n), m[1], m[2], start + 1, False) for n, part in
                   enumerate(parts) if (m := _ENTRY.fullmatch(part.strip())) is not None]
        if len(modules) != len(parts) or not modules or not all(known(m.cls) for m in modules):
            return None
        return Tree("children", tuple(modules), (), True, start + 1, None), (
            "read as a list of the model's children, each counted once")
    modules = []
    index = start
    while index < len(lines) and len(modules) < _MAX_ENTRIES:
        text = lines[index].rstrip()
        if (opening := _NAMED_OPENING.fullmatch(text)) is not None and known(opening[2]) and (
                all(m.path != opening[1] for m in modules)):
            inner = walk(_Headed(lines, index, f"{opening[2]}("), index)
            if inner is None or not inner.closed:
                break
            modules.append(Module(opening[1], opening[2], "", index + 1, True))
            modules += [replace(m, path=f"{opening[1]}.{m.path}") for m in inner.modules]
            index = inner.end
            continue
        found = _NAMED_ENTRY.fullmatch(text)
        if found is None or not known(found[2]) or any(m.path == found[1] for m in modules):
            break  # not an entry, or the listing printed again
        modules.append(Module(found[1], found[2], found[3], index + 1, False))
        index += 1
    if len(modules) < 2:
        return None
    return Tree("children", tuple(modules), (), True, index, None), (
        "read as the model's children, each printed after its name")


_ENTRY = lazy(r"([A-Za-z_]\w*)\((.*\))")


def _entries(text: str) -> list[str]:
    """``text`` split at its top-level commas."""
    parts, depth, begin = [], 0, 0
    for at, char in enumerate(text):
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append(text[begin:at])
            begin = at + 1
    parts.append(text[begin:])
    return parts


def repeats(lines: Sequence[str], tree: Tree, loop: bool) -> int:
    """The index past the modules listed again after the root's repr (``tree`` ends at its
    close): a list's up to its closing ``]``; a loop's lines while each is a module's path and
    its repr (or a line of a nested one's, indented, or its ``)``)."""
    index = tree.end - 1
    paths = {m.path for m in tree.modules}
    if not loop:
        limit = min(len(lines), index + 4 * len(tree.modules) + 8 * (tree.end - 1) + 2)
        while index < limit:
            if lines[index].rstrip().endswith("]"):
                return index + 1
            index += 1
        return tree.end
    index = tree.end
    seen: set[str] = set()
    while index < len(lines):
        text = lines[index]
        name = text.split(" ", 1)[0]
        if not (name in paths or text[:1] in (" ", "\t", ")")) or not text.strip() or (
                name in seen) or _ROOT_LISTED.fullmatch(text.rstrip()) is not None:
            break  # past the repeats: another printout, or the listing printed again
        if name in paths:
            seen.add(name)
        index += 1
    return index
