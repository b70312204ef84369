"""``compare(a, b, ...)``: configurations side by side, the difference explained
(``paramcount compare``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from paramcount.api.arguments import checked
from paramcount.api.verdict import Verified
from paramcount.engine.report import Report
from paramcount.engine.spec import Framework, LayerSpec
from paramcount.errors import SpecError

if TYPE_CHECKING:
    from paramcount.families.report import FamilyReport
    from paramcount.render.document import Document
    from paramcount.verify import Outcome

    Compared_ = Report | FamilyReport


class Compared(Verified):
    """Configurations side by side: their totals, and what changed between them (tensor by
    tensor for recurrent layers; each option's share between two models of one family)."""

    def __init__(self, items: Sequence[tuple[str, Compared_]],
                 outcomes: Sequence[Outcome] | None = None) -> None:
        """Wrap each configuration's label and report (a layer's or a family model's), and
        the layers' verification where run."""
        self.items = list(items)
        self.outcomes = None if outcomes is None else tuple(outcomes)

    @property
    def labels(self) -> list[str]:
        """How each configuration is named (the command line that counts it)."""
        return [label for label, _ in self.items]

    @property
    def reports(self) -> list[Compared_]:
        """Each configuration's report."""
        return [report for _, report in self.items]

    @property
    def totals(self) -> list[int]:
        """Each configuration's number of parameters."""
        return [report.total for _, report in self.items]

    @property
    def families(self) -> bool:
        """Whether a family model is among them (then the comparison is of totals and of
        the options that changed within a family)."""
        return not all(isinstance(r, Report) for _, r in self.items)

    def _layers(self) -> tuple[list[Report], list[str]]:
        reports = [r for _, r in self.items if isinstance(r, Report)]
        return reports, self.labels

    def to_dict(self) -> dict[str, Any]:
        """The ``paramcount.compare/1`` document (with a family model,
        ``paramcount.family-compare/1``)."""
        if self.families:
            from paramcount.render.family_explain import compare_data as family_data

            return family_data(list(self.items))
        from paramcount.render.compare import compare_data

        reports, labels = self._layers()
        return compare_data(reports, labels, None if self.outcomes is None
                            else list(self.outcomes))

    def documents(self) -> list[Document]:
        """The comparison's one document."""
        if self.families:
            from paramcount.render.family_explain import compare_document as family_document

            return [family_document(list(self.items))]
        from paramcount.render.compare import compare_document

        reports, labels = self._layers()
        return [compare_document(reports, labels, None if self.outcomes is None
                                 else list(self.outcomes))]


def across_frameworks(base: LayerSpec, label: str) -> tuple[list[LayerSpec], list[str]]:
    """``base`` in PyTorch and Keras, after its own framework if it is neither of those, each
    with its label (``label (as Keras)``); a :class:`SpecError` where one refuses it."""
    specs, labels = [], []
    if base.framework not in (Framework.TORCH, Framework.KERAS):
        specs.append(base)
        labels.append(label)
    for framework in (Framework.TORCH, Framework.KERAS):
        if framework is Framework.TORCH:
            specs.append(base.replace(framework=framework, merge_modes=None))
        else:
            specs.append(base.replace(framework=framework))
        labels.append(f"{label} (as {framework.display_name})"
                      if base.framework is not framework else label)
    return specs, labels


def compare_layers(specs: Sequence[LayerSpec], labels: Sequence[str],
                   verify: bool = False) -> Compared:
    """Recurrent layers side by side (``verify``: each against its real layer, a framework
    not installed skipped)."""
    from paramcount.engine.report import build_report

    reports = [build_report(spec) for spec in specs]
    outcomes = None
    if verify:
        from paramcount.verify import verify_reports

        outcomes = verify_reports(reports, skip_missing=True)
    return Compared(list(zip(labels, reports, strict=True)), outcomes)


def _label(report: object) -> str:
    """The command line that counts ``report``, without ``paramcount``."""
    from paramcount.families.report import FamilyReport

    if isinstance(report, FamilyReport):
        from paramcount.families.command import command_line as family_line

        return family_line(report.family, report.config).removeprefix("paramcount ")
    from paramcount.engine.commandline import command_line

    assert isinstance(report, Report)
    return command_line(report.spec).removeprefix("paramcount ")


@checked
def compare(*configs: Any, labels: Sequence[str] | None = None, frameworks: bool = False,
            verify: bool = False) -> Compared:
    """Compare layers and family models side by side, each difference explained, as
    ``paramcount compare`` does.

    ``configs`` are :func:`paramcount.count`'s reports, :func:`paramcount.counted`'s results,
    ``LayerSpec``'s or :func:`paramcount.family`'s results; ``labels`` names them (by default
    the command that counts each); ``frameworks`` compares one layer across PyTorch and Keras;
    ``verify`` checks each layer against its real framework.

    >>> import paramcount
    >>> k = paramcount.compare(paramcount.count("lstm", 28, 256), paramcount.count("gru", 28, 256))
    >>> k.labels, k.totals
    (['lstm -i 28 -H 256', 'gru -i 28 -H 256'], [292864, 219648])
    """
    from paramcount.analysis.compare import COMPARABLE
    from paramcount.families.report import FamilyReport

    if labels is not None and len(labels) != len(configs):
        raise SpecError(f"{len(labels)} labels for {len(configs)} configurations: give one "
                        "label each")
    items: list[tuple[str | None, Any]] = []
    for k, config in enumerate(configs):
        found = _reports_of(config)
        items += [(labels[k] if labels is not None else None, r) for r in found]
    if any(isinstance(r, FamilyReport) for _, r in items):
        if frameworks or verify:
            raise SpecError("frameworks and verify compare RNN, LSTM and GRU layers; a "
                            "family model's tensors are verified by its tests")
        if len(items) < 2:
            raise SpecError("give two or more configurations to compare")
        return Compared([(label or _label(r), r) for label, r in items])
    specs = [r.spec for _, r in items]
    names = [label or _label(r) for label, r in items]
    if frameworks:
        if len(specs) != 1:
            raise SpecError("frameworks=True compares one layer of one framework across "
                            f"frameworks; {len(specs)} were given")
        specs, names = across_frameworks(specs[0], names[0])
    if len(specs) < 2:
        raise SpecError("give two or more configurations to compare, or one with "
                        "frameworks=True")
    for spec in specs:
        if spec.framework not in COMPARABLE:
            raise SpecError(f"framework={spec.framework.value!r}: TF1's LSTMCell keeps its "
                            "input and recurrent weights in one kernel, so compare cannot "
                            "align them with another layer's; count it alone")
    return compare_layers(specs, names, verify)


def _reports_of(config: Any) -> list[Any]:
    """The layer or family reports that ``config`` stands for."""
    from paramcount.api.count import Counted
    from paramcount.api.family import FamilyCount
    from paramcount.engine.report import build_report
    from paramcount.families.report import FamilyReport

    if isinstance(config, Counted):
        return list(config.reports)
    if isinstance(config, FamilyCount):
        return [config.report]
    if isinstance(config, LayerSpec):
        return [build_report(config)]
    if isinstance(config, (Report, FamilyReport)):
        return [config]
    raise SpecError(f"{type(config).__name__} is no configuration to compare: give "
                    "paramcount.count(...), paramcount.counted(...), a LayerSpec or "
                    "paramcount.family(...)")
