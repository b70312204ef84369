"""The answer of ``paramcount fit`` as a Document, and as JSON-ready data."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from paramcount._version import __version__
from paramcount.analysis.fit import Fit
from paramcount.engine import conventions
from paramcount.render.document import Document, Math, Paragraph, Section, Table, number, size

if TYPE_CHECKING:
    from paramcount.render.verification import Outcome

SCHEMA = "paramcount.fit/1"


def _polynomial(answer: Fit) -> str:
    q = answer.polynomial
    terms = []
    if q.a:
        terms.append(f"{number(q.a)}·H²")
    terms.append(f"{number(q.b)}·H")
    if q.c:
        terms.append(number(q.c))
    return " + ".join(terms)


def solving_lines(answer: Fit) -> tuple[str, ...]:
    """The exact solution: the quadratic, its integer root, and the rounding."""
    q, budget = answer.polynomial, answer.budget
    lines = [f"total(H) = {_polynomial(answer)}"]
    if answer.budget_bytes is not None:
        lines.append(f"budget = {number(answer.budget_bytes)} bytes ÷ {answer.dtype.bytes} "
                     f"bytes per {answer.dtype.value} value = {number(budget)} parameters")
    lines.append(f"total(H) ≤ {number(budget)}")
    if q.a:
        disc = q.b * q.b - 4 * q.a * (q.c - budget)
        root = math.isqrt(disc)
        lines += [
            f"H ≤ (−b + √(b² − 4·a·(c − budget))) / 2a = (−{number(q.b)} + "
            f"√{number(disc)}) / {number(2 * q.a)}",
            f"  isqrt({number(disc)}) = {number(root)}, so H ≤ "
            f"{number(max((root - q.b) // (2 * q.a), 0))} (then checked: total(H) ≤ budget < "
            "total(H + 1))",
        ]
    else:
        lines.append(
            f"H ≤ (budget − c) / b = ({number(budget)} − {number(q.c)}) / {number(q.b)}"
        )
    if answer.round_to > 1:
        lines.append(f"rounded down to a multiple of {answer.round_to}: H = {answer.hidden_size}")
    else:
        lines.append(f"H = {answer.hidden_size}")
    return tuple(lines)


def fit_document(answer: Fit, verifications: Sequence[Outcome] | None = None) -> Document:
    """The largest hidden size within budget, its neighbour above, and how it was solved;
    with ``verifications`` (the answer's and the next size's), what the real layers count."""
    dtype = answer.dtype.value
    if answer.budget_bytes is None:
        spare = f"{number(answer.headroom)} to spare"
        over = f"{number(answer.next_total - answer.budget)} over"
    else:
        spare = f"{number(answer.budget_bytes - answer.bytes)} bytes to spare"
        over = f"{number(answer.next_bytes - answer.budget_bytes)} bytes over"
    rows = (
        (number(answer.hidden_size), number(answer.total), number(answer.bytes),
         size(answer.bytes), "yes", spare),
        (number(answer.next_hidden_size), number(answer.next_total), number(answer.next_bytes),
         size(answer.next_bytes), "no", over),
    )
    table = Table(
        ("hidden", "parameters", f"bytes ({dtype})", "size", "fits", "budget"),
        rows,
        frozenset({"hidden", "parameters", f"bytes ({dtype})", "size"}),
    )
    if answer.budget_bytes is None:
        summary = (
            f"hidden size {answer.hidden_size}: {number(answer.total)} parameters ≤ "
            f"{number(answer.budget)}; {answer.next_hidden_size} would need "
            f"{number(answer.next_total)}"
        )
    else:
        summary = (
            f"hidden size {answer.hidden_size}: {number(answer.bytes)} bytes ≤ "
            f"{number(answer.budget_bytes)} as {dtype}; {answer.next_hidden_size} would need "
            f"{number(answer.next_bytes)}"
        )
    spec = answer.spec
    verified: tuple[Section, ...] = ()
    if verifications is not None:
        from paramcount.render.verification import outcomes_section

        verified = (outcomes_section("Verified against the real layers", [
            (f"hidden {answer.hidden_size}", answer.total, verifications[0]),
            (f"hidden {answer.next_hidden_size}", answer.next_total, verifications[1]),
        ]),)
    sections = (
        Section("Just below and just above the budget", (table,)),
        *verified,
        Section("Solved exactly", (
            Paragraph((
                "With everything but H fixed the total is a quadratic in H (linear with a fixed "
                "projection); integer square root, no floating point:",
            )),
            Math(solving_lines(answer)),
        )),
    )
    title = f"{conventions.describe(spec)} — {spec.framework.display_name}"
    return Document(title, summary, sections)


def fit_data(
    answer: Fit, config: dict[str, Any], verifications: Sequence[Outcome] | None = None,
    error: str | None = None,
) -> dict[str, Any]:
    """The answer as JSON-ready data; ``verification`` holds the real layers' verdicts. When
    nothing fits (``answer`` is :class:`~paramcount.analysis.fit.BudgetTooSmall`'s ``smallest``) the
    answer's values are null, ``next`` is the smallest size and ``error`` says why."""
    from paramcount.render.data import verification_data

    q = answer.polynomial
    data: dict[str, Any] = {
        "schema": SCHEMA,
        "paramcount": __version__,
        "framework": answer.spec.framework.value,
        "layer": conventions.describe(answer.spec),
        "config": config,
        "budget": {
            "parameters": answer.budget,
            "bytes": answer.budget_bytes,
            "dtype": answer.dtype.value,
        },
        "round": answer.round_to,
        "polynomial": {"a": q.a, "b": q.b, "c": q.c},
        "hidden_size": answer.hidden_size if answer.found else None,
        "total": answer.total if answer.found else None,
        "bytes": answer.bytes if answer.found else None,
        "headroom": answer.headroom if answer.found else None,
        "next": {
            "hidden_size": answer.next_hidden_size,
            "total": answer.next_total,
            "bytes": answer.next_bytes,
        },
    }
    if error is not None:
        data["error"] = error
    if verifications is not None:
        data["verification"] = {
            "answer": verification_data(verifications[0]),
            "next": verification_data(verifications[1]),
        }
    return data
