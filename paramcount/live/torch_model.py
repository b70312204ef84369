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


def _dtype(tensor: Any) -> str:
    return str(tensor.dtype).removeprefix("torch.")


def _shape(tensor: Any) -> tuple[int, ...]:
    return tuple(int(d) for d in tensor.shape)


def read(model: Any) -> Live:
    """The tensors, modules and recurrent layers of ``model``, tied weights once."""
    failed: list[str] = []
    modules_found, repeats = _walk(model)
    first: dict[int, str] = {}
    aliases: dict[str, list[str]] = {}
    kinds: dict[str, Kind] = {}
    tensors: dict[str, NamedTensor] = {}
    transient: set[str] = set()
    lazy: dict[Kind, list[str]] = {Kind.TRAINABLE: [], Kind.BUFFER: []}
    modules: list[LiveModule] = []
    for path, module in modules_found:
        prefix = f"{path}." if path else ""
        mine = []
        for field, buffer in (("_parameters", False), ("_buffers", True)):
            for name, value in items(module, field):
                full = prefix + name
                if id(value) in first:
                    aliases[first[id(value)]].append(full)
                    continue
                if class_name(value) in _LAZY:
                    lazy[Kind.BUFFER if buffer else Kind.TRAINABLE].append(full)
                    continue
                try:
                    tensor = NamedTensor(full, _shape(value), _dtype(value),
                                         not buffer and bool(value.requires_grad))
                except Exception as error:
                    failed.append(f"{full} could not be read ({why(error)})")
                    continue
                first[id(value)] = full
                aliases[full] = []
                kinds[full] = Kind.BUFFER if buffer else (
                    Kind.TRAINABLE if tensor.trainable else Kind.FROZEN)
                tensors[full] = tensor
                mine.append(full)
        with contextlib.suppress(Exception):  # not iterable: every buffer taken as saved
            transient.update(prefix + str(n) for n in
                             own(module, "_non_persistent_buffers_set", None) or ())
        modules.append(LiveModule(path, class_name(module), tuple(mine)))
    _alias_repeats(repeats, first, aliases)
    layers = torch_layers.read(modules_found, tensors)
    order = [n for m in modules for n in m.tensors]
    live = [LiveTensor(tensors[n], kinds[n], tuple(aliases[n]), n not in transient)
            for n in order]
    live += [LiveTensor(t, Kind.PACKED) for t in layers.packed]
    notes = [*layers.notes, *_lazy_note(lazy), *_wrapper_notes(model),
             *_dtype_note([tensors[n] for n in order if kinds[n] is not Kind.BUFFER])]
    notes += _override_note(model, sum(tensors[n].count for n in order
                                       if kinds[n] is not Kind.BUFFER), failed)
    if failed:
        notes.append("not read: " + "; ".join(failed[:5])
                     + (f" (and {len(failed) - 5} more)" if len(failed) > 5 else ""))
    return Live("torch", class_name(model), tuple(live), tuple(modules),
                layers.recognised, layers.classes, tuple(notes), _config(model, failed),
                hidden=layers.hidden)


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
                        aliases[known].append(f"{here}.{name}" if here else name)


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
    by_dtype: dict[str, int] = {}
    for tensor in parameters:
        by_dtype[tensor.dtype or "?"] = by_dtype.get(tensor.dtype or "?", 0) + tensor.count
    if not any(d.startswith(_NARROW) for d in by_dtype):
        return []
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


def _override_note(model: Any, total: int, failed: list[str]) -> list[str]:
    """Where the model's class overrides ``parameters`` or ``named_parameters``: torch's own
    ``parameters()`` asked (as the override accepts it), and said where it differs."""
    klass = _overridden(model)
    if klass is None:
        return []
    found = called(lambda: list(model.parameters()), failed, f"{klass}.parameters()")
    if found is None:
        return []
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
