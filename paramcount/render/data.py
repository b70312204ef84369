"""Reports as JSON-ready data: the documented, stable ``--json`` schema.

Counts are exact integers at any size; ratios are the only floats.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from paramcount._version import __version__
from paramcount.engine.conventions import Formula
from paramcount.engine.report import Report
from paramcount.render.indented_json import indented

if TYPE_CHECKING:
    from paramcount.verify.compare import RealTensor, Unverified, Verification

SCHEMA = "paramcount.count/1"


def config(report: Report) -> dict[str, Any]:
    """The spec's fields, enums as their values."""
    spec = report.spec
    return {
        "cell": spec.cell.value,
        "input_size": spec.input_size,
        "hidden_size": spec.hidden_size,
        "num_layers": spec.num_layers,
        "bidirectional": spec.bidirectional,
        "bias": spec.bias,
        "proj_size": spec.proj_size,
        "merge_modes": [m.value for m in spec.merge_modes] if spec.merge_modes else None,
        "reset_after": spec.reset_after,
        "nonlinearity": spec.nonlinearity.value if spec.nonlinearity else None,
        "single_cell": spec.single_cell,
        "peepholes": spec.peepholes,
    }


def formula_data(formula: Formula) -> dict[str, Any]:
    """A formula: its symbolic form, the numbers filled in, its symbols, terms and total."""
    return {
        "symbolic": formula.symbolic,
        "substituted": formula.substituted,
        "symbols": {s.name: s.value for s in formula.symbols},
        "terms": [value for _, value in formula.terms],
        "total": formula.total,
    }


def report_data(
    report: Report, verification: Verification | Unverified | None = None
) -> dict[str, Any]:
    """Everything in a report, as JSON-ready data (with ``verification`` when verified)."""
    growth = report.growth
    data: dict[str, Any] = {
        "schema": SCHEMA,
        "paramcount": __version__,
        "framework": report.spec.framework.value,
        "layer": report.description,
        "config": config(report),
        "total": report.total,
        "dtype": report.dtype.value,
        "bytes": report.bytes,
        "tensors": [
            {
                "name": t.name,
                "shape": list(t.shape),
                "count": t.count,
                "layer": t.layer,
                "direction": t.direction.value,
                "input_width": t.input_width,
                "role": t.role,
            }
            for t in report.tensors
        ],
        "layers": [
            {
                "layer": row.layer,
                "input_width": row.input_width,
                "directions": list(row.by_direction),
                "total": row.total,
            }
            for row in report.layers
        ],
        "formula": formula_data(report.formula),
        "explanation": None if growth is None else {
            "kind": growth.kind,
            "baseline": growth.baseline,
            "multiplier": growth.multiplier,
            "naive": growth.naive,
            "actual": growth.actual,
            "difference": growth.difference,
            "layers": [
                {
                    "layer": row.layer,
                    "directions": row.directions,
                    "gate_rows": row.gate_rows,
                    "input_width": row.input_width,
                    "naive_width": row.naive_width,
                    "extra_columns": row.extra_columns,
                    "extra": row.extra,
                }
                for row in growth.rows
            ],
        },
        "depth_limit": report.depth_limit,
        "depth": [
            {
                "layers": row.layers,
                "unidirectional": row.unidirectional,
                "bidirectional": row.bidirectional,
                "ratio": row.ratio,
            }
            for row in report.depth
        ],
    }
    if verification is not None:
        data["verification"] = verification_data(verification)
    return data


def _name(tensor: RealTensor | None) -> str | None:
    return None if tensor is None else tensor[0]


def _shape(tensor: RealTensor | None) -> list[int] | None:
    return None if tensor is None else list(tensor[1])


def verification_data(outcome: Verification | Unverified) -> dict[str, Any]:
    """A verification as JSON-ready data: framework, version, match and per-tensor results."""
    from paramcount.verify.compare import Unverified

    if isinstance(outcome, Unverified):
        return {
            "framework": outcome.framework.value,
            "version": None,
            "match": None,
            "reason": outcome.reason,
            "refused": None,
            "total": None,
            "tensors": [],
        }
    return {
        "framework": outcome.framework.value,
        "version": outcome.version,
        "match": outcome.match,
        "reason": None,
        "refused": outcome.refused,
        "total": {
            "engine": outcome.expected_total,
            "real": outcome.actual_total,
            "formula": outcome.formula_total,
        },
        "tensors": [
            {
                "index": check.index,
                "name": _name(check.expected),
                "shape": _shape(check.expected),
                "real_name": _name(check.actual),
                "real_shape": _shape(check.actual),
                "match": check.match,
            }
            for check in outcome.checks
        ],
    }


def dumps(data: object) -> str:
    """Indented JSON with a trailing newline."""
    return indented(data) + "\n"
