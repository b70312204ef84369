"""The library calls' arguments checked against their annotations: a wrong type is a TypeError
naming the call and the parameter, never an AttributeError from deep inside.

``paramcount.read([...])`` raised ``'list' object has no attribute 'replace'``;
``family("jamba", what_if=5)`` ``'int' object has no attribute 'items'``. Each public call is
decorated with :func:`checked`: on each call, each argument is held against its parameter's
annotation (plain classes, ``X | None``, ``Mapping[...]``, ``Sequence[...]``, ``Literal``);
what an annotation cannot say at run time (``Any``, a callable) is left to the call.
"""

from __future__ import annotations

import collections.abc
import functools
import inspect
import sys
import types
import typing
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

Parameters = ParamSpec("Parameters")
Result = TypeVar("Result")

_UNKNOWN = object()
"""An annotation that cannot be checked at run time."""


def _resolved(function: Callable[..., Any]) -> dict[str, Any]:
    """Each parameter's annotation, evaluated in the function's module (one that names a type
    imported only for type checking is left unchecked)."""
    namespace = vars(sys.modules[function.__module__])
    hints: dict[str, Any] = {}
    for name, parameter in inspect.signature(function).parameters.items():
        annotation = parameter.annotation
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
    if hint is _UNKNOWN or hint is Any or hint is inspect.Parameter.empty:
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
    signature = inspect.signature(function)
    hints: dict[str, Any] = {}

    @functools.wraps(function)
    def call(*args: Parameters.args, **kwargs: Parameters.kwargs) -> Result:
        if not hints:
            hints.update(_resolved(function))
        try:
            bound = signature.bind(*args, **kwargs)
        except TypeError as error:
            raise TypeError(f"{function.__name__}(): {error}") from None
        for name, value in bound.arguments.items():
            parameter = signature.parameters[name]
            hint = hints.get(name, _UNKNOWN)
            if parameter.kind is inspect.Parameter.VAR_POSITIONAL:
                wrong = [v for v in value if not matches(v, hint)]
            elif parameter.kind is inspect.Parameter.VAR_KEYWORD:
                wrong = [v for v in value.values() if not matches(v, hint)]
            else:
                wrong = [] if matches(value, hint) else [value]
            if wrong:
                raise TypeError(f"{function.__name__}(): {name} must be {_spelled(hint)}, "
                                f"not {type(wrong[0]).__name__}")
        return function(*args, **kwargs)

    return call
