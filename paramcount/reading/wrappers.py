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
from itertools import compress

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


_ANY_NUMBER = lazy(r"\n(?:> ?)*+ *+[0-9]{1,6}(?:[ \t|│:\n]|$)")
"""A line that opens with a number (under a quote's marks too): the cheap test of the paste
before its runs are looked for."""
_ANY_PROMPT = lazy(r"\n(?:> ?)*+(?:In \[[0-9]|Out\[[0-9]| {2,8}\.{3,}:)")
"""An IPython prompt opening a line. Both are searched for after a line break (the paste
read with one before it), which ``re`` finds far faster than a line's start."""


def unwrapped_lines(lines: Sequence[str], text: str = "") -> list[str]:
    """``lines`` with an editor's line numbers taken off each run of lines that carries them,
    and IPython's prompts taken off the lines they open (``text``: the lines joined, where
    the caller has it, to look for either at once)."""
    found = list(lines)
    text = "\n" + (text or "\n".join(lines))
    if _ANY_NUMBER.search(text):
        _numbers(found)
    if "[" in text and ("In [" in text or "Out[" in text) and _ANY_PROMPT.search(text):
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
_LONGEST = 2_000
"""The most breaks joined into one line (a state dict of a large model printed on one line,
at 80 columns); lines past them are left as they are."""


def rejoined(lines: Sequence[str]) -> tuple[list[str], str]:
    """``lines`` with the lines a terminal broke at its width joined again, and what the answer
    says of it (empty where none was). A terminal that puts its breaks into the copy cuts
    every longer line after exactly its width, so only a line as wide as the widest, followed
    by a shorter one, may end a broken line. It is told by a table's rule cut so (a line of
    rule characters, its rule carried on at the start of the shorter line: ``+-----`` over
    ``---+---+``; two whole rules, a table printed right after another, are as long as each
    other): every line of that width is then joined to the line after it. Without such a
    rule, lines as wide as the widest that leave a bracket open, then a shorter line that
    closes it (a printed dict or a repr's line cut), are joined; one line going on on an
    indented line, as code and pprint write, is left as it is."""
    lengths = list(map(len, lines))
    widest = max(lengths, default=0)
    if widest < _NARROWEST:
        return list(lines), ""
    ends = _ends(lengths, widest)
    if not ends:
        return list(lines), ""
    if any(_rule_cut(lines[end], lines[end + 1]) for end in ends):
        return _joined_at(lines, widest, "its rules cut at that width")
    runs = [run for end in ends if (run := _bracketed(lines, lengths, end)) is not None]
    if not runs:
        return list(lines), ""
    found = list(lines[:runs[0][0]])
    for (start, end), following in zip(runs, [*(r[0] for r in runs[1:]), len(lines)],
                                       strict=True):
        found.append("".join(lines[start:end + 1]))
        found += lines[end + 1:following]
    joined = sum(end - start for start, end in runs)
    return found, _told(joined, widest, "lines of that width whose brackets close on the "
                        "shorter line after them")


def _ends(lengths: list[int], widest: int) -> list[int]:
    """Each line (0-based) as wide as the widest and followed by a shorter one, not empty."""
    if lengths.count(widest) * 2 > len(lengths):  # a table: most of its lines, so by the rest
        return [at - 1 for at in compress(range(len(lengths)), map(widest.__ne__, lengths))
                if at and lengths[at - 1] == widest and lengths[at]]
    ends: list[int] = []
    at = lengths.index(widest)
    while True:
        if at + 1 < len(lengths) and 0 < lengths[at + 1] < widest:
            ends.append(at)
        try:
            at = lengths.index(widest, at + 1)
        except ValueError:
            return ends


def _rule_cut(line: str, following: str) -> bool:
    """Whether ``line`` is a rule cut at its end, carried on at the start of ``following``."""
    return (following[:1] == line[-1:] and line[-1:] in _RULE_CHARACTERS
            and set(line) <= _RULE_CHARACTERS and set(following.rstrip()) <= _RULE_CHARACTERS)


def _joined_at(lines: Sequence[str], width: int, how: str) -> tuple[list[str], str]:
    """``lines`` with every line ``width`` long (or a multiple) joined to the line after it."""
    found: list[str] = []
    joined = at = 0
    while at < len(lines):
        start = at
        while (len(lines[at]) == width and at + 1 < len(lines) and lines[at + 1]
               and at - start < _LONGEST):
            at += 1
        found.append("".join(lines[start:at + 1]) if at > start else lines[at])
        joined += at - start
        at += 1
    return found, _told(joined, width, how)


def _told(joined: int, width: int, how: str) -> str:
    """What the answer says of ``joined`` lines a terminal ``width`` wide broke."""
    return (f"{joined:,} lines were breaks a terminal {width} columns wide put into longer "
            f"lines ({how}): read joined to the line before them, so the line numbers here "
            "count the joined lines")


_OPENING, _CLOSING = "([{", ")]}"


def _bracketed(lines: Sequence[str], lengths: Sequence[int], end: int
               ) -> tuple[int, int] | None:
    """The run of lines as wide as ``lines[end]`` up to it, and the shorter line after it,
    where its first line leaves a bracket open that only that shorter line closes: (its first
    line, that line), 0-based; None where they are no such run."""
    closing = _depth(lines[end + 1])
    if closing >= 0:
        return None  # the shorter line closes no bracket
    start = end
    while start > 0 and lengths[start - 1] == lengths[end] and end - start < _LONGEST:
        start -= 1
    if end == start and lines[end + 1][:1] in (" ", "\t"):
        return None  # one line going on on an indented line: the writer's own (code, pprint)
    depth = 0
    for at in range(start, end + 1):
        depth += _depth(lines[at])
        if depth <= 0:
            return None
    return (start, end + 1) if depth + closing == 0 else None


def _depth(text: str) -> int:
    """How many more brackets ``text`` opens than it closes."""
    return sum(text.count(c) for c in _OPENING) - sum(text.count(c) for c in _CLOSING)
