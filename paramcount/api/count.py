"""The count commands' result (``rnn``, ``lstm``, ``gru``): one report or several side by side."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from paramcount.api.result import Result
from paramcount.engine.report import Report, build_report
from paramcount.engine.spec import Cell, DType, Framework, LayerSpec, MergeMode, Nonlinearity
from paramcount.errors import SpecError

if TYPE_CHECKING:
    from paramcount.analysis.compute import Compute
    from paramcount.analysis.memory import Memory
    from paramcount.render.document import Document
    from paramcount.verify import Outcome as Outcome_
    from paramcount.verify.flops import FlopOutcome

    Extras = tuple[str, Memory | None, Compute | None]


class Counted(Result):
    """What ``paramcount rnn|lstm|gru`` prints: one layer's report (or several side by side),
    with training memory and compute when asked for and verification when run."""

    def __init__(self, reports: Sequence[Report], extras: Sequence[Extras] | None = None,
                 outcomes: Sequence[Outcome_] | None = None,
                 flops: Sequence[FlopOutcome | None] | None = None) -> None:
        """Wrap the reports (and each one's framework name, memory and compute, its
        verification and its measured FLOPs, where asked for)."""
        self.reports = tuple(reports)
        self.extras = extras
        self.outcomes = outcomes
        self.flops = flops

    @property
    def total(self) -> int:
        """The first (or only) layer's number of parameters."""
        return self.reports[0].total

    def to_dict(self) -> dict[str, Any]:
        """The ``paramcount.count/1`` document (several: ``{"reports": [...]}``)."""
        from paramcount.render.data import report_data

        data = []
        for i, report in enumerate(self.reports):
            item = report_data(report, self.outcomes[i] if self.outcomes else None)
            memory, compute = self.extras[i][1:] if self.extras else (None, None)
            item.update(_workload_data(memory, compute, self.flops[i] if self.flops else None))
            data.append(item)
        return data[0] if len(data) == 1 else {"reports": data}

    def documents(self) -> list[Document]:
        """The breakdown (or the side-by-side table), with memory and compute when asked."""
        from paramcount.render.breakdown import breakdown, side_by_side

        outcomes = self.outcomes
        document = (
            breakdown(self.reports[0], outcomes[0] if outcomes else None)
            if len(self.reports) == 1 else side_by_side(self.reports, outcomes))
        if self.extras and any(m or c for _, m, c in self.extras):
            from paramcount.render.workload import append_sections

            document = append_sections(document, self.extras, self.flops)
        return [document]


def _workload_data(memory: Memory | None, compute: Compute | None,
                   flops: FlopOutcome | None = None) -> dict[str, Any]:
    """The ``memory`` and ``compute`` keys: null unless asked for (and then the renderer of
    the workload is loaded)."""
    if memory is None and compute is None:
        return {"memory": None, "compute": None}
    from paramcount.render.workload import compute_data, memory_data

    return {"memory": memory_data(memory), "compute": compute_data(compute, flops)}


def counted(*args: Any, **kwargs: Any) -> Counted:
    """:func:`paramcount.count`'s report as the count command's result (the same
    arguments): ``to_dict()`` is what ``paramcount lstm ... --json`` prints, and it shows itself
    as the command does.

    >>> import paramcount
    >>> c = paramcount.counted("lstm", 32, 128, num_layers=2, bidirectional=True)
    >>> c.total, c.to_dict()["schema"]
    (561152, 'paramcount.count/1')
    """
    return Counted([count(*args, **kwargs)])


def count(
    cell: Cell | str,
    input_size: int,
    hidden_size: int,
    *,
    num_layers: int = 1,
    bidirectional: bool = False,
    bias: bool = True,
    proj_size: int = 0,
    framework: Framework | str = Framework.TORCH,
    merge_mode: MergeMode | str | Sequence[MergeMode | str] | None = None,
    reset_after: bool | None = None,
    nonlinearity: Nonlinearity | str | None = None,
    single_cell: bool = False,
    peepholes: bool = False,
    dtype: DType | str = DType.FP32,
) -> Report:
    """Count the parameters of a recurrent layer stack and explain them tensor by tensor."""
    spec = layer_spec(cell, input_size, hidden_size, num_layers=num_layers,
                      bidirectional=bidirectional, bias=bias, proj_size=proj_size,
                      framework=framework, merge_mode=merge_mode, reset_after=reset_after,
                      nonlinearity=nonlinearity, single_cell=single_cell, peepholes=peepholes)
    return build_report(spec, dtype_of(dtype))


def dtype_of(dtype: DType | str) -> DType:
    """``dtype`` as a :class:`DType`; any other name is a :class:`SpecError` listing them."""
    try:
        return DType(dtype)
    except ValueError:
        raise SpecError(
            "{dtype} is not one of: " + ", ".join(d.value for d in DType), dtype=dtype
        ) from None


def layer_spec(
    cell: Cell | str,
    input_size: int,
    hidden_size: int,
    *,
    num_layers: int = 1,
    bidirectional: bool = False,
    bias: bool = True,
    proj_size: int = 0,
    framework: Framework | str = Framework.TORCH,
    merge_mode: MergeMode | str | Sequence[MergeMode | str] | None = None,
    reset_after: bool | None = None,
    nonlinearity: Nonlinearity | str | None = None,
    single_cell: bool = False,
    peepholes: bool = False,
) -> LayerSpec:
    """The validated :class:`LayerSpec` of :func:`count`'s arguments."""
    modes = None
    if merge_mode is not None:
        modes = (
            (merge_mode,) if isinstance(merge_mode, str)
            else tuple(merge_mode) if isinstance(merge_mode, (list, tuple))
            else merge_mode  # LayerSpec says why it is not a merge mode
        )
    return LayerSpec(
        cell=cell,  # type: ignore[arg-type]  # coerced and validated by LayerSpec
        input_size=input_size,
        hidden_size=hidden_size,
        num_layers=num_layers,
        bidirectional=bidirectional,
        bias=bias,
        proj_size=proj_size,
        framework=framework,  # type: ignore[arg-type]
        merge_modes=modes,  # type: ignore[arg-type]
        reset_after=reset_after,
        nonlinearity=nonlinearity,  # type: ignore[arg-type]
        single_cell=single_cell,
        peepholes=peepholes,
    )


Frameworks = Framework | str | Sequence[Framework | str]
"""One framework, ``"all"``, a comma list (``"torch,keras"``) or a sequence of them."""


def frameworks_of(framework: Frameworks,
                  allowed: tuple[Framework, ...] = tuple(Framework)) -> tuple[Framework | str, ...]:
    """The frameworks ``framework`` names (a single name is left for the spec to check)."""
    from paramcount.engine import flags

    if isinstance(framework, Framework):
        return (framework,)
    if isinstance(framework, str):
        if framework.strip().lower() != "all" and "," not in framework:
            return (framework,)
        chosen = flags.frameworks_named(framework, allowed)
        if isinstance(chosen, str):
            raise SpecError("{framework} is not one of: " + ", ".join(
                [f.value for f in allowed] + ["all"]), framework=chosen)
        return chosen
    return tuple(f for item in framework for f in frameworks_of(item, allowed))


def layer_specs(cell: Cell | str, input_size: int, hidden_size: int, *,
                framework: Frameworks = Framework.TORCH, **layer: Any) -> list[LayerSpec]:
    """:func:`layer_spec` for each framework ``framework`` names (``"all"``, ``"torch,keras"``);
    with several, an error names the framework refusing the layer."""
    frameworks = frameworks_of(framework)
    if len(frameworks) == 1:
        return [layer_spec(cell, input_size, hidden_size, framework=frameworks[0], **layer)]
    specs = []
    for each in frameworks:
        try:
            specs.append(layer_spec(cell, input_size, hidden_size, framework=each, **layer))
        except SpecError as error:
            raise SpecError(error.template + f" [{getattr(each, 'value', each)} refuses it; "
                            "pick frameworks with a list, e.g. framework='torch,keras']",
                            **error.values) from None
    return specs
