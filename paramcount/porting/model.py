"""The user's own target model (``--model module:function``): built, read, and matched by structure.

The factory is imported as ``check``'s factories are (``paramcount.factories.factory.resolve``,
the current folder on the path) and called with ``--kwargs``, behind the same fence: the whole
port runs in a fenced child (:mod:`paramcount.cli.fenced`), each factory call within
``--factory-timeout``. Its tensors' names and shapes are
read the way a source file's are (recurrent layers by ``conventions.recognise``, the others by
``units.recognise``), with what only the model says (a layer's class, a norm's epsilon) taken
from the model. :func:`match` then pairs the source's layers with the model's by order, kind and
shapes, and refuses a pairing that structure alone cannot decide.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from paramcount.engine import conventions
from paramcount.engine.conventions.base import Direction
from paramcount.engine.spec import Framework
from paramcount.errors import ParamcountError
from paramcount.porting.layouts import Side
from paramcount.porting.load import side_of
from paramcount.porting.units import Kind, Unit, named_by, recognise
from paramcount.record import replace

Layer = Side | Unit
"""One layer of a source or a model: a recurrent stack, or a common layer."""


class ModelError(ParamcountError):
    """A target model that cannot be built, read or matched to the source."""


@dataclass
class TargetModel:
    """The user's model: its tensors in order and the layers they form."""

    framework: Framework
    factory: str
    model: Any
    """The built model (torch module, Keras model, Flax linen module)."""
    shapes: dict[str, tuple[int, ...]]
    layers: list[Layer]
    unread: list[str] = field(default_factory=list)
    """Tensors of layers port does not map."""
    example: Any = None
    """The example input the model was initialised with (Flax)."""


def parse_kwargs(text: str | None, option: str = "--kwargs") -> dict[str, Any]:
    """``--kwargs '{"hidden": 64}'``: a JSON object of keyword arguments."""
    if not text:
        return {}
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        raise ModelError(f"{option} {text}: not JSON ({error.msg} at {error.pos})") from None
    if not isinstance(value, dict):
        raise ModelError(f"{option} {text}: expected a JSON object such as "
                         "'{\"hidden\": 64}'")
    return value


def build(factory: str, kwargs: dict[str, Any], framework: Framework,
          first: Layer | None, option: str = "--model") -> TargetModel:
    """Call ``factory`` and read the model it returns in ``framework``'s convention
    (``option`` names it in errors)."""
    from paramcount.factories.factory import FactoryError, import_path, one_line, resolve
    from paramcount.factories.fence import time_limit

    if ":" not in factory:
        raise ModelError(f"{option} {factory}: expected module:function")
    if framework not in _READERS:
        raise ModelError(f"{option} builds a torch, Keras or Flax linen model, not "
                         f"{framework.display_name}")
    folders = [os.getcwd()]
    try:
        function = resolve(factory, folders)
    except FactoryError as error:
        raise ModelError(f"{option} {factory}: {error}") from None
    with import_path(folders):
        _quiet_keras(framework)
        try:
            with time_limit(f"{option} {factory}"):
                model = function(**kwargs)
        except BaseException as error:  # the user's code: any failure is theirs, in one line
            raise ModelError(f"{option} {factory}(...) raised {one_line(error)}") from None
        return _READERS[framework](factory, model, first)


def _quiet_keras(framework: Framework) -> None:
    """Keras loaded quietly, in a fresh session (its layers are named as a new program's)."""
    if framework is Framework.KERAS:
        from paramcount.verify.keras_backend import load

        load().backend.clear_session()


def _layers(shapes: dict[str, tuple[int, ...]], framework: Framework,
            kinds: dict[str, tuple[Kind | None, float | None, float | None]]
            ) -> tuple[list[Layer], list[str]]:
    """The model's layers in order, read from its tensors; and the tensors of no known layer."""
    recurrent = [side_of(r) for r in conventions.recognise(shapes, (framework,))]
    taken = {s.name(t) for s in recurrent for t in conventions.tensors(s.spec)}
    units, unread = recognise({n: s for n, s in shapes.items() if n not in taken}, framework)
    known: list[Layer] = list(recurrent)
    for unit in units:
        kind, eps, momentum = kinds.get(unit.prefix, (None, None, None))
        if kind is not None and kind in (unit.kind, *unit.alternatives):
            unit = replace(unit, kind=kind, alternatives=())
        elif kind is None and unit.alternatives:
            unit = named_by(unit)
        if kind is not None and kind not in (unit.kind, *unit.alternatives):
            unread += list(unit.names)
            continue
        known.append(replace(unit, eps=eps, momentum=momentum))
    position = {name: index for index, name in enumerate(shapes)}
    known.sort(key=lambda layer: min(position.get(n, len(position)) for n in names(layer)))
    return known, unread


def names(layer: Layer) -> list[str]:
    """The names of a layer's tensors."""
    if isinstance(layer, Unit):
        return list(layer.names)
    return [layer.name(t) for t in conventions.tensors(layer.spec)]


# ------------------------------------------------------------------------------------ torch


def _torch(factory: str, model: Any, first: Layer | None) -> TargetModel:
    import torch

    if not isinstance(model, torch.nn.Module):
        raise ModelError(f"--model {factory} returned a {type(model).__name__}, not a torch "
                         "nn.Module")
    kinds: dict[str, tuple[Kind | None, float | None, float | None]] = {}
    classes = {torch.nn.Linear: Kind.LINEAR, torch.nn.Embedding: Kind.EMBEDDING,
               torch.nn.Conv1d: Kind.CONV, torch.nn.Conv2d: Kind.CONV,
               torch.nn.Conv3d: Kind.CONV, torch.nn.BatchNorm1d: Kind.BATCHNORM,
               torch.nn.BatchNorm2d: Kind.BATCHNORM, torch.nn.BatchNorm3d: Kind.BATCHNORM,
               torch.nn.LayerNorm: Kind.NORM}
    for name, module in model.named_modules():
        kind = classes.get(type(module))
        if kind is None:
            continue
        eps = getattr(module, "eps", None)
        momentum = getattr(module, "momentum", None) if kind is Kind.BATCHNORM else None
        kinds[f"{name}." if name else ""] = (kind, eps, momentum)
    shapes = {k: tuple(int(d) for d in v.shape) for k, v in model.state_dict().items()}
    layers, unread = _layers(shapes, Framework.TORCH, kinds)
    return TargetModel(Framework.TORCH, factory, model, shapes, layers, unread)


# ------------------------------------------------------------------------------------ Keras


def _keras(factory: str, model: Any, first: Layer | None) -> TargetModel:
    import keras

    if not isinstance(model, keras.layers.Layer):
        raise ModelError(f"--model {factory} returned a {type(model).__name__}, not a Keras "
                         "model")
    if not model.built:
        raise ModelError(f"--model {factory} returned a Keras model that is not built: start it "
                         "with keras.Input(shape=...)")
    kinds: dict[str, tuple[Kind | None, float | None, float | None]] = {}
    classes = {keras.layers.Dense: Kind.LINEAR, keras.layers.Embedding: Kind.EMBEDDING,
               keras.layers.Conv1D: Kind.CONV, keras.layers.Conv2D: Kind.CONV,
               keras.layers.Conv3D: Kind.CONV,
               keras.layers.BatchNormalization: Kind.BATCHNORM,
               keras.layers.LayerNormalization: Kind.NORM}
    for layer in _keras_layers(model):
        kind = classes.get(type(layer))
        if kind is None or not layer.weights:
            continue
        eps = getattr(layer, "epsilon", None)
        momentum = 1 - float(layer.momentum) if kind is Kind.BATCHNORM else None
        prefix = layer.weights[0].path.rpartition("/")[0] + "/"
        kinds[prefix] = (kind, eps, None if momentum is None else round(momentum, 12))
    shapes = {v.path: tuple(int(d) for d in v.shape) for v in model.weights}
    layers, unread = _layers(shapes, Framework.KERAS, kinds)
    return TargetModel(Framework.KERAS, factory, model, shapes, layers, unread)


def _keras_layers(model: Any) -> list[Any]:
    import keras

    found = []
    for layer in getattr(model, "layers", [model]):
        if isinstance(layer, keras.Model):
            found += _keras_layers(layer)
        else:
            found.append(layer)
    return found


# ------------------------------------------------------------------------------------- Flax


def example_input(first: Layer | None) -> Any:
    """An input the model's first layer reads: token ids for an embedding, else floats [N, T, …]."""
    import numpy as np

    if isinstance(first, Unit) and first.kind is Kind.EMBEDDING:
        return np.zeros((1, 4), dtype=np.int32)
    if isinstance(first, Unit) and first.kind is Kind.CONV:
        weight = first.canonical("weight")
        return np.zeros((1, *(4,) * first.rank, weight[1]), dtype=np.float32)
    if isinstance(first, Unit):
        return np.zeros((1, 4, first.canonical("weight")[-1]), dtype=np.float32)
    width = first.spec.input_size if first is not None else 1
    return np.zeros((1, 4, width), dtype=np.float32)


def _flax(factory: str, model: Any, first: Layer | None) -> TargetModel:
    from paramcount.verify.flax_backend import load_flax

    jax, _, linen, _ = load_flax()
    if not isinstance(model, linen.Module):
        raise ModelError(f"--model {factory} returned a {type(model).__name__}, not a Flax "
                         "linen Module")
    example = example_input(first)
    called: list[str] = []

    def record(method: Any, args: Any, kwargs: Any, context: Any) -> Any:
        path = "/".join(getattr(context.module, "path", ()))
        if path not in called:
            called.append(path)
        return method(*args, **kwargs)

    try:
        with linen.intercept_methods(record):
            variables = jax.eval_shape(model.init, jax.random.key(0), example)
    except Exception as error:
        from paramcount.factories.factory import one_line

        raise ModelError(f"--model {factory}: init on an input {example.shape} "
                         f"({example.dtype}) raised {one_line(error)}") from None
    shapes = {name: tuple(int(d) for d in leaf.shape) for name, leaf in flat(variables)}
    shapes = dict(sorted(shapes.items(), key=lambda item: _called_at(item[0], called)))
    layers, unread = _layers(shapes, Framework.FLAX_LINEN, {})
    return TargetModel(Framework.FLAX_LINEN, factory, model, shapes, layers, unread, example)


def _called_at(name: str, called: list[str]) -> int:
    """When the module holding ``params/a/b/kernel`` was first called (Flax sorts its
    variables by name; a model's layers are matched in the order they run)."""
    parts = name.split("/")[1:-1]
    while parts and "/".join(parts) not in called:
        parts.pop()
    path = "/".join(parts)
    return called.index(path) if path in called else len(called)


def flat(tree: Any, prefix: str = "") -> list[tuple[str, Any]]:
    """A nested mapping's leaves as ``a/b/c`` paths, in order."""
    if hasattr(tree, "items"):
        found = []
        for key, value in tree.items():
            found += flat(value, f"{prefix}{key}/")
        return found
    return [(prefix.rstrip("/"), tree)]


_READERS = {Framework.TORCH: _torch, Framework.KERAS: _keras, Framework.FLAX_LINEN: _flax}


# ---------------------------------------------------------------------------------- matching


def signature(layer: Layer) -> tuple[Any, ...]:
    """What must agree for two layers to be ports of each other: kind and sizes, torch-ordered."""
    if isinstance(layer, Unit):
        shapes = tuple(sorted((role, layer.canonical(role)) for role, _, _ in layer.tensors
                              if role != "num_batches_tracked"))
        return (layer.kind, shapes)
    spec = layer.spec  # a cell is a one-layer unidirectional stack of one step at a time
    return (spec.cell, spec.input_size, spec.hidden_size, spec.num_layers, spec.directions,
            spec.proj_size)


def label(layer: Layer) -> str:
    """A layer as the plan names it: its path and what it is."""
    where = layer.prefix.rstrip("./") or "(top level)"
    what = layer.describe() if isinstance(layer, Unit) else conventions.describe(layer.spec)
    return f"{where} ({what})"


def _kinds(layer: Layer) -> tuple[Kind, ...]:
    return (layer.kind, *layer.alternatives) if isinstance(layer, Unit) else ()


def _fits(source: Layer, target: Layer) -> bool:
    if isinstance(source, Unit) != isinstance(target, Unit):
        return False
    if isinstance(source, Unit) and isinstance(target, Unit):
        return target.kind in _kinds(source) and \
            signature(replace(source, kind=target.kind)) == signature(target)
    return signature(source) == signature(target)


def _leftover(source: Layer, target: Layer) -> str | None:
    """Where ``target`` is ``source``'s layer but for tensors one of them holds and the other
    does not (a Dense without the Linear's bias): the refusal naming those tensors; else
    None."""
    if not (isinstance(source, Unit) and isinstance(target, Unit)) or \
            target.kind not in _kinds(source):
        return None
    ours = {role for role, _, _ in source.tensors if role != "num_batches_tracked"}
    theirs = {role for role, _, _ in target.tensors if role != "num_batches_tracked"}
    if ours == theirs or any(source.canonical(r) != target.canonical(r) for r in ours & theirs):
        return None
    if ours - theirs:
        extra = [(name, shape) for role, name, shape in source.tensors if role in ours - theirs]
        whose, other, where = "source's", target, "the model's"
    else:
        extra = [(name, shape) for role, name, shape in target.tensors if role in theirs - ours]
        whose, other, where = "model's", source, "the source's"
    listed = ", ".join(f"{name} {_shape(shape)}" for name, shape in extra)
    missing = " and ".join(sorted(ours ^ theirs))
    return (f"the {whose} {listed} {'has' if len(extra) == 1 else 'have'} no counterpart: "
            f"{where} {label(other)} is the same layer without a {missing}; give both the "
            "same tensors")


def _shape(shape: tuple[int, ...]) -> str:
    return "(" + ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"


def match(sources: Sequence[Layer], targets: Sequence[Layer]) -> list[tuple[Layer, Layer]]:
    """Each source layer paired with the model's: in order when the structures agree, else by
    kind and shapes where only one pairing fits; ModelError naming the choices otherwise."""
    if len(sources) == len(targets) and all(_fits(s, t) for s, t in zip(sources, targets,
                                                                         strict=True)):
        return list(zip(sources, targets, strict=True))
    pairs: list[tuple[Layer, Layer]] = []
    free = list(targets)
    for source in sources:
        fitting = [t for t in free if _fits(source, t)]
        if not fitting:
            near = [t for t in free if _leftover(source, t) is not None]
            if len(near) == 1:
                raise ModelError(_leftover(source, near[0]))
            raise ModelError(f"the source's {label(source)} has no counterpart in the model "
                             f"(its layers: {', '.join(label(t) for t in targets) or 'none'})")
        if len(fitting) > 1:
            raise ModelError(f"the source's {label(source)} could be the model's "
                             f"{' or '.join(label(t) for t in fitting)}, and their order does "
                             "not say which: make the model's layers follow the source's order")
        pairs.append((source, fitting[0]))
        free.remove(fitting[0])
    if free:
        raise ModelError(f"the model's {', '.join(label(t) for t in free)} "
                         f"{'has' if len(free) == 1 else 'have'} no counterpart in the source")
    return pairs


Atom = tuple[Side, int, Direction]
"""One layer and direction of a recurrent stack."""


def atoms(sides: Sequence[Side]) -> list[Atom]:
    """Every layer and direction of ``sides``, in order."""
    return [(side, layer, direction) for side in sides
            for layer in range(side.spec.num_layers)
            for direction in list(Direction)[: side.spec.directions]]


def _atom_signature(atom: Atom) -> tuple[Any, ...]:
    side, layer, _ = atom
    spec = side.spec
    return (spec.cell, conventions.input_widths(spec)[layer], spec.hidden_size, spec.proj_size)


def match_structures(sources: Sequence[Layer], targets: Sequence[Layer]
                     ) -> tuple[list[tuple[Layer, Layer]], list[tuple[Atom, Atom]]]:
    """Where the layers do not pair one to one: the common layers paired as :func:`match` does,
    and the recurrent ones direction by direction, in order (two unidirectional layers and one
    bidirectional layer, a stack and separate layers, a cell and a one-layer stack)."""
    units = match([s for s in sources if isinstance(s, Unit)],
                  [t for t in targets if isinstance(t, Unit)])
    ours = atoms([s for s in sources if isinstance(s, Side)])
    theirs = atoms([t for t in targets if isinstance(t, Side)])
    if len(ours) != len(theirs) or any(_atom_signature(a) != _atom_signature(b)
                                       for a, b in zip(ours, theirs, strict=False)):
        raise ModelError(
            "the recurrent layers differ: the source's "
            f"{', '.join(label(s) for s in sources if isinstance(s, Side)) or 'none'}, the "
            f"model's {', '.join(label(t) for t in targets if isinstance(t, Side)) or 'none'}")
    return units, list(zip(ours, theirs, strict=True))
