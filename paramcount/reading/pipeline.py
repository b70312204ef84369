"""A pasted question answered: the layers its code and printouts describe, counted and checked.

``read(text)`` finds printouts (Keras summaries, torchinfo tables, ``print(model)`` reprs,
shape dumps) and code in one paste, turns every layer into a LayerSpec (recurrent) or an exact
count (the rest), totals each model whose layers are all countable, lists the names it could
not resolve, and flags every printed count that disagrees with what the code builds, with the
reason. Pure: nothing is imported or run, no framework is loaded.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from paramcount.engine import conventions
from paramcount.engine.report import Report, build_report, growth_because
from paramcount.engine.report import growth as growth_of
from paramcount.engine.spec import Cell, Framework, LayerSpec
from paramcount.errors import ParamcountError
from paramcount.reading.budget import budgeted
from paramcount.reading.code.python_code import MAX_TEXT, NOT_PARSED, TOO_DEEP, read_code
from paramcount.reading.code.recovery import is_prose
from paramcount.reading.found import (
    Layer,
    Missing,
    Model,
    code_models,
    reset_after_note,
    stacks,
)
from paramcount.reading.keras_version import KerasVersion
from paramcount.reading.messages.runtime_error import RuntimeFinding, runtime_errors
from paramcount.reading.pairing import classes_of, expected_shapes, layer_pairs, pair
from paramcount.reading.patterns import lazy
from paramcount.reading.printed import models as printout_models
from paramcount.reading.printout import find_printouts
from paramcount.reading.reprs.generic import sizeless
from paramcount.reading.tables.headless import headless_rows
from paramcount.reading.tables.table import number as bounded
from paramcount.reading.wrappers import rejoined, unwrapped_lines, unwrapped_text
from paramcount.record import record, replace

__all__ = ["Answer", "Disagreement", "Layer", "Missing", "Model", "NothingFound", "Unreadable",
           "read"]

SCHEMA = "paramcount.read/1"


class NothingFound(ParamcountError):
    """The paste holds nothing paramcount can count: bad input, like a paste it cannot read."""

    exit_code = 2


class Unreadable(ParamcountError):
    """Input that cannot be read at all (too large, not a file)."""

    exit_code = 2


@record
class Disagreement:
    """A printed (or stated) count that differs from what the code builds, and why."""

    line: int | None
    layer: str
    printed: int
    computed: int | None
    """What the code builds; None where no code is paired (a printed count that fits no
    configuration of its layer)."""
    reason: str
    source: str = "printout"
    """``printout`` (a printed count or shape), ``repr`` (a ``print(model)`` the code builds
    differently) or ``question`` (a number stated in prose)."""
    naive: bool = False
    """Whether the number is the naive multiple the growth analysis explains."""


@record
class Answer:
    """Everything ``paramcount read`` found in one paste."""

    source: str
    kinds: tuple[str, ...]
    models: tuple[Model, ...]
    unresolved: tuple[Missing, ...]
    disagreements: tuple[Disagreement, ...]
    notes: tuple[str, ...] = ()
    overrides: tuple[tuple[str, int], ...] = ()
    errors: tuple[RuntimeFinding, ...] = ()
    """Runtime errors the paste shows, each with the argument at fault and the fix."""
    title: str = ""
    """The numbers: ``nn.LSTM(32, 128, ...): 561,152 parameters``."""
    reason: str = ""
    """The one-sentence reason: ``Naive 2 × 215,040 = 430,080 vs actual 561,152, because ...``."""

    @property
    def recurrent(self) -> list[tuple[Model, Layer]]:
        """Every recurrent layer with the model it belongs to."""
        return [(m, layer) for m in self.models for layer in m.layers if layer.recurrent]


# -- the whole paste --------------------------------------------------------------------------

_SPACES = {0: None, 0xFEFF: None, 0x200B: None, 0xA0: " ", 0x2007: " ", 0x202F: " ",
           **{c: " " for c in range(0x2000, 0x200B)}}
"""What a web page puts for spaces (no-break, narrow, figure and other fixed-width spaces,
copied from a rendered notebook or post) read as spaces; zero-width spaces, a byte-order mark
and NUL dropped."""
_ODD_SPACES = lazy("[\x00\ufeff\u200b\xa0\u2000-\u200a\u202f]")
_QUOTE = lazy(r"\A {0,3}(?:>(?!>>) ?)+")
"""A Markdown quote's marks (``> ``, nested ``> > ``), taken off every line: no printout or
code line starts with ``>`` but a prompt (``>>> ``), which is kept."""


def _untabbed(line: str) -> str:
    """A printout's line with the tabs an editor put for its leading spaces (four to a tab, as
    code editors indent) turned back into spaces, so its columns line up again; code keeps its
    tabs (Python reads them)."""
    if not line.startswith("\t"):
        return line
    body = line.lstrip(" \t")
    return line[:len(line) - len(body)].expandtabs(4) + body


@budgeted  # every search of the paste from one budget
def read(text: str, overrides: Mapping[str, int] | None = None, source: str = "<stdin>"
         ) -> Answer:
    """Read a pasted question: its printouts and code, counted and compared."""
    if len(text) > MAX_TEXT:
        raise Unreadable(f"{source} holds {len(text):,} characters; paramcount read reads at "
                         f"most {MAX_TEXT:,}")
    text = unwrapped_text(text.replace("\r\n", "\n"))
    if _ODD_SPACES.search(text):  # translate() is slow: only where there is one to turn
        text = text.translate(_SPACES)
    lines, broken = rejoined(unwrapped_lines(
        [_QUOTE.sub("", line, 1) for line in text.split("\n")], text))
    printouts, claimed = find_printouts([_untabbed(line) for line in lines])
    headless, headless_note = headless_rows(lines, claimed)
    claimed |= {u.line for u in headless}  # rows of a table are not code either
    code_lines = ["" if number in claimed else line for number, line in enumerate(lines, 1)]
    reading = read_code("\n".join(code_lines), overrides or {})
    from_printouts = printout_models(printouts, lines)
    from_code, versions = follow_printed_keras(code_models(reading), from_printouts)
    models = [*from_code, *from_printouts]
    kinds = tuple(dict.fromkeys(
        [*(["code"] if from_code else []), *(p.kind for p in printouts)]))
    unresolved = _unresolved(models)
    built = [*from_code, *(m for m in from_printouts if m.source == "repr")]
    shown = [m for m in from_printouts if m.source != "repr"]
    disagreements, pairing = compare(built, shown)
    disagreements += repr_against_code(from_code, [m for m in from_printouts
                                                   if m.source == "repr"])
    disagreements += stated_counts(lines, claimed, built, disagreements)
    disagreements += unsolvable(shown, disagreements)
    disagreements += sums(shown, disagreements)
    errors = runtime_errors(lines, [m.layers for m in from_code], overrides)
    if headless_note and not models and not errors:
        raise NothingFound(f"nothing countable read in {source}: {headless_note}")
    if not errors and not any(
            layer.params is not None or layer.printed is not None or layer.missing
            or layer.recurrent for m in models for layer in m.layers) and not any(
            m.printed_total is not None or (m.source == "code" and m.accounting.unread)
            for m in models):
        if named := [note for note in reading.notes if TOO_DEEP in note] or [
                note for note in reading.notes if NOT_PARSED in note]:
            raise NothingFound(f"nothing countable found in {source}: {named[0]}")
        if (why := sizeless(lines) or _keras_config(text)) is not None:
            raise NothingFound(f"nothing countable found in {source}: {why}")
        raise NothingFound(f"nothing countable found in {source}: looked for recurrent, "
                           "linear, embedding, convolution and norm layers in Python code, "
                           "Keras summaries, torchinfo, torchsummary, Lightning and "
                           "pytorch-model-summary tables, Flax tabulate, print(model) (Hugging "
                           "Face models too) and shape dumps")
    if errors:
        kinds = (*kinds, "runtime-error")
    answer = Answer(source, kinds, tuple(models), tuple(unresolved), tuple(disagreements),
                    (*reading.notes, *pairing, *([headless_note] if headless_note else []),
                     *([broken] if broken else [])),
                    tuple(sorted((overrides or {}).items())),
                    tuple(errors))
    title, reason = headline(answer)
    versions += old_defaults(from_code, from_printouts)
    if versions and not disagreements:
        reason = versions[0]
    return replace(answer, title=title, reason=reason)


_KERAS_CONFIG = lazy(r"'class_name': '\w{1,60}', 'config': \{")


def _keras_config(text: str) -> str | None:
    """Why a Keras ``get_config()`` printed as a dict is not counted (not read yet), where the
    paste is one; None otherwise."""
    found = _KERAS_CONFIG.search(text[:200_000])
    if found is None or "'layers': [" not in text:
        return None
    return ("it holds a Keras model's `get_config()` (its layers as `'class_name': ..., "
            "'config': {...}`), which paramcount does not read yet: paste `model.summary()` or "
            "`[(w.path, w.shape) for w in model.weights]`")


def old_defaults(code: Sequence[Model], printed: Sequence[Model]) -> list[str]:
    """What the paste says of its Keras, in words: each GRU counted with reset_after=False
    because its code's import says so, or because its Keras 2 summary's count does."""
    said = []
    for model in [*code, *printed]:
        legacy_code = model.source == "code" and model.keras is KerasVersion.LEGACY
        old_table = model.source == "keras-summary" and model.keras is not KerasVersion.KERAS3
        for layer in model.layers:
            spec = layer.spec
            if spec is None or spec.reset_after is not False or layer.params is None:
                continue
            today = conventions.total(spec.replace(reset_after=True))
            if legacy_code and "reset_after" in layer.defaults:
                said.append(f"Code for {KerasVersion.LEGACY.words}: its GRU {layer.name} "
                            f"defaults to reset_after=False, which gives {layer.params:,}; "
                            f"Keras 3 (and tf.keras of TensorFlow 2.x) build {today:,}.")
            elif old_table and layer.solution is not None:
                kind = model.keras.words if model.keras else "Keras"
                said.append(f"A {kind} summary: its {layer.name} prints {layer.params:,}, "
                            "which only reset_after=False gives, the GRU default of "
                            f"{KerasVersion.LEGACY.words}; Keras 3 (and tf.keras of "
                            f"TensorFlow 2.x) build {today:,} for it.")
    return said


def layer_reports(answer: Answer) -> dict[int, Report]:
    """The full report of every recurrent layer the answer counted, by ``id`` of the layer
    (what ``--details`` shows)."""
    return {id(layer): _named(build_report(layer.spec), layer)
            for model in answer.models for layer in model.layers if layer.spec is not None}


def _named(report: Report, layer: Layer) -> Report:
    """A Keras layer's report with its tensors under the layer's own name, as Keras writes
    them (``bidirectional_1/forward_lstm/lstm_cell/kernel``, not the first layer's
    ``bidirectional/...`` the convention gives a lone layer)."""
    spec = report.spec
    if (spec.framework is not Framework.KERAS or spec.num_layers != 1 or spec.single_cell
            or not layer.name or "/" in layer.name):
        return report
    tensors = tuple(replace(t, name=layer.name + t.name[t.name.index("/"):])
                    if "/" in t.name else t for t in report.tensors)
    return replace(report, tensors=tensors)


def _unresolved(models: Sequence[Model]) -> list[Missing]:
    """Every value the paste leaves open, each named once (at its first line): one ``--set``
    gives it wherever it is used."""
    seen: dict[str, Missing] = {}
    for model in models:
        for layer in model.layers:
            for missing in layer.missing:
                if missing.name not in seen or (missing.line or 0) < (
                        seen[missing.name].line or 0):
                    seen[missing.name] = missing
    return sorted(seen.values(), key=lambda m: (m.line or 0, m.name))


# -- comparisons ------------------------------------------------------------------------------

def follow_printed_keras(code: Sequence[Model], printed: Sequence[Model]
                         ) -> tuple[list[Model], list[str]]:
    """The code models, each Keras GRU that leaves reset_after to the default counted with
    False where the Keras 2 summary it is paired with prints the count only that gives (the
    summary was made by a Keras whose default was False); and what that says, in words."""
    adopted: dict[int, Layer] = {}
    said: list[str] = []
    classes = classes_of(code)
    for shown in printed:
        if shown.source != "keras-summary" or shown.keras is KerasVersion.KERAS3:
            continue
        match, _ = pair(shown, code, classes)
        for layer, built in layer_pairs(shown, match) if match is not None else ():
            spec = built.spec
            if spec is None or "reset_after" not in built.defaults or not spec.reset_after:
                continue
            old = spec.replace(reset_after=False)
            if layer.printed == conventions.total(old) != built.params:
                note = (f"counted with reset_after=False, as the summary at line {layer.line} "
                        f"was: it prints {layer.printed:,}, which only that gives. "
                        + reset_after_note(old))
                adopted[id(built)] = replace(
                    built, spec=old, params=conventions.total(old),
                    notes=(*built.notes, note), defaults=())
                said.append(
                    f"A Keras 2 summary: its {layer.name} prints {layer.printed:,}, which only "
                    f"reset_after=False gives, the GRU default of {KerasVersion.LEGACY.words}; "
                    f"Keras 3 (and tf.keras of TensorFlow 2.x) build {built.params:,} from the "
                    "same code, so the code is counted with reset_after=False.")
    if not adopted:
        return list(code), said
    models = []
    for model in code:
        layers = [adopted.get(id(layer), layer) for layer in model.layers]
        models.append(replace(model, layers=tuple(layers),
                                          stacks=tuple(stacks(layers))))
    return models, said


def growth_reason(spec: LayerSpec) -> str | None:
    """The one-sentence reason a stack is not the naive multiple, from the report's growth
    analysis: ``naive 2 × 215,040 = 430,080 vs actual 561,152, because ...``."""
    parts = growth_parts(spec)
    return None if parts is None else f"{parts[0]}, because {parts[1]}"


def growth_parts(spec: LayerSpec) -> tuple[str, str] | None:
    """``naive 2 × 215,040 = 430,080 vs actual 561,152`` and why, from the growth analysis."""
    growth = growth_of(spec)
    if growth is None or not growth.difference:
        return None
    naive = f"naive {growth.multiplier} × {growth.baseline:,} = {growth.naive:,}"
    return f"{naive} vs actual {growth.actual:,}", growth_because(spec, growth)


def alternatives(spec: LayerSpec, printed: bool = False) -> list[tuple[int, str]]:
    """Counts a reader might have expected instead of ``spec``'s, each with the reason.

    ``printed``: the count comes from the framework's own printout, which follows its own
    convention (so only a version default such as Keras' GRU ``reset_after`` explains it, not
    a naive guess or the other framework's bias layout).
    """
    found: list[tuple[int, str]] = []
    growth = growth_of(spec)
    parts = growth_parts(spec)
    if growth is not None and parts is not None and not printed:
        found.append((growth.naive, f"the naive {growth.multiplier} × {growth.baseline:,}; "
                      f"{parts[1]}"))
    if spec.framework is Framework.KERAS and spec.cell is Cell.GRU:
        other = spec.replace(reset_after=not spec.reset_after)
        found.append((conventions.total(other), (
            f"reset_after=False, the GRU default of {KerasVersion.LEGACY.words}: one bias "
            f"({spec.gate_rows},) per direction instead of Keras 3's (2, {spec.gate_rows})"
            if spec.reset_after else
            "reset_after=True, the GRU default of tf.keras in TensorFlow 2.x and of Keras 3: "
            f"two bias rows (2, {spec.gate_rows}) per direction")))
    if printed:
        return found
    if spec.framework is Framework.TORCH and spec.bias:
        keras_like = conventions.total(spec) - spec.directions * spec.num_layers * spec.gate_rows
        found.append((keras_like, "the one-bias formula G·H·(I + H + 1) (Keras' layout); torch "
                      "keeps two bias vectors, bias_ih and bias_hh"))
    if spec.framework is Framework.KERAS and spec.bias and spec.cell is not Cell.GRU:
        torch_like = conventions.total(spec) + spec.directions * spec.num_layers * spec.gate_rows
        found.append((torch_like, "the two-bias formula of PyTorch (bias_ih and bias_hh); "
                      "Keras keeps one bias per gate block"))
    if spec.bias:
        found.append((conventions.total(spec.replace(bias=False)), "a count without biases"))
    return found


def explain_difference(computed: Layer, printed: int) -> str:
    """Why ``printed`` differs from what ``computed`` builds, as far as it can be told."""
    if computed.spec is not None:
        for value, reason in alternatives(computed.spec, printed=True):
            if value == printed:
                return reason
        from paramcount.reading.solve import widths as solved_widths

        widths = solved_widths(printed, computed.spec)
        if widths:
            return (f"the printed count fits an input width of {widths[0]}, but the code "
                    f"gives it {computed.spec.input_size}")
        if computed.spec.bias and conventions.total(computed.spec.replace(bias=False)) == printed:
            return "the printed count is the layer without biases (bias=False / use_bias=False)"
    return "the code builds a different layer than the one printed"


def unsolvable(printed: Sequence[Model], already: Sequence[Disagreement]
               ) -> list[Disagreement]:
    """Printed recurrent counts that fit no configuration of their layer with the widths the
    printout shows (not already explained against code)."""
    flagged = {d.line for d in already}
    return [Disagreement(layer.line, layer.name, layer.printed, None, layer.solution.how)
            for model in printed for layer in model.layers
            if layer.solution is not None and layer.printed is not None
            and not layer.solution.fits and layer.solution.complete
            and layer.line not in flagged]


def compare(code: Sequence[Model], printed: Sequence[Model]
            ) -> tuple[list[Disagreement], list[str]]:
    """Printed counts (and shapes) that differ from the code's, layer by paired layer; and, for
    each printout no code model can be paired with for certain, why it was compared with none.
    A printout that differs from a ``print(model)`` it pairs with is of another model (both
    print what was run): that is a note, not a disagreement."""
    found: list[Disagreement] = []
    notes: list[str] = []
    classes = classes_of(code)
    for model in printed:
        match, doubt = pair(model, code, classes)
        if doubt is not None:
            notes.append(doubt)
        if match is None:
            continue
        mine: list[Disagreement] = []
        if model.tensors:
            mine += shape_disagreements(model, match)
        flagged = {d.layer for d in mine}
        pairs = layer_pairs(model, match)
        if not model.accounting.whole:  # a row not read would pair the rest out of order
            pairs = [(x, built) for x, built in pairs if x.name and x.name == built.name]
        for layer, computed in pairs:
            if layer.printed is None or computed.params is None or layer.name in flagged:
                continue
            if layer.printed != computed.params:
                mine.append(Disagreement(layer.line, layer.name or computed.name, layer.printed,
                                         computed.params,
                                         explain_difference(computed, layer.printed)))
        total = match.total
        if (model.source == "torchinfo" and match.tied and total is not None
                and model.printed_total == total + match.tied):
            notes.append(f"the torchinfo table at line {model.line} prints {model.printed_total:,}"
                         f": it counts the {match.tied:,} parameters {match.name} ties to "
                         f"another layer's twice; the model holds {total:,}")
        elif model.printed_total is not None and total is not None and (
                model.printed_total != total) and not mine:
            mine.append(Disagreement(model.line, model.name, model.printed_total, total,
                                     "the printed total differs from the code's layers"))
        if mine and match.source == "repr":  # two printouts: each shows what was run
            notes.append(f"the {model.source} printout at line {model.line} and the "
                         f"print(model) at line {match.line} differ in {len(mine):,} "
                         f"{'count' if len(mine) == 1 else 'counts'} or shapes: they are "
                         "printouts of two different models, so they are not compared")
            continue
        found += mine
    return found, notes


def repr_against_code(code: Sequence[Model], reprs: Sequence[Model]) -> list[Disagreement]:
    """Where a paste holds the code of a model and its ``print(model)`` too, each layer the
    two build differently (or, where every layer agrees, totals that differ): they are the
    same model only if they agree."""
    found: list[Disagreement] = []
    classes = classes_of(code)
    for shown in reprs:
        match, _ = pair(shown, code, classes)
        if match is None:
            continue
        mine = []
        for layer, built in layer_pairs(shown, match):
            if layer.params is None or built.params is None or layer.params == built.params:
                continue
            said = (f"{conventions.describe(layer.spec)} in the repr, "
                    f"{conventions.describe(built.spec)} in the code"
                    if layer.spec is not None and built.spec is not None else
                    f"{layer.params:,} in the repr, {built.params:,} in the code")
            mine.append(Disagreement(
                layer.line, layer.name or built.name, layer.params, built.params,
                f"the repr at line {shown.line} and the code at line {built.line} build "
                f"{layer.name or built.name} differently: {said}", "repr"))
        if not mine and shown.total is not None and match.total is not None and (
                shown.total != match.total):
            mine.append(Disagreement(
                shown.line, shown.name, shown.total, match.total,
                f"the repr at line {shown.line} totals {shown.total:,}, the code of "
                f"{match.name} at line {match.line} {match.total:,}: they are not the same "
                "model", "repr"))
        found += mine
    return found


def sums(printed: Sequence[Model], already: Sequence[Disagreement]) -> list[Disagreement]:
    """Tables whose rows do not add up to their own ``Total params`` (a row missing from the
    paste, or a count changed), where every row's count is printed and nothing in the table
    was found wrong already (which would say the same thing twice)."""
    found = []
    flagged = {d.line for d in already}
    for model in printed:
        if flagged & {model.line, *(layer.line for layer in model.layers)}:
            continue
        if not model.accounting.whole:
            continue  # rows we could not read: the difference would be ours, not the paste's
        counts = [0 if layer.printed is None and layer.params == 0 else
                  None if layer.printed is None else layer.printed - (layer.holds or 0)
                  for layer in model.layers]
        if model.printed_total is None or not counts or None in counts or model.tensors:
            continue
        shown = sum(c for c in counts if c is not None)
        if shown != model.printed_total:
            found.append(Disagreement(
                model.line, model.name, model.printed_total, shown,
                f"the rows of this table add up to {shown:,}, not its Total params: a row is "
                "missing from the paste, or a count was changed"))
    return found


def shape_disagreements(printed: Model, code: Model) -> list[Disagreement]:
    """Printed tensor shapes that differ from the code's recurrent layers' (transposed ones
    named as such)."""
    expected = expected_shapes(code)
    found = []
    for name, shape, line in printed.tensors:
        if name not in expected or expected[name][0] == shape:
            continue
        want, layer = expected[name]
        if tuple(reversed(shape)) == want:
            reason = (f"a transposed shape: {layer.kind} stores {name} as "
                      f"{_shape_text(want)}, not {_shape_text(shape)}")
        else:
            reason = (f"the code gives {name} the shape {_shape_text(want)}, the printout "
                      f"{_shape_text(shape)}")
        found.append(Disagreement(line, name, math.prod(shape), math.prod(want), reason))
    return found


def _shape_text(shape: tuple[int, ...]) -> str:
    return "(" + ", ".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ")"


_NUMBER = lazy(r"(?<![\w.,])([0-9]{1,3}(?:,[0-9]{3})+|[0-9]{3,})(?![\w.,][0-9])")


_WORD = lazy(r"(?<![A-Za-z])[A-Za-z]{3,}+\s")


def _states_a_number(line: str) -> bool:
    """Whether ``line`` is prose or a comment with a number in it that could be a count."""
    return any(bounded(m.group(1).replace(",", "")) is not None for m in _NUMBER.finditer(line)
               ) and (line.lstrip().startswith("#") or is_prose(line))


def stated_counts(lines: Sequence[str], claimed: set[int], code: Sequence[Model],
                  already: Sequence[Disagreement]) -> list[Disagreement]:
    """Counts the question states in prose that a wrong formula explains (naive growth, the
    other framework's biases, an old GRU default)."""
    if not any(_states_a_number(line) for number, line in enumerate(lines, 1)
               if number not in claimed):
        return []
    expected: list[tuple[int, str, Layer]] = []
    for model in code:
        for layer in model.layers:
            if layer.spec is not None:
                expected += [(value, reason, layer) for value, reason in
                             alternatives(layer.spec)]
    if not expected:
        return []
    printed = {d.printed for d in already}
    found = []
    for number, line in enumerate(lines, 1):
        if number in claimed or not _WORD.search(line) or ("(" in line and (
                "=" in line or line.rstrip().endswith(")"))):
            continue
        for match in _NUMBER.finditer(line):
            value = bounded(match.group(1).replace(",", ""))
            if value is None:
                continue
            for alternative, reason, layer in expected:
                if value == alternative and value not in printed and layer.params is not None \
                        and value != layer.params:
                    assert layer.spec is not None
                    growth = growth_of(layer.spec)
                    found.append(Disagreement(
                        number, layer.name, value, layer.params,
                        f"stated in the question: {reason}", "question",
                        naive=growth is not None and value == growth.naive))
                    printed.add(value)
                    break
    return found


# -- the headline ------------------------------------------------------------------------------

def headline(answer: Answer) -> tuple[str, str]:
    """The answer's title (the numbers) and its one-sentence reason: the growth analysis of the
    first stack, the first disagreement, or the formula with its numbers."""
    if answer.errors:
        return _error_headline(answer)
    found = answer.recurrent
    if any(model.source == "code" for model, _ in found):
        found = [(model, layer) for model, layer in found if model.source == "code"]
    recurrent = [layer for _, layer in found]
    counted = [layer for layer in recurrent if layer.spec is not None]
    stack = next((spec for model in answer.models if model.source == "code"
                  for spec in model.stacks), None)
    if stack is not None:
        title = f"{conventions.describe(stack)}: {_number(conventions.total(stack))} parameters"
        if not answer.disagreements and (sentence := growth_reason(stack)):
            return title, sentence[0].upper() + sentence[1:] + "."
    elif counted:
        first = counted[0]
        assert first.spec is not None and first.params is not None
        title = f"{conventions.describe(first.spec)}: {_number(first.params)} parameters"
        if len(counted) > 1:
            title += f" (and {len(counted) - 1} more recurrent "
            title += "layer)" if len(counted) == 2 else "layers)"
    elif recurrent and recurrent[0].printed is not None:
        title = f"{recurrent[0].kind}: {_number(recurrent[0].printed)} parameters (as printed)"
    elif recurrent and recurrent[0].params is not None:
        title = (f"{recurrent[0].kind}: {_number(recurrent[0].params)} parameters (the printed "
                 "total less the other rows)")
    elif recurrent and recurrent[0].solution is not None:
        first = recurrent[0]
        title = f"{first.kind} ({first.name or 'layer'}): the printout shows no count for it"
    elif recurrent:
        first = recurrent[0]
        title = (f"{first.kind} ({first.name or 'layer'}): its count depends on "
                 + ", ".join(m.name for m in first.missing))
    else:
        model = answer.models[0]
        count = model.total or model.printed_total
        said = _maybe(count) if count is not None or model.at_least is None else (
            f"at least {_number(model.at_least)}")
        title = f"{model.name}: {said} parameters"
    shown = _printed_model(answer)
    if shown is not None:
        title = _model_title(shown, len([x for m, x in answer.recurrent if m is shown]))
    if answer.disagreements:
        d = answer.disagreements[0]
        layer = next((x for _, x in answer.recurrent if x.name == d.layer and x.spec), None)
        if d.naive and layer is not None and layer.spec is not None:
            sentence = growth_reason(layer.spec)
            if sentence:
                return title, sentence[0].upper() + sentence[1:] + "."
        where = f"line {d.line}" if d.line else d.layer
        if d.computed is None:
            return title, f"{_number(d.printed)} ({where}): {d.reason}."
        reason = (f"{_number(d.printed)} ({where}) vs {_number(d.computed)} computed from the "
                  f"code: {d.reason}.")
        return title, reason
    if shown is not None and shown.total is None and (
            why := shown.accounting.words() or (shown.notes[0] if shown.notes else "")):
        return title, why[0].upper() + why[1:] + "."
    specs = [layer.spec for layer in counted if layer.spec is not None]
    specs += [spec for model in answer.models for spec in model.stacks]
    for spec in specs:
        sentence = growth_reason(spec)
        if sentence and shown is not None:  # the title is the model's: name the layer
            return title, f"{conventions.describe(spec)}: {sentence}."
        if sentence:
            return title, sentence[0].upper() + sentence[1:] + "."
    if counted:
        assert counted[0].spec is not None
        formula = conventions.formula(counted[0].spec)
        said = f"{formula.symbolic} = {formula.substituted} = {_number(formula.total)}."
        if shown is not None:  # the title is the model's: say which layer the formula is
            said = f"{conventions.describe(counted[0].spec)}: {said}"
        return title, said
    if answer.unresolved:
        return title, "Some sizes are not in the paste: give them with --set (see below)."
    for layer in recurrent:
        if layer.solution is not None and layer.solution.ambiguous:
            return title, (f"{layer.name}: {layer.solution.how}; what would tell them apart: "
                           f"{layer.solution.apart}.")
    if any(model.source != "code" for model in answer.models):
        return title, "Counts as printed."
    for model in answer.models:
        if model.total is None and not model.accounting.whole:
            return title, f"{model.name}: its total is {model.bound}."
    return title, "The sum of its layers' counts, read from the code (--details shows each)."


def _printed_model(answer: Answer) -> Model | None:
    """The model a paste without code prints whole, layers beside its recurrent ones (a
    summary table, a repr): its headline is the model's count, not its first layer's."""
    if not answer.models or any(m.source == "code" for m in answer.models):
        return None
    model = answer.models[0]
    if len(model.layers) < 2 or (model.source == "shapes" and all(
            layer.recurrent for layer in model.layers)):
        return None
    return model


def _model_title(model: Model, recurrent: int) -> str:
    """``Tagger: 43,490 parameters (repr, 3 recurrent layers)``; ``at least N`` where only a
    bound is known, the printer's own total where nothing better is."""
    if model.total is not None:
        count = _number(model.total)
    elif model.at_least is not None and (
            model.printed_total is None or not model.accounting.whole or model.notes):
        count = f"at least {_number(model.at_least)}"
    elif model.printed_total is not None:
        count = f"{_number(model.printed_total)} (as printed)"
    else:
        count = "?"
    layers = f"{recurrent} recurrent layer" + ("" if recurrent == 1 else "s")
    return f"{model.name}: {count} parameters ({model.source}, {layers})"


def _error_headline(answer: Answer) -> tuple[str, str]:
    """A pasted runtime error first: what is at fault, and the fix."""
    error = answer.errors[0]
    where = f" of {error.layer}" if error.layer else ""
    title = f"{error.framework} runtime error: {error.argument}{where}"
    return title, f"Line {error.line}: {error.fix}."


def _number(value: int) -> str:
    return f"{value:,}"


def _maybe(value: int | None) -> str:
    return "?" if value is None else f"{value:,}"
