"""Tensors named and shaped by the real frameworks are recognised as the layers that made them."""

from __future__ import annotations

from typing import Any

import pytest

from paramcount.engine.conventions import recognise
from paramcount.engine.spec import Cell, Framework, LayerSpec

_TORCH_CELLS = {"LSTM": Cell.LSTM, "GRU": Cell.GRU, "RNN_TANH": Cell.RNN, "RNN_RELU": Cell.RNN}


def torch_spec(module: Any) -> LayerSpec:
    """The LayerSpec of a torch recurrent module, read from its own attributes."""
    import torch.nn as nn

    if isinstance(module, nn.RNNBase):
        return LayerSpec(
            _TORCH_CELLS[module.mode], module.input_size, module.hidden_size,
            num_layers=module.num_layers, bidirectional=module.bidirectional,
            bias=module.bias, proj_size=module.proj_size,
        )
    cell = {nn.LSTMCell: Cell.LSTM, nn.GRUCell: Cell.GRU, nn.RNNCell: Cell.RNN}[type(module)]
    return LayerSpec(cell, module.input_size, module.hidden_size, bias=module.bias,
                     single_cell=True)


@pytest.mark.torch
def test_a_torch_state_dict_gives_back_every_recurrent_module() -> None:
    """nn.LSTM/GRU/RNN (stacked, bidirectional, projected, bias-free) and cells inside a model."""
    torch = pytest.importorskip("torch")
    nn = torch.nn

    class Net(nn.Module):
        """A model with an embedding, nested and top-level recurrent layers, cells and a head."""

        def __init__(self) -> None:
            super().__init__()
            self.embed = nn.Embedding(50, 8)
            self.encoder = nn.Module()
            self.encoder.rnn = nn.LSTM(8, 16, num_layers=2, bidirectional=True)
            self.proj = nn.LSTM(32, 12, proj_size=5, num_layers=2, batch_first=True)
            self.gru = nn.GRU(5, 7, bias=False, bidirectional=True)
            self.relu = nn.RNN(14, 3, nonlinearity="relu", num_layers=3)
            self.cell = nn.LSTMCell(3, 4)
            self.gru_cell = nn.GRUCell(4, 2, bias=False)
            self.rnn_cell = nn.RNNCell(2, 2)
            self.head = nn.Linear(2, 10)

    net = Net()
    recurrent = [(name, m) for name, m in net.named_modules()
                 if isinstance(m, (nn.RNNBase, nn.RNNCellBase))]
    for model, prefix in ((net, ""), (nn.DataParallel(net), "module.")):
        shapes = {k: tuple(v.shape) for k, v in model.state_dict().items()}
        found = recognise(shapes)
        assert [(r.prefix, r.spec) for r in found] == [
            (f"{prefix}{name}.", torch_spec(m)) for name, m in recurrent
        ]
        claimed = {n for r in found for n in r.names}
        assert set(shapes) - claimed == {f"{prefix}embed.weight", f"{prefix}head.weight",
                                         f"{prefix}head.bias"}
        relu = next(r for r in found if r.prefix.endswith("relu."))
        assert any("tanh or relu" in note for note in relu.notes)


def keras_spec(layer: Any) -> LayerSpec:
    """The LayerSpec of one Keras recurrent layer (num_layers=1), read from its config."""
    import keras

    inner = layer.forward_layer if isinstance(layer, keras.layers.Bidirectional) else layer
    cell = {"SimpleRNN": Cell.RNN, "LSTM": Cell.LSTM, "GRU": Cell.GRU}[type(inner).__name__]
    return LayerSpec(
        cell, int(layer.input.shape[-1]), inner.units,
        bidirectional=inner is not layer, bias=inner.use_bias, framework=Framework.KERAS,
        reset_after=inner.reset_after if cell is Cell.GRU and inner.use_bias else None,
    )


@pytest.mark.keras
def test_keras_weight_paths_give_back_every_recurrent_layer() -> None:
    """Bidirectional, GRU reset_after True/False, SimpleRNN, bare cell, RNN(cell), stacked cells."""
    keras = pytest.importorskip("keras")
    layers = keras.layers
    model = keras.Sequential([
        keras.Input((5, 3)),
        layers.Dense(3),
        layers.Bidirectional(layers.LSTM(4, return_sequences=True)),
        layers.GRU(6, reset_after=False, return_sequences=True),
        layers.GRU(5, return_sequences=True),
        layers.GRU(5, use_bias=False, return_sequences=True),
        layers.Bidirectional(layers.GRU(3, return_sequences=True), merge_mode="sum"),
        layers.SimpleRNN(2),
        layers.Dense(2),
    ])
    shapes = {w.path: tuple(int(n) for n in w.shape) for w in model.weights}
    found = recognise(shapes)
    recurrent = [layer for layer in model.layers if type(layer).__name__ != "Dense"]
    assert [(r.prefix, r.spec) for r in found] == [
        (f"{model.name}/{layer.name}/", keras_spec(layer)) for layer in recurrent
    ]
    assert sum(len(r.names) for r in found) == sum(len(layer.weights) for layer in recurrent)

    cell = layers.LSTMCell(4)
    cell.build((None, 3))
    wrapped = layers.RNN(layers.GRUCell(4, reset_after=False))
    wrapped.build((None, 5, 3))
    stacked = layers.RNN(layers.StackedRNNCells([layers.LSTMCell(4), layers.SimpleRNNCell(2)]))
    stacked.build((None, 5, 3))
    weights = [*cell.weights, *wrapped.weights, *stacked.weights]
    shapes = {w.path: tuple(int(n) for n in w.shape) for w in weights}
    assert [(r.prefix, r.spec) for r in recognise(shapes)] == [
        ("", LayerSpec(Cell.LSTM, 3, 4, framework=Framework.KERAS, single_cell=True)),
        ("rnn/", LayerSpec(Cell.GRU, 3, 4, framework=Framework.KERAS, reset_after=False)),
        (f"{stacked.name}/{stacked.cell.name}/{stacked.cell.cells[0].name}/",
         LayerSpec(Cell.LSTM, 3, 4, framework=Framework.KERAS)),
        (f"{stacked.name}/{stacked.cell.name}/{stacked.cell.cells[1].name}/",
         LayerSpec(Cell.RNN, 4, 2, framework=Framework.KERAS)),
    ]


FLAX_SPECS = [
    LayerSpec(Cell.LSTM, 3, 4, num_layers=2, bidirectional=True),
    LayerSpec(Cell.GRU, 5, 2, num_layers=3),
    LayerSpec(Cell.RNN, 3, 4, bidirectional=True),
    LayerSpec(Cell.GRU, 3, 4, single_cell=True),
    LayerSpec(Cell.LSTM, 3, 2, single_cell=True),
]


@pytest.mark.flax
@pytest.mark.parametrize("framework", [Framework.FLAX_LINEN, Framework.FLAX_NNX],
                         ids=["linen", "nnx"])
def test_flax_parameter_trees_give_back_the_stack(framework: Framework) -> None:
    """Real linen and NNX trees (stacks, Bidirectional, bare cells, OptimizedLSTMCell)."""
    pytest.importorskip("flax")
    from paramcount.verify import flax_backend

    build = flax_backend.linen_tensors if framework is Framework.FLAX_LINEN else \
        flax_backend.nnx_tensors
    root = "params/" if framework is Framework.FLAX_LINEN else ""
    for spec in FLAX_SPECS:
        spec = spec.replace(framework=framework)
        for optimized in (False, True) if spec.cell is Cell.LSTM else (False,):
            found = recognise(dict(build(spec, optimized=optimized)))
            assert [(r.prefix, r.spec) for r in found] == [(root, spec)], (spec, optimized)
