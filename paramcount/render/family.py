"""Family reports as Documents (what ``paramcount mamba`` shows) and as JSON data."""

from __future__ import annotations

from typing import Any

from paramcount._version import __version__
from paramcount.families.report import FamilyReport
from paramcount.render.breakdown import formula_section, headline
from paramcount.render.document import (
    Document,
    Paragraph,
    Section,
    Table,
    number,
    shape,
    size,
)

TYPE_CHECKING = False  # typing is for the type checker only
if TYPE_CHECKING:
    from paramcount.families.state import StateMemory

SCHEMA = "paramcount.family/1"


def tensor_rows(report: FamilyReport) -> tuple[tuple[tuple[str, ...], ...], str | None]:
    """One row per tensor, a block whose tensors repeat an earlier block's (names but for the
    index, and shapes) left out; and the sentence that says which were (None when none was).
    Blocks that alternate (RecurrentGemma's recurrent, recurrent, attention) show each kind
    once."""
    by_layer: dict[int, list[tuple[str, tuple[int, ...]]]] = {}
    for t in report.tensors:
        if t.layer >= 0:
            by_layer.setdefault(t.layer, []).append(
                (t.name.replace(f".{t.layer}.", ".#.", 1), t.shape))
    first: dict[tuple[tuple[str, tuple[int, ...]], ...], int] = {}
    repeats: dict[int, list[int]] = {}
    for layer, layout in by_layer.items():
        shown = first.setdefault(tuple(layout), layer)
        repeats.setdefault(shown, [])
        if shown != layer:
            repeats[shown].append(layer)
    note = [(f"block {layers[0]} repeats" if len(layers) == 1 else
             f"blocks {_ranges(layers)} repeat") + f" block {shown}'s tensors"
            for shown, layers in repeats.items() if layers]
    rows = tuple(
        ("" if t.layer < 0 else str(t.layer), t.name, shape(t.shape), number(t.count))
        for t in report.tensors if t.layer < 0 or t.layer in repeats
    )
    return rows, ("; ".join(note) + ".").capitalize() if note else None


def _ranges(layers: list[int]) -> str:
    """``[1, 3, 4, 6, 7]`` → ``1, 3–4, 6–7``; a run of several blocks ``1–31``."""
    runs: list[list[int]] = []
    for layer in layers:
        if runs and layer == runs[-1][-1] + 1:
            runs[-1].append(layer)
        else:
            runs.append([layer])
    return ", ".join(f"{run[0]}–{run[-1]}" if len(run) > 1 else str(run[0]) for run in runs)


def tensors_section(report: FamilyReport) -> Section:
    """The per-tensor table (one block of each run of identical blocks)."""
    rows, note = tensor_rows(report)
    table = Table(("block", "tensor", "shape", "count"), rows, frozenset({"count"}),
                  footer=("", "total", "", number(report.total)), optional=("block",))
    return Section("Tensors", (table,) if note is None else (table, Paragraph((note,))))


def parts_section(report: FamilyReport) -> Section:
    """Embeddings, blocks, norm and head: each part's share of the total."""
    rows = tuple(
        (part.label, str(part.last - part.first + 1) if part.first >= 0 else "",
         number(part.each), number(part.total), f"{100 * part.total / report.total:.1f}%")
        for part in report.parts
    )
    return Section("Parts", (Table(("part", "blocks", "each", "total", "share"), rows,
                                   frozenset({"blocks", "each", "total", "share"}),
                                   footer=("total", "", "", number(report.total), "100.0%")),))


def shares_section(report: FamilyReport) -> Section:
    """A hybrid's parameters by kind of part, and with experts what one token uses."""
    rows = tuple((kind, number(count), f"{100 * count / report.total:.1f}%")
                 for kind, count in report.shares)
    body: tuple[Table | Paragraph, ...] = (Table(
        ("kind", "parameters", "share"), rows, frozenset({"parameters", "share"}),
        footer=("total", number(report.total), "100.0%")),)
    if report.active is not None:
        body += (Paragraph((f"Active per token: {number(report.active)} parameters "
                            f"({100 * report.active / report.total:.1f}%): every part but the "
                            "experts a token is not routed to.",)),)
    return Section("Shares", body)


def settings_line(report: FamilyReport) -> str:
    """``hidden_size=768, state_size=16, …``: the config as the reference's keywords (options
    the model's version does not have, left "auto", are left out)."""
    return ", ".join(f"{name}={value!r}" for name, value in report.settings.items()
                     if value != "auto")


def family_breakdown(report: FamilyReport, explained: tuple[Section, ...] = (),
                     asked: tuple[Section, ...] = ()) -> Document:
    """The whole answer for one family model: what was ``asked`` first (the ``--what-if``
    changes), then tensors, parts and the closed form, then the explanation, when asked."""
    lines = [f"{report.reference}: {settings_line(report)}"]
    lines += [f"Note: {note}" for note in report.notes]
    if report.base:
        lines.append("The base model class: no head, names without the backbone's prefix.")
    elif getattr(report.config, "tie_word_embeddings", False):
        lines.append("The head is tied to the embeddings (tie_word_embeddings): one tensor, "
                     "counted once.")
    sections = (
        *asked,
        Section("Configuration", (Paragraph(tuple(lines)),)),
        tensors_section(report),
        parts_section(report),
        *((shares_section(report),) if report.shares else ()),
        formula_section(report),
        *explained,
    )
    return Document(f"{report.title} — {report.reference}", headline(report), sections)


def family_data(report: FamilyReport) -> dict[str, Any]:
    """Everything in a family report, as JSON-ready data."""
    from paramcount.record import plain
    from paramcount.render.data import formula_data

    return {
        "schema": SCHEMA,
        "paramcount": __version__,
        "family": report.family,
        "reference": report.reference,
        "config": {name: plain(value)
                   for name, value in report.settings.items()},  # as JSON reads it back
        "total": report.total,
        "dtype": report.dtype.value,
        "bytes": report.bytes,
        "tensors": [
            {"name": t.name, "shape": list(t.shape), "count": t.count, "block": t.layer,
             "input_width": t.input_width, "role": t.role}
            for t in report.tensors
        ],
        "parts": [
            {"part": p.label, "first": p.first, "last": p.last, "each": p.each,
             "total": p.total}
            for p in report.parts
        ],
        "formula": formula_data(report.formula),
        "base": report.base,
        "notes": list(report.notes),
        **({"shares": dict(report.shares), "active": report.active} if report.shares else {}),
    }


def state_section(memory: StateMemory) -> Section:
    """The state one inference keeps at a context length: each kind of layer's bytes per
    token (the keys and values that grow) and fixed (the state that does not), and in all, and
    what the figure rests on where the reference keeps no such state itself."""
    rows = tuple(
        (k.kind, str(k.layers), number(k.per_token) + (f" (≤ {k.window:,} tokens)"
                                                        if k.window else ""),
         number(k.fixed), number(k.bytes), size(k.bytes))
        for k in memory.kinds)
    fixed = sum(k.fixed for k in memory.kinds) * memory.batch
    table = Table(("kind", "layers", "bytes per token", "bytes fixed", "bytes", "size"), rows,
                  frozenset({"layers", "bytes per token", "bytes fixed", "bytes", "size"}),
                  footer=("total", "", "", "", number(memory.total), size(memory.total)))
    said = (f"{memory.context:,} tokens × {memory.batch:,} "
            f"sequence{'s' if memory.batch != 1 else ''}, {memory.dtype}: "
            f"{size(memory.growing)} grow with the tokens (attention's keys and values), "
            f"{size(fixed)} do not (recurrent, SSM and convolution state); per sequence, "
            "bytes per token and fixed.")
    return Section(f"State at {memory.context:,} tokens (what replaces the KV cache)",
                   (table, Paragraph((said, *memory.notes))))
