"""``fit(cell, input_size, ...)``: the largest hidden size within a budget (``paramcount fit``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from paramcount.api.arguments import checked
from paramcount.api.verdict import Verified
from paramcount.engine.spec import Cell, DType, Framework

if TYPE_CHECKING:
    from paramcount.analysis.fit import Fit
    from paramcount.engine.spec import LayerSpec
    from paramcount.render.document import Document
    from paramcount.verify import Outcome


class Fitted(Verified):
    """The largest hidden size whose parameters fit the budget, the next size up that does
    not, and the quadratic solved for it (verified against the real layer when asked)."""

    def __init__(self, answer: Fit, outcomes: Sequence[Outcome] | None = None,
                 error: str | None = None) -> None:
        """Wrap the answer (the real layers' verdicts at both sizes, where run; ``error``:
        why nothing fits, ``answer`` then being the smallest size)."""
        self.answer = answer
        self.outcomes = None if outcomes is None else tuple(outcomes)
        self.error = error

    @property
    def hidden_size(self) -> int:
        """The largest hidden size within budget."""
        return self.answer.hidden_size

    @property
    def total(self) -> int:
        """Its number of parameters."""
        return self.answer.total

    @property
    def next_hidden_size(self) -> int:
        """The next size up (a multiple of the rounding), which does not fit."""
        return self.answer.next_hidden_size

    @property
    def spec(self) -> LayerSpec:
        """The layer at the answer's hidden size."""
        return self.answer.spec

    def to_dict(self) -> dict[str, Any]:
        """The ``paramcount.fit/1`` document."""
        from paramcount.engine.report import build_report
        from paramcount.render.data import config
        from paramcount.render.fit import fit_data

        return fit_data(self.answer, config(build_report(self.answer.spec, self.answer.dtype)),
                        self.outcomes, self.error)

    def documents(self) -> list[Document]:
        """The answer's one document: the size, its neighbour, the quadratic solved."""
        from paramcount.render.fit import fit_document

        return [fit_document(self.answer, self.outcomes)]


def fit_spec(spec: LayerSpec, max_params: int | None = None, max_bytes: int | None = None,
             dtype: DType | str = DType.FP32, round_to: int = 1,
             verify: bool = False) -> Fitted:
    """The largest hidden size of ``spec`` (its own ignored) within the budget; ``verify``
    builds the real layer at that size and the next."""
    from paramcount.analysis.fit import fit as solve

    answer = solve(spec, max_params=max_params, max_bytes=max_bytes, dtype=dtype,
                   round_to=round_to)
    outcomes = None
    if verify:
        from paramcount.engine.report import build_report
        from paramcount.verify import verify_reports

        outcomes = verify_reports([
            build_report(answer.spec, answer.dtype),
            build_report(answer.spec.replace(hidden_size=answer.next_hidden_size), answer.dtype),
        ])
    return Fitted(answer, outcomes)


@checked
def fit(cell: Cell | str, input_size: int, *, max_params: int | str | None = None,
        max_bytes: int | str | None = None, dtype: DType | str = DType.FP32,
        round_to: int = 1, verify: bool = False, framework: Framework | str = Framework.TORCH,
        **layer: Any) -> Fitted:
    """The largest hidden size whose layer fits a budget of parameters or bytes, as
    ``paramcount fit`` does.

    ``max_params`` and ``max_bytes`` accept ``1M``, ``4MiB``; ``round_to`` keeps the size a
    multiple; ``layer`` takes :func:`paramcount.count`'s options. Nothing fitting raises
    ``paramcount.Mismatch``.

    >>> import paramcount
    >>> f = paramcount.fit("lstm", 32, num_layers=2, bidirectional=True, max_params="1M")
    >>> f.hidden_size, f.total, f.next_hidden_size
    (172, 996224, 173)
    """
    from paramcount.api.count import layer_spec
    from paramcount.engine.counts import parse_bytes, parse_count

    if isinstance(max_params, str):
        max_params = parse_count(max_params)
    if isinstance(max_bytes, str):
        max_bytes = parse_bytes(max_bytes)
    proj = layer.get("proj_size", 0)
    hidden = proj + 1 if isinstance(proj, int) and proj > 0 else 1
    spec = layer_spec(cell, input_size, hidden, framework=framework, **layer)
    return fit_spec(spec, max_params, max_bytes, dtype, round_to, verify)
