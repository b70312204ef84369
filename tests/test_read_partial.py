"""``paramcount read`` follows what model code commonly does, and answers all it can.

Each snippet is trusted test code: the test runs it with the real framework to get the truth,
and compares what ``read`` found statically (nothing imported or run) with the real model.
Where the paste leaves a value open, only the layers that depend on it are unresolved (named
with their line); every other layer is counted, and checked against the framework.
"""

from __future__ import annotations

import sys
import textwrap
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paramcount.reading.pipeline import Answer, Model, read
from tests.conftest import have
from tests.test_read_torch import check_against

torch_only = [pytest.mark.torch, pytest.mark.skipif(not have("torch"), reason="needs torch")]

# id -> (code, the expression that builds the model)
FOLLOWED: dict[str, tuple[str, str]] = {
    "factory-last-line": ("""
        import torch.nn as nn
        class Tagger(nn.Module):
            def __init__(self, vocab=1000, emb=64, hidden=128, tags=10):
                super().__init__()
                self.emb = nn.Embedding(vocab, emb)
                self.lstm = nn.LSTM(emb, hidden, batch_first=True, bidirectional=True)
                self.out = nn.Linear(2 * hidden, tags)
        def build(**kw): return Tagger(**kw)
        """, "build()"),
    "factory-with-arguments": ("""
        import torch.nn as nn
        class Tagger(nn.Module):
            def __init__(self, hidden=128, layers=1):
                super().__init__()
                self.gru = nn.GRU(32, hidden, layers)
        def make_model():
            return Tagger(hidden=96, layers=3).to("cpu")
        """, "make_model()"),
    "factory-called": ("""
        import torch.nn as nn
        class Tagger(nn.Module):
            def __init__(self, hidden=128, layers=1):
                super().__init__()
                self.gru = nn.GRU(32, hidden, layers, bidirectional=layers > 1)
        def build(**overrides):
            options = dict(hidden=64)
            options.update(overrides)
            return Tagger(**options)
        model = build(layers=2).cuda() if False else build(layers=2)
        """, "model"),
    "conditions-on-settings": ("""
        import torch.nn as nn
        class Net(nn.Module):
            def __init__(self, cell="gru", norm=None, hidden=None, heads=("a", "b")):
                super().__init__()
                hidden = hidden or 32
                self.rnn = nn.LSTM(8, hidden) if cell == "lstm" else nn.GRU(8, hidden)
                if norm is not None:
                    self.norm = nn.LayerNorm(hidden)
                if cell in ("gru", "rnn") and not norm:
                    self.extra = nn.Linear(hidden, 2)
                if "b" in heads:
                    self.b = nn.Linear(hidden, 1)
        """, "Net()"),
    "loops-over-known-values": ("""
        import torch.nn as nn
        class MLPTagger(nn.Module):
            def __init__(self, sizes=(64, 48, 32), kinds=("lstm", "gru", "skip")):
                super().__init__()
                self.mlp = nn.Sequential(*[nn.Linear(a, b) for a, b in zip(sizes, sizes[1:])])
                self.heads = nn.ModuleDict({k: nn.Linear(32, n) for k, n in [("a", 2)]})
                self.rnns = nn.ModuleList([nn.LSTM(32, 8) if kind == "lstm" else nn.GRU(32, 8)
                                           for kind in kinds if kind != "skip"])
                self.norms = nn.ModuleList()
                for i, width in enumerate(sizes[:-1]):
                    self.norms.append(nn.LayerNorm(width + i))
                self.out = nn.ModuleDict({"tags": nn.Linear(8, 5), "spans": nn.Linear(8, 2)})
        """, "MLPTagger()"),
    "argparse-defaults": ("""
        import argparse
        import torch.nn as nn
        parser = argparse.ArgumentParser()
        parser.add_argument('--hidden', type=int, default=256)
        parser.add_argument('--num-layers', type=int, default='2')
        parser.add_argument('-i', '--input_size', dest='features', type=int, default=40)
        parser.add_argument('--bidir', action='store_true')
        args = parser.parse_args()
        model = nn.LSTM(args.features, args.hidden, num_layers=args.num_layers,
                        bidirectional=args.bidir)
        """, "model"),
    "argparse-in-a-function": ("""
        import argparse
        import torch
        from torch import nn
        def get_args():
            p = argparse.ArgumentParser()
            p.add_argument("--emb", type=int, default=50)
            p.add_argument("--hid", type=int, default=70)
            return p.parse_args()
        class Net(nn.Module):
            def __init__(self, args):
                super().__init__()
                self.rnn = nn.GRU(args.emb, args.hid, batch_first=True)
                self.fc = nn.Linear(args.hid, 2)
        if __name__ == "__main__":
            args = get_args()
            model = Net(args).to(torch.device("cpu"))
        """, "model"),
    "dict-config": ("""
        import torch.nn as nn
        config = {"input": 24, "hidden": 48}
        config["layers"] = 2
        config.update(dropout=0.1)
        class Net(nn.Module):
            def __init__(self, cfg):
                super().__init__()
                self.rnn = nn.LSTM(cfg["input"], cfg["hidden"], cfg.get("layers", 1),
                                   dropout=cfg["dropout"], bidirectional=cfg.get("bidir", False))
                self.fc = nn.Linear(cfg.get("hidden", 8), cfg.get("classes", 5))
        net = Net(config)
        """, "net"),
    "dataclass-config": ("""
        from dataclasses import dataclass, field
        import torch.nn as nn
        @dataclass
        class Config:
            input_size: int
            hidden: int = 64
            layers: int = field(default=2)
        class Net(nn.Module):
            def __init__(self, config: Config):
                super().__init__()
                self.config = config
                self.rnn = nn.LSTM(config.input_size, config.hidden, config.layers)
                self.head = nn.Linear(self.config.hidden, 3)
        model = Net(Config(12, hidden=100))
        """, "model"),
    "config-classes": ("""
        import torch.nn as nn
        class HParams:
            def __init__(self, hidden=40, layers=2):
                self.hidden = hidden
                self.layers = layers
                self.width = hidden * 2
        class Sizes:
            VOCAB = 500
            EMB = 16
        class Net(nn.Module):
            def __init__(self, hp=HParams(layers=3)):
                super().__init__()
                self.emb = nn.Embedding(Sizes.VOCAB, Sizes.EMB)
                self.rnn = nn.GRU(Sizes.EMB, hp.hidden, hp.layers, bidirectional=True)
                self.out = nn.Linear(hp.width, Sizes.VOCAB)
        """, "Net()"),
    "modulelist-comprehension": ("""
        import torch.nn as nn
        class Stack(nn.Module):
            def __init__(self, n=3, features=10, hidden=20):
                super().__init__()
                self.rnns = nn.ModuleList([
                    nn.LSTM(features if i == 0 else hidden, hidden, batch_first=True)
                    for i in range(n)])
                self.norms = nn.ModuleList([nn.LayerNorm(hidden) for _ in range(n)])
        """, "Stack()"),
    "sequential-of-a-built-list": ("""
        import torch.nn as nn
        class Net(nn.Module):
            def __init__(self, depth=3, width=16):
                super().__init__()
                layers = []
                for i in range(depth):
                    layers.append(nn.Linear(width * 2 if i == 0 else width, width))
                    layers.append(nn.ReLU())
                layers.extend([nn.Linear(width, 1)])
                layers += [nn.Sigmoid()]
                self.mlp = nn.Sequential(*layers)
                blocks = [nn.GRU(width, width)]
                blocks.insert(0, nn.Linear(4, width))
                self.blocks = nn.ModuleList(blocks)
        """, "Net()"),
    "functools-partial-and-getattr": ("""
        import functools
        from functools import partial
        import torch.nn as nn
        RNN = functools.partial(nn.LSTM, batch_first=True, num_layers=2)
        CELLS = {"lstm": nn.LSTM, "gru": nn.GRU}
        class Net(nn.Module):
            def __init__(self, cell="GRU", kind="lstm", hidden=32):
                super().__init__()
                self.a = RNN(16, hidden)
                self.b = getattr(nn, cell)(hidden, hidden)
                make = partial(nn.GRU, bidirectional=True)
                self.c = make(8, 8, num_layers=3)
                self.d = CELLS[kind](hidden, 4)
                rnn_class = nn.RNN if hidden > 64 else nn.GRU
                self.e = rnn_class(4, 4)
        """, "Net()"),
    "super-init-arguments": ("""
        import torch.nn as nn
        class Base(nn.Module):
            def __init__(self, input_size, hidden, bidirectional=False):
                super().__init__()
                self.rnn = nn.GRU(input_size, hidden, batch_first=True,
                                  bidirectional=bidirectional)
                self.proj = nn.Linear(hidden * (2 if bidirectional else 1), hidden)
        class Child(Base):
            def __init__(self, hidden=40):
                super().__init__(20, hidden, bidirectional=True)
                self.fc = nn.Linear(hidden, 2)
        """, "Child()"),
}


def build(code: str, expression: str) -> Any:
    """Run the trusted snippet with torch (as a script without arguments) and evaluate
    ``expression`` in it."""
    namespace: dict[str, Any] = {"__name__": "__main__"}
    argv = sys.argv
    sys.argv = ["model.py"]
    try:
        exec(textwrap.dedent(code), namespace)
        return eval(expression, namespace)
    finally:
        sys.argv = argv


def code_models(answer: Answer) -> list[Model]:
    """The models the answer read from code."""
    return [m for m in answer.models if m.source == "code"]


@pytest.mark.parametrize("case", FOLLOWED, ids=list(FOLLOWED))
@pytest.mark.parametrize("mark", [pytest.param(None, marks=torch_only)], ids=["torch"])
def test_common_model_code_is_followed(case: str, mark: None) -> None:
    """Read statically, each construct gives the real torch module's layers and total."""
    code, expression = FOLLOWED[case]
    answer = read(textwrap.dedent(code))
    assert not answer.unresolved
    [model] = code_models(answer)
    check_against(model, build(code, expression))


def test_a_factory_line_changes_nothing() -> None:
    """``def build(**kw): return Tagger(**kw)`` as the last line: the same answer as without
    it (it answered nothing before)."""
    code = textwrap.dedent(FOLLOWED["factory-last-line"][0])
    without = read(code.replace("def build(**kw): return Tagger(**kw)\n", ""))
    with_factory = read(code)
    assert [(m.name, m.total) for m in code_models(with_factory)] == [
        (m.name, m.total) for m in code_models(without)] == [("Tagger", 265_226)]


# id -> (code, what is unresolved: (name, line), the layers counted: name -> how torch builds it)
PARTIAL: dict[str, tuple[str, set[tuple[str, int]], dict[str, str]]] = {
    "spread-of-an-unknown-config": ("""
        import yaml
        import torch.nn as nn
        class Net(nn.Module):
            def __init__(self, vocab=1000, hidden=64, classes=3):
                super().__init__()
                self.emb = nn.Embedding(vocab, 32)
                self.rnn = nn.LSTM(32, hidden)
                self.fc = nn.Linear(12, classes)
                self.norm = nn.LayerNorm(32)
        cfg = yaml.safe_load(open("config.yaml"))
        model = Net(vocab=500, **cfg)
        """, {("cfg['hidden']", 12), ("cfg['classes']", 12)},
        {"emb": "nn.Embedding(500, 32)", "norm": "nn.LayerNorm(32)"}),
    "getattr-of-an-unknown-name": ("""
        import torch.nn as nn
        class Net(nn.Module):
            def __init__(self, cell, hidden=32):
                super().__init__()
                self.emb = nn.Embedding(100, 16)
                self.rnn = getattr(nn, cell)(16, hidden)
                self.fc = nn.Linear(hidden, 4)
        """, {("cell", 4)}, {"emb": "nn.Embedding(100, 16)", "fc": "nn.Linear(32, 4)"}),
    "config-from-another-file": ("""
        import torch.nn as nn
        from config import cfg, CLASSES
        from utils import vocab_size
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.emb = nn.Embedding(vocab_size(), 64)
                self.rnn = nn.GRU(64, cfg.hidden, num_layers=2)
                self.out = nn.Linear(64, CLASSES)
                self.gate = nn.Linear(64, 64)
        """, {("vocab_size(...)", 8), ("cfg.hidden", 9), ("CLASSES", 10)},
        {"gate": "nn.Linear(64, 64)"}),
    "a-class-passed-in": ("""
        import torch.nn as nn
        class Net(nn.Module):
            def __init__(self, rnn_class, layers=2):
                super().__init__()
                self.rnns = nn.ModuleList([rnn_class(8, 8) for _ in range(layers)])
                self.fc = nn.Linear(8, 1)
        """, {("rnn_class", 4)}, {"fc": "nn.Linear(8, 1)"}),
    "an-argparse-option-without-default": ("""
        import argparse
        import torch.nn as nn
        parser = argparse.ArgumentParser()
        parser.add_argument("--hidden", type=int, required=True)
        parser.add_argument("--emb", type=int, default=30)
        args = parser.parse_args()
        emb = nn.Embedding(200, args.emb)
        rnn = nn.LSTM(args.emb, args.hidden)
        """, {("args.hidden", 5)}, {"emb": "nn.Embedding(200, 30)"}),
}


@pytest.mark.parametrize("case", PARTIAL, ids=list(PARTIAL))
@pytest.mark.parametrize("mark", [pytest.param(None, marks=torch_only)], ids=["torch"])
def test_only_what_depends_on_an_unknown_is_unresolved(case: str, mark: None) -> None:
    """What cannot be evaluated is named with its line; every layer that does not depend on
    it is counted exactly as torch builds it, and no total is claimed."""
    import torch.nn as nn

    code, unresolved, counted = PARTIAL[case]
    answer = read(textwrap.dedent(code))
    assert {(m.name, m.line) for m in answer.unresolved} == unresolved
    layers = {layer.name: layer for model in code_models(answer) for layer in model.layers}
    for name, layer in layers.items():
        if name in counted:
            real = eval(counted[name], {"nn": nn})
            assert layer.params == sum(p.numel() for p in real.parameters()), name
        else:
            assert layer.params is None, name
    assert set(counted) <= set(layers)
    assert all(m.total is None for m in code_models(answer)
               if any(layer.params is None for layer in m.layers))


def test_set_gives_what_a_spread_config_leaves_open() -> None:
    """``--set hidden=N`` answers a value that ``**cfg`` left open, and the total follows."""
    code = textwrap.dedent(PARTIAL["spread-of-an-unknown-config"][0])
    answer = read(code, {"hidden": 16, "classes": 2})
    assert not answer.unresolved
    [model] = code_models(answer)
    assert model.total == 500 * 32 + 4 * 16 * (32 + 16 + 2) + 12 * 2 + 2 + 2 * 32
    hints = {m.name: m.hint for m in read(code).unresolved}
    assert hints["cfg['hidden']"] == "pass --set hidden=N"


def test_a_base_class_needing_arguments_is_not_a_model_of_its_own() -> None:
    """A base whose ``__init__`` needs arguments its subclass gives is read through the
    subclass only, not listed with unresolved sizes beside it."""
    code = textwrap.dedent(FOLLOWED["super-init-arguments"][0]).replace(
        "def __init__(self, hidden=40)", "def __init__(self, hidden=40, *rest, **options)")
    answer = read(code)
    assert [m.name for m in code_models(answer)] == ["Child"]
    assert not answer.unresolved


keras_only = [pytest.mark.keras, pytest.mark.skipif(
    not (have("keras") and have("tensorflow")), reason="needs keras and tensorflow")]

# id -> code building ``model`` with Keras
GRAPHS: dict[str, str] = {
    "several-inputs-and-outputs": """
        from tensorflow import keras
        from tensorflow.keras import layers
        a = keras.Input(shape=(10, 8))
        b = keras.Input(shape=(5, 4))
        x = layers.LSTM(16)(a)
        y = layers.GRU(12)(b)
        z = layers.concatenate([x, y])
        c = layers.Dense(3)(z)
        d = layers.Dense(2)(y)
        model = keras.Model(inputs=[a, b], outputs=[c, d])
        """,
    "encoder-decoder-passing-states": """
        import keras
        from keras.layers import Input, LSTM, Dense, Embedding
        enc_in = Input(shape=(None,))
        enc_emb = Embedding(300, 32)(enc_in)
        enc_out, state_h, state_c = LSTM(64, return_state=True)(enc_emb)
        dec_in = Input(shape=(None, 20))
        decoder_lstm = LSTM(64, return_sequences=True, return_state=True)
        dec_out, _, _ = decoder_lstm(dec_in, initial_state=[state_h, state_c])
        dec_out = Dense(20, activation="softmax")(dec_out)
        model = keras.Model([enc_in, dec_in], dec_out)
        """,
    "bidirectional-states-and-a-shared-layer": """
        import keras
        from keras import layers
        x = keras.Input(shape=(7, 6))
        out, fh, fc, bh, bc = layers.Bidirectional(layers.LSTM(8, return_state=True))(x)
        h = layers.Concatenate()([fh, bh])
        c = layers.Concatenate()([fc, bc])
        q = keras.Input(shape=(3, 5))
        seq = layers.LSTM(16, return_sequences=True)(q, initial_state=[h, c])
        shared = layers.Dense(4)
        left = shared(out)
        right = shared(h)
        both = layers.add([left, right])
        model = keras.Model(inputs=[x, q], outputs=[seq, layers.Dense(1)(both)])
        """,
}


@pytest.mark.parametrize("case", GRAPHS, ids=list(GRAPHS))
@pytest.mark.parametrize("mark", [pytest.param(None, marks=keras_only)], ids=["keras"])
def test_functional_graphs_with_several_inputs_and_outputs(case: str, mark: None) -> None:
    """A functional model with several inputs and outputs, merges, passed states and a shared
    layer is one model, each layer counted as Keras builds it (a shared layer once)."""
    import os
    import warnings

    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    keras = pytest.importorskip("keras")
    code = textwrap.dedent(GRAPHS[case])
    answer = read(code)
    assert not answer.unresolved
    [model] = code_models(answer)
    namespace: dict[str, Any] = {}
    keras.backend.clear_session()  # layer names as in a fresh session, as the reader gives
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=UserWarning)
        exec(code, namespace)
    real = namespace["model"]
    assert model.total == real.count_params()
    weighted = [layer for layer in real.layers if layer.count_params()]
    assert sorted((layer.name, layer.params) for layer in model.layers if layer.params) == (
        sorted((layer.name, layer.count_params()) for layer in weighted))


# How model code carries four sizes to nn.LSTM; each gives the same layer as the literal call.
CARRIERS: dict[str, str] = {
    "literal": "m = nn.LSTM({i}, {h}, {n}, bidirectional={b})",
    "argparse": ("import argparse\np = argparse.ArgumentParser()\n"
                 "p.add_argument('--input-size', type=int, default={i})\n"
                 "p.add_argument('--hidden', type=int, default='{h}')\n"
                 "p.add_argument('--layers', dest='n', type=int, default={n})\n"
                 "p.add_argument('--bidir', action='{action}')\na = p.parse_args()\n"
                 "m = nn.LSTM(a.input_size, a.hidden, a.n, bidirectional=a.bidir)"),
    "dict": ("cfg = dict(i={i}, h={h})\ncfg['n'] = {n}\ncfg.update(b={b})\n"
             "m = nn.LSTM(cfg['i'], cfg.get('h', 1), cfg.get('n'), bidirectional=cfg['b'])"),
    "dataclass": ("from dataclasses import dataclass\n@dataclass\nclass C:\n    i: int\n"
                  "    h: int = 1\n    n: int = 1\n    b: bool = False\n"
                  "c = C({i}, n={n}, b={b}, h={h})\nm = nn.LSTM(c.i, c.h, c.n, bidirectional=c.b)"),
    "partial-spread": ("import functools\nopts = dict(num_layers={n}, bidirectional={b})\n"
                       "make = functools.partial(nn.LSTM, {i})\nm = make({h}, **opts)"),
    "factory": ("class Net(nn.Module):\n    def __init__(self, i={i}, h={h}, n={n}, b={b}):\n"
                "        super().__init__()\n        self.rnn = getattr(nn, 'LSTM')(i, h, n, "
                "bidirectional=b)\ndef build(**kw): return Net(**kw)"),
}


@settings(max_examples=120, deadline=None)
@given(st.sampled_from(sorted(CARRIERS)), st.integers(1, 4096), st.integers(1, 4096),
       st.integers(1, 6), st.booleans())
def test_every_carrier_gives_the_literal_layer(carrier: str, i: int, h: int, n: int,
                                               b: bool) -> None:
    """Sizes carried by argparse, a dict, a dataclass, functools.partial with a spread, or a
    factory of a class are read as the literal ``nn.LSTM(i, h, n, bidirectional=b)`` is."""
    def layer(code: str) -> Any:
        text = "import torch.nn as nn\n" + code.format(
            i=i, h=h, n=n, b=b, action="store_true" if not b else "store_false")
        [found] = [x for model in code_models(read(text)) for x in model.layers]
        return found

    got, literal = layer(CARRIERS[carrier]), layer(CARRIERS["literal"])
    assert got.spec is not None and literal.spec is not None
    assert (got.spec, got.params) == (literal.spec, literal.params)


def test_lightning_hyperparameters_are_the_init_arguments() -> None:
    """``self.save_hyperparameters()`` then ``self.hparams.hidden`` / ``self.hparams["layers"]``
    (a LightningModule) reads the ``__init__`` arguments, as the literal layer."""
    code = textwrap.dedent("""
        import torch.nn as nn
        import pytorch_lightning as pl
        class Model(pl.LightningModule):
            def __init__(self, hidden=40, layers=2):
                super().__init__()
                self.save_hyperparameters()
                self.lstm = nn.LSTM(16, self.hparams.hidden, self.hparams["layers"])
        """)
    [model] = code_models(read(code))
    [literal] = code_models(read("import torch.nn as nn\nlstm = nn.LSTM(16, 40, 2)\n"))
    assert (model.layers[0].spec, model.total) == (literal.layers[0].spec, literal.total)


@pytest.mark.parametrize("code", [
    "def f(n=1):\n    return [f() for _ in range(1000)]\ny = f()\n",
    "import torch.nn as nn\nxs = []\nfor i in range(1000):\n    for j in range(3):\n"
    "        xs.append(nn.Linear(2, 2))\nm = nn.Sequential(*xs)\n",
], ids=["recursive-function", "thousands-of-appends"])
def test_evaluating_the_paste_is_bounded(code: str) -> None:
    """A function that calls itself a thousand times per call, or a list appended to thousands of
    times, stops at the reader's limits with a note, instead of running for minutes."""
    from paramcount.reading.code.python_code import read_code

    reading = read_code(code)
    said = [*reading.notes, *(u.reason for b in reading.blocks for u in b.accounting.unread)]
    assert any("too large or too deeply nested" in n or "is not known" in n for n in said)


TRAINING_SCRIPT = """
    import torch
    import torch.nn as nn

    class Tagger(nn.Module):
        def __init__(self, vocab=1000, width=64, hidden=128, tags=10):
            super().__init__()
            self.embedding = nn.Embedding(vocab, width)
            self.lstm = nn.LSTM(width, hidden, num_layers=2, bidirectional=True)
            self.head = nn.Linear(2 * hidden, tags)

    def accuracy(predicted, expected, ignore=-100):
        mask = expected != ignore
        if not mask.any():
            return 0.0
        return float(((predicted.argmax(-1) == expected) & mask).sum()) / float(mask.sum())

    def train(model, loader, optimizer, epochs=10, log_every=100):
        for epoch in range(epochs):
            for step, (tokens, labels) in enumerate(loader):
                scores = model(tokens)
                loss = torch.nn.functional.cross_entropy(scores.flatten(0, 1), labels)
                if step % log_every == 0:
                    print(epoch, step, loss.item())
"""


@pytest.mark.torch
@pytest.mark.skipif(not have("torch"), reason="needs torch")
def test_a_training_script_answers_its_models_only() -> None:
    """A model among a metric and a training loop: the model, and no other (``scores =
    model(tokens)`` applies a model to data, it builds none), and no note about the loops and
    branches of functions that build nothing (they were unrolled once per epoch, each adding
    its notes)."""
    answer = read(textwrap.dedent(TRAINING_SCRIPT))
    [model] = code_models(answer)
    check_against(model, build(TRAINING_SCRIPT, "Tagger()"))
    assert not answer.notes and not answer.unresolved


@pytest.mark.parametrize("code, count", [
    ("import torch.nn as nn\ncell = nn.GRU\ndef build():\n    rnn = cell(3, 4)\n", 108),
    ("import torch.nn as nn\nrnns = {'gru': nn.GRU}\ndef build(kind='gru'):\n"
     "    rnn = rnns[kind](3, 4)\n", 108),
    ("import torch.nn as nn\ndef build(sizes=(3, 4)):\n    rnn = nn.GRU(*sizes)\n", 108),
    ("import torch.nn as nn\ndef build(cell=nn.GRU):\n    rnn = cell(3, 4)\n", 108),
], ids=["module-alias", "subscript", "tuple-default", "class-default"])
def test_a_function_naming_a_class_indirectly_is_still_read(code: str, count: int) -> None:
    """Functions that name no class directly but build a layer through a name bound to one, a
    subscript, or a default are read as before."""
    answer = read(code)
    assert [layer.params for _, layer in answer.recurrent] == [count]
