"""What a copy wraps a paste in, taken off before any reader runs, line for line.

A printout reaches paramcount as people copy it: from a colour terminal (ANSI escape codes
around its words, as rich and Keras 3 print them), scraped from a web page's source
(``&lt;``, ``&gt;``, ``&amp;``, ``&#x27;``), with an editor's or a pastebin's line numbers
before every line (``12 | ...``, ``12  ...``), or as an IPython / Jupyter transcript
(``In [3]: model``, ``   ...: `` and ``Out[3]: Net(``). Each wrapping is told by its own marks
and taken off every line it is on, so that every reader (and the code reader) sees the paste
as it was printed; a paste keeps its number of lines, so every line number an answer names is
the paste's own. A Markdown quote (``> ``) and a tab's indentation are taken off in
:mod:`paramcount.reading.pipeline`.
"""

from __future__ import annotations

from collections.abc import Sequence

from paramcount.reading.patterns import lazy

__all__ = ["rejoined", "unwrapped_lines", "unwrapped_text"]

_ESCAPE = lazy(r"\x1b(?:\[[0-9;?]*+[ -/]*+[@-~]|\][^\x07\x1b]{0,2000}(?:\x07|\x1b\\))")
"""A terminal's escape sequence: a colour or style (``\\x1b[1;36m``), a cursor move, or an
operating-system command (rich's ``\\x1b]8;;url\\x1b\\\\`` hyperlinks)."""
_ENTITY = lazy(r"&(?:lt|gt|amp|quot|apos|nbsp|#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6});")
"""An HTML character reference, as a page's source writes ``<``, ``>``, ``&`` and quotes."""


def unwrapped_text(text: str) -> str:
    """``text`` without a terminal's escape codes and with its HTML character references read
    as the characters they stand for (only where it holds one of each)."""
    if "\x1b" in text:
        text = _ESCAPE.sub("", text)
    if "&" in text and _ENTITY.search(text):
        import html  # only for a paste scraped from a page

        text = html.unescape(text)
    return text


_NUMBERED = lazy(r"( *+)([0-9]{1,6})(?=[ \t|│:]|$)")
_BAR = lazy(r" ?[|│:]")
_PROMPT = lazy(r"(?:In \[[0-9]{1,6}\]|Out\[[0-9]{1,6}\]| {2,8}\.{3,}):(?: |$)")
"""IPython's prompts: ``In [3]: ``, ``Out[3]: `` and the continuation ``   ...: ``."""

_LEAST = 3
"""The fewest lines a run of line numbers holds (fewer: a list's numbers, not an editor's),
but for a paste numbered whole behind a gutter (``1  {'rnn.weight': ...}``)."""


def unwrapped_lines(lines: Sequence[str]) -> list[str]:
    """``lines`` with an editor's line numbers taken off each run of lines that carries them,
    and IPython's prompts taken off the lines they open."""
    found = list(lines)
    _numbers(found)
    for at, line in enumerate(found):
        if line[:1] in ("I", "O", " ") and (prompt := _PROMPT.match(line)) is not None:
            found[at] = line[prompt.end():]
    return found


def _numbers(lines: list[str]) -> None:
    """Take off, in place, the line numbers of every run of at least :data:`_LEAST` lines
    numbered one after another (``12 |``, ``13 |`` ...; right-aligned, as editors print them)
    that stands at the paste's start or after a blank line: the number and the gutter after it
    (``|`` with a space, or the spaces every line of the run has)."""
    at = 0
    while at < len(lines):
        if at and lines[at - 1].strip():
            at += 1
            continue
        match = _NUMBERED.match(lines[at])
        if match is None:
            at += 1
            continue
        end, number, column = at + 1, int(match.group(2)), match.end()
        while end < len(lines) and (following := _NUMBERED.match(lines[end])) is not None and (
                following.end() == column and int(following.group(2)) == number + end - at):
            end += 1
        if end - at >= _LEAST or (at == 0 and not any(line.strip() for line in lines[end:])
                                  and _gutter(lines[0][column:])):
            _strip(lines, at, end, column)  # a run, or a short paste numbered whole
        at = end


def _gutter(rest: str) -> bool:
    """Whether ``rest``, what follows a number, opens with a gutter no prose puts there: a bar,
    a tab or two spaces."""
    return _BAR.match(rest) is not None or rest[:1] == "\t" or rest[:2] == "  "


def _strip(lines: list[str], start: int, end: int, column: int) -> None:
    """Take the gutter off ``lines[start:end]``, whose numbers end at ``column``: a bar (and
    one space after it) where every line has one, else the spaces every line with text after
    its number has."""
    rests = [line[column:] for line in lines[start:end]]
    if all(_BAR.match(rest) or not rest.strip() for rest in rests):
        for offset, rest in enumerate(rests):
            bar = _BAR.match(rest)
            rest = rest[bar.end():] if bar else ""
            lines[start + offset] = rest[1:] if rest[:1] == " " else rest
        return
    filled = [rest for rest in rests if rest.strip()]
    gutter = min((len(rest) - len(rest.lstrip(" \t")) for rest in filled), default=0)
    if not gutter:
        return  # no gutter after the numbers: they are the lines' own
    for offset, rest in enumerate(rests):
        lines[start + offset] = rest[gutter:]


# -- lines a terminal broke at its width -------------------------------------------------------

_RULE_CHARACTERS = frozenset("=-_+|:~─━═┄┅┈┉╌╍┬┴┼┳┻╋╤╧╪╦╩╬┯┷┿╇╈╀╁╂╃╄╅╆╊┏┓┗┛┌┐└┘╭╮╰╯┡┩┢┪"
                             "╞╡╟╢╔╗╚╝╠╣├┤┣┫┠┨┝┥╒╕╘╛")
"""The characters a table's rule is drawn in (ASCII and box drawing)."""
_NARROWEST = 40
"""The narrowest terminal whose breaks are looked for."""


def rejoined(lines: Sequence[str]) -> tuple[list[str], str]:
    """``lines`` with the lines a terminal broke at its width joined again, and what the answer
    says of it (empty where none was). A terminal that puts its breaks into the copy cuts
    every longer line after exactly its width: told by a table's rule cut so (a line of rule
    characters exactly as long as the widest line, its rule carried on at the start of the
    next, shorter line: ``+-----`` over ``---+---+``; two whole rules, a table printed right
    after another, are as long as each other), every line of that width is joined to the
    line after it. Without such a rule, a line as wide as the widest that leaves a bracket
    open, followed by lines as wide and then a shorter line that closes it (a printed dict or
    a repr's line cut), is joined; any other line is left as it is."""
    width = 0
    for at in range(len(lines) - 1):
        line, following = lines[at], lines[at + 1]
        if len(line) >= _NARROWEST and following[:1] == line[-1:] and line[-1:] in (
                _RULE_CHARACTERS) and set(line) <= _RULE_CHARACTERS and set(
                following.rstrip()) <= _RULE_CHARACTERS and len(following) < len(line):
            width = len(line)
            break
    widest = max((len(line) for line in lines), default=0)
    if width and widest > width:
        width = 0
    found: list[str] = []
    joined = 0
    at = 0
    while at < len(lines):
        line = lines[at]
        end = at
        if width:
            while len(line) % width == 0 and line and end + 1 < len(lines) and lines[end + 1]:
                end += 1
                line += lines[end]
        elif len(line) == widest >= _NARROWEST and (run := _balanced(lines, at, widest)):
            end = run  # a literal or a repr's line cut where its brackets are still open
            line = "".join(lines[at:end + 1])
        joined += end - at
        found.append(line)
        at = end + 1
    if not joined:
        return list(lines), ""
    told = "its rules cut at that width" if width else (
        "lines of that width whose brackets close on the shorter line after them")
    return found, (f"{joined:,} lines were breaks a terminal {width or widest} columns wide "
                   f"put into longer lines ({told}): read joined to the line before them, so "
                   "the line numbers here count the joined lines")


_OPENING, _CLOSING = "([{", ")]}"


def _balanced(lines: Sequence[str], start: int, width: int) -> int | None:
    """Where a run of lines of ``width`` from ``start`` (0-based) ends: the first shorter line
    after them, where ``lines[start]`` leaves a bracket open that only that line closes; None
    where it is no such run."""
    depth = _depth(lines[start])
    if depth <= 0:
        return None
    at = start + 1
    while at < len(lines) and at - start < 10_000 and lines[at]:
        depth += _depth(lines[at])
        if len(lines[at]) < width:
            # one line its writer went on from on an indented line (code, pprint) is no
            # terminal's break; two lines as wide as the widest in a row are
            indented = lines[at][:1] in (" ", "\t")
            return at if depth == 0 and not (indented and at == start + 1) else None
        if depth <= 0:
            return None
        at += 1
    return None


def _depth(text: str) -> int:
    """How many more brackets ``text`` opens than it closes."""
    return sum(text.count(c) for c in _OPENING) - sum(text.count(c) for c in _CLOSING)
