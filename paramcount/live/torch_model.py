"""A live torch ``nn.Module`` read through its own methods: parameters, buffers, modules.

Nothing is run and torch is not imported here: the model's ``named_parameters``,
``named_buffers`` and ``named_modules`` say everything, on any device (``meta`` included).
"""

from __future__ import annotations

from typing import Any

from paramcount.engine import conventions
from paramcount.engine.conventions.base import Recognised
from paramcount.engine.spec import Cell, LayerSpec, Nonlinearity
from paramcount.errors import SpecError
from paramcount.files.listing import NamedTensor
from paramcount.live.description import Kind, Live, LiveModule, LiveTensor

_LAZY = ("UninitializedParameter", "UninitializedBuffer")
_STACKS = {"LSTM": Cell.LSTM, "GRU": Cell.GRU, "RNN_TANH": Cell.RNN, "RNN_RELU": Cell.RNN}
_CELLS = {"LSTMCell": Cell.LSTM, "GRUCell": Cell.GRU, "RNNCell": Cell.RNN}


def _dtype(tensor: Any) -> str:
    return str(tensor.dtype).removeprefix("torch.")


def read(model: Any) -> Live:
    """The tensors, modules and recurrent layers of ``model``, tied weights once."""
    first: dict[int, str] = {}
    aliases: dict[str, list[str]] = {}
    kinds: dict[str, Kind] = {}
    tensors: dict[str, NamedTensor] = {}
    lazy: list[str] = []
    items = [(name, p, Kind.TRAINABLE if p.requires_grad else Kind.FROZEN)
             for name, p in model.named_parameters(remove_duplicate=False)]
    items += [(name, b, Kind.BUFFER) for name, b in model.named_buffers(remove_duplicate=False)
              if b is not None]
    transient = {f"{path}.{name}" if path else name
                 for path, module in model.named_modules(remove_duplicate=False)
                 for name in getattr(module, "_non_persistent_buffers_set", ())}
    for name, value, kind in items:
        if type(value).__name__ in _LAZY:
            lazy.append(name)
            continue
        key = id(value)
        if key in first:
            aliases[first[key]].append(name)
            continue
        first[key] = name
        aliases[name] = []
        kinds[name] = kind
        tensors[name] = NamedTensor(name, tuple(int(d) for d in value.shape), _dtype(value),
                                    kind is Kind.TRAINABLE)
    modules: list[LiveModule] = []
    recognised: list[Recognised] = []
    classes: list[tuple[str, str]] = []
    notes: list[str] = []
    seen: set[int] = set()
    for path, module in model.named_modules(remove_duplicate=False):
        if id(module) in seen:
            continue
        seen.add(id(module))
        prefix = f"{path}." if path else ""
        own = tuple(prefix + n for n, _ in (*module.named_parameters(recurse=False),
                                              *module.named_buffers(recurse=False))
                    if prefix + n in tensors)
        modules.append(LiveModule(path, type(module).__name__, own))
        found = _recurrent(module, prefix, tensors, notes)
        if found is not None:
            recognised.append(found)
            classes.append((prefix, type(module).__name__))
    order = [n for m in modules for n in m.tensors]
    order += [n for n in tensors if n not in set(order)]
    live = tuple(LiveTensor(tensors[n], kinds[n], tuple(aliases[n]), n not in transient)
                 for n in order)
    if lazy:
        notes.append(f"{len(lazy)} parameters are not yet initialized (lazy modules: "
                     f"{', '.join(lazy[:3])}{' ...' if len(lazy) > 3 else ''}): their sizes "
                     "exist only after the first forward pass, so they are not counted")
    config = getattr(model, "config", None)
    to_dict = getattr(config, "to_dict", None)
    data = to_dict() if callable(to_dict) else None
    return Live("torch", type(model).__name__, live, tuple(modules), tuple(recognised),
                tuple(classes), tuple(notes), data if isinstance(data, dict) else None)


def _spec(module: Any) -> LayerSpec | None:
    """The layer an ``nn.RNN``/``LSTM``/``GRU`` or cell is built as, from its own options."""
    bases = {c.__name__ for c in type(module).__mro__
             if (c.__module__ or "").startswith("torch.nn")}
    if "RNNBase" in bases and getattr(module, "mode", None) in _STACKS:
        mode = module.mode
        return LayerSpec(
            _STACKS[mode], int(module.input_size), int(module.hidden_size),
            num_layers=int(module.num_layers), bidirectional=bool(module.bidirectional),
            bias=bool(module.bias), proj_size=int(getattr(module, "proj_size", 0) or 0),
            nonlinearity=Nonlinearity.RELU if mode == "RNN_RELU" else
            Nonlinearity.TANH if mode == "RNN_TANH" else None)
    cell = next((_CELLS[b] for b in bases if b in _CELLS), None)
    if cell is None or "RNNCellBase" not in bases:
        return None
    nonlinearity = getattr(module, "nonlinearity", None) if cell is Cell.RNN else None
    return LayerSpec(cell, int(module.input_size), int(module.hidden_size),
                     bias=bool(module.bias), single_cell=True,
                     nonlinearity=Nonlinearity(nonlinearity) if nonlinearity else None)


def _recurrent(module: Any, prefix: str, tensors: dict[str, NamedTensor],
               notes: list[str]) -> Recognised | None:
    """``module`` recognised from its options where its tensors are exactly what they give;
    otherwise None (the tensors' shapes are recognised instead, and a note says why)."""
    try:
        spec = _spec(module)
    except (SpecError, TypeError, ValueError) as error:
        notes.append(f"{prefix.rstrip('.') or 'the model'} ({type(module).__name__}): its "
                     f"options are no layer paramcount counts ({error})")
        return None
    if spec is None:
        return None
    expected = [(prefix + t.name, t.shape) for t in conventions.tensors(spec)]
    own = [(prefix + n, tuple(int(d) for d in p.shape))
           for n, p in module.named_parameters(recurse=False)]
    if sorted(expected) != sorted(own) or any(n not in tensors for n, _ in own):
        notes.append(f"{prefix.rstrip('.') or 'the model'} ({type(module).__name__}): its "
                     "tensors are not the ones its options give (a weight_norm, a patched "
                     "module, shared weights); read from their shapes instead")
        return None
    return Recognised(prefix, spec, tuple(n for n, _ in own))
