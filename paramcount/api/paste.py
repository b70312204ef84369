"""``read(text)``: a pasted question answered (``paramcount read``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from paramcount.api.arguments import checked
from paramcount.api.result import Result

if TYPE_CHECKING:
    from paramcount.engine.report import Report
    from paramcount.reading.pipeline import Answer, Model
    from paramcount.reading.pipeline import Layer as ReadLayer
    from paramcount.render.document import Document



class Reading(Result):
    """What ``paramcount read`` finds in a paste: models, recurrent layers, disagreements."""

    def __init__(self, answer: Answer, reports: Mapping[int, Report] | None = None) -> None:
        """Wrap an answer (and, for ``details``, each recurrent layer's report)."""
        self.answer = answer
        self.reports = reports

    @property
    def models(self) -> tuple[Model, ...]:
        """Every model found, each with its layers and total."""
        return self.answer.models

    @property
    def recurrent(self) -> list[ReadLayer]:
        """Every recurrent layer found (``.spec`` is None where the paste leaves it open)."""
        return [layer for _, layer in self.answer.recurrent]

    @property
    def total(self) -> int | None:
        """The total of the one model found; None for several models or an open count."""
        return self.answer.models[0].total if len(self.answer.models) == 1 else None

    def to_dict(self) -> dict[str, Any]:
        """The ``paramcount.read/1`` document."""
        from paramcount.render.read import read_data

        return read_data(self.answer, self.reports)

    def documents(self) -> list[Document]:
        """The answer's one document."""
        from paramcount.render.read import read_document

        return [read_document(self.answer, self.reports)]


@checked
def read(text: str, overrides: Mapping[str, int] | None = None, *, source: str = "<text>",
         details: bool = False) -> Reading:
    """Read pasted text (code, a framework's printout, a summary table, a load error) and
    count every layer and model it shows, as ``paramcount read`` does.

    ``overrides`` gives values the text leaves open (``{"hidden_size": 256}``); ``source``
    names the text in notes; ``details`` keeps each reader's accounting in the JSON. The code is
    parsed, never run. A model's total is exact only for text read whole; otherwise it is "at
    least N" and what was not read is named.

    >>> import paramcount
    >>> r = paramcount.read("rnn = nn.GRU(input_size=40, hidden_size=256, num_layers=3)\\n")
    >>> r.total, r.recurrent[0].spec.num_layers
    (1018368, 3)
    >>> r.to_dict()["schema"]
    'paramcount.read/1'
    """
    from paramcount.reading.pipeline import layer_reports
    from paramcount.reading.pipeline import read as read_paste

    answer = read_paste(text, overrides or {}, source)
    return Reading(answer, layer_reports(answer) if details else None)
