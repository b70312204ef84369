"""The code reader's walker: the statements of a paste, and the models they build (each with
its account of the statements read, :mod:`paramcount.reading.code.account`)."""

from __future__ import annotations

import ast
import re
from collections import ChainMap, Counter
from collections.abc import Iterable, Mapping, MutableMapping
from typing import Any

from paramcount.engine.layers import CONTAINERS, KNOWN
from paramcount.reading.accounting import NOTHING, Accounting
from paramcount.reading.code.account import _IF, _LOOP, _account, _lines, _span
from paramcount.reading.code.classes import _VALUES, _ClassReader, _unknown
from paramcount.reading.code.values import (
    _KERAS_MODULES,
    _MAY_BUILD,
    _MERGES,
    _SUBSCRIPT_CALL,
    _WORD,
    MAX_INSTANCES,
    MAX_REPEAT,
    MISSING,
    SPREAD,
    Block,
    Call,
    Factory,
    Record,
    Step,
    Unknown,
    _applied,
    _Budget,
    _builtin,
    _Class,
    _holds_settings,
    _required,
    _Scope,
    _targets,
    _text,
    _truth,
    dotted,
)
from paramcount.record import replace
from paramcount.usertext import ascii_digits


def _shown(key: str) -> str:
    """The name a model is shown under: ``model`` for ``model#3``, the model ``model`` held
    before it was bound again (:meth:`_Reader.rebind`)."""
    return key.split("#", 1)[0]


_OPS = _VALUES | {"K", "keras", "ops", "backend", "F", "layers", "tf_keras", "jax"}
"""Roots of calls on a tensor that hold no parameters (``tf.reduce_mean(x)``, ``F.relu(x)``)."""


class _Reader(_ClassReader):
    """Walks a parsed module, evaluating only literals, names and arithmetic."""

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

    def body(self, statements: Iterable[ast.stmt], scope: _Scope, top: bool = False) -> None:
        """Read statements in order into ``scope``."""
        for node in statements:
            if isinstance(node, ast.ClassDef):
                continue
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if top or not isinstance(node, ast.AsyncFunctionDef):
                    self.function(node, scope)
                continue
            outer, scope.span = scope.span, _span(node)
            scope.claimed.update(_lines(scope.span))
            self.statement(node, scope)
            scope.span = outer

    def maybe(self, node: ast.stmt, body: list[ast.stmt], scope: _Scope, reason: str,
              unknown: Unknown, others: list[ast.stmt] | None = None) -> None:
        """Top level: statements that may not run (the branch read of an ``if`` not known, the
        body of a loop of no known length, read once). The layers they add to a model made
        before are tagged conditional and the statement named unread in that model's account;
        where they may build a layer but add none that was read, in every model's. The values
        they set are not known after them."""
        sizes = {name: len(steps) for name, steps in scope.sequentials.items()}
        graph, roots = len(scope.graph_steps), set(scope.roots.values())
        lists = self.lists(scope.env)
        self.body(body, scope)
        self.doubt(lists, scope.env)
        self.unsettle([*body, *(others or [])], scope, unknown)
        owners = []
        for name, steps in scope.sequentials.items():
            if name in sizes and len(steps) > sizes[name]:
                steps[sizes[name]:] = [replace(s, conditional=True) for s in steps[sizes[name]:]]
                owners.append(f"seq:{name}")
        for index in range(graph, len(scope.graph_steps)):
            root = scope.graph_of(scope.step_roots[index])
            if root in roots:
                scope.graph_steps[index] = replace(scope.graph_steps[index], conditional=True)
                owners.append(f"graph:{root}")
        if owners:
            for owner in dict.fromkeys(owners):
                self.lose(scope, node.lineno, reason, owner)
        elif self.builds([*body, *(others or [])]):
            self.lose(scope, node.lineno, reason)

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
        words = _WORD.findall(self.segment(node))
        if node.name in words:  # its first: the header's, after ``def`` or ``class`` alone
            words.remove(node.name)
        return set(words)

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
        self.reading.append(scope)  # a config's statements are no model's
        self.init_body(cls.init.body, scope, [], "")
        self.reading.pop()
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
        if self.reading:  # a function an __init__ follows: its lines are that model's
            self.reading[-1].claimed |= scope.claimed
            self.reading[-1].unread += [*scope.unread, *(u for us in scope.owned.values()
                                                         for u in us)]
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
            if isinstance(value, Call) and self.own_class(value.path) is not None:
                scope.returns.append((value, node.lineno))
        elif isinstance(node, ast.If):
            test = self.value(node.test, scope.env)
            if (truth := _truth(test)) is not None:
                self.body(node.body if truth else node.orelse, scope)
            else:
                self.maybe(node, node.body, scope, _IF.format(_text(node.test)),
                           _unknown(test, node.test), node.orelse)
        elif isinstance(node, (ast.With, ast.AsyncWith, ast.Try)):
            self.body(node.body, scope)

    def loop(self, node: ast.For, scope: _Scope) -> None:
        """``for i in range(n)`` with n known is unrolled; otherwise read once, noted."""
        count = self.range_of(node.iter, scope.env)
        if isinstance(count, Unknown):
            scope.env.update(_targets(node.target, 0))
            self.maybe(node, node.body, scope, _LOOP.format(_text(node.iter)), count)
            return
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
        if (name in scope.sequentials or name in scope.loose) and (
                dotted(value_node.func if isinstance(value_node, ast.Call) else value_node)
                or "").split(".")[0] != name:
            self.rebind(name, scope)  # model = Sequential() again; not model = model.to(...)
        if isinstance(value_node, ast.Subscript) and _applied(value_node.value):
            self.functional(name, value_node.value, scope)  # out = LSTM(...)(x)[0]
            return
        if isinstance(value_node, ast.Name) and value_node.id in scope.roots and (
                self.rename(name, value_node.id, scope)):
            return
        if isinstance(value_node, ast.Call):
            callee = dotted(value_node.func)
            short = (callee or "").rsplit(".", 1)[-1]
            if self.own_class(callee) is not None:  # keras.Model is not the paste's Model
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
                root = f"{name}@{value_node.lineno}"
                scope.roots[name] = root
                self.claim(scope, f"graph:{root}")
                scope.graph_steps.append(Step(call, name, None, name))
                scope.step_roots.append(root)
                return
            if isinstance(value_node.func, ast.Call) or (
                    callee is not None and callee in scope.loose):
                self.functional(name, value_node, scope)
                return
            if short in _MERGES and callee is not None and self.qualify(callee).startswith(
                    _KERAS_MODULES):
                self.merge(name, value_node, scope)
                return
            if value_node.args and dotted(value_node.args[0]) in scope.roots and (
                    short not in KNOWN and self.own_class(callee) is None) and (
                    (callee or "").split(".")[0] not in _OPS):
                self.functional(name, value_node, scope)  # y = head(x): a layer not shown
                return
        value = self.value(value_node, scope.env)
        self.assign_value(name, value, scope)

    def rename(self, name: str, tensor: str, scope: _Scope) -> bool:
        """``x = inputs``: a tensor of a functional graph under another name, as the step that
        made it applied again (its layer counted once); False where no step made it."""
        made = next((s for s in reversed(scope.graph_steps) if s.target == tensor), None)
        if made is None:
            return False
        scope.roots[name] = scope.roots[tensor]
        scope.graph_steps.append(Step(made.call, name, made.source, name, made.sources))
        scope.step_roots.append(scope.roots[tensor])
        return True

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
                                        or self.own_class(value.path) is not None):
            scope.loose[name] = value
            scope.claims[f"loose:{name}"] = set(_lines(scope.span))

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
        self.rebind(name, scope)
        scope.sequentials[name] = []
        scope.seq_lines[name] = node.lineno
        scope.claims[f"seq:{name}"] = set()
        self.claim(scope, f"seq:{name}")
        for index, item in enumerate(items):
            self.append(name, item, str(index), scope)
        scope.env[name] = Call(dotted(node.func) or "Sequential", "Sequential", (), (),
                               node.lineno)

    def rebind(self, name: str, scope: _Scope) -> None:
        """``name`` is bound again: the model it held (a Sequential, a layer or an instance of
        the paste's class) stays a model of its own, kept under ``name#line`` (shown as
        ``name``), and what follows builds on the new binding only. An attribute bound again
        (``self.rnn``, ``model.fc``) replaces what it held: the model is the same."""
        if "." in name:
            return
        if name in scope.sequentials:
            kept = f"{name}#{scope.seq_lines[name]}"
            scope.sequentials[kept] = scope.sequentials.pop(name)
            scope.seq_lines[kept] = scope.seq_lines.pop(name)
            if f"seq:{name}" in scope.claims:
                scope.claims[f"seq:{kept}"] = scope.claims.pop(f"seq:{name}")
            if f"seq:{name}" in scope.owned:
                scope.owned[f"seq:{kept}"] = scope.owned.pop(f"seq:{name}")
        if name in scope.loose:
            kept = f"{name}#{scope.loose[name].line}"
            scope.loose[kept] = scope.loose.pop(name)
            if f"loose:{name}" in scope.claims:
                scope.claims[f"loose:{kept}"] = scope.claims.pop(f"loose:{name}")
            if name in scope.used:
                scope.used.discard(name)
                scope.used.add(kept)

    def append(self, model: str, item: Any, attribute: str, scope: _Scope) -> None:
        """Add a layer (or a nested container's layers) to a Sequential."""
        if isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], str):
            attribute, item = item
        self.claim(scope, f"seq:{model}")
        if isinstance(item, Call):
            scope.sequentials[model].append(Step(item, attribute,
                                                 conditional=id(item) in self.doubtful))
            self.used_calls(item, scope)
        elif isinstance(item, Unknown):
            line = scope.span[0] if scope.span else item.names[0][1] if item.names else 0
            self.lose(scope, line, f"a layer of {model} is not known "
                                   f"({', '.join(n for n, _ in item.names)})", f"seq:{model}")

    def used_calls(self, call: Call, scope: _Scope) -> None:
        for name, loose in list(scope.loose.items()):
            if loose is call:
                scope.used.add(name)

    def expression_call(self, node: ast.Call, scope: _Scope) -> None:
        """``model.add(layer)`` and ``self.layers.append(layer)``; at the top of a paste, a
        layer constructed on its own (``nn.GRU(10, 20)``) is that layer, and ``model.add``
        of a layer on a name never bound starts that Sequential (its line was not pasted)."""
        callee = dotted(node.func)
        if callee is None:
            return
        top = not scope.prefix and not self.quiet and not self.depth
        if top and not _applied(node) and callee.rsplit(".", 1)[-1] in KNOWN:
            value = self.value(node, scope.env)
            if isinstance(value, Call) and value.unresolved is None:
                name = value.name.lower()
                while name in scope.loose or name in scope.env:
                    name += "_"
                scope.loose[name] = value
                scope.claims[f"loose:{name}"] = set(_lines(scope.span))
            return
        if "." not in callee:
            return
        owner, method = callee.rsplit(".", 1)
        if method == "add" and owner not in scope.sequentials and top and len(
                node.args) == 1 and owner not in scope.env and "." not in owner:
            item = self.value(node.args[0], scope.env)
            if isinstance(item, Call) and item.name in KNOWN:
                scope.sequentials[owner] = []
                scope.seq_lines[owner] = node.lineno
                scope.claims[f"seq:{owner}"] = set()
                scope.notes.append(f"line {node.lineno}: {owner}.add(...) without the line "
                                   f"that makes {owner}: read as a Sequential from here")
                self.append(owner, item, "0", scope)
            return
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
        if isinstance(layer, Call) and (self.own_class(layer.path) is not None or (
                layer.qualified.startswith("torch"))) and (
                dotted(first) if first is not None else None) not in scope.roots:
            return  # out = Net()(x), out = model(x): a torch forward pass, not a Keras graph
        if callee is not None and callee in scope.loose:
            scope.used.add(callee)
        sources: list[str | None] = [dotted(e) for e in first.elts] if isinstance(
            first, (ast.List, ast.Tuple)) else [dotted(first) if first is not None else None]
        if first is not None and _applied(first):  # Dense(3)(GRU(8)(x)): the inner one first
            sources = [f"{name}<{first.lineno}:{first.col_offset}>"]
            self.functional(sources[0] or "", first, scope)
        if not isinstance(layer, Call):
            root = scope.roots.get(sources[0] or "")
            self.lose(scope, scope.span[0] if scope.span else node.lineno,
                      f"{_text(node.func)} is not known: what it applies to "
                      f"{sources[0] or 'a tensor'} is not counted",
                      None if root is None else f"graph:{root}")
            if root is not None:  # the graph goes on through what it gives
                scope.roots[name] = root
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
        for unmade in dict.fromkeys(n for n in names if n and n not in scope.roots
                                    and n not in scope.env):  # its making cut off, perhaps
            self.lose(scope, step.call.line, f"{unmade} is not made in the paste: the layers "
                      "that make it are not counted", f"graph:{root}")
        if len(roots) > 1:
            for variable, other in list(scope.roots.items()):
                if other in roots:
                    scope.roots[variable] = root
            for other in roots[1:]:  # graphs that meet: one account
                scope.claims.setdefault(f"graph:{root}", set()).update(
                    scope.claims.pop(f"graph:{other}", set()))
                scope.owned.setdefault(f"graph:{root}", []).extend(
                    scope.owned.pop(f"graph:{other}", []))
            for other in roots[1:]:
                scope.merged[other] = root
                if other in scope.models:
                    scope.models.setdefault(root, scope.models.pop(other))
        for target in (step.target or "", *step.states):
            scope.roots[target] = root
        self.claim(scope, f"graph:{root}")
        scope.graph_steps.append(step)
        scope.step_roots.append(root)

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
            known = [scope.roots[n] for n in names if n in scope.roots]
            for input_name in names:
                if input_name in scope.roots:
                    scope.models[scope.roots[input_name]] = (name, node.lineno)
                    self.claim(scope, f"graph:{scope.roots[input_name]}")
                elif input_name and input_name not in scope.env and known:
                    self.lose(scope, node.lineno, f"its input {input_name} is not made in the "
                              "paste: the layers it feeds are not counted", f"graph:{known[0]}")

    def finish(self, scope: _Scope) -> None:
        """Turn what a scope built into blocks."""
        if self.quiet:
            return
        built = len(self.blocks)
        for call, line in scope.returns if scope.prefix.rstrip(".") not in self.called else ():
            # def build(**kw): return Tagger(**kw), a factory the paste never calls
            cls = self.classes[call.name]  # own_class(call.path): only such calls are kept
            steps, notes, account = self.instance(cls, call.args, call.kwargs, scope.env, "")
            self.blocks.append(Block(call.name, "module", cls.node.lineno,
                                     tuple(steps), (
                f"line {line}: {scope.prefix.rstrip('.')}() returns {call.name}(...)",
                *notes), account))
        inside = self.inside_class(scope)
        for name, steps in scope.sequentials.items():
            if name in inside:
                continue
            owner = f"seq:{name}"
            if "#" in name and not steps:
                continue  # a Sequential bound again before any layer was added
            self.blocks.append(Block(scope.prefix + _shown(name), "sequential",
                                     scope.seq_lines[name],
                                     tuple(steps), tuple(scope.notes), _account(
                                         scope.claims.get(owner, ()),
                                         [*scope.owned.get(owner, ()), *scope.unread])))
        graphs: dict[tuple[str, int], list[Step]] = {}
        accounts: dict[tuple[str, int], Accounting] = {}
        for step, read_in in zip(scope.graph_steps, scope.step_roots, strict=True):
            root = scope.graph_of(read_in)  # one model for all the inputs Model(...) names
            base, _, at = root.strip("<>").partition("@")  # x = Input(...) again: another
            key = scope.models.get(root, (base, -int(at) if ascii_digits(at) else -1))  # graph
            graphs.setdefault(key, []).append(step)
            accounts[key] = accounts.get(key, NOTHING) + _account(
                scope.claims.get(f"graph:{root}", ()), scope.owned.get(f"graph:{root}", ()))
        for (name, line), steps in graphs.items():
            if len(steps) == 1 and steps[0].call.name == "Input":
                continue
            self.blocks.append(Block((scope.prefix + name).strip("."), "functional",
                                     steps[0].call.line if line < 0 else line,
                                     tuple(steps), tuple(scope.notes),
                                     accounts[name, line] + _account((), scope.unread)))
        for name, call in scope.loose.items():
            if name in scope.used or call.name in ("Input", "InputLayer") or name in inside:
                continue
            if call.unresolved is not None and scope.prefix:
                continue  # scores = model(x): a value a function is handed, applied to data
            made = _account(scope.claims.get(f"loose:{name}", ()), ())
            if (own := self.own_class(call.path)) is not None:
                steps, notes, account = self.instance(own, call.args, call.kwargs, scope.env, "")
                self.blocks.append(Block(scope.prefix + _shown(name), "module", call.line,
                                         tuple(steps), tuple(notes), made + account))
                continue
            self.blocks.append(Block(scope.prefix + _shown(name), "layer", call.line,
                                     (Step(call, name),), tuple(scope.notes), made))
        if len(self.blocks) > built or not scope.prefix:  # a function that builds nothing
            self.notes += [n for n in scope.notes if n not in self.notes]  # has no say

    def inside_class(self, scope: _Scope) -> set[str]:
        """Layers (and ``nn.Sequential`` s) assigned to ``self.x`` outside any class (the paste
        starts inside one: its ``class`` line, and perhaps layers above, not in it) read as one
        model whose total is only a bound, cut off above its first; the names so read."""
        inside: list[tuple[int, str, list[Step]]] = [
            (call.line, name, [Step(call, name[5:])]) for name, call in scope.loose.items()
            if name.startswith("self.") and name not in scope.used
            and call.name not in ("Input", "InputLayer")]
        inside += [(scope.seq_lines[name], name,
                    [Step(s.call, f"{name[5:]}.{s.attribute}") for s in steps])
                   for name, steps in scope.sequentials.items() if name.startswith("self.")]
        if not inside:
            return set()
        inside.sort()
        first = inside[0][0]
        claimed = {line for _, name, _ in inside for owner in (f"loose:{name}", f"seq:{name}")
                   for line in scope.claims.get(owner, ())}
        account = Accounting(frozenset(claimed | {first}), (), (
            f"the code starts inside a class: its `class` line and what came before line "
            f"{first} are not in the paste",))
        steps = tuple(step for _, _, steps in inside for step in steps)
        self.blocks.append(Block(scope.prefix + "self", "module", first, steps,
                                 tuple(scope.notes), account))
        return {name for _, name, _ in inside}
