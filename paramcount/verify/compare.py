"""Engine tensors versus a real framework's tensors: the pure comparison both backends share."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import zip_longest

from paramcount.engine.conventions import Tensor
from paramcount.engine.spec import Framework

RealTensor = tuple[str, tuple[int, ...]]
"""A tensor as the framework reports it: its name and its shape."""


@dataclass(frozen=True)
class TensorCheck:
    """One position of the two ordered lists: the engine's tensor beside the real one."""

    index: int
    expected: RealTensor | None
    """The engine's (name, shape), or None where the framework has more tensors."""
    actual: RealTensor | None
    """The framework's (name, shape), or None where the engine has more tensors."""

    @property
    def match(self) -> bool:
        """Whether both lists hold the same name and shape at this position."""
        return self.expected is not None and self.expected == self.actual


@dataclass(frozen=True)
class Verification:
    """What building the real layer showed: per-tensor checks, totals and a verdict."""

    framework: Framework
    version: str
    """The framework's version, e.g. ``2.13.0+cpu`` or ``3.15.1 (tensorflow 2.21.0)``."""
    checks: tuple[TensorCheck, ...]
    expected_total: int
    """The engine's total: the sum over its tensors."""
    actual_total: int
    """The real layer's total: the sum over its tensors."""
    formula_total: int | None = None
    """The engine's closed-form total, when given: it must agree as well."""
    refused: str | None = None
    """The framework's error, when it refused to build what the engine counted."""

    @property
    def match(self) -> bool:
        """Whether every tensor and every total agree."""
        return (
            self.refused is None
            and all(check.match for check in self.checks)
            and self.actual_total == self.expected_total
            and self.formula_total in (None, self.actual_total)
        )

    @property
    def differences(self) -> tuple[TensorCheck, ...]:
        """The positions where the two lists disagree."""
        return tuple(check for check in self.checks if not check.match)

    @property
    def label(self) -> str:
        """The framework and its version: ``PyTorch 2.13.0+cpu``."""
        return f"{self.framework.display_name} {self.version}"


@dataclass(frozen=True)
class Unverified:
    """A framework that could not be asked, and why (usually: it is not installed)."""

    framework: Framework
    reason: str


def _count(shape: tuple[int, ...]) -> int:
    return math.prod(shape)


def compare(
    framework: Framework,
    version: str,
    expected: Sequence[Tensor],
    actual: Sequence[RealTensor],
    formula_total: int | None = None,
) -> Verification:
    """Compare the engine's tensors with the framework's, position by position, and the totals.

    >>> from paramcount.engine.conventions import Direction
    >>> engine = [Tensor("weight_ih", (4, 2), 0, Direction.FORWARD, 2, "weight_ih")]
    >>> compare(Framework.TORCH, "x", engine, [("weight_ih", (4, 2))]).match
    True
    >>> result = compare(Framework.TORCH, "x", engine, [("weight_ih", (4, 3))])
    >>> result.match, result.differences[0].actual
    (False, ('weight_ih', (4, 3)))
    """
    engine = [(t.name, tuple(t.shape)) for t in expected]
    real = [(name, tuple(int(d) for d in shape)) for name, shape in actual]
    checks = tuple(
        TensorCheck(index, e, a) for index, (e, a) in enumerate(zip_longest(engine, real))
    )
    return Verification(
        framework,
        version,
        checks,
        sum(_count(shape) for _, shape in engine),
        sum(_count(shape) for _, shape in real),
        formula_total,
    )


def refused(
    framework: Framework, version: str, expected: Sequence[Tensor], error: BaseException
) -> Verification:
    """The verdict when the framework raised an error building what the engine counted."""
    engine = tuple(
        TensorCheck(index, (t.name, tuple(t.shape)), None) for index, t in enumerate(expected)
    )
    total = sum(t.count for t in expected)
    message = f"{type(error).__name__}: {error}".splitlines()[0]
    return Verification(framework, version, engine, total, 0, None, message)
