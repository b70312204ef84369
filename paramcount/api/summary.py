"""``summary(model)``: the live model in hand, read without running it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from paramcount.api.result import Result

if TYPE_CHECKING:
    from paramcount.files.inspect import FamilyModel, Layer
    from paramcount.live.description import LiveTensor
    from paramcount.live.model import ModelSummary
    from paramcount.render.document import Document



class Summary(Result):
    """A live model's parameters, read without running it: totals apart by kind, every
    recurrent layer and family block recognised with its configuration, every tensor."""

    def __init__(self, summary: ModelSummary) -> None:
        """Wrap what :func:`summary` found."""
        self.summary = summary

    @property
    def model(self) -> str:
        """The model's class name."""
        return self.summary.live.kind

    @property
    def framework(self) -> str:
        """``torch``, ``keras`` or ``flax``."""
        return self.summary.live.framework

    @property
    def total(self) -> int:
        """The parameters, trainable and frozen, tied weights once: the framework's count."""
        return self.summary.total

    @property
    def trainable(self) -> int:
        """The parameters the optimizer updates."""
        return self.summary.trainable

    @property
    def frozen(self) -> int:
        """The parameters that do not train."""
        return self.summary.frozen

    @property
    def buffers(self) -> int:
        """Buffer values (running statistics, masks): not parameters, not in ``total``."""
        return self.summary.buffers

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
        return self.summary.tensors

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
    """Summarise a live model (a torch ``nn.Module``, a Keras model or layer, a Flax module
    with its ``params``, a Hugging Face model): its parameters and buffers are read, it is never
    run and needs no input."""
    from paramcount.live.model import read as read_live
    from paramcount.live.model import summarise

    return Summary(summarise(read_live(model, params)))
