"""Counts printed rounded (Lightning's ``593 K``): every configuration whose count falls in the
interval the rounded number stands for, and the model such a table describes.

A rounded count pins a recurrent layer only together with its widths: with the input and
output widths of the ``In sizes`` / ``Out sizes`` columns, a torch layer's count grows with
its depth (and, under a projection, its hidden size), so each option's counts are walked up
to the interval's end and every one inside it is a fit; one fit is the answer, exactly
counted (or one with default options among fits of one count). Fits of different counts are
narrowed by the printed total and the other rows; what is left stays open, never guessed.
Without the widths no configuration is claimed: the family the class allows is named, with
the interval. A row that is not recurrent keeps its interval, and the model's total is then a
range, never one number.
"""

from __future__ import annotations

import functools

from paramcount.engine import conventions
from paramcount.engine.layers import torch_free
from paramcount.engine.spec import Cell, Framework, LayerSpec
from paramcount.errors import SpecError
from paramcount.reading import budget
from paramcount.reading.accounting import Accounting, Unread
from paramcount.reading.found import Layer, Model, cell_of
from paramcount.reading.solve import MAX_LAYERS_SEARCHED, Clues, Fit, Solution
from paramcount.reading.tables.table import Printout, Row
from paramcount.record import replace

MAX_HIDDEN_SEARCHED = 1 << 16
"""The largest hidden size tried above a projection."""


def span(low: int, high: int) -> str:
    """An interval in words: ``593,000 to 593,999``."""
    return f"{low:,}" if low == high else f"{low:,} to {high:,}"


def _total(spec: LayerSpec) -> int | None:
    budget.spend()  # one configuration counted
    try:
        return conventions.total(spec)
    except SpecError:
        return None


def _depths(spec: LayerSpec, low: int, high: int) -> list[LayerSpec]:
    """``spec`` at every depth whose count falls in [low, high]."""
    found: list[LayerSpec] = []
    deep = not spec.single_cell
    for layers in range(1, (MAX_LAYERS_SEARCHED if deep else 1) + 1):
        try:
            candidate = spec.replace(num_layers=layers)
        except SpecError:
            return found
        value = _total(candidate)
        if value is None or value > high:
            break
        if value >= low:
            found.append(candidate)
    return found


@functools.lru_cache(maxsize=4096)
def fits_in(low: int, high: int, cell: Cell, width: int, output: int, single: bool
            ) -> tuple[Fit, ...]:
    """Every torch configuration of ``cell`` reading ``width`` and putting out ``output``
    features whose count lies in [low, high] (options off their defaults named); searched once
    for rows alike, its steps taken from the paste's budget (:class:`budget.Spent` where they
    run out)."""
    fits: list[Fit] = []
    for bidirectional in (False,) if single else (False, True):
        directions = 2 if bidirectional else 1
        if output % directions:
            continue
        outer = output // directions
        for bias in (True, False):
            assumes = () if bias else ("bias=False",)
            try:
                base = LayerSpec(cell, width, outer, bidirectional=bidirectional, bias=bias,
                                 framework=Framework.TORCH, single_cell=single)
            except SpecError:
                continue
            fits += [Fit(spec, assumes) for spec in _depths(base, low, high)]
            if cell is not Cell.LSTM or single:
                continue
            for hidden in range(outer + 1, MAX_HIDDEN_SEARCHED):
                projected = base.replace(hidden_size=hidden, proj_size=outer)
                first = _total(projected)
                if first is None or first > high:
                    break
                fits += [Fit(spec, assumes) for spec in _depths(projected, low, high)]
    return tuple(fits)


def solve_rounded(low: int, high: int, clues: Clues, printed: str,
                  states: tuple[tuple[int | None, ...], ...] = ()) -> Solution:
    """Every configuration of the row ``clues`` describe whose count Lightning prints as
    ``printed`` (between ``low`` and ``high``); the answer where one with default options
    fits. ``states``: the final states its Out sizes print after the output (``h_n`` of shape
    (D·num_layers, N, H_out), an LSTM's ``c_n`` (D·num_layers, N, H)), which narrow it."""
    cell = clues.cells[0]
    name = f"{cell.value.upper()}{'Cell' if clues.single_cell else ''}"
    stands = printed if low == high else f"{printed} (Lightning's rounding of {span(low, high)})"
    if clues.input is None or clues.output is None:
        single = clues.single_cell
        open_ = tuple(n for n in ("input_size", "hidden_size", "proj_size", "num_layers",
                                  "bidirectional", "bias")
                      if not (single and n in ("proj_size", "num_layers", "bidirectional"))
                      and not (n == "proj_size" and cell is not Cell.LSTM))
        family = Fit(LayerSpec(cell, 1, 1, framework=Framework.TORCH, single_cell=single), (),
                     open_)
        how = (f"the table prints this {name}'s count, {stands}, and no widths: many "
               f"configurations give {'it' if low == high else 'a count in that range'}; "
               f"{family.text}")
        return Solution(clues, (family,), None, how,
                        "its In sizes / Out sizes (set example_input_array), print(model) or "
                        "the code")
    fits = [fit for fit in fits_in(low, high, cell, clues.input, clues.output,
                                   clues.single_cell) if _keeps(fit.spec, states)]
    widths = f"reading {clues.input:,} features and putting out {clues.output:,}"
    usual = [fit for fit in fits if not fit.assumes]
    counts = {conventions.total(fit.spec) for fit in fits}
    chosen = usual if usual and len(counts) == 1 else fits
    if len(chosen) == 1:
        spec = chosen[0].spec
        how = (f"solved from {stands} {widths}: {conventions.describe(spec)} is the only "
               f"configuration{' with default options' if usual and len(fits) > 1 else ''} "
               f"in that range, which holds exactly {conventions.total(spec):,}")
        if chosen[0].assumes:
            how += f", with {', '.join(chosen[0].assumes)}"
        others = [fit for fit in fits if fit is not chosen[0]]
        if others:
            how += "; it would also fit, with the same count, with " + "; ".join(
                f"{', '.join(fit.assumes)}: {conventions.describe(fit.spec)}"
                for fit in others[:12])
        return Solution(clues, tuple(fits), spec, how)
    if not fits:
        return Solution(clues, (), None,
                        f"no PyTorch {name} {widths} holds a count Lightning prints as "
                        f"{printed} ({span(low, high)}), in any configuration")
    listed = "; ".join(f"{conventions.describe(fit.spec)} ({conventions.total(fit.spec):,})"
                       for fit in fits[:12])
    more = f"; and {len(fits) - 12} more" if len(fits) > 12 else ""
    return Solution(clues, tuple(fits), None,
                    f"{len(fits)} configurations {widths} hold "
                    f"{'' if low == high else 'a count in '}{stands}: "
                    f"{listed}{more}", "num_layers, bidirectional or proj_size (print(model) "
                    "or the code)")


def _keeps(spec: LayerSpec, states: tuple[tuple[int | None, ...], ...]) -> bool:
    """Whether ``spec`` gives the final states a torch layer's printed outputs show after its
    output: ``h_n`` (D·num_layers, N, proj_size or H), an LSTM's ``c_n`` (D·num_layers, N, H)."""
    if spec.single_cell or not states or len(states[0]) != 3:
        return True
    if states[0][0] != spec.directions * spec.num_layers or states[0][2] != (
            spec.proj_size or spec.hidden_size):
        return False
    return not (spec.cell is Cell.LSTM and len(states) > 1 and len(states[1]) == 3
                and states[1][2] != spec.hidden_size)


def narrowed(layer: Layer, states: tuple[tuple[int | None, ...], ...]) -> Layer:
    """A solved torch layer whose printed outputs also show its final states: the fits those
    states rule out dropped, and the one left claimed (a fit the printout leaves open is kept
    as it is)."""
    solution = layer.solution
    if solution is None or not states or any(fit.open for fit in solution.fits):
        return layer
    kept = [fit for fit in solution.fits if _keeps(fit.spec, states)]
    if not kept or len(kept) == len(solution.fits):
        return layer
    choices = {conventions.describe(fit.spec): fit for fit in kept}
    shown = ", ".join(str(list(shape)) for shape in states)
    if len(choices) == 1:
        spec = kept[0].spec
        how = (f"{solution.how}; its final states {shown} leave one: "
               f"{conventions.describe(spec)}")
        return replace(layer, spec=spec, params=conventions.total(spec),
                                   notes=(how,), solution=Solution(
                                       solution.clues, tuple(kept), spec, how))
    how = f"{solution.how}; its final states {shown} leave " + "; ".join(choices)
    return replace(layer, spec=None, notes=(how,), solution=Solution(
        solution.clues, tuple(kept), None, how, solution.apart))


def _recurrent(row: Row, cell: Cell) -> Layer:
    """A recurrent row of a rounded table, solved from its interval and widths."""
    single = row.type.endswith("Cell")
    width = row.input_shape[-1] if row.input_shape else None
    out = row.shape[-1] if row.shape else None
    clues = Clues(None, Framework.TORCH, (cell,), out, width, "its In sizes column",
                  False if single else None, single_cell=single)
    kind = f"nn.{row.type}"
    from paramcount.reading.tables.lightning import human

    low, high = row.rounded or (row.params or 0, row.params or 0)
    try:
        solution = solve_rounded(low, high, clues, human(low), row.outputs[1:])
    except budget.Spent:
        return Layer(row.name, kind, Framework.TORCH, row.line, params=row.params,
                     printed=row.params, notes=(f"printed rounded, {human(low)}: "
                                                f"{span(low, high)}; {budget.SPENT}",))
    spec = solution.spec
    notes = [solution.how] + ([f"what would tell them apart: {solution.apart}"]
                              if solution.apart else [])
    return Layer(row.name, kind, Framework.TORCH, row.line, spec=spec,
                 params=conventions.total(spec) if spec is not None else row.params,
                 printed=row.params, notes=tuple(notes), solution=solution)


def lightning_model(printout: Printout) -> Model:
    """A Lightning summary as a Model: every leaf row (a container's row stands for the rows
    under it where they are printed), recurrent rows solved from their intervals."""
    from paramcount.reading.tables.lightning import human

    rows = printout.rows
    layers: list[Layer] = []
    cut: list[Unread] = []
    low_sum = high_sum = 0
    for index, row in enumerate(rows):
        if index + 1 < len(rows) and rows[index + 1].name.startswith(row.name + "."):
            continue  # its children are listed: its count is theirs
        low, high = row.rounded or (row.params or 0, row.params or 0)
        cell = cell_of(row.type)
        if cell is not None and row.type in _TORCH_RECURRENT:
            layer = _recurrent(row, cell)
            if layer.solution is None and row.rounded is not None:  # the budget cut it
                cut.append(Unread(row.line, f"{row.name} {row.type} {human(low)}",
                                  budget.SPENT))
            if layer.params is not None:
                low, high = layer.params, layer.params
            layers.append(layer)
            low_sum, high_sum = low_sum + low, high_sum + high
            continue
        low_sum, high_sum = low_sum + low, high_sum + high
        notes: tuple[str, ...] = ()
        if row.rounded is not None:
            notes = (f"printed rounded, {human(row.rounded[0])}: {span(*row.rounded)}",)
        params = row.params if row.params is not None or not torch_free(row.type) else 0
        layers.append(Layer(row.name, f"nn.{row.type}", Framework.TORCH, row.line,
                            params=params, printed=row.params, notes=notes))
    total = printout.rounded_total or (
        None if printout.total is None else (printout.total, printout.total))
    if total is not None:
        layers = _narrowed_by_total(layers, total, rows)
        low_sum, high_sum = _sums(layers, rows)
    model_notes = []
    if printout.rounded_total is not None:
        model_notes.append(
            f"Lightning prints its total rounded, {human(printout.rounded_total[0])}: "
            f"{span(*printout.rounded_total)} parameters")
    if any(layer.params is None for layer in layers):
        model_notes.append(f"its rows' rounded counts add up to {span(low_sum, high_sum)}")
    accounting = printout.accounting
    if cut:
        accounting = accounting + Accounting(unread=tuple(cut))
    if total is not None and (high_sum < total[0] or low_sum > total[1]):
        accounting = accounting + Accounting(cropped=(
            f"its rows add up to {span(low_sum, high_sum)}, not its Total params "
            f"{span(*total)}: a row is missing",))
    return Model(printout.title, printout.kind, printout.first, tuple(layers),
                 printed_total=printout.total, notes=tuple(model_notes),
                 accounting=accounting)


_TORCH_RECURRENT = frozenset({"RNN", "GRU", "LSTM", "RNNCell", "GRUCell", "LSTMCell"})


def _span_of(layer: Layer, rounded: tuple[int, int] | None) -> tuple[int, int]:
    """The counts ``layer`` may hold: its own where claimed, else its fits' or its row's
    printed interval (``rounded``)."""
    solution = layer.solution
    if solution is not None and solution.spec is not None and layer.params is not None:
        return layer.params, layer.params
    if solution is not None and solution.fits and not any(fit.open for fit in solution.fits):
        counts = [conventions.total(fit.spec) for fit in solution.fits]
        return min(counts), max(counts)
    if rounded is not None:
        return rounded
    return layer.params or 0, layer.params or 0


def _sums(layers: list[Layer], rows: tuple[Row, ...]) -> tuple[int, int]:
    """The lowest and highest totals the layers may add up to."""
    by_line = {row.line: row.rounded for row in rows}
    spans = [_span_of(layer, by_line.get(layer.line or 0)) for layer in layers]
    return sum(low for low, _ in spans), sum(high for _, high in spans)


def _narrowed_by_total(layers: list[Layer], total: tuple[int, int],
                       rows: tuple[Row, ...]) -> list[Layer]:
    """Each recurrent layer whose fits hold different counts narrowed to those the printed
    total leaves room for beside the other rows (the one left claimed, several kept open).
    Linear in the rows: the others' sums are the whole's less the layer's own, and a few
    passes at most (one narrowing can leave room to narrow another)."""
    by_line = {row.line: row.rounded for row in rows}
    layers = list(layers)
    spans = [_span_of(layer, by_line.get(layer.line or 0)) for layer in layers]
    low_all, high_all = sum(s[0] for s in spans), sum(s[1] for s in spans)
    for _ in range(_PASSES):
        changed = False
        for index, layer in enumerate(layers):
            solution = layer.solution
            if (solution is None or solution.spec is not None or len(solution.fits) < 2
                    or any(fit.open for fit in solution.fits)):
                continue
            low = low_all - spans[index][0]
            high = high_all - spans[index][1]
            kept = [fit for fit in solution.fits
                    if low + conventions.total(fit.spec) <= total[1]
                    and high + conventions.total(fit.spec) >= total[0]]
            if not kept or len(kept) == len(solution.fits):
                continue
            layers[index] = _with_fits(layer, kept, total)
            new = _span_of(layers[index], by_line.get(layer.line or 0))
            low_all += new[0] - spans[index][0]
            high_all += new[1] - spans[index][1]
            spans[index] = new
            changed = True
        if not changed:
            break
    return layers


_PASSES = 4
"""How many times the rows are narrowed against the total, at most."""


def _with_fits(layer: Layer, kept: list[Fit], total: tuple[int, int]) -> Layer:
    """``layer`` with only the fits ``kept`` (those the printed total leaves room for)."""
    assert layer.solution is not None
    solution = layer.solution
    why = f"the printed total, {span(*total)}, leaves room beside the other rows for "
    if len(kept) == 1:
        spec = kept[0].spec
        how = f"{solution.how}; {why}one: {conventions.describe(spec)}"
        return replace(layer, spec=spec, params=conventions.total(spec),
                                   notes=(how,), solution=Solution(
                                       solution.clues, tuple(kept), spec, how))
    how = f"{solution.how}; {why}" + "; ".join(
        f"{conventions.describe(fit.spec)} ({conventions.total(fit.spec):,})" for fit in kept)
    return replace(layer, notes=(how,), solution=Solution(
        solution.clues, tuple(kept), None, how, solution.apart))


def with_states(model: Model, printout: Printout) -> Model:
    """A torch table's model with each recurrent layer narrowed by the final states its row
    prints after its output (pytorch-model-summary's ``[2, 3, 6], [2, 2, 3], [2, 2, 3]``)."""
    rows = {row.line: row for row in printout.rows}
    layers = []
    for layer in model.layers:
        row = rows.get(layer.line or 0)
        if row is not None and layer.recurrent and len(row.outputs) > 1:
            layer = narrowed(layer, row.outputs[1:])
        layers.append(layer)
    return replace(model, layers=tuple(layers))
