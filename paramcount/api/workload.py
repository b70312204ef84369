"""``compute(cell, ...)`` and ``memory(cell, ...)``: a layer's forward-pass MACs and FLOPs and
its training memory (``paramcount compute``, ``paramcount memory``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from paramcount.api.arguments import checked
from paramcount.api.count import Frameworks, dtype_of, layer_specs
from paramcount.api.verdict import Verified
from paramcount.engine.spec import Cell, DType, Framework

if TYPE_CHECKING:
    from paramcount.analysis.compute import Compute
    from paramcount.analysis.memory import Memory
    from paramcount.engine.report import Report
    from paramcount.engine.spec import LayerSpec
    from paramcount.render.document import Document
    from paramcount.verify import Outcome
    from paramcount.verify.flops import FlopOutcome

COMPUTE_SCHEMA = "paramcount.compute/1"
MEMORY_SCHEMA = "paramcount.memory/1"


class _Reported(Verified):
    """A result of layers that may have been checked against their real frameworks, one
    report per layer."""

    reports: tuple[Report, ...]

    @property
    def total(self) -> int:
        """The first (or only) layer's number of parameters."""
        return self.reports[0].total


class Computed(_Reported):
    """The MACs and FLOPs of one forward pass, step by step, for each framework asked."""

    def __init__(self, reports: Sequence[Report], computes: Sequence[Compute],
                 outcomes: Sequence[Outcome] | None = None,
                 flops: Sequence[FlopOutcome | None] | None = None) -> None:
        """Wrap each layer's report and forward pass (its verification and measured FLOPs,
        where run)."""
        self.reports = tuple(reports)
        self.computes = tuple(computes)
        self.outcomes = None if outcomes is None else tuple(outcomes)
        self.flops = None if flops is None else tuple(flops)

    @property
    def macs(self) -> int:
        """The first (or only) layer's multiply-accumulates."""
        return self.computes[0].macs

    @property
    def flop_count(self) -> int:
        """The first (or only) layer's floating-point operations."""
        return self.computes[0].flops

    def to_dict(self) -> dict[str, Any]:
        """The ``paramcount.compute/1`` document (several: ``{"reports": [...]}``)."""
        from paramcount.render.workload import workload_report_data

        data = [workload_report_data(COMPUTE_SCHEMA, r, self._outcome(k), compute=c,
                                     flops=self.flops[k] if self.flops else None)
                for k, (r, c) in enumerate(zip(self.reports, self.computes, strict=True))]
        return data[0] if len(data) == 1 else {"reports": data}

    def documents(self) -> list[Document]:
        """One document per layer: the MACs and FLOPs first, then where they come from."""
        from paramcount.render.workload import compute_document

        return [compute_document(r, c, self._outcome(k), self.flops[k] if self.flops else None)
                for k, (r, c) in enumerate(zip(self.reports, self.computes, strict=True))]


class TrainingMemory(_Reported):
    """The bytes to train a layer: parameters, gradients and the optimizer's state."""

    def __init__(self, reports: Sequence[Report], memories: Sequence[Memory],
                 outcomes: Sequence[Outcome] | None = None) -> None:
        """Wrap each layer's report and training memory (its verification, where run)."""
        self.reports = tuple(reports)
        self.memories = tuple(memories)
        self.outcomes = None if outcomes is None else tuple(outcomes)

    @property
    def bytes(self) -> int:
        """The first (or only) layer's bytes to train."""
        return self.memories[0].bytes

    def to_dict(self) -> dict[str, Any]:
        """The ``paramcount.memory/1`` document (several: ``{"reports": [...]}``)."""
        from paramcount.render.workload import workload_report_data

        data = [workload_report_data(MEMORY_SCHEMA, r, self._outcome(k), memory=m)
                for k, (r, m) in enumerate(zip(self.reports, self.memories, strict=True))]
        return data[0] if len(data) == 1 else {"reports": data}

    def documents(self) -> list[Document]:
        """One document per layer: the bytes first, then line by line."""
        from paramcount.render.workload import memory_document

        return [memory_document(r, m, self._outcome(k))
                for k, (r, m) in enumerate(zip(self.reports, self.memories, strict=True))]


def _verified(reports: list[Report], verify: bool) -> list[Outcome] | None:
    """The real layers' verdicts, where asked (a missing framework skipped among several)."""
    if not verify:
        return None
    from paramcount.verify import verify_reports

    return verify_reports(reports, skip_missing=len(reports) > 1)


def compute_specs(specs: Sequence[LayerSpec], seq_len: int | None = None,
                  batch: int | None = None, lengths: Sequence[int] | None = None,
                  verify: bool = False) -> Computed:
    """One forward pass of each of ``specs`` (``seq_len``: 1, or the longest of
    ``lengths``, when neither is given); ``verify`` also measures the MACs with torch."""
    from paramcount.analysis.compute import forward
    from paramcount.engine.report import build_report

    if seq_len is None and lengths is None:
        seq_len = 1
    reports = [build_report(spec) for spec in specs]
    computes = [forward(r.spec, seq_len, batch, None if lengths is None else tuple(lengths))
                for r in reports]
    outcomes = _verified(reports, verify)
    flops = None
    if verify:
        from paramcount.api.verdict import check_flops

        flops = check_flops(computes, skip_missing=len(reports) > 1)
    return Computed(reports, computes, outcomes, flops)


def memory_specs(specs: Sequence[LayerSpec], optimizer: str = "adam",
                 mixed_precision: bool = False, dtype: DType | str = DType.FP32,
                 verify: bool = False) -> TrainingMemory:
    """The training memory of each of ``specs`` with ``optimizer`` (``sgd``, ``momentum``,
    ``adam``, ``adamw``), its parameters stored as ``dtype``."""
    from paramcount.analysis.memory import training_memory
    from paramcount.engine.report import build_report

    reports = [build_report(spec, dtype_of(dtype)) for spec in specs]
    memories = [training_memory(r.spec, optimizer, r.dtype, mixed_precision) for r in reports]
    return TrainingMemory(reports, memories, _verified(reports, verify))


@checked
def compute(cell: Cell | str, input_size: int, hidden_size: int, *, seq_len: int | None = None,
            batch: int | None = None, lengths: Sequence[int] | None = None,
            framework: Frameworks = Framework.TORCH, verify: bool = False,
            **layer: Any) -> Computed:
    """A layer's multiply-accumulates and FLOPs for one forward pass, as
    ``paramcount compute`` does.

    ``seq_len`` and ``batch`` size the pass; ``lengths`` gives a padded batch's true lengths;
    ``verify`` measures the real layer; ``layer`` takes :func:`paramcount.count`'s options.

    >>> import paramcount
    >>> c = paramcount.compute("lstm", 32, 128, seq_len=100, batch=8)
    >>> c.macs, c.flop_count
    (65536000, 133222400)
    """
    specs = layer_specs(cell, input_size, hidden_size, framework=framework, **layer)
    return compute_specs(specs, seq_len, batch, lengths, verify)


@checked
def memory(cell: Cell | str, input_size: int, hidden_size: int, *, optimizer: str = "adam",
           mixed_precision: bool = False, dtype: DType | str = DType.FP32,
           framework: Frameworks = Framework.TORCH, verify: bool = False,
           **layer: Any) -> TrainingMemory:
    """The memory training a layer takes (weights, gradients, the optimizer's state), as
    ``paramcount memory`` does.

    ``optimizer`` is ``adam``, ``sgd``, ...; ``mixed_precision`` keeps fp32 master weights;
    ``layer`` takes :func:`paramcount.count`'s options.

    >>> import paramcount
    >>> paramcount.memory("lstm", 32, 128, optimizer="adam").bytes
    1327120
    """
    specs = layer_specs(cell, input_size, hidden_size, framework=framework, **layer)
    return memory_specs(specs, optimizer, mixed_precision, dtype, verify)
