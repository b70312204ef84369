"""Sizing to a budget: the largest hidden size whose parameters fit, solved exactly.

Pure and integer-only. With everything but H fixed, every convention's total is a quadratic
a·H² + b·H + c with integer coefficients (linear when an LSTM projection P is fixed). The
coefficients come from the convention itself by exact finite differences, the root from
``math.isqrt`` and a step of adjustment: no floating point anywhere.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from decimal import Decimal

from paramcount import conventions
from paramcount.errors import Mismatch, SpecError
from paramcount.spec import DType, LayerSpec

COUNT_SUFFIXES = {"": 1, "K": 10**3, "M": 10**6, "G": 10**9, "T": 10**12}
BYTE_SUFFIXES = {
    "": 1, "B": 1,
    "KB": 10**3, "MB": 10**6, "GB": 10**9, "TB": 10**12,
    "KIB": 2**10, "MIB": 2**20, "GIB": 2**30, "TIB": 2**40,
}
_NUMBER = re.compile(
    r"(?P<sign>[-+]?)(?P<number>[0-9][0-9_,]*(?:\.[0-9]+)?|\.[0-9]+)\s*(?P<suffix>[A-Za-z]*)"
)


class BudgetTooSmall(Mismatch):
    """Not even the smallest hidden size fits the budget (exit 1: a budget exceeded)."""


def _parse(text: str, suffixes: dict[str, int], field: str, kind: str) -> int:
    match = _NUMBER.fullmatch(text.strip())
    units = "/".join(s.replace("I", "i") for s in suffixes if s)  # KiB, as people write it
    example = "1.5M" if kind == "count" else "4MB or 4MiB"
    if match is None or match["suffix"].upper() not in suffixes or (
        "," in match["number"]
        and not re.fullmatch(r"[0-9]{1,3}(,[0-9]{3})*(\.[0-9]+)?", match["number"])
    ):
        raise SpecError(
            f"{{{field}}} is not a {kind}: write a number with an optional suffix {units}, "
            f"e.g. {example}",
            **{field: text},
        )
    number = Decimal(match["number"].replace("_", "").replace(",", ""))
    value = number * suffixes[match["suffix"].upper()]
    if match["sign"] == "-" or value == 0:
        raise SpecError(f"{{{field}}} must be positive", **{field: text})
    if value != value.to_integral_value():
        noun = "parameters" if kind == "count" else "bytes"
        raise SpecError(
            f"{{{field}}} is {value.normalize():f} {noun}, not a whole number",
            **{field: text},
        )
    return int(value)


def parse_count(text: str, field: str = "max_params") -> int:
    """A parameter count with an optional decimal suffix K, M, G or T.

    >>> parse_count("1M"), parse_count("1.5k"), parse_count("250_000")
    (1000000, 1500, 250000)
    >>> parse_count("1.5.3M")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    paramcount.errors.SpecError: max_params='1.5.3M' is not a count: write a number with an ...
    """
    return _parse(text, COUNT_SUFFIXES, field, "count")


def parse_bytes(text: str, field: str = "max_bytes") -> int:
    """A size in bytes: a number with B, KB/MB/GB/TB (powers of 1000) or KiB/MiB/GiB/TiB (1024).

    >>> parse_bytes("4MB"), parse_bytes("4MiB"), parse_bytes("512")
    (4000000, 4194304, 512)
    """
    return _parse(text, BYTE_SUFFIXES, field, "size in bytes")


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

    >>> from paramcount.spec import Cell, LayerSpec
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

    >>> from paramcount.spec import Cell, LayerSpec
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
            f"no hidden size fits {given}: the smallest, {smallest}, already needs {unit}"
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
