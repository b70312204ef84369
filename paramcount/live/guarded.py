"""Reading a user's object without letting anything it does escape: attributes read from the
instance's own ``__dict__`` first (no ``__getattr__`` runs), and every call into its code
guarded, its failure turned into a reason that names what could not be read."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

_MISSING = object()


def own(obj: object, name: str, default: Any = None) -> Any:
    """``obj.name`` as the instance holds it (its ``__dict__``), else as its class gives it,
    else ``default``: a ``__getattr__`` that raises anything at all is never run."""
    try:
        found = object.__getattribute__(obj, "__dict__").get(name, _MISSING)
    except Exception:  # no __dict__ (slots), or one that is not a mapping
        found = _MISSING
    if found is not _MISSING:
        return found
    try:
        return object.__getattribute__(obj, name)
    except Exception:  # an AttributeError, or anything a descriptor of the user's raises
        return default


def attribute(obj: object, name: str, default: Any = None) -> Any:
    """``getattr(obj, name, default)`` where the object's own ``__getattr__`` may raise
    anything (a KeyError, a RecursionError): whatever it raises, ``default``."""
    try:
        return getattr(obj, name, default)
    except Exception:
        return default


def why(error: BaseException) -> str:
    """An exception as one short phrase: its type and the first line of its message."""
    text = str(error).strip().splitlines()[0] if str(error).strip() else ""
    text = text if len(text) <= 120 else text[:117] + "..."
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


def called(call: Callable[[], Any], failed: list[str], what: str) -> Any:
    """``call()``, or None with ``what`` and the reason appended to ``failed`` when it raises
    (a RecursionError included)."""
    try:
        return call()
    except Exception as error:
        failed.append(f"{what} raised {why(error)}")
        return None


def class_name(obj: object) -> str:
    """The name of ``obj``'s class, read from its type (never from the object)."""
    return str(type.__getattribute__(type(obj), "__name__"))


def class_modules(obj: object) -> list[tuple[str, str]]:
    """(module, name) of each class in ``obj``'s type's MRO, read from the classes."""
    out = []
    for klass in type(obj).__mro__:
        module = klass.__dict__.get("__module__", "")
        out.append((module if isinstance(module, str) else "", klass.__name__))
    return out
