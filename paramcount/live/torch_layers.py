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
from paramcount.live.guarded import attribute, called, class_modules, class_name, own

_STACKS = {"LSTM": Cell.LSTM, "GRU": Cell.GRU, "RNN_TANH": Cell.RNN, "RNN_RELU": Cell.RNN}
_CELLS = {"LSTMCell": Cell.LSTM, "GRUCell": Cell.GRU, "RNNCell": Cell.RNN}
_QUANTIZED = ("torch.ao.nn.quantized", "torch.nn.quantized", "torch.ao.nn.intrinsic.quantized")
_PARAMETRIZATIONS = {"_WeightNorm": "weight_norm", "_SpectralNorm": "spectral_norm",
                     "_Orthogonal": "orthogonal"}
_RECURRENT_BASES = frozenset({"RNNBase", "RNNCellBase"})
_ORIGINALS = ("original", "original1", "_orig", "_v")
"""The tensor a parametrization keeps in the weight's own shape, first among its tensors."""


def items(module: object, field: str) -> list[tuple[str, Any]]:
    """The (name, value) pairs of a module's own ``_parameters`` / ``_buffers`` /
    ``_modules``, None values left out; none where they cannot be read. A traced module holds
    them in the script module it wraps, reached through its ``__getattr__`` (guarded)."""
    held = own(module, field)
    if held is None:
        held = attribute(module, field)
    if held is None:
        return []
    try:
        return [(k if type(k) is str else str(k), v) for k, v in held.items()
                if v is not None]
    except Exception:
        return []


def _shape(value: Any) -> tuple[int, ...] | None:
    try:
        return tuple(map(int, value.shape))
    except Exception:
        return None


@dataclass(frozen=True)
class Candidate:
    """A recurrent module as read: its options' layer and what it holds, checked against the
    layer's tensors only when the model is recognised (:func:`check`), not when it is read."""

    prefix: str
    klass: str
    spec: LayerSpec
    own: tuple[str, ...]
    """Its own parameters' names (below the module)."""
    parametrized: dict[str, tuple[list[tuple[str, tuple[int, ...] | None]], str]]
    """Each parametrized weight: the tensors that hold it (names below the module, with
    their shapes) and what computes it (``weight_norm``, ``pruning``)."""


@dataclass(frozen=True)
class Layers:
    """What the modules' options and quantized weights tell beyond the tensors."""

    candidates: tuple[Candidate, ...]
    notes: tuple[str, ...]
    packed: tuple[NamedTensor, ...]


def read(modules: list[tuple[str, Any]]) -> Layers:
    """The recurrent modules and quantized weights of ``modules`` (each once, by path)."""
    candidates: list[Candidate] = []
    notes: list[str] = []
    packed: list[NamedTensor] = []
    quantized: list[str] = []
    set_of_quantized: set[str] = set()
    failed: list[str] = []
    for path, module in modules:
        prefix = f"{path}." if path else ""
        bases = class_modules(module)
        if any(m.startswith(_QUANTIZED) for m, _ in bases):
            if not _inside(path, set_of_quantized):
                held = _packed(module, prefix, failed)
                if held:
                    quantized.append(path)
                    set_of_quantized.add(path)
                    packed += held
            continue
        if not any(name in _RECURRENT_BASES for _, name in bases):
            continue
        where = f"{path or 'the model'} ({class_name(module)})"
        try:
            spec = _spec(module, bases)
        except Exception as error:
            notes.append(f"{where}: its options are no layer paramcount counts ({error})")
            continue
        if spec is not None:
            params = items(module, "_parameters")
            candidates.append(Candidate(prefix, class_name(module), spec,
                                        tuple(n for n, _ in params),
                                        _parametrized(module)))
    if packed:
        notes.append(_packed_note(quantized, modules, packed))
    notes += failed
    return Layers(tuple(candidates), tuple(notes), tuple(packed))


def _inside(path: str, paths: set[str]) -> bool:
    """Whether ``path`` is below one of ``paths`` (each parent path looked up: linear in the
    model's modules)."""
    if not paths:
        return False
    parts = path.split(".")
    return "" in paths or any(".".join(parts[:k]) in paths for k in range(1, len(parts)))


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


def _spec(module: Any, classes: list[tuple[str, str]]) -> LayerSpec | None:
    """The layer an ``nn.RNN``/``LSTM``/``GRU`` or cell is built as, from its own options."""
    bases = {name for m, name in classes if m.startswith("torch.nn")}
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


def check(found: Candidate, tensors: dict[str, tuple[int, ...]]) -> tuple[
        Recognised | None, str | None, tuple[str, ...]]:
    """A candidate recognised from its options where its tensors (``tensors``: the model's
    shapes by first name) are exactly what they give, or a parametrization's originals are:
    (the layer or None, a note, the tensors beside the originals)."""
    prefix, where = found.prefix, f"{found.prefix.rstrip('.') or 'the model'} ({found.klass})"
    names: list[str] = []
    said: list[str] = []
    extras: list[str] = []
    for expected in conventions.tensors(found.spec):
        if expected.name in found.own and tensors.get(prefix + expected.name) == expected.shape:
            names.append(prefix + expected.name)
            continue
        original = _original(found.parametrized.get(expected.name)
                             or _beside(found, expected.name, tensors), expected.shape)
        if original is None:
            names = []
            break
        source, others, how = original
        names.append(prefix + source)
        extras += [prefix + n for n, _ in others]
        said.append(f"{expected.name} is computed by {how} from {source} "
                    f"{_text(expected.shape)}" + "".join(f", {n} {s}" for n, s in others))
    mine = [prefix + n for n in found.own if prefix + n in tensors]
    if not names or any(n not in tensors for n in names) or (
            not said and sorted(names) != sorted(mine)):
        return None, (f"{where}: its tensors are not the ones its options give (a patched "
                      "module, shared weights), so it is not recognised from its options"), ()
    if not said:
        return Recognised(prefix, found.spec, tuple(names)), None, ()
    note = (f"{where}: " + "; ".join(said) + ": the layer is recognised from the originals "
            "in the weights' own shapes; the tensors beside them are not in its formula's "
            "count")
    return (Recognised(prefix, found.spec, tuple(names), composed=tuple((n,) for n in names)),
            note, tuple(extras))


def _parametrized(module: Any) -> dict[str, tuple[list[tuple[str, tuple[int, ...] | None]],
                                                   str]]:
    """Each weight of ``module`` under torch's parametrizations, with the tensors that hold it
    (names below the module) and what computes it (the old weight norm's and pruning's
    tensors sit beside the module's own: :func:`_beside` finds them by name)."""
    found: dict[str, tuple[list[tuple[str, tuple[int, ...] | None]], str]] = {}
    plist = items(dict(items(module, "_modules")).get("parametrizations"), "_modules")
    for name, held in plist:
        base = f"parametrizations.{name}."
        steps = items(held, "_modules")
        how = " and ".join(_PARAMETRIZATIONS.get(class_name(m), class_name(m))
                           for _, m in steps) or "a parametrization"
        found[name] = ([(base + n, _shape(v)) for n, v in items(held, "_parameters")]
                       + [(f"{base}{k}.{n}", _shape(v)) for k, step in steps
                          for n, v in items(step, "_buffers")], how)
    return found


def _beside(found: Candidate, name: str, tensors: dict[str, tuple[int, ...]]
            ) -> tuple[list[tuple[str, tuple[int, ...] | None]], str] | None:
    """The old weight norm's ``name_g`` and ``name_v``, or pruning's ``name_orig`` and
    ``name_mask``, where the module holds them in place of ``name``, and what they are."""
    how = ("weight_norm" if name + "_g" in found.own else
           "pruning" if name + "_orig" in found.own else None)
    if how is None:
        return None
    held = [(n, tensors.get(found.prefix + n))
            for n in (name + "_g", name + "_v", name + "_orig", name + "_mask")]
    return [(n, shape) for n, shape in held if shape is not None], how


def _original(held: tuple[list[tuple[str, tuple[int, ...] | None]], str] | None,
              shape: tuple[int, ...]) -> tuple[str, list[tuple[str, str]], str] | None:
    """Which of a parametrized weight's tensors is its original (the one in the weight's
    shape, the original's own name first): (its name, the others with their shapes, what
    computes the weight), or None."""
    if held is None:
        return None
    candidates, how = held
    ranked = sorted((c for c in candidates if c[1] == shape),
                    key=lambda c: next((k for k, end in enumerate(_ORIGINALS)
                                        if c[0].endswith(end)), len(_ORIGINALS)))
    if not ranked:
        return None
    source = ranked[0][0]
    return source, [(n, _text(s)) for n, s in candidates if n != source], how


def _text(shape: tuple[int, ...] | None) -> str:
    if shape is None:
        return "(?)"
    return "(" + ", ".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ")"
