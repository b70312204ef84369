"""``summary(model)``: the live model in hand, read without running it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from paramcount.api.result import Result

if TYPE_CHECKING:
    from paramcount.files.inspect import FamilyModel, Layer
    from paramcount.live.description import Live, LiveTensor
    from paramcount.live.model import ModelSummary
    from paramcount.render.document import Document


class Summary(Result):
    """A live model's parameters, read without running it: totals apart by kind, every
    recurrent layer and family block recognised with its configuration, every tensor."""

    def __init__(self, live: Live) -> None:
        """Wrap what :func:`summary` read; the layers are recognised when first asked for."""
        self.live = live
        self._summary: ModelSummary | None = None

    @property
    def summary(self) -> ModelSummary:
        """The model recognised and counted (recurrent layers, families, notes), worked out
        the first time anything but the totals is asked for."""
        if self._summary is None:
            from paramcount.live.model import summarise

            self._summary = summarise(self.live)
        return self._summary

    def _count(self, *kinds: str) -> int:
        from paramcount.live.description import Kind
        from paramcount.live.model import count_of

        return count_of(self.live, *(Kind(k) for k in kinds))

    @property
    def model(self) -> str:
        """The model's class name."""
        return self.live.kind

    @property
    def framework(self) -> str:
        """``torch``, ``keras`` or ``flax``."""
        return self.live.framework

    @property
    def total(self) -> int:
        """The parameters, trainable and frozen, tied weights once: the framework's count."""
        return self._count("trainable", "frozen")

    @property
    def trainable(self) -> int:
        """The parameters the optimizer updates."""
        return self._count("trainable")

    @property
    def frozen(self) -> int:
        """The parameters that do not train."""
        return self._count("frozen")

    @property
    def buffers(self) -> int:
        """Buffer values (running statistics, masks): not parameters, not in ``total``."""
        return self._count("buffer")

    @property
    def packed(self) -> int:
        """Weights quantized modules hold packed, which ``parameters()`` does not list: held
        by the model, not in ``total``."""
        return self._count("packed")

    @property
    def recurrent(self) -> tuple[Layer, ...]:
        """Every recurrent layer recognised (``.name``, ``.spec``, ``.params``, ``.command``)."""
        return self.summary.layers

    @property
    def families(self) -> tuple[FamilyModel, ...]:
        """Every modern-family model recognised (``.family``, ``.config``, ``.params``)."""
        return self.summary.families

    @property
    def tensors(self) -> tuple[LiveTensor, ...]:
        """Every tensor once, with its kind and the other names it goes by."""
        return self.live.tensors

    @property
    def notes(self) -> tuple[str, ...]:
        """What the reader and the recognition noticed."""
        return self.summary.notes

    def to_dict(self) -> dict[str, Any]:
        """The ``paramcount.summary/1`` document."""
        from paramcount.render.summary import data

        return data(self.summary)

    def documents(self) -> list[Document]:
        """The summary's one document."""
        from paramcount.render.summary import document

        return [document(self.summary)]


def summary(model: Any, params: Any = None) -> Summary:
    """Summarise a live model: its parameters and buffers read, never run, no input needed.

    ``model`` is a torch ``nn.Module`` (scripted, compiled, wrapped, lazy, quantized,
    parametrized, on any device, ``meta`` included), a Keras model or layer (Keras 3 or
    tf-keras), a Flax NNX module, or a linen module with ``params``, the variables its ``init``
    returned. The result's ``total`` is the framework's own count (each tied or shared tensor
    once); ``recurrent`` and ``families`` are the layers recognised, each with its exact
    configuration; ``notes`` say what the model holds beyond its parameters (packed quantized
    weights, a weight norm's tensors) and what could not be read. Nothing the model does (a
    raising ``__getattr__``, a cycle of modules) becomes a traceback: a model that cannot be
    read at all raises ``paramcount.ParamcountError``, one line.

    >>> import paramcount
    >>> from torch import nn
    >>> model = nn.Sequential(nn.Embedding(100, 16), nn.LSTM(16, 32, num_layers=2))
    >>> s = paramcount.summary(model)
    >>> s.total == sum(p.numel() for p in model.parameters()), s.total
    (True, 16448)
    >>> [(layer.name, layer.description, layer.params) for layer in s.recurrent]
    [('1', 'nn.LSTM(16, 32, num_layers=2)', 14848)]
    >>> s.to_dict()["schema"]
    'paramcount.summary/1'
    """
    from paramcount.errors import ParamcountError
    from paramcount.live.guarded import class_name, why
    from paramcount.live.model import read as read_live

    try:
        return Summary(read_live(model, params))
    except ParamcountError:
        raise
    except Exception as error:  # what the model's own code raised while it was read
        raise ParamcountError(f"a {class_name(model)} could not be read: {why(error)}"
                              ) from error
