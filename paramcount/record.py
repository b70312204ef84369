"""``@record``: the frozen dataclass of the values every count is made of, loaded in no time.

``import dataclasses`` loads ``inspect`` (``ast``, ``dis``, ``tokenize``...) and generates each
class's methods by compiling source: together about as long as starting Python itself, which
the count commands cannot afford (issue 15's start-up goal, ``benchmarks/cli_speed.py``). A
record is what ``@dataclass(frozen=True)`` makes, for the subset used here:

- fields are the class's annotations, in order, each with an optional default (no
  ``field()``, no ``ClassVar``, no inheritance of fields);
- ``__init__`` takes them by position or keyword and then calls ``__post_init__`` if defined;
- instances are immutable, compare equal field by field within one class, hash and print
  (``repr``) as a dataclass's do;
- :func:`replace` and :func:`fields` stand for ``dataclasses.replace`` and ``fields`` (the
  names), and take dataclasses too: the one ``replace`` and ``fields`` paramcount calls.

Type checkers read ``@record`` as a frozen dataclass (PEP 681's ``dataclass_transform``);
``tests/test_record.py`` holds it to ``dataclasses``' behaviour.
"""

from __future__ import annotations

from operator import attrgetter

TYPE_CHECKING = False  # typing itself takes a while to load; only a type checker needs it
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, TypeVar, dataclass_transform

    T = TypeVar("T")
else:
    def dataclass_transform(**_: object) -> object:
        """What type checkers read; nothing at run time."""
        return lambda function: function


class FrozenRecordError(AttributeError):
    """An attempt to change a record (as ``dataclasses.FrozenInstanceError``)."""


@dataclass_transform(frozen_default=True)
def record(cls: type[T]) -> type[T]:
    """Make ``cls`` a frozen record of its annotated fields (see the module's docstring)."""
    annotations = cls.__dict__.get("__annotations__", {})  # noqa: RUF063 (inspect is slow)
    if any(str(kind).startswith(("ClassVar", "InitVar")) for kind in annotations.values()) or any(
            hasattr(base, "__record_fields__") for base in cls.__mro__[1:]):
        raise TypeError(f"{cls.__name__}: a record has plain fields only (no ClassVar, "
                        "InitVar or inherited fields); use a dataclass")
    names = tuple(annotations)
    defaults = {name: cls.__dict__[name] for name in names if name in cls.__dict__}
    post_init = cls.__dict__.get("__post_init__")
    allowed = frozenset(names)
    key = _key(names)
    # later[count]: the fields after the first ``count`` given by position, which a keyword
    # may name (where each keyword names one of them, no field is given twice or unknown)
    later = [frozenset(names[count:]) for count in range(len(names) + 1)]

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        count = len(args)
        if not kwargs and count == len(names):  # every field by position: the common case
            self.__dict__.update(zip(names, args, strict=True))
        elif count < len(names) and later[count].issuperset(kwargs):  # kept fast too
            values = self.__dict__
            values.update(zip(names, args, strict=False))
            values.update(kwargs)
            for name in names[count:]:
                if name not in values:
                    if name not in defaults:
                        raise TypeError(f"{cls.__name__}() missing required argument {name!r}")
                    values[name] = defaults[name]
        else:  # too many arguments, an unknown keyword or one given twice: the error
            self.__dict__.update(_bound(cls.__name__, names, allowed, defaults, args, kwargs))
        if post_init is not None:
            post_init(self)

    def __repr__(self: Any) -> str:
        inner = ", ".join(f"{name}={self.__dict__[name]!r}" for name in names)
        return f"{cls.__qualname__}({inner})"

    def __eq__(self: Any, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return bool(key(self) == key(other))

    def __hash__(self: Any) -> int:
        return hash(key(self))

    def __setattr__(self: Any, name: str, value: object) -> None:
        raise FrozenRecordError(f"cannot assign to field {name!r}")

    def __delattr__(self: Any, name: str) -> None:
        raise FrozenRecordError(f"cannot delete field {name!r}")

    for method in (__init__, __repr__, __eq__, __hash__, __setattr__, __delattr__):
        method.__qualname__ = f"{cls.__qualname__}.{method.__name__}"
        setattr(cls, method.__name__, method)
    cls.__record_fields__ = names  # type: ignore[attr-defined]
    return cls


def _key(names: tuple[str, ...]) -> Callable[[object], object]:
    """A function giving a record's field values, for equality and hashing."""
    if len(names) > 1:
        return attrgetter(*names)
    if names:
        get = attrgetter(names[0])
        return lambda value: (get(value),)
    return lambda value: ()


def _bound(name: str, names: tuple[str, ...], allowed: frozenset[str], defaults: dict[str, Any],
           args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
    """The field values of ``name(*args, **kwargs)``, or the TypeError a dataclass raises."""
    if len(args) > len(names):
        raise TypeError(f"{name}() takes {len(names)} arguments, {len(args)} were given")
    values = dict(zip(names, args, strict=False))
    if kwargs:
        if not allowed.issuperset(kwargs):
            unknown = sorted(kwargs.keys() - allowed)[0]
            raise TypeError(f"{name}() got an unexpected keyword argument {unknown!r}")
        if not values.keys().isdisjoint(kwargs):
            twice = sorted(values.keys() & kwargs.keys())[0]
            raise TypeError(f"{name}() got several values for {twice!r}")
        values.update(kwargs)
    if len(values) < len(names):
        for field, default in defaults.items():
            values.setdefault(field, default)
        if len(values) < len(names):
            missing = next(field for field in names if field not in values)
            raise TypeError(f"{name}() missing required argument {missing!r}")
    return values


def fields(value: object) -> tuple[str, ...]:
    """The field names of a record or a dataclass (or of its class), in order.

    One function for both kinds, so that no caller has to know which a class is (a dataclass
    given to ``dataclasses.fields``' record twin, or the reverse, fails only at run time);
    ``dataclasses`` is loaded only for a dataclass, which has loaded it already."""
    names: tuple[str, ...] | None = getattr(value, "__record_fields__", None)
    if names is not None:
        return names
    if hasattr(value, "__dataclass_fields__"):
        import dataclasses

        return tuple(field.name for field in dataclasses.fields(value))  # type: ignore[arg-type]
    raise TypeError(f"fields() takes a record or a dataclass, not {type(value).__name__}")


def replace(value: T, /, **changes: Any) -> T:
    """A copy of the record or dataclass ``value`` with ``changes``, built (and so validated)
    anew, as ``dataclasses.replace`` makes one."""
    names: tuple[str, ...] | None = getattr(value, "__record_fields__", None)
    if names is None:
        if isinstance(value, type) or not hasattr(value, "__dataclass_fields__"):
            raise TypeError(f"replace() takes a record or a dataclass instance, "
                            f"not {type(value).__name__}")
        import dataclasses

        return dataclasses.replace(value, **changes)  # type: ignore[type-var]
    current = {name: value.__dict__[name] for name in names}
    return type(value)(**{**current, **changes})
