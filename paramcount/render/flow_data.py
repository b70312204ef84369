"""``paramcount shapes`` and ``paramcount trace`` as JSON-ready data (docs/json.md).

Schemas ``paramcount.shapes/1`` and ``paramcount.trace/1``; differences are floats (max |Δ|),
everything else is exact.
"""

from __future__ import annotations

from typing import Any

from paramcount._version import __version__
from paramcount.analysis.flow import Check, Flow, Trace, TraceRow
from paramcount.engine.spec import LayerSpec

SHAPES_SCHEMA = "paramcount.shapes/1"
TRACE_SCHEMA = "paramcount.trace/1"


def _head(schema: str, spec: LayerSpec) -> dict[str, Any]:
    from paramcount.engine.report import build_report
    from paramcount.render.data import config

    report = build_report(spec)
    return {
        "schema": schema,
        "paramcount": __version__,
        "framework": spec.framework.value,
        "layer": report.description,
        "config": config(report),
    }


def _check(check: Check | None) -> dict[str, Any] | None:
    if check is None:
        return None
    return {"ok": check.ok, "detail": check.detail}


def shapes_data(flow: Flow, checks: dict[str, Check] | None = None) -> dict[str, Any]:
    """Shapes, state order, equal slices and layer inputs; each claim's check when verified."""

    def get(key: str) -> dict[str, Any] | None:
        return None if checks is None else _check(checks.get(key))

    return {
        **_head(SHAPES_SCHEMA, flow.spec),
        "batch": flow.batch,
        "seq_len": flow.seq_len,
        "batch_first": flow.batch_first,
        "shapes": [
            {"name": s.name, "shape": list(s.shape), "axes": s.axes, "meaning": s.meaning,
             "check": get(f"shape:{s.name}")}
            for s in flow.shapes
        ],
        "states": [
            {"index": s.index, "layer": s.layer, "direction": s.direction.value,
             "initial_step": s.step, "final_step": s.last_step,
             "final_check": get(f"final:{s.index}"), "initial_check": get(f"init:{s.index}")}
            for s in flow.slots
        ],
        "slices": [
            {"claim": c.text, "meaning": c.meaning, "time": c.time, "start": c.start,
             "stop": c.stop, "state": c.state, "check": get(f"slice:{k}")}
            for k, c in enumerate(flow.slices)
        ],
        "layer_inputs": list(flow.layer_inputs),
        "verified": None if checks is None else all(c.ok for c in checks.values()),
    }


def _row(row: TraceRow) -> dict[str, Any]:
    return {
        "layer": row.layer,
        "direction": row.direction,
        "output_max_diff": row.output_diff,
        "state": row.state_name,
        "state_max_diff": row.state_diff,
        "tolerance": row.tolerance,
        "match": row.ok,
    }


def _trace(trace: Trace) -> dict[str, Any]:
    first = trace.first_divergence
    return {
        "match": trace.ok,
        "rows": [_row(r) for r in trace.rows],
        "first_divergence": None if first is None else {"layer": first.layer,
                                                         "direction": first.direction},
        "notes": list(trace.notes),
    }


def trace_data(trace: Trace, mistake: Trace | None = None) -> dict[str, Any]:
    """The rebuilt stack against the real one; with ``mistake``, the wrong rebuild too."""
    return {
        **_head(TRACE_SCHEMA, trace.spec),
        "batch": trace.batch,
        "seq_len": trace.seq_len,
        "seed": trace.seed,
        **_trace(trace),
        "mistake": None if mistake is None else _trace(mistake),
    }
