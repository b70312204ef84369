"""How a verification shows: the verified column, the one-line verdict and the differences."""

from __future__ import annotations

from paramcount.render.document import Paragraph, Section, Table, number, shape, signed
from paramcount.verify.compare import RealTensor, TensorCheck, Unverified, Verification

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
