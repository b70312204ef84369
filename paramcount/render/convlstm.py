"""ConvLSTM reports as Documents (what ``paramcount convlstm`` shows) and as JSON data."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from paramcount._version import __version__
from paramcount.engine.conventions.convlstm import concatenates_channels
from paramcount.engine.convlstm_report import ConvReport
from paramcount.render.breakdown import formula_section, headline, layer_table, tensor_table
from paramcount.render.data import formula_data
from paramcount.render.document import (
    Document,
    Paragraph,
    Section,
    aligned,
    number,
    signed,
)

if TYPE_CHECKING:
    from paramcount.render.verification import Outcome

SCHEMA = "paramcount.convlstm/1"
CHANNELS = "channels in"
"""What a ConvLSTM layer reads, in the place of the count tables' input width."""


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


def conv_breakdown(report: ConvReport, verification: Outcome | None = None) -> Document:
    """The per-tensor breakdown of one ConvLSTM stack, verified against its framework if given."""
    tensors = Section("Tensors", (tensor_table(report, verification, input_label=CHANNELS),))
    sections = [tensors]
    if verification is not None:
        from paramcount.render.verification import verified_sections

        sections = verified_sections(tensors, verification)
    sections.append(Section("Per layer", (layer_table(report, input_label=CHANNELS),)))
    if report.spec.bidirectional:
        sections.append(_growth_section(report))
    sections.append(formula_section(report))
    summary = headline(report)
    title = f"{report.description} — {report.spec.framework.display_name}"
    return Document(title, summary, tuple(sections))


def conv_data(report: ConvReport, verification: Outcome | None = None) -> dict[str, Any]:
    """Everything in a ConvLSTM report, as JSON-ready data (with ``verification`` if verified)."""
    spec = report.spec
    data: dict[str, Any] = {
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
        "formula": formula_data(report.formula),
        "unidirectional": report.unidirectional,
    }
    if verification is not None:
        from paramcount.render.data import verification_data

        data["verification"] = verification_data(verification)
    return data
