"""``convlstm(rank, ...)``: a ConvLSTM stack counted (``paramcount convlstm``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from paramcount.api.arguments import checked
from paramcount.api.count import Frameworks, dtype_of, frameworks_of
from paramcount.api.verdict import Verified
from paramcount.engine.spec import DType, Framework

if TYPE_CHECKING:
    from paramcount.engine.convlstm_report import ConvReport
    from paramcount.render.document import Document
    from paramcount.verify import Outcome


class ConvCounted(Verified):
    """A Keras ConvLSTM1D/2D/3D or Flax linen ConvLSTMCell stack's parameters, tensor by
    tensor (both frameworks side by side where asked)."""

    def __init__(self, reports: Sequence[ConvReport],
                 outcomes: Sequence[Outcome] | None = None) -> None:
        """Wrap one report per framework (and each one's verification, where run)."""
        self.reports = tuple(reports)
        self.outcomes = None if outcomes is None else tuple(outcomes)

    @property
    def total(self) -> int:
        """The first (or only) framework's number of parameters."""
        return self.reports[0].total

    def to_dict(self) -> dict[str, Any]:
        """The ``paramcount.convlstm/1`` document (both frameworks: ``{"reports": [...]}``)."""
        from paramcount.render.convlstm import conv_data

        data = [conv_data(r, self._outcome(k))
                for k, r in enumerate(self.reports)]
        return data[0] if len(data) == 1 else {"reports": data}

    def documents(self) -> list[Document]:
        """The breakdown (both frameworks: combined into one document)."""
        from paramcount.render.convlstm import conv_breakdown

        documents = [conv_breakdown(r, self._outcome(k))
                     for k, r in enumerate(self.reports)]
        if len(documents) == 1:
            return documents
        from paramcount.render.breakdown import combined

        return [combined(documents, list(self.reports),
                         "The same ConvLSTM in Keras and Flax linen", self.outcomes)]


@checked
def convlstm(rank: int, input_channels: int, filters: int, kernel: int | str | Sequence[int], *,
             num_layers: int = 1, bidirectional: bool = False, bias: bool = True,
             data_format: str = "channels_last", framework: Frameworks = Framework.KERAS,
             dtype: DType | str = DType.FP32, verify: bool = False) -> ConvCounted:
    """Count a ConvLSTM layer (Keras' ``ConvLSTM1D/2D/3D`` and the common torch
    implementations), as ``paramcount convlstm`` does.

    ``rank`` is 1, 2 or 3; ``kernel`` a size or ``"3x3"``; ``data_format`` Keras' option;
    ``verify`` builds the real layer.

    >>> import paramcount
    >>> paramcount.convlstm(2, 3, 8, "3x3").total
    3200
    """
    from paramcount.engine.convlstm_report import (
        FRAMEWORKS,
        ConvLSTMSpec,
        build_conv_report,
        parse_kernel,
    )
    from paramcount.errors import BackendUnavailable, SpecError

    sizes = (tuple(kernel) if isinstance(kernel, (tuple, list))
             else parse_kernel(str(kernel), rank))
    if len(sizes) != rank:
        raise SpecError(
            f"{{kernel}} gives {len(sizes)} sizes for {{rank}}: give one size per spatial axis "
            "(or one size for all)",
            kernel=kernel,
            rank=rank,
        )
    reports = [
        build_conv_report(
            ConvLSTMSpec(rank, input_channels, filters, sizes, num_layers, bidirectional, bias,
                         data_format, f),  # type: ignore[arg-type]  # coerced by the spec
            dtype_of(dtype),
        )
        for f in frameworks_of(framework, FRAMEWORKS)
    ]
    outcomes = None
    if verify:
        from paramcount.verify import Unverified
        from paramcount.verify.convlstm_backend import verify_conv

        outcomes = []
        for report in reports:
            outcome: Outcome
            try:
                outcome = verify_conv(report)
            except BackendUnavailable as error:
                if len(reports) == 1:
                    raise
                outcome = Unverified(report.spec.framework, str(error))
            outcomes.append(outcome)
    return ConvCounted(reports, outcomes)
