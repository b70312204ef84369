"""A live model's description counted and recognised: totals apart by kind, recurrent layers
and family blocks found by ``files.inspect``'s recognition, and each layer's engine report."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from paramcount.engine import conventions
from paramcount.engine.commandline import command_line
from paramcount.engine.conventions.pytorch import DATA_PARALLEL
from paramcount.engine.conventions.recognition import RNN_NONLINEARITY
from paramcount.engine.report import Report, build_report
from paramcount.engine.spec import Cell, Nonlinearity
from paramcount.files.inspect import (
    _PREFIXES,
    FamilyModel,
    InspectReport,
    Layer,
    inspect,
    tensor_bytes,
)
from paramcount.files.listing import Listing, NamedTensor
from paramcount.live.description import Kind, Live, LiveTensor
from paramcount.live.detect import framework_of
from paramcount.record import replace


def count_of(live: Live, *kinds: Kind) -> int:
    """The values of ``live``'s tensors of ``kinds``, each tensor once."""
    return sum(t.tensor.count for t in live.tensors if t.kind in kinds)


@dataclass(frozen=True)
class ModelSummary:
    """What ``paramcount.summary`` found in a live model, counted exactly."""

    live: Live
    inspected: InspectReport
    reports: tuple[Report, ...]
    """The engine's report of each recurrent layer, in ``layers``' order."""
    # ``inspected`` sees every tensor as trainable: the kinds are ``live``'s to tell

    @property
    def tensors(self) -> tuple[LiveTensor, ...]:
        """Every tensor once, in the model's order."""
        return self.live.tensors

    def _sum(self, *kinds: Kind) -> int:
        return count_of(self.live, *kinds)

    @property
    def total(self) -> int:
        """The parameters, trainable and frozen, each tied or shared tensor once: what the
        framework counts (``sum(p.numel() for p in model.parameters())``,
        ``count_params()``)."""
        return self._sum(Kind.TRAINABLE, Kind.FROZEN)

    @property
    def trainable(self) -> int:
        """The parameters the optimizer updates."""
        return self._sum(Kind.TRAINABLE)

    @property
    def frozen(self) -> int:
        """The parameters that do not train."""
        return self._sum(Kind.FROZEN)

    @property
    def packed(self) -> int:
        """The weights quantized modules hold packed, which ``parameters()`` does not list
        (not in ``total``)."""
        return self._sum(Kind.PACKED)

    @property
    def buffers(self) -> int:
        """The values of buffers (torch's running statistics, masks): not parameters."""
        return self._sum(Kind.BUFFER)

    @property
    def bytes(self) -> int:
        """The bytes of every tensor (parameters and buffers) whose dtype has a known size."""
        return sum(tensor_bytes(t.tensor) or 0 for t in self.live.tensors)

    @property
    def layers(self) -> tuple[Layer, ...]:
        """Every recurrent layer recognised, with its configuration."""
        return self.inspected.layers

    @property
    def families(self) -> tuple[FamilyModel, ...]:
        """Every modern-family model (Mamba, RWKV, …) recognised among the other tensors."""
        return self.inspected.families

    @property
    def notes(self) -> tuple[str, ...]:
        """What the reader and the recognition noticed."""
        said = []
        if self.live.reported is not None and self.live.reported != self.total:
            said.append(f"the framework's own count says {self.live.reported:,} parameters, "
                        f"not {self.total:,}: some of its weights were not read")
        return (*self.live.notes, *(n for n in self.inspected.notes
                                    if n not in self.live.notes), *said)

    def layer_class(self, layer: Layer) -> str | None:
        """The class of the module a recurrent layer was read from, where known."""
        prefixes = dict(self.live.classes)
        for prefix, klass in prefixes.items():
            if prefix.rstrip("./") == layer.name:
                return klass
        module = next((m for m in self.live.modules if m.name == layer.name), None)
        return None if module is None else module.kind


def read(obj: Any, params: Any = None) -> Live:
    """``obj`` read by its framework's reader (``params``: a Flax module's variables), with
    the garbage collector paused: reading allocates an object or two per tensor and makes no
    cycles, and a collection pass over a large model's own objects would cost more than the
    read (``benchmarks/summary_speed.py``)."""
    with paused_gc():
        return _read(obj, params)


@contextmanager
def paused_gc() -> Iterator[None]:
    """The garbage collector paused (as it was, after): a pass over a large model's own
    objects, set off by the many small ones reading makes, costs more than the reading."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _read(obj: Any, params: Any) -> Live:
    framework = framework_of(obj)
    if framework == "torch":
        from paramcount.live import torch_model

        return torch_model.read(obj)
    if framework == "keras":
        from paramcount.live import keras_model

        return keras_model.read(obj)
    from paramcount.live import flax_model

    return flax_model.read(obj, params)


def checked(live: Live) -> Live:
    """``live`` with its candidate layers checked against its tensors: recognised, or a note
    saying why not; the tensors beside a parametrization's originals hidden from recognition."""
    if not live.candidates:
        return live
    from paramcount.live.torch_layers import check

    names = {t.tensor.name: t.tensor.shape for t in live.tensors}
    recognised, classes = list(live.recognised), list(live.classes)
    notes, hidden = [], set(live.hidden)
    for candidate in live.candidates:
        found, note, extras = check(candidate, names)
        if found is not None:
            recognised.append(found)
            classes.append((candidate.prefix, candidate.klass))
        if note is not None:
            notes.append(note)
        hidden.update(extras)
    return replace(live, recognised=tuple(recognised), classes=tuple(classes),
                   notes=(*notes, *live.notes), hidden=frozenset(hidden), candidates=())


def summarise(live: Live) -> ModelSummary:
    """``live`` recognised and counted."""
    with paused_gc():
        return _summarised(checked(live))


def _trainable(tensor: NamedTensor) -> NamedTensor:
    """``tensor`` as recognition reads it: every tensor a weight (the kinds are told apart
    by the live description, not by the listing)."""
    if tensor.trainable:
        return tensor
    return NamedTensor(tensor.name, tensor.shape, tensor.dtype, True, tensor.same_as)


def _summarised(live: Live) -> ModelSummary:
    """A checked ``live`` recognised and counted."""
    listing = Listing(f"<{live.kind}>", f"live {live.framework}",
                      tuple(_trainable(t.tensor) for t in live.tensors
                            if t.saved and t.tensor.name not in live.hidden),
                      recognised=live.recognised, config=live.config)
    inspected = _unsaved(inspect(listing))
    if live.activations:
        inspected = replace(inspected, layers=tuple(_activated(layer, live.activations)
                                                    for layer in inspected.layers))
    return ModelSummary(live, inspected, tuple(build_report(layer.spec)
                                               for layer in inspected.layers))


_SAVED_ONLY = (*_PREFIXES.values(), DATA_PARALLEL)
"""What recognition says of a checkpoint's names (saved from a compiled or DataParallel
model), which is not so of a live model: nothing was saved; the reader says what it wraps."""


def _unsaved(inspected: InspectReport) -> InspectReport:
    """``inspected`` without the notes that speak of a saved file."""
    return replace(inspected, notes=tuple(n for n in inspected.notes if n not in _SAVED_ONLY),
                   layers=tuple(replace(layer, notes=tuple(n for n in layer.notes
                                                           if n not in _SAVED_ONLY))
                                for layer in inspected.layers))


def _activated(layer: Layer, activations: tuple[tuple[str, str], ...]) -> Layer:
    """A plain RNN layer with the activation its cells' modules name, where the weights could
    not tell it: relu or tanh taken into its configuration, another one noted."""
    if layer.spec.cell is not Cell.RNN:
        return layer
    names = [c.name for c in layer.checks if c.name]
    used = {name for path, name in activations
            if any(n.startswith(path + "/") for n in names)}
    if len(used) != 1:
        return layer
    [name] = used
    notes = tuple(n for n in layer.notes if n != RNN_NONLINEARITY)
    if name not in ("relu", "tanh"):
        return replace(layer, notes=(*notes, f"activation_fn is {name}: the count is the same "
                                             "as tanh's or relu's"))
    spec = layer.spec.replace(nonlinearity=Nonlinearity(name))
    return replace(layer, spec=spec, description=conventions.describe(spec),
                   command=command_line(spec), notes=notes)
