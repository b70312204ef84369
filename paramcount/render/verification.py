"""How a verification shows: the verified column, the one-line verdict and the differences."""

from __future__ import annotations

from typing import Any

from paramcount.render.document import Paragraph, Section, Table, number, shape, signed
from paramcount.verify.compare import RealTensor, TensorCheck, Unverified, Verification
from paramcount.verify.flops import COUNTER, FlopOutcome, FlopUnchecked

Outcome = Verification | Unverified


def _tensor(tensor: RealTensor | None) -> str:
    return "—" if tensor is None else f"{tensor[0]} {shape(tensor[1])}"


def verified_cell(check: TensorCheck) -> str:
    """``✓``, or ``✗`` with what the framework really has at this position."""
    if check.match:
        return "✓"
    if check.actual is None:
        return "✗ missing"
    if check.expected is not None and check.actual[0] == check.expected[0]:
        return f"✗ {shape(check.actual[1])}"
    return f"✗ {_tensor(check.actual)}"


def verified_column(verification: Verification, rows: int) -> tuple[list[str], str]:
    """The verified cell of each of the engine's ``rows`` tensors, and the total's."""
    cells = [verified_cell(check) for check in verification.checks[:rows]]
    cells += ["✗ missing"] * (rows - len(cells))
    totals_agree = verification.actual_total == verification.expected_total
    return cells, "✓" if totals_agree else f"✗ {number(verification.actual_total)}"


def verdict(outcome: Outcome) -> str:
    """One line naming the framework and its version, and whether everything matched."""
    if isinstance(outcome, Unverified):
        return f"Not verified against {outcome.framework.display_name}: {outcome.reason}"
    v = outcome
    if v.refused is not None:
        return f"✗ {v.label} refused to build this layer: {v.refused}"
    if v.match:
        return f"✓ Verified against {v.label}: all {len(v.checks)} tensors and the total match."
    parts = []
    if v.differences:
        parts.append(f"{len(v.differences)} of {len(v.checks)} tensor positions differ")
    if v.actual_total != v.expected_total:
        parts.append(
            f"real total {number(v.actual_total)}, counted {number(v.expected_total)} "
            f"({signed(v.actual_total - v.expected_total)})"
        )
    if v.formula_total is not None and v.formula_total != v.actual_total:
        parts.append(f"formula {number(v.formula_total)}")
    return f"✗ Mismatch with {v.label}: " + "; ".join(parts) + "."


def differences_section(verification: Verification) -> Section:
    """Each position where the engine and the framework disagree, side by side."""
    rows = tuple(
        (str(check.index), _tensor(check.expected), _tensor(check.actual))
        for check in verification.differences
    )
    totals = (
        "total",
        number(verification.expected_total),
        number(verification.actual_total),
    )
    return Section(
        f"Differences from {verification.label}",
        (
            Table(
                ("#", "paramcount", verification.framework.display_name), rows,
                frozenset({"#"}), totals,
            ),
        ),
    )


def with_verified_column(table: Table, outcome: Outcome) -> Table:
    """The tensor table with a ``verified`` column (unchanged when nothing was verified)."""
    if isinstance(outcome, Unverified):
        return table
    cells, total = verified_column(outcome, len(table.rows))
    footer = (*table.footer, total) if table.footer else None
    return Table(
        (*table.headers, "verified"),
        tuple((*row, cell) for row, cell in zip(table.rows, cells, strict=True)),
        table.numeric,
        footer,
        table.optional,
    )


def verified_sections(tensors: Section, outcome: Outcome) -> list[Section]:
    """The tensors section with the verdict under its table, then any differences."""
    sections = [Section(tensors.title, (*tensors.blocks, Paragraph((verdict(outcome),))))]
    if isinstance(outcome, Verification) and not outcome.match:
        sections.append(differences_section(outcome))
    return sections


def verdict_mark(outcome: Outcome) -> str:
    """``✓``, ``✗``, or ``not verified`` for a framework that could not be asked."""
    if isinstance(outcome, Unverified):
        return "not verified"
    return "✓" if outcome.match else "✗"


def with_verdict_column(table: Table, outcomes: list[Outcome]) -> Table:
    """A table with one row per framework, gaining a ``verified`` column."""
    return Table(
        (*table.headers, "verified"),
        tuple(
            (*row, verdict_mark(outcome))
            for row, outcome in zip(table.rows, outcomes, strict=True)
        ),
        table.numeric,
        table.footer,
        table.optional,
    )


def outcomes_table(labelled: list[tuple[str, int, Outcome]]) -> Table:
    """One row per verified layer: what it is, paramcount's count, the real count, the verdict."""
    rows = tuple(
        (label, number(counted),
         "—" if isinstance(outcome, Unverified) else number(outcome.actual_total),
         verdict_mark(outcome))
        for label, counted, outcome in labelled
    )
    return Table(("layer", "paramcount", "real", "verified"), rows,
                 frozenset({"paramcount", "real"}))


def outcomes_section(title: str, labelled: list[tuple[str, int, Outcome]]) -> Section:
    """The outcomes table, then each verdict in a sentence (and the differences, if any)."""
    verdicts = tuple(f"{label}: {verdict(outcome)}" for label, _, outcome in labelled)
    return Section(title, (outcomes_table(labelled), Paragraph(verdicts)))


def flop_verdict(outcome: FlopOutcome) -> str:
    """One sentence: what the FLOP counter measured, how it was scaled, and the verdict."""
    if isinstance(outcome, FlopUnchecked):
        return f"MACs not measured: {outcome.reason}."
    check = outcome
    where = ("the meta device" if check.device == "meta"
             else f"{check.device} with oneDNN disabled (meta counted nothing)")
    how = f"{COUNTER} on {where} ({check.framework.display_name} {check.version})"
    real = (number(check.real.numerator) if check.real.denominator == 1
            else f"{float(check.real):,.1f}")
    measured = ""
    if check.scaled:
        ops = ", ".join(check.by_op) or "no operator"
        measured = (
            f" (measured over N = {check.measured_batch:,}, T = {check.measured_seq_len:,}: "
            f"{number(check.measured)} FLOPs in {ops}, scaled by {number(check.steps)} / "
            f"{number(check.measured_steps)} sample-steps)"
        )
    if check.match:
        return (f"✓ MACs verified with {how}: the real layer's matrix products are {real} "
                f"FLOPs = 2 × {number(check.counted // 2)} MACs, as counted{measured}.")
    return (f"✗ MACs mismatch with {how}: the real layer's matrix products are {real} "
            f"FLOPs{measured}; paramcount counts {number(check.counted)} (2 × MACs).")


def flop_data(outcome: FlopOutcome) -> dict[str, Any]:
    """A FLOP measurement as JSON-ready data (the ``verification`` key of ``compute``)."""
    if isinstance(outcome, FlopUnchecked):
        return {"framework": outcome.framework.value, "counter": None, "version": None,
                "match": None, "reason": outcome.reason, "counted_matmul_flops": None,
                "real_matmul_flops": None, "measured": None}
    check = outcome
    return {
        "framework": check.framework.value,
        "counter": COUNTER,
        "version": check.version,
        "match": check.match,
        "reason": None,
        "counted_matmul_flops": check.counted,
        "real_matmul_flops": (check.real.numerator if check.real.denominator == 1
                              else float(check.real)),
        "measured": {
            "seq_len": check.measured_seq_len,
            "batch": check.measured_batch,
            "lengths": None if check.measured_lengths is None else list(check.measured_lengths),
            "steps": check.measured_steps,
            "device": check.device,
            "flops": check.measured,
            "by_op": dict(check.by_op),
        },
    }
