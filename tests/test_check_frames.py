"""Sequences of frames in check follow Keras' own shape rules: a time axis that is stated,
pooled per frame and flattened with every step, added by a reshape, and refused where Keras
refuses it, with Keras' reason."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from paramcount.checking import read
from paramcount.checking.measure import from_layers
from tests.conftest import CLI

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "convlstm.toml"


def _model(name: str) -> Any:
    """One model of the shipped ConvLSTM example, read by check."""
    (model,) = [m for m in read(str(EXAMPLE)).models if m.name == name]
    return model


def test_a_flatten_after_a_sequence_of_frames_counts_every_step() -> None:
    """The video classifier's Flatten reads 20 steps of 3×3×16 (2,880 values), not one frame's
    144, and its MaxPooling3D((1, 2, 2)) pools each frame and keeps the 20 steps."""
    rows = from_layers(_model("video-classifier")).rows
    assert [r.output for r in rows[:2]] == ["(20, 62, 62, 4)", "(20, 31, 31, 4)"]
    assert rows[-3].type == "MaxPooling3D((1, 2, 2), padding='same')"
    assert rows[-2].output == "2880" and rows[-1].params == 2_880 * 4 + 4


def test_a_reshape_adds_the_time_axis_a_convlstm_reads() -> None:
    """A reshape to [1, 150, 112, 64] after a conv2d is one step of 150×112 frames, which the
    ConvLSTM2D after it reads (it was refused as a 3-D frame)."""
    rows = from_layers(_model("super-resolution")).rows
    assert [r.type.split("(")[0] for r in rows] == [
        "Conv2D", "Reshape", "ConvLSTM2D", "ConvLSTM2D", "UpSampling2D", "Conv2D"]
    assert [r.output for r in rows[2:5]] == [
        "(1, 150, 112, 64)", "(150, 112, 64)", "(300, 224, 64)"]


def _video_classifier(keras: Any) -> tuple[Any, list[Any]]:
    """The video classifier, written directly in Keras."""
    L = keras.layers
    layers: list[Any] = []
    for filters in (4, 8, 14, 16):
        layers += [L.ConvLSTM2D(filters, 3, return_sequences=True),
                   L.MaxPooling3D((1, 2, 2), padding="same"), L.Dropout(0.2)]
    layers = [*layers[:-1], L.Flatten(), L.Dense(4, activation="softmax")]
    return keras.Input((20, 64, 64, 3)), layers


def _super_resolution(keras: Any) -> tuple[Any, list[Any]]:
    """The super-resolution model, written directly in Keras."""
    L = keras.layers
    return keras.Input((150, 112, 1)), [
        L.Conv2D(64, 3, padding="same", activation="relu"), L.Reshape((1, 150, 112, 64)),
        L.ConvLSTM2D(64, 3, padding="same", return_sequences=True),
        L.ConvLSTM2D(64, 3, padding="same", return_sequences=False),
        L.UpSampling2D(2), L.Conv2D(1, 3, padding="same"),
    ]


@pytest.mark.keras
@pytest.mark.parametrize(("name", "written"), [
    ("video-classifier", _video_classifier), ("super-resolution", _super_resolution),
], ids=["video-classifier", "super-resolution"])
def test_published_convlstm_models_match_keras(name: str, written: Any) -> None:
    """Each layer's count and output shape, and the total, equal Keras' own for the same model
    written in Keras."""
    keras = pytest.importorskip("keras")
    model = _model(name)
    with keras.StatelessScope(initialize_variables=False):
        x, layers = written(keras)
        inputs = x
        for layer in layers:
            x = layer(x)
        real = keras.Model(inputs, x)
    rows = from_layers(model).rows
    assert len(rows) == len(layers)
    for row, layer in zip(rows, layers, strict=True):
        shape = tuple(layer.output.shape[1:])
        expected = str(shape[0]) if len(shape) == 1 else "(" + ", ".join(map(str, shape)) + ")"
        assert (row.output, row.params) == (expected, layer.count_params()), row.name
    assert model.total == real.count_params() == model.total_expected


def _config(tmp_path: Path, input: str, layers: str) -> str:
    """A one-model Keras config, written to a file; its path."""
    path = tmp_path / "m.toml"
    path.write_text(f'framework = "keras"\n[models.m]\ninput = {input}\nlayers = [{layers}]\n')
    return str(path)


SEQUENCE = '{ kind = "convlstm", filters = 4, kernel = 3, return_sequences = true }'
REFUSED = [
    ("pool-2d-on-sequence", "[12, 12, 3]", f'{SEQUENCE}, {{ kind = "max_pool", size = 2 }}',
     "layers[1].size: a max_pool over a sequence of frames (None, 10, 10, 4) reads time too "
     "(MaxPooling3D): give one size per axis, time first, e.g. size = [1, 2, 2] for each "
     "frame; Keras refuses MaxPooling2D on a sequence of frames (expected ndim=4, found ndim=5)",
     lambda L: [L.ConvLSTM2D(4, 3, return_sequences=True), L.MaxPooling2D(2)]),
    ("pool-1d-on-sequence", "[12, 3]", f'{SEQUENCE}, {{ kind = "avg_pool" }}',
     "an avg_pool over a sequence of frames (None, 10, 4) reads time too (AveragePooling2D): "
     "give one size per axis, time first, e.g. size = [1, 2] for each frame; Keras refuses "
     "AveragePooling1D on a sequence of frames (expected ndim=3, found ndim=4)",
     lambda L: [L.ConvLSTM1D(4, 3, return_sequences=True), L.AveragePooling1D(2)]),
    ("upsampling-2d-on-sequence", "[12, 12, 3]", f'{SEQUENCE}, {{ kind = "upsampling" }}',
     "Keras refuses UpSampling2D on a sequence of frames (expected ndim=4, found ndim=5)",
     lambda L: [L.ConvLSTM2D(4, 3, return_sequences=True), L.UpSampling2D(2)]),
    ("conv2d-on-sequence", "[12, 12, 3]",
     f'{SEQUENCE}, {{ kind = "conv2d", filters = 2, kernel = 3 }}',
     "a sequence of frames, which Keras refuses (kernel shape must have the same length as "
     "input)",
     lambda L: [L.ConvLSTM2D(4, 3, return_sequences=True), L.Conv2D(2, 3)]),
    ("convlstm2d-on-one-frame", "[12, 12, 3]",
     '{ kind = "conv2d", filters = 2, kernel = 3 }, '
     '{ kind = "convlstm", rank = 2, filters = 4, kernel = 3 }',
     "layers[1].rank: a ConvLSTM2D reads a sequence of frames of 2 spatial axes, but its "
     "input is (10, 10, 2): Keras refuses it (expected ndim=5, found ndim=4)",
     lambda L: [L.Conv2D(2, 3), L.ConvLSTM2D(4, 3)]),
]


@pytest.mark.parametrize(("input", "layers", "message"), [r[1:4] for r in REFUSED],
                         ids=[r[0] for r in REFUSED])
def test_what_keras_refuses_check_refuses(cli: CLI, tmp_path: Path, input: str, layers: str,
                                          message: str) -> None:
    """A 2-D pooling, upsampling or convolution on a sequence of frames, or a ConvLSTM2D on
    one frame, is one located line with Keras' reason, without --verify."""
    result = cli("check", _config(tmp_path, input, layers))
    assert result.code == 2, result.out
    (line,) = result.err.splitlines()
    assert message in line, line


@pytest.mark.keras
@pytest.mark.parametrize(("input", "message", "build"), [(r[1], r[3], r[4]) for r in REFUSED],
                         ids=[r[0] for r in REFUSED])
def test_keras_refuses_them_for_the_reason_check_gives(input: str, message: str,
                                                       build: Any) -> None:
    """Keras itself refuses each of those models, for the reason check's line ends with."""
    keras = pytest.importorskip("keras")
    shape = tuple(int(n) for n in input.strip("[]").split(","))
    x = keras.Input((None, *shape) if isinstance(build(keras.layers)[0], (
        keras.layers.ConvLSTM1D, keras.layers.ConvLSTM2D)) else shape)
    with keras.StatelessScope(initialize_variables=False), pytest.raises(ValueError) as error:
        for layer in build(keras.layers):
            x = layer(x)
    reason = re.search(r"\(([^()]*)\)$", message)
    assert reason is not None and reason.group(1).lower() in str(error.value).lower()


def test_four_numbers_before_a_convlstm_ask_which_they_are(cli: CLI, tmp_path: Path) -> None:
    """input = [20, 64, 64, 3] before a convlstm is 20 frames of 64×64 or one 3-D frame:
    check names both and asks for rank, rather than picking ConvLSTM3D."""
    result = cli("check", _config(tmp_path, "[20, 64, 64, 3]", SEQUENCE))
    assert result.code == 2
    assert result.err.splitlines() == [
        f"Error: {tmp_path / 'm.toml'}:3:9: models.m.input: before a convlstm, input = [20, 64, "
        "64, 3] is 20 frames of 64×64 (ConvLSTM2D) or one frame of 20×64×64 (ConvLSTM3D): "
        "say which with rank = 2 or rank = 3 on the convlstm"]


@pytest.mark.parametrize(("input", "rank", "output"), [
    ("[20, 12, 12, 3]", 2, "(20, 10, 10, 4)"),
    ("[12, 12, 3]", 2, "(None, 10, 10, 4)"),
    ("[20, 12, 12, 3]", 3, "(None, 18, 10, 10, 4)"),
    ("[12, 3]", 1, "(None, 10, 4)"),
], ids=["time-stated", "one-frame", "3d-frame", "1d-frame"])
def test_rank_reads_the_input_as_keras_does(tmp_path: Path, input: str, rank: int,
                                            output: str) -> None:
    """With rank, the input is one frame (time unknown) or Keras' Input shape, time first."""
    layers = SEQUENCE.replace("{ kind", f"{{ rank = {rank}, kind")
    (model,) = read(_config(tmp_path, input, layers)).models
    assert from_layers(model).rows[0].output == output


def test_a_sequence_of_3d_frames_has_no_keras_pooling(cli: CLI, tmp_path: Path) -> None:
    """After a ConvLSTM3D's sequence a pooling would be 4-D, which Keras does not have."""
    path = _config(tmp_path, "[5, 8, 8, 8, 3]",
                   '{ kind = "convlstm", rank = 3, filters = 4, kernel = 3, return_sequences = '
                   'true }, { kind = "max_pool", size = [1, 2, 2, 2] }')
    result = cli("check", path)
    assert result.code == 2
    assert "Keras has no MaxPooling4D for a sequence of 3-D frames (5, 6, 6, 6, 4)" in result.err


@pytest.mark.parametrize(("rank", "message"), [
    ("4", "layers[1].rank: expected 1, 2 or 3 (ConvLSTM1D, 2D, 3D), got 4"),
    ('"2"', "layers[1].rank: expected 1, 2 or 3 (ConvLSTM1D, 2D, 3D), got string '2'"),
], ids=["four", "string"])
def test_a_rank_that_is_no_convlstm_is_refused(cli: CLI, tmp_path: Path, rank: str,
                                              message: str) -> None:
    """A convlstm's rank is 1, 2 or 3, wherever the layer is."""
    path = _config(tmp_path, "[12, 12, 3]",
                   f'{SEQUENCE}, {{ kind = "convlstm", rank = {rank}, filters = 2, kernel = 3 }}')
    result = cli("check", path)
    assert result.code == 2 and message in result.err, result.err
