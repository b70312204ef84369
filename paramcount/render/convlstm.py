"""ConvLSTM reports as Documents (what ``paramcount convlstm`` shows) and as JSON data."""

from __future__ import annotations

from typing import Any

from paramcount import __version__
from paramcount.conventions import Direction
from paramcount.conventions.convlstm import concatenates_channels
from paramcount.convlstm import ConvReport
from paramcount.render.breakdown import formula_section
from paramcount.render.document import (
    Document,
    Paragraph,
    Section,
    Table,
    aligned,
    number,
    shape,
    signed,
    size,
)

SCHEMA = "paramcount.convlstm/1"


def _tensor_table(report: ConvReport) -> Table:
    rows = tuple(
        (str(t.layer), t.direction.value, t.name, shape(t.shape), number(t.input_width),
         number(t.count))
        for t in report.tensors
    )
    return Table(
        ("layer", "direction", "tensor", "shape", "channels in", "count"),
        rows,
        numeric=frozenset({"channels in", "count"}),
        footer=("", "", "total", "", "", number(report.total)),
    )


def _layer_table(report: ConvReport) -> Table:
    directions = [d.value for d in list(Direction)[: report.spec.directions]]
    rows = tuple(
        (str(row.layer), number(row.input_width), *(number(n) for n in row.by_direction),
         number(row.total))
        for row in report.layers
    )
    footer = ("total", "", *("" for _ in directions), number(report.total))
    return Table(("layer", "channels in", *directions, "total"), rows,
                 frozenset({"channels in", *directions, "total"}), footer)


def _growth_section(report: ConvReport) -> Section:
    spec, naive = report.spec, report.naive
    assert report.unidirectional is not None and naive is not None
    f = spec.filters
    difference = report.total - naive
    if spec.num_layers == 1:
        reason = ("A single bidirectional layer is exactly two unidirectional ones: both "
                  "directions read the same input.")
    elif concatenates_channels(spec):
        reason = (f"Bidirectional concatenates both directions on the last axis, the channels: "
                  f"every layer after the first reads 2·{f} = {2 * f} channels, not {f}.")
    else:
        reason = (f"With data_format='channels_first', Bidirectional still concatenates on the "
                  "last axis, which is spatial here: the frames get twice as wide, and every "
                  f"layer after the first still reads {f} channels, not {2 * f}.")
    title = (f"Exactly 2 × {number(report.unidirectional)}" if difference == 0 else
             f"Why not 2 × {number(report.unidirectional)} = {number(naive)}?")
    lines = [
        ("naive guess", f"2 × {number(report.unidirectional)} (the unidirectional stack) = "
                        f"{number(naive)}"),
        ("actual", number(report.total)),
        ("difference", signed(difference)),
    ]
    kernel = "·".join(str(k) for k in spec.kernel)
    for row in report.growth:
        extra = row.input_channels - row.naive_channels
        if extra:
            lines.append((
                f"layer {row.layer}",
                f"reads {row.input_channels} channels, not {row.naive_channels}: 2 directions × "
                f"{number(spec.gate_channels)} gate channels × {kernel} kernel positions × "
                f"{extra} extra channels = {signed(row.extra)}",
            ))
    return Section(title, (Paragraph((reason,)), aligned(lines)))


def conv_breakdown(report: ConvReport) -> Document:
    """The per-tensor breakdown of one ConvLSTM stack."""
    sections = [Section("Tensors", (_tensor_table(report),)),
                Section("Per layer", (_layer_table(report),))]
    if report.spec.bidirectional:
        sections.append(_growth_section(report))
    sections.append(formula_section(report))
    summary = (f"{number(report.total)} parameters · {number(report.bytes)} bytes "
               f"({size(report.bytes)}) as {report.dtype.value}")
    title = f"{report.description} — {report.spec.framework.display_name}"
    return Document(title, summary, tuple(sections))


def conv_data(report: ConvReport) -> dict[str, Any]:
    """Everything in a ConvLSTM report, as JSON-ready data."""
    spec = report.spec
    return {
        "schema": SCHEMA,
        "paramcount": __version__,
        "framework": spec.framework.value,
        "layer": report.description,
        "config": {
            "rank": spec.rank,
            "input_channels": spec.input_channels,
            "filters": spec.filters,
            "kernel": list(spec.kernel),
            "num_layers": spec.num_layers,
            "bidirectional": spec.bidirectional,
            "bias": spec.bias,
            "data_format": spec.data_format.value,
        },
        "total": report.total,
        "dtype": report.dtype.value,
        "bytes": report.bytes,
        "tensors": [
            {"name": t.name, "shape": list(t.shape), "count": t.count, "layer": t.layer,
             "direction": t.direction.value, "input_channels": t.input_width, "role": t.role}
            for t in report.tensors
        ],
        "layers": [
            {"layer": row.layer, "input_channels": row.input_width,
             "directions": list(row.by_direction), "total": row.total}
            for row in report.layers
        ],
        "formula": {
            "symbolic": report.formula.symbolic,
            "substituted": report.formula.substituted,
            "symbols": {s.name: s.value for s in report.formula.symbols},
            "terms": [value for _, value in report.formula.terms],
            "total": report.formula.total,
        },
        "unidirectional": report.unidirectional,
    }
