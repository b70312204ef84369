"""Which framework an object comes from, told by its type alone (nothing is imported)."""

from __future__ import annotations

from paramcount.errors import ParamcountError

FRAMEWORKS = ("torch", "keras", "flax")
"""What :func:`framework_of` answers."""


def _roots(obj: object) -> list[tuple[str, str]]:
    """(top-level package, class name) of every class in ``obj``'s type's MRO."""
    return [((getattr(c, "__module__", "") or "").split(".")[0], c.__name__)
            for c in type(obj).__mro__]


def framework_of(obj: object) -> str:
    """``torch``, ``keras`` or ``flax`` for a model of that framework, read from the module
    names of its type's classes (a user's subclass of ``nn.Module`` is a torch model)."""
    for root, name in _roots(obj):
        if root == "torch" and name == "Module":
            return "torch"
        if root in ("keras", "tf_keras", "tensorflow") and name in ("Layer", "Operation"):
            return "keras"
        if root == "flax" and name in ("Module", "Object", "Pytree"):
            return "flax"
    kind = type(obj)
    raise ParamcountError(
        f"a {kind.__module__}.{kind.__qualname__} is not a model paramcount.summary reads: "
        "give a torch nn.Module, a Keras model or layer, or a Flax module (with its params)")
