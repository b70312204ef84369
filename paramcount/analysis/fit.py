"""Sizing to a budget: the largest hidden size whose parameters fit, solved exactly.

Pure and integer-only. With everything but H fixed, every convention's total is a quadratic
a·H² + b·H + c with integer coefficients (linear when an LSTM projection P is fixed). The
coefficients come from the convention itself by exact finite differences, the root from
``math.isqrt`` and a step of adjustment: no floating point anywhere.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from paramcount.engine import conventions
from paramcount.engine.counts import (
    parse_bytes as parse_bytes,  # re-exported: budgets are read there
)
from paramcount.engine.counts import parse_count as parse_count
from paramcount.engine.spec import DType, LayerSpec
from paramcount.errors import Mismatch, SpecError


class BudgetTooSmall(Mismatch):
    """Not even the smallest hidden size fits the budget (exit 1: a budget exceeded)."""

    def __init__(self, message: str, smallest: Fit) -> None:
        super().__init__(message)
        self.smallest = smallest
        """What was asked, with the smallest hidden size as ``next``: the size that does not
        fit; its own ``hidden_size`` and ``total`` are those of no layer (0)."""


@dataclass(frozen=True)
class Quadratic:
    """total(H) = a·H² + b·H + c, exactly."""

    a: int
    b: int
    c: int

    def __call__(self, h: int) -> int:
        """The total at hidden size ``h``."""
        return (self.a * h + self.b) * h + self.c


def min_hidden(spec: LayerSpec, round_to: int = 1) -> int:
    """The smallest hidden size the framework accepts that is a multiple of ``round_to``."""
    smallest = spec.proj_size + 1
    return -(-smallest // round_to) * round_to


def quadratic(spec: LayerSpec) -> Quadratic:
    """The total of ``spec`` as a polynomial in its hidden size, from exact finite differences.

    >>> from paramcount.engine.spec import Cell, LayerSpec
    >>> quadratic(LayerSpec(Cell.LSTM, 32, 1, num_layers=2, bidirectional=True))
    Quadratic(a=32, b=288, c=0)
    """
    h0 = min_hidden(spec)
    f0, f1, f2, f3 = (conventions.total(spec.replace(hidden_size=h0 + k)) for k in range(4))
    second = f2 - 2 * f1 + f0
    if second % 2 or f3 - 3 * f2 + 3 * f1 - f0:
        raise AssertionError(f"the total of {spec} is not quadratic in the hidden size")
    a = second // 2
    b = f1 - f0 - a * (2 * h0 + 1)
    c = f0 - a * h0 * h0 - b * h0
    return Quadratic(a, b, c)


def largest_within(q: Quadratic, budget: int) -> int:
    """The largest H ≥ 0 with q(H) ≤ budget (q increasing for H ≥ 0), or −1 if none.

    >>> largest_within(Quadratic(32, 304, 0), 1_000_000)
    172
    """
    a, b, c = q.a, q.b, q.c
    if c > budget:
        return -1
    if a == 0:
        h = (budget - c) // b
    else:
        # a·H² + b·H + (c − budget) ≤ 0  ⇔  H ≤ (−b + √(b² − 4a(c − budget))) / 2a
        root = math.isqrt(b * b - 4 * a * (c - budget))
        h = max((root - b) // (2 * a), 0)
    while q(h + 1) <= budget:
        h += 1
    while h >= 0 and q(h) > budget:
        h -= 1
    return h


@dataclass(frozen=True)
class Fit:
    """The answer: the largest hidden size within budget, and its neighbours' totals."""

    spec: LayerSpec
    """The configuration at the answer's hidden size."""
    budget: int
    """The budget in parameters (a byte budget divided by the dtype's size, rounded down)."""
    budget_bytes: int | None
    """The byte budget as given, if the budget was given in bytes."""
    dtype: DType
    round_to: int
    polynomial: Quadratic
    hidden_size: int
    total: int
    next_hidden_size: int
    next_total: int

    @property
    def found(self) -> bool:
        """Whether some hidden size fits (False for :class:`BudgetTooSmall`'s ``smallest``)."""
        return self.hidden_size > 0

    @property
    def bytes(self) -> int:
        """The answer's parameters in ``dtype``."""
        return self.total * self.dtype.bytes

    @property
    def next_bytes(self) -> int:
        """The next size's parameters in ``dtype``."""
        return self.next_total * self.dtype.bytes

    @property
    def headroom(self) -> int:
        """Parameters left under the budget."""
        return self.budget - self.total


def fit(
    spec: LayerSpec,
    max_params: int | None = None,
    max_bytes: int | None = None,
    dtype: DType | str = DType.FP32,
    round_to: int = 1,
) -> Fit:
    """The largest hidden size (a multiple of ``round_to``) for which ``spec`` fits the budget.

    ``spec``'s own hidden size is ignored. Give exactly one of ``max_params`` and ``max_bytes``.

    >>> from paramcount.engine.spec import Cell, LayerSpec
    >>> f = fit(LayerSpec(Cell.LSTM, 32, 1, num_layers=2, bidirectional=True), max_params=10**6)
    >>> f.hidden_size, f.total, f.next_total
    (172, 996224, 1007552)
    """
    if (max_params is None) == (max_bytes is None):
        raise SpecError("give one budget: {max_params} or {max_bytes}",
                        max_params="N", max_bytes="SIZE")
    try:
        dtype = DType(dtype)
    except ValueError:
        raise SpecError(
            "{dtype} is not one of: " + ", ".join(d.value for d in DType), dtype=dtype
        ) from None
    for field, value in (("max_params", max_params), ("max_bytes", max_bytes),
                         ("round", round_to)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)
                                  or value <= 0):
            raise SpecError(f"{{{field}}} must be a positive whole number", **{field: value})
    if max_params is not None:
        budget = max_params
    else:
        assert max_bytes is not None
        budget = max_bytes // dtype.bytes
    q = quadratic(spec)
    smallest = min_hidden(spec, round_to)
    h = largest_within(q, budget) // round_to * round_to
    if h < smallest:
        need = q(smallest)
        unit = (
            f"{need:,} parameters"
            if max_bytes is None
            else f"{need * dtype.bytes:,} bytes as {dtype.value}"
        )
        given = f"{max_params:,} parameters" if max_bytes is None else f"{max_bytes:,} bytes"
        raise BudgetTooSmall(
            f"no hidden size fits {given}: the smallest, {smallest}, already needs {unit}",
            Fit(spec=spec.replace(hidden_size=smallest), budget=budget, budget_bytes=max_bytes,
                dtype=dtype, round_to=round_to, polynomial=q, hidden_size=0, total=0,
                next_hidden_size=smallest, next_total=need),
        )
    return Fit(
        spec=spec.replace(hidden_size=h),
        budget=budget,
        budget_bytes=max_bytes,
        dtype=dtype,
        round_to=round_to,
        polynomial=q,
        hidden_size=h,
        total=q(h),
        next_hidden_size=h + round_to,
        next_total=q(h + round_to),
    )
