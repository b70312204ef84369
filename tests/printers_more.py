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
from paramcount.read.pipeline import Answer, NothingFound, read
from paramcount.read.solve import same_configuration as same
from tests.printers import Paste, Score, TorchPlan, Truth, build_torch

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
        text = Net().tabulate(jax.random.key(0), x, console_kwargs={"width": plan.console})
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
    """A family repr read back: exact where the one count claimed is the truth, ambiguous
    where no count is claimed and the truth is among the readings listed, wrong otherwise."""
    answer = read(paste.text)
    models = [m for m in answer.models if m.source != "code"]
    assert len(models) == 1, (paste.printer, paste.text)
    layer = models[0].layers[0]
    truth = paste.truth.total
    if layer.params is not None:
        outcome = "exact" if layer.params == truth else "wrong"
    elif any(note.startswith(f"{truth:,}:") for note in layer.notes):
        outcome = "ambiguous"
    else:
        outcome = "wrong" if layer.notes else "unsized"
    score.add(paste.printer, outcome, f"{layer.params} vs {truth}: {layer.notes}\n{paste.text}")
    assert not answer.disagreements, answer.disagreements
    return answer


# -- compositions -----------------------------------------------------------------------------

PROSE = (
    "Hi all, I am confused by the parameter count of my model.",
    "Here is what the summary prints:",
    "Can someone explain where these numbers come from?",
    "I expected fewer parameters.",
    "Thanks in advance!",
    "EDIT: same thing happens on the GPU.",
)
CROPS = ("top", "bottom", "middle")
UNFRAMED = ("named_parameters()", "state_dict()", "parameters() shapes")
"""Dumps with no header, footer or closing line: a cut in them leaves no trace to find, so
they are composed whole."""
UNCHECKED = ("print(model)", "code (torch)", "code (Keras)")
"""Printouts (and code) with no count to check their lines against: whole lines cut from the
middle leave the printout (or code) of a smaller model, so they are cropped at the top or
bottom only."""


@dataclass(frozen=True)
class Post:
    """A composed post: its text, the pastes in it (whole or cropped), and how it was made."""

    text: str
    parts: tuple[Paste, ...]
    cropped: tuple[bool, ...]
    how: str


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


def compose(pastes: Sequence[Paste], rng: random.Random) -> Post:
    """The pastes composed as a post: prose around them, some fenced, perhaps cropped, the
    whole perhaps with CRLF line ends, tabs for indentation, or indentation lost."""
    chunks: list[str] = []
    cropped: list[bool] = []
    how: list[str] = []
    for paste in pastes:
        if rng.random() < 0.5:
            chunks.append(rng.choice(PROSE))
        text = paste.text
        cut = rng.random() < 0.3 and paste.printer not in UNFRAMED
        if cut:
            where = rng.choice(CROPS[:2] if paste.printer in UNCHECKED else CROPS)
            text = (cut_code if paste.printer.startswith("code") else crop)(text, where, rng)
            cut = text != paste.text
            how.append(f"crop {where}" if cut else "")
        cropped.append(cut)
        if rng.random() < 0.5:
            chunks.append("```\n" + text.rstrip("\n") + "\n```")
            how.append("fence")
        else:
            chunks.append(text.rstrip("\n"))
    if rng.random() < 0.5:
        chunks.append(rng.choice(PROSE))
    post = "\n\n".join(chunks) + "\n"
    style = rng.choice(["plain", "plain", "crlf", "tabs", "flush"])
    if style == "crlf":
        post = post.replace("\n", "\r\n")
    elif style == "tabs":
        post = re.sub(r"(?m)^((?:    )+)", lambda m: "\t" * (len(m.group(1)) // 4), post)
    elif style == "flush":
        post = "\n".join(line.lstrip() for line in post.split("\n"))
    how.append(style)
    return Post(post, tuple(pastes), tuple(cropped), ", ".join(h for h in how if h))


def check_post(post: Post, score: Score, label: str = "composed posts") -> Answer | None:
    """A composed post read back against its pastes' truths. Every configuration claimed is
    one of theirs (or the default options' fit, with the true one listed beside it, as
    :func:`tests.printers.score_layer` scores it); a whole post claims no total that is not
    one of theirs and no disagreement (their counts are all true); a post with a crop may
    claim a total that is none of theirs (a line cut from the middle of a printout leaves no
    trace in it) only where the answer says its printouts differ. Code is held to the same
    (its total is its paste's truth, a cut statement in it yields a bound, never a whole total),
    and code read without a total says why. Each true recurrent layer is
    scored exact or ambiguous where found; of a cropped paste, partial where not (the crop is
    what lost it); wrong otherwise."""
    cropped = any(post.cropped)
    try:
        answer = read(post.text)
    except NothingFound:  # a crop that leaves nothing countable
        for paste, cut in zip(post.parts, post.cropped, strict=True):
            for _ in paste.truth.specs:
                score.add(label, "partial" if cut else "wrong",
                          f"{post.how}: nothing found\n{post.text}")
        return None
    specs = [s for p in post.parts for s in p.truth.specs]
    totals = {p.truth.total for p in post.parts}
    claimed = [layer for m in answer.models for layer in m.layers if layer.spec is not None]
    for layer in claimed:  # the default options' fit may be claimed, the true one named
        assert layer.spec is not None
        assert any(same(layer.spec, s) for s in specs) or (
            layer.solution is not None and any(same(fit.spec, s) for fit in
                                               layer.solution.choices for s in specs)), (
            f"{post.how}: claimed {conventions.describe(layer.spec)}, none of "
            f"{[conventions.describe(s) for s in specs]}\n{post.text}")
    for model in answer.models:
        if model.total is not None and model.total not in totals:
            assert cropped and answer.disagreements, (
                f"{post.how}: total {model.total:,} of {model.name}, truly {sorted(totals)}, "
                f"and no disagreement said\n{post.text}")
    assert cropped or not answer.disagreements, (post.how, answer.disagreements, post.text)
    for model in answer.models:  # code not counted whole says why
        assert model.source != "code" or model.total is not None or model.notes or any(
            layer.missing or layer.notes for layer in model.layers) or answer.notes, (
            f"{post.how}: code model {model.name} has no total and no word why\n{post.text}")
    for paste, cut in zip(post.parts, post.cropped, strict=True):
        for spec in paste.truth.specs:
            if any(layer.spec is not None and same(layer.spec, spec) for layer in claimed):
                outcome = "exact"
            elif any(layer.solution is not None and layer.solution.admits(spec)
                     for m in answer.models for layer in m.layers):
                outcome = "ambiguous"
            else:
                outcome = "partial" if cut else "wrong"
            score.add(label, outcome, f"{post.how}: {conventions.describe(spec)} not found"
                                      f"\n{post.text}")
    return answer
