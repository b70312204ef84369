"""``inspect(path)`` and ``load_error(text)``: model files and failed loads (``paramcount
inspect``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from paramcount.api.arguments import checked
from paramcount.api.result import FileName, Result

if TYPE_CHECKING:
    from paramcount.files.inspect import FamilyModel, InspectReport, Layer
    from paramcount.reading.messages.load_error import LoadErrorAnalysis
    from paramcount.render.document import Document



class Inspection(Result):
    """What ``paramcount inspect`` says about model files: tensors, dtypes, recurrent layers."""

    def __init__(self, reports: Sequence[InspectReport]) -> None:
        """Wrap one report per file."""
        self.reports = tuple(reports)

    @property
    def total(self) -> int:
        """Every element of every tensor of the files' models."""
        return sum(r.total for r in self.reports)

    @property
    def trainable(self) -> int:
        """Elements of the tensors that are parameters."""
        return sum(r.trainable for r in self.reports)

    @property
    def recurrent(self) -> tuple[Layer, ...]:
        """Every recurrent layer recognised, file after file."""
        return tuple(layer for r in self.reports for layer in r.layers)

    @property
    def families(self) -> tuple[FamilyModel, ...]:
        """Every modern-family model recognised, file after file."""
        return tuple(model for r in self.reports for model in r.families)

    def to_dict(self) -> dict[str, Any]:
        """The ``paramcount.inspect/1`` document (several files: ``{"files": [...]}``)."""
        from paramcount.render.inspect import data

        items = [data(r) for r in self.reports]
        return items[0] if len(items) == 1 else {"files": items}

    def documents(self) -> list[Document]:
        """One document per file."""
        from paramcount.render.inspect import document

        return [document(r) for r in self.reports]


@checked
def inspect(*paths: FileName, as_framework: str | None = None) -> Inspection:
    """Inspect model files (safetensors, torch, ONNX, Keras, numpy, a Hugging Face folder)
    without running anything, as ``paramcount inspect`` does: tensors by module, recurrent
    layers and family models recognised, each checked against the formula engine.

    ``as_framework`` also counts each layer in another framework's convention.

    >>> import paramcount
    >>> i = paramcount.inspect("examples/hf/mamba-130m")
    >>> [(m.family, m.params) for m in i.families]
    [('mamba', 129135360)]
    """
    from pathlib import Path

    from paramcount.engine.spec import Framework
    from paramcount.errors import ParamcountError
    from paramcount.files.dispatch import read_file
    from paramcount.files.inspect import AS_FRAMEWORKS
    from paramcount.files.inspect import inspect as inspect_listing

    if not paths:
        raise ParamcountError("name at least one model file")
    target = None
    if as_framework is not None:
        target = next((f for f in AS_FRAMEWORKS if f.value == str(as_framework)), None)
        if target is None:
            raise ParamcountError(f"as_framework={as_framework!r} is not one of: "
                                  + ", ".join(f.value for f in AS_FRAMEWORKS))
    assert target is None or isinstance(target, Framework)
    return Inspection([inspect_listing(read_file(Path(path)), target) for path in paths])


class LoadError(Result):
    """A failed ``load_state_dict`` explained: what the checkpoint holds against the model."""

    def __init__(self, analysis: LoadErrorAnalysis) -> None:
        """Wrap the analysis."""
        self.analysis = analysis

    def to_dict(self) -> dict[str, Any]:
        """The document ``inspect --error --json`` prints."""
        from paramcount.render.load_error import data

        return data(self.analysis)

    def documents(self) -> list[Document]:
        """The analysis' one document."""
        from paramcount.render.load_error import document

        return [document(self.analysis)]


@checked
def load_error(text: str) -> LoadError:
    """Explain a framework's load error (torch's ``load_state_dict`` size mismatches,
    Keras' shape errors), as ``paramcount inspect --error`` does: which configuration each side
    holds and the fix.

    >>> import paramcount
    >>> e = paramcount.load_error(
    ...     "RuntimeError: Error(s) in loading state_dict for LSTM:\\n\\tsize mismatch for "
    ...     "weight_ih_l0: copying a param with shape torch.Size([80, 10]) from checkpoint, "
    ...     "the shape in current model is torch.Size([80, 12]).")
    >>> print(e.to_dict()["fixes"][0])
    the checkpoint's `(top level)` is recurrent layer(10, ?); your model asks for input 12 —
    build it with input_size=10
    """
    from paramcount.reading.messages.load_error import analyse

    return LoadError(analyse(text))
