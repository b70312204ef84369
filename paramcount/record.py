"""``@record``: the frozen dataclass of the values every count is made of, loaded in no time.

``import dataclasses`` loads ``inspect`` (``ast``, ``dis``, ``tokenize``...) and generates each
class's methods by compiling source: together about as long as starting Python itself, which
the count commands cannot afford (issue 15's start-up goal, ``benchmarks/cli_speed.py``). A
record is what ``@dataclass(frozen=True)`` makes, for the subset used here:

- fields are the class's annotations, in order, each with an optional default (no
  ``ClassVar``, no inheritance of fields); this module's :func:`field` gives one a default,
  leaves it out of comparison and hashing (``compare=False``) or of the repr (``repr=False``),
  or makes it keyword-only (``kw_only=True``, for fields after every positional one), as
  ``dataclasses.field`` does (no ``default_factory``: a record's values are immutable);
- ``__init__`` takes them by position or keyword and then calls ``__post_init__`` if defined;
- instances are immutable, compare equal field by field within one class, hash and print
  (``repr``) as a dataclass's do;
- :func:`replace` and :func:`fields` stand for ``dataclasses.replace`` and ``fields`` (the
  names), and take dataclasses too: the one ``replace`` and ``fields`` paramcount calls;
- nothing is compiled when the class is made: its methods are generic until it has been built
  :data:`HOT` times, and then ``__init__``, ``__eq__`` and ``__hash__`` are compiled for its
  fields as a dataclass's are, so that the classes built by the thousand (a table's rows)
  cost what a dataclass costs, and the many built a few times cost nothing to make.

Type checkers read ``@record`` as a frozen dataclass (PEP 681's ``dataclass_transform``);
``tests/test_record.py`` holds it to ``dataclasses``' behaviour.
"""

from __future__ import annotations

from keyword import iskeyword
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


_MISSING = object()
"""A field without a default."""


class Field:
    """What :func:`field` gives, which :func:`record` reads and then removes from the class."""

    __slots__ = ("compare", "default", "kw_only", "shown")

    def __init__(self, default: Any, compare: bool, shown: bool, kw_only: bool) -> None:
        self.default, self.compare, self.shown, self.kw_only = default, compare, shown, kw_only


def field(*, default: Any = _MISSING, compare: bool = True, repr: bool = True,
          kw_only: bool = False) -> Any:
    """A record's field with options, as ``dataclasses.field`` takes them (its name for each)."""
    return Field(default, compare, repr, kw_only)


@dataclass_transform(frozen_default=True, field_specifiers=(field,))
def record(cls: type[T]) -> type[T]:
    """Make ``cls`` a frozen record of its annotated fields (see the module's docstring)."""
    annotations = cls.__dict__.get("__annotations__", {})  # noqa: RUF063 (inspect is slow)
    if any(str(kind).startswith(("ClassVar", "InitVar")) for kind in annotations.values()) or any(
            hasattr(base, "__record_fields__") for base in cls.__mro__[1:]):
        raise TypeError(f"{cls.__name__}: a record has plain fields only (no ClassVar, "
                        "InitVar or inherited fields); use a dataclass")
    names = tuple(annotations)
    specs = {name: spec for name in names if isinstance(spec := cls.__dict__.get(name), Field)}
    for name, spec in specs.items():  # the class keeps the default, as a dataclass's does
        if spec.default is _MISSING:
            delattr(cls, name)
        else:
            setattr(cls, name, spec.default)
    keywords = tuple(name for name in names if name in specs and specs[name].kw_only)
    positional = len(names) - len(keywords)
    if names[positional:] != keywords:
        raise TypeError(f"{cls.__name__}: a record's keyword-only fields come after all the "
                        "others; use a dataclass")
    defaults = {name: cls.__dict__[name] for name in names if name in cls.__dict__}
    post_init = cls.__dict__.get("__post_init__")
    allowed = frozenset(names)
    shown = tuple(name for name in names if name not in specs or specs[name].shown)
    whole = len(names) if positional == len(names) else -1  # all given by position
    most = min(positional, len(names) - 1)  # the most given by position beside keywords
    # later[count]: the fields after the first ``count`` given by position, which a keyword
    # may name (where each keyword names one of them, no field is given twice or unknown);
    # needed[count]: those of them with no default, which keywords must name; filled[count]:
    # the defaults of the others, which the keywords given then override
    later = [frozenset(names[count:]) for count in range(len(names) + 1)]
    needed = [frozenset(n for n in names[count:] if n not in defaults) or None
              for count in range(len(names) + 1)]
    filled = [{n: defaults[n] for n in names[count:] if n in defaults}
              for count in range(len(names) + 1)]

    compared = tuple(name for name in names if name not in specs or specs[name].compare)
    key = _key(compared)
    built = 0
    own: dict[str, Callable[..., Any]] | None = None

    def specialised() -> dict[str, Callable[..., Any]] | None:
        """The class's own methods, compiled once (None where its fields cannot be written as
        a signature)."""
        nonlocal own
        if own is None:
            own = _compiled(cls, names, positional, defaults, compared, post_init)
        return own or None

    # Each field is set as a dataclass sets it (object.__setattr__, in the fields' order), never
    # through the instance's __dict__: an instance whose __dict__ was never asked for keeps its
    # values inline, which makes reading a field about twice as fast (CPython 3.11+).
    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        nonlocal built
        built += 1
        if built == HOT and (methods := specialised()) is not None:
            for name, method in methods.items():  # from the next record built on
                setattr(cls, name, method)
        count = len(args)
        if not kwargs and count == whole:  # every field by position: the common case
            for name, value in zip(names, args, strict=False):
                _set(self, name, value)
        elif count <= most and later[count].issuperset(kwargs) and (
                (must := needed[count]) is None or must <= kwargs.keys()):
            for name, value in zip(names, args, strict=False):  # kept fast too
                _set(self, name, value)
            fill = filled[count]
            for name in names[count:]:
                _set(self, name, kwargs[name] if name in kwargs else fill[name])
        elif (methods := specialised()) is not None:  # the error, in Python's own words
            methods["__init__"](self, *args, **kwargs)
            return
        else:  # too many arguments, an unknown keyword, one given twice or missing: the error
            for name, value in _bound(cls.__name__, names, positional, allowed, defaults,
                                      args, kwargs).items():
                _set(self, name, value)
        if post_init is not None:
            post_init(self)

    def __repr__(self: Any) -> str:
        inner = ", ".join(f"{name}={getattr(self, name)!r}" for name in shown)
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


_set = object.__setattr__

HOT = 50
"""Records built of one class after which it gets methods compiled for its fields, as a
dataclass's are (a tenth of a millisecond each class): ``__init__`` taking the fields as named
parameters, ``__eq__`` and ``__hash__`` reading them as attributes. The generic methods cost
nothing to make, which the classes built a few times need; a class built thousands of times
(a table's rows) needs these, about half as costly to call."""


def _compiled(cls: type, names: tuple[str, ...], positional: int, defaults: dict[str, Any],
              compared: tuple[str, ...],
              post_init: Callable[..., Any] | None) -> dict[str, Callable[..., Any]]:
    """``__init__``, ``__eq__`` and ``__hash__`` written for ``cls``'s fields, as a dataclass
    writes them; empty where the fields cannot be a signature (a field without a default after
    one with a default, among those given by position; a name the code itself uses)."""
    front = [name in defaults for name in names[:positional]]
    if any(front[at] and not front[at + 1] for at in range(len(front) - 1)) or any(
            name in ("self", "other", "_set", "_post_init") or name.startswith("_default_")
            or not name.isidentifier() or iskeyword(name) for name in names):
        return {}  # the source below holds the class's own field names and nothing else
    parameters = [f"{name}=_default_{name}" if name in defaults else name for name in names]
    if positional < len(names):
        parameters.insert(positional, "*")
    body = [f"    _set(self, {name!r}, {name})" for name in names] or ["    pass"]
    if post_init is not None:
        body.append("    _post_init(self)")
    mine = "".join(f"self.{name}, " for name in compared)
    theirs = "".join(f"other.{name}, " for name in compared)
    source = "\n".join([
        f"def __init__({', '.join(['self', *parameters])}):", *body,
        "def __eq__(self, other):",
        "    if other.__class__ is not self.__class__:",
        "        return NotImplemented",
        f"    return ({mine}) == ({theirs})",
        "def __hash__(self):",
        f"    return hash(({mine}))", ""])
    namespace: dict[str, Any] = {"_set": _set, "_post_init": post_init,
                                 **{f"_default_{name}": value for name, value in defaults.items()}}
    exec(compile(source, f"<record {cls.__qualname__}>", "exec"), namespace)
    methods = {name: namespace[name] for name in ("__init__", "__eq__", "__hash__")}
    for name, method in methods.items():
        method.__qualname__ = f"{cls.__qualname__}.{name}"
    return methods


def _key(names: tuple[str, ...]) -> Callable[[object], object]:
    """A function giving a record's field values, for equality and hashing."""
    if len(names) > 1:
        return attrgetter(*names)
    if names:
        get = attrgetter(names[0])
        return lambda value: (get(value),)
    return lambda value: ()


def _bound(name: str, names: tuple[str, ...], positional: int, allowed: frozenset[str],
           defaults: dict[str, Any], args: tuple[Any, ...],
           kwargs: dict[str, Any]) -> dict[str, Any]:
    """The field values of ``name(*args, **kwargs)`` (the first ``positional`` of ``names``
    may be given by position), or the TypeError a dataclass raises."""
    if len(args) > positional:
        raise TypeError(f"{name}() takes {positional} arguments by position, {len(args)} "
                        "were given")
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
    current = {name: getattr(value, name) for name in names}
    return type(value)(**{**current, **changes})


def plain(value: object) -> object:
    """``value`` as JSON reads it back: a record (or dataclass) as an object of its fields,
    tuples and lists as lists, each item so too (a vision-language config holds its text and
    vision configs)."""
    if hasattr(value, "__record_fields__") or hasattr(value, "__dataclass_fields__"):
        return {name: plain(getattr(value, name)) for name in fields(value)}
    if isinstance(value, tuple | list):
        return [plain(item) for item in value]
    return value
