"""The matmul FLOPs paramcount counts for a forward pass against those a real run measures.

Pure: :mod:`paramcount.verify.torch_flops` measures (:func:`paramcount.verify.check_flops`
dispatches); this module holds the result and the verdict. A long pass is measured over fewer
time steps (the work of every step is the same) and scaled by the exact ratio of sample-steps,
which the result states.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from paramcount.engine.spec import Framework

COUNTER = "torch.utils.flop_counter.FlopCounterMode"
"""What measures: PyTorch's FLOP counter, 2·m·n·k per matrix product."""


@dataclass(frozen=True)
class FlopCheck:
    """paramcount's matmul FLOPs beside the FLOP counter's, for one framework's layer."""

    framework: Framework
    version: str
    counted: int
    """paramcount's matmul FLOPs (2 · MACs) for the pass asked about."""
    measured: int
    """The FLOP counter's total over the pass it ran."""
    measured_seq_len: int
    measured_batch: int
    measured_lengths: tuple[int, ...] | None
    measured_steps: int
    """Sample-steps per direction of the measured pass."""
    steps: int
    """Sample-steps per direction of the pass asked about."""
    by_op: dict[str, int] = field(default_factory=dict)
    """The measured FLOPs per aten operator, e.g. ``{"aten.addmm": 163840}``."""
    device: str = "meta"
    """Where the layer ran: ``meta``, or ``cpu`` (oneDNN disabled) when meta counted nothing."""

    @property
    def scaled(self) -> bool:
        """Whether the measured pass was shorter than the one asked about."""
        return self.measured_steps != self.steps

    @property
    def real(self) -> Fraction:
        """The measured FLOPs scaled to the pass asked about (a whole number when it agrees)."""
        return Fraction(self.measured * self.steps, self.measured_steps)

    @property
    def match(self) -> bool:
        """Whether the real layer does exactly the matmul work paramcount counts."""
        return self.real == self.counted


@dataclass(frozen=True)
class FlopUnchecked:
    """A framework whose FLOPs were not measured, and why."""

    framework: Framework
    reason: str


FlopOutcome = FlopCheck | FlopUnchecked
