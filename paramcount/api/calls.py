"""One library call per capability, each returning its result type; the CLI commands print
these results (``to_dict()`` is what ``--json`` prints, one place builds both).

Every import below the result types happens inside a call, so that ``import paramcount``
stays light and a call loads only what it uses.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from os import PathLike
from typing import TYPE_CHECKING, Any

from paramcount.api.result import Result

if TYPE_CHECKING:
    from paramcount.analysis.compute import Compute
    from paramcount.analysis.memory import Memory
    from paramcount.check.evaluate import Outcome
    from paramcount.check.session import FileResult
    from paramcount.engine.report import Report
    from paramcount.families.explain import KnobChange
    from paramcount.families.report import FamilyReport
    from paramcount.files.inspect import FamilyModel, InspectReport, Layer
    from paramcount.live.description import LiveTensor
    from paramcount.live.model import ModelSummary
    from paramcount.port.run import Result as PortResult
    from paramcount.read.load_error import LoadErrorAnalysis
    from paramcount.read.pipeline import Answer, Model
    from paramcount.read.pipeline import Layer as ReadLayer
    from paramcount.render.document import Document
    from paramcount.verify import Outcome as Outcome_
    from paramcount.verify.flops import FlopOutcome

    Extras = tuple[str, Memory | None, Compute | None]

FileName = str | PathLike[str]
"""A file's name: text or a path."""


# -- the count commands: layers from their options -------------------------------------------

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
    """:func:`paramcount.count`'s report as the count command's result (the same arguments):
    ``to_dict()`` is what ``paramcount lstm ... --json`` prints, and it shows itself as the
    command does."""
    from paramcount import count

    return Counted([count(*args, **kwargs)])


# -- summary: the live model in hand --------------------------------------------------------

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


# -- read: a paste ----------------------------------------------------------------------------

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


def read(text: str, overrides: Mapping[str, int] | None = None, *, source: str = "<text>",
         details: bool = False) -> Reading:
    """Read a pasted question (code, summaries, reprs, shape dumps): nothing is run;
    ``overrides`` give sizes the paste leaves open (``{"hidden_size": 256}``)."""
    from paramcount.read.pipeline import layer_reports
    from paramcount.read.pipeline import read as read_paste

    answer = read_paste(text, overrides or {}, source)
    return Reading(answer, layer_reports(answer) if details else None)


# -- inspect: model files ---------------------------------------------------------------------

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


def inspect(*paths: FileName, as_framework: str | None = None) -> Inspection:
    """Read model files (safetensors, PyTorch, ONNX, Keras, numpy) by their headers, nothing
    executed; ``as_framework`` also counts them the ``torch``, ``keras`` or ``onnx`` way."""
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


def load_error(text: str) -> LoadError:
    """Explain a failed ``load_state_dict`` / size-mismatch error message."""
    from paramcount.read.load_error import analyse

    return LoadError(analyse(text))


# -- check: config budgets --------------------------------------------------------------------

class Checked(Result):
    """What ``paramcount check`` says of config files: each model against its budget."""

    def __init__(self, results: Sequence[FileResult], update: bool = False) -> None:
        """Wrap one result per file (``update``: the run wrote counts back)."""
        self.results = list(results)
        self.update = update

    @property
    def outcomes(self) -> list[Outcome]:
        """Every model's outcome, file after file."""
        return [o for r in self.results for o in r.outcomes]

    @property
    def failed(self) -> int:
        """How many models missed an expectation."""
        return sum(r.failed for r in self.results)

    @property
    def errors(self) -> list[str]:
        """Every error, located (``file:line:column: ...``)."""
        return [str(e) for r in self.results for e in r.errors]

    @property
    def passed(self) -> bool:
        """Whether every model met every expectation and nothing was in error."""
        return not self.failed and not self.errors

    @property
    def exit_code(self) -> int:
        """The command's exit code: 2 for an error, 1 for a missed budget, else 0."""
        return 2 if self.errors else 1 if self.failed else 0

    def to_dict(self) -> dict[str, Any]:
        """The ``paramcount.check/1`` document (with ``update``: what was written back)."""
        from paramcount.render import check as render

        data = render.data_all(self.results)
        if self.update:
            data["updated"] = [c for r in self.results if r.written for c in r.changes]
            not_updated = [c for r in self.results if not r.written for c in r.changes]
            if not_updated:
                data["not_updated"] = not_updated
        return data

    def documents(self) -> list[Document]:
        """One document: each model's line, then the summary."""
        from paramcount.render import check as render
        from paramcount.render.document import Document, Math, Section

        lines = [line for o in self.outcomes
                 for line in (render.model_line(o), *render.grew_lines(o))]
        sections = [Section("Models", (Math(tuple(lines)),))] if lines else []
        if self.errors:
            sections.append(Section("Errors", (Math(tuple(self.errors)),)))
        return [Document("paramcount check", render.summary_all(self.results),
                         tuple(sections))]


def check(*paths: FileName, verify: bool = False, update: bool = False) -> Checked:
    """Check the models of config files (TOML or JSON; none: ./pyproject.toml's
    ``[tool.paramcount]``) against their budgets; ``update`` writes counts back."""
    from paramcount.check.session import check_file, expand
    from paramcount.errors import ConfigError

    try:
        names = expand([str(p) for p in paths])
    except ConfigError as error:
        from paramcount.check.session import FileResult

        return Checked([FileResult(str(paths[0]) if paths else "", errors=[error])])
    return Checked([check_file(name, verify=verify, update=update) for name in names],
                   update)


# -- the families -----------------------------------------------------------------------------

class FamilyCount(Result):
    """A modern recurrent family's model counted tensor by tensor (and explained)."""

    def __init__(self, report: FamilyReport, explain: bool = False,
                 what_if: Sequence[KnobChange] = ()) -> None:
        """Wrap a family report (``explain``/``what_if``: what each option adds)."""
        self.report = report
        self.explain = explain
        self.what_if = list(what_if)

    @property
    def total(self) -> int:
        """The number of parameters, tied weights once."""
        return self.report.total

    @property
    def family(self) -> str:
        """The family's name: ``mamba``, ``rwkv``, …."""
        return self.report.family

    @property
    def config(self) -> Any:
        """The family's config record, every field set."""
        return self.report.config

    def to_dict(self) -> dict[str, Any]:
        """The family command's ``--json`` document."""
        from paramcount.render.family import family_data

        data = family_data(self.report)
        if self.explain or self.what_if:
            from paramcount.render.family_explain import explanation_data

            data["explanation"] = explanation_data(self.report, self.what_if)
        return data

    def documents(self) -> list[Document]:
        """The family model's one document."""
        from paramcount.render.document import Section
        from paramcount.render.family import family_breakdown

        explained: tuple[Section, ...] = ()
        if self.explain or self.what_if:
            from paramcount.render.family_explain import explanation

            explained = explanation(self.report, self.what_if)
        return [family_breakdown(self.report, explained)]


def family(name: str, config: FileName | None = None, *, dtype: str = "fp32",
           explain: bool = False, what_if: Mapping[str, object] | None = None,
           **options: object) -> FamilyCount:
    """Count family ``name``'s model (``mamba``, ``mamba2``, ``rwkv``, ``xlstm``, …) from its
    config fields as keyword arguments, or a ``config.json`` they override."""
    from paramcount.engine.spec import DType
    from paramcount.errors import SpecError
    from paramcount.families import registry as families
    from paramcount.families.explain import knob_change
    from paramcount.families.report import build_family_report

    if name not in families.FAMILIES:
        raise SpecError(f"{{name}} is not one of: {', '.join(families.names())}", name=name)
    fields = {o.field for o in families.options(name)}
    if unknown := sorted(set(options) - fields):
        raise SpecError(f"{{option}} is no field of {name} (fields: {', '.join(sorted(fields))})",
                        option=unknown[0])
    built = families.build(name, options, None if config is None else str(config))
    changes = [knob_change(name, built, field, value)
               for field, value in (what_if or {}).items()]
    return FamilyCount(build_family_report(name, built, DType(dtype)), explain, changes)


# -- port: weights between conventions --------------------------------------------------------

class Ported(Result):
    """What ``paramcount port`` did: a plan for every tensor, what was written and proved."""

    def __init__(self, result: PortResult) -> None:
        """Wrap a port's result."""
        self.result = result

    @property
    def ok(self) -> bool:
        """Whether every verified layer computes what the source computes (True unverified)."""
        return self.result.ok

    @property
    def written(self) -> str | None:
        """The file written, or None."""
        return self.result.written

    @property
    def exit_code(self) -> int:
        """The command's exit code: 1 where a verified port computes something else."""
        return 0 if self.result.ok else 1

    def to_dict(self) -> dict[str, Any]:
        """The ``port --json`` document."""
        from paramcount.render.port import port_data

        return port_data(self.result)

    def documents(self) -> list[Document]:
        """The port's one document: each layer's plan, tensor by tensor."""
        from paramcount.render.port import port_document

        return [port_document(self.result)]


def port(path: FileName, to: str, *, source_framework: str | None = None,
         out: FileName | None = None, verify: bool = False, seed: int = 0,
         allow_unmapped: bool = False, nonlinearity: str | None = None,
         forget_bias: float = 1.0, reset_after: bool | None = None,
         linear_before_reset: bool | None = None, merge_modes: Sequence[str] | None = None,
         model: str | None = None, kwargs: Mapping[str, Any] | None = None,
         source_model: str | None = None, source_kwargs: Mapping[str, Any] | None = None,
         **expect: Any) -> Ported:
    """Port the recurrent (and linear, embedding, conv, norm) weights of the file ``path`` to
    framework ``to``'s convention; ``out`` writes them, ``verify`` runs both sides;
    ``expect`` checks the source (``hidden_size=64``)."""
    from paramcount.engine.spec import Framework, MergeMode, Nonlinearity
    from paramcount.port.plan import TargetOptions
    from paramcount.port.run import SourceOptions
    from paramcount.port.run import port as run_port

    chosen = Nonlinearity(nonlinearity) if nonlinearity else None
    modes = tuple(MergeMode(m) for m in merge_modes) if merge_modes else None
    return Ported(run_port(
        str(path),
        SourceOptions(Framework(source_framework) if source_framework else None, chosen,
                      forget_bias, dict(expect)),
        TargetOptions(Framework(to), reset_after, linear_before_reset, modes, forget_bias,
                      chosen),
        out=None if out is None else str(out), verify=verify, seed=seed,
        allow_unmapped=allow_unmapped, model=model, kwargs=dict(kwargs or {}),
        source_model=source_model, source_kwargs=dict(source_kwargs or {})))
