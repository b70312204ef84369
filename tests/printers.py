"""The real printers as the oracle of ``paramcount read``: random models printed, read, scored.

A model plan (plain data drawn by hypothesis) is built in torch, Keras 3 or Keras 2 (tf-keras);
the printers people paste from print it (``print(model)``, torchinfo with any columns, depth,
verbosity and row settings, torchsummary, ``named_parameters()`` / ``state_dict()`` dumps in
the common spellings, ``model.summary()`` of both Keras eras); ``read`` reads the text back and
each recurrent layer is scored: ``exact`` (the true configuration), ``ambiguous`` (no
configuration claimed and the true one among those listed, or of a family listed where no
count is printed, or the default options' fit claimed with the true one named beside it),
``unsized`` (no configuration claimed nor listed, with a note saying why), ``partial`` (a
layer of a cropped paste the crop lost, the crop named) or ``wrong`` (a
configuration claimed or listed that is not the truth, a count that is not the layer's, or a
layer not found). Used by the tests and by
``benchmarks/read_accuracy.py``, which writes the table in ``docs/read.md``.
"""

from __future__ import annotations

import contextlib
import io
import os
import random
import re
import warnings
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any

from hypothesis import strategies as st

from paramcount.engine import conventions
from paramcount.engine.spec import Cell, Framework, LayerSpec, MergeMode, Nonlinearity
from paramcount.reading.found import UNNAMED
from paramcount.reading.pipeline import Answer, Layer, Model, read
from paramcount.reading.solve import same_configuration as same

OUTCOMES = ("exact", "ambiguous", "unsized", "partial", "wrong")
TABLES = ("keras-summary", "torchinfo", "torchsummary")
"""The printouts with a Total params line that their rows add up to."""


@dataclass(frozen=True)
class Truth:
    """What the framework built: each recurrent layer's spec and name, and the model's count."""

    specs: tuple[LayerSpec, ...]
    names: tuple[str, ...]
    total: int
    counts: tuple[int, ...] = ()
    """The framework's own count of each recurrent layer."""


@dataclass(frozen=True)
class Paste:
    """One printer's text of one model, with the truth."""

    printer: str
    text: str
    truth: Truth
    total_printed: bool = True
    """Whether the printer's own total is the model's count (torchsummary's is not)."""


@dataclass
class Score:
    """Outcomes counted per printer, with the reason of every wrong one."""

    counts: Counter[tuple[str, str]] = field(default_factory=Counter)
    wrong: list[str] = field(default_factory=list)

    def add(self, printer: str, outcome: str, why: str = "") -> None:
        """Count one layer's outcome; keep the reason of a wrong one."""
        self.counts[printer, outcome] += 1
        if outcome == "wrong":
            self.wrong.append(f"{printer}: {why}")


def score_layer(layer: Layer | None, spec: LayerSpec, count: int) -> tuple[str, str]:
    """One recurrent layer read back, against the truth: (outcome, why it is wrong)."""
    if layer is None:
        return "wrong", f"{conventions.describe(spec)} not found"
    if layer.params is not None and layer.params != count:
        return "wrong", f"{layer.name}: count {layer.params:,}, truly {count:,}"
    if layer.spec is not None:
        if same(layer.spec, spec):
            return "exact", ""
        if layer.solution is not None and any(same(fit.spec, spec)
                                              for fit in layer.solution.choices):
            return "ambiguous", ""  # the default options' fit, the true one named beside it
        return "wrong", (f"{layer.name}: read {conventions.describe(layer.spec)}, truly "
                         f"{conventions.describe(spec)}")
    if layer.solution is not None and layer.solution.fits:
        if layer.solution.admits(spec):
            return "ambiguous", ""  # among those listed, or of a family listed
        shown = [fit.text for fit in layer.solution.choices]
        return "wrong", f"{layer.name}: listed {shown}, truly {conventions.describe(spec)}"
    if layer.candidates:
        if listed(layer, spec):
            return "ambiguous", ""
        shown = [conventions.describe(c) for c in layer.candidates]
        return "wrong", f"{layer.name}: listed {shown}, truly {conventions.describe(spec)}"
    if not layer.notes and not layer.missing:
        return "wrong", f"{layer.name}: unsized without a word"
    return "unsized", ""


def listed(layer: Layer, spec: LayerSpec) -> bool:
    """Whether ``spec`` is among the configurations listed for an unnamed layer's shapes."""
    return any(same(c, spec) for c in layer.candidates)


def by_count(spec: LayerSpec, count: int, layers: Sequence[Layer]) -> Layer | None:
    """The unnamed layer read with the true layer's count, one that lists it first (two
    groupings can share a count)."""
    matches = [layer for layer in layers if layer.params == count]
    return next((layer for layer in matches if listed(layer, spec)),
                matches[0] if matches else None)


def grouped(index: int, specs: Sequence[LayerSpec], counts: Sequence[int],
            layers: Sequence[Layer]) -> tuple[str, str]:
    """A true layer of an unnamed dump whose count no layer read has (its shapes were grouped
    otherwise: two layers in a row read as one stacked), against the groupings listed beside
    the readings: ambiguous where one has it as a part; wrong where layers whose shapes hold
    those of a run of true layers around it list groupings, none with it; else unsized."""
    spec = specs[index]
    if any(same(c, spec) for layer in layers for grouping in layer.groupings
           for part in grouping for c in part):
        return "ambiguous", ""
    runs = {sum(counts[a:b]) for a in range(index + 1) for b in range(index + 1, len(counts) + 1)}
    covering = [layer for layer in layers if layer.groupings and sum(
        conventions.total(part[0]) for part in layer.groupings[0]) in runs]
    if covering:
        return "wrong", (f"{covering[0].name}: groupings listed without "
                         f"{conventions.describe(spec)}")
    return "unsized", ""


def printed_models(answer: Answer) -> list[Model]:
    """The models read from printouts (not from code)."""
    return [m for m in answer.models if m.source != "code"]


def check(paste: Paste, score: Score) -> Answer:
    """Read ``paste`` back and score it: every recurrent layer (partial where it is not found
    and the answer names lines it did not read), the model's totals, and that no disagreement
    is claimed (its counts are all true)."""
    answer = read(paste.text)
    models = printed_models(answer)
    tables = [m for m in models if m.source != "repr"]
    if len(models) > 1 and len(tables) == 1:  # a table and the repr after it (hierarchical)
        for other in models:
            assert other is tables[0] or other.total in (None, paste.truth.total), (
                paste.printer, other.total, paste.truth.total, paste.text)
        models = tables
    assert len(models) == 1, (paste.printer, [m.source for m in models], paste.text)
    model = models[0]
    truth = paste.truth
    found = [layer for layer in model.layers if layer.recurrent]
    recurrent = tuple(found)
    by_name = {layer.name: layer for layer in found}
    unnamed = UNNAMED in model.notes
    use_names = not unnamed and all(name in by_name for name in truth.names) and len(
        found) == len(truth.names)
    counts = truth.counts or tuple(conventions.total(spec) for spec in truth.specs)
    for index, spec in enumerate(truth.specs):
        count = counts[index]
        if use_names:
            layer: Layer | None = by_name[truth.names[index]]
        elif unnamed:  # which shapes make a layer is a reading: by count, else by grouping
            layer = by_count(spec, count, found)
            if layer is None or not listed(layer, spec):
                outcome, why = grouped(index, truth.specs, counts, recurrent)
                if outcome == "ambiguous" or layer is None:
                    score.add(paste.printer, outcome, f"{why}\n{paste.text}" if why else "")
                    continue
            found.remove(layer)
        else:
            layer = by_name.get(truth.names[index]) or (
                found[index] if len(found) == len(truth.specs) else None)
        if layer is None and model.accounting.unread:
            score.add(paste.printer, "partial")  # its row is among the lines named unread
            continue
        outcome, why = score_layer(layer, spec, count)
        score.add(paste.printer, outcome, f"{why}\n{paste.text}" if why else "")
    if model.total is not None:
        assert model.total == truth.total, (paste.printer, model.total, truth.total, paste.text)
    if paste.total_printed and model.printed_total is not None:
        assert model.printed_total == truth.total, (paste.printer, paste.text)
    assert not answer.disagreements, (paste.printer, answer.disagreements, paste.text)
    return answer


_PARAM = re.compile(r"(?<![^\s┃])P(?:aram\b|[a-z]*…?(?![^\s┃]))")
"""A Param header cell, or the first fragment of a wrapped one (``Pa``, ``P``, ``Par…``)."""


def param_column(lines: Sequence[str]) -> int:
    """Where the Param column starts in the header nearest the end of ``lines``: ``Param #``
    (torchinfo's ``Param %`` beside it), else the first fragment of a wrapped cell."""
    for line in reversed(lines):
        if "Param #" in line:
            return line.index("Param #")
        if match := _PARAM.search(line):
            return match.start()
    raise ValueError("no Param column")


def altered(paste: Paste, seed: int) -> str | None:
    """The paste with one layer's printed count changed (None where the table prints no
    count that adds up to a checkable total)."""
    answer = read(paste.text)
    model = printed_models(answer)[0]
    rows = [layer for layer in model.layers if layer.printed]
    if model.source not in TABLES or model.printed_total is None or not rows or any(
            layer.printed is None for layer in model.layers):
        return None
    target = random.Random(seed).choice(rows)
    assert target.line is not None and target.printed is not None
    lines = paste.text.split("\n")
    column = param_column(lines[:target.line])
    line = lines[target.line - 1]
    for text in (f"{target.printed:,}", str(target.printed)):
        found = [m.start() for m in re.finditer(rf"(?<![\w,.]){re.escape(text)}(?![\w,.%\]])",
                                                line)]
        if found:
            at = min(found, key=lambda start: abs(start - column))
            wider = f"{target.printed + 1:,}" if "," in text else str(target.printed + 1)
            lines[target.line - 1] = line[:at] + wider + line[at + len(text):]
            return "\n".join(lines)
    return None


# -- torch ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class TorchPlan:
    """A torch model as data: an optional embedding, then blocks, then an optional cell."""

    vocab: int | None
    width: int
    """The embedding's dim, or the input's features."""
    blocks: tuple[tuple[str, Any], ...]
    """``("rnn", LayerSpec)`` (input width filled in), ``("linear", out)``, ``("norm", None)``,
    ``("conv", (out, kernel))``, ``("mlp", out)`` (an nn.Sequential of Linear and ReLU)."""
    batch_first: tuple[bool, ...]
    cell: LayerSpec | None = None


@st.composite
def torch_plans(draw: st.DrawFn, lstm: bool = True, embedding: bool = True) -> TorchPlan:
    """A random torch model: every cell and option, with embedding, linear, conv and norm."""
    vocab = draw(st.one_of(st.none(), st.integers(5, 50))) if embedding else None
    width = draw(st.integers(1, 12))
    blocks: list[tuple[str, Any]] = []
    first = width
    firsts: list[bool] = []
    cells = [Cell.RNN, Cell.GRU, *([Cell.LSTM] if lstm else [])]
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["rnn", "rnn", "rnn", "linear", "norm", "conv", "mlp"]))
        if kind == "rnn":
            cell = draw(st.sampled_from(cells))
            hidden = draw(st.integers(1, 10))
            bidirectional = draw(st.booleans())
            proj = 0
            if cell is Cell.LSTM and hidden > 1 and draw(st.booleans()):
                proj = draw(st.integers(1, hidden - 1))
            spec = LayerSpec(cell, first, hidden, num_layers=draw(st.integers(1, 3)),
                             bidirectional=bidirectional, bias=draw(st.booleans()),
                             proj_size=proj,
                             nonlinearity=draw(st.sampled_from([None, Nonlinearity.RELU]))
                             if cell is Cell.RNN else None)
            blocks.append(("rnn", spec))
            firsts.append(draw(st.booleans()))
            first = spec.directions * spec.output_size
        elif kind in ("linear", "mlp"):
            out = draw(st.integers(1, 10))
            blocks.append((kind, out))
            first = out
        elif kind == "conv":
            out, kernel = draw(st.integers(1, 8)), draw(st.sampled_from([1, 3]))
            blocks.append(("conv", (out, kernel)))
            first = out
        else:
            blocks.append(("norm", None))
    cell = None
    if draw(st.booleans()) or not any(kind == "rnn" for kind, _ in blocks):
        kind = draw(st.sampled_from(cells))
        cell = LayerSpec(kind, first, draw(st.integers(1, 8)), bias=draw(st.booleans()),
                         single_cell=True,
                         nonlinearity=draw(st.sampled_from([None, Nonlinearity.RELU]))
                         if kind is Cell.RNN else None)
    return TorchPlan(vocab, width, tuple(blocks), tuple(firsts), cell)


def build_torch(plan: TorchPlan) -> tuple[Any, Truth, Any]:
    """The torch module of ``plan``, its truth and an example input."""
    import torch
    from torch import nn

    class Net(nn.Module):
        """A model built from a plan; its forward runs every block in order."""

        def __init__(self) -> None:
            super().__init__()
            self.order: list[tuple[str, str, Any]] = []
            if plan.vocab is not None:
                self.embedding = nn.Embedding(plan.vocab, plan.width)
            width = plan.width
            firsts = iter(plan.batch_first)
            for index, (kind, value) in enumerate(plan.blocks):
                name = f"{kind}{index}"
                module: nn.Module
                extra: Any = None
                if kind == "rnn":
                    spec: LayerSpec = value
                    classes = {Cell.RNN: nn.RNN, Cell.GRU: nn.GRU, Cell.LSTM: nn.LSTM}
                    kwargs: dict[str, Any] = {"num_layers": spec.num_layers,
                                              "bidirectional": spec.bidirectional,
                                              "bias": spec.bias}
                    if spec.proj_size:
                        kwargs["proj_size"] = spec.proj_size
                    if spec.nonlinearity is Nonlinearity.RELU:
                        kwargs["nonlinearity"] = "relu"
                    extra = next(firsts)
                    module = classes[spec.cell](width, spec.hidden_size, batch_first=extra,
                                                **kwargs)
                    width = spec.directions * spec.output_size
                elif kind == "linear":
                    module, width = nn.Linear(width, value), value
                elif kind == "mlp":
                    module, width = nn.Sequential(nn.Linear(width, value), nn.ReLU()), value
                elif kind == "conv":
                    module, width = nn.Conv1d(width, value[0], value[1], padding="same"), \
                        value[0]
                else:
                    module = nn.LayerNorm(width)
                setattr(self, name, module)
                self.order.append((kind, name, extra))
            if plan.cell is not None:
                spec = plan.cell
                classes = {Cell.RNN: nn.RNNCell, Cell.GRU: nn.GRUCell, Cell.LSTM: nn.LSTMCell}
                kwargs = {"bias": spec.bias}
                if spec.nonlinearity is Nonlinearity.RELU:
                    kwargs["nonlinearity"] = "relu"
                self.cell = classes[spec.cell](width, spec.hidden_size, **kwargs)

        def forward(self, x: Any) -> Any:
            """Every block in order; a cell reads the last step."""
            if plan.vocab is not None:
                x = self.embedding(x)
            for kind, name, batch_first in self.order:
                module = getattr(self, name)
                if kind == "rnn":
                    x = module(x if batch_first else x.transpose(0, 1))[0]
                    x = x if batch_first else x.transpose(0, 1)
                elif kind == "conv":
                    x = module(x.transpose(1, 2)).transpose(1, 2)
                else:
                    x = module(x)
            if plan.cell is not None:
                out = self.cell(x[:, -1])
                x = out[0] if isinstance(out, tuple) else out
            return x

    torch.manual_seed(0)
    with torch.device("cpu"):
        net = Net()
    specs = [spec.replace(framework=Framework.TORCH) for kind, spec in plan.blocks
             if kind == "rnn"]
    names = [f"rnn{i}" for i, (kind, _) in enumerate(plan.blocks) if kind == "rnn"]
    if plan.cell is not None:
        specs.append(plan.cell)
        names.append("cell")
    counts = tuple(sum(p.numel() for p in getattr(net, n).parameters()) for n in names)
    total = sum(p.numel() for p in net.parameters())
    example = (torch.zeros(2, 3, dtype=torch.long) if plan.vocab is not None
               else torch.zeros(2, 3, plan.width))
    return net, Truth(tuple(specs), tuple(names), total, counts), example


TORCHINFO_COLUMNS = ("input_size", "output_size", "num_params", "params_percent",
                     "kernel_size", "mult_adds", "trainable")
ROW_SETTINGS = ("var_names", "depth", "ascii_only", "hide_recursive_layers")


@st.composite
def torchinfo_options(draw: st.DrawFn) -> dict[str, Any]:
    """torchinfo ``summary()`` options: any columns in any order, depth, verbosity, rows."""
    columns = draw(st.lists(st.sampled_from(TORCHINFO_COLUMNS), min_size=1, max_size=7,
                            unique=True))
    rows = draw(st.lists(st.sampled_from(ROW_SETTINGS), max_size=4, unique=True))
    return {"col_names": tuple(columns), "depth": draw(st.integers(1, 3)),
            "verbose": draw(st.sampled_from([0, 2])), "row_settings": tuple(rows)}


def torchinfo_text(net: Any, example: Any, options: dict[str, Any]) -> str:
    """torchinfo 1.8's table of ``net``, as ``print(summary(...))`` shows it."""
    from torchinfo import summary

    verbose = options["verbose"]
    with contextlib.redirect_stdout(io.StringIO()) as out:
        stats = summary(net, input_data=example, **options)
    return out.getvalue() if verbose else str(stats)


def torchsummary_text(net: Any, example: Any) -> str:
    """torchsummary's table of ``net`` (float input of ``example``'s shape, on the CPU)."""
    from torchsummary import summary

    with contextlib.redirect_stdout(io.StringIO()) as out:
        summary(net, tuple(example.shape[1:]), device="cpu")
    return out.getvalue()


DUMPS: dict[str, Callable[[str, Any], str]] = {
    "print(n, p.shape)": lambda n, p: f"{n} {p.shape}",
    "print(n, p.size())": lambda n, p: f"{n} {p.size()}",
    "print(f'{n}: {tuple(p.shape)}')": lambda n, p: f"{n}: {tuple(p.shape)}",
    "print(n, list(p.shape))": lambda n, p: f"{n} {list(p.shape)}",
    "print((n, p.shape))": lambda n, p: str((n, p.shape)),
    "print(f'{n:40} {p.shape}')": lambda n, p: f"{n:40} {p.shape}",
}


def dump_text(net: Any, style: str, state: bool = False) -> str:
    """A ``named_parameters()`` (or ``state_dict()``) dump in one of the common spellings, or
    bare ``p.shape`` lines of ``parameters()``."""
    if style == "bare":
        return "\n".join(str(p.shape) for p in net.parameters()) + "\n"
    items = net.state_dict().items() if state else net.named_parameters()
    return "\n".join(DUMPS[style](name, value) for name, value in items) + "\n"


def torch_pastes(plan: TorchPlan, draw: Callable[[st.SearchStrategy[Any]], Any]
                 ) -> list[Paste]:
    """Every torch printer's paste of ``plan``'s model."""
    net, truth, example = build_torch(plan)
    pastes = [Paste("print(model)", str(net) + "\n", truth)]
    options = draw(torchinfo_options())
    pastes.append(Paste("torchinfo", torchinfo_text(net, example, options), truth))
    style = draw(st.sampled_from(sorted(DUMPS)))
    pastes.append(Paste("named_parameters()", dump_text(net, style), truth))
    pastes.append(Paste("state_dict()", dump_text(net, style, state=True), truth))
    pastes.append(Paste("parameters() shapes", dump_text(net, "bare"), truth))
    if plan.vocab is None and not any(
            kind == "rnn" and spec.cell is Cell.LSTM for kind, spec in plan.blocks) and (
            plan.cell is None or plan.cell.cell is not Cell.LSTM):
        with contextlib.suppress(AttributeError):  # it fails where every count is 0
            pastes.append(Paste("torchsummary", torchsummary_text(net, example), truth,
                                total_printed=not truth.specs))
    return pastes


# -- Keras ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class KerasPlan:
    """A Keras model as data: sequential blocks, or an encoder–decoder with two inputs."""

    functional: bool
    vocab: int | None
    width: int
    blocks: tuple[tuple[str, Any], ...]
    """``("rnn", (cell, units, bias, reset_after, wrapper))`` with wrapper None or a merge
    mode for Bidirectional, ``("dense", units)``, ``("td", units)`` (TimeDistributed Dense),
    ``("conv", filters)``, ``("ln", None)``, ``("bn", None)``."""
    decoder: tuple[Cell, int, int] | None = None
    """Functional: the decoder's (cell, units, input width), fed the encoder's states."""


_MERGES = ("concat", "sum", "mul", "ave")


@st.composite
def keras_plans(draw: st.DrawFn) -> KerasPlan:
    """A random Keras model: SimpleRNN/GRU (either reset_after)/LSTM, Bidirectional with every
    merge mode, TimeDistributed, Dense, Conv1D and norms; or a functional encoder–decoder."""
    functional = draw(st.booleans())
    vocab = draw(st.one_of(st.none(), st.integers(5, 40)))
    width = draw(st.integers(1, 10))
    blocks: list[tuple[str, Any]] = []
    count = draw(st.integers(1, 3))
    for index in range(count):
        kind = draw(st.sampled_from(["rnn", "rnn", "rnn", "dense", "td", "conv", "ln", "bn"]))
        if kind == "rnn":
            cell = draw(st.sampled_from(list(Cell)))
            last = index == count - 1 and not functional
            wrapper = draw(st.sampled_from([None, *_MERGES, *(["none"] if last else [])]))
            blocks.append(("rnn", (cell, draw(st.integers(1, 8)), draw(st.booleans()),
                                   draw(st.booleans()) if cell is Cell.GRU else None,
                                   wrapper)))
        elif kind in ("dense", "td", "conv"):
            blocks.append((kind, draw(st.integers(1, 8))))
        else:
            blocks.append((kind, None))
    decoder = None
    if functional:
        decoder = (draw(st.sampled_from(list(Cell))), draw(st.integers(1, 8)),
                   draw(st.integers(1, 6)))
    return KerasPlan(functional, vocab, width, tuple(blocks), decoder)


def _keras_rnn(layers: Any, cell: Cell, units: int, bias: bool, reset_after: bool | None,
               **kwargs: Any) -> Any:
    """One Keras recurrent layer."""
    if cell is Cell.RNN:
        return layers.SimpleRNN(units, use_bias=bias, **kwargs)
    if cell is Cell.GRU:
        return layers.GRU(units, use_bias=bias, reset_after=reset_after, **kwargs)
    return layers.LSTM(units, use_bias=bias, **kwargs)


def build_keras(keras: Any, plan: KerasPlan) -> tuple[Any, Truth]:
    """``plan`` built with ``keras`` (Keras 3 or tf-keras), and its truth."""
    layers = keras.layers
    chain: list[Any] = []
    if plan.vocab is not None:
        chain.append(layers.Embedding(plan.vocab, plan.width))
    recurrent = []
    for kind, value in plan.blocks:
        if kind == "rnn":
            cell, units, bias, reset_after, wrapper = value
            inner = _keras_rnn(layers, cell, units, bias, reset_after, return_sequences=True)
            layer = inner if wrapper is None else layers.Bidirectional(
                inner, merge_mode=None if wrapper == "none" else wrapper)
            recurrent.append(layer)
            chain.append(layer)
        elif kind == "dense":
            chain.append(layers.Dense(value))
        elif kind == "td":
            chain.append(layers.TimeDistributed(layers.Dense(value)))
        elif kind == "conv":
            chain.append(layers.Conv1D(value, 2, padding="same"))
        elif kind == "ln":
            chain.append(layers.LayerNormalization())
        else:
            chain.append(layers.BatchNormalization())
    first = layers.Input(shape=(4,) if plan.vocab is not None else (4, plan.width))
    if not plan.functional:
        model = keras.Sequential([first, *chain])
        return model, _keras_truth(model, recurrent)
    x = first
    for layer in chain:
        x = layer(x)
    assert plan.decoder is not None
    cell, units, width = plan.decoder
    encoder = _keras_rnn(layers, cell, units, True, True, return_state=True)
    states = encoder(x)[1:]
    second = layers.Input(shape=(3, width))
    decoder = _keras_rnn(layers, cell, units, True, True, return_sequences=True,
                         return_state=True)
    decoded = decoder(second, initial_state=list(states))[0]
    recurrent += [encoder, decoder]
    model = keras.Model([first, second], [layers.Dense(2)(decoded), layers.Dense(1)(states[0])])
    return model, _keras_truth(model, recurrent)


def keras_built(keras: Any, plan: KerasPlan) -> tuple[Any, Truth] | None:
    """``plan`` built with ``keras`` (its warnings kept quiet), or None where tf-keras'
    Sequential refuses it (a layer with two outputs)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return build_keras(keras, plan)
        except ValueError as error:
            if "single output tensor" in str(error):
                return None
            raise


def _keras_truth(model: Any, recurrent: Sequence[Any]) -> Truth:
    """Each recurrent layer's spec from its built weights, and the model's count."""
    specs, names, counts = [], [], []
    for layer in recurrent:
        wrapped = getattr(layer, "forward_layer", None)
        inner = wrapped if wrapped is not None else layer
        kind = type(inner).__name__
        cell = {"SimpleRNN": Cell.RNN, "GRU": Cell.GRU, "LSTM": Cell.LSTM}[kind]
        kernel = inner.cell.kernel.shape
        merge = None
        if wrapped is not None:
            mode = layer.merge_mode
            merge = (MergeMode.NONE if mode is None else MergeMode(mode),)
        specs.append(LayerSpec(cell, int(kernel[0]), int(inner.units),
                               bidirectional=wrapped is not None, bias=bool(inner.use_bias),
                               framework=Framework.KERAS, merge_modes=merge,
                               reset_after=bool(inner.reset_after) if cell is Cell.GRU
                               else None))
        names.append(layer.name)
        counts.append(int(layer.count_params()))
    return Truth(tuple(specs), tuple(names), int(model.count_params()), tuple(counts))


def keras_text(model: Any, era: int, line_length: int | None = None,
               show_trainable: bool = False) -> str:
    """``model.summary()`` as Keras prints it (era 2: tf-keras; era 3: Keras 3's box table),
    at the default width or ``line_length``, with or without the Trainable column."""
    options = {"line_length": line_length, "show_trainable": show_trainable}
    if era == 2:
        lines: list[str] = []
        model.summary(print_fn=lambda line, *args, **kwargs: lines.append(line), **options)
        return "\n".join(lines) + "\n"
    with contextlib.redirect_stdout(io.StringIO()) as out:
        model.summary(**options)
    return out.getvalue()


def keras2_old_text(model: Any, line_length: int, positions: list[float]) -> str:
    """tf-keras' ``summary()`` at the given layout, as TF 1.x to 2.3 printed it: each row's
    first line only (cells cut at the column's edge, not wrapped) and rows between rules of
    underscores. Made by the real printer; only its wrapped continuation lines are dropped."""
    lines: list[str] = []
    model.summary(line_length=line_length, positions=positions,
                  print_fn=lambda line, *args, **kwargs: lines.append(line))
    out: list[str] = []
    body, first = False, True
    for line in "\n".join(lines).split("\n"):
        if line.startswith("="):
            if body and out and out[-1].startswith("_"):
                out.pop()  # the last row is closed by the rule of equals signs
            body, first = not body, True
            out.append(line)
        elif not body:
            out.append(line)
        elif not line.strip():
            out.append("_" * line_length)
            first = True
        elif first:
            out.append(line)
            first = False
    return "\n".join(out) + "\n"


def tf_keras_prints(functional: bool, line_length: int, show_trainable: bool = False) -> bool:
    """Whether tf-keras' ``summary(line_length=...)`` ends: it loops for ever where a column
    leaves no room for text beside its padding (a functional model's ``Param #`` below 40)."""
    fractions = (0.3, 0.6, 0.7, 1.0) if functional else (0.45, 0.85, 1.0)
    positions = [0, *(int(line_length * f) for f in fractions)]
    if show_trainable:
        positions.append(line_length + 11)
    return all(end - begin - 3 >= 1 for begin, end in pairwise(positions[:-1]))


def quiet_tensorflow() -> None:
    """Keep TensorFlow's start-up logging out of the test output."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
