"""What a live model holds, as every framework's reader describes it: tensors, modules, layers."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any, NamedTuple

from paramcount.engine.conventions.base import Recognised
from paramcount.files.listing import NamedTensor

if TYPE_CHECKING:
    from paramcount.live.torch_layers import Candidate


class Kind(StrEnum):
    """What a tensor is to its framework."""

    TRAINABLE = "trainable"
    """A parameter the optimizer updates."""
    FROZEN = "frozen"
    """A parameter that does not train (``requires_grad=False``, Keras' non-trainable
    weights such as BatchNormalization's moving statistics)."""
    BUFFER = "buffer"
    """State beside the parameters (torch's buffers): in the state dict, not a parameter."""
    PACKED = "packed"
    """A weight a quantized module holds packed (``_packed_params``), which ``parameters()``
    does not list: held by the model, not in its parameter count."""


class LiveTensor(NamedTuple):
    """One tensor of the model under its first name, with what it is; ``aliases`` are the
    other names it is reachable by (tied or shared weights: one tensor, counted once)."""

    tensor: NamedTensor
    kind: Kind
    aliases: tuple[str, ...] = ()
    saved: bool = True
    """Whether the model's state dict holds it (False for torch's non-persistent buffers,
    such as rotary frequencies): what a checkpoint of the model would hold, which is what
    recognition reads."""


class LiveModule(NamedTuple):
    """One module (layer) of the model and the tensors it holds itself, by first name."""

    name: str
    """Its path in the model (``encoder.lstm``, ``sequential/lstm``); ``""`` is the model."""
    kind: str
    """Its class name: ``LSTM``, ``Linear``, ``Bidirectional``."""
    tensors: tuple[str, ...]


@dataclass(frozen=True)
class Live:
    """Everything a reader took from a live model, before anything is recognised or counted."""

    framework: str
    """``torch``, ``keras`` or ``flax``."""
    kind: str
    """The model's class name."""
    tensors: tuple[LiveTensor, ...]
    modules: tuple[LiveModule, ...]
    recognised: tuple[Recognised, ...] = ()
    """Recurrent layers read from the modules' own options (an ``nn.RNN``'s nonlinearity,
    a Keras GRU's ``reset_after``), each checked against its tensors before it is given."""
    classes: tuple[tuple[str, str], ...] = ()
    """(prefix, class name) of each recurrent layer in ``recognised``."""
    notes: tuple[str, ...] = ()
    config: dict[str, Any] | None = None
    """A Hugging Face model's ``config.to_dict()``: what a family's tensors cannot tell."""
    activations: tuple[tuple[str, str], ...] = ()
    """(path, name) of each plain RNN cell's activation, read from the module where its
    weights cannot tell (a Flax SimpleCell's ``activation_fn``): ``params/layers_0/cell``,
    ``relu``."""
    reported: int | None = None
    """The framework's own count of parameters, asked of the model where it has one
    (``count_params()``); None where the framework has no such call."""
    candidates: tuple[Candidate, ...] = ()
    """Recurrent modules read from their options but not yet checked against their tensors
    (a torch model's: the check runs when the model is recognised, not when it is read)."""
    hidden: frozenset[str] = frozenset()
    """Tensors the recognition does not see because a note accounts for them already (a
    weight norm's magnitude, a pruning mask: the layer is recognised from its original)."""
