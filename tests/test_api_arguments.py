"""The library face refuses arguments of the wrong type with a TypeError naming the parameter.

``paramcount.read([...])`` and ``read({...})`` let an AttributeError out (``'list' object
has no attribute 'replace'``), and so did ``family("jamba", what_if=5)``; every call of the
face is walked here, each of its parameters given a value of no type it takes.
"""

from __future__ import annotations

import functools
import inspect
import re
from typing import Any

import pytest

import paramcount
from paramcount.api import calls
from paramcount.api.arguments import bind, parameters
from paramcount.errors import ParamcountError

CASES: list[tuple[str, tuple[Any, ...], dict[str, Any], str]] = [
    ("read", ([1, 2],), {}, "text"),
    ("read", ({"a": 1},), {}, "text"),
    ("read", (b"nn.LSTM(1, 2)",), {}, "text"),
    ("read", ("x = 1",), {"overrides": 5}, "overrides"),
    ("read", ("x = 1",), {"overrides": {1: 2}}, "overrides"),
    ("family", ("jamba",), {"what_if": 5}, "what_if"),
    ("family", (5,), {}, "name"),
    ("family", ("jamba",), {"config": 7}, "config"),
    ("inspect", (5,), {}, "paths"),
    ("check", (None,), {}, "paths"),
    ("explain", ("lstm", "10", 20), {}, "input_size"),
    ("fit", ("lstm", 10), {"max_params": [1]}, "max_params"),
    ("load_error", (3,), {}, "text"),
    ("shapes", ("lstm", 3, 4), {"batch": "x"}, "batch"),
]


@pytest.mark.parametrize(("call", "args", "kwargs", "parameter"), CASES,
                         ids=[f"{c}-{p}-{type(a[0]).__name__}" for c, a, _, p in CASES])
def test_a_wrong_type_is_a_type_error_naming_the_parameter(
        call: str, args: tuple[Any, ...], kwargs: dict[str, Any], parameter: str) -> None:
    """The issue's calls, and their like, raise TypeError naming the parameter."""
    with pytest.raises(TypeError, match=rf"^{call}\(\): {parameter} must be "):
        getattr(paramcount, call)(*args, **kwargs)


WALKED = sorted(name for name in calls.__all__ if name[0].islower())


@pytest.mark.parametrize("call", WALKED)
def test_every_call_refuses_an_argument_of_no_type_it_takes(call: str) -> None:
    """Each call of the face, given an object of no type it takes for each of its parameters
    in turn, raises TypeError naming a parameter, or an error of paramcount's own: never an
    AttributeError from inside."""
    function = getattr(paramcount, call)
    signature = inspect.signature(function)
    for name, parameter in signature.parameters.items():
        if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
            args: list[Any] = [object()] if parameter.kind is parameter.VAR_POSITIONAL else []
            kwargs: dict[str, Any] = {}
        else:
            args, kwargs = [], {name: object()}
        for other, each in signature.parameters.items():
            if other != name and each.default is each.empty and each.kind in (
                    each.POSITIONAL_OR_KEYWORD, each.KEYWORD_ONLY):
                kwargs[other] = object()
        try:
            function(*args, **kwargs)
        except TypeError as error:
            assert re.match(rf"{call}\(\): \w+ must be ", str(error)) or call in (
                "summary", "counted", "compare"), str(error)
        except ParamcountError:
            pass


def _plain(a, b=2, /, c=3, *, d, e=5):  # type: ignore[no-untyped-def]
    """Positional-only, positional-or-keyword and keyword-only parameters, some required."""


def _starred(a, *rest, f=6, **more):  # type: ignore[no-untyped-def]
    """``*args`` and ``**kwargs`` beside named parameters."""


def _only(a, /, **more):  # type: ignore[no-untyped-def]
    """A positional-only name that may also arrive in ``**kwargs``."""


@functools.wraps(_plain)
def _wrapper(*args, **kwargs):  # type: ignore[no-untyped-def]
    """A ``functools.wraps`` wrapper, whose signature is the wrapped function's."""


SIGNED = {"plain": _plain, "starred": _starred, "only": _only, "wrapped": _wrapper}
CALLS: list[tuple[tuple[Any, ...], dict[str, Any]]] = [
    ((), {}), ((1,), {}), ((1,), {"d": 4}), ((1, 2, 3), {"d": 4, "e": 0}),
    ((1, 2, 3, 4), {"d": 4}), ((1,), {"b": 2, "d": 4}), ((1,), {"c": 3, "d": 4, "x": 0}),
    ((1, 2), {"a": 1}), ((1,), {"a": 1}), ((1, 2, 3, 4, 5), {"f": 0, "g": 1}),
    ((), {"a": 1}), ((1,), {"rest": 2, "more": 3}),
]


@pytest.mark.parametrize("args, kwargs", CALLS, ids=[f"call{i}" for i in range(len(CALLS))])
@pytest.mark.parametrize("name", SIGNED)
def test_arguments_bind_as_inspect_binds_them(name: str, args: tuple[Any, ...],
                                              kwargs: dict[str, Any]) -> None:
    """The code object's binding of a call, which spares the read command ``inspect``, gives
    what ``inspect.Signature.bind`` gives (names, values, order), and None where it raises."""
    function = SIGNED[name]
    try:
        expected: dict[str, Any] | None = dict(inspect.signature(function).bind(
            *args, **kwargs).arguments)
    except TypeError:
        expected = None
    given = parameters(function)
    assert given is not None
    found = bind(given, args, kwargs)
    assert found == expected and list(found or ()) == list(expected or ())

