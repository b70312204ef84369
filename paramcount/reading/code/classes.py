"""The code reader's classes: a class of the paste read as the model its ``__init__`` builds (the
layers it assigns to ``self``, its containers, its base's ``__init__``), with arguments bound."""

from __future__ import annotations

import ast
from abc import abstractmethod
from collections import ChainMap
from collections.abc import Iterable, Mapping, MutableMapping
from typing import Any

from paramcount.engine.layers import KNOWN
from paramcount.reading.accounting import NOTHING, Accounting, Unread
from paramcount.reading.code.account import _IF, _LOOP, _account, _Accountant, _lines, _span
from paramcount.reading.code.values import (
    MAX_INSTANCES,
    TIE,
    Block,
    Call,
    Record,
    Step,
    Unknown,
    _Budget,
    _Class,
    _class_called,
    _is_model_class,
    _Scope,
    _targets,
    _text,
    _truth,
    dotted,
)
from paramcount.record import replace

_TENSORS = frozenset({"weight", "bias"})
"""The tensors of a module that code ties to another's (``head.weight = emb.weight``)."""


_VALUES = frozenset({
    "abs", "bool", "dict", "divmod", "float", "getattr", "int", "len", "list", "max", "min",
    "pow", "range", "round", "set", "str", "sum", "tuple", "jnp", "json", "math", "np", "numpy",
    "operator", "os", "random", "torch", "tf"})
"""Roots of calls that give a value, not a module (``math.sqrt(d)``, ``torch.zeros(3)``,
``int(cfg.x)``); a torch.nn or Keras layer class is known by name before this is asked."""


def _may_build(value: ast.expr) -> bool:
    """Whether an ``__init__`` value paramcount could not work out may be a module: a call of a
    function the paste does not define (``make_encoder(cfg)``, ``self.build(cfg)``), whose
    parameters would then be missing from the total."""
    if not isinstance(value, ast.Call):
        return False
    root = (dotted(value.func) or "").split(".")[0]
    return root not in _VALUES


def _tie(name: str, value: ast.expr) -> tuple[str, str, str] | None:
    """``self.head.weight = self.emb.weight`` (or ``= nn.Parameter(...)`` of it not: only a
    tensor of another layer): (tensor, tied layer, owner), attributes without ``self.``."""
    owner = dotted(value)
    if not name.startswith("self.") or owner is None or not owner.startswith("self."):
        return None
    layer, _, tensor = name.removeprefix("self.").rpartition(".")
    source, _, own = owner.removeprefix("self.").rpartition(".")
    if tensor not in _TENSORS or own not in _TENSORS or not layer or not source:
        return None
    return tensor, layer, source


def _unknown(value: Any, node: ast.expr) -> Unknown:
    """What an ``if`` whose test is not known depends on."""
    return value if isinstance(value, Unknown) else Unknown(((_text(node), node.lineno),))


class _ClassReader(_Accountant):
    """Reads the classes of a paste: each one's ``__init__`` as the layers it assigns."""

    @abstractmethod
    def parameters(self, node: ast.FunctionDef | ast.AsyncFunctionDef, args: tuple[Any, ...],
                   kwargs: tuple[tuple[str, Any], ...]) -> dict[str, Any]:
        """A function's parameters bound to a call's arguments (read by the walker)."""

    @abstractmethod
    def store_item(self, target: ast.expr, value: Any, env: MutableMapping[str, Any]) -> None:
        """``cfg["hidden"] = 512`` on a dict the paste defines (read by the walker)."""

    @abstractmethod
    def mutate(self, node: ast.Call, env: MutableMapping[str, Any]) -> bool:
        """A method call that changes a known value (read by the walker)."""

    def standalone(self, cls: _Class, scope: _Scope) -> None:
        """A class of the paste read on its own, as ``Cls()`` with its defaults."""
        name = cls.node.name
        steps, notes, account = self.instance(cls, (), (), scope.env, "")
        if steps or (cls.init is not None and _is_model_class(cls.node)):
            self.blocks.append(Block(name, "module", cls.node.lineno, tuple(steps),
                                     tuple(notes), account))

    def bases(self, cls: _Class) -> tuple[_Class, ...]:
        """The classes of the paste ``cls`` derives from."""
        own = (self.own_class(dotted(n)) for n in cls.node.bases)
        return tuple(base for base in own if base is not None and base is not cls)

    def instance(self, cls: _Class, args: tuple[Any, ...], kwargs: tuple[tuple[str, Any], ...],
                 module_env: Mapping[str, Any], prefix: str
                 ) -> tuple[list[Step], list[str], Accounting]:
        """The layers ``cls.__init__`` assigns to ``self``, in order, with arguments bound (a
        class without its own ``__init__`` is read through its base in the paste), and the
        account of the statements read (an unread line 0 is the statement that builds it)."""
        bases = self.bases(cls)
        self.built.add(cls.node.name)
        if cls in self.building:
            return [], [], Accounting(unread=(
                Unread(0, "", f"{cls.node.name} builds itself: read once"),))
        self.instances += 1
        if self.instances > MAX_INSTANCES:
            raise _Budget
        if self.depth > 20:
            return [], [], Accounting(unread=(
                Unread(0, "", f"{cls.node.name} is nested over 20 deep: not read"),))
        if cls.init is None:
            if not bases:
                return [], [], NOTHING
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
        self.reading.append(scope)
        self.init_body(cls.init.body, scope, steps, prefix)
        self.reading.pop()
        self.building.pop()
        self.depth -= 1
        return steps, list(dict.fromkeys(scope.notes)), _account(scope.claimed, scope.unread)

    def init_body(self, body: Iterable[ast.stmt], scope: _Scope, steps: list[Step],
                  prefix: str) -> None:
        """Statements of an ``__init__``: ``self.x = layer``, containers, locals, loops."""
        for node in body:
            outer, scope.span = scope.span, _span(node)
            scope.claimed.update(_lines(scope.span))
            self.init_statement(node, scope, steps, prefix)
            scope.span = outer

    def init_statement(self, node: ast.stmt, scope: _Scope, steps: list[Step],
                       prefix: str) -> None:
        """One statement of an ``__init__``."""
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
                if (tie := _tie(name, node.value)) is not None:
                    steps.append(Step(Call(TIE, TIE, tie, (), node.lineno),
                                      prefix + tie[1]))
                    continue
                scope.env[name] = value
                if name.startswith("self.") and isinstance(value, Unknown) and (
                        self.mentions_layer(node.value)):
                    self.lose(scope, node.lineno, f"which layer self.{name[5:]} is depends "
                              f"on {', '.join(n for n, _ in value.names)}, not known")
                elif name.startswith("self.") and isinstance(value, Unknown) and (
                        klass := _class_called(node.value)):
                    self.lose(scope, node.lineno, f"{klass} is a class the paste does not "
                              "define: its parameters are not counted")
                elif name.startswith("self.") and isinstance(value, Unknown) and (
                        _may_build(node.value)):
                    callee = dotted(node.value.func) if isinstance(
                        node.value, ast.Call) else None
                    self.lose(scope, node.lineno, f"{callee or 'the call'}(...) may build a "
                              "module the paste does not show: its parameters are not "
                              "counted")
                elif name.startswith("self.") and not isinstance(
                        value, (int, float, str, bool, Call)) and self.cut_short(node):
                    self.lose(scope, node.lineno, "it ends the code, perhaps cut short: what "
                              "it builds is not known")
                elif name.startswith("self."):
                    self.attach(name.removeprefix("self."), value, scope, steps, prefix)
        elif isinstance(node, ast.Expr) and isinstance(node.value, (ast.Name, ast.Attribute)):
            self.lose(scope, node.lineno, "alone it does nothing, as a line cut short leaves: "
                      "what it was to build is not known")
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) and (
                base := self.base_init(node.value, scope)) is not None:
            args = self.arguments(node.value.args, scope.env)
            if dotted(node.value.func) is not None:
                args = args[1:]  # Base.__init__(self, ...), not super().__init__(...)
            inner, notes, account = self.instance(
                base, tuple(args), self.keywords(node.value.keywords, scope.env),
                self.module_env, "")
            steps += [replace(s, attribute=prefix + s.attribute) for s in inner]
            scope.notes += notes
            self.absorb(scope, account)
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            callee = dotted(node.value.func) or ""
            if callee == "self.save_hyperparameters" and isinstance(scope.env, ChainMap):
                scope.env["self.hparams"] = Record("hparams", tuple(  # Lightning
                    (k, v) for k, v in scope.env.maps[0].items() if "." not in k))
                return
            if self.mutate(node.value, scope.env):
                return
            if callee.startswith("self.") and callee.endswith((".append", ".add_module")) \
                    and node.value.args:
                owner = callee.removeprefix("self.").rsplit(".", 1)[0]
                value = self.value(node.value.args[-1], scope.env)
                index = sum(1 for s in steps if s.attribute.startswith(prefix + owner + "."))
                self.attach(f"{owner}.{index}", value, scope, steps, prefix, contained=True)
        elif isinstance(node, ast.For):
            count = self.range_of(node.iter, scope.env)
            if isinstance(count, Unknown):
                scope.env.update(_targets(node.target, 0))
                self.init_maybe(node, node.body, scope, steps, prefix,
                                _LOOP.format(_text(node.iter)), count)
                return
            for index in count:
                scope.env.update(_targets(node.target, index))
                self.init_body(node.body, scope, steps, prefix)
        elif isinstance(node, ast.If):
            test = self.value(node.test, scope.env)
            if (truth := _truth(test)) is not None:
                self.init_body(node.body if truth else node.orelse, scope, steps, prefix)
            else:
                self.init_maybe(node, node.body, scope, steps, prefix,
                                _IF.format(_text(node.test)), _unknown(test, node.test),
                                node.orelse)
        elif isinstance(node, (ast.With, ast.Try)):
            self.init_body(node.body, scope, steps, prefix)

    def init_maybe(self, node: ast.stmt, body: list[ast.stmt], scope: _Scope,
                   steps: list[Step], prefix: str, reason: str, unknown: Unknown,
                   others: list[ast.stmt] | None = None) -> None:
        """An ``__init__``'s statements that may not run (the branch read of an ``if`` not
        known, a loop's body read once): where they may build a layer, the statement is named
        unread and the layers read in them are tagged conditional; the values they set are
        not known after them."""
        before, lists = len(steps), self.lists(scope.env)
        self.init_body(body, scope, steps, prefix)
        self.doubt(lists, scope.env)
        self.unsettle([*body, *(others or [])], scope, unknown)
        if len(steps) > before or self.builds([*body, *(others or [])]):
            steps[before:] = [replace(s, conditional=True) for s in steps[before:]]
            self.lose(scope, node.lineno, reason)

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
            (dotted(n.func) or "").rsplit(".", 1)[-1] in KNOWN
            or self.own_class(dotted(n.func)) is not None)
            for n in ast.walk(node))

    def attach(self, attribute: str, value: Any, scope: _Scope, steps: list[Step],
               prefix: str, contained: bool = False) -> None:
        """A value assigned to ``self.attribute``: a layer, a container, or a submodule."""
        if isinstance(value, list):
            for index, item in enumerate(value):
                self.attach(f"{attribute}.{index}", item, scope, steps, prefix, contained=True)
            return
        if isinstance(value, Unknown) and contained:
            line = scope.span[0] if scope.span else value.names[0][1] if value.names else 0
            self.lose(scope, line, f"a layer of {attribute.rsplit('.', 1)[0]} is not known "
                                   f"({', '.join(n for n, _ in value.names)})")
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
        if (own := self.own_class(value.path)) is not None:
            inner, notes, account = self.instance(own, value.args, value.kwargs, scope.env, "")
            steps += [replace(s, attribute=f"{prefix}{attribute}.{s.attribute}") for s in inner]
            scope.notes += notes
            self.absorb(scope, account)
            return
        steps.append(Step(value, prefix + attribute, conditional=id(value) in self.doubtful))
