"""What the code reader (:mod:`paramcount.reading.code.python_code`) makes: calls, models, unknowns,
and the small pure helpers its evaluator and walker share."""

from __future__ import annotations

import ast
from collections.abc import Iterable, MutableMapping
from typing import Any, TypeGuard

from paramcount.engine.layers import KNOWN
from paramcount.reading.accounting import NOTHING, Accounting, Unread
from paramcount.reading.patterns import lazy
from paramcount.record import record

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


@record
class Unknown:
    """A value that could not be resolved: the names (or expressions) it needs, with lines."""

    names: tuple[tuple[str, int], ...]

    def __add__(self, other: object) -> Unknown:
        """Unknowns combine their names."""
        extra = other.names if isinstance(other, Unknown) else ()
        return Unknown(tuple(dict.fromkeys(self.names + extra)))


@record
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


@record
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


@record
class Record:
    """An object whose attributes are known: an ``argparse`` namespace, a config instance."""

    kind: str
    """What made it: ``argparse``, or the config class's name."""
    fields: tuple[tuple[str, Any], ...]

    def get(self, name: str) -> Any:
        """The attribute ``name``, or :data:`MISSING`."""
        return dict(self.fields).get(name, MISSING)


TIE = "paramcount.tie"
"""The qualified name of the marker step ``self.head.weight = self.emb.weight`` leaves: its
attribute the layer whose tensor is replaced, its args (tensor, that layer's attribute and the
owner's, both relative to the class that ties them)."""

MISSING = object()
"""An attribute or key that is not there."""


@record
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
    conditional: bool = False
    """Built in the branch read of an ``if`` whose test is not known, or in the body of a loop
    whose length is not known: shown, but left out of a bound (it may not be built at all)."""


@record
class Block:
    """A model the code builds."""

    name: str
    kind: str
    """``module`` (nn.Module subclass), ``sequential``, ``functional``, ``layer``."""
    line: int
    steps: tuple[Step, ...]
    notes: tuple[str, ...] = ()
    accounting: Accounting = NOTHING
    """The statements read for it and those among them it could not read (a loop it could not
    unroll, a submodule built by a call the paste does not show): its total is exact only where
    this is whole."""


@record
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


@record
class _Class:
    """A class of the paste: its __init__ and bases."""

    node: ast.ClassDef
    init: ast.FunctionDef | None


class _Scope:
    """What one body of statements builds."""

    def __init__(self, env: MutableMapping[str, Any], prefix: str,
                 bases: tuple[_Class, ...] = ()) -> None:
        self.env = env
        self.prefix = prefix
        self.sequentials: dict[str, list[Step]] = {}
        self.seq_lines: dict[str, int] = {}
        self.graph_steps: list[Step] = []
        self.step_roots: list[str] = []
        """The graph each of :attr:`graph_steps` belongs to, when it was read (a name is used
        again by the next model of the paste: ``x`` of the second is not ``x`` of the first)."""
        self.merged: dict[str, str] = {}
        """Graphs that met (a merge, an ``initial_state``): each one -> the graph it joined."""
        self.roots: dict[str, str] = {}
        """Functional tensors: variable -> the graph it descends from (named by its ``Input``'s
        variable and line: ``encoder_inputs@15``)."""
        self.models: dict[str, tuple[str, int]] = {}
        """Input variable -> (model variable, line) for Model(inputs=..., outputs=...)."""
        self.loose: dict[str, Call] = {}
        self.used: set[str] = set()
        self.notes: list[str] = []
        self.claimed: set[int] = set()
        """The lines of the statements read (a class's: every one of them, for its one model)."""
        self.unread: list[Unread] = []
        """The statements it could not read that may build a layer of any model it makes."""
        self.claims: dict[str, set[int]] = {}
        """Top-level models (``seq:name``, ``graph:root``, ``loose:name``): the lines read for
        each."""
        self.owned: dict[str, list[Unread]] = {}
        """Top-level models, keyed as :attr:`claims`: the statements not read that belong to
        one."""
        self.span: tuple[int, int] | None = None
        """The statement being read (its first and last line)."""
        self.bases = bases
        """The classes of the paste the class being read derives from (for
        ``super().__init__``)."""
        self.returned: Any = MISSING
        """What a function's ``return`` gives (its first one read)."""
        self.returns: list[tuple[Call, int]] = []
        """Instances of the paste's classes a function returns, with the line."""

    def graph_of(self, root: str) -> str:
        """The graph a step read into ``root`` is part of now: graphs that met since are one."""
        seen = set()
        while root in self.merged and root not in seen:
            seen.add(root)
            root = self.merged[root]
        return root


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



_WORD = lazy(r"[A-Za-z_]\w*")
_SUBSCRIPT_CALL = lazy(r"\]\s*\(")

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
    layers = KNOWN | defined
    builds = not (words is not None and words.isdisjoint(layers)) and any(
        isinstance(n, ast.Call) and (dotted(n.func) or "").rsplit(".", 1)[-1] in layers
        for n in ast.walk(node))
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

