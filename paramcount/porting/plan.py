"""The port plan: for each target tensor, the source tensors and every operation that makes it.

:func:`target_side` decides the target's configuration from the source's and the options the
user gave, and refuses (:class:`PortRefused`, exit 2) what no choice of weights could make
compute the same function, naming the target options that would be exact. :func:`plan` then
composes the source convention's reader with the target convention's writer.
"""

from __future__ import annotations

from dataclasses import dataclass

from paramcount.engine.flags import cli_label
from paramcount.engine.spec import Cell, Framework, LayerSpec, MergeMode, Nonlinearity
from paramcount.errors import ParamcountError, SpecError
from paramcount.porting.expr import Expr, Shape, exact, sources, steps
from paramcount.porting.layouts import Canonical, Key, Side, read, write
from paramcount.porting.units import Unit, left_out, plan_rows


class PortRefused(ParamcountError):
    """A port that cannot compute the same function in the target convention."""


@dataclass(frozen=True)
class TargetOptions:
    """What the user asked of the target; None means "whatever is exact for the source"."""

    framework: Framework
    reset_after: bool | None = None
    """Keras GRU's reset_after."""
    linear_before_reset: bool | None = None
    """ONNX GRU's linear_before_reset."""
    merge_modes: tuple[MergeMode, ...] | None = None
    forget_bias: float = 1.0
    """TF1 LSTMCell's forget_bias (its default is 1.0)."""
    nonlinearity: Nonlinearity | None = None


@dataclass(frozen=True)
class Row:
    """One target tensor and how it is made."""

    name: str
    shape: Shape
    expr: Expr

    @property
    def sources(self) -> list[str]:
        """The source tensors it reads (none for a tensor of zeros)."""
        return sources(self.expr)

    @property
    def steps(self) -> list[str]:
        """The operations applied, innermost first (empty for a plain copy)."""
        return steps(self.expr)

    @property
    def exact(self) -> bool:
        """Whether the values are only moved (no bias sum, no constant added)."""
        return exact(self.expr)


@dataclass(frozen=True)
class ModulePlan:
    """One recurrent module of the source and its port."""

    source: Side
    target: Side
    rows: tuple[Row, ...]
    parts: tuple[Side, ...] = ()
    """All the source layers this target is made of, when it is not ``source`` alone (two
    unidirectional layers into one bidirectional one, a stack into separate layers)."""


@dataclass(frozen=True)
class UnitPlan:
    """One common layer of the source (a Linear, an Embedding, a norm …) and its port."""

    source: Unit
    target: Unit
    rows: tuple[Row, ...]
    left_out: tuple[str, ...] = ()
    """Source tensors the target has no slot for (torch's batch counter in Keras)."""


def plan_unit(source: Unit, target: Unit) -> UnitPlan:
    """Every tensor of the target layer with how it is made, and what is left out."""
    rows = tuple(Row(name, shape, expr) for name, shape, expr in plan_rows(source, target))
    return UnitPlan(source, target, rows, tuple(left_out(source, target)))


_ALWAYS_RESET_AFTER = (Framework.TORCH, Framework.FLAX_LINEN, Framework.FLAX_NNX,
                       Framework.TF1_CUDNN)
_PROJECTING = (Framework.TORCH, Framework.TF1)
_PEEPHOLES = (Framework.ONNX, Framework.TF1)
_MERGING = (Framework.KERAS, Framework.TF1_CUDNN)


def target_side(source: Side, options: TargetOptions) -> Side:
    """The target's configuration, or PortRefused naming the targets that would be exact."""
    try:
        return _target_side(source, options)
    except PortRefused as error:
        raise PortRefused(f"{error}{_exact_targets(source)}") from None


def _target_side(source: Side, options: TargetOptions) -> Side:
    spec, fw = source.spec, options.framework
    if source.framework is fw:
        raise PortRefused(f"the source is already in the {fw.display_name} convention")
    if source.recurrent_activation != "sigmoid" and fw is not Framework.KERAS:
        raise PortRefused(
            f"the source's gates use recurrent_activation='{source.recurrent_activation}' "
            f"(old Keras), and {fw.display_name}'s use sigmoid"
        )
    if spec.proj_size and fw not in _PROJECTING:
        raise PortRefused(
            f"a projected LSTM (proj_size {spec.proj_size}) has no counterpart in "
            f"{fw.display_name}, which has no projection"
        )
    if spec.peepholes and fw not in _PEEPHOLES:
        raise PortRefused(f"{fw.display_name} LSTMs have no peepholes, and the source has them")
    nonlinearity = spec.nonlinearity
    if options.nonlinearity is not None:
        if spec.nonlinearity not in (None, options.nonlinearity):
            raise PortRefused(
                f"the source RNN uses {spec.nonlinearity}, not --nonlinearity "
                f"{options.nonlinearity}"
            )
        nonlinearity = options.nonlinearity
    reset_after = source.reset_after
    if spec.cell is Cell.GRU:
        wanted = {Framework.KERAS: options.reset_after,
                  Framework.ONNX: options.linear_before_reset}.get(fw)
        if fw in _ALWAYS_RESET_AFTER:
            wanted = True
        elif fw is Framework.TF1:
            wanted = False
        if wanted is not None and wanted != source.reset_after:
            before, after = "before", "after"
            if source.reset_after:
                before, after = after, before
            raise PortRefused(
                f"the source GRU applies its reset gate {before} the recurrent matmul, and "
                f"{_gru_variant(fw, wanted)} applies it {after}: no weights make them equal"
            )
        if fw is Framework.FLAX_NNX and spec.bias and source.reset_after and \
                source.framework is not Framework.FLAX_NNX:
            raise PortRefused(
                "nnx.GRUCell has no bias on the recurrent part of its n gate, and the source "
                "has one"
            )
    modes = _merge_modes(source, options)
    bias = spec.bias or fw in (Framework.FLAX_LINEN, Framework.FLAX_NNX, Framework.TF1,
                               Framework.TF1_CUDNN)
    try:
        target = LayerSpec(
            cell=spec.cell,
            input_size=spec.input_size,
            hidden_size=spec.hidden_size,
            num_layers=spec.num_layers,
            bidirectional=spec.bidirectional,
            bias=bias,
            proj_size=spec.proj_size,
            framework=fw,
            merge_modes=modes if fw in _MERGING and spec.bidirectional else None,
            reset_after=reset_after if fw is Framework.KERAS and spec.cell is Cell.GRU
            else None,
            nonlinearity=nonlinearity,
            single_cell=spec.single_cell,
            peepholes=spec.peepholes,
        )
    except SpecError as error:
        raise PortRefused(error.render(cli_label)) from None
    return Side(
        target,
        prefix=source.prefix,
        reset_after=reset_after,
        forget_bias=options.forget_bias if fw is Framework.TF1 else 0.0,
    )


def _gru_variant(framework: Framework, reset_after: bool) -> str:
    if framework is Framework.KERAS:
        return f"Keras GRU(reset_after={reset_after})"
    if framework is Framework.ONNX:
        return f"ONNX GRU(linear_before_reset={int(reset_after)})"
    return {Framework.TORCH: "nn.GRU", Framework.TF1: "tf1 GRUCell",
            Framework.FLAX_LINEN: "Flax GRUCell", Framework.FLAX_NNX: "nnx.GRUCell",
            Framework.TF1_CUDNN: "CuDNNGRU"}[framework]


def _merge_modes(source: Side, options: TargetOptions) -> tuple[MergeMode, ...]:
    spec = source.spec
    layers = spec.num_layers
    have = spec.merge_modes if source.framework in _MERGING and spec.merge_modes else (
        (MergeMode.CONCAT,) * layers)
    if len(have) == 1:
        have = have * layers
    if options.framework not in _MERGING:
        if spec.bidirectional and any(m is not MergeMode.CONCAT for m in have[:-1]):
            raise PortRefused(
                f"{options.framework.display_name} concatenates both directions between "
                f"layers, and the source merges them with "
                f"'{','.join(m.value for m in have)}'"
            )
        return have
    wanted = options.merge_modes or have
    if len(wanted) == 1:
        wanted = wanted * layers
    if spec.bidirectional and tuple(wanted[:-1]) != tuple(have[:-1]):
        raise PortRefused(
            "--merge-mode " + ",".join(m.value for m in wanted) + " changes what the next "
            "layer reads; the source merges with " + ",".join(m.value for m in have)
        )
    return tuple(wanted)


def _exact_targets(source: Side) -> str:
    """``; exact targets: --to keras --reset-after, ...`` (tried, not guessed)."""
    found = []
    for fw in Framework:
        if fw is source.framework:
            continue
        variants: list[tuple[str, TargetOptions]] = [("", TargetOptions(fw))]
        if source.spec.cell is Cell.GRU and fw is Framework.KERAS:
            variants = [(" --reset-after", TargetOptions(fw, reset_after=True)),
                        (" --no-reset-after", TargetOptions(fw, reset_after=False))]
        if source.spec.cell is Cell.GRU and fw is Framework.ONNX:
            variants = [(" --linear-before-reset", TargetOptions(fw, linear_before_reset=True)),
                        (" --no-linear-before-reset",
                         TargetOptions(fw, linear_before_reset=False))]
        for words, options in variants:
            try:
                _target_side(source, options)
            except PortRefused:
                continue
            found.append(f"--to {fw.value}{words}")
    return "; exact targets: " + ", ".join(found) if found else "; no target is exact"


def plan(source: Side, target: Side, canonical: dict[Key, Canonical] | None = None,
         parts: tuple[Side, ...] = ()) -> ModulePlan:
    """Every target tensor, in the target convention's order, with how it is made (from
    ``canonical``, the target's layers and directions gathered from ``parts``, when given)."""
    canonical = read(source) if canonical is None else canonical
    made = []
    for tensor, expr in write(target, canonical):
        if expr.shape != tensor.shape:  # a bug in a layout, never the user's input
            raise AssertionError(f"{tensor.name}: made {expr.shape}, needs {tensor.shape}")
        made.append(Row(target.name(tensor), tensor.shape, expr))
    return ModulePlan(source, target, tuple(made), parts)
