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
import dataclasses
import re
from collections import ChainMap, Counter
from collections.abc import Iterable, Mapping, MutableMapping
from dataclasses import dataclass, field
from typing import Any, TypeGuard, cast

from paramcount.engine.layers import CONTAINERS, KNOWN
from paramcount.families.registry import CLASSES
from paramcount.read.recovery import binary, is_prose, parse

MAX_TEXT = 10_000_000
"""The most characters read (10 MB); a longer paste is refused."""
MAX_REPEAT = 1_000
"""The most iterations of a ``for _ in range(n)`` loop that are unrolled."""
MAX_NODES = 2_000_000
"""The most syntax-tree nodes evaluated in one paste (bounds the work of hostile input)."""
SPREAD = "**"
"""The keyword under which a call keeps a ``**options`` it could not spread."""
MAX_CODE_LINES = 100_000
"""The most lines of code parsed (Python's own syntax tree of a million short statements takes
gigabytes); sentences and blank lines are not counted."""
MAX_INSTANCES = 10_000
"""The most instances of the paste's own classes read in one paste (a class that builds two
of another, nested twenty deep, is a million)."""
MAX_BITS = 256
"""The widest whole number arithmetic may produce: a bigger product or power is Unknown (so
``a = a * a`` repeated cannot eat the memory; no layer size comes near it)."""


@dataclass(frozen=True)
class Unknown:
    """A value that could not be resolved: the names (or expressions) it needs, with lines."""

    names: tuple[tuple[str, int], ...]

    def __add__(self, other: object) -> Unknown:
        """Unknowns combine their names."""
        extra = other.names if isinstance(other, Unknown) else ()
        return Unknown(tuple(dict.fromkeys(self.names + extra)))


@dataclass(frozen=True)
class Call:
    """A call of a layer class, its arguments evaluated (values, Calls or Unknowns)."""

    path: str
    """The callee as written: ``nn.LSTM``, ``layers.Bidirectional``, ``LSTM``."""
    qualified: str
    """The callee through the paste's imports: ``torch.nn.LSTM``, ``keras.layers.LSTM``."""
    args: tuple[Any, ...]
    kwargs: tuple[tuple[str, Any], ...]
    line: int
    unresolved: Unknown | None = None
    """Set where the class itself is not known (``getattr(nn, name)(...)`` with ``name`` open,
    a class passed in as an argument): what decides it."""

    @property
    def name(self) -> str:
        """The class name: the callee's last part."""
        return self.path.rsplit(".", 1)[-1]

    @property
    def keywords(self) -> dict[str, Any]:
        """The keyword arguments as a dict."""
        return dict(self.kwargs)


@dataclass(frozen=True)
class Factory:
    """A layer class used as a value (``cell = nn.LSTM``), or ``functools.partial`` of one:
    calling it makes a :class:`Call` with these arguments first."""

    path: str
    qualified: str
    args: tuple[Any, ...] = ()
    kwargs: tuple[tuple[str, Any], ...] = ()

    def call(self, args: tuple[Any, ...], kwargs: tuple[tuple[str, Any], ...], line: int
             ) -> Call:
        """The layer this class makes with ``args`` and ``kwargs`` (theirs override its own)."""
        given = {k for k, _ in kwargs}
        return Call(self.path, self.qualified, self.args + args,
                    tuple((k, v) for k, v in self.kwargs if k not in given) + kwargs, line)


@dataclass(frozen=True)
class Record:
    """An object whose attributes are known: an ``argparse`` namespace, a config instance."""

    kind: str
    """What made it: ``argparse``, or the config class's name."""
    fields: tuple[tuple[str, Any], ...]

    def get(self, name: str) -> Any:
        """The attribute ``name``, or :data:`MISSING`."""
        return dict(self.fields).get(name, MISSING)


MISSING = object()
"""An attribute or key that is not there."""


@dataclass(frozen=True)
class Step:
    """One layer of a model, where it sits and (in a functional graph) what it reads."""

    call: Call
    attribute: str
    """The attribute or variable holding it (``lstm``, ``encoder.0``), or "" in a list."""
    source: str | None = None
    """Functional Keras: the variable the layer is applied to."""
    target: str | None = None
    """Functional Keras: the variable the result is assigned to."""
    sources: tuple[str, ...] = ()
    """Functional Keras: every variable a layer applied to a list reads (a merge)."""
    states: tuple[str, ...] = ()
    """Functional Keras: the variables a ``return_state=True`` layer's states go to."""


@dataclass(frozen=True)
class Block:
    """A model the code builds."""

    name: str
    kind: str
    """``module`` (nn.Module subclass), ``sequential``, ``functional``, ``layer``."""
    line: int
    steps: tuple[Step, ...]
    notes: tuple[str, ...] = ()
    complete: bool = True
    """False where the reader may have missed layers (a loop it could not unroll)."""


@dataclass(frozen=True)
class CodeReading:
    """Everything read from the code of one paste."""

    blocks: tuple[Block, ...]
    mode: str
    """``parsed`` (as written), ``reindented`` (indentation restored) or ``lines``."""
    notes: tuple[str, ...] = ()
    frameworks: frozenset[str] = frozenset()
    """What the imports name: ``torch``, ``keras``."""


class _Budget(Exception):
    """The evaluation budget is spent."""


@dataclass
class _Class:
    """A class of the paste: its __init__ and bases."""

    node: ast.ClassDef
    init: ast.FunctionDef | None


@dataclass
class _Scope:
    """What one body of statements builds."""

    env: MutableMapping[str, Any]
    prefix: str
    sequentials: dict[str, list[Step]] = field(default_factory=dict)
    seq_lines: dict[str, int] = field(default_factory=dict)
    graph_steps: list[Step] = field(default_factory=list)
    roots: dict[str, str] = field(default_factory=dict)
    """Functional tensors: variable -> the Input variable it descends from."""
    models: dict[str, tuple[str, int]] = field(default_factory=dict)
    """Input variable -> (model variable, line) for Model(inputs=..., outputs=...)."""
    loose: dict[str, Call] = field(default_factory=dict)
    used: set[str] = field(default_factory=set)
    incomplete: bool = False
    notes: list[str] = field(default_factory=list)
    bases: tuple[_Class, ...] = ()
    """The classes of the paste the class being read derives from (for ``super().__init__``)."""
    returned: Any = MISSING
    """What a function's ``return`` gives (its first one read)."""
    returns: list[tuple[Call, int]] = field(default_factory=list)
    """Instances of the paste's classes a function returns, with the line."""


_MERGES = {"concatenate": "Concatenate", "add": "Add", "subtract": "Subtract",
           "multiply": "Multiply", "average": "Average", "maximum": "Maximum",
           "minimum": "Minimum", "dot": "Dot"}
"""Keras' merge functions and the layer each one applies."""

_SAME_MODULE = frozenset({"cuda", "cpu", "float", "double", "half", "bfloat16", "eval", "train",
                          "requires_grad_", "share_memory"})
"""Methods of a torch module that return the module itself: ``Net().cuda()`` is ``Net()``."""

_ARITH: dict[type[ast.operator], Any] = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.FloorDiv: lambda a, b: a // b,
    ast.Mod: lambda a, b: a % b,
}


class _Reader:
    """Walks a parsed module, evaluating only literals, names and arithmetic."""

    def __init__(self, overrides: Mapping[str, Any]) -> None:
        self.overrides = dict(overrides)
        self.used: set[str] = set()  # the overrides the code asked for
        self.aliases: dict[str, str] = {}
        self.classes: dict[str, _Class] = {}
        self.blocks: list[Block] = []
        self.notes: list[str] = []
        self.nodes = 0
        self.frameworks: set[str] = set()
        self.depth = 0
        self.module_env: MutableMapping[str, Any] = {}
        self.building: list[_Class] = []
        """The classes whose ``__init__`` is being read, innermost last."""
        self.instances = 0
        self.configs: dict[str, _Class] = {}
        """Classes of the paste that hold settings, not layers (dataclasses and the like)."""
        self.functions: dict[str, ast.FunctionDef] = {}
        self.options: dict[str, Any] = {}
        """``argparse`` options added so far, by destination, with their defaults."""
        self.built: set[str] = set()
        """The paste's classes read as part of a model."""
        self.quiet = 0
        """Above 0 while a function of the paste is evaluated for its value: no models made."""
        self.lines: list[str] = []
        """The module's lines as written (:meth:`segment`)."""
        self.called: set[str] = set()
        """The names the text calls (``Name(``): classes instantiated, functions used."""

    # -- names ------------------------------------------------------------------------------

    def imports(self, body: list[ast.stmt]) -> None:
        """Record import aliases (``import torch.nn as nn``) without importing anything, from
        the statements of ``body`` and of the blocks nested in it."""
        for node in body:
            for block in ("body", "orelse", "finalbody"):
                nested = getattr(node, block, None)
                if isinstance(nested, list):
                    self.imports(nested)
            if isinstance(node, ast.Try):
                for handler in node.handlers:
                    self.imports(handler.body)
            if isinstance(node, ast.Import):
                for alias in node.names:
                    self.aliases[alias.asname or alias.name.split(".")[0]] = (
                        alias.name if alias.asname else alias.name.split(".")[0])
                    self._framework(alias.name)
            elif isinstance(node, ast.ImportFrom) and node.module:
                for alias in node.names:
                    self.aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"
                self._framework(node.module)

    def _framework(self, module: str) -> None:
        top = module.split(".")[0]
        if top == "torch":
            self.frameworks.add("torch")
        elif top in ("keras", "tensorflow", "tf_keras"):
            self.frameworks.add("keras")

    def qualify(self, path: str) -> str:
        """``path`` through the import aliases: ``nn.LSTM`` -> ``torch.nn.LSTM``."""
        head, _, rest = path.partition(".")
        full = self.aliases.get(head, head)
        return f"{full}.{rest}" if rest else full

    def lookup(self, name: str, env: Mapping[str, Any], line: int) -> Any:
        """A name's value: an override, then the scope (attributes of a known object followed:
        ``args.hidden``, ``self.config.layers``), then a layer class (``nn.LSTM`` as a value),
        else Unknown."""
        for key in (name, name.removeprefix("self."), name.rsplit(".", 1)[-1]):
            if key in self.overrides:
                self.used.add(key)
                return self.overrides[key]
        if name in env:
            return env[name]
        parts = name.split(".")
        for cut in range(len(parts) - 1, 0, -1):
            head = ".".join(parts[:cut])
            if head not in env and not (cut == 1 and head in self.configs):
                continue
            value = env[head] if head in env else self.config_class(head)
            for part in parts[cut:]:
                value = value.get(part) if isinstance(value, Record) else MISSING
            return Unknown(((name, line),)) if value is MISSING else value
        short = parts[-1]
        if short[:1].isupper() and (short in KNOWN or short in self.classes
                                    or _framework_class(self.qualify(name))):
            return Factory(name, self.qualify(name))
        return Unknown(((name, line),))

    def config_class(self, name: str) -> Record:
        """A config class's own attributes (``Config.hidden`` without an instance)."""
        node = self.configs[name].node
        env: dict[str, Any] = {}
        for statement in node.body:
            if isinstance(statement, (ast.Assign, ast.AnnAssign)) and statement.value:
                targets = (statement.targets if isinstance(statement, ast.Assign)
                           else [statement.target])
                for target in targets:
                    if isinstance(target, ast.Name):
                        env[target.id] = self.value(statement.value, ChainMap(
                            env, self.module_env))
        return Record(name, tuple(env.items()))

    # -- expressions ------------------------------------------------------------------------

    def value(self, node: ast.AST, env: Mapping[str, Any]) -> Any:
        """Evaluate ``node`` as far as literals, names and arithmetic allow."""
        self.nodes += 1
        if self.nodes > MAX_NODES:
            raise _Budget
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.Constant):
            value = node.value
            return value if isinstance(value, (int, float, str, bool)) or value is None else (
                Unknown(((ast.unparse(node)[:40], line),)))
        if isinstance(node, (ast.Name, ast.Attribute)):
            path = dotted(node)
            if path is None:
                return Unknown(((_text(node), line),))
            if path in ("True", "False", "None"):
                return {"True": True, "False": False, "None": None}[path]
            return self.lookup(path, env, line)
        if isinstance(node, (ast.Tuple, ast.List)):
            items: list[Any] = []
            for element in node.elts:
                if isinstance(element, ast.Starred):
                    inner = self.value(element.value, env)
                    if isinstance(inner, (tuple, list)):
                        items.extend(inner)
                        continue
                    return Unknown(((_text(element), line),))
                items.append(self.value(element, env))
            return tuple(items) if isinstance(node, ast.Tuple) else list(items)
        if isinstance(node, ast.UnaryOp):
            operand = self.value(node.operand, env)
            if isinstance(operand, Unknown):
                return operand
            if isinstance(node.op, ast.USub) and _number(operand):
                return -operand
            if isinstance(node.op, ast.UAdd) and _number(operand):
                return operand
            if isinstance(node.op, ast.Not) and (truth := _truth(operand)) is not None:
                return not truth
            return Unknown(((_text(node), line),))
        if isinstance(node, ast.BinOp):
            return self.binop(node, env)
        if isinstance(node, ast.BoolOp):  # as Python: `hidden or 128` is 128 for None
            values = [self.value(v, env) for v in node.values]
            for value in values[:-1]:
                truth = _truth(value)
                if truth is None:
                    return unknowns(values) or Unknown(((_text(node), line),))
                if truth is not isinstance(node.op, ast.And):
                    return value
            return values[-1]
        if isinstance(node, ast.Compare) and len(node.ops) == 1:
            left, right = self.value(node.left, env), self.value(node.comparators[0], env)
            compared = _compare(node.ops[0], left, right)
            if compared is not None:
                return compared
            return unknowns([left, right]) or Unknown(((_text(node), line),))
        if isinstance(node, ast.IfExp):
            test = self.value(node.test, env)
            if (truth := _truth(test)) is not None:
                return self.value(node.body if truth else node.orelse, env)
            return test if isinstance(test, Unknown) else Unknown(((_text(node.test), line),))
        if isinstance(node, ast.Call):
            return self.call(node, env)
        if isinstance(node, ast.Subscript):
            base = self.value(node.value, env)
            index = self.value(node.slice, env)
            if isinstance(base, (tuple, list)) and isinstance(index, int) and (
                    -len(base) <= index < len(base)):
                return base[index]
            if isinstance(base, (tuple, list)) and isinstance(index, slice):
                return base[index]
            if isinstance(base, Record) and isinstance(index, str) and (
                    found := base.get(index)) is not MISSING:
                return found
            if isinstance(base, dict) and isinstance(index, str) and index in base:
                return base[index]
            if isinstance(index, str) and index in self.overrides:
                self.used.add(index)
                return self.overrides[index]
            return Unknown(((_text(node), line),))
        if isinstance(node, ast.Dict):
            keys = [self.value(k, env) if k is not None else None for k in node.keys]
            values = [self.value(v, env) for v in node.values]
            return {k: v for k, v in zip(keys, values, strict=True) if isinstance(k, str)}
        if isinstance(node, (ast.ListComp, ast.DictComp)):
            return self.comprehension(node, env)
        if isinstance(node, ast.Slice):
            bounds = [None if part is None else self.value(part, env)
                      for part in (node.lower, node.upper, node.step)]
            if all(b is None or (isinstance(b, int) and not isinstance(b, bool))
                   for b in bounds):
                return slice(*bounds)
            return unknowns(bounds) or Unknown(((_text(node), line),))
        return Unknown(((_text(node), line),))

    def binop(self, node: ast.BinOp, env: Mapping[str, Any]) -> Any:
        """Arithmetic on whole numbers (and list repetition: ``[nn.LSTM(...)] * 2``)."""
        left, right = self.value(node.left, env), self.value(node.right, env)
        line = node.lineno
        if missing := unknowns([left, right]):
            return missing
        operation = type(node.op)
        if isinstance(left, list) and isinstance(right, list) and operation is ast.Add:
            if len(left) + len(right) > MAX_REPEAT:
                return Unknown(((_text(node), line),))
            return left + right
        if isinstance(left, list) and isinstance(right, int) and operation is ast.Mult:
            if len(left) * max(right, 0) > MAX_REPEAT:
                return Unknown(((_text(node), line),))
            return left * max(right, 0)
        if not (_number(left) and _number(right)):
            return Unknown(((_text(node), line),))
        if isinstance(left, int) and isinstance(right, int) and (
                (operation is ast.Mult and left.bit_length() + right.bit_length() > MAX_BITS)
                or (operation is ast.Pow and right > 0
                    and left.bit_length() * right > MAX_BITS)):
            return Unknown(((_text(node), line),))
        try:
            if operation is ast.Div:
                if isinstance(left, int) and isinstance(right, int) and right and left % right == 0:
                    return left // right
                return left / right
            if operation is ast.Pow:
                if abs(right) > 64 or abs(left) > 2**64:
                    return Unknown(((_text(node), line),))
                return left**right
            if operation in _ARITH:
                return _ARITH[operation](left, right)
        except (ZeroDivisionError, OverflowError, ValueError):
            pass
        return Unknown(((_text(node), line),))

    def comprehension(self, node: ast.ListComp | ast.DictComp, env: Mapping[str, Any]) -> Any:
        """``[nn.LSTM(...) for _ in range(n)]``, ``[nn.Linear(a, b) for a, b in zip(d, d[1:])]``
        over known values (with known ``if`` conditions): the elements."""
        line = node.lineno
        if len(node.generators) != 1:
            return Unknown(((_text(node), line),))
        generator = node.generators[0]
        count = self.range_of(generator.iter, env)
        if isinstance(count, Unknown):
            return count
        items = []
        for index in count:
            scope = ChainMap(_targets(generator.target, index), cast(MutableMapping[str, Any], env))
            tests = [_truth(self.value(test, scope)) for test in generator.ifs]
            if None in tests:
                return Unknown(((_text(node), line),))
            if all(tests):
                items.append(self.value(node.elt, scope) if isinstance(node, ast.ListComp)
                             else (self.value(node.key, scope), self.value(node.value, scope)))
        if isinstance(node, ast.DictComp):
            return {k: v for k, v in items if isinstance(k, str)}
        return items

    def range_of(self, node: ast.AST, env: Mapping[str, Any]) -> range | list[Any] | Unknown:
        """What a loop iterates: ``range(...)``, a known list or tuple, ``zip`` and
        ``enumerate`` of them; or Unknown."""
        if isinstance(node, ast.Call) and dotted(node.func) == "range" and not node.keywords:
            bounds = [self.value(a, env) for a in node.args]
            if missing := unknowns(bounds):
                return missing
            if bounds and all(isinstance(b, int) and not isinstance(b, bool) for b in bounds):
                steps = range(*bounds[:3])
                if len(steps) <= MAX_REPEAT:
                    return steps
        elif isinstance(node, ast.Call) and dotted(node.func) in ("zip", "enumerate") and (
                node.args) and not node.keywords:
            parts = [self.range_of(a, env) for a in node.args]
            if missing := unknowns(parts):
                return missing
            known = [list(p) for p in parts if not isinstance(p, Unknown)]
            if dotted(node.func) == "zip":
                return list(zip(*known, strict=False))
            return list(enumerate(known[0])) if len(known) == 1 else Unknown(
                ((_text(node), node.lineno),))
        else:
            value = self.value(node, env)
            if isinstance(value, (list, tuple)) and len(value) <= MAX_REPEAT:
                return list(value)
            if isinstance(value, Unknown):
                return value
        return Unknown(((_text(node), getattr(node, "lineno", 0)),))

    def call(self, node: ast.Call, env: Mapping[str, Any]) -> Any:
        """A layer call becomes a Call; int(), min(), max() and len() of literals are done,
        config classes, ``argparse`` namespaces and the paste's own functions evaluated;
        anything else is Unknown (and never called)."""
        line = node.lineno
        func = node.func
        if isinstance(func, ast.Attribute) and (
                func.attr == "to" or (func.attr in _SAME_MODULE and not node.args)):
            inner = self.value(func.value, env)  # Net().to(device), Net().cuda(), .eval()
            if isinstance(inner, Call):
                return inner
        path = dotted(func)
        args = tuple(self.arguments(node.args, env))
        if path is None:
            callee = self.value(func, env)  # getattr(nn, name)(...), RNNS[kind](...)
            if isinstance(callee, Factory):
                return callee.call(args, self.keywords(node.keywords, env), line)
            if isinstance(callee, Unknown) and not _applied(func):
                return Call(_text(func), "", args, self.keywords(node.keywords, env), line,
                            unresolved=callee)
            return Unknown(((_text(node), line),))
        name = path.rsplit(".", 1)[-1]
        if path in env:
            callee = env[path]
            if isinstance(callee, Factory):
                return callee.call(args, self.keywords(node.keywords, env), line)
            if isinstance(callee, Unknown):  # a class passed in: cell(16, 32)
                return Call(path, "", args, self.keywords(node.keywords, env), line,
                            unresolved=callee)
            return Unknown(((_text(node), line),))
        if name in ("int", "min", "max", "len", "abs", "round") and path == name:
            return _builtin(name, args, _text(node), line)
        if path == "getattr" and len(args) in (2, 3):
            return self.attribute(node, args, env)
        if self.qualify(path) == "functools.partial" and args:
            first = args[0]
            if isinstance(first, Factory):
                return Factory(first.path, first.qualified, first.args + args[1:],
                               first.kwargs + self.keywords(node.keywords, env))
            return first if isinstance(first, Unknown) else Unknown(((_text(node), line),))
        if name in ("field", "Field") and not args:  # dataclasses.field(default=...)
            keywords = dict(self.keywords(node.keywords, env))
            return keywords.get("default", Unknown(((_text(node), line),)))
        if name in ("parse_args", "parse_known_args") and "." in path:
            namespace = Record("argparse", tuple(self.options.items()))
            defaults = ", ".join(f"--{k} {v}" for k, v in self.options.items()
                                 if not isinstance(v, Unknown))
            note = (f"line {line}: argparse options are read at their defaults ({defaults}); "
                    "--set NAME=N gives a value passed on the command line")
            if defaults and note not in self.notes:
                self.notes.append(note)
            return namespace if name == "parse_args" else (namespace, [])
        if name == "get" and "." in path and 1 <= len(args) <= 2:
            owner = self.value(func.value, env) if isinstance(func, ast.Attribute) else None
            options: Any = owner
            if isinstance(options, dict) and isinstance(args[0], str):
                return options.get(args[0], args[1] if len(args) == 2 else None)
            if isinstance(owner, Unknown) and isinstance(args[0], str):
                return Unknown(((f"{path.rsplit('.', 1)[0]}[{args[0]!r}]", line),))
        if name in ("OrderedDict", "dict") and args and isinstance(args[0], list):
            return {k: v for k, v in (a for a in args[0] if isinstance(a, tuple) and len(a) == 2)
                    if isinstance(k, str)}
        if path == "dict" and not args:
            spread = self.keywords(node.keywords, env)
            if not any(k == SPREAD for k, _ in spread):
                return dict(spread)
        if name in self.configs and path == name:
            return self.config(self.configs[name], args, self.keywords(node.keywords, env))
        if name in self.functions and path == name:
            return self.evaluate(self.functions[name], args, self.keywords(node.keywords, env),
                                 line)
        if name in KNOWN or name in self.classes or name in CLASSES or name.endswith(
                ("LSTM", "GRU", "RNN")) or (
                name[:1].isupper() and _framework_class(self.qualify(path))):
            return Call(path, self.qualify(path), args, self.keywords(node.keywords, env), line)
        return Unknown(((_text(node.func) + "(...)", line),))

    def attribute(self, node: ast.Call, args: tuple[Any, ...], env: Mapping[str, Any]) -> Any:
        """``getattr(nn, "LSTM")`` (a layer class), ``getattr(config, "hidden", 64)``."""
        owner, name = dotted(node.args[0]), args[1]
        if isinstance(name, Unknown):
            return name
        if owner is None or not isinstance(name, str):
            return Unknown(((_text(node), node.lineno),))
        value = self.lookup(f"{owner}.{name}", env, node.lineno)
        if isinstance(value, Unknown) and len(args) == 3 and isinstance(args[0], Record):
            return args[2]
        return value

    def keywords(self, nodes: Iterable[ast.keyword], env: Mapping[str, Any]
                 ) -> tuple[tuple[str, Any], ...]:
        """Keyword arguments evaluated, ``**options`` spread where it is a known dict (an
        Unknown under :data:`SPREAD` otherwise, so the layer cannot be counted without it)."""
        values: list[tuple[str, Any]] = []
        for node in nodes:
            value = self.value(node.value, env)
            if node.arg is not None:
                values.append((node.arg, value))
            elif isinstance(value, dict) and all(isinstance(k, str) for k in value):
                values += value.items()
            else:
                values.append((SPREAD, Unknown(((_text(node.value), node.value.lineno),))))
        return tuple(values)

    def arguments(self, nodes: Iterable[ast.expr], env: Mapping[str, Any]) -> list[Any]:
        """Positional arguments evaluated, ``*items`` spread where the items are known (an
        Unknown in their place otherwise, so no layer is dropped unnoticed)."""
        values: list[Any] = []
        for node in nodes:
            if isinstance(node, ast.Starred):
                inner = self.value(node.value, env)
                if isinstance(inner, (tuple, list)):
                    values.extend(inner)
                else:
                    values.append(inner if isinstance(inner, Unknown) else Unknown(
                        ((_text(node), getattr(node, "lineno", 0)),)))
                continue
            values.append(self.value(node, env))
        return values

    # -- statements -------------------------------------------------------------------------

    def module(self, tree: ast.Module, text: str) -> None:
        """Read a whole module: classes, functions and top-level statements."""
        self.imports(tree.body)
        self.lines = text.split("\n")
        calls = Counter(re.findall(r"\b(\w++)\s*+\(", text))  # linear on a long word
        calls.subtract(re.findall(r"\b(?:class|def)\s++(\w++)\s*+\(", text))
        instantiated = {name for name, count in calls.items() if count > 0}
        self.called = instantiated
        defined = {node.name for node in tree.body if isinstance(node, ast.ClassDef)}
        for node in tree.body:
            if isinstance(node, ast.ClassDef):
                init = next((n for n in node.body if isinstance(n, ast.FunctionDef)
                             and n.name == "__init__"), None)
                words = self.words(node)
                target = self.configs if _holds_settings(node, defined, words) else self.classes
                target[node.name] = _Class(node, init)
            elif isinstance(node, ast.FunctionDef):
                self.functions[node.name] = node
        scope = _Scope({"__name__": "__main__"}, "")
        self.module_env = scope.env
        self.body(tree.body, scope, top=True)
        self.finish(scope)
        derived = {base.node.name for cls in self.classes.values() for base in self.bases(cls)}
        for name, cls in self.classes.items():
            if name in instantiated or (name in derived and _required(cls)):
                continue
            self.standalone(cls, scope)
        for cls in self.classes.values():
            if cls.node.name in self.built or cls.node.name not in instantiated:
                continue  # built as part of a model, or read on its own above
            if cls.node.name in derived and _required(cls):
                continue  # a base whose arguments only its subclasses give
            self.standalone(cls, scope)
        self.blocks.sort(key=lambda b: b.line)

    def standalone(self, cls: _Class, scope: _Scope) -> None:
        """A class of the paste read on its own, as ``Cls()`` with its defaults."""
        name = cls.node.name
        steps, notes, complete = self.instance(cls, (), (), scope.env, "")
        if steps or (cls.init is not None and _is_model_class(cls.node)):
            self.blocks.append(Block(name, "module", cls.node.lineno, tuple(steps),
                                     tuple(notes), complete))

    def bases(self, cls: _Class) -> tuple[_Class, ...]:
        """The classes of the paste ``cls`` derives from."""
        return tuple(self.classes[b] for b in ((dotted(n) or "").rsplit(".", 1)[-1]
                                               for n in cls.node.bases)
                     if b in self.classes and self.classes[b] is not cls)

    def body(self, statements: Iterable[ast.stmt], scope: _Scope, top: bool = False) -> None:
        """Read statements in order into ``scope``."""
        for node in statements:
            if isinstance(node, ast.ClassDef):
                continue
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if top or not isinstance(node, ast.AsyncFunctionDef):
                    self.function(node, scope)
                continue
            self.statement(node, scope)

    def function(self, node: ast.FunctionDef | ast.AsyncFunctionDef, outer: _Scope) -> None:
        """A function that builds a model: its parameters' defaults are known values."""
        if self.quiet or not self.may_build(node, outer.env):
            return
        env: MutableMapping[str, Any] = ChainMap(self.parameters(node, (), ()), outer.env)
        scope = _Scope(env, f"{node.name}.")
        self.depth += 1
        if self.depth <= 20:
            self.body(node.body, scope)
            self.finish(scope)
        self.depth -= 1

    def may_build(self, node: ast.FunctionDef | ast.AsyncFunctionDef,
                  env: Mapping[str, Any]) -> bool:
        """Whether a function's body may build a layer or a model, so that reading it can add
        one: it names a class (``nn.LSTM``, ``Tagger``, any capitalised name), a function or
        config of the paste, a lowercase layer (``concatenate``), ``argparse`` or ``partial``,
        or calls a parameter whose default is not a constant (``cell=nn.LSTM``), a name the
        module binds to a class, or a class picked by a subscript (``RNNS[kind](...)``). A
        training loop, a metric or a loader names none of these, and is not read."""
        defaults = [*node.args.defaults, *(d for d in node.args.kw_defaults if d is not None)]
        if any(not isinstance(d, ast.Constant) for d in defaults):
            return True  # cell=nn.LSTM, sizes=(64, 128): read it with its defaults
        own = self.functions.keys() | self.configs.keys() | self.classes.keys()

        def telling(word: str) -> bool:
            return word[:1].isupper() or word in own or word in _MAY_BUILD or word in KNOWN or (
                isinstance(env.get(word), Factory))

        if not _SUBSCRIPT_CALL.search(self.segment(node)) and not any(
                map(telling, self.words(node))):
            return False  # no word of its text could say otherwise: its tree is not walked
        for child in ast.walk(node):
            if isinstance(child, ast.Call) and isinstance(child.func, ast.Subscript):
                return True
            word = child.id if isinstance(child, ast.Name) else (
                child.attr if isinstance(child, ast.Attribute) else None)
            if word is not None and telling(word):
                return True
        return False

    def segment(self, node: ast.stmt) -> str:
        """The lines of the module a statement spans, as written."""
        return "\n".join(self.lines[node.lineno - 1:node.end_lineno or node.lineno])

    def words(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> set[str]:
        """Every word of a definition's text but its own name where it is defined: a superset
        of the names its tree holds, so a word not among them is in no node either."""
        header = re.compile(rf"\b(class|def)\s+{node.name}\b")
        return set(_WORD.findall(header.sub(r"\1", self.segment(node), count=1)))

    def parameters(self, node: ast.FunctionDef | ast.AsyncFunctionDef, args: tuple[Any, ...],
                   kwargs: tuple[tuple[str, Any], ...]) -> dict[str, Any]:
        """A function's parameters bound: call arguments, else defaults, else Unknown; its
        ``*args`` and ``**kw`` get what is left over (nothing when called without). Options
        spread from an unknown ``**cfg`` leave unknown every parameter not given otherwise
        (``cfg['hidden']``), not its default."""
        params = [*node.args.posonlyargs, *node.args.args]
        names = [p.arg for p in params]
        if names and names[0] in ("self", "cls"):
            names = names[1:]
            params = params[1:]
        defaults: dict[str, Any] = {}
        for param, default in zip(params[len(params) - len(node.args.defaults):],
                                  node.args.defaults, strict=True):
            defaults[param.arg] = self.value(default, self.module_env)
        for param, kw_default in zip(node.args.kwonlyargs, node.args.kw_defaults, strict=True):
            params.append(param)
            if kw_default is not None:
                defaults[param.arg] = self.value(kw_default, self.module_env)
        bound: dict[str, Any] = {}
        for param in params:
            bound[param.arg] = defaults.get(param.arg, Unknown(((param.arg, param.lineno),)))
        given = set(names[:len(args)])
        bound.update(zip(names, args, strict=False))
        spread = next((v for k, v in kwargs if k == SPREAD), None)
        extra: dict[str, Any] = {}
        for key, value in kwargs:
            if key in bound:
                bound[key] = value
                given.add(key)
            elif key != SPREAD:
                extra[key] = value
        if isinstance(spread, Unknown):
            source = spread.names[0][0] if spread.names else "kwargs"
            line = spread.names[0][1] if spread.names else 0
            for param in params:
                if param.arg not in given:
                    bound[param.arg] = Unknown(((f"{source}[{param.arg!r}]", line),))
        if node.args.vararg is not None:
            bound[node.args.vararg.arg] = tuple(args[len(names):])
        if node.args.kwarg is not None:
            bound[node.args.kwarg.arg] = spread if isinstance(spread, Unknown) else extra
        return bound

    def config(self, cls: _Class, args: tuple[Any, ...], kwargs: tuple[tuple[str, Any], ...]
               ) -> Any:
        """An instance of a config class: its class-level values (a dataclass's fields, bound
        to the call's arguments in order) and what its ``__init__`` assigns to ``self``."""
        fields = dict(self.config_class(cls.node.name).fields)
        if cls.init is None:
            annotated = [s.target.id for s in cls.node.body
                         if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)]
            for name, value in zip(annotated, args, strict=False):
                fields[name] = value
            for key, value in kwargs:
                if key == SPREAD:
                    fields = {k: Unknown(((f"{cls.node.name}.{k}", cls.node.lineno),))
                              for k in fields}
                else:
                    fields[key] = value
            for name in annotated:
                fields.setdefault(name, Unknown(((f"{cls.node.name}.{name}",
                                                  cls.node.lineno),)))
            return Record(cls.node.name, tuple(fields.items()))
        if self.depth > 20:
            return Unknown(((cls.node.name, cls.node.lineno),))
        self.depth += 1
        self.quiet += 1
        own = self.parameters(cls.init, args, kwargs)
        scope = _Scope(ChainMap(own, dict(self.module_env)), "")
        self.init_body(cls.init.body, scope, [], "")
        self.quiet -= 1
        self.depth -= 1
        for key, value in own.items():
            if key.startswith("self.") and "." not in key[5:]:
                fields[key[5:]] = value
        return Record(cls.node.name, tuple(fields.items()))

    def evaluate(self, node: ast.FunctionDef, args: tuple[Any, ...],
                 kwargs: tuple[tuple[str, Any], ...], line: int) -> Any:
        """What a function of the paste returns for these arguments (its body read, nothing
        run), or Unknown."""
        self.instances += 1  # calls are bounded with the instances of classes
        if self.instances > MAX_INSTANCES:
            raise _Budget
        if self.depth > 20:
            return Unknown(((f"{node.name}(...)", line),))
        env: MutableMapping[str, Any] = ChainMap(self.parameters(node, args, kwargs),
                                                 self.module_env)
        scope = _Scope(env, "")
        self.depth += 1
        self.quiet += 1
        self.body(node.body, scope)
        self.quiet -= 1
        self.depth -= 1
        if scope.returned is MISSING:
            return Unknown(((f"{node.name}(...)", line),))
        return scope.returned

    def statement(self, node: ast.stmt, scope: _Scope) -> None:
        """One statement: assignments, ``model.add(...)``, loops and branches."""
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if node.value is None:
                return
            for target in targets:
                self.assign(target, node.value, scope)
        elif isinstance(node, ast.AugAssign):
            name = dotted(node.target)
            if name is not None:
                self.assign_value(name, self.binop(
                    ast.BinOp(node.target, node.op, node.value, lineno=node.lineno,
                              col_offset=0), scope.env), scope)
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            self.expression_call(node.value, scope)
        elif isinstance(node, ast.For):
            self.loop(node, scope)
        elif isinstance(node, ast.Return) and isinstance(node.value, ast.Call) and (
                (dotted(node.value.func) or "").rsplit(".", 1)[-1] in ("Model", "Functional")):
            self.model("", node.value, scope)
        elif isinstance(node, ast.Return) and node.value is not None:
            value = self.value(node.value, scope.env)
            if scope.returned is MISSING:
                scope.returned = value
            if isinstance(value, Call) and value.name in self.classes:
                scope.returns.append((value, node.lineno))
        elif isinstance(node, ast.If):
            test = self.value(node.test, scope.env)
            if (truth := _truth(test)) is not None:
                self.body(node.body if truth else node.orelse, scope)
            else:
                scope.notes.append(
                    f"line {node.lineno}: `if {_text(node.test)}` is not known; read its first "
                    "branch")
                self.body(node.body, scope)
        elif isinstance(node, (ast.With, ast.AsyncWith, ast.Try)):
            self.body(node.body, scope)

    def loop(self, node: ast.For, scope: _Scope) -> None:
        """``for i in range(n)`` with n known is unrolled; otherwise read once, noted."""
        count = self.range_of(node.iter, scope.env)
        if isinstance(count, Unknown):
            scope.incomplete = True
            scope.notes.append(
                f"line {node.lineno}: the loop `for ... in {_text(node.iter)}` has no known "
                "length; its body was read once")
            count = range(1)
        for index in count:
            scope.env.update(_targets(node.target, index))
            self.body(node.body, scope)

    def assign(self, target: ast.expr, value_node: ast.expr, scope: _Scope) -> None:
        """``name = ...``: a model, a layer, a functional step, an Input, or a value."""
        if isinstance(target, (ast.Tuple, ast.List)) and isinstance(value_node, ast.Call) and (
                _applied(value_node) or (dotted(value_node.func) or "") in scope.loose) and (
                names := [dotted(e) for e in target.elts]) and all(names):
            self.functional(names[0] or "", value_node, scope,  # out, h, c = LSTM(...)(x)
                            tuple(n or "" for n in names[1:]))
            return
        if isinstance(target, (ast.Tuple, ast.List)):
            values = self.value(value_node, scope.env)
            if isinstance(values, (tuple, list)) and len(values) == len(target.elts):
                for element, value in zip(target.elts, values, strict=True):
                    name = dotted(element)
                    if name is not None:
                        scope.env[name] = value
            return
        name = dotted(target)
        if name is None:
            self.store_item(target, self.value(value_node, scope.env), scope.env)
            return
        if isinstance(value_node, ast.Call):
            callee = dotted(value_node.func)
            short = (callee or "").rsplit(".", 1)[-1]
            if short in self.classes:
                self.assign_value(name, self.value(value_node, scope.env), scope)
                return
            if short == "Sequential":
                self.sequential(name, value_node, scope)
                return
            if short in ("Model", "Functional"):
                self.model(name, value_node, scope)
                return
            if short in ("Input",) and callee is not None:
                call = self.value(value_node, scope.env)
                scope.roots[name] = name
                scope.graph_steps.append(Step(call, name, None, name))
                return
            if isinstance(value_node.func, ast.Call) or (
                    callee is not None and callee in scope.loose):
                self.functional(name, value_node, scope)
                return
            if short in _MERGES and callee is not None and self.qualify(callee).startswith(
                    _KERAS_MODULES):
                self.merge(name, value_node, scope)
                return
        value = self.value(value_node, scope.env)
        self.assign_value(name, value, scope)

    def store_item(self, target: ast.expr, value: Any, env: MutableMapping[str, Any]) -> None:
        """``cfg["hidden"] = 512`` on a dict the paste defines."""
        if not isinstance(target, ast.Subscript) or (owner := dotted(target.value)) is None:
            return
        current, key = env.get(owner), self.value(target.slice, env)
        if isinstance(current, dict) and isinstance(key, str):
            env[owner] = {**current, key: value}

    def assign_value(self, name: str, value: Any, scope: _Scope) -> None:
        """Bind a name; a layer bound to a name is a model of its own unless used later."""
        scope.env[name] = value
        if isinstance(value, Call) and (value.name not in CONTAINERS
                                        or value.name in self.classes):
            scope.loose[name] = value

    def sequential(self, name: str, node: ast.Call, scope: _Scope) -> None:
        """``Sequential([...])`` (Keras) or ``nn.Sequential(a, b, ...)`` (torch)."""
        items: list[Any] = []
        for value in self.arguments(node.args, scope.env):
            if isinstance(value, list):
                items += value
            elif isinstance(value, dict):
                items += list(value.items())
            else:
                items.append(value)
        for keyword in node.keywords:
            if keyword.arg == "layers":
                value = self.value(keyword.value, scope.env)
                items += value if isinstance(value, list) else [value]
        scope.sequentials[name] = []
        scope.seq_lines[name] = node.lineno
        for index, item in enumerate(items):
            self.append(name, item, str(index), scope)
        scope.env[name] = Call(dotted(node.func) or "Sequential", "Sequential", (), (),
                               node.lineno)

    def append(self, model: str, item: Any, attribute: str, scope: _Scope) -> None:
        """Add a layer (or a nested container's layers) to a Sequential."""
        if isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], str):
            attribute, item = item
        if isinstance(item, Call):
            scope.sequentials[model].append(Step(item, attribute))
            self.used_calls(item, scope)
        elif isinstance(item, Unknown):
            scope.notes.append(
                f"line {item.names[0][1] if item.names else 0}: a layer of {model} is not "
                f"known ({', '.join(n for n, _ in item.names)})")
            scope.incomplete = True

    def used_calls(self, call: Call, scope: _Scope) -> None:
        for name, loose in list(scope.loose.items()):
            if loose is call:
                scope.used.add(name)

    def expression_call(self, node: ast.Call, scope: _Scope) -> None:
        """``model.add(layer)`` and ``self.layers.append(layer)``."""
        callee = dotted(node.func)
        if callee is None or "." not in callee:
            return
        owner, method = callee.rsplit(".", 1)
        if method == "add" and owner in scope.sequentials and node.args:
            self.append(owner, self.value(node.args[0], scope.env),
                        str(len(scope.sequentials[owner])), scope)
        else:
            self.mutate(node, scope.env)

    def mutate(self, node: ast.Call, env: MutableMapping[str, Any]) -> bool:
        """A method call that changes a known value: ``layers.append(...)`` / ``.extend`` /
        ``.insert`` on a list, ``cfg.update(...)`` on a dict, ``parser.add_argument(...)``."""
        callee = dotted(node.func) or ""
        owner, _, method = callee.rpartition(".")
        if method == "add_argument":
            self.add_option(node, env)
            return True
        current = env.get(owner) if owner else None
        if not isinstance(current, (list, dict)):
            return False
        args = self.arguments(node.args, env)
        if isinstance(current, list) and method in ("append", "extend", "insert"):
            if len(current) >= MAX_REPEAT:  # bounds the work of hostile input
                env[owner] = Unknown(((_text(node), node.lineno),))
            elif method == "append" and len(args) == 1:
                env[owner] = [*current, args[0]]
            elif method == "extend" and len(args) == 1 and isinstance(args[0], (list, tuple)):
                env[owner] = [*current, *args[0]]
            elif method == "insert" and len(args) == 2 and isinstance(args[0], int):
                env[owner] = [*current[:args[0]], args[1], *current[args[0]:]]
            else:
                env[owner] = [*current, Unknown(((_text(node), node.lineno),))]
            return True
        if isinstance(current, dict) and method == "update":
            env[owner] = {**current, **dict(self.keywords(node.keywords, env)),
                          **(args[0] if args and isinstance(args[0], dict) else {})}
            return True
        return False

    def add_option(self, node: ast.Call, env: Mapping[str, Any]) -> None:
        """``parser.add_argument('--hidden-size', type=int, default=256)``: the option's
        destination (``hidden_size``) and its default (None without one, as argparse gives)."""
        flags = [self.value(a, env) for a in node.args]
        keywords = dict(self.keywords(node.keywords, env))
        names = [f for f in flags if isinstance(f, str)]
        long = next((f for f in names if f.startswith("--")), names[0] if names else None)
        dest = keywords.get("dest", long.lstrip("-").replace("-", "_") if long else None)
        if not isinstance(dest, str):
            return
        action = keywords.get("action")
        default = keywords.get("default", False if action == "store_true" else True
                               if action == "store_false" else None)
        kind = next((k.value for k in node.keywords if k.arg == "type"), None)
        if isinstance(default, str) and isinstance(kind, ast.Name) and kind.id == "int":
            default = _builtin("int", (default,), default, node.lineno)
        self.options[dest] = Unknown(((f"args.{dest}", node.lineno),)) if default is None else (
            default)

    def functional(self, name: str, node: ast.Call, scope: _Scope,
                   states: tuple[str, ...] = ()) -> None:
        """``x = layers.LSTM(64)(x)``: a layer applied to a tensor of a functional graph (or to
        several: ``Concatenate()([x, y])``, ``lstm(x, initial_state=[h, c])``); ``states``
        name the state outputs of ``x, h, c = LSTM(8, return_state=True)(x)``."""
        layer = self.value(node.func, scope.env)
        callee = dotted(node.func)
        first = node.args[0] if node.args else None
        if isinstance(layer, Call) and (layer.name in self.classes or layer.qualified.startswith(
                "torch")) and (dotted(first) if first is not None else None) not in scope.roots:
            return  # out = Net()(x), out = model(x): a torch forward pass, not a Keras graph
        if callee is not None and callee in scope.loose:
            scope.used.add(callee)
        sources: list[str | None] = [dotted(e) for e in first.elts] if isinstance(
            first, (ast.List, ast.Tuple)) else [dotted(first) if first is not None else None]
        if first is not None and _applied(first):  # Dense(3)(GRU(8)(x)): the inner one first
            sources = [f"{name}<{first.lineno}:{first.col_offset}>"]
            self.functional(sources[0] or "", first, scope)
        if not isinstance(layer, Call):
            scope.notes.append(f"line {node.lineno}: the layer applied to "
                               f"{sources[0] or 'a tensor'} is not known")
            scope.incomplete = True
            return
        self.connect(Step(layer, name, sources[0], name,
                          tuple(s or "" for s in sources) if isinstance(
                              first, (ast.List, ast.Tuple)) else (), states),
                     [*node.args[1:], *(k.value for k in node.keywords)], scope)

    def merge(self, name: str, node: ast.Call, scope: _Scope) -> None:
        """``x = layers.concatenate([a, b])``: Keras' merge functions, as their layer."""
        short = (dotted(node.func) or "").rsplit(".", 1)[-1]
        first = node.args[0] if node.args else None
        elements = first.elts if isinstance(first, (ast.List, ast.Tuple)) else []
        sources = tuple(dotted(e) or "" for e in elements)
        keywords = self.keywords(node.keywords, scope.env)
        layer = Call(_MERGES[short], _MERGES[short], (), keywords, node.lineno)
        self.connect(Step(layer, name, sources[0] if sources else None, name, sources), [],
                     scope)

    def connect(self, step: Step, others: list[ast.expr], scope: _Scope) -> None:
        """Add a step to the graph: its tensors descend from the inputs of what it reads
        (graphs that meet, through a merge or an ``initial_state``, become one)."""
        names = [*(step.sources or (step.source,))]
        for node in others:
            elements = node.elts if isinstance(node, (ast.List, ast.Tuple)) else [node]
            names += [dotted(e) for e in elements]
        roots = list(dict.fromkeys(scope.roots[n] for n in names if n in scope.roots))
        root = roots[0] if roots else f"<{step.source or 'tensor'}>"
        if len(roots) > 1:
            for variable, other in list(scope.roots.items()):
                if other in roots:
                    scope.roots[variable] = root
            for other in roots[1:]:
                if other in scope.models:
                    scope.models.setdefault(root, scope.models.pop(other))
        for target in (step.target or "", *step.states):
            scope.roots[target] = root
        scope.graph_steps.append(step)

    def model(self, name: str, node: ast.Call, scope: _Scope) -> None:
        """``Model(inputs, outputs)`` names the graph its inputs start."""
        arguments = list(node.args)
        outputs = arguments[1:2]
        for keyword in node.keywords:
            if keyword.arg in ("inputs", "input"):
                arguments.insert(0, keyword.value)
            elif keyword.arg in ("outputs", "output"):
                outputs = [keyword.value]
        for output in outputs:  # Model(x, Dense(3)(x)): layers applied in the call itself
            for index, element in enumerate(output.elts if isinstance(
                    output, (ast.List, ast.Tuple)) else [output]):
                if _applied(element):
                    self.functional(f"{name}<output{index}>", element, scope)
        if arguments:
            first = arguments[0]
            names = [dotted(e) for e in first.elts] if isinstance(
                first, (ast.List, ast.Tuple)) else [dotted(first)]
            for input_name in names:
                if input_name in scope.roots:
                    scope.models[scope.roots[input_name]] = (name, node.lineno)

    def finish(self, scope: _Scope) -> None:
        """Turn what a scope built into blocks."""
        if self.quiet:
            return
        built = len(self.blocks)
        for call, line in scope.returns if scope.prefix.rstrip(".") not in self.called else ():
            # def build(**kw): return Tagger(**kw), a factory the paste never calls
            steps, notes, complete = self.instance(
                self.classes[call.name], call.args, call.kwargs, scope.env, "")
            self.blocks.append(Block(call.name, "module", self.classes[call.name].node.lineno,
                                     tuple(steps), (
                f"line {line}: {scope.prefix.rstrip('.')}() returns {call.name}(...)",
                *notes), complete))
        for name, steps in scope.sequentials.items():
            self.blocks.append(Block(scope.prefix + name, "sequential", scope.seq_lines[name],
                                     tuple(steps), tuple(scope.notes), not scope.incomplete))
        graphs: dict[tuple[str, int], list[Step]] = {}
        for step in scope.graph_steps:  # one model for all the inputs Model(...) names
            root = scope.roots.get(step.target or "", step.target or "")
            key = scope.models.get(root, (root.strip("<>"), -1))
            graphs.setdefault(key, []).append(step)
        for (name, line), steps in graphs.items():
            if len(steps) == 1 and steps[0].call.name == "Input":
                continue
            self.blocks.append(Block((scope.prefix + name).strip("."), "functional",
                                     steps[0].call.line if line < 0 else line,
                                     tuple(steps), tuple(scope.notes), not scope.incomplete))
        for name, call in scope.loose.items():
            if name in scope.used or call.name in ("Input", "InputLayer"):
                continue
            if call.unresolved is not None and scope.prefix:
                continue  # scores = model(x): a value a function is handed, applied to data
            if call.name in self.classes:
                steps, notes, complete = self.instance(
                    self.classes[call.name], call.args, call.kwargs, scope.env, "")
                self.blocks.append(Block(scope.prefix + name, "module", call.line,
                                         tuple(steps), tuple(notes), complete))
                continue
            self.blocks.append(Block(scope.prefix + name, "layer", call.line,
                                     (Step(call, name),), tuple(scope.notes)))
        if len(self.blocks) > built or not scope.prefix:  # a function that builds nothing
            self.notes += [n for n in scope.notes if n not in self.notes]  # has no say

    # -- classes ------------------------------------------------------------------------------

    def instance(self, cls: _Class, args: tuple[Any, ...], kwargs: tuple[tuple[str, Any], ...],
                 module_env: Mapping[str, Any], prefix: str
                 ) -> tuple[list[Step], list[str], bool]:
        """The layers ``cls.__init__`` assigns to ``self``, in order, with arguments bound (a
        class without its own ``__init__`` is read through its base in the paste)."""
        bases = self.bases(cls)
        self.built.add(cls.node.name)
        if cls in self.building:
            return [], [f"line {cls.node.lineno}: {cls.node.name} builds itself; read once"], False
        self.instances += 1
        if self.instances > MAX_INSTANCES:
            raise _Budget
        if self.depth > 20:
            return [], [], True
        if cls.init is None:
            if not bases:
                return [], [], True
            self.depth += 1
            found = self.instance(bases[0], args, kwargs, module_env, prefix)
            self.depth -= 1
            return found
        self.depth += 1
        env: MutableMapping[str, Any] = ChainMap(self.parameters(cls.init, args, kwargs),
                                                 dict(module_env))
        steps: list[Step] = []
        scope = _Scope(env, prefix, bases=bases)
        self.building.append(cls)
        self.init_body(cls.init.body, scope, steps, prefix)
        self.building.pop()
        self.depth -= 1
        return steps, list(dict.fromkeys(scope.notes)), not scope.incomplete

    def init_body(self, body: Iterable[ast.stmt], scope: _Scope, steps: list[Step],
                  prefix: str) -> None:
        """Statements of an ``__init__``: ``self.x = layer``, containers, locals, loops."""
        for node in body:
            if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                value = self.value(node.value, scope.env)
                for target in targets:
                    name = dotted(target)
                    if isinstance(target, (ast.Tuple, ast.List)) and isinstance(
                            value, (tuple, list)) and len(value) == len(target.elts):
                        for element, item in zip(target.elts, value, strict=True):
                            if (element_name := dotted(element)) is not None:
                                scope.env[element_name] = item
                        continue
                    if name is None:
                        self.store_item(target, value, scope.env)
                        continue
                    scope.env[name] = value
                    if name.startswith("self.") and isinstance(value, Unknown) and (
                            self.mentions_layer(node.value)):
                        scope.notes.append(f"line {node.lineno}: self.{name[5:]} is a layer "
                                           f"that depends on {_text(node.value)}")
                        scope.incomplete = True
                    elif name.startswith("self.") and isinstance(value, Unknown) and (
                            klass := _class_called(node.value)):
                        scope.notes.append(f"line {node.lineno}: self.{name[5:]} is a {klass}, "
                                           "which the paste does not define: its parameters "
                                           "are not counted")
                        scope.incomplete = True
                    elif name.startswith("self."):
                        self.attach(name.removeprefix("self."), value, scope, steps, prefix)
            elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) and (
                    base := self.base_init(node.value, scope)) is not None:
                args = self.arguments(node.value.args, scope.env)
                if dotted(node.value.func) is not None:
                    args = args[1:]  # Base.__init__(self, ...), not super().__init__(...)
                inner, notes, complete = self.instance(
                    base, tuple(args), self.keywords(node.value.keywords, scope.env),
                    self.module_env, "")
                steps += [Step(s.call, prefix + s.attribute) for s in inner]
                scope.notes += notes
                scope.incomplete |= not complete
            elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
                callee = dotted(node.value.func) or ""
                if callee == "self.save_hyperparameters" and isinstance(scope.env, ChainMap):
                    scope.env["self.hparams"] = Record("hparams", tuple(  # Lightning
                        (k, v) for k, v in scope.env.maps[0].items() if "." not in k))
                    continue
                if self.mutate(node.value, scope.env):
                    continue
                if callee.startswith("self.") and callee.endswith((".append", ".add_module")) \
                        and node.value.args:
                    owner = callee.removeprefix("self.").rsplit(".", 1)[0]
                    value = self.value(node.value.args[-1], scope.env)
                    index = sum(1 for s in steps if s.attribute.startswith(prefix + owner + "."))
                    self.attach(f"{owner}.{index}", value, scope, steps, prefix)
            elif isinstance(node, ast.For):
                count = self.range_of(node.iter, scope.env)
                if isinstance(count, Unknown):
                    scope.incomplete = True
                    scope.notes.append(
                        f"line {node.lineno}: the loop `for ... in {_text(node.iter)}` has no "
                        "known length; its body was read once")
                    count = range(1)
                for index in count:
                    scope.env.update(_targets(node.target, index))
                    self.init_body(node.body, scope, steps, prefix)
            elif isinstance(node, ast.If):
                test = self.value(node.test, scope.env)
                if (truth := _truth(test)) is not None:
                    self.init_body(node.body if truth else node.orelse, scope, steps, prefix)
                else:
                    scope.notes.append(f"line {node.lineno}: `if {_text(node.test)}` is not "
                                       "known; read its first branch")
                    self.init_body(node.body, scope, steps, prefix)
            elif isinstance(node, (ast.With, ast.Try)):
                self.init_body(node.body, scope, steps, prefix)

    def base_init(self, call: ast.Call, scope: _Scope) -> _Class | None:
        """The class of the paste whose ``__init__`` this call runs: ``super().__init__(...)``
        or ``Base.__init__(self, ...)``."""
        func = call.func
        if not (isinstance(func, ast.Attribute) and func.attr == "__init__"):
            return None
        if isinstance(func.value, ast.Call) and dotted(func.value.func) == "super":
            return scope.bases[0] if scope.bases else None
        name = dotted(func.value)
        return next((b for b in scope.bases if b.node.name == name), None)

    def mentions_layer(self, node: ast.AST) -> bool:
        """Whether an expression calls a layer class (``nn.LSTM(...) if c else nn.GRU(...)``)."""
        return any(isinstance(n, ast.Call) and (
            (dotted(n.func) or "").rsplit(".", 1)[-1] in KNOWN | self.classes.keys())
            for n in ast.walk(node))

    def attach(self, attribute: str, value: Any, scope: _Scope, steps: list[Step],
               prefix: str, contained: bool = False) -> None:
        """A value assigned to ``self.attribute``: a layer, a container, or a submodule."""
        if isinstance(value, list):
            for index, item in enumerate(value):
                self.attach(f"{attribute}.{index}", item, scope, steps, prefix, contained=True)
            return
        if isinstance(value, Unknown) and contained:
            line = value.names[0][1] if value.names else 0
            scope.notes.append(f"line {line}: a layer of {attribute.rsplit('.', 1)[0]} is not "
                               f"known ({', '.join(n for n, _ in value.names)})")
            scope.incomplete = True
            return
        if isinstance(value, dict):
            for key, item in value.items():
                self.attach(f"{attribute}.{key}", item, scope, steps, prefix)
            return
        if not isinstance(value, Call):
            return
        if value.name in ("Sequential", "ModuleList", "ModuleDict"):
            items: list[Any] = []
            for arg in value.args:
                items += arg if isinstance(arg, list) else list(arg.items()) if isinstance(
                    arg, dict) else [arg]
            for index, item in enumerate(items):
                key, layer = item if isinstance(item, tuple) and len(item) == 2 and isinstance(
                    item[0], str) else (str(index), item)
                self.attach(f"{attribute}.{key}", layer, scope, steps, prefix, contained=True)
            return
        if value.name in self.classes:
            inner, notes, complete = self.instance(
                self.classes[value.name], value.args, value.kwargs, scope.env, "")
            steps += [Step(s.call, f"{prefix}{attribute}.{s.attribute}") for s in inner]
            scope.notes += notes
            scope.incomplete |= not complete
            return
        steps.append(Step(value, prefix + attribute))


_WORD = re.compile(r"[A-Za-z_]\w*")
_SUBSCRIPT_CALL = re.compile(r"\]\s*\(")

_MAY_BUILD = frozenset({"add_argument", "parse_args", "parse_known_args", "partial", "getattr",
                        "save_hyperparameters", "hparams"})
"""Lowercase words that tell a function reads settings a model is built from."""


def dotted(node: ast.AST) -> str | None:
    """``a.b.c`` for a Name or an Attribute chain (``super().x`` and calls give None)."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


_SETTING = re.compile(r"[A-Za-z_][\w.]*(?:\[['\"](?P<key>\w+)['\"]\])?")


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


def _class_called(node: ast.AST) -> str | None:
    """The class a call instantiates (``Attention(hidden)``), by its capital; else None."""
    if not isinstance(node, ast.Call):
        return None
    name = (dotted(node.func) or "").rsplit(".", 1)[-1]
    return name if name[:1].isupper() else None


def _applied(node: ast.AST) -> TypeGuard[ast.Call]:
    """Whether ``node`` applies a layer to a tensor: ``layers.Dense(3)(x)``."""
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Call)


def _text(node: ast.AST) -> str:
    """An expression as written (cut at 60 characters): a name or ``a.b.c`` directly, anything
    else through ``ast.unparse``."""
    text = dotted(node) if isinstance(node, (ast.Name, ast.Attribute)) else None
    if text is not None:
        return text if len(text) <= 60 else text[:57] + "..."
    try:
        text = ast.unparse(node)
    except (RecursionError, ValueError, AttributeError):
        return "<expression>"
    return text if len(text) <= 60 else text[:57] + "..."


def _number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _truth(value: object) -> bool | None:
    """Whether a known value is true in a test (None where it is not known)."""
    if isinstance(value, (bool, int, float, str, tuple, list, dict)) or value is None:
        return bool(value)
    if isinstance(value, (Call, Factory, Record)):
        return True
    return None


_PLAIN = (int, float, str, bool, type(None))


def _compare(operator: ast.cmpop, left: object, right: object) -> bool | None:
    """A comparison of known plain values (numbers ordered, strings and None compared, ``in``
    a known list), else None."""
    if _number(left) and _number(right) and isinstance(operator, (ast.Lt, ast.LtE, ast.Gt,
                                                                  ast.GtE)):
        assert isinstance(left, (int, float)) and isinstance(right, (int, float))
        return {ast.Lt: left < right, ast.LtE: left <= right, ast.Gt: left > right,
                ast.GtE: left >= right}[type(operator)]
    if isinstance(left, _PLAIN) and isinstance(right, _PLAIN):
        if isinstance(operator, (ast.Eq, ast.NotEq)):
            return (left == right) is isinstance(operator, ast.Eq)
        if isinstance(operator, (ast.Is, ast.IsNot)) and (left is None or right is None):
            return (left is right) is isinstance(operator, ast.Is)
    if isinstance(operator, (ast.In, ast.NotIn)) and isinstance(left, _PLAIN) and isinstance(
            right, (list, tuple, dict)) and all(isinstance(x, _PLAIN) for x in right):
        return (left in right) is isinstance(operator, ast.In)
    return None


def unknowns(values: Iterable[object]) -> Unknown | None:
    """The Unknowns among ``values``, combined, or None."""
    found = [v for v in values if isinstance(v, Unknown)]
    if not found:
        return None
    result = found[0]
    for other in found[1:]:
        result = result + other
    return result


def _targets(target: ast.AST, value: Any) -> dict[str, Any]:
    """The names a loop's target binds: ``i``, or ``a, b`` from a pair."""
    if isinstance(target, (ast.Tuple, ast.List)):
        if not isinstance(value, (tuple, list)) or len(value) != len(target.elts):
            return {n: Unknown(((n, getattr(target, "lineno", 0)),)) for element in target.elts
                    if (n := dotted(element)) is not None}
        found: dict[str, Any] = {}
        for element, item in zip(target.elts, value, strict=True):
            found.update(_targets(element, item))
        return found
    name = dotted(target)
    return {name: value} if name else {}


def _builtin(name: str, args: tuple[Any, ...], text: str, line: int) -> Any:
    if missing := unknowns(args):
        return missing
    try:
        if name == "int" and len(args) == 1 and isinstance(args[0], (int, float, str)):
            return int(args[0])
        if name in ("min", "max") and args and all(_number(a) for a in args):
            return min(args) if name == "min" else max(args)
        if name == "abs" and len(args) == 1 and _number(args[0]):
            return abs(args[0])
        if name == "len" and len(args) == 1 and isinstance(args[0], (tuple, list, str, dict)):
            return len(args[0])
    except (ValueError, OverflowError):
        pass
    return Unknown(((text, line),))


_KERAS_MODULES = ("tf.keras.layers", "keras.layers", "tensorflow.keras.layers",
                  "tf_keras.layers", "keras.src.layers")


def _framework_class(qualified: str) -> bool:
    """Whether a qualified callee is a class of torch.nn or of Keras' layers (one paramcount
    may not know: it is kept as a layer, so the model's total is not given without it)."""
    module, _, _ = qualified.rpartition(".")
    return module == "torch.nn" or module in _KERAS_MODULES


def _holds_settings(node: ast.ClassDef, defined: set[str], words: set[str] | None = None
                    ) -> bool:
    """Whether a class holds settings rather than layers: a dataclass, a NamedTuple, a pydantic
    or transformers config, or a plain class that builds no layer (of ``defined`` either);
    ``words``, those of its text where known, spare walking a tree that names no layer."""
    decorators = {(dotted(d.func if isinstance(d, ast.Call) else d) or "").rsplit(".", 1)[-1]
                  for d in node.decorator_list}
    bases = {(dotted(b) or "").rsplit(".", 1)[-1] for b in node.bases}
    builds = not (words is not None and words.isdisjoint(KNOWN | defined)) and any(
        isinstance(n, ast.Call) and (dotted(n.func) or "").rsplit(".", 1)[-1] in (
            KNOWN | defined) for n in ast.walk(node))
    settings = decorators & {"dataclass", "define", "frozen", "s", "attrs"} or bases & {
        "NamedTuple", "BaseModel", "BaseSettings", "PretrainedConfig", "Namespace"}
    return not builds and bool(settings or not bases - {"object"})


def _required(cls: _Class) -> bool:
    """Whether a class's ``__init__`` has a parameter without a default."""
    init = cls.init
    if init is None:
        return False
    positional = [*init.args.posonlyargs, *init.args.args][1:]
    return len(positional) > len(init.args.defaults) or any(
        d is None for d in init.args.kw_defaults)


def _is_model_class(node: ast.ClassDef) -> bool:
    return any((dotted(b) or "").rsplit(".", 1)[-1] in ("Module", "Model", "Layer",
                                                       "LightningModule") for b in node.bases)


def read_code(text: str, overrides: Mapping[str, Any] | None = None) -> CodeReading:
    """Every model the code in ``text`` builds, read without importing or running anything."""
    reader = _Reader(overrides or {})
    if binary(text):
        return CodeReading((), "none", ("the input looks like binary data, not text: no code "
                                        "was read from it",))
    text, cut = _first_code_lines(text)
    tree, mode, loops = parse(text)
    try:
        reader.module(tree, text)
    except (_Budget, RecursionError):
        reader.notes.append("the code is too large or too deeply nested to read in full; "
                            "what was read before the limit is shown")
    blocks = reader.blocks
    if cut:
        blocks = [dataclasses.replace(b, complete=False) for b in blocks]
        reader.notes.append(f"the code is longer than {MAX_CODE_LINES:,} lines: only the lines "
                            f"up to line {cut:,} were read, and no total is given")
    if loops:
        blocks = [dataclasses.replace(b, complete=False) for b in blocks]
        reader.notes.append(
            "line " + ", ".join(map(str, loops)) + ": a loop whose body the lost indentation "
            "hides; its layers were read once, and no total is given")
    notes = list(reader.notes)
    notes += [f"--set {name}: the paste never uses {name}, so it changed nothing"
              for name in reader.overrides if name not in reader.used]
    if mode == "reindented":
        notes.insert(0, "the paste lost its indentation: it was re-indented from its class "
                        "and def lines (loops and branches read as if they ran once)")
    elif mode == "lines":
        notes.insert(0, "the code does not parse as a whole: it was read one statement at "
                        "a time")
    return CodeReading(tuple(blocks), mode, tuple(notes), frozenset(reader.frameworks))


def _first_code_lines(text: str) -> tuple[str, int]:
    """``text`` up to its ``MAX_CODE_LINES``-th line of code (sentences and blank lines do not
    count), and the last line kept where more code followed (else 0)."""
    lines = text.split("\n")
    if len(lines) <= MAX_CODE_LINES:
        return text, 0
    code = 0
    for number, line in enumerate(lines, 1):
        if line.strip() and not is_prose(line):
            code += 1
            if code > MAX_CODE_LINES:
                return "\n".join(lines[:number - 1]), number - 1
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
