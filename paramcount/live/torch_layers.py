"""What a live torch model's modules are beyond their tensors: recurrent layers read from their
own options (through a weight norm, spectral norm, pruning or another parametrization, from
the original tensors), and the weights quantized modules hold packed, which ``parameters()``
does not list. Every read is guarded (``paramcount.live.guarded``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from paramcount.engine import conventions
from paramcount.engine.conventions.base import Recognised
from paramcount.engine.spec import Cell, LayerSpec, Nonlinearity
from paramcount.files.listing import NamedTensor
from paramcount.live.guarded import called, class_modules, class_name, own

_STACKS = {"LSTM": Cell.LSTM, "GRU": Cell.GRU, "RNN_TANH": Cell.RNN, "RNN_RELU": Cell.RNN}
_CELLS = {"LSTMCell": Cell.LSTM, "GRUCell": Cell.GRU, "RNNCell": Cell.RNN}
_QUANTIZED = ("torch.ao.nn.quantized", "torch.nn.quantized", "torch.ao.nn.intrinsic.quantized")
_PARAMETRIZATIONS = {"_WeightNorm": "weight_norm", "_SpectralNorm": "spectral_norm",
                     "_Orthogonal": "orthogonal"}
_ORIGINALS = ("original", "original1", "_orig", "_v")
"""The tensor a parametrization keeps in the weight's own shape, first among its tensors."""


def items(module: object, field: str) -> list[tuple[str, Any]]:
    """The (name, value) pairs of a module's own ``_parameters`` / ``_buffers`` /
    ``_modules``, None values left out; none where they cannot be read."""
    held = own(module, field)
    if held is None:
        return []
    try:
        return [(str(k), v) for k, v in held.items() if v is not None]
    except Exception:
        return []


def _shape(value: Any) -> tuple[int, ...] | None:
    try:
        return tuple(int(d) for d in value.shape)
    except Exception:
        return None


@dataclass(frozen=True)
class Layers:
    """What the modules' options and quantized weights tell beyond the tensors."""

    recognised: tuple[Recognised, ...]
    classes: tuple[tuple[str, str], ...]
    notes: tuple[str, ...]
    packed: tuple[NamedTensor, ...]
    hidden: frozenset[str]


def read(modules: list[tuple[str, Any]], tensors: dict[str, NamedTensor]) -> Layers:
    """The recurrent layers and quantized weights of ``modules`` (each once, by path)."""
    recognised: list[Recognised] = []
    classes: list[tuple[str, str]] = []
    notes: list[str] = []
    hidden: set[str] = set()
    packed: list[NamedTensor] = []
    quantized: list[str] = []
    failed: list[str] = []
    for path, module in modules:
        prefix = f"{path}." if path else ""
        if _is_quantized(module):
            if not any(path.startswith(q + ".") or not q for q in quantized):
                held = _packed(module, prefix, failed)
                if held:
                    quantized.append(path)
                    packed += held
            continue
        found = _recurrent(module, prefix, tensors, notes, hidden)
        if found is not None:
            recognised.append(found)
            classes.append((prefix, class_name(module)))
    if packed:
        notes.append(_packed_note(quantized, modules, packed))
    notes += failed
    return Layers(tuple(recognised), tuple(classes), tuple(notes), tuple(packed),
                  frozenset(hidden))


def _is_quantized(module: object) -> bool:
    return any(m.startswith(_QUANTIZED) for m, _ in class_modules(module))


def _packed(module: Any, prefix: str, failed: list[str]) -> list[NamedTensor]:
    """The weights and biases a quantized module holds packed, as its ``_weight_bias()`` (or
    ``weight()``) unpacks them: named as the float module names them."""
    what = f"{prefix.rstrip('.') or 'the model'} ({class_name(module)})"
    unpack = own(module, "_weight_bias")
    pairs: list[tuple[str, Any]] = []
    if callable(unpack):
        got = called(unpack, failed, f"{what}._weight_bias()")
        if isinstance(got, dict):
            pairs = [(str(k), v) for group in got.values() if isinstance(group, dict)
                     for k, v in group.items()]
        elif isinstance(got, tuple) and len(got) == 2:
            pairs = [("weight", got[0]), ("bias", got[1])]
    else:
        weight = own(module, "weight")
        if callable(weight):
            pairs = [("weight", called(weight, failed, f"{what}.weight()"))]
    out = []
    for name, value in pairs:
        shape = _shape(value) if value is not None else None
        if shape is not None:
            dtype = str(getattr(value, "dtype", "")).removeprefix("torch.") or None
            out.append(NamedTensor(prefix + name, shape, dtype, False))
    return out


def _packed_note(paths: list[str], modules: list[tuple[str, Any]],
                 packed: list[NamedTensor]) -> str:
    """The quantized modules and what they hold packed, by dtype."""
    kinds = dict(modules)
    named = [f"{p or '(top level)'} ({class_name(kinds[p])})" for p in paths[:4]]
    by_dtype: dict[str, int] = {}
    for tensor in packed:
        by_dtype[tensor.dtype or "?"] = by_dtype.get(tensor.dtype or "?", 0) + tensor.count
    dtypes = ", ".join(f"{count:,} {dtype}" for dtype, count in by_dtype.items())
    total = sum(by_dtype.values())
    return (f"quantized: {', '.join(named)}{' ...' if len(paths) > 4 else ''} "
            f"{'holds' if len(paths) == 1 else 'hold'} {total:,} weights packed ({dtypes}), "
            "which parameters() does not list: they are shown as packed, and the total "
            "counts parameters() only")


def _spec(module: Any) -> LayerSpec | None:
    """The layer an ``nn.RNN``/``LSTM``/``GRU`` or cell is built as, from its own options."""
    bases = {name for m, name in class_modules(module) if m.startswith("torch.nn")}
    mode = own(module, "mode")
    if "RNNBase" in bases and mode in _STACKS:
        return LayerSpec(
            _STACKS[mode], int(own(module, "input_size")), int(own(module, "hidden_size")),
            num_layers=int(own(module, "num_layers")),
            bidirectional=bool(own(module, "bidirectional")),
            bias=bool(own(module, "bias")), proj_size=int(own(module, "proj_size", 0) or 0),
            nonlinearity=Nonlinearity.RELU if mode == "RNN_RELU" else
            Nonlinearity.TANH if mode == "RNN_TANH" else None)
    cell = next((_CELLS[b] for b in bases if b in _CELLS), None)
    if cell is None or "RNNCellBase" not in bases:
        return None
    nonlinearity = own(module, "nonlinearity") if cell is Cell.RNN else None
    return LayerSpec(cell, int(own(module, "input_size")), int(own(module, "hidden_size")),
                     bias=bool(own(module, "bias")), single_cell=True,
                     nonlinearity=Nonlinearity(nonlinearity) if nonlinearity else None)


def _recurrent(module: Any, prefix: str, tensors: dict[str, NamedTensor], notes: list[str],
               hidden: set[str]) -> Recognised | None:
    """``module`` recognised from its options where its tensors are exactly what they give,
    or a parametrization's originals are; otherwise None, and a note says why."""
    where = f"{prefix.rstrip('.') or 'the model'} ({class_name(module)})"
    try:
        spec = _spec(module)
    except Exception as error:
        notes.append(f"{where}: its options are no layer paramcount counts ({error})")
        return None
    if spec is None:
        return None
    own_params = {name: _shape(p) for name, p in items(module, "_parameters")}
    names: list[str] = []
    said: list[str] = []
    extras: list[str] = []
    for expected in conventions.tensors(spec):
        if own_params.get(expected.name) == expected.shape:
            names.append(prefix + expected.name)
            continue
        found = _original(module, expected.name, expected.shape)
        if found is None:
            names = []
            break
        source, others, how = found
        names.append(prefix + source)
        extras += [prefix + n for n, _ in others]
        said.append(f"{expected.name} is computed by {how} from {source} "
                    f"{_text(expected.shape)}"
                    + "".join(f", {n} {shape}" for n, shape in others))
    mine = [n for n in own_params if prefix + n in tensors]
    if not names or any(n not in tensors for n in names) or (
            not said and sorted(names) != sorted(prefix + n for n in mine)):
        notes.append(f"{where}: its tensors are not the ones its options give (a patched "
                     "module, shared weights), so it is not recognised from its options")
        return None
    if said:
        notes.append(f"{where}: " + "; ".join(said) + ": the layer is recognised from "
                     "the originals in the weights' own shapes; the tensors beside them are "
                     "not in its formula's count")
        hidden.update(extras)
    composed = tuple((n,) for n in names) if said else ()
    return Recognised(prefix, spec, tuple(names), composed=composed)


def _original(module: Any, name: str,
              shape: tuple[int, ...]) -> tuple[str, list[tuple[str, str]], str] | None:
    """Where a parametrized tensor's original is held: (its name below the module, the other
    tensors beside it with their shapes, what computes the weight), or None."""
    candidates: list[tuple[str, tuple[int, ...] | None]] = []
    how = ""
    plist = dict(items(dict(items(module, "_modules")).get("parametrizations"), "_modules"))
    if name in plist:
        held = plist[name]
        base = f"parametrizations.{name}."
        candidates = [(base + n, _shape(v)) for n, v in items(held, "_parameters")]
        steps = items(held, "_modules")
        how = " and ".join(_PARAMETRIZATIONS.get(class_name(m), class_name(m))
                           for _, m in steps) or "a parametrization"
        candidates += [(f"{base}{k}.{n}", _shape(v)) for k, step in steps
                       for n, v in items(step, "_buffers")]
    else:
        params = dict(items(module, "_parameters"))
        buffers = dict(items(module, "_buffers"))
        for suffix, kind in (("_g", "weight_norm"), ("_orig", "pruning")):
            if name + suffix in params:
                how = kind
        if not how:
            return None
        candidates = [(n, _shape(v)) for n, v in (*params.items(), *buffers.items())
                      if n in (name + "_g", name + "_v", name + "_orig", name + "_mask")]
    ranked = sorted((c for c in candidates if c[1] == shape),
                    key=lambda c: next((k for k, end in enumerate(_ORIGINALS)
                                        if c[0].endswith(end)), len(_ORIGINALS)))
    if not ranked:
        return None
    source = ranked[0][0]
    others = [(n, _text(s)) for n, s in candidates if n != source]
    return source, others, how


def _text(shape: tuple[int, ...] | None) -> str:
    if shape is None:
        return "(?)"
    return "(" + ", ".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ")"
