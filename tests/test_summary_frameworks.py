"""``paramcount.summary(model)`` on Keras and Flax models whose structure is not the usual one
(issue 38): a Bidirectional whose backward layer is another layer, a ConvLSTM, an NNX
Bidirectional whose two RNNs share one cell: each as it is, every note true of the model."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from typing import Any

import pytest

import paramcount
from paramcount.engine.spec import Cell, Framework, LayerSpec
from tests.conftest import have
from tests.printers import quiet_tensorflow

keras_only = pytest.mark.skipif(
    not (have("keras") and have("tensorflow") and have("tf_keras")),
    reason="needs keras 3, tensorflow and tf-keras")


@pytest.fixture(scope="module")
def eras() -> Iterator[dict[int, Any]]:
    """Keras 3 and Keras 2 (tf-keras), imported once, quietly."""
    quiet_tensorflow()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        import keras
        import tf_keras
    yield {3: keras, 2: tf_keras}


@keras_only
@pytest.mark.parametrize("era", [3, 2], ids=["keras3", "tf-keras"])
def test_bidirectional_with_another_backward_layer(eras: dict[int, Any], era: int) -> None:
    """``Bidirectional(LSTM(6), backward_layer=GRU(6))``: each direction as it is (264 and
    216, together count_params()' 480), never "2 × 264 = 528: exact"."""
    keras = eras[era]
    inputs = keras.Input((5, 4))
    wrapper = keras.layers.Bidirectional(
        keras.layers.LSTM(6), backward_layer=keras.layers.GRU(6, go_backwards=True))
    model = keras.Model(inputs, wrapper(inputs))
    result = paramcount.summary(model)
    assert result.total == model.count_params() == 480
    specs = [(layer.spec, layer.params, layer.match) for layer in result.recurrent]
    assert specs == [(LayerSpec(Cell.LSTM, 4, 6, framework=Framework.KERAS), 264, True),
                     (LayerSpec(Cell.GRU, 4, 6, framework=Framework.KERAS), 216, True)]
    text = repr(result)
    assert "528" not in text and "Bidirectional(LSTM(6))" not in text
    assert "backward layer is a GRU and forward one a LSTM" in text


@keras_only
def test_convlstm_notes_agree(eras: dict[int, Any]) -> None:
    """A ConvLSTM is described in one note and contradicted by none."""
    keras = eras[3]
    inputs = keras.Input((3, 8, 8, 2))
    model = keras.Model(inputs, keras.layers.ConvLSTM2D(4, 3)(inputs))
    result = paramcount.summary(model)
    assert result.total == model.count_params() == 880
    [note] = result.notes
    assert "ConvLSTM2D(4, kernel_size=(3, 3)) on 2 channels, 880 parameters" in note


@pytest.mark.skipif(not (have("jax") and have("flax")), reason="needs jax and flax")
def test_nnx_bidirectional_sharing_one_cell() -> None:
    """An NNX Bidirectional whose two RNNs share one GRUCell: recognised, counted once (as
    NNX's own state holds it), and said."""
    import jax
    from flax import nnx

    rngs = nnx.Rngs(0)
    cell = nnx.GRUCell(4, 6, rngs=rngs)
    model = nnx.Bidirectional(nnx.RNN(cell), nnx.RNN(cell, reverse=True, keep_order=True))
    truth = sum(x.size for x in jax.tree.leaves(nnx.state(model, nnx.Param)))
    result = paramcount.summary(model)
    assert result.total == truth == 198
    [layer] = result.recurrent
    assert layer.spec == LayerSpec(Cell.GRU, 4, 6, framework=Framework.FLAX_NNX)
    assert layer.params == 198 and layer.match
    assert any("one GRUCell shared by both directions" in n for n in layer.notes)
