"""Models made by the user's own code (``factory = "pkg.mod:callable"``), counted module by module.

PyTorch models are built under ``torch.device("meta")`` (shapes, no storage), Keras models inside
``keras.StatelessScope(initialize_variables=False)`` after a fresh session (variables get shapes,
no values). Every parameter is counted, whatever the layer; recurrent modules are recognised by
their type and described as a :class:`LayerSpec` read from their constructor attributes.
Frameworks are imported inside the functions here, only when a factory is built.
"""

from __future__ import annotations

import contextlib
import importlib
import math
import sys
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from paramcount.engine.spec import Cell, Framework, LayerSpec, MergeMode, Nonlinearity
from paramcount.errors import SpecError


@dataclass(frozen=True)
class Module:
    """One row of a whole model: a module (torch) or layer (Keras) and what it holds."""

    name: str
    """Its qualified name: ``encoder.rnn`` (torch), ``bidirectional`` or ``block/dense`` (Keras)."""
    type: str
    """Its class: ``LSTM``, ``Linear``, ``Bidirectional``."""
    params: int
    """Parameters it holds (Keras: every weight, trainable or not, as ``count_params``)."""
    non_trainable: int = 0
    """Of ``params``, those not trained (Keras' moving statistics, torch's frozen parameters)."""
    buffers: int = 0
    """Elements of torch buffers (BatchNorm's running statistics), not parameters."""
    output: str | None = None
    """Its output width (torch, from its attributes) or shape (Keras, as Keras reports it)."""
    spec: LayerSpec | None = None
    """The recurrent stack it is, when it is one."""


@dataclass(frozen=True)
class Built:
    """A whole model as its framework built it: every module, and the totals."""

    framework: Framework
    type: str
    """The model's class name."""
    modules: tuple[Module, ...]
    total: int
    """Every parameter, each counted once."""
    non_trainable: int = 0
    buffers: int = 0


class FactoryError(Exception):
    """A factory that cannot be imported, called or measured; ``key`` is the config key at fault."""

    def __init__(self, message: str, key: str = "factory") -> None:
        super().__init__(message)
        self.key = key


def one_line(error: BaseException) -> str:
    """``ValueError: hidden must be positive``: the exception's type and first line."""
    text = str(error).strip()
    first = text.splitlines()[0] if text else ""
    if len(first) > 200:
        first = first[:197] + "..."
    return f"{type(error).__name__}: {first}" if first else type(error).__name__


@contextlib.contextmanager
def import_path(folders: Sequence[str]) -> Iterator[None]:
    """Put ``folders`` first on ``sys.path`` for the duration, then restore it exactly."""
    saved = list(sys.path)
    sys.path[:0] = list(dict.fromkeys(folders))
    importlib.invalidate_caches()
    try:
        yield
    finally:
        sys.path[:] = saved


def resolve(target: str, folders: Sequence[str]) -> Callable[..., Any]:
    """The function or class named ``module:name`` (imported with ``folders`` on the path).

    It must be defined in that module's own source (``Model.create`` on a class defined there
    too): an attribute the module merely holds (``os:system``, ``mod:os.system``, a name it
    imports from elsewhere) is refused, so a config names the code it runs where it is written.
    """
    module_name, _, attribute = target.partition(":")
    with import_path(folders):
        try:
            module = importlib.import_module(module_name)
        except BaseException as error:  # an import runs user code: any failure is theirs
            if isinstance(error, KeyboardInterrupt):
                raise
            raise FactoryError(f"cannot import {module_name}: {one_line(error)}") from None
    obj: Any = module
    for part in attribute.split("."):
        if not hasattr(obj, part):
            import difflib

            close = difflib.get_close_matches(part, [n for n in dir(obj)
                                                     if not n.startswith("_")], n=1)
            hint = f". Did you mean '{close[0]}'?" if close else ""
            raise FactoryError(f"{module_name} has no attribute {attribute!r}{hint}")
        obj = getattr(obj, part)
        _defined_in(obj, module_name, target)
    if not callable(obj):
        raise FactoryError(f"{target} is not callable (a {type(obj).__name__})")
    result: Callable[..., Any] = obj
    return result


def _defined_in(obj: Any, module_name: str, target: str) -> None:
    """Refuse what ``module_name``'s own source does not define: a module, a builtin, an
    object, or a function or class written elsewhere (named where it is written instead)."""
    import types

    if isinstance(obj, types.MethodType):  # a classmethod, reached through its class
        obj = obj.__func__
    if not isinstance(obj, (type, types.FunctionType)):
        raise FactoryError(f"{target} is a {type(obj).__name__}, not a function or class "
                           f"defined in {module_name}: name a function or class written there")
    home = getattr(obj, "__module__", None)
    if home != module_name:
        where = f'"{home}:{obj.__qualname__}"' if isinstance(home, str) else "its own module"
        raise FactoryError(f"{target} is defined in {home or 'no module'}, not in "
                           f"{module_name}: a factory is named where it is written "
                           f"(factory = {where})")


def _call(factory: Callable[..., Any], target: str, kwargs: Mapping[str, Any]) -> Any:
    try:
        return factory(**kwargs)
    except BaseException as error:
        if isinstance(error, KeyboardInterrupt):
            raise
        raise FactoryError(f"{target}(...) raised {one_line(error)}") from None


def build_here(target: str, kwargs: Mapping[str, Any], framework: Framework,
               folders: Sequence[str]) -> Built:
    """Call the factory ``target`` with ``kwargs`` in this process and count the model it
    returns (``check`` calls it inside :mod:`paramcount.factories.fence`'s child process)."""
    factory = resolve(target, folders)
    with import_path(folders):  # a factory may import its own modules lazily
        if framework is Framework.KERAS:
            return _keras(factory, target, kwargs)
        return _torch(factory, target, kwargs)


# ------------------------------------------------------------------------------------ PyTorch


def _torch(factory: Callable[..., Any], target: str, kwargs: Mapping[str, Any]) -> Built:
    import torch

    with torch.device("meta"):
        model = _call(factory, target, kwargs)
    if not isinstance(model, torch.nn.Module):
        hint = (" (a Keras model: set framework = \"keras\")"
                if type(model).__module__.startswith(("keras", "tensorflow")) else "")
        raise FactoryError(f"{target} returned a {type(model).__name__}, not a torch "
                           f"nn.Module{hint}")
    return torch_modules(model)


def torch_modules(model: Any) -> Built:
    """Every parameter of a torch module, row by row: recurrent modules whole, others by owner."""
    seen: set[int] = set()
    rows: list[Module] = []

    def own(tensors: Iterator[Any]) -> tuple[int, int]:
        """(elements, of which frozen) of tensors not counted before."""
        count = frozen = 0
        for tensor in tensors:
            if id(tensor) in seen:
                continue
            seen.add(id(tensor))
            count += tensor.numel()
            frozen += 0 if getattr(tensor, "requires_grad", True) else tensor.numel()
        return count, frozen

    def walk(module: Any, name: str) -> None:
        spec = torch_spec(module)
        children = list(module.named_children())
        if spec is not None or not children:
            params, frozen = own(module.parameters())
            buffers, _ = own(module.buffers())
            rows.append(Module(name or "(model)", type(module).__name__, params, frozen,
                               buffers, _torch_output(module, spec), spec))
            return
        params, frozen = own(module.parameters(recurse=False))
        buffers, _ = own(module.buffers(recurse=False))
        if params or buffers:
            rows.append(Module(name or "(model)", type(module).__name__ + " (own)", params,
                               frozen, buffers))
        for child_name, child in children:
            walk(child, f"{name}.{child_name}" if name else child_name)

    walk(model, "")
    total = sum(p.numel() for p in model.parameters())
    buffers = sum(b.numel() for b in model.buffers())
    assert total == sum(r.params for r in rows), "every parameter is in exactly one row"
    return Built(Framework.TORCH, type(model).__name__, tuple(rows), total,
                 sum(r.non_trainable for r in rows), buffers)


def torch_spec(module: Any) -> LayerSpec | None:
    """The LayerSpec of an nn.RNN/LSTM/GRU (or cell) from its constructor attributes."""
    from torch import nn

    cells = {nn.LSTM: Cell.LSTM, nn.GRU: Cell.GRU, nn.RNN: Cell.RNN,
             nn.LSTMCell: Cell.LSTM, nn.GRUCell: Cell.GRU, nn.RNNCell: Cell.RNN}
    cell = next((c for cls, c in cells.items() if type(module) is cls), None)
    if cell is None:
        return None
    single = isinstance(module, nn.RNNCellBase)
    nonlinearity = None
    if cell is Cell.RNN:
        text = getattr(module, "nonlinearity", None) or (
            "relu" if getattr(module, "mode", "") == "RNN_RELU" else "tanh")
        nonlinearity = Nonlinearity(text)
    try:
        return LayerSpec(
            cell=cell, input_size=int(module.input_size), hidden_size=int(module.hidden_size),
            num_layers=1 if single else int(module.num_layers),
            bidirectional=False if single else bool(module.bidirectional),
            bias=bool(module.bias), proj_size=int(getattr(module, "proj_size", 0) or 0),
            framework=Framework.TORCH, nonlinearity=nonlinearity, single_cell=single)
    except SpecError:
        return None


def _torch_output(module: Any, spec: LayerSpec | None) -> str | None:
    """The width a module outputs, read from its attributes (torch modules do not say more)."""
    if spec is not None:
        if spec.single_cell:
            return str(spec.hidden_size)
        return str(spec.directions * (spec.proj_size or spec.hidden_size))
    for attribute in ("out_features", "embedding_dim", "out_channels", "num_features"):
        value = getattr(module, attribute, None)
        if isinstance(value, int):
            return str(value)
    shape = getattr(module, "normalized_shape", None)
    if isinstance(shape, tuple) and shape:
        return str(shape[-1])
    return None


# -------------------------------------------------------------------------------------- Keras


def _load_keras() -> Any:
    from paramcount.verify.keras_backend import load

    return load()


def _keras(factory: Callable[..., Any], target: str, kwargs: Mapping[str, Any]) -> Built:
    keras = _load_keras()
    try:
        keras.backend.clear_session(free_memory=False)
    except TypeError:  # Keras before 3.6
        keras.backend.clear_session()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with keras.StatelessScope(initialize_variables=False):
            model = _call(factory, target, kwargs)
            if not isinstance(model, keras.layers.Layer):
                hint = (" (a torch module: set framework = \"torch\")"
                        if type(model).__module__.startswith("torch") else "")
                raise FactoryError(f"{target} returned a {type(model).__name__}, not a Keras "
                                   f"model{hint}")
            if not model.built:
                raise FactoryError(f"{target} returned a Keras {type(model).__name__} that is "
                                   "not built, so its weights have no shapes: start it with "
                                   "keras.Input(shape=...) or call model.build(...)")
            return keras_modules(model)


def _size(variable: Any) -> int:
    return math.prod(int(d) for d in variable.shape)


def keras_modules(model: Any) -> Built:
    """Every weight of a built Keras model, layer by layer (nested models flattened)."""
    import keras

    rows: list[Module] = []
    seen: set[int] = set()

    def count(variables: Sequence[Any]) -> int:
        total = 0
        for variable in variables:
            if id(variable) not in seen:
                seen.add(id(variable))
                total += _size(variable)
        return total

    def walk(layer: Any, prefix: str) -> None:
        for child in layer.layers:
            name = f"{prefix}{child.name}"
            if isinstance(child, keras.Model):
                walk(child, name + "/")
                continue
            if isinstance(child, keras.layers.InputLayer):
                continue
            frozen = count(child.non_trainable_weights)
            params = count(child.trainable_weights) + frozen
            rows.append(Module(name, type(child).__name__, params, frozen, 0,
                               _keras_output(child), keras_spec(child)))

    if isinstance(model, keras.Model):
        walk(model, "")
    else:  # a single layer returned by the factory
        frozen = count(model.non_trainable_weights)
        rows.append(Module(model.name, type(model).__name__,
                           count(model.trainable_weights) + frozen, frozen, 0,
                           _keras_output(model), keras_spec(model)))
    total = sum(_size(v) for v in model.weights)
    listed = sum(r.params for r in rows)
    if listed != total:  # weights the model holds itself, outside any layer
        rows.append(Module("(model)", type(model).__name__ + " (own)", total - listed))
    return Built(Framework.KERAS, type(model).__name__, tuple(rows), total,
                 sum(_size(v) for v in model.non_trainable_weights))


def _keras_output(layer: Any) -> str | None:
    try:
        shape = layer.output.shape
    except Exception:  # a layer used twice, or never called, has no single output
        return None
    return "(" + ", ".join("None" if d is None else str(int(d)) for d in shape) + (
        ",)" if len(shape) == 1 else ")")


def keras_spec(layer: Any) -> LayerSpec | None:
    """The LayerSpec of a Keras LSTM/GRU/SimpleRNN (or Bidirectional, or RNN of a cell)."""
    import keras

    merge: tuple[MergeMode, ...] | None = None
    bidirectional = False
    if isinstance(layer, keras.layers.Bidirectional):
        mode = layer.merge_mode
        merge = (MergeMode.NONE if mode is None else MergeMode(mode),)
        bidirectional = True
        layer = layer.forward_layer
    single = False
    kinds = {keras.layers.LSTM: Cell.LSTM, keras.layers.GRU: Cell.GRU,
             keras.layers.SimpleRNN: Cell.RNN}
    cell = next((c for cls, c in kinds.items() if type(layer) is cls), None)
    inner = getattr(layer, "cell", None)
    if cell is None and type(layer) is keras.layers.RNN and not bidirectional:
        cells = {keras.layers.LSTMCell: Cell.LSTM, keras.layers.GRUCell: Cell.GRU,
                 keras.layers.SimpleRNNCell: Cell.RNN}
        cell = next((c for cls, c in cells.items() if type(inner) is cls), None)
        single = True
    if cell is None or inner is None or getattr(inner, "kernel", None) is None:
        return None
    activation = getattr(getattr(inner, "activation", None), "__name__", "tanh")
    try:
        return LayerSpec(
            cell=cell, input_size=int(inner.kernel.shape[0]), hidden_size=int(inner.units),
            bidirectional=bidirectional, bias=bool(inner.use_bias), framework=Framework.KERAS,
            merge_modes=merge,
            reset_after=bool(inner.reset_after) if cell is Cell.GRU else None,
            nonlinearity=(Nonlinearity(activation) if cell is Cell.RNN
                          and activation in ("tanh", "relu") else None),
            single_cell=single)
    except SpecError:
        return None

