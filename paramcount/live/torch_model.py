"""A live torch ``nn.Module`` read through what its modules hold: parameters, buffers, modules.

Nothing is run and torch is not imported here. The module tree is walked from each module's
own ``_modules``, ``_parameters`` and ``_buffers`` (what ``parameters()`` itself reads), each
module once, so a module that is its own child or two modules that hold each other are walked
once; no ``__getattr__`` of the user's runs, and every call into the model is guarded
(``paramcount.live.guarded``): what could not be read is named in a note.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from paramcount.files.listing import NamedTensor
from paramcount.live import torch_layers
from paramcount.live.description import Kind, Live, LiveModule, LiveTensor
from paramcount.live.guarded import called, class_modules, class_name, own, why
from paramcount.live.torch_layers import items

_LAZY = ("UninitializedParameter", "UninitializedBuffer")
_ALIAS_BUDGET = 200_000
"""At most this many further names are given to modules reached by more than one path (the
counts never depend on them; a pathological web of shared modules is not walked forever)."""
_OVERRIDABLE = ("parameters", "named_parameters", "named_modules", "_named_members",
                "modules", "children", "named_children")


def _walk(model: object) -> tuple[list[tuple[str, Any]], list[tuple[str, Any]]]:
    """Every module once under its first path, in ``named_modules()``' order, and each further
    (path, module) by which a module already seen is reached (a shared module, a cycle)."""
    first: list[tuple[str, Any]] = []
    again: list[tuple[str, Any]] = []
    seen: set[int] = set()
    stack: list[tuple[str, Any]] = [("", model)]
    while stack:
        path, module = stack.pop()
        if id(module) in seen:
            again.append((path, module))
            continue
        seen.add(id(module))
        first.append((path, module))
        prefix = f"{path}." if path else ""
        stack.extend(reversed([(prefix + name, child)
                               for name, child in items(module, "_modules")]))
    return first, again


def _below(module: object, path: str) -> Iterator[tuple[str, Any]]:
    """``module`` and the modules under it with their paths below ``path``, each once."""
    seen: set[int] = set()
    stack = [(path, module)]
    while stack:
        here, node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        yield here, node
        stack.extend((f"{here}.{name}", child) for name, child in items(node, "_modules"))


_DTYPES: dict[Any, str] = {}
"""Each dtype object's name as numpy spells it (``float32``), once per dtype."""


def _dtype(tensor: Any) -> str:
    dtype = tensor.dtype
    try:
        return _DTYPES[dtype]
    except (KeyError, TypeError):  # new, or not hashable
        name = str(dtype).removeprefix("torch.")
        if len(_DTYPES) < 256:
            with contextlib.suppress(TypeError):
                _DTYPES[dtype] = name
        return name


_SIZE: list[type] = [type(None)]
"""torch.Size, once a tensor has shown it: a tuple of ints already."""


def _shape(tensor: Any) -> tuple[int, ...]:
    shape = tensor.shape
    if type(shape).__name__ == "Size" and type(shape).__module__ == "torch":
        _SIZE[0] = type(shape)
        return tuple(shape)
    return tuple(map(int, shape))


def _kind_of(value: Any) -> str:
    """The name of a tensor's class (``Parameter``, ``UninitializedParameter``), once per
    class."""
    kind = type(value)
    name = _CLASSES.get(kind)
    if name is None:
        name = class_name(value)
        if len(_CLASSES) < 256:
            _CLASSES[kind] = name
    return name


_CLASSES: dict[type, str] = {}


def read(model: Any) -> Live:
    """The tensors, modules and recurrent layers of ``model``, tied weights once."""
    failed: list[str] = []
    modules_found, repeats = _walk(model)
    first: dict[int, str] = {}
    aliases: dict[str, list[str]] = {}
    tensors: dict[str, tuple[NamedTensor, Kind]] = {}
    transient: set[str] = set()
    lazy: dict[Kind, list[str]] = {Kind.TRAINABLE: [], Kind.BUFFER: []}
    modules: list[LiveModule] = []
    trained, frozen, buffered = Kind.TRAINABLE, Kind.FROZEN, Kind.BUFFER
    classes, dtypes = _CLASSES, _DTYPES
    size: Any = _SIZE[0]
    for path, module in modules_found:
        prefix = f"{path}." if path else ""
        mine = []
        for field, buffer in (("_parameters", False), ("_buffers", True)):
            for name, value in items(module, field):
                # inline: this loop runs once per tensor (benchmarks/summary_speed.py)
                full = prefix + name
                key = id(value)
                known = first.get(key)
                if known is not None:
                    aliases.setdefault(known, []).append(full)
                    continue
                if (classes.get(type(value)) or _kind_of(value)) in _LAZY:
                    lazy[buffered if buffer else trained].append(full)
                    continue
                try:
                    trainable = not buffer and bool(value.requires_grad)
                    dims: Any = value.shape
                    if type(dims) is size:
                        dims = tuple(dims)
                    else:
                        dims, size = _shape(value), _SIZE[0]
                    tensor = NamedTensor(full, dims, dtypes.get(value.dtype) or _dtype(value),
                                         trainable)
                except Exception as error:
                    failed.append(f"{full} could not be read ({why(error)})")
                    continue
                first[key] = full
                tensors[full] = (tensor, buffered if buffer else
                                 trained if trainable else frozen)
                mine.append(full)
        unsaved = own(module, "_non_persistent_buffers_set", None)
        if unsaved:
            with contextlib.suppress(Exception):  # not iterable: every buffer taken as saved
                transient.update(prefix + str(n) for n in unsaved)
        modules.append(LiveModule(path, class_name(module), tuple(mine)))
    _alias_repeats(repeats, first, aliases)
    layers = torch_layers.read(modules_found)
    live = [LiveTensor(tensor, kind, tuple(aliases[n]) if n in aliases else (),
                       n not in transient) for n, (tensor, kind) in tensors.items()]
    live += [LiveTensor(t, Kind.PACKED) for t in layers.packed]
    parameters = [t for t, kind in tensors.values() if kind is not Kind.BUFFER]
    notes = [*layers.notes, *_lazy_note(lazy), *_wrapper_notes(model), *_dtype_note(parameters),
             *_override_note(model, parameters, failed)]
    if failed:
        notes.append("not read: " + "; ".join(failed[:5])
                     + (f" (and {len(failed) - 5} more)" if len(failed) > 5 else ""))
    return Live("torch", class_name(model), tuple(live), tuple(modules), notes=tuple(notes),
                config=_config(model, failed), candidates=layers.candidates)


def _alias_repeats(repeats: list[tuple[str, Any]], first: dict[int, str],
                   aliases: dict[str, list[str]]) -> None:
    """The further names a module reached by another path gives its tensors (torch's
    ``named_parameters(remove_duplicate=False)``), within :data:`_ALIAS_BUDGET`."""
    budget = _ALIAS_BUDGET
    for path, module in repeats:
        for here, node in _below(module, path):
            budget -= 1
            if budget < 0:
                return
            for field in ("_parameters", "_buffers"):
                for name, value in items(node, field):
                    known = first.get(id(value))
                    if known is not None and f"{here}.{name}" != known:
                        aliases.setdefault(known, []).append(f"{here}.{name}" if here else name)


def _lazy_note(lazy: dict[Kind, list[str]]) -> list[str]:
    """What lazy modules hold before their first forward pass, parameters and buffers apart."""
    params, buffers = lazy[Kind.TRAINABLE], lazy[Kind.BUFFER]
    if not params and not buffers:
        return []

    def some(names: list[str], one: str, many: str) -> str:
        shown = ", ".join(names[:3]) + (" ..." if len(names) > 3 else "")
        return f"{len(names)} {one if len(names) == 1 else many} ({shown})"

    held = " and ".join([*([some(params, "parameter", "parameters")] if params else []),
                         *([some(buffers, "buffer", "buffers")] if buffers else [])])
    verb = "is" if len(params) + len(buffers) == 1 else "are"
    return [f"{held} {verb} not yet initialized (lazy modules): their sizes exist only after "
            "the first forward pass, so they are not counted"]


_NARROW = ("int", "uint", "qint", "quint", "float8", "float6", "float4", "bool")


def _dtype_note(parameters: list[NamedTensor]) -> list[str]:
    """The parameters by dtype where some are held as integers or 8-bit floats or narrower
    (a quantized model's int8 / fp8 weights): counted as they are held."""
    if not any(d.startswith(_NARROW) for d in {t.dtype or "?" for t in parameters}):
        return []
    by_dtype: dict[str, int] = {}
    for tensor in parameters:
        by_dtype[tensor.dtype or "?"] = by_dtype.get(tensor.dtype or "?", 0) + tensor.count
    return ["parameters by dtype, as the model holds them: "
            + ", ".join(f"{count:,} {dtype}" for dtype, count in by_dtype.items())]


def _wrapper_notes(model: object) -> list[str]:
    """What a wrapper around the model is: torch.compile's and DataParallel's own module
    holds the model, its names one prefix longer; nothing was saved."""
    kind = class_name(model)
    inner = dict(items(model, "_modules"))
    if kind == "OptimizedModule" and "_orig_mod" in inner:
        return [f"a torch.compile'd model: its parameters are its original module's "
                f"({class_name(inner['_orig_mod'])}, under _orig_mod)"]
    if kind in ("DataParallel", "DistributedDataParallel") and "module" in inner:
        return [f"an nn.{kind} wrapper: its parameters are the wrapped module's "
                f"({class_name(inner['module'])}, under module)"]
    return []


def _overridden(model: object) -> str | None:
    """The user's class that overrides how torch lists parameters, where one does."""
    for klass, (module, name) in zip(type(model).__mro__, class_modules(model), strict=True):
        if module.startswith("torch."):
            return None
        if any(method in klass.__dict__ for method in _OVERRIDABLE):
            return name
    return None


def _override_note(model: Any, parameters: list[NamedTensor], failed: list[str]) -> list[str]:
    """Where the model's class overrides ``parameters`` or ``named_parameters``: torch's own
    ``parameters()`` asked (as the override accepts it), and said where it differs."""
    klass = _overridden(model)
    if klass is None:
        return []
    found = called(lambda: list(model.parameters()), failed, f"{klass}.parameters()")
    if found is None:
        return []
    total = sum(t.count for t in parameters)
    try:
        unique = {id(p): p for p in found}
        reported = sum(int(p.numel()) for p in unique.values())
    except Exception as error:
        failed.append(f"{klass}.parameters() gave what is not tensors ({why(error)})")
        return []
    if reported == total:
        return []
    return [f"{klass} overrides how torch lists its parameters: model.parameters() gives "
            f"{reported:,}, its modules hold {total:,} (counted here)"]


def _config(model: object, failed: list[str]) -> dict[str, Any] | None:
    """A Hugging Face model's ``config.to_dict()``, read without running ``__getattr__``."""
    config = own(model, "config")
    to_dict = own(config, "to_dict") if config is not None else None
    if not callable(to_dict):
        return None
    data = called(to_dict, failed, "config.to_dict()")
    return data if isinstance(data, dict) else None
