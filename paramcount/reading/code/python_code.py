"""Pasted Python read statically with ``ast``: the models it builds, as ordered layer calls.

Nothing is imported, compiled to bytecode or run: the text is parsed, and only literals,
names bound to literals, and arithmetic on them are evaluated, by this module's own small
evaluator. ``nn.LSTM(32, hidden * 2)`` becomes a :class:`Call` whose arguments are the resolved
values, or :class:`Unknown` naming what could not be resolved and where. Models are
:class:`Block` s: an ``nn.Module`` subclass (the layers its ``__init__`` assigns), a
``Sequential`` (its list and ``.add`` calls), a functional Keras graph (``x = LSTM(64)(x)``
from an ``Input``), or one layer assigned to a name. A paste whose indentation was lost is
re-indented from its ``class`` and ``def`` lines; one that still does not parse is read one
statement (or one balanced bracket expression) at a time.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from typing import Any

from paramcount.engine.layers import KNOWN
from paramcount.reading.accounting import Accounting, Unread
from paramcount.reading.code.recovery import binary, is_prose, parse, statements, uncommented
from paramcount.reading.code.values import (
    MAX_BITS,
    MAX_CODE_LINES,
    MAX_INSTANCES,
    MAX_NODES,
    MAX_REPEAT,
    MAX_TEXT,
    MISSING,
    SPREAD,
    TIE,
    Block,
    Call,
    CodeReading,
    Factory,
    Record,
    Step,
    Unknown,
    _Budget,
    dotted,
    unknowns,
)
from paramcount.reading.code.walk import _Reader
from paramcount.reading.patterns import lazy
from paramcount.record import replace

__all__ = [
    "MAX_BITS", "MAX_CODE_LINES", "MAX_INSTANCES", "MAX_NODES", "MAX_REPEAT", "MAX_TEXT",
    "MISSING", "NOT_PARSED", "SPREAD", "TIE", "Block", "Call", "CodeReading", "Factory",
    "Record", "Step", "Unknown", "dotted", "layer_call", "read_code", "setting", "unknowns",
]


_SETTING = lazy(r"[A-Za-z_][\w.]*(?:\[['\"](?P<key>\w+)['\"]\])?")


def setting(name: str) -> str | None:
    """The ``--set`` name that gives an unresolved value: ``hidden`` for ``hidden``,
    ``args.hidden`` or ``cfg['hidden']``; None for an expression (a call never made).

    >>> setting("config.layers"), setting("cfg['hidden']"), setting("load(...)")
    ('layers', 'hidden', None)
    """
    match = _SETTING.fullmatch(name)
    if match is None:
        return None
    return match["key"] or name.rsplit(".", 1)[-1]


def read_code(text: str, overrides: Mapping[str, Any] | None = None) -> CodeReading:
    """Every model the code in ``text`` builds, read without importing or running anything."""
    reader = _Reader(overrides or {})
    if binary(text):
        return CodeReading((), "none", ("the input looks like binary data, not text: no code "
                                        "was read from it",))
    whole = text
    text, cut = _first_code_lines(text)
    text, deep = _shallow_lines(text)
    tree, mode, loops, dropped = parse(text)
    try:
        reader.module(tree, text)
    except (_Budget, RecursionError):
        reader.notes.append("the code is too large or too deeply nested to read in full; "
                            "what was read before the limit is shown")
    blocks = reader.blocks
    lines = text.split("\n")
    unread: list[Unread] = []  # statements no one model can be told from: every model's
    if cut:
        unread.append(Unread(cut + 1, whole.split("\n", cut + 1)[cut],
                             f"the code goes on past {MAX_CODE_LINES:,} lines of code, the most "
                             "paramcount reads"))
    if deep:
        unread.append(Unread(deep, whole.split("\n", deep)[deep - 1], TOO_DEEP))
    unread += [Unread(line, lines[line - 1], "a loop whose body the lost indentation hides: "
                      "its layers were read once") for line in loops]
    notes = list(reader.notes)
    notes += [f"--set {name}: the paste never uses {name}, so it changed nothing"
              for name in reader.overrides if name not in reader.used]
    if mode == "reindented":
        notes.insert(0, "the paste lost its indentation: it was re-indented from its class "
                        "and def lines (loops and branches read as if they ran once)")
    elif mode == "lines":
        notes.insert(0, "the code does not parse as a whole: it was read one statement at "
                        "a time")
    unparsed = _unparsed_layers(text) if mode == "lines" else []
    named = {u.line for u in unparsed}
    unparsed += [Unread(line, lines[line - 1], f"it builds a layer, {NOT_PARSED}")
                 for line in dropped if line not in named]
    if unparsed:
        unread += unparsed  # a layer of some model was not read: no model's total is claimed
        if not blocks:  # no model to name them in
            notes += [u.words for u in unparsed[:_MOST_UNPARSED]]
            if len(unparsed) > _MOST_UNPARSED:
                notes.append(f"and {len(unparsed) - _MOST_UNPARSED:,} more such statements "
                             "not read")
    if deep and not blocks:  # no model to name it in
        notes.append(next(u.words for u in unread if u.line == deep))
    if unread:
        shared = Accounting(frozenset(u.line for u in unread), tuple(unread))
        blocks = [replace(b, accounting=b.accounting + shared) for b in blocks]
    return CodeReading(tuple(blocks), mode, tuple(notes), frozenset(reader.frameworks))


_LAYER_CALL = lazy(r"\b([A-Z]\w*)\s*\(")
_SELF = lazy(r"\s*(self|model)\.")
"""A statement on the module being built (``self.x = ...``, ``model.add(...)``): perhaps a
layer."""
_CUT = lazy(r"[=(\[,.]\s*$")
"""A statement that ends where its code must go on (``_, h =``): cut short, it may have
built a layer."""
_MOST_UNPARSED = 5
NOT_PARSED = "but paramcount could not parse it"
"""Why a statement that builds a layer was not read (mangled in the paste, or cut off)."""
"""The most statements named one by one in the notes where no model was read."""


def _unparsed_layers(text: str) -> list[Unread]:
    """Each statement that calls a layer class but does not parse on its own (cut off, or
    mangled in the paste): its layer is not read, and the answer says so."""
    found = []
    lines = text.split("\n")
    for number, statement in statements(lines):
        layer = any(name in KNOWN for name in _LAYER_CALL.findall(statement))
        if is_prose(uncommented(lines[number - 1])) or not (
                layer or _SELF.match(statement) or _CUT.search(statement)):
            continue
        try:
            ast.parse(statement)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            what = "it builds a layer" if layer else "it may add a layer to a model"
            found.append(Unread(number, lines[number - 1], f"{what}, {NOT_PARSED} on its own"))
    return found


def _first_code_lines(text: str) -> tuple[str, int]:
    """``text`` up to its ``MAX_CODE_LINES``-th line of code (sentences and blank lines do not
    count), and the last line kept where more code followed (else 0)."""
    lines = text.split("\n")
    if len(lines) <= MAX_CODE_LINES:
        return text, 0
    code = 0
    for number, line in enumerate(lines, 1):
        if line.strip() and not is_prose(uncommented(line)):
            code += 1
            if code > MAX_CODE_LINES:
                return "\n".join(lines[:number - 1]), number - 1
    return text, 0


MAX_NESTING = 100
"""The deepest brackets code may nest (``nn.Sequential(`` in ``nn.Sequential(`` ...) to be
read: Python's own parser refuses 200; the code from the line that goes deeper on is named
unread, so no search runs over it."""

TOO_DEEP = (f"its brackets nest more than {MAX_NESTING} deep, the most paramcount reads: the "
            "code from here on was not read")
"""Why code nested too deep is not read."""

_STRINGS = lazy(r"'(?:[^'\\\n]|\\.)*'|\"(?:[^\"\\\n]|\\.)*\"|#.*")
_BRACKETS = {"(": 1, "[": 1, "{": 1, ")": -1, "]": -1, "}": -1}
_BRACKET = lazy(r"[()[\]{}]")


def _shallow_lines(text: str) -> tuple[str, int]:
    """``text`` up to the line where its brackets (outside strings and comments) nest more
    than :data:`MAX_NESTING` deep, and that line's number (else ``text`` and 0): one pass."""
    if text.count("(") + text.count("[") + text.count("{") <= MAX_NESTING:
        return text, 0
    depth = 0
    lines = text.split("\n")
    for number, line in enumerate(lines, 1):
        if "'" in line or '"' in line or "#" in line:
            line = _STRINGS.sub("", line)
        for char in _BRACKET.findall(line):  # the brackets alone: most characters are not
            depth = max(depth + _BRACKETS[char], 0)
            if depth > MAX_NESTING:
                return "\n".join(lines[:number - 1]), number
    return text, 0


def layer_call(text: str, line: int) -> Call | None:
    """One ``Class(args)`` expression (a line of a repr) read as a layer call, or None."""
    try:
        node = ast.parse(text, mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    if not isinstance(node, ast.Call):
        return None
    ast.increment_lineno(node, line - 1)
    try:
        value = _Reader({}).value(node, {})
    except (_Budget, RecursionError):
        return None
    return value if isinstance(value, Call) else None
