"""The library calls' arguments checked against their annotations: a wrong type is a TypeError
naming the call and the parameter, never an AttributeError from deep inside.

``paramcount.read([...])`` raised ``'list' object has no attribute 'replace'``;
``family("jamba", what_if=5)`` ``'int' object has no attribute 'items'``. Each public call is
decorated with :func:`checked`: on each call, each argument is held against its parameter's
annotation (plain classes, ``X | None``, ``Mapping[...]``, ``Sequence[...]``, ``Literal``);
what an annotation cannot say at run time (``Any``, a callable) is left to the call.

The arguments are bound to the parameters from the function's code object (its names,
defaults and flags), not by ``inspect``, which the ``read`` command cannot afford to load (with
``dis`` and ``tokenize``, a tenth of its start-up, ``benchmarks/read_speed.py``): ``inspect``
is loaded only to word the TypeError of a call that does not bind.
"""

from __future__ import annotations

import collections.abc
import functools
import sys
import types
import typing
from collections.abc import Callable
from typing import Any, NamedTuple, ParamSpec, TypeVar

Parameters = ParamSpec("Parameters")
Result = TypeVar("Result")

_UNKNOWN = object()
"""An annotation that cannot be checked at run time."""


class CodeSignature(NamedTuple):
    """A plain function's parameters as its code object lists them (what ``inspect.signature``
    reads): by position (the first ``by_keyword`` of them also by keyword), keyword-only, the
    names of ``*args`` and ``**kwargs`` (None where there are none), and those with no default."""

    positional: tuple[str, ...]
    by_keyword: frozenset[str]
    keyword_only: tuple[str, ...]
    star: str | None
    double_star: str | None
    required: frozenset[str]

    @property
    def order(self) -> tuple[str, ...]:
        """Every parameter's name in the order of the signature."""
        star = (self.star,) if self.star else ()
        double_star = (self.double_star,) if self.double_star else ()
        return (*self.positional, *star, *self.keyword_only, *double_star)


def _unwrapped(function: Callable[..., Any]) -> Callable[..., Any]:
    """The function ``functools.wraps`` wrappers stand for, whose signature they show."""
    while hasattr(function, "__wrapped__"):
        function = function.__wrapped__
    return function


def parameters(function: Callable[..., Any]) -> CodeSignature | None:
    """The parameters of ``function`` (of what its ``functools.wraps`` wrappers stand for),
    None for anything but a plain Python function (left to ``inspect``)."""
    inner = _unwrapped(function)
    code = getattr(inner, "__code__", None)
    if not isinstance(inner, types.FunctionType) or code is None or hasattr(
            inner, "__signature__"):
        return None
    names = code.co_varnames
    count, only = code.co_argcount, code.co_kwonlyargcount
    positional, keyword_only = names[:count], names[count:count + only]
    at = count + only
    star = names[at] if code.co_flags & 0x04 else None  # CO_VARARGS
    double_star = names[at + (star is not None)] if code.co_flags & 0x08 else None  # VARKEYWORDS
    defaults = inner.__defaults__ or ()
    required = {*positional[:count - len(defaults)],
                *(n for n in keyword_only if n not in (inner.__kwdefaults__ or {}))}
    return CodeSignature(positional, frozenset(positional[code.co_posonlyargcount:]),
                       keyword_only, star, double_star, frozenset(required))


def bind(given: CodeSignature, args: tuple[Any, ...],
         kwargs: dict[str, Any]) -> dict[str, Any] | None:
    """The arguments of a call by parameter, in the signature's order, as
    ``inspect.Signature.bind`` gives them (``*args`` as a tuple and ``**kwargs`` as a dict,
    each only where given); None for a call that does not bind."""
    if len(args) > len(given.positional) and given.star is None:
        return None
    bound: dict[str, Any] = dict(zip(given.positional, args, strict=False))
    if len(args) > len(given.positional):
        bound[given.star] = args[len(given.positional):]  # type: ignore[index]
    extra: dict[str, Any] = {}
    for name, value in kwargs.items():
        if name in given.positional and name not in given.by_keyword:  # positional-only
            if given.double_star is None:
                return None
            extra[name] = value  # a positional-only name given by keyword goes to **kwargs
        elif name in bound:  # given twice
            return None
        elif name in given.by_keyword or name in given.keyword_only:
            bound[name] = value
        elif given.double_star is not None:
            extra[name] = value
        else:
            return None
    if not given.required <= bound.keys():
        return None
    if extra:
        bound[given.double_star] = extra  # type: ignore[index]
    return {name: bound[name] for name in given.order if name in bound}


def _resolved(function: Callable[..., Any]) -> dict[str, Any]:
    """Each parameter's annotation, evaluated in the function's module (one that names a type
    imported only for type checking is left unchecked)."""
    namespace = vars(sys.modules[function.__module__])
    hints: dict[str, Any] = {}
    annotations: dict[str, Any] = _unwrapped(function).__annotations__
    for name, annotation in annotations.items():
        if name == "return":
            continue
        if isinstance(annotation, str):
            # typing's own resolver, one annotation at a time: get_type_hints on the whole
            # function fails where one names a type imported for type checking only
            holder = types.SimpleNamespace(__annotations__={name: annotation})
            try:
                annotation = typing.get_type_hints(holder, globalns=namespace)[name]
            except Exception:  # a name imported for type checking only
                annotation = _UNKNOWN
        hints[name] = annotation
    return hints


def matches(value: object, hint: Any) -> bool:
    """Whether ``value`` fits annotation ``hint`` as far as run time can tell (an annotation
    it cannot check is a fit)."""
    if hint is _UNKNOWN or hint is Any:
        return True
    if hint is None or hint is type(None):
        return value is None
    origin = typing.get_origin(hint)
    arguments = typing.get_args(hint)
    if origin is typing.Union or origin is types.UnionType:
        return any(matches(value, each) for each in arguments)
    if origin is typing.Literal:
        return value in arguments
    if origin in (collections.abc.Mapping, dict, collections.abc.MutableMapping):
        return isinstance(value, collections.abc.Mapping) and (
            not arguments or arguments[0] is not str or all(isinstance(k, str) for k in value))
    if origin in (collections.abc.Sequence, list, tuple, collections.abc.Iterable):
        return isinstance(value, collections.abc.Iterable) and not isinstance(
            value, (str, bytes, collections.abc.Mapping))
    if origin is not None:
        return (isinstance(origin, type) and isinstance(value, origin)) or not isinstance(
            origin, type)
    if not isinstance(hint, type):
        return True  # a TypeVar, a callable's signature ...
    if hint is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, hint)


def _spelled(hint: Any) -> str:
    """An annotation as a message names it: ``str``, ``Mapping[str, object] | None``."""
    if isinstance(hint, type) and typing.get_origin(hint) is None:
        return hint.__name__
    return str(hint).replace("typing.", "").replace("collections.abc.", "")


def checked(function: Callable[Parameters, Result]) -> Callable[Parameters, Result]:
    """``function`` with its arguments held against its annotations: TypeError naming the
    parameter, its expected type and the type given."""
    given = parameters(function)
    hints: dict[str, Any] = {}

    @functools.wraps(function)
    def call(*args: Parameters.args, **kwargs: Parameters.kwargs) -> Result:
        if not hints:
            hints.update(_resolved(function))
        bound = None if given is None else bind(given, args, kwargs)
        if given is not None and bound is not None:
            star, double_star = given.star, given.double_star
        else:  # inspect, for a call that does not bind (its words) or another callable
            import inspect

            signature = inspect.signature(function)
            try:
                bound = signature.bind(*args, **kwargs).arguments
            except TypeError as error:
                raise TypeError(f"{function.__name__}(): {error}") from None
            kinds = {name: p.kind for name, p in signature.parameters.items()}
            star = next((n for n, k in kinds.items() if k is inspect.Parameter.VAR_POSITIONAL),
                        None)
            double_star = next((n for n, k in kinds.items()
                                if k is inspect.Parameter.VAR_KEYWORD), None)
        for name, value in bound.items():
            hint = hints.get(name, _UNKNOWN)
            if name == star:
                wrong = [v for v in value if not matches(v, hint)]
            elif name == double_star:
                wrong = [v for v in value.values() if not matches(v, hint)]
            else:
                wrong = [] if matches(value, hint) else [value]
            if wrong:
                raise TypeError(f"{function.__name__}(): {name} must be {_spelled(hint)}, "
                                f"not {type(wrong[0]).__name__}")
        return function(*args, **kwargs)

    return call
