"""The models of the printers read beside the first ones: Lightning's summaries (counts
rounded, :mod:`.tables.rounded`), pytorch-model-summary's tables (narrowed by the final
states they print), Flax ``tabulate`` tables (each linen cell from its gate rows) and the
families' Hugging Face reprs (:mod:`paramcount.reading.reprs.hf_repr`); every other printout as
:func:`paramcount.reading.found.printout_models` makes it. The readers find and read the text;
this module turns what they read into Layers and Models, so no reader imports them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from paramcount.engine import conventions
from paramcount.engine.spec import Cell, Framework, LayerSpec
from paramcount.reading.accounting import Accounting, Unread
from paramcount.reading.found import Layer, Missing, Model, printout_models, solved_layer
from paramcount.reading.models import Candidate, cell_of
from paramcount.reading.patterns import lazy
from paramcount.reading.reprs.hf_repr import Reading, describe, hidden, readings, tree
from paramcount.reading.solve import Clues, Fit, Solution
from paramcount.reading.tables.flax_tabulate import CELLS, cell_class
from paramcount.reading.tables.flax_tabulate import sizes as cell_sizes
from paramcount.reading.tables.rounded import lightning_model, with_states
from paramcount.reading.tables.table import Printout, Row
from paramcount.record import replace


def models(printouts: Sequence[Printout], lines: Sequence[str]) -> list[Model]:
    """Every printout as a Model, in order (``lines``: the paste)."""
    found: list[Model] = []
    for printout in printouts:
        if printout.kind == "lightning":
            found.append(lightning_model(printout))
        elif printout.kind == "flax-tabulate":
            found.append(flax_model(printout))
        elif printout.kind == "hf-repr":
            found.append(family_model(printout, lines))
        elif printout.kind == "counts":
            found.append(counts_model(printout))
        elif printout.kind == "table" and any(row.rounded for row in printout.rows):
            found.append(rounded_model(printout))
        elif printout.kind in ("pytorch-model-summary", "table"):
            found += [with_states(m, printout) for m in printout_models([printout], lines)]
        else:
            found += printout_models([printout], lines)
        if printout.kind == "repr" and printout.rounded_total and found:
            found[-1] = _against_figure(found[-1], printout.rounded_total)
        if printout.how:  # read by a generic reader: the answer says how
            found[-1] = replace(found[-1], notes=(printout.how, *found[-1].notes))
    return found


_RNN_TENSOR = lazy(r"(?P<role>weight_ih|weight_hh|bias_ih|bias_hh|weight_hr)"
                         r"(?P<suffix>(?:_l[0-9]{1,4}(?:_reverse)?)?)")


_GATES = {1: Cell.RNN, 3: Cell.GRU, 4: Cell.LSTM}


def gates_from_counts(counts: dict[str, int]) -> list[int]:
    """The gate counts G (RNN 1, GRU 3, LSTM 4) a torch RNN's tensors' counts allow: with
    biases, G·H (a bias) and G·H·H (``weight_hh``) give H, then G; without, every G for which
    ``weight_hh`` holds G·H² and ``weight_ih`` G·H·I with whole H and I. Empty where the names
    are no torch RNN's (or a projection's ``weight_hr`` leaves them open)."""
    suffixes = set()
    for name in counts:
        match = _RNN_TENSOR.fullmatch(name)
        if match is None or match["role"] == "weight_hr":
            return []
        suffixes.add(match["suffix"])
    fits = []
    for gates in _GATES:
        for suffix in suffixes:
            bias = counts.get(f"bias_ih{suffix}") or counts.get(f"bias_hh{suffix}")
            hh, ih = counts.get(f"weight_hh{suffix}"), counts.get(f"weight_ih{suffix}")
            if not hh or not ih or hh % gates:
                break
            hidden = math.isqrt(hh // gates)
            if hidden * hidden * gates != hh or ih % (gates * hidden) or (
                    bias is not None and bias != gates * hidden):
                break
        else:
            fits.append(gates)
    return fits


def shapes_from_counts(counts: dict[str, int], gates: int) -> dict[str, tuple[int, ...]]:
    """A torch RNN's tensors' shapes from their counts, its gates G known."""
    shapes: dict[str, tuple[int, ...]] = {}
    for name, number in counts.items():
        match = _RNN_TENSOR.fullmatch(name)
        assert match is not None
        hidden = math.isqrt(counts[f"weight_hh{match['suffix']}"] // gates)
        rows = gates * hidden
        shapes[name] = (rows,) if match["role"].startswith("bias") else (rows, number // rows)
    return shapes


def counts_model(printout: Printout) -> Model:
    """A table of tensors' counts (``count_parameters`` with prettytable) as a Model: each
    module's tensors summed, a torch RNN's configuration read from its tensors' counts where
    they tell it (:func:`gates_from_counts`); where they allow several cells, each is listed
    and none claimed."""
    groups: dict[str, list[Row]] = {}
    for row in printout.rows:
        groups.setdefault(row.name.rsplit(".", 1)[0] if "." in row.name else "", []).append(row)
    layers: list[Layer] = []
    for owner, rows in groups.items():
        held = sum(r.params or 0 for r in rows)
        local = {r.name.rsplit(".", 1)[-1]: r.params or 0 for r in rows}
        fits = gates_from_counts(local)
        specs = []
        for gates in fits:
            found = conventions.recognise(shapes_from_counts(local, gates), [Framework.TORCH])
            if len(found) == 1 and len(found[0].names) == len(rows) and conventions.total(
                    found[0].spec) == held:
                specs.append((gates, found[0]))
        name = owner or rows[0].name
        if len(specs) == 1:
            gates, recognised = specs[0]
            layers.append(Layer(name, f"nn.{_GATES[gates].name}", Framework.TORCH,
                                rows[0].line, spec=recognised.spec, params=held, printed=held,
                                notes=("its configuration read from its tensors' counts",
                                       *recognised.notes)))
        elif fits or all(_RNN_TENSOR.fullmatch(n) for n in local):
            cells = tuple(_GATES[g] for g, _ in specs) or tuple(_GATES.values())
            kinds = " or ".join(f"nn.{c.name}" for c in cells)
            how = (f"its tensors' counts fit {kinds} (without biases, the gates are not told "
                   "apart): no configuration is claimed")
            single = not any("_l" in n for n in local)
            clues = Clues(held, Framework.TORCH, cells, single_cell=single)
            layer = solved_layer(Row(name, cells[-1].name, None, held, rows[0].line), clues,
                                 kinds)
            if specs:  # each configuration its counts allow, exactly
                layer = replace(layer, spec=None, notes=(how,), solution=Solution(
                    clues, tuple(Fit(r.spec) for _, r in specs), None, how))
            layers.append(layer)
        else:
            layers.append(Layer(name, "tensors", None, rows[0].line, params=held,
                                printed=held))
    return Model(printout.title, printout.kind, printout.first, tuple(layers),
                 printed_total=printout.total, accounting=printout.accounting)


def _against_figure(model: Model, figure: tuple[int, int]) -> Model:
    """A repr whose printer figures its total (ptflops' line under ``Net(``): where the modules
    read do not add up to it, something the repr does not show holds the rest (a parameter of
    the model's own), so no total is claimed."""
    low, high = figure
    counted = model.total if model.total is not None else model.at_least
    if counted is None or low <= counted <= high:
        return model
    return replace(model, accounting=model.accounting + Accounting(cropped=(
        f"its modules add up to {counted:,}, not the {low:,} to {high:,} its printer figures "
        "for the model: a parameter of the model's own, which no repr line shows, or frozen "
        "parameters the printer leaves out",)))


def rounded_model(printout: Printout) -> Model:
    """A generic table whose counts are printed rounded (fvcore below its depth): each leaf
    row a layer whose exact count is asked for, its interval named; no total claimed."""
    layers: list[Layer] = []
    rows = printout.rows
    low_sum = high_sum = 0
    for index, row in enumerate(rows):
        if index + 1 < len(rows) and rows[index + 1].name.startswith(row.name + "."):
            continue  # its children are listed: its count is theirs
        if row.rounded is None:
            layers.append(Layer(row.name, row.type, None, row.line, params=row.params,
                                printed=row.params, notes=(
                                    "its configuration is not read: the table prints no "
                                    "width beside its count",) if cell_of(row.type) else ()))
            low_sum, high_sum = low_sum + (row.params or 0), high_sum + (row.params or 0)
            continue
        low, high = row.rounded
        low_sum, high_sum = low_sum + low, high_sum + high
        layers.append(Layer(row.name, row.type, None, row.line, notes=(
            f"printed rounded, {row.note}: {low:,} to {high:,}",), missing=(Missing(
                f"the exact count of {row.name}", row.line, "the table prints it rounded: "
                "paste its tensors (a deeper table, or named_parameters())"),)))
    notes = [f"its rows' counts add up to {low_sum:,} to {high_sum:,}"]
    if printout.rounded_total is not None:
        notes.append("its total is printed rounded: {:,} to {:,}".format(
            *printout.rounded_total))
    return Model(printout.title, printout.kind, printout.first, tuple(layers),
                 printed_total=printout.total, notes=tuple(notes),
                 accounting=printout.accounting)


def flax_model(printout: Printout) -> Model:
    """The table as a Model: each linen cell (with its gate rows) one recurrent layer, a
    ``Bidirectional`` of two alike cells one bidirectional layer (one whose other direction is
    not read claims no configuration), every other row with parameters as printed."""
    rows = printout.rows
    layers: list[Layer] = []
    unread: list[Unread] = []
    index = 0
    pending_bidirectional: Row | None = None
    halves: list[int | None] = []
    """The directions read under the pending Bidirectional: each one's index in ``layers``,
    None for one whose gate rows were not read."""
    failed: Row | None = None
    """The last cell under it whose gate rows were not read (its rows go on)."""

    def close() -> None:
        """The pending Bidirectional ends: a direction read without the other is no layer's
        configuration (the other's rows are cut, or not read)."""
        nonlocal pending_bidirectional
        if (pending_bidirectional is not None and len(halves) < 2) or None in halves:
            for at in halves:
                if at is not None:
                    layers[at] = _one_direction(layers[at])
        pending_bidirectional = None
        halves.clear()

    while index < len(rows):
        row = rows[index]
        name = cell_class(row.type)
        if row.type == "Bidirectional" or (pending_bidirectional is not None and (
                (name is None and row.type != "RNN" and not _under(row, failed))
                or len(halves) == 2)):
            close()
            failed = None
        if row.type == "Bidirectional":
            pending_bidirectional = row
        if name is None:
            if row.params:
                layers.append(Layer(row.name, row.type, Framework.FLAX_LINEN, row.line,
                                    params=row.params, printed=row.params))
            index += 1
            continue
        cell, gates = CELLS[name]
        gate_rows = rows[index + 1:index + 1 + gates]
        if row.params:  # tabulate(depth=1): the cell's row holds its count, no gate rows
            gates, found = 0, _whole_cell(cell, row)
        else:
            found = (cell_sizes(cell, [g.params for g in gate_rows])
                     if len(gate_rows) == gates else None)
        # under a Bidirectional, a cell is one of its directions (its RNN row may be cut)
        half = pending_bidirectional is not None
        wrapped = (index > 0 and rows[index - 1].type == "RNN") or half
        if found is None:
            why = (f"its {gates} gate rows do not hold the counts of one {name}" if gates else
                   f"its count and shapes are not those of one {name}")
            unread.append(Unread(row.line, f"{row.name} {row.type}", why))
            layers.append(Layer(row.name, name, Framework.FLAX_LINEN, row.line, missing=(),
                                notes=(f"{why}: not read",)))
            if half:
                halves.append(None)
                failed = row
            index += 1
            continue
        spec = LayerSpec(cell, found[0], found[1], framework=Framework.FLAX_LINEN,
                         single_cell=not wrapped)
        how = "its gate rows' counts" if gates else "its count and output shape"
        notes = [f"read from {how}: {conventions.describe(spec)}"]
        if name == "OptimizedLSTMCell":
            notes.append("an OptimizedLSTMCell holds the parameters of an LSTMCell")
        previous = layers[-1] if layers else None
        if (pending_bidirectional is not None and wrapped and previous is not None
                and previous.spec is not None and previous.spec == spec
                and previous.name == pending_bidirectional.name and halves == [len(layers) - 1]):
            both = spec.replace(bidirectional=True)
            layers[-1] = Layer(pending_bidirectional.name, "Bidirectional", Framework.FLAX_LINEN,
                               pending_bidirectional.line, spec=both,
                               params=conventions.total(both), notes=tuple(notes))
            pending_bidirectional = None
            halves.clear()
        else:
            label = pending_bidirectional.name if half and pending_bidirectional else row.name
            if half:
                halves.append(len(layers))
            layers.append(Layer(label, name, Framework.FLAX_LINEN, row.line, spec=spec,
                                params=conventions.total(spec), notes=tuple(notes)))
        index += 1 + gates
    close()
    shown = sum(row.params or 0 for row in rows)
    accounting = printout.accounting + Accounting(unread=tuple(unread))
    if printout.total is not None and shown != printout.total:
        accounting = accounting + Accounting(cropped=(
            f"its rows add up to {shown:,}, not its Total Parameters {printout.total:,}: a "
            "row is missing",))
    return Model(printout.title, printout.kind, printout.first, tuple(layers),
                 printed_total=printout.total, accounting=accounting)


def _whole_cell(cell: Cell, row: Row) -> tuple[int, int] | None:
    """(input width, H) of a linen cell printed as one row (``tabulate(depth=1)``): H the last
    axis of its outputs (its carry and output alike), the input width the one whose count is
    the row's (a cell's count grows by the same step with each input feature), and the last
    input's last axis where printed; None unless all agree."""
    hidden = {shape[-1] for shape in row.outputs if shape}
    if len(hidden) != 1 or row.params is None:
        return None
    (size,) = hidden
    if not isinstance(size, int) or size <= 0:
        return None

    def total(width: int) -> int:
        return conventions.total(LayerSpec(cell, width, size, framework=Framework.FLAX_LINEN,
                                           single_cell=True))

    step = total(2) - total(1)
    width, rest = divmod(row.params - total(1), step)
    width += 1
    printed = row.input_shape[-1] if row.input_shape else None
    if rest or width <= 0 or total(width) != row.params or printed not in (None, width):
        return None
    return width, size


def _under(row: Row, cell: Row | None) -> bool:
    """Whether ``row`` is one of ``cell``'s gate rows by its path (``GRUCell_0/ir``, or cut at
    the column's edge: ``GRUCell_0…``)."""
    if cell is None or not cell.name:
        return False
    stem, path = row.name.removesuffix("…"), cell.name.removesuffix("…")
    return stem.startswith(f"{path}/") or (stem != row.name and (
        stem.startswith(path) or f"{path}/".startswith(stem)))


def _one_direction(layer: Layer) -> Layer:
    """A cell read under a ``Bidirectional`` whose other direction is not read: its own
    count named, no configuration or count claimed for the layer."""
    assert layer.spec is not None and layer.params is not None
    return Layer(layer.name, "Bidirectional", Framework.FLAX_LINEN, layer.line, notes=(
        f"one direction read ({conventions.describe(layer.spec)}, {layer.params:,} "
        "parameters); the other direction's rows are not in the paste or not read: the "
        "layer is not counted",))


def family_model(printout: Printout, lines: Sequence[str]) -> Model:
    """The repr as a Model of one layer, the family's model, counted where every reading
    that fits gives one count."""
    from paramcount.families.registry import family

    text = printout.text(lines)
    found = tree(text)
    name, fits = readings(found)
    module = family(name)
    totals = sorted({r.total for r in fits})
    notes: list[str] = []
    whole = printout.accounting.whole
    candidates = _candidates(name, printout.title, fits) if len(totals) > 1 else ()
    params = totals[0] if len(totals) == 1 and whole else None
    if not whole:
        notes.append(f"not counted: {printout.accounting.words()}")
    if not fits:
        notes.append(f"its shown sizes fit no {module.TITLE} configuration paramcount knows: "
                     "not counted")
    else:
        notes.append(f"{module.TITLE}: the configuration read from its Linear, Conv1d and "
                     "Embedding lines and its folded repeats, counted as "
                     f"{module.REFERENCE} builds it (every tensor, those the repr hides too)")
        if len(totals) > 1:
            for reading, candidate in zip(fits, candidates, strict=False):
                tie = {True: "lm_head tied to the embeddings", False: "lm_head untied",
                       None: ""}[reading.tied]
                notes.append(f"{reading.total:,}: {candidate.configuration}"
                             + (f", {tie}" if tie else "")
                             + (", the library's default" if candidate.default else ""))
    missing = tuple(Missing(what, printout.first, "print(model) does not show it: paste the "
                            "config.json, or the code that builds the config")
                    for what in hidden(fits)) if len(totals) > 1 and whole else ()
    if whole and not fits:
        missing = (Missing(f"the configuration of {printout.title}", printout.first,
                           "its repr's sizes fit none paramcount knows: paste the "
                           "config.json"),)
    if not whole:
        missing = (Missing(f"the rest of {printout.title}'s repr", printout.first,
                           f"{printout.accounting.words()}: paste all of print(model)"),)
    layer = Layer(printout.title, printout.title, Framework.TORCH, printout.first,
                  params=params, notes=tuple(notes), missing=missing)
    return Model(printout.title, "repr", printout.first, (layer,),
                 accounting=printout.accounting, candidates=candidates if whole else ())


def _candidates(name: str, title: str, fits: Sequence[Reading]) -> tuple[Candidate, ...]:
    """The readings of a family's repr as candidates: each configuration, its count, the
    ``paramcount`` command that counts it, the fields the readings differ in
    (``tie_word_embeddings``, ``num_attention_heads``) and whether the library builds it from
    a config that gives none of them (each at its default)."""
    from paramcount.families.command import command_line
    from paramcount.families.registry import changed
    from paramcount.record import fields

    shown = fits[:_MOST_CANDIDATES]
    apart = [f for f in fields(shown[0].config)
             if len({repr(getattr(r.config, f)) for r in shown}) > 1]
    found = []
    for reading in shown:
        differs = changed(reading.config)
        found.append(Candidate(describe(title, reading.config), reading.total,
                               command_line(name, reading.config),
                               not any(f in differs for f in apart),
                               tuple((f, getattr(reading.config, f)) for f in apart)))
    return tuple(found)


_MOST_CANDIDATES = 12
"""The most readings of a repr listed (the notes list as many)."""
