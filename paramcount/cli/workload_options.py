"""The count commands' options for training memory and forward compute, and what they ask for.

``--optimizer`` / ``--mixed-precision`` ask for :mod:`paramcount.analysis.memory`; ``--seq-len``,
``--batch`` and ``--lengths`` ask for :mod:`paramcount.analysis.compute`. Neither is computed
unless asked.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

import click

from paramcount.cli.options import WholeNumber
from paramcount.engine.counts import CountError, parse_int
from paramcount.engine.spec import DType, LayerSpec
from paramcount.errors import quote

if TYPE_CHECKING:  # memory and compute load only when asked for
    from paramcount.analysis.compute import Compute
    from paramcount.analysis.memory import Memory

OPTIMIZERS = ("sgd", "momentum", "adam", "adamw")
"""The values of memory.Optimizer (a test keeps the two equal)."""

F = TypeVar("F", bound=Callable[..., Any])


class Lengths(click.ParamType):  # type: ignore[type-arg]
    """A comma list of sequence lengths: ``7,3,1``."""

    name = "n[,n...]"

    def convert(
        self, value: Any, param: click.Parameter | None, ctx: click.Context | None
    ) -> tuple[int, ...]:
        """Parse ``7,3,1`` into whole numbers (their range is checked with the spec)."""
        if isinstance(value, tuple):
            return value
        out = []
        for part in str(value).split(","):
            try:
                out.append(parse_int(part, suffixes={"": 0}))
            except CountError as error:
                if "too large" in str(error):
                    self.fail(str(error), param, ctx)
                self.fail(f"{quote(part.strip())} in {quote(str(value))} is not a whole number "
                          "(give lengths like 7,3,1)", param, ctx)
        return tuple(out)


def memory_options(optimizer_default: str | None = None) -> Callable[[F], F]:
    """--optimizer and --mixed-precision (``optimizer_default`` for the memory command)."""

    def decorate(function: F) -> F:
        decorators = [
            click.option("--optimizer", type=click.Choice(OPTIMIZERS),
                         default=optimizer_default, show_default=optimizer_default is not None,
                         help="Show training memory: parameters, gradients and this "
                              "optimizer's state."),
            click.option("--mixed-precision", is_flag=True, default=False,
                         help="With --optimizer: --dtype fp16/bf16 weights plus fp32 master "
                              "weights and fp32 optimizer state."),
        ]
        for decorator in reversed(decorators):
            function = decorator(function)
        return function

    return decorate


def compute_options(seq_len_note: str = "") -> Callable[[F], F]:
    """--seq-len, --batch and --lengths (``seq_len_note`` ends --seq-len's help)."""

    def decorate(function: F) -> F:
        decorators = [
            click.option("--seq-len", "-T", "seq_len", type=WholeNumber(), default=None,
                         help="Show the MACs and FLOPs of one forward pass over T time steps."
                              + seq_len_note),
            click.option("--batch", "-N", "batch", type=WholeNumber(), default=None,
                         help="Sequences per batch for the compute count. [default: 1]"),
            click.option("--lengths", type=Lengths(), default=None,
                         help="Real lengths of a packed batch (torch), e.g. 7,3,1: only real "
                              "time steps are counted."),
        ]
        for decorator in reversed(decorators):
            function = decorator(function)
        return function

    return decorate


def workload_options(function: F) -> F:
    """--optimizer, --mixed-precision, --seq-len, --batch and --lengths."""
    return memory_options()(compute_options()(function))


@dataclass(frozen=True)
class Workload:
    """What the user asked for beyond the count."""

    optimizer: str | None
    mixed_precision: bool
    seq_len: int | None
    batch: int | None
    lengths: tuple[int, ...] | None

    def memory(self, spec: LayerSpec, dtype: DType) -> Memory | None:
        """Training memory of ``spec``, if asked for."""
        if self.optimizer is None:
            return None
        from paramcount.analysis.memory import Optimizer, training_memory

        return training_memory(spec, Optimizer(self.optimizer), dtype, self.mixed_precision)

    def compute(self, spec: LayerSpec) -> Compute | None:
        """The forward pass's MACs and FLOPs, if asked for."""
        if self.seq_len is None and self.lengths is None:
            return None
        from paramcount.analysis.compute import forward

        return forward(spec, self.seq_len, self.batch, self.lengths)


def pop_workload(options: dict[str, Any]) -> Workload:
    """Take the workload options out of ``options`` and check how they combine."""
    workload = Workload(
        optimizer=options.pop("optimizer", None),
        mixed_precision=options.pop("mixed_precision", False),
        seq_len=options.pop("seq_len", None),
        batch=options.pop("batch", None),
        lengths=options.pop("lengths", None),
    )
    if workload.mixed_precision and workload.optimizer is None:
        raise click.UsageError(
            "--mixed-precision describes training memory: give --optimizer too"
        )
    if workload.batch is not None and workload.seq_len is None and workload.lengths is None:
        raise click.UsageError("--batch needs --seq-len (or --lengths) to count compute")
    return workload
