"""Rewrites of Python code that keep its meaning, and the code pastes of the suite to rewrite
(issue 36): ``paramcount read`` must find the same models with the same totals in the code
and in each rewrite. Every rewrite works on tokens or on the ``ast`` of code that parses, so it
is Python's own reading that says the meaning is kept; nothing is run.

The rewrites: trailing comments added, blank lines added, names changed (the module's own
names, where no inner scope binds the same name), calls broken over lines and quotes swapped,
keyword and positional arguments exchanged (the layers' own signatures), a layer's size hoisted
into a constant, the code split into two fences with prose between, ``print(model)`` added.
"""

from __future__ import annotations

import ast
import io
import re
import textwrap
import tokenize
from collections.abc import Callable, Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

Rewrite = Callable[[str], str]


def _tokens(code: str) -> list[tokenize.TokenInfo]:
    """The tokens of ``code`` (which parses)."""
    return list(tokenize.generate_tokens(io.StringIO(code).readline))


def _edit(code: str, edits: list[tuple[int, int, int, int, str]]) -> str:
    """``code`` with each (row, col, end row, end col) range replaced by its text (rows from 1;
    ranges that do not overlap)."""
    lines = code.split("\n")
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line) + 1)
    out = code
    for row, col, end_row, end_col, text in sorted(edits, reverse=True):
        start, end = offsets[row - 1] + col, offsets[end_row - 1] + end_col
        out = out[:start] + text + out[end:]
    return out


def trailing_comments(code: str) -> str:
    """A comment after every line of code that has none (inside brackets too), worded as
    people word them: prose, numbers and code in it."""
    commented = {t.start[0] for t in _tokens(code) if t.type == tokenize.COMMENT}
    ends = [t for t in _tokens(code) if t.type in (tokenize.NEWLINE, tokenize.NL)
            and t.start[0] not in commented and t.line.strip()]
    words = ["# x2 because of the two directions", "# hidden = 2 * 64 here, see nn.LSTM(...)",
             "# TODO: try GRU(32) instead"]
    return _edit(code, [(t.start[0], t.start[1], t.start[0], t.start[1],
                         "  " + words[index % len(words)]) for index, t in enumerate(ends)])


def blank_lines(code: str) -> str:
    """A blank line after every statement line outside brackets."""
    ends = [t for t in _tokens(code) if t.type == tokenize.NEWLINE]
    return _edit(code, [(t.end[0], t.end[1], t.end[0], t.end[1], "\n") for t in ends
                        if t.string])


def _bound_inside(tree: ast.Module) -> set[str]:
    """Every name some function or class binds (parameters, assignments, loop targets): a
    module name that one shadows is not renamed."""
    bound: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            args = node.args
            bound |= {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs,
                                      *([args.vararg] if args.vararg else []),
                                      *([args.kwarg] if args.kwarg else [])]}
            if not isinstance(node, ast.Lambda):
                bound |= {n.id for statement in node.body for n in ast.walk(statement)
                          if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        elif isinstance(node, ast.ClassDef):
            bound |= {n.id for statement in node.body if not isinstance(
                statement, (ast.FunctionDef, ast.AsyncFunctionDef)) for n in ast.walk(statement)
                if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        elif isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            bound |= {n.id for g in node.generators for n in ast.walk(g.target)
                      if isinstance(n, ast.Name)}
    return bound


def renamed(code: str) -> str:
    """The module's own names (its variables, classes and functions) renamed, wherever no
    function or class binds the same name; attributes and keyword names kept."""
    tree = ast.parse(code)
    own = {node.name for node in tree.body
           if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))}
    for statement in tree.body:
        if isinstance(statement, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.For)):
            targets = statement.targets if isinstance(statement, ast.Assign) else [
                statement.target]
            own |= {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
    names = own - _bound_inside(tree) - {"__name__", "self", "cls"}
    edits = []
    tokens = _tokens(code)
    depth = 0
    for index, token in enumerate(tokens):
        if token.type == tokenize.OP and token.string in "([{":
            depth += 1
        elif token.type == tokenize.OP and token.string in ")]}":
            depth -= 1
        if token.type != tokenize.NAME or token.string not in names:
            continue
        before = tokens[index - 1].string if index else ""
        after = tokens[index + 1].string if index + 1 < len(tokens) else ""
        if before == "." or (depth > 0 and after == "="):
            continue  # an attribute (self.model), a keyword's name (f(model=...))
        edits.append((*token.start, *token.end, f"{token.string}_renamed"))
    return _edit(code, edits)


def reformatted(code: str) -> str:
    """Every call broken after each of its commas, and each string's quotes swapped
    (``'relu'`` ↔ ``"relu"``) where the other quote is not inside it."""
    edits = []
    depth = 0
    for token in _tokens(code):
        if token.type == tokenize.OP and token.string in "([{":
            depth += 1
        elif token.type == tokenize.OP and token.string in ")]}":
            depth -= 1
        elif token.type == tokenize.OP and token.string == "," and depth > 0:
            edits.append((*token.end, *token.end, "\n"))
        elif token.type == tokenize.STRING and re.fullmatch(r"'[^'\"\\\n]*'|\"[^'\"\\\n]*\"",
                                                            token.string):
            quote = '"' if token.string[0] == "'" else "'"
            edits.append((*token.start, *token.end, quote + token.string[1:-1] + quote))
    return _edit(code, edits)


_TORCH = {"LSTM": ("input_size", "hidden_size", "num_layers"),
          "GRU": ("input_size", "hidden_size", "num_layers"),
          "RNN": ("input_size", "hidden_size", "num_layers"),
          "LSTMCell": ("input_size", "hidden_size"), "GRUCell": ("input_size", "hidden_size"),
          "RNNCell": ("input_size", "hidden_size"),
          "Linear": ("in_features", "out_features"),
          "Embedding": ("num_embeddings", "embedding_dim"),
          "Conv1d": ("in_channels", "out_channels", "kernel_size"),
          "LayerNorm": ("normalized_shape",)}
_KERAS = {"LSTM": ("units",), "GRU": ("units",), "SimpleRNN": ("units",), "Dense": ("units",),
          "Embedding": ("input_dim", "output_dim"), "Conv1D": ("filters", "kernel_size"),
          "Bidirectional": ("layer",), "TimeDistributed": ("layer",)}
"""The leading parameters of each layer, in order, as the framework's signature names them."""


def _framework(code: str) -> dict[str, tuple[str, ...]] | None:
    """The signatures of the one framework ``code`` imports, or None (both, or neither)."""
    torch = re.search(r"^\s*(import torch|from torch)", code, re.M) is not None
    keras = re.search(r"^\s*(import (keras|tensorflow)|from (keras|tensorflow|tf_keras))",
                      code, re.M) is not None
    return _TORCH if torch and not keras else _KERAS if keras and not torch else None


class _Arguments(ast.NodeTransformer):
    """Each call of a known layer: its positional arguments given by keyword, or its leading
    keyword arguments given by position."""

    def __init__(self, signatures: dict[str, tuple[str, ...]]) -> None:
        self.signatures = signatures

    def visit_Call(self, node: ast.Call) -> ast.Call:
        self.generic_visit(node)
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else (
            func.id if isinstance(func, ast.Name) else "")
        params = self.signatures.get(name)
        if params is None or any(isinstance(a, ast.Starred) for a in node.args) or any(
                k.arg is None for k in node.keywords):
            return node
        if node.args and len(node.args) <= len(params):
            node.keywords = [*(ast.keyword(p, a) for p, a in zip(params, node.args,
                                                                  strict=False)),
                             *node.keywords]
            node.args = []
        elif not node.args:
            given = {k.arg: k.value for k in node.keywords}
            leading = []
            for param in params:
                if param not in given:
                    break
                leading.append(param)
            node.args = [given[p] for p in leading]
            node.keywords = [k for k in node.keywords if k.arg not in leading]
        return node


def arguments_swapped(code: str) -> str:
    """Keyword ↔ positional arguments of the layers of the one framework the code imports
    (re-formatted by ``ast.unparse``: its comments dropped, its quotes Python's own)."""
    signatures = _framework(code)
    if signatures is None:
        return code
    tree = _Arguments(signatures).visit(ast.parse(code))
    return ast.unparse(ast.fix_missing_locations(tree)) + "\n"


def hoisted(code: str) -> str:
    """The first whole-number size given to a layer hoisted into a module constant, defined
    after the imports."""
    signatures = _framework(code) or {**_TORCH, **_KERAS}
    tree = ast.parse(code)
    name = "HOISTED_SIZE"
    if any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(tree)):
        return code
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        short = func.attr if isinstance(func, ast.Attribute) else (
            func.id if isinstance(func, ast.Name) else "")
        if short not in signatures:
            continue
        values = [*node.args, *(k.value for k in node.keywords)]
        size = next((v for v in values if isinstance(v, ast.Constant)
                     and type(v.value) is int), None)
        if size is None:
            continue
        lines = code.split("\n")
        at = 0  # after the imports that open the module, before any statement that may use it
        for statement in tree.body:
            if not isinstance(statement, (ast.Import, ast.ImportFrom)):
                break
            at = statement.end_lineno or statement.lineno
        edited = _edit(code, [(size.lineno, size.col_offset, size.end_lineno or size.lineno,
                               size.end_col_offset or 0, name)])
        lines = edited.split("\n")
        return "\n".join([*lines[:at], f"{name} = {size.value}", *lines[at:]])
    return code


_PROSE = ("Here is my model:", "Then I build it and print the summary:")


def split_fences(code: str) -> str:
    """The code in two Markdown fences, prose before each, split before its last top-level
    statement (one fence where it has one)."""
    tree = ast.parse(code)
    lines = code.rstrip("\n").split("\n")
    last = tree.body[-1]
    decorators = last.decorator_list if isinstance(
        last, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) else []
    at = min([last.lineno, *(d.lineno for d in decorators)]) - 1 if len(tree.body) > 1 else (
        len(lines))
    first, second = "\n".join(lines[:at]), "\n".join(lines[at:])
    text = f"{_PROSE[0]}\n\n```python\n{first}\n```\n"
    if second.strip():
        text += f"\n{_PROSE[1]}\n\n```python\n{second}\n```\n"
    return text


def printed(code: str) -> str:
    """``print(model)`` after the code, for the last name the module binds to a call (and
    ``model.summary()`` where the code is Keras')."""
    tree = ast.parse(code)
    names = [t.id for s in tree.body if isinstance(s, ast.Assign) and isinstance(
        s.value, ast.Call) for t in s.targets if isinstance(t, ast.Name)]
    if not names:
        return code
    extra = f"print({names[-1]})\n"
    if _framework(code) is _KERAS:
        extra += f"{names[-1]}.summary()\n"
    return code.rstrip("\n") + "\n\n" + extra


def all_at_once(code: str) -> str:
    """Every rewrite, one after another (those that re-format through ``ast`` first, the
    fences last)."""
    for rewrite in (renamed, arguments_swapped, hoisted, reformatted, trailing_comments,
                    blank_lines, printed):
        code = rewrite(code)
    return split_fences(code)


REWRITES: dict[str, Rewrite] = {
    "trailing comments": trailing_comments,
    "blank lines": blank_lines,
    "names changed": renamed,
    "calls broken, quotes swapped": reformatted,
    "keyword <-> positional": arguments_swapped,
    "a size hoisted": hoisted,
    "two fences, prose between": split_fences,
    "print(model) added": printed,
    "all at once": all_at_once,
}


# -- the code pastes of the suite -------------------------------------------------------------

_LAYER = re.compile(r"\b(nn\.|layers\.|keras\.|Sequential\(|LSTM\(|GRU\(|SimpleRNN\(|Linear\(|"
                    r"Dense\(|Embedding\()")
_FENCE = re.compile(r"^```[\w-]*\n(.*?)^```", re.M | re.S)
_INDENTED = re.compile(r"(?:^(?: {4}|\t).*\n?)+", re.M)


_TEMPLATE = re.compile(r"\{[a-z_]\w*\}")
"""A ``str.format`` placeholder: a template of a paste, not one."""


def _parses(code: str) -> bool:
    """Whether ``code`` is Python that builds a layer and parses (not a template)."""
    if not _LAYER.search(code) or _TEMPLATE.search(code):
        return False
    try:
        ast.parse(code)
    except (SyntaxError, ValueError):
        return False
    return True


def _code_in(text: str) -> Iterator[str]:
    """The code of a pasted text: the whole of it where it parses, else each fenced block and
    each indented run of lines that does."""
    if _parses(text):
        yield text
        return
    for block in [*_FENCE.findall(text), *(textwrap.dedent(m) for m in
                                           _INDENTED.findall(text))]:
        if _parses(block):
            yield block


def named_pastes() -> dict[str, str]:
    """Every code paste the suite names: each string in the tests (and each paste under
    ``tests/data/pastes`` and ``examples/pastes``) that is Python building a layer, keyed
    ``file:line`` (the first of each text)."""
    found: dict[str, str] = {}
    seen: set[str] = set()
    for path in sorted((ROOT / "tests").rglob("*.py")):
        if path.name in ("metamorphic.py",):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and (
                    "\n" in node.value and len(node.value) > 30):
                for code in _code_in(node.value):
                    if code not in seen:
                        seen.add(code)
                        found[f"{path.relative_to(ROOT / 'tests')}:{node.lineno}"] = code
    for folder in (ROOT / "tests" / "data" / "pastes", ROOT / "examples" / "pastes"):
        for path in sorted(folder.glob("*")):
            if path.suffix in (".txt", ".py", ".md") and path.name != "README.md":
                for index, code in enumerate(_code_in(path.read_text())):
                    if code not in seen:
                        seen.add(code)
                        found[f"{folder.name}/{path.name}#{index}"] = code
    return found


__all__ = ["REWRITES", "Rewrite", "named_pastes"]
