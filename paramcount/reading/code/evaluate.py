"""The code reader's evaluator: literals, names, arithmetic and calls of a paste, never run."""

from __future__ import annotations

import ast
from abc import ABC, abstractmethod
from collections import ChainMap
from collections.abc import Iterable, Mapping, MutableMapping
from typing import Any, cast

from paramcount.engine.layers import KNOWN
from paramcount.families.registry import CLASSES
from paramcount.reading.code.values import (
    _ARITH,
    _SAME_MODULE,
    MAX_BITS,
    MAX_NODES,
    MAX_REPEAT,
    MISSING,
    SPREAD,
    Block,
    Call,
    Factory,
    Record,
    Unknown,
    _applied,
    _Budget,
    _builtin,
    _Class,
    _compare,
    _framework_class,
    _number,
    _targets,
    _text,
    _truth,
    dotted,
    unknowns,
)


class _Evaluator(ABC):
    """Evaluates expressions of a paste: literals, names, arithmetic and calls, nothing run."""

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

    def own_class(self, callee: str | None) -> _Class | None:
        """The class of the paste a callee names (``Tagger``), else None. The paste's classes
        are called by their bare name only: ``keras.Model(...)`` is Keras' Model, never a
        class of the paste named ``Model``."""
        return None if callee is None or "." in callee else self.classes.get(callee)

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
        if short[:1].isupper() and (short in KNOWN or self.own_class(name) is not None
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
        if name in KNOWN or self.own_class(path) is not None or name in CLASSES or name.endswith(
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

    @abstractmethod
    def config(self, cls: _Class, args: tuple[Any, ...], kwargs: tuple[tuple[str, Any], ...]
               ) -> Any:
        """An instance of a config class of the paste (read by the walker)."""

    @abstractmethod
    def evaluate(self, node: ast.FunctionDef, args: tuple[Any, ...],
                 kwargs: tuple[tuple[str, Any], ...], line: int) -> Any:
        """What a function of the paste returns for these arguments (read by the walker)."""
