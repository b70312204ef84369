"""A live Keras model or layer (Keras 3 or tf-keras) read through its own weights and layers.

Nothing is run and Keras is not imported here. A recurrent layer's options come from its own
``get_config()``, read by the same code that reads a saved ``.keras`` file's config.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from paramcount.engine.conventions.base import Recognised
from paramcount.files import keras_file
from paramcount.files.listing import NamedTensor
from paramcount.live.description import Kind, Live, LiveModule, LiveTensor

_WRAPPERS = ("Bidirectional", *keras_file._CELLS)


def _name(weight: Any) -> str:
    """A weight's path (Keras 3: ``sequential/lstm/lstm_cell/kernel``), or its name without
    tf-keras' ``:0``."""
    path = getattr(weight, "path", None)
    return str(path if isinstance(path, str) and path else weight.name).removesuffix(":0")


def _dtype(weight: Any) -> str:
    dtype = weight.dtype
    return str(getattr(dtype, "name", dtype))


def layers(model: Any) -> Iterator[Any]:
    """``model`` and every layer inside it, parents before children, each once."""
    flatten = getattr(model, "_flatten_layers", None)
    if callable(flatten):
        yield from flatten(include_self=True, recursive=True)
        return
    seen: set[int] = set()
    stack = [model]
    while stack:
        layer = stack.pop(0)
        if id(layer) in seen:
            continue
        seen.add(id(layer))
        yield layer
        stack.extend(getattr(layer, "layers", None) or ())


def _path(layer: Any) -> str:
    path = getattr(layer, "path", None)
    return path if isinstance(path, str) and path else str(layer.name)


def read(model: Any) -> Live:
    """The weights, layers and recurrent layers of ``model``, shared layers' weights once."""
    trainable = {id(w) for w in model.trainable_weights}
    names: dict[int, str] = {}
    taken: set[str] = set()
    tensors: list[LiveTensor] = []
    for weight in model.weights:
        if id(weight) in names:
            continue
        name = _name(weight)
        while name in taken:
            name += "'"
        names[id(weight)] = name
        taken.add(name)
        kind = Kind.TRAINABLE if id(weight) in trainable else Kind.FROZEN
        tensors.append(LiveTensor(NamedTensor(name, tuple(int(d) for d in weight.shape),
                                              _dtype(weight), kind is Kind.TRAINABLE), kind))
    owner: dict[str, str] = {}
    found: list[tuple[str, str]] = []
    all_layers = list(layers(model))
    for layer in all_layers:
        if type(layer).__name__.endswith("Cell") and layer is not model:
            continue
        path = "" if layer is model else _path(layer)
        found.append((path, type(layer).__name__))
        for weight in layer.weights:
            if id(weight) in names:
                owner[names[id(weight)]] = path
    order = {name: k for k, name in enumerate(names.values())}
    held: dict[str, list[str]] = {}
    for tensor_name, path in owner.items():
        held.setdefault(path, []).append(tensor_name)
    modules = tuple(sorted(
        (LiveModule(path, kind, tuple(held.get(path, ()))) for path, kind in found),
        key=lambda m: min((order[n] for n in m.tensors), default=-1)))
    notes: list[str] = []
    recognised: list[Recognised] = []
    classes: list[tuple[str, str]] = []
    claimed: set[str] = set()
    hidden: set[str] = set()
    by_name = {t.tensor.name: t.tensor for t in tensors}
    for layer in all_layers:
        klass = type(layer).__name__
        if klass not in _WRAPPERS and not keras_file._CONV.fullmatch(klass):
            continue
        mine = [by_name[names[id(w)]] for w in layer.weights if id(w) in names]
        if not mine or any(t.name in claimed for t in mine):
            continue
        try:
            config = layer.get_config()
        except Exception as error:  # a user's layer may not serialise; its shapes still read
            notes.append(f"{_path(layer)} ({klass}): get_config() failed ({error}), so it is "
                         "recognised from its weights' shapes only, where they tell")
            continue
        kinds = dict(found)
        for item in keras_file._recognise(str(layer.name), klass, config, mine, notes):
            recognised.append(item)
            classes.append((item.prefix, kinds.get(item.prefix.rstrip("/"), klass)))
            claimed.update(item.names)
        if _is_conv(klass, config):  # a note describes it: no layer for the tensors to match
            hidden.update(t.name for t in mine)
    unbuilt = [_path(layer) for layer in all_layers
               if not getattr(layer, "built", True) and not type(layer).__name__.endswith("Cell")]
    if unbuilt:
        notes.append(f"{len(unbuilt)} {'layer is' if len(unbuilt) == 1 else 'layers are'} "
                     f"not built ({', '.join(unbuilt[:3])}"
                     f"{' ...' if len(unbuilt) > 3 else ''}): Keras makes their weights only "
                     "once it knows the input's shape (build the model, or give keras.Input), "
                     "so they are not counted")
    try:
        reported: int | None = int(model.count_params())
    except ValueError:  # an unbuilt model refuses to count
        reported = None
    return Live("keras", type(model).__name__, tuple(tensors), modules, tuple(recognised),
                tuple(classes), tuple(notes), reported=reported, hidden=frozenset(hidden))


def _is_conv(klass: str, config: Any) -> bool:
    """Whether a layer is a ConvLSTM, bare or under Bidirectional."""
    inner = config.get("layer") if klass == "Bidirectional" and isinstance(config, dict) else None
    if isinstance(inner, dict):
        klass = str(inner.get("class_name", ""))
    return bool(keras_file._CONV.fullmatch(klass))
