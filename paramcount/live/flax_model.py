"""A live Flax model read without running it: an NNX module's own variables, or a linen
module with the variables ``init`` gave (linen modules hold none themselves).

Nothing is imported here but what the model's own package already loaded (``flax.nnx``'s
graph walk for an NNX module); a linen variables tree is walked as the plain mapping it is.
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Mapping
from typing import Any

from paramcount.engine import conventions
from paramcount.engine.conventions.base import Recognised
from paramcount.errors import ParamcountError
from paramcount.files.listing import NamedTensor
from paramcount.live.description import Kind, Live, LiveModule, LiveTensor
from paramcount.live.guarded import own
from paramcount.record import fields

_SKIPPED = ("RngState", "RngKey", "RngCount")


def _classes(obj: object) -> set[str]:
    return {c.__name__ for c in type(obj).__mro__}


def _tensor(name: str, value: Any, kind: Kind) -> LiveTensor:
    dtype = getattr(value, "dtype", None)
    return LiveTensor(NamedTensor(name, tuple(int(d) for d in value.shape),
                                  None if dtype is None else str(dtype),
                                  kind is Kind.TRAINABLE), kind)


def read(model: Any, variables: Any = None) -> Live:
    """``model``'s variables: an NNX module's own, or a linen module's ``variables``."""
    modules = {c.__module__ for c in type(model).__mro__}
    if any(m.startswith("flax.nnx") for m in modules):
        if variables is not None:
            raise ParamcountError("an NNX module holds its own variables: call "
                                  "paramcount.summary(model) without params")
        return _nnx(model)
    if variables is None:
        raise ParamcountError(
            f"a linen {type(model).__name__} holds no parameters itself: give the variables "
            "its init returned, paramcount.summary(model, variables) (jax.eval_shape(model."
            "init, ...) gives them without computing any)")
    return _linen(model, variables)


def _linen(model: Any, variables: Any) -> Live:
    """The leaves of a linen variables tree: ``params`` trainable, other collections
    (``batch_stats``) buffers; a bare params tree is taken as the ``params`` collection."""
    if not isinstance(variables, Mapping):
        raise ParamcountError(f"params must be the variables mapping init returned, not a "
                              f"{type(variables).__name__}")
    if "params" not in variables:
        variables = {"params": variables}
    tensors: list[LiveTensor] = []

    def walk(node: Any, path: str, kind: Kind) -> None:
        if isinstance(node, Mapping):
            for key, child in node.items():
                walk(child, f"{path}/{key}" if path else str(key), kind)
        elif hasattr(node, "shape"):
            tensors.append(_tensor(path, node, kind))

    for collection, tree in variables.items():
        walk(tree, str(collection), Kind.TRAINABLE if collection == "params" else Kind.BUFFER)
    return Live("flax", type(model).__name__, tuple(tensors), _modules(tensors, {}),
                activations=tuple(_linen_activations(model, "params")))


def _activation(cell: Any) -> str | None:
    """A SimpleCell's activation function's name (``relu``), or None for another module."""
    if "SimpleCell" not in _classes(cell):
        return None
    name = getattr(getattr(cell, "activation_fn", None), "__name__", None)
    return name if isinstance(name, str) else None


def _linen_activations(module: Any, path: str, depth: int = 0) -> list[tuple[str, str]]:
    """Each SimpleCell under a linen module with its parameters' path, named as linen names
    submodules given as attributes: the attribute (``forward_rnn``), ``layers_0`` in a list."""
    found = []
    activation = _activation(module)
    if activation is not None:
        found.append((path, activation))
    if depth > 50 or not dataclasses.is_dataclass(module):
        return found
    for name in fields(module):
        if name in ("parent", "name"):
            continue
        value = getattr(module, name, None)
        children = ([(f"{name}_{k}", v) for k, v in enumerate(value)]
                    if isinstance(value, (list, tuple)) else [(name, value)])
        for label, child in children:
            if "Module" in _classes(child):
                own = getattr(child, "name", None)
                found += _linen_activations(child, f"{path}/{own or label}", depth + 1)
    return found


def _nnx(model: Any) -> Live:
    """An NNX module's variables by the graph's own walk (a shared one once): ``Param``
    trainable, ``BatchStat`` and other state buffers, random-number state left out."""
    nnx = sys.modules.get("flax.nnx")
    if nnx is None:  # the module's own package is loaded; this cannot happen
        raise ParamcountError("flax.nnx is not loaded, so this NNX module cannot be walked")
    tensors: list[LiveTensor] = []
    kinds: dict[str, str] = {}
    activations = []
    shared: list[tuple[str, Any]] = []
    for path, node in nnx.iter_graph(model):
        name = "/".join(str(p) for p in path)
        classes = _classes(node)
        if "Bidirectional" in classes:
            shared.append((name, node))
        activation = _activation(node)
        if activation is not None:
            activations.append((name, activation))
        if "Variable" in classes and not classes & set(_SKIPPED):
            value = node if hasattr(node, "shape") else node.get_value()
            tensors.append(_tensor(name, value, Kind.TRAINABLE if "Param" in classes
                                   else Kind.BUFFER))
        elif "Module" in classes:
            kinds[name] = type(node).__name__
    recognised = _shared_cells(shared, tensors)
    return Live("flax", type(model).__name__, tuple(tensors), _modules(tensors, kinds),
                recognised, tuple((r.prefix, "RNN") for r in recognised),
                activations=tuple(activations))


def _shared_cells(bidirectionals: list[tuple[str, Any]], tensors: list[LiveTensor]
                  ) -> tuple[Recognised, ...]:
    """Each nnx.Bidirectional whose two RNNs share one cell: the cell recognised once, as the
    one-directional layer it is (NNX holds and counts its weights once), and said."""
    found: list[Recognised] = []
    for path, node in bidirectionals:
        forward, backward = own(node, "forward_rnn"), own(node, "backward_rnn")
        cell = own(forward, "cell")
        if cell is None or cell is not own(backward, "cell"):
            continue
        base = f"{path}/" if path else ""
        for side in ("forward_rnn", "backward_rnn"):
            under = base + side + "/"
            mine = {t.tensor.name: t.tensor.shape for t in tensors
                    if t.tensor.name.startswith(under)}
            if not mine:
                continue
            layers = conventions.recognise({n[len(under):]: s for n, s in mine.items()})
            if len(layers) == 1 and not layers[0].prefix:
                found.append(Recognised(under, layers[0].spec, tuple(mine), (
                    *layers[0].notes, f"one {type(cell).__name__} shared by both directions "
                    f"of {path or 'the model'} (nnx.Bidirectional): its weights held once, "
                    "counted once")))
            break
    return tuple(found)


def _modules(tensors: list[LiveTensor], kinds: dict[str, str]) -> tuple[LiveModule, ...]:
    """Each directory holding tensors, in the tensors' order, with its class where known."""
    held: dict[str, list[str]] = {}
    for item in tensors:
        name = item.tensor.name
        held.setdefault(name.rpartition("/")[0], []).append(name)
    return tuple(LiveModule(path, kinds.get(path, ""), tuple(names))
                 for path, names in held.items())
