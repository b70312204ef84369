"""Hand-written convolutional, normalisation, pooling and reshaping layers: each model is
also written by hand in the real framework here, and the two must agree to the parameter
(and, in Keras, to every layer's output shape)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from paramcount.checking import read
from paramcount.checking.measure import from_layers
from tests.conftest import CLI

CONVLSTM = """\
[models.frames]
framework = "keras"
input = [40, 40, 1]
layers = [
  { kind = "convlstm", filters = 16, kernel = 3, padding = "same" },
  { kind = "batch_norm" },
  { kind = "convlstm", filters = 8, kernel = [3, 5], return_sequences = false },
  { kind = "batch_norm", scale = false },
  { kind = "conv2d", filters = 4, kernel = 3, strides = 2, activation = "relu" },
  { kind = "max_pool", size = 2, padding = "same" },
  { kind = "upsampling", size = [2, 3] },
  { kind = "flatten" },
  { kind = "dense", units = 32, activation = "linear" },
  { kind = "reshape", shape = [4, 4, 2] },
  { kind = "conv2d", filters = 2, kernel = 2, padding = "same", bias = false },
  { kind = "global_avg_pool" },
  { kind = "repeat_vector", n = 5 },
  { kind = "lstm", units = 24 },
  { kind = "time_distributed", units = 10 },
  { kind = "params", count = 7 },
]
"""


def keras_frames_model() -> object:
    """The same model, written directly in Keras."""
    import keras

    L = keras.layers
    inputs = keras.Input((None, 40, 40, 1))
    layers = [
        L.ConvLSTM2D(16, 3, padding="same", return_sequences=True), L.BatchNormalization(),
        L.ConvLSTM2D(8, (3, 5)), L.BatchNormalization(scale=False),
        L.Conv2D(4, 3, strides=2, activation="relu"), L.MaxPooling2D(2, padding="same"),
        L.UpSampling2D((2, 3)), L.Flatten(), L.Dense(32), L.Reshape((4, 4, 2)),
        L.Conv2D(2, 2, padding="same", use_bias=False), L.GlobalAveragePooling2D(),
        L.RepeatVector(5), L.LSTM(24, return_sequences=True), L.TimeDistributed(L.Dense(10)),
    ]
    x = inputs
    for layer in layers:
        x = layer(x)
    return keras.Model(inputs, x), layers


@pytest.mark.keras
def test_keras_frames_model_matches_keras(cli: CLI, tmp_path: Path) -> None:
    """Every layer's count and output shape equal Keras' own for the same model."""
    pytest.importorskip("keras")
    import keras

    path = tmp_path / "m.toml"
    path.write_text(CONVLSTM)
    (model,) = read(str(path)).models
    with keras.StatelessScope(initialize_variables=False):
        real, layers = keras_frames_model()
    rows = from_layers(model).rows
    for row, layer in zip(rows, layers, strict=False):
        shape = "(" + ", ".join(str(d) for d in layer.output.shape[1:]) + ")"
        if layer.output.shape[1:] and len(layer.output.shape) > 2 and not isinstance(
                layer, (keras.layers.LSTM, keras.layers.TimeDistributed,
                        keras.layers.RepeatVector)):
            assert row.output == shape, (row.name, row.type)
        assert row.params == layer.count_params(), (row.name, row.type)
    assert model.total == real.count_params() + 7
    assert rows[1].non_trainable == 32 and rows[3].non_trainable == 16
    result = cli("check", str(path), "--verify")
    assert result.code == 0 and "verified with Keras" in result.out


CNN = """\
[models.cnn]
input = [3, 32, 32]
layers = [
  { kind = "conv2d", out = 16, kernel = 3, padding = 1 },
  { kind = "batch_norm" },
  { kind = "relu" },
  { kind = "max_pool", size = 2 },
  { kind = "conv2d", out = 32, kernel = [3, 5], stride = 1, groups = 4, bias = false },
  { kind = "avg_pool", size = 2, strides = 1 },
  { kind = "upsampling", size = 2 },
  { kind = "conv2d", out = 8, kernel = 3, strides = 2, dilation = 2 },
  { kind = "flatten" },
  { kind = "batch_norm" },
  { kind = "linear", out = 10 },
]
"""


@pytest.mark.torch
def test_torch_cnn_matches_torch(cli: CLI, tmp_path: Path) -> None:
    """Counts and buffers equal torch's for the same model, and the flattened width is what a
    forward pass gives (the Linear after it accepts it)."""
    torch = pytest.importorskip("torch")
    from torch import nn

    path = tmp_path / "m.toml"
    path.write_text(CNN.replace("stride = 1, ", ""))
    (model,) = read(str(path)).models
    with torch.device("meta"):
        real = nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, (3, 5), groups=4, bias=False), nn.AvgPool2d(2, stride=1),
            nn.Upsample(scale_factor=2), nn.Conv2d(32, 8, 3, stride=2, dilation=2),
            nn.Flatten(), nn.BatchNorm1d(model.layers[8].output_width),
            nn.Linear(model.layers[8].output_width, 10))
        out = real(torch.empty(2, 3, 32, 32))
    assert out.shape == (2, 10)
    assert model.layers[8].output_width == 8 * 11 * 9
    assert model.total == sum(p.numel() for p in real.parameters())
    measured = from_layers(model)
    assert measured.buffers == sum(b.numel() for b in real.buffers())
    for layer, module in zip(model.layers, real, strict=True):
        assert layer.params == sum(p.numel() for p in module.parameters()), layer.description
    assert model.layers[4].description == "nn.Conv2d(16, 32, (3, 5), groups=4, bias=False)"
    result = cli("check", str(path), "--verify", "--json")
    assert result.code == 0
    assert json.loads(result.out)["models"][0]["verified_total"] == model.total


@pytest.mark.keras
def test_encoder_decoder_with_repeat_vector(cli: CLI, tmp_path: Path) -> None:
    """A Keras encoder–decoder: the encoder returns its last state, RepeatVector, a decoder."""
    pytest.importorskip("keras")
    path = tmp_path / "m.toml"
    path.write_text("""\
[models.seq2seq]
framework = "keras"
input = 12
layers = [
  { kind = "conv1d", filters = 32, kernel = 3, padding = "same" },
  { kind = "max_pool", size = 2 },
  { kind = "lstm", units = 64, return_sequences = false },
  { kind = "repeat_vector", n = 7 },
  { kind = "lstm", units = 64 },
  { kind = "time_distributed", units = 12 },
]
""")
    (model,) = read(str(path)).models
    assert [layer.params for layer in model.layers] == [
        32 * (3 * 12 + 1), 0, 4 * 64 * (32 + 64 + 1), 0, 4 * 64 * (64 + 64 + 1), 64 * 12 + 12]
    assert model.layers[4].options["return_sequences"] is True
    result = cli("check", str(path), "--verify")
    assert result.code == 0, result.out


@pytest.mark.parametrize(("framework", "input", "layers", "message"), [
    ("torch", "[1, 8, 8]", '{ kind = "convlstm", filters = 4, kernel = 3 }',
     "layers[0].kind: torch has no ConvLSTM layer"),
    ("torch", "8", '{ kind = "lstm", hidden = 4 }, { kind = "repeat_vector", n = 2 }',
     "layers[1].kind: repeat_vector is a Keras layer (RepeatVector)"),
    ("keras", "8", '{ kind = "lstm", units = 4, return_sequences = true }, '
     '{ kind = "repeat_vector", n = 2 }', "layers[1].kind: repeat_vector reads one vector per "
     "sample, but its input still has a time axis: set return_sequences = false on the layer "
     "before it"),
    ("keras", "8", '{ kind = "conv1d", filters = 4, kernel = 3 }, { kind = "flatten" }',
     "layers[1].kind: flatten needs every size known, but its input has a time axis of "
     "unknown length"),
    ("keras", "[4, 4, 2]", '{ kind = "reshape", shape = [3, 3] }',
     "layers[0].shape: (3, 3) holds 9 values, but its input holds 32"),
    ("keras", "[4, 4, 2]", '{ kind = "conv2d", filters = 3, kernel = 5 }',
     "layers[0].kernel: the kernel (5, 5) is larger than the frame (4, 4)"),
    ("keras", "8", '{ kind = "conv2d", filters = 3, kernel = 3 }',
     "layers[0].kind: a conv2d reads 2-D frames, but its input has no spatial axes (give the "
     "model input = [...], a sample's shape)"),
    ("torch", "[3, 8, 8]", '{ kind = "conv2d", out = 4, kernel = 3 }, { kind = "linear", '
     'out = 2 }', "layers[1].kind: a linear layer reads vectors, but its input still has "
     "frames (6, 6): add a flatten or a global pooling layer first"),
    ("torch", "[3, 8, 8]", '{ kind = "batch_norm", scale = false }',
     "layers[0].scale: torch's BatchNorm has both scale and bias"),
    ("onnx", "8", '{ kind = "linear", out = 2 }',
     "layers[0].kind: ONNX models here count recurrent layers (lstm, gru, rnn), stated counts"
     " and layers without parameters; a linear layer is not one"),
    ("torch", "8", '{ kind = "activation", function = "linear" }',
     "layers[0].function: linear (no activation) is a Keras spelling"),
], ids=["convlstm-torch", "repeat-torch", "repeat-after-sequence", "flatten-unknown",
        "reshape-size", "kernel-too-big", "conv-no-frame", "linear-on-frames", "bn-affine",
        "onnx-linear", "linear-torch"])
def test_frame_layer_errors(cli: CLI, tmp_path: Path, framework: str, input: str,
                            layers: str, message: str) -> None:
    """What a framework would refuse, or a shape that cannot be, is one located line."""
    path = tmp_path / "m.toml"
    path.write_text(f'[models.m]\nframework = "{framework}"\ninput = {input}\n'
                    f"layers = [{layers}]\n")
    result = cli("check", str(path))
    assert result.code == 2, result.out
    (line,) = result.err.splitlines()
    assert f": models.m.{message}" in line, line
