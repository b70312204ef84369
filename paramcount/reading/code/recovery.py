"""Pasted Python that does not parse as written: prose dropped, indentation restored.

A question mixes code with sentences, printouts and Markdown fences, and its indentation is often
lost in the paste. ``parse`` tries the text as written, then dedented, then with the lines that
cannot be Python blanked (sentences, fences), then re-indented from its ``class`` and ``def``
lines, and finally one statement (or bracketed group of lines) at a time. Line numbers are kept
throughout, so every finding points at the line the user pasted. Nothing is run: only
``ast.parse`` is called.
"""

from __future__ import annotations

import ast
import functools
import keyword as python_keywords
import re
from collections.abc import Iterator

from paramcount.engine.layers import KNOWN
from paramcount.reading.patterns import lazy

_OPENER = lazy(r"^(class|def|async def|if|elif|else|for|while|with|try|except|finally)\b")
_TOP_LEVEL = lazy(
    r"^(import |from \S+ import |[A-Z_][A-Z0-9_]*\s*=|print\(|[\w.]+\.(add|summary|compile|fit)"
    r"\(|model\s*=|\w+\s*=\s*(\w+\.)*(Sequential|Model|Input)\()")


def reindent(lines: list[str]) -> tuple[str, list[int]] | None:
    """Restore the indentation of a paste that lost it, from its ``class``/``def`` lines.

    ``class`` starts a top-level block; a ``def`` whose first parameter is ``self`` is a
    method of the class above; other lines belong to the innermost open ``def`` until its
    ``return``, except that a method ends at a line that only makes sense at the top (imports,
    CONSTANTS, ``model = ...``, ``model.add``, ``print``). Loops and branches cannot be
    delimited, so their header lines are dropped and their bodies read as if they ran once
    (their lines are returned beside the text). Returns None when nothing was re-indented.
    """
    out: list[str] = []
    loops: list[int] = []
    in_class = False
    level = 0
    changed = False
    returned = False
    depth = 0
    for raw in lines:
        line = raw.strip()
        if depth > 0:  # inside brackets: indentation means nothing
            out.append("    " * level + line)
            depth += _bracket_balance(line)
            continue
        if not line or line.startswith("#"):
            out.append("")
            continue
        if line.startswith("class ") and line.endswith(":"):
            in_class, level, returned = True, 1, False
            out.append(line)
            continue
        if line.startswith(("def ", "async def ")) and line.endswith(":"):
            method = in_class and re.search(r"\(\s*self\b", line) is not None
            if not method:
                in_class = False
            out.append(("    " if method else "") + line)
            level, returned, changed = (2 if method else 1), False, True
            continue
        if _OPENER.match(line) and line.endswith(":"):
            out.append("")
            changed = True
            if line.startswith(("for ", "while ")):
                loops.append(len(out))
            continue
        if returned or (level == 2 and _TOP_LEVEL.match(line) and "self" not in line):
            in_class, level, returned = False, 0, False
        out.append("    " * level + line)
        depth = max(_bracket_balance(line), 0)
        returned = level > 0 and re.match(r"^return\b", line) is not None
    return ("\n".join(out), loops) if changed else None


_NEW_STATEMENT = lazy(r"(class|def|async def|import|from)\s|@\w")
"""A line that begins a statement of its own at the left edge: never inside brackets."""


def statements(lines: list[str]) -> Iterator[tuple[int, str]]:
    """(first line, text) of each statement-looking line, joining bracketed continuations."""
    buffer: list[str] = []
    start = 0
    depth = 0
    for number, raw in enumerate(lines, 1):
        line = raw.strip()
        if buffer and _NEW_STATEMENT.match(raw):  # a bracket left open by a cut statement
            yield start, " ".join(buffer)  # ends where code that cannot be inside it begins
            buffer, depth = [], 0
        if not buffer:
            if not line or line.startswith("#"):
                continue
            start = number
        buffer.append(line)
        depth += _bracket_balance(line)
        if depth <= 0 or len(buffer) > 200:
            text = " ".join(buffer)
            if text.endswith(":"):
                text += " pass"
            yield start, text
            buffer, depth = [], 0
    if buffer:
        yield start, " ".join(buffer)


def _bracket_balance(line: str) -> int:
    code = re.sub(r"(\"[^\"]*\"|'[^']*'|#.*$)", "", line)
    return sum(code.count(c) for c in "([{") - sum(code.count(c) for c in ")]}")


def by_lines(lines: list[str]) -> ast.Module:
    """A module made of every line (or bracketed group of lines) that parses on its own,
    at its original line number; the rest (prose, printouts) is skipped."""
    body: list[ast.stmt] = []
    for number, text in statements(lines):
        try:
            parsed = ast.parse(text)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        for node in parsed.body:
            for child in ast.walk(node):
                if hasattr(child, "lineno"):
                    child.lineno += number - 1
                    if hasattr(child, "end_lineno") and child.end_lineno is not None:
                        child.end_lineno += number - 1
            if isinstance(node, (ast.ClassDef, ast.FunctionDef)) and _only_pass(node):
                node.body = []
            body.append(node)
    return _nest(body)


def _only_pass(node: ast.ClassDef | ast.FunctionDef) -> bool:
    return len(node.body) == 1 and isinstance(node.body[0], ast.Pass)


def _nest(flat: list[ast.stmt]) -> ast.Module:
    """Put flat statements back under the ``class``/``def`` lines before them."""
    body: list[ast.stmt] = []
    current_class: ast.ClassDef | None = None
    current_def: ast.FunctionDef | None = None
    for node in flat:
        if isinstance(node, ast.ClassDef):
            current_class, current_def = node, None
            node.body = node.body or []
            body.append(node)
        elif isinstance(node, ast.FunctionDef):
            method = current_class is not None and bool(node.args.args) and \
                node.args.args[0].arg == "self"
            node.body = node.body or []
            if method and current_class is not None:
                current_class.body.append(node)
            else:
                current_class = None
                body.append(node)
            current_def = node
        elif current_def is not None and not _top_level_statement(node):
            current_def.body.append(node)
        else:
            current_class, current_def = None, None
            body.append(node)
    for child in ast.walk(ast.Module(body=body, type_ignores=[])):
        if isinstance(child, (ast.ClassDef, ast.FunctionDef)) and not child.body:
            child.body = [ast.Pass(lineno=child.lineno, col_offset=0)]
    return ast.Module(body=body, type_ignores=[])


def _top_level_statement(node: ast.stmt) -> bool:
    try:
        text = ast.unparse(node)
    except (RecursionError, ValueError, AttributeError):
        return False
    return "self" not in text and _TOP_LEVEL.match(text) is not None


def _as_parsed(source: str) -> str:
    """``source`` as Python's parser reads it: ending in a line break, which the parser adds
    where it is missing (so two texts it reads alike parse alike)."""
    return source if source.endswith("\n") else source + "\n"


def parse(text: str) -> tuple[ast.Module, str, list[int], list[int]]:
    """Parse ``text`` as written, else re-indented, else statement by statement; with the
    lines of loops whose bodies could not be delimited, and the lines of code (no sentence)
    left out because a layer call on them does not parse (``nn.LSTM(8, ١٦)``: its layer is
    not read)."""
    try:
        return ast.parse(text), "parsed", [], []
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        pass
    import textwrap  # only for code that does not parse as written (it compiles regexes)

    failed = {_as_parsed(text)}
    lines = text.splitlines()
    dedented = textwrap.dedent(text)
    if dedented != text:
        try:
            return ast.parse(dedented), "parsed", [], []
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            failed.add(_as_parsed(dedented))
    kept, dropped = _code_lines(lines)
    for candidate in dict.fromkeys(("\n".join(kept), textwrap.dedent("\n".join(kept)))):
        if _as_parsed(candidate) in failed:
            continue  # the same text as one that failed (a paste of code alone, say)
        try:
            return ast.parse(candidate), "parsed", [], dropped
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            pass
    restored = reindent(kept)
    if restored is not None:
        try:
            return ast.parse(restored[0]), "reindented", restored[1], dropped
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            pass
    loops = [n for n, line in enumerate(kept, 1)
             if re.match(r"^\s*(for|while)\b.*:$", line.strip())]
    return by_lines(kept), "lines", loops, dropped


def _code_lines(lines: list[str]) -> tuple[list[str], list[int]]:
    """Each line kept where it could be Python, else blanked (or cut to the layer calls a
    sentence holds). A line inside brackets a line above left open is code whatever it looks
    like alone (`` 8) if cell == 'lstm' else nn.GRU(8,``), but for a fence or a sentence.
    Beside them, the (1-based) numbers of the lines that are no sentence yet hold a layer call
    that does not parse (mangled in the paste: ``nn.LSTM(8, ١٦)``)."""
    is_code = functools.cache(_is_code)  # each line a paste repeats is judged once
    kept = []
    dropped = []
    depth = 0
    for line in lines:
        stripped = line.strip()
        inside = depth > 0 and not stripped.startswith("```") and not is_prose(
            uncommented(stripped))
        if inside or is_code(line):
            kept.append(line)
            depth = max(depth + _bracket_balance(line), 0)
        else:
            calls, failed = inline_calls(line)
            kept.append(calls)
            if failed and not is_prose(uncommented(stripped)):
                dropped.append(len(kept))
            depth = 0
    return kept, dropped


_INLINE = lazy(r"(?:\b(?P<var>[A-Za-z_]\w*)\s*=\s*)?(?<![\w.])(?P<callee>(?:[A-Za-z_]\w*\.)*"
                     r"(?P<cls>[A-Z]\w*))\(")


def inline_calls(line: str) -> tuple[str, bool]:
    """The layer constructors a sentence holds (``I made lstm = nn.LSTM(10, 20) and ...``), as
    statements on one line (``lstm = nn.LSTM(10, 20)``), "" where it holds none; and whether a
    layer constructor on it, closed, does not parse."""
    found: list[str] = []
    failed = False
    for match in _INLINE.finditer(line):
        if match["cls"] not in KNOWN:
            continue
        depth, end = 0, None
        for at in range(match.end() - 1, len(line)):
            depth += {"(": 1, ")": -1}.get(line[at], 0)
            if depth == 0:
                end = at + 1
                break
        if end is None:
            continue
        statement = line[match.start():end] if match["var"] else line[match.start("callee"):end]
        try:
            ast.parse(statement)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            failed = True
            continue
        found.append(statement)
    return "; ".join(found), failed


_WORDS = lazy(r"(?<![A-Za-z'])[A-Za-z']++(?: [A-Za-z']++){2,}")
_STRING = lazy(r"\"[^\"]*\"|'[^']*'")


def uncommented(line: str) -> str:
    """``line`` without its comment (a ``#`` outside strings and what follows): the words of
    ``x = f(a)  # doubled for the two directions`` are a comment, not a sentence."""
    if "#" not in line:
        return line
    at, quote = 0, ""
    while at < len(line):
        char = line[at]
        if quote:
            if char == "\\":
                at += 1
            elif char == quote:
                quote = ""
        elif char in "'\"":
            quote = char
        elif char == "#":
            return line[:at].rstrip()
        at += 1
    return line


def is_prose(line: str) -> bool:
    """Three words in a row, none a Python keyword, outside strings: a sentence, not code."""
    bare = _STRING.sub('""', line)
    for run in _WORDS.finditer(bare):
        streak = 0
        for word in run.group(0).split():
            streak = 0 if word in _KEYWORDS else streak + 1
            if streak == 3:
                return True
    return False


_KEYWORDS = frozenset(python_keywords.kwlist)


def _is_code(line: str) -> bool:
    """Whether a line could be (part of) Python: prose and printout lines are not."""
    stripped = line.strip()
    if not stripped or stripped.startswith("#"):
        return True
    stripped = uncommented(stripped)  # `def f():  # the two directions` is code
    if stripped.startswith("```") or is_prose(stripped):
        return False
    if stripped.startswith(("self.", "model.")):  # `self.rnn = nn.`, `model.`: code cut short
        return True
    candidates = [stripped, stripped + " pass", stripped.rstrip(",([{") + "(x)"]
    if "=" in stripped and stripped.endswith("."):  # `h = tf.`: an assignment cut short
        candidates.append(stripped[:-1] + "(x)")
    if _bracket_balance(stripped) > 0:
        return True
    if _bracket_balance(stripped) < 0 or re.match(r"^[\])}]", stripped):
        return True
    if re.match(r"^(else|elif|except|finally|try)\b.*:$", stripped):
        return True
    for candidate in candidates:
        try:
            ast.parse(candidate)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        return True
    return False


_CONTROL = lazy(r"[\x00-\x08\x0b\x0e-\x1f]")


def binary(text: str) -> bool:
    """Whether more than 5% of a sample is control characters, or a third replacement
    characters (a Latin-1 paste's accents are replaced too, but are not that many)."""
    sample = text[:100_000]
    control = len(_CONTROL.findall(sample))
    replaced = sample.count("\ufffd")
    return control * 20 > len(sample) > 0 or replaced * 3 > len(sample) > 0
