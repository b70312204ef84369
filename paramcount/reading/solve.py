"""The solver: every configuration of a recurrent layer whose tensors total a printed count.

Recognition run on counts. A printout shows a layer's count and some of its shapes (the output
width, sometimes the input) and, around it, the widths it reads (the layer before, an Input
row, an embedding's dimension). :func:`solve` enumerates the discrete options the printout
leaves open (cell, directions, merge mode, bias, ``reset_after``, projection) and, for each,
finds the unknown sizes exactly from the count through the conventions' own totals
(``conventions.total``): the count is linear in the input width and in the number of layers
and at most quadratic in the hidden size, so each unknown is the whole-number root of an
equation whose coefficients are read off the totals at three consecutive values, and every
root is checked against the convention's total before it is kept. No second set of formulas.

One fit is the answer; several are listed with what would tell them apart; none means the
printed count fits no configuration of that cell with those shapes: a real disagreement.
Options that are not their framework's default (``use_bias=False``, and Keras 3's
``reset_after=False``) are kept as fits but only win when no default configuration fits.
Pure: integer arithmetic, no framework imported.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from functools import lru_cache, partial
from math import isqrt

from paramcount.engine import conventions
from paramcount.engine.spec import Cell, Framework, LayerSpec, MergeMode
from paramcount.errors import SpecError
from paramcount.reading import budget
from paramcount.reading.keras_version import KerasVersion, reset_after_default
from paramcount.record import record, replace

__all__ = ["MAX_LAYERS_SEARCHED", "Clues", "Fit", "Solution", "integer_roots",
           "same_configuration", "solve", "widths"]

MAX_LAYERS_SEARCHED = 64
"""The deepest torch stack tried where the printout does not show the hidden size."""

MAX_LISTED = 12
"""The most fits an answer lists one by one (the rest are counted)."""


@record
class Clues:
    """What a printout tells about one recurrent layer."""

    count: int | None
    """Its printed parameter count (None: the printout shows none, only shapes)."""
    framework: Framework
    cells: tuple[Cell, ...]
    """The cells its printed class allows: one, or all three for a ``Bidirectional`` row."""
    output: int | None = None
    """The last axis of its printed output shape (D·H, or H after a sum/mul/ave merge)."""
    input: int | None = None
    """The width it reads, where the paste shows it."""
    input_from: str = ""
    """Where that width was read: ``the Input row``, ``the layer before (embedding)``."""
    bidirectional: bool | None = None
    """Known from the class (Keras' ``Bidirectional`` row) or None: either."""
    keras: KerasVersion | None = None
    """The Keras whose summary printed it, where the table style says."""
    single_cell: bool = False
    """The single-step cell class (``nn.LSTMCell``): one layer, one direction."""
    guessed: bool = False
    """Whether the input width is a guess (the row above in a torch table, which need not be
    what the layer reads), so that a fit only an unusual option allows is not trusted."""

    @property
    def searchable(self) -> bool:
        """Whether every configuration of the cell can be searched one by one: not where
        neither width is shown, nor for a torch LSTM missing one (its projection not pinned)."""
        if self.input is None and self.output is None:
            return False
        return not (self.framework is Framework.TORCH and Cell.LSTM in self.cells
                    and not self.single_cell and None in (self.input, self.output))


@record
class Fit:
    """One configuration whose tensors total the printed count, or, where no count is printed,
    a family of configurations that the printed shapes allow."""

    spec: LayerSpec
    assumes: tuple[str, ...] = ()
    """The options it needs that are not the printing framework's default."""
    open: tuple[str, ...] = ()
    """The fields the printout leaves open (any value fits): ``spec`` holds a stand-in."""
    total: int | None = None
    """A family's printed count: only the members whose tensors total it fit."""

    def admits(self, spec: LayerSpec) -> bool:
        """Whether ``spec`` is this configuration, or one of this family (its open fields
        taken from ``spec``)."""
        if not self.open:
            return same_configuration(self.spec, spec)
        fields = {name: getattr(spec, name) for name in self.open}
        if "hidden_size" in self.open and self.spec.merge_modes and spec.merge_modes:
            fields["merge_modes"] = spec.merge_modes  # no output width: any merge mode
        try:
            filled = self.spec.replace(**fields)
        except SpecError:
            return False
        return same_configuration(filled, spec) and (
            self.total is None or conventions.total(spec) == self.total)

    @property
    def text(self) -> str:
        """The configuration as its framework's code, a family with what is left open."""
        if not self.open:
            return conventions.describe(self.spec)
        stand_ins = {name: value for name, value in (("input_size", 1_000_000_007),
                                                     ("hidden_size", 1_000_000_009))
                     if name in self.open}
        text = conventions.describe(self.spec.replace(**stand_ins))
        for value in stand_ins.values():
            text = text.replace(f"{value:,}", "?").replace(str(value), "?")
        words = [OPEN_WORDS[name] for name in self.open]
        if self.total is not None:
            words.append(f"whose tensors total {self.total:,}")
        return f"{text}: " + ", ".join(words)


def _open(*fields: tuple[str, bool]) -> tuple[str, ...]:
    """The fields a family leaves open (each given with whether it is), in the order
    :data:`OPEN_WORDS` words them."""
    chosen = {name for name, left in fields if left}
    return tuple(name for name in OPEN_WORDS if name in chosen)


OPEN_WORDS = {
    "input_size": "any input width",
    "hidden_size": "any hidden size (above proj_size)",
    "proj_size": "any proj_size",
    "num_layers": "any num_layers",
    "bidirectional": "either direction",
    "bias": "with or without biases",
    "reset_after": "either reset_after",
}
"""How an answer words a field the printout leaves open."""


def same_configuration(a: LayerSpec, b: LayerSpec) -> bool:
    """Whether two specs are one configuration: the same tensors, names and shapes, and (for a
    Keras Bidirectional) the same output width. A plain RNN's nonlinearity, which no tensor
    stores, is not compared."""
    if (a.framework, a.cell, a.single_cell) != (b.framework, b.cell, b.single_cell):
        return False
    if _layout(a) != _layout(b):
        return False
    widths = [tuple(m.width_factor for m in s.merge_modes or ()) for s in (a, b)]
    return not (a.bidirectional and a.framework is not Framework.TORCH and widths[0] and
                widths[1] and widths[0] != widths[1])


@record
class Solution:
    """Every configuration that fits a printed count, and the one answer where there is one."""

    clues: Clues
    fits: tuple[Fit, ...]
    spec: LayerSpec | None
    """The answer: the one fit, or the one fit with default options (None when several)."""
    how: str
    """How the answer was derived, why several fit, or why none does."""
    apart: str = ""
    """Several fits: what in the paste would tell them apart."""

    @property
    def complete(self) -> bool:
        """Whether every configuration of the cell was searched (so that no fit means the count
        is wrong): :attr:`Clues.searchable`."""
        return self.clues.searchable

    @property
    def ambiguous(self) -> bool:
        """Whether several configurations fit equally well (or a family of them, where no
        count is printed)."""
        return self.spec is None and (len(self.choices) > 1 or any(
            fit.open for fit in self.fits))

    def admits(self, spec: LayerSpec) -> bool:
        """Whether ``spec`` is one of the configurations that fit."""
        return any(fit.admits(spec) for fit in self.fits)

    @property
    def choices(self) -> list[Fit]:
        """The distinct configurations that fit: one per set of tensors (Bidirectional's merge
        modes sum, mul and ave hold the same ones)."""
        return [group[0] for group in _groups(self.fits)]


# -- the arithmetic ----------------------------------------------------------------------------

def integer_roots(total: Callable[[int], int | None], count: int, start: int) -> list[int]:
    """Every whole x ≥ ``start`` with ``total(x) == count``, for a total at most quadratic in x
    that grows with x (as a count grows with every size); each root checked with ``total``."""
    points = [total(start + k) for k in range(3)]
    if any(p is None for p in points):
        return []
    return [x for x in candidates([int(p or 0) for p in points], count, start)
            if total(x) == count]


def candidates(points: Sequence[int], count: int, start: int) -> list[int]:
    """The whole x ≥ ``start`` where the quadratic through ``points`` (its values at start,
    start + 1, start + 2) equals ``count``, unchecked.

    Newton's forward form: total(x0 + k) = t0 + k·d1 + k(k−1)/2·d2, so
    d2·k² + (2·d1 − d2)·k + 2·(t0 − count) = 0.
    """
    t0, t1, t2 = points
    d1, d2 = t1 - t0, t2 - 2 * t1 + t0
    a, b, c = d2, 2 * d1 - d2, 2 * (t0 - count)
    steps: list[int] = []
    if a == 0:
        if b != 0 and (-c) % b == 0:
            steps.append(-c // b)
    else:
        disc = b * b - 4 * a * c
        if disc >= 0 and isqrt(disc) ** 2 == disc:
            root = isqrt(disc)
            steps += [(-b + s) // (2 * a) for s in {root, -root} if (-b + s) % (2 * a) == 0]
    return sorted({start + k for k in steps if k >= 0})


def _total(spec: LayerSpec, **changes: int) -> int | None:
    """The convention's total of ``spec`` with ``changes``, or None where the framework refuses
    that configuration; one step of the paste's budget (:class:`budget.Spent` where none is
    left)."""
    budget.spend()
    try:
        return conventions.total(spec.replace(**changes))
    except SpecError:
        return None


def _depth_total(spec: LayerSpec, layers: int) -> int | None:
    return _total(spec, num_layers=layers)


def widths(count: int, spec: LayerSpec) -> list[int]:
    """Every input width for which ``spec`` holds exactly ``count`` parameters (none where the
    paste's budget is spent)."""
    try:
        return integer_roots(lambda i: _total(spec, input_size=i), count, 1)
    except budget.Spent:
        return []


# -- the search --------------------------------------------------------------------------------

def _options(clues: Clues) -> Iterator[tuple[LayerSpec, tuple[str, ...]]]:
    """Every discrete configuration the printout leaves open, as a spec with placeholder sizes
    (input 1, hidden 1) and the non-default options it takes."""
    torch = clues.framework is Framework.TORCH
    directions = (False, True) if clues.bidirectional is None else (clues.bidirectional,)
    if clues.single_cell:
        directions = (False,)
    for cell in clues.cells:
        for bidirectional in directions:
            merges: tuple[MergeMode | None, ...] = (None,)
            if bidirectional and not torch:
                merges = (MergeMode.CONCAT, MergeMode.SUM, MergeMode.MUL, MergeMode.AVE)
            resets: tuple[bool | None, ...] = (None,)
            if cell is Cell.GRU and clues.framework is Framework.KERAS:
                resets = (True, False)
            for merge in merges:
                for reset_after in resets:
                    for bias in (True, False):
                        assumes = [] if bias else ["use_bias=False" if not torch else
                                                   "bias=False"]
                        default = reset_after_default(clues.keras)
                        if reset_after is not None and default not in (None, reset_after):
                            assumes.append(f"reset_after={reset_after}")
                        try:
                            spec = LayerSpec(cell, 1, 1, bidirectional=bidirectional, bias=bias,
                                             framework=clues.framework,
                                             merge_modes=(merge,) if merge else None,
                                             reset_after=reset_after,
                                             single_cell=clues.single_cell)
                        except SpecError:
                            continue
                        yield spec, tuple(assumes)


def _hidden(spec: LayerSpec, output: int | None) -> list[tuple[int, int]]:
    """(hidden, proj) pairs the output width allows: D·Hr after concat (or in torch), H after a
    sum/mul/ave merge; (0, 0) where the output is not shown."""
    if output is None:
        return [(0, 0)]
    factor = spec.merge_modes[-1].width_factor if spec.merge_modes else spec.directions
    if output % factor:
        return []
    hr = output // factor
    pairs = [(hr, 0)]
    if spec.framework is Framework.TORCH and spec.cell is Cell.LSTM and not spec.single_cell:
        pairs.append((0, hr))  # a projection: H > proj_size, solved from the count
    return pairs


def _sizes(spec: LayerSpec, clues: Clues) -> Iterator[LayerSpec]:
    """Every completion of ``spec``'s sizes (input, hidden, layers) that totals the count."""
    for hidden, proj in _hidden(spec, clues.output):
        base = spec.replace(hidden_size=max(hidden, proj + 1), proj_size=proj)
        if clues.input is not None:
            base = base.replace(input_size=clues.input)
        if hidden and not proj:
            unknown = "num_layers" if clues.input is not None else "input_size"
        elif clues.input is not None:
            unknown = "hidden_size"
        else:
            continue  # neither the input nor the hidden size: too many to list
        assert clues.count is not None, "only a printed count is solved"
        yield from _stacks(base, unknown, proj + 1 if unknown == "hidden_size" else 1,
                           clues.count)


def _stacks(base: LayerSpec, unknown: str, start: int, count: int) -> Iterator[LayerSpec]:
    """``base`` at every depth with ``unknown`` solved from the count.

    A torch stack's total is linear in its depth (the first layer, then alike layers), so
    the totals at depths 1 and 2 give every depth's without building it; each fit is checked.
    """
    deep = base.framework is Framework.TORCH and not base.single_cell
    if unknown == "num_layers":
        if deep:
            yield from (base.replace(num_layers=n) for n in integer_roots(
                partial(_depth_total, base), count, 1))
        elif _total(base) == count:
            yield base
        return
    one = [_total(base, **{unknown: start + k}) for k in range(3)]
    two = [_total(base, num_layers=2, **{unknown: start + k}) for k in range(3)] if deep else []
    if None in one or None in two:
        return
    for layers in range(1, (MAX_LAYERS_SEARCHED if deep else 1) + 1):
        points = [int(a or 0) + (layers - 1) * (int(b or 0) - int(a or 0))
                  for a, b in zip(one, two or one, strict=True)]
        if points[0] > count:
            break
        for value in candidates(points, count, start):
            fit = base.replace(num_layers=layers, **{unknown: value})
            if _total(fit) == count:
                yield fit


@lru_cache(maxsize=4096)
def _fits(clues: Clues) -> tuple[Fit, ...]:
    """Every configuration that totals the count, searched once for all rows alike but for
    where their input width was read (``clues.input_from``, which the search never reads:
    the rows of a deep summary each name the layer before theirs)."""
    return tuple(Fit(spec, assumes) for option, assumes in _options(clues)
                 for spec in _sizes(option, clues))


@lru_cache(maxsize=4096)
def solve(clues: Clues) -> Solution:
    """Every configuration of the printed layer that fits its count, and the answer (the same
    row printed many times, as in a deep summary, is solved once)."""
    if clues.count is None:
        return _shapes_only(clues)
    if clues.input is None and clues.output is None:
        return _count_only(clues)
    fits = list(_fits(replace(clues, input_from="") if clues.input_from else clues))
    if clues.input is not None and (not fits or (clues.guessed and all(
            fit.assumes for fit in fits))):
        # the width read from around the row fits only with an unusual option, or not at all:
        # what the count alone fits is as likely (the width may not be what the layer reads)
        free = solve(replace(clues, input=None, input_from=""))
        usual = [fit for fit in free.fits if not fit.assumes]
        where = f"{clues.input:,} features ({clues.input_from or 'the width shown'})"
        if not fits and free.fits:
            how = (f"{clues.count:,} does not fit reading {where}; it fits "
                   + _listed(_groups(free.fits)))
            return Solution(clues, free.fits, free.spec, how, free.apart)
        if fits and usual:
            # every fit of the count alone, an unusual option's included: the width read may
            # be wrong, and a list that narrows later (final states) must hold the truth
            both = [*fits, *(fit for fit in free.fits if fit not in fits)]
            how = (f"reading {where}, {clues.count:,} needs {', '.join(fits[0].assumes)}; "
                   f"{len(_groups(both))} configurations give it: {_listed(_groups(both))}")
            return Solution(clues, tuple(both), None, how, _apart(clues, _groups(both)))
    return _decide(clues, fits)


def _shapes_only(clues: Clues) -> Solution:
    """No printed count: every family of configurations the printed shapes allow, each with
    the fields the shapes leave open (never one answer: the count would tell). A guessed
    input width (the row above, which need not be what the layer reads) is left open: without
    a count nothing would check it."""
    if clues.guessed:
        clues = replace(clues, input=None, input_from="", guessed=False)
    fits: list[Fit] = []
    default = reset_after_default(clues.keras)
    deep = clues.framework is Framework.TORCH and not clues.single_cell
    for option, assumes in _options(clues):
        if not option.bias or assumes or (option.reset_after is False and default is None):
            continue  # biases and reset_after are left open, not listed twice
        for hidden, proj in _hidden(option, clues.output):
            # no hidden size: the output not shown, or an LSTM's projection below its size
            left = _open(("bias", True), ("num_layers", deep),
                         ("input_size", clues.input is None),
                         ("reset_after", option.reset_after is not None),
                         ("hidden_size", not hidden),
                         ("proj_size", not hidden and clues.output is None and deep
                          and option.cell is Cell.LSTM))
            spec = option.replace(input_size=clues.input or 1, proj_size=proj,
                                  hidden_size=max(hidden, proj + 1))
            fits.append(Fit(spec, (), left))
    groups = _groups(fits)
    cells = " or ".join(sorted({c.value.upper() for c in clues.cells}))
    shown = _shown(clues)
    how = (f"the printout shows no count for this {cells}"
           + (f"; {' and '.join(shown)} allow{'' if len(shown) > 1 else 's'}" if shown
              else ", nor its widths; it may be")
           + f" {_listed(groups, counted=True)}")
    apart = ("its count (a table with a Param # column), print(model), or the code"
             if groups else "")
    return Solution(clues, tuple(fits), None, how, apart)


def _count_only(clues: Clues) -> Solution:
    """A printed count without a width around it: too many configurations give it to list
    (an RNN's input and hidden sizes trade against each other), so the answer is the family of
    the cell's configurations that total it, never one of them."""
    deep = clues.framework is Framework.TORCH and not clues.single_cell
    fits = []
    for cell in clues.cells:
        left = _open(("input_size", True), ("hidden_size", True), ("bias", True),
                     ("bidirectional", clues.bidirectional is None and not clues.single_cell),
                     ("num_layers", deep), ("proj_size", deep and cell is Cell.LSTM),
                     ("reset_after", cell is Cell.GRU and clues.framework is Framework.KERAS))
        option = next((spec for spec, _ in _options(replace(clues, cells=(cell,)))), None)
        if option is not None:
            fits.append(Fit(option, (), left, clues.count))
    how = _none(clues) + ": " + _listed(_groups(fits))
    return Solution(clues, tuple(fits), None, how, "its input or output width")


def _shown(clues: Clues) -> list[str]:
    """The widths the printout shows around a layer, in words."""
    known = []
    if clues.output is not None:
        known.append(f"the output width {clues.output:,}")
    if clues.input is not None:
        known.append(f"the input width {clues.input:,}"
                     + (f" ({clues.input_from})" if clues.input_from else ""))
    return known


def _counted(fit: Fit) -> str:
    """A family's count where its sizes are known: one layer with biases, and each further
    layer of a torch stack."""
    if {"input_size", "hidden_size"} & set(fit.open):
        return ""
    one = conventions.total(fit.spec)
    text = f"{one:,} with one layer and biases" if "num_layers" in fit.open else (
        f"{one:,} with biases")
    if "reset_after" in fit.open:
        text += f" and reset_after={fit.spec.reset_after}"
    if "num_layers" in fit.open:
        text += f", {conventions.total(fit.spec.replace(num_layers=2)) - one:,} more per layer"
    return f" — {text}"


def _decide(clues: Clues, fits: list[Fit]) -> Solution:
    if not clues.searchable:
        return _unsearched(clues, fits)
    if not fits:
        return Solution(clues, (), None, _none(clues))
    usual = _groups([fit for fit in fits if not fit.assumes])
    groups = usual or _groups(fits)
    if len(groups) == 1:
        chosen = groups[0][0]
        how = _derived(clues, groups[0])
        others = [fit for fit in fits if fit.assumes and fit not in groups[0]]
        if others and usual:
            how = how.replace("is the only configuration that gives it",
                              "is the only configuration with default options that gives it")
            how += "; it would also fit with " + "; ".join(
                f"{', '.join(fit.assumes)}: {conventions.describe(fit.spec)}"
                for fit in others[:MAX_LISTED]) + " (the printout cannot rule that out)"
        return Solution(clues, tuple(fits), chosen.spec, how)
    how = f"{len(groups)} configurations give {clues.count:,}: {_listed(groups)}"
    return Solution(clues, tuple(fits), None, how, _apart(clues, groups))


def _unsearched(clues: Clues, fits: list[Fit]) -> Solution:
    """A torch LSTM with one width not shown: its configurations with a projection cannot be
    searched one by one, so none is claimed; those without are listed, and beside them the
    families with proj_size that may total the count."""
    families = _projection_families(clues)
    count = f"{clues.count:,}"
    projected = "; ".join(fit.text for fit in families)
    if fits:
        how = (f"{len(_groups(fits))} configurations without proj_size give {count}: "
               f"{_listed(_groups(fits))}; an LSTM with proj_size may give it too ({projected}),"
               " which the widths shown cannot rule out")
    else:
        how = (f"no configuration without proj_size gives {count}; one with proj_size may "
               f"({projected}), but the printout shows too little to search them (its input "
               "and output widths)")
    groups = _groups([*fits, *families])
    apart = _apart(clues, groups) if len(groups) > 1 else "proj_size (print(model) or the code)"
    return Solution(clues, (*fits, *families), None, how, apart)


def _projection_families(clues: Clues) -> list[Fit]:
    """The torch LSTMs with a projection the shown width allows, a family per direction: their
    hidden size, depth and biases open, their count the printed one."""
    families = []
    directions = (False, True) if clues.bidirectional is None else (clues.bidirectional,)
    for bidirectional in directions:
        factor = 2 if bidirectional else 1
        if clues.output is not None and clues.output % factor:
            continue
        proj = 1 if clues.output is None else clues.output // factor
        left = _open(("hidden_size", True), ("num_layers", True), ("bias", True),
                     ("input_size", clues.input is None), ("proj_size", clues.output is None))
        spec = LayerSpec(Cell.LSTM, clues.input or 1, proj + 1, proj_size=proj,
                         bidirectional=bidirectional, framework=Framework.TORCH)
        families.append(Fit(spec, (), left, clues.count))
    return families


def _groups(fits: Sequence[Fit]) -> list[list[Fit]]:
    """Fits that hold the same tensors, together (Bidirectional's merge modes sum, mul and ave
    differ in nothing a count or a shape shows)."""
    found: dict[tuple[tuple[tuple[str, tuple[int, ...]], ...], tuple[str, ...]], list[Fit]] = {}
    for fit in fits:
        found.setdefault((_layout(fit.spec), fit.open), []).append(fit)
    return list(found.values())


@lru_cache(maxsize=4096)
def _layout(spec: LayerSpec) -> tuple[tuple[str, tuple[int, ...]], ...]:
    """The name and shape of each of ``spec``'s tensors (the fits of many alike rows are
    grouped by the same few specs)."""
    return tuple((t.name, t.shape) for t in conventions.tensors(spec))


def _described(group: Sequence[Fit], counted: bool = False) -> str:
    text = group[0].text + (_counted(group[0]) if counted else "")
    modes = [fit.spec.merge_modes[-1].value for fit in group if fit.spec.merge_modes]
    if len(modes) > 1:
        text += f" (merge_mode {', '.join(modes[:-1])} or {modes[-1]}: the same tensors)"
    return text


def _listed(groups: Sequence[Sequence[Fit]], counted: bool = False) -> str:
    shown = "; ".join(_described(group, counted) for group in groups[:MAX_LISTED])
    if len(groups) > MAX_LISTED:
        shown += f"; and {len(groups) - MAX_LISTED} more"
    return shown


def _derived(clues: Clues, group: Sequence[Fit]) -> str:
    """How the one answer follows from the printout."""
    known = _shown(clues)
    given = f"{clues.count:,}" + (" with " + " and ".join(known) if known else "")
    text = f"solved from the printed {given}: {_described(group)} is the only configuration " \
           "that gives it"
    if group[0].assumes:
        text += f", with {', '.join(group[0].assumes)}"
    return text


def _apart(clues: Clues, groups: Sequence[Sequence[Fit]]) -> str:
    """What would tell several fits apart: the fields in which they differ."""
    specs = [group[0].spec for group in groups]
    differ = [name for name in ("cell", "input_size", "hidden_size", "num_layers",
                                "bidirectional", "proj_size", "bias", "reset_after")
              if len({getattr(s, name) for s in specs}) > 1
              and not (name == "hidden_size" and clues.output is not None)]
    words = {
        "cell": "the layer Bidirectional wraps (the code, or the weights)",
        "input_size": "the input width (an Input row, the layer before, or input_shape)",
        "hidden_size": "the hidden size",
        "num_layers": "num_layers (print(model) or the code)",
        "bidirectional": "whether it is bidirectional (print(model) or the code)",
        "proj_size": "proj_size (print(model) or the code)",
        "bias": "whether it has biases (the code)",
        "reset_after": "reset_after (the code, or which Keras printed the table)",
    }
    return "; ".join(words[name] for name in differ) or "the code"


def _none(clues: Clues) -> str:
    """Why no configuration fits."""
    cells = " or ".join(sorted({c.value.upper() for c in clues.cells}))
    shown = []
    if clues.output is not None:
        shown.append(f"{clues.output:,} outputs")
    if clues.input is not None:
        shown.append(f"reading {clues.input:,} features")
    if clues.output is None and clues.input is None:
        return (f"the printout shows neither the input nor the output width of this {cells}, "
                "so its count alone cannot be solved: paste the code, print(model), or a table "
                "with output shapes or per-tensor rows (torchinfo's input_size=, verbose=2)")
    return (f"no {clues.framework.display_name} {cells} layer with {' and '.join(shown)} "
            f"holds {clues.count:,} parameters, in any configuration")
