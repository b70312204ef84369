"""``paramcount read`` on posts of a model's code beside its real printouts: the code generated at
random from a plan (:mod:`tests.printers_code`), the model built by executing it and printed by
the real printers, all composed as posts are (prose, fences, crops, CRLF, tabs, indentation
lost). No configuration or total claimed that is not the truth, no disagreement where code and
printouts are whole, and a cut statement never read as a whole model."""

from __future__ import annotations

import random
import warnings
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from paramcount.reading.pipeline import read
from paramcount.reading.solve import same_configuration as same
from tests.conftest import have
from tests.printers import KerasPlan, Score, TorchPlan, keras_plans, quiet_tensorflow, torch_plans
from tests.printers_code import (
    code_pastes,
    exec_torch,
    keras_code_pastes,
    torch_code,
    torch_truth,
)
from tests.printers_more import check_post, compose

CODE_POSTS = settings(max_examples=10, deadline=None, database=None, derandomize=True,
                      suppress_health_check=list(HealthCheck))
"""The same posts on every run (``benchmarks/read_accuracy.py`` draws others, to hunt)."""

pytest.importorskip("torch")


def _post_of(pastes: list[Any], rng: random.Random) -> list[Any]:
    """The code paste and 0–2 of the printouts, in a random order (the code usually first)."""
    code, printouts = pastes[0], pastes[1:]
    chosen = rng.sample(printouts, k=min(len(printouts), rng.choice([0, 1, 1, 2])))
    at = 0 if rng.random() < 0.7 else rng.randint(0, len(chosen))
    return [*chosen[:at], code, *chosen[at:]]


@CODE_POSTS
@given(torch_plans(), st.data())
def test_torch_code_alone_reads_as_the_model_it_builds(plan: TorchPlan,
                                                       data: st.DataObject) -> None:
    """The generated code read alone (sizes perhaps passed over ``__init__`` defaults of
    another model): one model, its total and every recurrent layer's configuration those of the
    model executing the code builds."""
    code = torch_code(plan, data.draw, overridden=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        truth = torch_truth(exec_torch(code), plan)
    answer = read(code)
    (model,) = answer.models
    assert model.total == truth.total, (model.total, truth.total, model.bound, code)
    layers = {layer.name: layer for layer in model.layers}
    for name, spec in zip(truth.names, truth.specs, strict=True):
        found = layers[name].spec
        assert found is not None and same(found, spec), (name, found, spec, code)
    assert not answer.disagreements


@CODE_POSTS
@given(torch_plans(), st.data(), st.randoms(use_true_random=False))
def test_code_and_its_printouts_composed(plan: TorchPlan, data: st.DataObject,
                                         rng: random.Random) -> None:
    """A torch model's code and the printouts of the model it builds, composed as a post: every
    claim true, no disagreement while all is whole, a crop never read as the whole model."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pastes = code_pastes(plan, data.draw)
        score = Score()
        check_post(compose(_post_of(pastes, rng), rng), score, "code posts")
    assert not score.wrong, score.wrong[0]


@pytest.fixture(scope="module")
def keras3() -> Iterator[Any]:
    """Keras 3, imported once, quietly."""
    quiet_tensorflow()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        import keras
    yield keras


@pytest.mark.keras
@pytest.mark.skipif(not (have("keras") and have("tensorflow")), reason="needs keras 3")
@CODE_POSTS
@given(keras_plans(), st.data(), st.randoms(use_true_random=False))
def test_keras_code_and_its_summary_composed(keras3: Any, plan: KerasPlan, data: st.DataObject,
                                             rng: random.Random) -> None:
    """A Keras model's code and the ``summary()`` of the model it builds, composed as a post:
    every claim true, no disagreement while both are whole, a crop never read as whole."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pastes = keras_code_pastes(plan, data.draw)
        score = Score()
        check_post(compose(_post_of(pastes, rng), rng), score, "Keras code posts")
    assert not score.wrong, score.wrong[0]


# -- regressions --------------------------------------------------------------------------------

_INSIDE = """\
    def __init__(self):
        super(Net, self).__init__()
        self.embedding = nn.Embedding(num_embeddings=5, embedding_dim=1)
        self.mlp0 = nn.Sequential(nn.Linear(1, 1), nn.ReLU())
        self.rnn1 = nn.GRU(input_size=1, hidden_size=1, bias=False)

    def forward(self, x):
        return self.rnn1(self.mlp0(self.embedding(x)))[0]


model = Net()
"""


@pytest.mark.parametrize("text", [_INSIDE, _INSIDE.split("\n", 2)[2]],
                         ids=["method", "statements"])
def test_code_cut_above_its_class_line_is_one_model_with_a_bound(text: str) -> None:
    """Code whose top (the imports and the ``class`` line, perhaps ``def __init__``) was cut
    off: its ``self.x = ...`` layers were each read as a model of its own with a whole total
    (5, 2 and 6 here); they are one model whose total is only a bound, and the answer says
    the class line is not in the paste."""
    answer = read(text)
    (model,) = answer.models
    assert [layer.name for layer in model.layers] == ["embedding", "mlp0.0", "mlp0.1", "rnn1"]
    assert model.total is None and model.at_least == 13
    assert "the code starts inside a class" in model.bound, model.bound


_HEAD = """\
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self, hidden=4):
        super(Net, self).__init__()
        self.embedding = nn.Embedding(num_embeddings=5, embedding_dim=1)
"""


@pytest.mark.parametrize("tail", ["s", "self.rnn0", "self.rnn0 = nn.GR", "self.rnn0 = n"])
def test_code_cut_in_its_last_statement_gives_a_bound(tail: str) -> None:
    """Code whose last line was cut mid-statement yet still parses (``s``, ``self.rnn0 =
    nn.GR``): it was read as a whole model of 5 parameters; the total is a bound now, and the
    line is named."""
    (model,) = read(_HEAD + f"        {tail}\n").models
    assert model.total is None and model.at_least == 5
    assert f"line 9 `{tail}` not read" in model.bound, model.bound


def test_a_size_kept_on_self_at_the_end_is_no_cut() -> None:
    """``self.hidden = hidden`` (a number) as the last line is whole code: the total stands."""
    (model,) = read(_HEAD + "        self.hidden = hidden\n").models
    assert model.total == 5


@pytest.mark.parametrize("tail", ["self.", "self.rnn0 = nn."])
def test_code_cut_after_self_dot_is_named_not_dropped_as_prose(tail: str) -> None:
    """A last line cut to ``self.`` or ``self.rnn0 = nn.`` was dropped as prose and the rest
    read as a whole model of 5; it is code that does not parse, named, and the total a bound."""
    answer = read(_HEAD + f"        {tail}\n")
    (model,) = answer.models
    assert model.total is None and model.at_least == 5
    assert f"line 9 `{tail}` not read: it may add a layer" in model.bound, model.bound


_FUNCTIONAL = """\
import tensorflow as tf

encoder_inputs = tf.keras.layers.Input(shape=(4, 1))
x = encoder_inputs
x = tf.keras.layers.LayerNormalization()(x)
_, state_h = tf.keras.layers.SimpleRNN(units=1, return_state=True)(x)
decoder_inputs = tf.keras.layers.Input(shape=(3, 1))
decoded = tf.keras.layers.SimpleRNN(1, return_sequences=True, return_state=True)(
    decoder_inputs, initial_state=[state_h])[0]
model = tf.keras.Model([encoder_inputs, decoder_inputs],
                       [tf.keras.layers.Dense(2)(decoded), tf.keras.layers.Dense(1)(state_h)])
"""


def test_functional_code_with_a_renamed_input_and_one_output_picked() -> None:
    """``x = encoder_inputs`` (a tensor renamed) and ``decoded = SimpleRNN(...)(...)[0]`` (one
    output picked): the widths were lost (no total) and the decoder not read at all; now one
    model of every layer: 2 + 3 + 3 + 4 + 2 = 14."""
    (model,) = read(_FUNCTIONAL).models
    assert [layer.params for layer in model.layers] == [2, 3, 3, 4, 2]
    assert model.total == 14


def test_keras_code_cut_after_model_dot_is_named() -> None:
    """``model.`` ending a Sequential's ``model.add`` lines was dropped as prose (a whole
    model of 5 read); it is named, and the total a bound."""
    text = ("from keras.layers import Embedding, Input\nfrom keras.models import Sequential\n\n"
            "model = Sequential()\nmodel.add(Input(shape=(4,)))\nmodel.add(Embedding(5, 1))\n"
            "model.\n")
    answer = read(text)
    (model,) = answer.models
    assert model.total is None and model.at_least == 5
    assert "line 7 `model.` not read: it may add a layer" in model.bound, model.bound


@pytest.mark.parametrize("cut", ["_, state_h =", "_, state_h = tf."])
def test_functional_code_cut_after_an_equals_sign_is_named(cut: str) -> None:
    """A functional graph cut at ``_, state_h =`` (or ``= tf.``) was read as a whole model of
    2 (the cut line is no layer call, or was dropped as prose); the line is named, and no total
    is claimed."""
    text = ("import tensorflow as tf\n\nencoder_inputs = tf.keras.layers.Input(shape=(4, 1))\n"
            f"x = tf.keras.layers.Dense(1)(encoder_inputs)\n{cut}\n")
    answer = read(text)
    (model,) = answer.models
    assert model.total is None and model.at_least == 2
    assert f"line 5 `{cut}` not read" in model.bound, model.bound


_TWO_GRAPHS = ('''
from keras.layers import Dense, GRU, Input, LSTM
from keras.models import Model

encoder_inputs = Input(shape=(4, 3))
x = LSTM(5, return_sequences=True)(encoder_inputs)
x = GRU(2)(x)
model = Model(encoder_inputs, Dense(1)(x))
''', '''
from keras.layers import Bidirectional, Dense, Input, LSTM

encoder_inputs = Input(shape=(6, 2))
x = Bidirectional(LSTM(3))(encoder_inputs)
model = Model(encoder_inputs, Dense(4)(x))
''')


@pytest.mark.keras
def test_two_functional_models_in_one_post_are_two_models() -> None:
    """Two functional Keras models one after the other, their tensors under the same names
    (``encoder_inputs``, ``x``, ``model``): two models, each of its own count (the second's
    ``x`` is not the first's; they were read as one model of both counts summed)."""
    pytest.importorskip("keras")
    from keras.models import Model  # noqa: F401  (the second snippet uses the first's import)

    counts = []
    namespace: dict[str, Any] = {}
    for snippet in _TWO_GRAPHS:  # our own code, run to count it: never a paste
        exec(snippet, namespace)
        counts.append(namespace["model"].count_params())
    answer = read("Here is my first model:\n" + _TWO_GRAPHS[0] + "\nand the second:\n"
                  + _TWO_GRAPHS[1])
    assert sorted(m.total for m in answer.models if m.source == "code") == sorted(counts)
    assert not answer.disagreements


def test_a_bracket_left_open_by_a_cut_does_not_swallow_the_code_after_it() -> None:
    """Code cut inside a call (``_, state_h = GRU(LATENT_DIM``), then prose, then another
    model's class: the class is read (its layers were lost inside the open bracket, and the
    answer was "nothing countable found"); the cut line keeps every total a bound."""
    torch = pytest.importorskip("torch")
    net = torch.nn.Sequential(torch.nn.Embedding(50, 3), torch.nn.LSTM(3, 3, bidirectional=True))
    text = ("x = Input(shape=(4,))\n_, state_h = GRU(LATENT_DIM\n\nand my torch port:\n\n"
            "import torch.nn as nn\n\nclass Net(nn.Module):\n    def __init__(self):\n"
            "        super().__init__()\n        self.embedding = nn.Embedding(50, 3)\n"
            "        self.rnn = nn.LSTM(3, 3, bidirectional=True)\n")
    (model,) = [m for m in read(text).models if m.name == "Net"]
    assert model.at_least == sum(p.numel() for p in net.parameters())
    assert "line 2 `_, state_h = GRU(LATENT_DIM` not read" in model.bound, model.bound


def test_functional_code_cut_above_an_input_it_uses_gives_a_bound() -> None:
    """Keras code cut at the top where the encoder was made: the decoder reads ``state_h`` and
    ``Model(...)`` names ``encoder_inputs``, neither made in the paste; the total is a bound,
    and both lines are named (the decoder's graph was counted whole)."""
    text = ("from keras.layers import Dense, Input, SimpleRNN\nfrom keras.models import Model\n"
            "decoder_inputs = Input(shape=(3, 4))\n"
            "decoded = SimpleRNN(2, return_sequences=True)(decoder_inputs, "
            "initial_state=[state_h])\n"
            "model = Model([encoder_inputs, decoder_inputs], Dense(1)(decoded))\n")
    (model,) = read(text).models
    assert model.total is None and model.at_least == 2 * (4 + 2 + 1) + 2 + 1
    assert "state_h is not made in the paste" in model.bound
    assert "encoder_inputs is not made in the paste" in model.bound


@pytest.mark.keras
def test_keras_model_is_not_a_class_of_the_paste_named_model() -> None:
    """Keras functional code (``keras.Model(...)``) beside a torch port whose class is named
    ``Model``: ``keras.Model`` is Keras' (it was taken for the paste's class, and the layers
    applied in its outputs were left out of a total claimed whole)."""
    keras = pytest.importorskip("keras")
    layers = keras.layers
    snippet = ("import keras\nfrom keras import layers\n\n"
               "inputs = layers.Input(shape=(4, 3))\n"
               "x = layers.GRU(2, return_sequences=True)(inputs)\n"
               "model = keras.Model(inputs, [layers.Dense(2)(x), layers.Dense(1)(x)])\n")
    truth = keras.Model(inputs := layers.Input(shape=(4, 3)), [
        layers.Dense(2)(x := layers.GRU(2, return_sequences=True)(inputs)),
        layers.Dense(1)(x)]).count_params()
    port = ("\nimport torch.nn as nn\n\nclass Model(nn.Module):\n    def __init__(self):\n"
            "        super().__init__()\n        self.rnn = nn.GRU(3, 2, batch_first=True)\n")
    answer = read(snippet + port)
    keras_model = next(m for m in answer.models if m.line == 6)
    assert keras_model.total == truth
