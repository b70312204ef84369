"""Unnamed shapes read every way they group: one torch layer, or several in a row.

``for p in model.parameters(): print(p.shape)`` prints no names, so which consecutive tensors
make one module is only a reading. A recognised stack of L layers in D directions is L·D runs
of tensors, one per layer and direction (``weight_ih``, ``weight_hh``, the biases, an LSTM's
``weight_hr``). Layers recognised right after one another with runs of one kind (cell, hidden
size, biases, projection) form a chain, and any split of a chain's runs into consecutive
modules whose shapes are each a torch layer (both directions of a layer read the same width,
a later layer reads D·Hr) prints the same shapes: ``nn.RNN(1, 1, num_layers=2)``, a
bidirectional ``nn.RNN(1, 1)``, or two ``nn.RNN(1, 1)`` in a row; a one-layer module without
projection may as well be a cell. A plain RNN's first two biases are H wide, as
``LayerNorm(H)``'s weight and bias are: its first layer may as well be bias-free and followed
by a norm (one more layer of a bias-free chain before it), and those groupings are listed
too. None of them is claimed: every one is listed.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from paramcount.engine import conventions
from paramcount.engine.spec import Cell, LayerSpec
from paramcount.reading import budget
from paramcount.record import record

Part = tuple[LayerSpec, ...]
"""One module of a reading: the layer, and for a one-layer one without projection its cell."""
Grouping = tuple[Part, ...]
"""Consecutive modules that together print a chain's shapes."""

MOST_RUNS = 10
"""Chains of more runs are not split: the ways are too many to list."""
_LISTED = 6
"""The most groupings a note spells out."""


@record
class Reading:
    """What unnamed shapes say of one recognised layer."""

    candidates: tuple[LayerSpec, ...]
    """Its own tensors read as one layer: the recognised configuration first."""
    groupings: tuple[Grouping, ...]
    """Its chain's tensors read as several layers in a row (empty where too many)."""
    note: str


def read_unnamed(specs: Sequence[LayerSpec], names: Sequence[str],
                 adjacent: Sequence[bool]) -> list[Reading]:
    """Each recognised layer's readings, in order; ``adjacent[i]`` says whether the tensors of
    ``specs[i + 1]`` come right after those of ``specs[i]``."""
    found: list[Reading] = []
    chains = _chains(specs, adjacent)
    for number, chain in enumerate(chains):
        previous = chains[number - 1] if number else []
        bare = _without_biases(specs[chain[0]])
        if bare is not None and previous and adjacent[chain[0] - 1] and (
                _kind(specs[previous[-1]]) == _kind(bare)):
            found[-1] = _as_norm(found[-1], [specs[i] for i in previous], bare)
        members = [specs[i] for i in chain]
        widths = [width for spec in members for width in _widths(spec)]
        groupings: tuple[Grouping, ...] = ()
        untold = len(widths) > MOST_RUNS
        if not untold:
            try:  # the ways of a chain, from the paste's budget (spent: too many to list)
                groupings = tuple(g for g in _groupings(members[0], widths, 0)
                                  if len(chain) > 1 or len(g) > 1)
                budget.spend(len(groupings) + 1)
            except budget.Spent:
                groupings, untold = (), True
        together = _together([names[i] for i in chain]) if len(chain) > 1 else ""
        for spec in members:
            whole = _whole(spec)
            note = _describe(whole, groupings, together, untold)
            own = groupings
            if bare is not None and spec is members[0]:
                own = (*groupings, (_part(bare),))
                note += (f"; or its first two 1-D shapes are a norm's weight and bias "
                         f"(nn.LayerNorm({spec.hidden_size})), not biases: "
                         f"{conventions.describe(bare)} then the norm")
            found.append(Reading(whole, own, note))
    return found


def _without_biases(spec: LayerSpec) -> LayerSpec | None:
    """The first layer of a plain unidirectional RNN with biases, read without them, where its
    two biases may instead be a norm's weight and bias (they are H wide, as ``LayerNorm(H)``'s
    tensors are); None for any other layer."""
    if spec.cell is not Cell.RNN or not spec.bias or spec.bidirectional or spec.single_cell:
        return None
    return spec.replace(bias=False, num_layers=1)


def _as_norm(reading: Reading, before: Sequence[LayerSpec], bare: LayerSpec) -> Reading:
    """The reading of the last layer before ``bare``, with the groupings its chain has when the
    next layer's first run is read without biases (``bare``: its two 1-D shapes a norm's)."""
    members = [*before, bare]
    widths = [width for member in members for width in _widths(member)]
    if len(widths) > MOST_RUNS:
        return reading
    more = tuple(_groupings(members[0], widths, 0))
    shown = "; ".join(" + ".join(conventions.describe(part[0]) for part in g)
                      for g in more[:_LISTED])
    note = (f"{reading.note}; or, if the two 1-D shapes after the next "
            f"{conventions.describe(bare)} weights are a norm's weight and bias "
            f"(nn.LayerNorm({bare.hidden_size})) rather than its biases: {shown}")
    return Reading(reading.candidates, (*reading.groupings, *more), note)


def _kind(spec: LayerSpec) -> tuple[object, ...]:
    """What every run of one module shares: its cell, hidden size, biases and projection."""
    return spec.framework, spec.cell, spec.hidden_size, spec.bias, spec.proj_size


def _chains(specs: Sequence[LayerSpec], adjacent: Sequence[bool]) -> list[list[int]]:
    """The recognised layers in chains: each next one right after and of the same kind."""
    chains: list[list[int]] = []
    for index, spec in enumerate(specs):
        if chains and adjacent[index - 1] and _kind(specs[index - 1]) == _kind(spec):
            chains[-1].append(index)
        else:
            chains.append([index])
    return chains


def _widths(spec: LayerSpec) -> list[int]:
    """The width each of ``spec``'s runs reads, in torch's order (layer by layer, forward
    then reverse)."""
    later = spec.directions * spec.output_size
    return [spec.input_size if run < spec.directions else later
            for run in range(spec.num_layers * spec.directions)]


def _whole(spec: LayerSpec) -> tuple[LayerSpec, ...]:
    """``spec``'s runs read as one module: ``spec`` and its cell first, then the others (a
    bidirectional layer and two stacked ones whose input width is their hidden size)."""
    widths = _widths(spec)
    found = [c for module in _modules(spec, widths, 0)
             if module.num_layers * module.directions == len(widths) for c in _part(module)]
    return tuple(sorted(found, key=lambda c: c.replace(single_cell=False) != spec))


def _modules(spec: LayerSpec, widths: Sequence[int], start: int) -> Iterator[LayerSpec]:
    """Each torch layer of ``spec``'s kind whose runs can be ``widths[start:...]``: L layers
    of D directions, its first layer's directions reading one width, each later one D·Hr."""
    for directions in (1, 2):
        later = directions * spec.output_size
        for layers in range(1, (len(widths) - start) // directions + 1):
            span = widths[start + (layers - 1) * directions:start + layers * directions]
            if len(set(span)) > 1 if layers == 1 else any(width != later for width in span):
                break  # each layer's runs checked once: linear in the runs
            yield spec.replace(input_size=widths[start], num_layers=layers,
                               bidirectional=directions == 2, single_cell=False)


def _groupings(spec: LayerSpec, widths: Sequence[int], start: int) -> Iterator[Grouping]:
    """Every grouping of ``widths[start:]`` into consecutive modules of ``spec``'s kind."""
    if start == len(widths):
        yield ()
        return
    for module in _modules(spec, widths, start):
        for rest in _groupings(spec, widths, start + module.num_layers * module.directions):
            yield (_part(module), *rest)


def _part(module: LayerSpec) -> Part:
    """A module and, where it is one unidirectional layer without projection, its cell."""
    if module.num_layers == 1 and not module.bidirectional and not module.proj_size:
        return module, module.replace(single_cell=True)
    return (module,)


_NAMED = 4
"""The most layers of a chain a note names one by one (more: the first, the last, how many)."""


def _together(names: Sequence[str]) -> str:
    """The layers of a chain, named in a bounded number of words (each member's note holds it,
    so a chain of n layers costs n notes, not n²)."""
    if len(names) <= _NAMED:
        return ", ".join(names)
    return f"{names[0]} … {names[-1]} ({len(names):,} layers)"


def _describe(whole: Sequence[LayerSpec], groupings: Sequence[Grouping],
              together: str, untold: bool) -> str:
    """The readings in words: ``read as one layer: A or B; or as consecutive layers: C + D;
    ...``, naming the layers read beside it whose shapes group with its own."""
    text = "unnamed shapes, read as one layer: " + " or ".join(
        conventions.describe(c) for c in whole)
    where = f"with {together} (the same kind of shapes in a row), " if together else ""
    if untold:
        return f"{text}; {where}they may as well be several layers in a row (too many ways to " \
               "list)"
    if not groupings:
        return text
    text += f"; {where}or as consecutive layers: " + "; ".join(
        " + ".join(conventions.describe(part[0]) for part in g) for g in groupings[:_LISTED])
    if len(groupings) > _LISTED:
        text += f" ({len(groupings)} ways in all)"
    if any(len(part) > 1 for g in groupings for part in g):
        text += " (a one-layer part may as well be a cell)"
    return text
