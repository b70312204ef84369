"""More real printers as the oracle of ``paramcount read``: Lightning's ``ModelSummary`` (plain
and rich), pytorch-model-summary (three styles), Flax linen's ``tabulate`` and Hugging Face
reprs of the modern families, each run at test time on random models; and pastes composed as
posts are (prose, fences, several printouts, crops, CRLF, tabs, indentation lost).

Used by ``tests/test_read_printers_more.py`` and ``benchmarks/read_accuracy.py``.
"""

from __future__ import annotations

import ast
import contextlib
import io
import random
import re
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from paramcount.engine import conventions
from paramcount.engine.spec import Cell, Framework, LayerSpec
from paramcount.reading.models import Layer
from paramcount.reading.pipeline import Answer, NothingFound, read
from paramcount.reading.solve import same_configuration as same
from tests.printers import (
    Paste,
    Score,
    TorchPlan,
    Truth,
    build_keras,
    build_torch,
    keras_plans,
    keras_text,
    quiet_tensorflow,
    tf_keras_prints,
    torch_pastes,
    torch_plans,
)
from tests.printers_code import code_pastes, keras_code_pastes

# -- Lightning --------------------------------------------------------------------------------


def lightning_text(net: Any, example: Any, rich: bool, depth: int, sizes: bool) -> str:
    """Lightning's summary of ``net`` wrapped in a LightningModule: the plain table
    (``ModelSummary``) or the box ``RichModelSummary`` draws, ``max_depth`` ``depth``, with
    In/Out sizes where ``sizes`` (an ``example_input_array``)."""
    import lightning.pytorch as pl
    from lightning.pytorch.callbacks import RichModelSummary
    from lightning.pytorch.utilities.model_summary import ModelSummary

    class Wrapped(pl.LightningModule):  # type: ignore[misc]
        """The plan's modules under a LightningModule, run by the plan's forward."""

        def __init__(self) -> None:
            super().__init__()
            for name, child in net.named_children():
                self.add_module(name, child)

        def forward(self, x: Any) -> Any:
            """The plan's forward."""
            return net(x)

    module = Wrapped()
    if sizes:
        module.example_input_array = example
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        summary = ModelSummary(module, max_depth=depth)
        if not rich:
            return str(summary) + "\n"
        with contextlib.redirect_stdout(io.StringIO()) as out:
            RichModelSummary.summarize(
                summary._get_summary_data(), summary.total_parameters,
                summary.trainable_parameters, summary.model_size,
                summary.total_training_modes, total_flops=summary.total_flops)
    return out.getvalue()


# -- pytorch-model-summary --------------------------------------------------------------------

PMS_STYLES = ("default", "show_input", "show_hierarchical")


def pms_text(net: Any, example: Any, style: str) -> str:
    """pytorch-model-summary's ``summary(model, x)`` in one of its three styles."""
    from pytorch_model_summary import summary

    options = {"show_input": style == "show_input",
               "show_hierarchical": style == "show_hierarchical"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return str(summary(net, example, **options)) + "\n"


def torch_more_pastes(plan: TorchPlan, draw: Callable[[st.SearchStrategy[Any]], Any]
                      ) -> list[Paste]:
    """Lightning's and pytorch-model-summary's pastes of ``plan``'s model."""
    net, truth, example = build_torch(plan)
    rich, sizes = draw(st.booleans()), draw(st.booleans())
    depth = draw(st.sampled_from([1, -1]))
    label = f"Lightning {'RichModelSummary' if rich else 'ModelSummary'}"
    pastes = [Paste(label, lightning_text(net, example, rich, depth, sizes), truth,
                    total_printed=False)]
    style = draw(st.sampled_from(PMS_STYLES))
    pastes.append(Paste(f"pytorch-model-summary ({style})", pms_text(net, example, style),
                        truth))
    return pastes


# -- Flax linen tabulate ----------------------------------------------------------------------

FLAX_CELLS = ("LSTMCell", "OptimizedLSTMCell", "GRUCell", "SimpleCell")
_FLAX_CELL = {"LSTMCell": Cell.LSTM, "OptimizedLSTMCell": Cell.LSTM, "GRUCell": Cell.GRU,
              "SimpleCell": Cell.RNN}


@dataclass(frozen=True)
class FlaxPlan:
    """A linen model as data: input features, then blocks ``("rnn", cell, H)``,
    ``("bidir", cell, H)`` or ``("dense", out)``; and the console width tabulate draws at."""

    width: int
    blocks: tuple[tuple[str, str, int], ...]
    console: int
    depth: int | None = None
    """``tabulate``'s depth (None: every module, each cell's gates under it; 1: one row per
    cell)."""


@st.composite
def flax_plans(draw: st.DrawFn) -> FlaxPlan:
    """A random linen model of RNN-wrapped cells, Bidirectional pairs and Dense layers."""
    blocks = []
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["rnn", "rnn", "bidir", "dense"]))
        cell = draw(st.sampled_from(FLAX_CELLS))
        blocks.append((kind, cell if kind != "dense" else "", draw(st.integers(1, 12))))
    if not any(kind != "dense" for kind, _, _ in blocks):
        blocks.append(("rnn", draw(st.sampled_from(FLAX_CELLS)), draw(st.integers(1, 12))))
    return FlaxPlan(draw(st.integers(1, 12)), tuple(blocks), draw(st.sampled_from([80, 160])))


def flax_paste(plan: FlaxPlan) -> Paste:
    """``plan`` built in flax linen, tabulated, with its truth from the initialised tree."""
    import jax
    import jax.numpy as jnp
    from flax import linen as nn

    class Net(nn.Module):  # type: ignore[misc]
        """A model built from a plan."""

        @nn.compact
        def __call__(self, x: Any) -> Any:
            """Every block in order."""
            for kind, cell, size in plan.blocks:
                if kind == "dense":
                    x = nn.Dense(size)(x)
                elif kind == "rnn":
                    x = nn.RNN(getattr(nn, cell)(size))(x)
                else:
                    x = nn.Bidirectional(nn.RNN(getattr(nn, cell)(size)),
                                         nn.RNN(getattr(nn, cell)(size)))(x)
            return x

    x = jnp.zeros((2, 3, plan.width))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        text = Net().tabulate(jax.random.key(0), x, depth=plan.depth,
                              console_kwargs={"width": plan.console})
        variables = Net().init(jax.random.key(0), x)
    total = sum(int(leaf.size) for leaf in jax.tree_util.tree_leaves(variables))
    specs, width = [], plan.width
    for kind, cell, size in plan.blocks:
        if kind == "dense":
            width = size
            continue
        specs.append(LayerSpec(_FLAX_CELL[cell], width, size, bidirectional=kind == "bidir",
                               framework=Framework.FLAX_LINEN))
        width = size * (2 if kind == "bidir" else 1)
    names = tuple("?" for _ in specs)
    return Paste("Flax tabulate", text, Truth(tuple(specs), names, total))


# -- Hugging Face reprs -----------------------------------------------------------------------

HF_FAMILIES = ("mamba", "mamba2", "rwkv", "recurrent_gemma", "xlstm")


@st.composite
def hf_configs(draw: st.DrawFn) -> tuple[str, dict[str, Any]]:
    """A small random configuration of one family's transformers model."""
    family = draw(st.sampled_from(HF_FAMILIES))
    vocab, layers = draw(st.integers(10, 60)), draw(st.integers(1, 3))
    tie = draw(st.booleans())
    if family == "mamba":
        hidden = draw(st.integers(2, 12))
        return family, {"vocab_size": vocab, "hidden_size": hidden,
                        "state_size": draw(st.integers(1, 6)), "num_hidden_layers": layers,
                        "expand": draw(st.integers(1, 3)), "conv_kernel": draw(st.integers(2, 4)),
                        "use_bias": draw(st.booleans()), "use_conv_bias": draw(st.booleans()),
                        "tie_word_embeddings": tie}
    if family == "mamba2":
        heads, head_dim = draw(st.integers(1, 4)), draw(st.integers(1, 4))
        expand = draw(st.integers(1, 2))
        hidden = heads * head_dim
        return family, {"vocab_size": vocab, "hidden_size": hidden, "num_heads": heads * expand,
                        "head_dim": head_dim, "expand": expand, "n_groups": 1,
                        "state_size": draw(st.integers(1, 6)), "num_hidden_layers": layers,
                        "conv_kernel": draw(st.integers(2, 4)), "tie_word_embeddings": tie}
    if family == "rwkv":
        hidden = draw(st.integers(2, 16))
        return family, {"vocab_size": vocab, "hidden_size": hidden, "num_hidden_layers": layers,
                        "attention_hidden_size": hidden,
                        "intermediate_size": draw(st.integers(2, 40)),
                        "tie_word_embeddings": tie}
    if family == "recurrent_gemma":
        heads = draw(st.sampled_from([1, 2, 4]))
        hidden = heads * draw(st.integers(1, 4))
        return family, {"vocab_size": vocab, "hidden_size": hidden,
                        "num_hidden_layers": layers + 1, "num_attention_heads": heads,
                        "num_key_value_heads": 1, "head_dim": hidden // heads,
                        "intermediate_size": 2 * draw(st.integers(1, 12)), "lru_width": hidden,
                        "attention_window_size": 8, "conv1d_width": draw(st.integers(2, 4)),
                        "tie_word_embeddings": tie}
    heads = draw(st.sampled_from([1, 2]))
    hidden = heads * 4 * draw(st.integers(1, 3))
    return family, {"vocab_size": vocab, "hidden_size": hidden, "embedding_dim": hidden,
                    "num_heads": heads, "num_blocks": layers, "tie_word_embeddings": tie}


def hf_paste(family: str, values: dict[str, Any]) -> Paste:
    """``print(model)`` of the family's causal LM built (on the meta device) from ``values``,
    with its true count (shared tensors once)."""
    import torch
    import transformers

    names = {"mamba": "Mamba", "mamba2": "Mamba2", "rwkv": "Rwkv",
             "recurrent_gemma": "RecurrentGemma", "xlstm": "xLSTM"}[family]
    config = getattr(transformers, f"{names}Config")(**values)
    with warnings.catch_warnings(), torch.device("meta"):
        warnings.simplefilter("ignore")
        model = getattr(transformers, f"{names}ForCausalLM")(config)
    total = sum(p.numel() for p in {id(p): p for p in model.parameters()}.values())
    return Paste(f"Hugging Face repr ({family})", str(model) + "\n",
                 Truth((), (), int(total)))


def score_family(paste: Paste, score: Score) -> Answer:
    """A family repr read back, scored by :func:`family_outcome`."""
    answer = read(paste.text)
    models = [m for m in answer.models if m.source != "code"]
    assert len(models) == 1, (paste.printer, paste.text)
    layer = models[0].layers[0]
    truth = paste.truth.total
    outcome = family_outcome(layer, truth)
    score.add(paste.printer, outcome, f"{layer.params} vs {truth}: {layer.notes}\n{paste.text}")
    assert not answer.disagreements, answer.disagreements
    return answer


# -- compositions -----------------------------------------------------------------------------

Draw = Callable[[st.SearchStrategy[Any]], Any]
Maker = Callable[[Draw], list[Paste]]


def torch_model_pastes(draw: Draw) -> list[Paste]:
    """Every torch printer's paste of one random torch model (``tests.printers`` and
    Lightning's and pytorch-model-summary's)."""
    plan = draw(torch_plans())
    return torch_pastes(plan, draw) + torch_more_pastes(plan, draw)


KERAS_REFUSALS = ("single output tensor", "Insufficient console width")
"""What tf-keras' Sequential (a layer with two outputs) and Keras 3's ``summary()`` (a width
too narrow for its table) refuse with."""


def keras_model_pastes(draw: Draw) -> list[Paste]:
    """Both eras' ``summary()`` of one random Keras model (Sequential or functional): Keras 3
    and tf-keras, each at the default width or a random ``line_length`` (a narrow one cuts and
    wraps cells), with or without the Trainable column."""
    quiet_tensorflow()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import keras
        import tf_keras
    plan = draw(keras_plans())
    pastes = []
    for era, module in ((3, keras), (2, tf_keras)):
        width = draw(st.one_of(st.none(), st.integers(30, 140)))
        trainable = draw(st.booleans())
        if era == 2 and width is not None and not tf_keras_prints(plan.functional, width,
                                                                 trainable):
            width = None  # tf-keras would loop for ever
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                module.backend.clear_session()  # layer names from 1 (the same draws, the same text)
                model, truth = build_keras(module, plan)
                text = keras_text(model, era, width, trainable)
            except ValueError as error:
                if any(refusal in str(error) for refusal in KERAS_REFUSALS):
                    continue
                raise
        pastes.append(Paste(f"Keras {era} summary()", text, truth))
    return pastes


def flax_model_pastes(draw: Draw) -> list[Paste]:
    """Flax linen's ``tabulate`` of one random linen model."""
    return [flax_paste(draw(flax_plans()))]


def hf_model_pastes(draw: Draw) -> list[Paste]:
    """``print(model)`` of one random small Hugging Face family model."""
    return [hf_paste(*draw(hf_configs()))]


def torch_code_pastes(draw: Draw) -> list[Paste]:
    """The code of one random torch model and one of its real printouts (``print(model)``,
    torchinfo or a ``named_parameters()`` dump of the model the code builds when run)."""
    code, *printouts = code_pastes(draw(torch_plans()), draw)
    return [code, draw(st.sampled_from(printouts))]


def keras_code_model_pastes(draw: Draw) -> list[Paste]:
    """The code of one random Keras model and its Keras 3 ``summary()``."""
    quiet_tensorflow()
    plan = draw(keras_plans())
    try:
        return keras_code_pastes(plan, draw)
    except ValueError as error:
        if any(refusal in str(error) for refusal in KERAS_REFUSALS):
            return []
        raise


MAKERS: dict[str, Maker] = {
    "torch": torch_model_pastes,
    "Keras": keras_model_pastes,
    "Flax": flax_model_pastes,
    "Hugging Face": hf_model_pastes,
    "torch code": torch_code_pastes,
    "Keras code": keras_code_model_pastes,
}
"""Every maker a composed post draws its models from: each returns the real printers' pastes
of one random model (code with its printout, for the code makers)."""

PROSE = (
    "Hi all, I am confused by the parameter count of my model.",
    "Here is what the summary prints:",
    "Can someone explain where these numbers come from?",
    "I expected fewer parameters.",
    "Thanks in advance!",
    "EDIT: same thing happens on the GPU.",
    "And here is my port of the same model to the other framework:",
    "For comparison, the reference implementation:",
)
CROPS = ("top", "bottom", "middle")
UNFRAMED = ("named_parameters()", "state_dict()", "parameters() shapes")
"""Dumps with no header, footer or closing line: a cut in them leaves no trace to find, so
they are composed whole."""
UNCHECKED = ("print(model)", "Hugging Face repr", "code (torch)", "code (Keras)")
"""Printouts (and code) with no count to check their lines against: whole lines cut from the
middle leave the printout (or code) of a smaller model, so they are cropped at the top or
bottom only."""


SQUEEZABLE = ("torchinfo", "torchsummary", "pytorch-model-summary", "Lightning",
              "named_parameters()", "state_dict()", "parameters() shapes")
"""Printouts read whole with their spacing squeezed (``tests/test_read_squeezed.py`` holds the
Keras tables, whose narrow widths are read only in part so squeezed)."""
PREFIXES = ("    ", "\t", "> ", ">", "# ")
"""What posts put before every line of a printout: a code block's indentation, a quote's
mark, a comment's."""


def squeeze(text: str) -> str:
    """``text`` with every run of spaces squeezed to one, as a page that does not keep a
    paste's spaces shows it."""
    return re.sub(r" {2,}", " ", text)


def prefixed(text: str, prefix: str) -> str:
    """Every line of ``text`` with ``prefix`` before it (a quote's blank lines keep their
    mark, as Markdown writes them)."""
    lines = text.rstrip("\n").split("\n")
    return "\n".join(prefix + line if line.strip() or prefix.startswith(">") else line
                     for line in lines) + "\n"


def family(paste: Paste) -> bool:
    """Whether ``paste`` is a Hugging Face family repr (scored as one model, by its total)."""
    return paste.printer.startswith("Hugging Face repr")


@dataclass(frozen=True, repr=False)
class Post:
    """A composed post: its text, the pastes in it (whole or cropped), and how it was made."""

    text: str
    parts: tuple[Paste, ...]
    cropped: tuple[bool, ...]
    how: str
    spans: tuple[tuple[int, int], ...] = ()
    """Each paste's first and last line in the post (1-based)."""
    models: tuple[int, ...] = ()
    """Which model each paste prints: pastes of one model share a number."""

    def __repr__(self) -> str:
        """How it was made, short (the text is in the failure's message)."""
        printers = ", ".join(f"{p.printer} (model {m})" for p, m in zip(
            self.parts, self.models, strict=True))
        return f"Post({printers}; {self.how})"

    def same_model(self, index: int) -> list[int]:
        """The other pastes of the model paste ``index`` prints (its code, its printouts)."""
        return [i for i, model in enumerate(self.models)
                if i != index and model == self.models[index]]

    def namesakes(self, index: int) -> bool:
        """Whether another model of the same framework is in the post: its layers may bear the
        same names (Keras' ``lstm``, a generated ``rnn0``), so a code and a printout of two
        models pair by name, and their difference is said (as it should be: the paste shows a
        model other than its code)."""
        kind = _framework(self.parts[index].printer)
        return any(model != self.models[index] and _framework(part.printer) == kind
                   for part, model in zip(self.parts, self.models, strict=True))

    def span_of(self, line: int | None) -> int | None:
        """The index of the paste holding ``line``, or None (prose, a fence, no line)."""
        return next((index for index, (first, last) in enumerate(self.spans)
                     if line is not None and first <= line <= last), None)


def _framework(printer: str) -> str:
    """The framework a paste's printer prints: ``keras``, ``flax``, ``hf`` or ``torch``."""
    lowered = printer.lower()
    for kind in ("keras", "flax", "hugging face"):
        if kind in lowered:
            return kind
    return "torch"


def crop(text: str, where: str, rng: random.Random) -> str:
    """``text`` with lines cut off at the top, at the bottom or in the middle (at least one
    line, never all)."""
    lines = text.rstrip("\n").split("\n")
    if len(lines) < 4:
        return text
    cut = rng.randint(1, max(1, len(lines) // 3))
    if where == "top":
        kept = lines[cut:]
    elif where == "bottom":
        kept = lines[:-cut]
    else:
        at = rng.randint(1, len(lines) - cut - 1)
        kept = lines[:at] + lines[at + cut:]
    return "\n".join(kept) + "\n"


def cut_code(text: str, where: str, rng: random.Random) -> str:
    """Code cut as posts cut it: its first lines lost (at least one, never all), or its end
    lost in the middle of a statement (a line after the first cut inside its text, where what
    is left of it does not parse: ``x = Dense(`` and not ``x``, a whole statement of its own)."""
    if where == "top":
        return crop(text, where, rng)
    lines = text.rstrip("\n").split("\n")
    cuts = [(i, cut) for i, line in enumerate(lines) if i and len(line.strip()) > 1
            for cut in range(len(line) - len(line.lstrip()) + 1, len(line))
            if not _parses(line[:cut].strip())]
    if not cuts:
        return text
    at, cut = rng.choice(cuts)
    return "\n".join([*lines[:at], lines[at][:cut]]) + "\n"


def _parses(line: str) -> bool:
    """Whether a line is a statement of its own."""
    try:
        ast.parse(line)
    except SyntaxError:
        return False
    return True


def compose(pastes: Sequence[Paste], rng: random.Random, models: Sequence[int] = ()
            ) -> Post:
    """The pastes composed as a post: prose around them, some fenced, perhaps cropped, the
    whole perhaps with CRLF line ends, tabs for indentation, or indentation lost. ``models``
    numbers the model each paste prints (one model where not given)."""
    chunks: list[str] = []
    cropped: list[bool] = []
    spans: list[tuple[int, int]] = []
    how: list[str] = []
    line = 1  # the post's line where the next chunk starts
    for paste in pastes:
        if rng.random() < 0.5:
            chunks.append(rng.choice(PROSE))
            line += 2
        text = paste.text
        cut = rng.random() < 0.3 and paste.printer not in UNFRAMED
        if cut:
            where = rng.choice(CROPS[:2] if paste.printer.startswith(UNCHECKED) else CROPS)
            text = (cut_code if paste.printer.startswith("code") else crop)(text, where, rng)
            cut = text != paste.text
            how.append(f"crop {where} of {paste.printer}" if cut else "")
        cropped.append(cut)
        if rng.random() < 0.15 and paste.printer.startswith(SQUEEZABLE):
            text = squeeze(text)
            how.append(f"spacing squeezed in {paste.printer}")
        prefix = rng.choice(PREFIXES) if rng.random() < 0.2 else ""
        if prefix and paste.printer.startswith("code") and prefix.startswith("#"):
            prefix = ""  # code commented out is code no more
        if prefix:
            text = prefixed(text, prefix)
            how.append(f"{paste.printer} prefixed {prefix!r}")
        body = text.rstrip("\n")
        size = body.count("\n") + 1
        if rng.random() < 0.5 and not prefix:
            chunks.append("```\n" + body + "\n```")
            how.append("fence")
            spans.append((line + 1, line + size))
            line += size + 3
        else:
            chunks.append(body)
            spans.append((line, line + size - 1))
            line += size + 1
    if rng.random() < 0.5:
        chunks.append(rng.choice(PROSE))
    post = "\n\n".join(chunks) + "\n"
    style = rng.choice(["plain", "plain", "crlf", "tabs", "flush", "no-break spaces"])
    if style == "crlf":
        post = post.replace("\n", "\r\n")
    elif style == "no-break spaces":
        post = post.replace(" ", "\xa0")
    elif style == "tabs":
        post = re.sub(r"(?m)^((?:    )+)", lambda m: "\t" * (len(m.group(1)) // 4), post)
    elif style == "flush":
        post = "\n".join(line.lstrip() for line in post.split("\n"))
    how.append(style)
    return Post(post, tuple(pastes), tuple(cropped), ", ".join(h for h in how if h),
                tuple(spans), tuple(models) or tuple(0 for _ in pastes))


@st.composite
def posts(draw: st.DrawFn, makers: Sequence[str] | None = None, least: int = 1,
          most: int = 2) -> Post:
    """A post of the real printers' pastes: one model's one to three printouts, or the
    printouts of ``least`` to ``most`` different models (each from one of ``makers``, any of
    :data:`MAKERS` where None: a Keras model and its torch port, a family repr beside a torch
    summary), in a row or interleaved, composed by :func:`compose`."""
    rng = draw(st.randoms(use_true_random=False))
    count = draw(st.integers(least, most))
    chosen: list[tuple[int, Paste]] = []
    for index in range(count):
        maker = MAKERS[draw(st.sampled_from(list(makers or MAKERS)))]
        state = random.getstate()  # frameworks that seed the global random while building
        with warnings.catch_warnings():  # the frameworks' own, while they build and print
            warnings.simplefilter("ignore")
            made = maker(draw)
        random.setstate(state)
        if not made:
            continue
        k = min(len(made), rng.choice([1, 2, 3] if count == 1 else [1, 1, 2]))
        chosen += [(index, paste) for paste in rng.sample(made, k=k)]
    if rng.random() < 0.3:
        rng.shuffle(chosen)
    return compose([paste for _, paste in chosen], rng, [index for index, _ in chosen])


def family_outcome(layer: Layer, truth: int) -> str:
    """A family repr's model read back (its one layer): exact where the one count claimed is
    the truth, ambiguous where no count is claimed and the truth is among the readings listed,
    unsized where none is listed and a note says why, wrong otherwise."""
    if layer.params is not None:
        return "exact" if layer.params == truth else "wrong"
    if any(note.startswith(f"{truth:,}:") for note in layer.notes):
        return "ambiguous"
    return "wrong" if layer.notes else "unsized"


def check_post(post: Post, score: Score, label: str = "composed posts") -> Answer | None:
    """A composed post read back against its pastes' truths. Every configuration claimed is
    one of theirs (or the default options' fit, with the true one listed beside it, as
    :func:`tests.printers.score_layer` scores it); every total claimed is the truth of the
    paste it is read from, and a whole post claims no disagreement (its counts are all true,
    and printouts of different models are not one model's); a crop may leave a total that is
    not the truth, or a disagreement, only in the cropped paste and only where the answer says
    so there (a disagreement at its lines). Code is held to the same (its total is its paste's
    truth, a cut statement in it yields a bound), and code read without a total says why. Each
    true recurrent layer (a family model counts
    as one) is scored exact or ambiguous where found; of a cropped paste, partial where not
    (the crop is what lost it); wrong otherwise."""
    try:
        answer = read(post.text)
    except NothingFound:  # a crop that leaves nothing countable
        for paste, cut in zip(post.parts, post.cropped, strict=True):
            for _ in range(len(paste.truth.specs) or family(paste)):  # a family model: one
                score.add(label, "partial" if cut else "wrong",
                          f"{post.how}: nothing found\n{post.text}")
        return None
    specs = [s for p in post.parts for s in p.truth.specs]
    claimed = [layer for m in answer.models for layer in m.layers if layer.spec is not None]
    for layer in claimed:  # the default options' fit may be claimed, the true one named
        assert layer.spec is not None
        assert any(same(layer.spec, s) for s in specs) or (
            layer.solution is not None and any(same(fit.spec, s) for fit in
                                               layer.solution.choices for s in specs)), (
            f"{post.how}: claimed {conventions.describe(layer.spec)}, none of "
            f"{[conventions.describe(s) for s in specs]}\n{post.text}")
    said = {post.span_of(d.line) for d in answer.disagreements}
    for where in said:  # a disagreement only where a crop or another model explains it
        assert where is not None and (post.cropped[where] or any(
            post.cropped[other] for other in post.same_model(where)) or post.namesakes(where)), (
            f"{post.how}: disagreement {answer.disagreements} where no crop and no other "
            f"model of its framework is\n{post.text}")
    for model in answer.models:
        where = post.span_of(model.line)
        truth = None if where is None else post.parts[where].truth.total
        if model.total is None or model.total == truth:
            continue
        assert where is not None and post.cropped[where] and where in said, (
            f"{post.how}: total {model.total:,} of {model.name} at line {model.line}, truly "
            f"{truth if truth is None else f'{truth:,}'}, and no disagreement said there\n"
            f"{post.text}")
    for model in answer.models:  # code not counted whole says why
        assert model.source != "code" or model.total is not None or model.notes or any(
            layer.missing or layer.notes for layer in model.layers) or answer.notes or (
            model.bound), (
            f"{post.how}: code model {model.name} has no total and no word why\n{post.text}")
    unread = {u.line for m in answer.models for u in m.accounting.unread}

    def named(index: int) -> bool:  # the answer names a line of this paste it did not read
        first, last = post.spans[index]
        return any(first <= line <= last for line in unread)

    for index, (paste, cut) in enumerate(zip(post.parts, post.cropped, strict=True)):
        if family(paste):
            _score_family_part(post, index, answer, score, label)
            continue
        for spec in paste.truth.specs:
            if any(layer.spec is not None and same(layer.spec, spec) for layer in claimed):
                outcome = "exact"
            elif any(layer.solution is not None and layer.solution.admits(spec)
                     for m in answer.models for layer in m.layers) or any(
                    same(c, spec) for m in answer.models for layer in m.layers
                    for grouping in layer.groupings for part in grouping for c in part):
                outcome = "ambiguous"  # among the fits listed, or the groupings of bare shapes
            else:  # of a cropped paste, the crop lost it; or lines of it named unread
                outcome = "partial" if cut or named(index) else "wrong"
            score.add(label, outcome, f"{post.how}: {conventions.describe(spec)} not found"
                                      f"\n{post.text}")
    return answer


def _score_family_part(post: Post, index: int, answer: Answer, score: Score, label: str
                       ) -> None:
    """A family repr in a post, scored by :func:`family_outcome` on the model read at its
    lines; a cropped one that no model was read from is partial."""
    paste, cut = post.parts[index], post.cropped[index]
    mine = [m for m in answer.models if m.source != "code" and post.span_of(m.line) == index
            and m.layers]
    outcomes = [family_outcome(m.layers[0], paste.truth.total) for m in mine]
    if cut:
        outcomes = ["partial" if o in ("wrong", "unsized") and not m.accounting.whole else o
                    for o, m in zip(outcomes, mine, strict=True)]
    outcome = outcomes[0] if len(outcomes) == 1 else "partial" if cut else "wrong"
    score.add(label, outcome, f"{post.how}: {paste.printer} read as "
                              f"{[(m.source, m.layers[0].params, m.layers[0].notes) for m in mine]}"
                              f", truly {paste.truth.total:,}\n{post.text}")
