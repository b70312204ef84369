"""``explain(cell, ...)``: one configuration's complete answer (``paramcount explain``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from paramcount.api.arguments import checked
from paramcount.api.count import Frameworks, dtype_of, layer_specs
from paramcount.api.verdict import Verified
from paramcount.engine.spec import Cell, DType, Framework

if TYPE_CHECKING:
    from paramcount.engine.report import Report
    from paramcount.engine.spec import LayerSpec
    from paramcount.render.document import Document
    from paramcount.verify import Outcome


class Explained(Verified):
    """Why a layer holds the parameters it does: the answer against the naive guess, the
    formula, the tensors, the depth and the pitfalls (in several frameworks side by side)."""

    def __init__(self, reports: Sequence[Report], outcomes: Sequence[Outcome] | None = None,
                 brief: bool = False) -> None:
        """Wrap one report per framework (their verification where run; ``brief``: the
        answer in at most a dozen lines)."""
        self.reports = tuple(reports)
        self.outcomes = None if outcomes is None else tuple(outcomes)
        self.brief = brief

    @property
    def total(self) -> int:
        """The first (or only) framework's number of parameters."""
        return self.reports[0].total

    def to_dict(self) -> dict[str, Any]:
        """The ``paramcount.explain/1`` document (several frameworks: ``{"reports": [...]}``)."""
        from paramcount.render.explain import explain_data

        others = len(self.reports) > 1
        data = [explain_data(r, self._outcome(k), others)
                for k, r in enumerate(self.reports)]
        return data[0] if len(data) == 1 else {"reports": data}

    def documents(self) -> list[Document]:
        """The explanation (several frameworks: their totals first, then each one's)."""
        from paramcount.render import explain as render

        documents = []
        several = len(self.reports) > 1
        if several:
            from paramcount.render.breakdown import totals_table
            from paramcount.render.document import Document, Section, number

            documents.append(Document(
                "The same configuration in "
                + ", ".join(r.spec.framework.display_name for r in self.reports),
                " vs ".join(number(r.total) for r in self.reports) + " parameters",
                (Section("Totals", (totals_table(self.reports, self.outcomes),)),),
            ))
        for k, report in enumerate(self.reports):
            outcome = self._outcome(k)
            documents.append(render.brief(report, outcome) if self.brief
                             else render.explain(report, outcome, others=several))
        return documents


def explain_specs(specs: Sequence[LayerSpec], dtype: DType | str = DType.FP32,
                  verify: bool = False, brief: bool = False) -> Explained:
    """Explain each of ``specs`` (``verify``: against its real layer, a framework not
    installed skipped when there are several)."""
    from paramcount.engine.report import build_report

    reports = [build_report(spec, dtype_of(dtype)) for spec in specs]
    outcomes = None
    if verify:
        from paramcount.verify import verify_reports

        outcomes = verify_reports(reports, skip_missing=len(reports) > 1)
    return Explained(reports, outcomes, brief)


@checked
def explain(cell: Cell | str, input_size: int, hidden_size: int, *,
            framework: Frameworks = Framework.TORCH, dtype: DType | str = DType.FP32,
            verify: bool = False, brief: bool = False, **layer: Any) -> Explained:
    """Explain a layer's count as ``paramcount explain`` does: the formula, why the naive
    multiple is wrong, the depth table, memory and compute.

    ``framework`` may name several (``"all"``, ``"torch,keras"``); ``verify`` builds the real
    layers; ``brief`` gives the short answer; ``layer`` takes :func:`paramcount.count`'s
    options (``num_layers``, ``bidirectional``, ...).

    >>> import paramcount
    >>> e = paramcount.explain("lstm", 32, 128, num_layers=2, bidirectional=True)
    >>> e.total, e.to_dict()["schema"]
    (561152, 'paramcount.explain/1')
    """
    specs = layer_specs(cell, input_size, hidden_size, framework=framework, **layer)
    return explain_specs(specs, dtype, verify, brief)
