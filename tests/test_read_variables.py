"""``paramcount read`` on printed variables: ``print(v)`` for each of a model's weights, as posts
show them. TensorFlow 1.x's ``<tf.Variable 'rnn/lstm_cell/kernel:0' shape=(26, 64)
dtype=float32>`` (a ``tf.trainable_variables()`` loop, made here by TensorFlow's own graph mode
through tf-keras), TF 2's eager ``<tf.Variable ... numpy=array(...`` whose values run on over
the next lines (tf-keras), and Keras 3's ``<Variable path=..., shape=..., value=[[...`` — each
printed by the real framework for random models and read back: every recurrent layer exact,
the total the framework's own.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from paramcount.engine.spec import Cell, MergeMode
from paramcount.reading.pipeline import read
from tests.conftest import have
from tests.printers import KerasPlan, Paste, Score, check, keras_built, keras_plans

pytestmark = [pytest.mark.keras,
              pytest.mark.skipif(not (have("keras") and have("tensorflow") and have("tf_keras")),
                                 reason="needs keras 3, tensorflow and tf-keras")]

_TF1 = r"""
import json, os, sys
os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
import tensorflow as tf
tf.compat.v1.disable_eager_execution()
rnn_cell = tf.compat.v1.nn.rnn_cell
out = []
for kind, width, hidden, layers, bidirectional in json.loads(sys.argv[1]):
    with tf.Graph().as_default():
        x = tf.compat.v1.placeholder(tf.float32, (None, 5, width))
        make = {"lstm": rnn_cell.LSTMCell, "gru": rnn_cell.GRUCell, "rnn": rnn_cell.BasicRNNCell}
        def cell():
            cells = [make[kind](hidden) for _ in range(layers)]
            return cells[0] if layers == 1 else rnn_cell.MultiRNNCell(cells)
        if bidirectional:
            tf.compat.v1.nn.bidirectional_dynamic_rnn(cell(), cell(), x, dtype=tf.float32)
        else:
            tf.compat.v1.nn.dynamic_rnn(cell(), x, dtype=tf.float32)
        variables = tf.compat.v1.trainable_variables()
        out.append({"text": "\n".join(repr(v) for v in variables),
                    "total": int(sum(v.shape.num_elements() for v in variables))})
print(json.dumps(out))
"""


def test_tensorflow1_graph_variables_are_read() -> None:
    """Random ``dynamic_rnn`` / ``bidirectional_dynamic_rnn`` graphs of LSTM, GRU and basic RNN
    cells (stacked in a ``MultiRNNCell`` or alone), their ``tf.trainable_variables()`` printed
    by TensorFlow 1.x's graph mode: the total TensorFlow's own, each one-direction stack read as
    the configuration built."""
    rng = random.Random(29)
    cases = [(rng.choice(["lstm", "gru", "rnn"]), rng.randint(1, 12), rng.randint(1, 12),
              rng.randint(1, 3), rng.random() < 0.4) for _ in range(12)]
    made = subprocess.run([sys.executable, "-c", _TF1, json.dumps(cases)], capture_output=True,
                          text=True, timeout=300, check=True,
                          env={**os.environ, "TF_USE_LEGACY_KERAS": "1"})
    for (kind, width, hidden, layers, bidirectional), printed in zip(
            cases, json.loads(made.stdout.strip().splitlines()[-1]), strict=True):
        answer = read(printed["text"])
        (model,) = answer.models
        assert model.total == printed["total"], printed["text"]
        assert model.accounting.whole and not answer.disagreements
        if not bidirectional:
            (layer,) = model.layers
            assert layer.spec is not None
            assert (layer.spec.cell, layer.spec.input_size, layer.spec.hidden_size,
                    layer.spec.num_layers) == (Cell(kind), width, hidden, layers), printed["text"]


@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
@given(plan=keras_plans(), era=st.sampled_from([2, 3]))
def test_keras_weights_printed_one_by_one_are_read(eras: dict[int, Any], plan: KerasPlan,
                                                   era: int) -> None:
    """``for w in model.weights: print(w)`` of random Keras models: Keras 3's ``<Variable
    path=...`` and tf-keras' eager ``<tf.Variable ... numpy=`` with their values over many
    lines; every recurrent layer exact or honestly ambiguous, the total ``count_params()``."""
    built = keras_built(eras[era], plan)
    if built is None:
        return  # tf-keras' Sequential refuses a layer with two outputs
    model, truth = built
    text = "\n".join(repr(weight) for weight in model.weights) + "\n"
    assert ("<tf.Variable '" if era == 2 else "<Variable path=") in text
    # a Bidirectional's merge_mode is not in its weights: the reading says so, and shows the
    # default (every mode holds the same tensors)
    shown = tuple(spec.replace(merge_modes=(MergeMode.CONCAT,)) if spec.merge_modes else spec
                  for spec in truth.specs)
    score = Score()
    answer = check(Paste(f"keras{era} weights", text, replace(truth, specs=shown)), score)
    assert not score.wrong, score.wrong[0]
    if shown != truth.specs:
        assert any("merge_mode is not stored in the weights" in note
                   for _, layer in answer.recurrent for note in layer.notes)


def test_a_variable_cut_in_its_values_is_counted_and_the_dump_a_crop(
        eras: dict[int, Any]) -> None:
    """tf-keras' eager variables printed with their values, the last cut before its closing
    ``>``: its shape, printed whole on its first line, is counted, and the dump is named cut
    off."""
    layer = eras[2].layers.LSTM(16)
    layer.build((None, 5, 3))
    text = "\n".join(repr(weight) for weight in layer.weights[:2])
    cut = text[:text.rindex("\n")]  # the recurrent kernel's values, cut before their ``>``
    (model,) = read(cut).models
    assert model.total is None and model.at_least == 3 * 64 + 16 * 64
    assert "no closing `>`" in model.bound
