"""Models -> what they hold, row by row: the whole-model table behind totals, details and diffs.

Hand-written layers are counted by the formula engine; ``factory`` models are built by their
framework (``paramcount.factories.factory``); ``file`` models are read by the ``inspect`` readers
(``paramcount.files.dispatch``), headers only. Each recurrent row carries its LayerSpec and the
engine's count of it, so that a real module is cross-checked against the formulas.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

from paramcount.checking.config import Config, Layer, Model, recurrent_count
from paramcount.checking.explain import convlstm_command, explain_command
from paramcount.engine.spec import LayerSpec
from paramcount.errors import ConfigError
from paramcount.factories.policy import RUN_FACTORIES, FactoryPolicy, refusal
from paramcount.record import record


@record
class Row:
    """One module of a model's table."""

    name: str
    """The module's name: ``rnn``, ``encoder.rnn`` (torch), ``bidirectional`` (Keras),
    ``layers[2]`` or the layer's ``name`` (hand-written)."""
    type: str
    """Its class (``LSTM``) or, for a hand-written layer, the code that builds it."""
    output: str | None
    """Its output width or shape, where known."""
    params: int
    non_trainable: int = 0
    """Of ``params``, those not trained (Keras' moving statistics)."""
    buffers: int = 0
    """torch buffers (BatchNorm's running statistics): not parameters, shown apart."""
    spec: LayerSpec | None = None
    """The recurrent stack this module is, when it is one."""
    formula: int | None = None
    """The formula engine's count of ``spec``."""
    explain: str | None = None
    """The ``paramcount`` command that explains a row without ``spec`` (a ConvLSTM)."""

    @property
    def command(self) -> str | None:
        """The ``paramcount`` command that explains this row's count (recurrent, ConvLSTM)."""
        return explain_command(self.spec) if self.spec is not None else self.explain


@record
class Measured:
    """Everything one model holds: its total and its rows (which add up to it)."""

    total: int
    rows: tuple[Row, ...]
    origin: str
    """What was measured: ``hand-written layers``, ``Listener from speech.models:build``."""
    non_trainable: int = 0
    buffers: int = 0
    notes: tuple[str, ...] = ()
    """What the reading found to say (a folder's config.json the tensors contradict)."""

    @property
    def mismatches(self) -> tuple[Row, ...]:
        """Recurrent rows whose real count differs from the formula engine's."""
        return tuple(r for r in self.rows if r.formula is not None and r.formula != r.params)


def folders(config: Config) -> list[str]:
    """Where a factory is imported from: the config file's folder, then the current one."""
    path = config.source.path or config.source.name
    return [os.path.dirname(os.path.abspath(path)), os.getcwd()]


def from_layers(model: Model) -> Measured:
    from paramcount.checking.frames import frame_text
    from paramcount.engine.spec import Framework

    last = model.framework is not Framework.TORCH  # channels last everywhere but in torch

    def command(layer: Layer) -> str | None:
        if layer.kind == "convlstm" and layer.input_width:
            return convlstm_command(dict(layer.options), layer.input_width,
                                    model.framework.value)
        return None

    rows = tuple(
        Row(layer.name or f"layers[{layer.index}]", layer.description,
            frame_text(layer.frame, layer.output_width, last)
            if layer.frame
            else str(layer.output_width), layer.params, layer.non_trainable, layer.buffers,
            spec=layer.spec, formula=None if layer.spec is None else layer.params,
            explain=command(layer))
        for layer in model.layers)
    return Measured(model.total, rows, "hand-written layers",
                    sum(r.non_trainable for r in rows), sum(r.buffers for r in rows))


def measure(model: Model, config: Config,
            factories: FactoryPolicy = RUN_FACTORIES) -> Measured | None:
    """What a factory or file ``model`` holds (None for hand-written layers, which the formula
    engine counted already); one that cannot be read is a located ConfigError."""
    if model.factory is not None:
        return _factory(model, config, factories)
    if model.file is not None:
        return _file(model, config)
    if model.family is not None:
        return _family(model)
    return None


def _family(model: Model) -> Measured:
    """A family model from its config: one row per part (embeddings, blocks, norm, head)."""
    from paramcount.families.report import build_family_report

    assert model.family is not None
    report = build_family_report(model.family, model.family_config)
    rows = tuple(Row(part.label, report.reference, None, part.total) for part in report.parts)
    return Measured(report.total, rows, f"{report.title} from its config")


def _factory(model: Model, config: Config, factories: FactoryPolicy) -> Measured:
    return built_factory(model, config, factories, folders(config))


def built_factory(model: Model, config: Config, factories: FactoryPolicy,
                  where: Sequence[str], cwd: str | None = None,
                  env: Mapping[str, str] | None = None) -> Measured:
    """The factory ``model``'s model built in the fence, imported from ``where`` first, the
    child working in ``cwd`` (None: ours) with ``env`` (None: ours); a located ConfigError
    when it is refused or fails."""
    from paramcount.factories.factory import FactoryError
    from paramcount.factories.fence import build

    assert model.factory is not None
    if not factories.allowed:
        raise config.source.error((*model.path, "factory"), refusal(factories))
    try:
        built = build(model.factory, model.kwargs, model.framework, where, factories.timeout,
                      cwd, env)
    except FactoryError as error:
        raise config.source.error((*model.path, error.key), str(error)) from None
    rows = tuple(
        Row(m.name, m.type, m.output, m.params, m.non_trainable, m.buffers, m.spec,
            None if m.spec is None else recurrent_count(m.spec))
        for m in built.modules)
    return Measured(built.total, rows, f"{built.type} from {model.factory}", built.non_trainable,
                    built.buffers)


def _file(model: Model, config: Config) -> Measured:
    from pathlib import Path as FilePath

    from paramcount.errors import ParamcountError
    from paramcount.files.dispatch import read_file
    from paramcount.files.inspect import (
        disagreement,
        family_models,
        from_config,
        module_of,
        recognised,
    )

    assert model.file is not None
    base = os.path.dirname(os.path.abspath(config.source.path or config.source.name))
    path = model.file if os.path.isabs(model.file) else os.path.join(base, model.file)
    try:
        read = read_file(FilePath(path))
        listing = from_config(read)  # a folder may hold config.json only
    except ParamcountError as error:  # name the file as the config does
        raise config.source.error((*model.path, "file"),
                                  str(error).replace(path, model.file)) from None
    if not listing.tensors:  # nothing measured is no pass
        why = f" ({listing.notes[0]})" if listing.notes else ""
        raise config.source.error((*model.path, "file"),
                                  f"{model.file} holds no model tensors{why}"[:300])
    order = {t.name: n for n, t in enumerate(listing.tensors)}
    placed: list[tuple[int, Row]] = []
    claimed: set[str] = set()
    # tensors made from a config.json are its family model's, as inspect says: no recurrent
    # layer among them, and nothing for its config to contradict
    made = not read.tensors and read.config is not None
    for found in () if made else recognised(listing):
        names = set(found.names)
        count = sum(t.count for t in listing.tensors if t.name in names)
        claimed |= names
        first = min((order.get(n, len(order)) for n in names), default=len(order))
        placed.append((first, Row(found.prefix.rstrip("./") or "(model)", found.spec.cell.name,
                                  None, count, spec=found.spec,
                                  formula=recurrent_count(found.spec))))
    groups: dict[str, list[int]] = {}
    for n, tensor in enumerate(listing.tensors):
        if tensor.name in claimed:
            continue
        counts = groups.setdefault(module_of(tensor.name) or "(model)", [0, 0, n])
        counts[0 if tensor.trainable else 1] += tensor.count
    for owner, (trainable, other, first) in groups.items():
        if listing.format == "torch":  # state-dict extras are buffers, not parameters
            placed.append((first, Row(owner, "tensors", None, trainable, buffers=other)))
        else:
            placed.append((first, Row(owner, "weights", None, trainable + other,
                                      non_trainable=other)))
    rows = [row for _, row in sorted(placed, key=lambda item: item[0])]
    total = sum(r.params for r in rows)
    notes: tuple[str, ...] = ()
    if listing.config is not None and not made:  # what inspect says of a config the tensors
        # contradict
        notes = tuple(f"{found.name + ': ' if found.name else ''}{disagreement(claim)} (the "
                      "tensors are counted)" for found in family_models(listing, claimed)
                      for claim in found.claims if not claim.match)
    return Measured(total, tuple(rows), f"{listing.format} file {model.file}",
                    sum(r.non_trainable for r in rows), sum(r.buffers for r in rows), notes)


def measure_all(config: Config, factories: FactoryPolicy = RUN_FACTORIES
                ) -> tuple[list[Measured | None], list[ConfigError]]:
    """Every model measured, with the errors of those that could not be (each located)."""
    out: list[Measured | None] = []
    errors: list[ConfigError] = []
    for model in config.models:
        try:
            out.append(measure(model, config, factories))
        except ConfigError as error:
            out.append(None)
            errors.append(error)
    return out, errors


def require(models: Sequence[Model], factories: FactoryPolicy = RUN_FACTORIES) -> None:
    """Raise BackendUnavailable (exit 3) when a factory's framework is not installed (none is
    needed when factories are refused)."""
    from paramcount.checking.build import require as require_frameworks

    if factories.allowed:
        require_frameworks([m.framework for m in models if m.factory is not None],
                           "building a factory model")


