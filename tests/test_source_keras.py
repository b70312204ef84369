"""The Keras file reader against models saved by real Keras, and against broken archives."""

from __future__ import annotations

import io
import json
import os
import random
import subprocess
import sys
import warnings
import zipfile
from pathlib import Path
from typing import Any

import pytest

from paramcount.engine import conventions
from paramcount.engine.spec import Cell, Framework, LayerSpec, MergeMode, Nonlinearity
from paramcount.errors import BackendUnavailable, ParamcountError
from paramcount.files import keras_file
from paramcount.record import replace
from tests.conftest import CLI, have

needs_h5py = pytest.mark.skipif(not have("h5py"), reason="needs h5py")

CLASSIFIER = {
    "lstm": LayerSpec(Cell.LSTM, 6, 5, framework=Framework.KERAS),
    "bidirectional": LayerSpec(Cell.GRU, 5, 4, bidirectional=True, framework=Framework.KERAS,
                               reset_after=False, merge_modes=(MergeMode.SUM,)),
    "bidirectional_1": LayerSpec(Cell.RNN, 4, 3, bidirectional=True, framework=Framework.KERAS,
                                 nonlinearity=Nonlinearity.RELU),
}
"""What the saved Sequential's recurrent layers are (their names in a fresh session)."""


def build_models() -> dict[str, Any]:
    """A Sequential classifier (Embedding, LSTM, Bidirectional GRU summed, BatchNormalization,
    Bidirectional SimpleRNN with relu, a frozen Dense), a functional model (ConvLSTM2D and
    Bidirectional GRU with reset_after=True, concatenated), and a functional model holding a
    Sequential (LSTM without bias, LayerNormalization), Conv1D, BatchNormalization without
    beta, MultiHeadAttention and GRU."""
    import keras
    from keras import layers

    keras.backend.clear_session()
    classifier = keras.Sequential([
        keras.Input((7,), dtype="int32"),
        layers.Embedding(20, 6),
        layers.LSTM(5, return_sequences=True),
        layers.Bidirectional(layers.GRU(4, reset_after=False, return_sequences=True),
                             merge_mode="sum"),
        layers.BatchNormalization(),
        layers.Bidirectional(layers.SimpleRNN(3, activation="relu")),
        layers.Dense(4, trainable=False),
        layers.Dense(2),
    ], name="classifier")
    frames = keras.Input((4, 6, 6, 2))
    sequence = keras.Input((5, 3))
    video = layers.Flatten()(layers.ConvLSTM2D(3, (3, 3))(frames))
    text = layers.Bidirectional(layers.GRU(4))(sequence)
    output = layers.Dense(1)(layers.Concatenate()([video, text]))
    functional = keras.Model([frames, sequence], output)
    inner = keras.Sequential([
        keras.Input((5, 8)),
        layers.LSTM(6, return_sequences=True, use_bias=False),
        layers.LayerNormalization(),
    ], name="inner")
    steps = keras.Input((5, 8))
    hidden = layers.BatchNormalization(center=False)(layers.Conv1D(4, 3)(inner(steps)))
    hidden = layers.MultiHeadAttention(2, 4)(hidden, hidden)
    nested = keras.Model(steps, layers.GRU(3, reset_after=False)(hidden))
    return {"classifier": classifier, "functional": functional, "nested": nested}


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Both models saved as .keras, legacy .h5 and .weights.h5, with their weights' paths as
    Keras named them when it built the model: what a legacy .h5 stores, and, without the
    Sequential's own name scope, what paramcount names the weights of .keras files."""
    pytest.importorskip("h5py")
    pytest.importorskip("tensorflow")
    keras = pytest.importorskip("keras")
    directory = tmp_path_factory.mktemp("keras")
    out: dict[str, Any] = {"dir": directory}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, model in build_models().items():
            model.save(directory / f"{name}.keras")
            model.save(directory / f"{name}.h5")
            model.save_weights(directory / f"{name}.weights.h5")
            out[name] = {
                "count": model.count_params(),
                "trainable": sum(int(w.numpy().size) for w in model.trainable_weights),
                "h5": [(w.path, tuple(w.shape)) for w in model.weights],
                "keras": [(w.path.removeprefix("classifier/"), tuple(w.shape))
                          for w in model.weights],
            }
            loaded = keras.models.load_model(directory / f"{name}.keras")
            out[name]["loaded"] = [tuple(w.shape) for w in loaded.weights]
        # Keras 2's weights-only HDF5 (its model.save_weights("x.h5")), by the writer Keras 3
        # keeps for it (which fails on the models above: Embedding, InputLayers).
        import h5py
        from keras.src.legacy.saving import legacy_h5_format

        layers = keras.layers
        small = keras.Sequential([
            keras.Input((5, 3)), layers.GRU(4, return_sequences=True),
            layers.BatchNormalization(), layers.Bidirectional(layers.LSTM(2)),
            layers.Dense(2, trainable=False)])
        with h5py.File(directory / "keras2.h5", "w") as h5:
            legacy_h5_format.save_weights_to_hdf5_group(h5, small)
        out["keras2"] = {"h5": [(w.path, tuple(w.shape)) for w in small.weights],
                         "count": small.count_params(),
                         "frozen": sum(int(w.numpy().size) for w in small.non_trainable_weights)}
    return out


@pytest.mark.keras
@needs_h5py
def test_files_list_what_keras_loads(saved: dict[str, Any]) -> None:
    """Every file (Keras 2's weights-only .h5 too) lists exactly the model's weights (names,
    shapes and order; a .weights.h5 in its own order), as many as Keras loads back, totalling
    count_params(), with the non-trainable ones (moving statistics, a frozen layer) marked."""
    for model in ("classifier", "functional", "nested"):
        expected = saved[model]
        for suffix, fmt in (("keras", "keras"), ("h5", "keras-h5"),
                            ("weights.h5", "keras-weights-h5")):
            listing = keras_file.read(saved["dir"] / f"{model}.{suffix}")
            assert listing.format == fmt
            assert listing.total == expected["count"], (model, suffix)
            trainable = sum(t.count for t in listing.tensors if t.trainable)
            got = [(t.name, t.shape) for t in listing.tensors]
            if suffix == "weights.h5":
                # Without a config only the moving statistics are known not to train.
                assert {t.name.rsplit("/", 1)[1] for t in listing.tensors if not t.trainable
                        } <= {"moving_mean", "moving_variance"}
                assert sorted(got) == sorted(expected["keras"])
                assert listing.config is None and listing.recognised == ()
            else:
                assert trainable == expected["trainable"], (model, suffix)
                if (model, suffix) == ("nested", "keras"):
                    # MultiHeadAttention's inner layers are saved by attribute name, in
                    # alphabetical order, not in the order Keras creates them.
                    assert sorted(got) == sorted(expected[suffix])
                else:
                    assert got == expected[suffix], (model, suffix)
                assert listing.config is not None
            assert sorted(shape for _, shape in got) == sorted(expected["loaded"])
            assert {t.dtype for t in listing.tensors} == {"float32"}
    expected = saved["keras2"]
    legacy = keras_file.read(saved["dir"] / "keras2.h5")
    assert [(t.name, t.shape) for t in legacy.tensors] == expected["h5"]
    assert (legacy.format, legacy.total, legacy.config) == ("keras-h5", expected["count"], None)
    # Without a config the frozen Dense is not known; the moving statistics are.
    assert sum(t.count for t in legacy.tensors if not t.trainable) == 8
    assert expected["frozen"] == 8 + 4 * 2 + 2  # and the Dense(2) on 4 features
    listing = keras_file.read(saved["dir"] / "classifier.keras")
    frozen = {t.name for t in listing.tensors if not t.trainable}
    assert frozen == {"batch_normalization/moving_mean", "batch_normalization/moving_variance",
                      "dense/kernel", "dense/bias"}


@pytest.mark.keras
@needs_h5py
def test_config_recognises_recurrent_layers(saved: dict[str, Any]) -> None:
    """The config names every recurrent layer's class, units, reset_after, merge mode and
    activation; the engine writes exactly the shapes the file holds for each, and recognition
    by names and shapes alone groups the same tensors into the same layers."""
    for suffix in ("keras", "h5"):
        listing = keras_file.read(saved["dir"] / f"classifier.{suffix}")
        shapes = {t.name: t.shape for t in listing.tensors}
        found = {r.prefix.removeprefix("classifier/").rstrip("/"): r
                 for r in listing.recognised}
        assert {p: r.spec for p, r in found.items()} == CLASSIFIER
        for recognised in found.values():
            engine = [t.shape for t in conventions.tensors(recognised.spec)]
            assert [shapes[n] for n in recognised.names] == engine
        assert found["lstm"].notes == ("return_sequences=True",)
        by_names = conventions.recognise(shapes, [Framework.KERAS])
        assert {r.prefix: r.names for r in by_names} == {
            r.prefix: r.names for r in listing.recognised}
        functional = keras_file.read(saved["dir"] / f"functional.{suffix}")
        (gru,) = functional.recognised
        assert gru.spec == LayerSpec(Cell.GRU, 3, 4, bidirectional=True, reset_after=True,
                                     framework=Framework.KERAS)
        assert any(n.startswith("conv_lstm2d: ConvLSTM2D(3, kernel_size=(3, 3)) on 2 channels, "
                                "552 parameters, as `paramcount convlstm --rank 2 -C 2 -F 3 "
                                "-k 3x3` counts") for n in functional.notes)


@pytest.mark.keras
@needs_h5py
def test_compressed_archives_read_alike(saved: dict[str, Any], tmp_path: Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """The same archive re-zipped with deflate lists the same tensors, whether the weights
    member is decompressed into memory or, when large, into a temporary file that is removed
    (read_here: the reading itself, which read runs in a child process)."""
    original = saved["dir"] / "classifier.keras"
    deflated = tmp_path / "deflated.keras"
    with zipfile.ZipFile(original) as source, zipfile.ZipFile(
            deflated, "w", zipfile.ZIP_DEFLATED) as target:
        for info in source.infolist():
            target.writestr(info.filename, source.read(info))
    expected = replace(keras_file.read(original), source=str(deflated))
    assert keras_file.read(deflated) == expected
    assert keras_file.read_here(str(deflated)) == expected
    monkeypatch.setattr(keras_file, "IN_MEMORY", 0)
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    assert keras_file.read_here(str(deflated)) == expected
    assert sorted(p.name for p in tmp_path.iterdir()) == ["deflated.keras"]


@pytest.mark.keras
@needs_h5py
def test_reading_imports_no_framework(saved: dict[str, Any]) -> None:
    """Reading a .keras file imports neither keras nor tensorflow (nothing is deserialized)."""
    probe = (
        "import sys\nfrom paramcount.files import keras_file\n"
        f"keras_file.read({str(saved['dir'] / 'classifier.keras')!r})\n"
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'keras', 'tensorflow', 'torch'}))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True, env={**os.environ, "PYTHONPATH": os.getcwd()})
    assert out.stdout.strip() == "[]"


# --- hostile and broken files ---------------------------------------------------------------


def archive(members: dict[str, bytes], compression: int = zipfile.ZIP_STORED) -> bytes:
    """A zip holding ``members``."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression) as out:
        for name, data in members.items():
            out.writestr(name, data)
    return buffer.getvalue()


CONFIG = json.dumps({"class_name": "Sequential", "config": {"name": "m", "layers": []}}).encode()
HDF5_NOISE = b"\x89HDF\r\n\x1a\n" + random.Random(7).randbytes(4000)

BROKEN = {
    "empty": (b"", "not a Keras file: empty file"),
    "random": (random.Random(1).randbytes(3000), "neither a zip archive"),
    "zip-bomb": (archive({"config.json": CONFIG, "model.weights.h5": bytes(8 * 2**20)},
                         zipfile.ZIP_DEFLATED), "refused as a zip bomb"),
    "config-bomb": (archive({"config.json": b" " * (4 * 2**20)}, zipfile.ZIP_DEFLATED),
                    "config.json declares 4,194,304 bytes compressed into"),
    "config-not-json": (archive({"config.json": b"{not json", "model.weights.h5": b""}),
                        "config.json is not valid JSON"),
    "config-not-object": (archive({"config.json": b"[1, 2]"}), "not a Keras model config"),
    "no-config": (archive({"model.weights.h5": b""}), "it has no config.json"),
    "no-weights": (archive({"config.json": CONFIG, "metadata.json": b"{}"}),
                   "the archive has no model.weights.h5"),
    "npz-weights": (archive({"config.json": CONFIG, "model.weights.npz": b""}),
                    "model.weights.npz, which paramcount does not read"),
    "truncated-zip": (archive({"config.json": CONFIG, "model.weights.h5": b"x" * 5000})[:4000],
                      "not a valid .keras archive"),
}
BROKEN_H5 = {
    "h5-noise": (HDF5_NOISE, "not a readable Keras HDF5 file"),
    "weights-noise": (archive({"config.json": CONFIG, "model.weights.h5": HDF5_NOISE}),
                      "not a readable Keras HDF5 file"),
}


@pytest.mark.parametrize(("data", "words"), [*BROKEN.values(), *BROKEN_H5.values()],
                         ids=[*BROKEN, *BROKEN_H5])
def test_broken_files_are_refused_in_one_line(tmp_path: Path, data: bytes, words: str) -> None:
    """Each broken file raises ParamcountError (exit 2): one line naming the file and why."""
    if words.startswith("not a readable Keras HDF5") and not have("h5py"):
        pytest.skip("needs h5py")
    path = tmp_path / "model.keras"
    path.write_bytes(data)
    with pytest.raises(ParamcountError) as error:
        keras_file.read(path)
    message = str(error.value)
    assert message.startswith(f"{path}: ") and "\n" not in message
    assert words in message and error.value.exit_code == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.keras"]


@needs_h5py
def test_hdf5_without_keras_weights(tmp_path: Path) -> None:
    """An HDF5 file that is not a Keras file is named as such."""
    import h5py

    path = tmp_path / "other.h5"
    with h5py.File(path, "w") as out:
        out.create_dataset("data", shape=(3,), dtype="f4")
    with pytest.raises(ParamcountError, match="an HDF5 file without Keras weights"):
        keras_file.read(path)


@pytest.mark.parametrize("kind", ["missing", "directory", "fifo"])
def test_unreadable_paths(tmp_path: Path, kind: str) -> None:
    """A missing path, a directory and a named pipe (which would block a reader) are refused
    with one line naming them."""
    path = tmp_path / "absent.keras" if kind == "missing" else tmp_path
    if kind == "fifo":
        if not hasattr(os, "mkfifo"):
            pytest.skip("no named pipes here")
        path = tmp_path / "pipe.keras"
        os.mkfifo(path)
    with pytest.raises(ParamcountError,
                       match=rf"^{path}: (cannot read|is a directory|not a regular file)"):
        keras_file.read(path)


def test_without_h5py_the_fix_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without h5py, an HDF5 file is refused with exit 3 and the install command."""
    monkeypatch.setitem(sys.modules, "h5py", None)
    path = tmp_path / "model.h5"
    path.write_bytes(HDF5_NOISE)
    with pytest.raises(BackendUnavailable) as error:
        keras_file.read(path)
    assert error.value.exit_code == 3
    assert "pip install 'paramcount[h5]'" in str(error.value)


def hanging_hdf5(path: Path) -> None:
    """A legacy-Keras-shaped HDF5 file, written by h5py, whose global heap (where variable-length
    strings such as ``layer_names`` live) declares a larger size than it has (one flipped byte,
    as a fuzzer found in a real Keras .h5): reading the attribute makes the HDF5 library loop
    for ever."""
    import h5py
    import numpy as np

    with h5py.File(path, "w") as out:
        group = out.create_group("model_weights")
        group.attrs["layer_names"] = ["lstm", "dense"]
        out.create_dataset("padding", data=np.zeros(100_000, "u1"))
    data = bytearray(path.read_bytes())
    heap = data.index(b"GCOL")
    data[heap + 8: heap + 16] = (0xDE00).to_bytes(8, "little")
    path.write_bytes(bytes(data))


@needs_h5py
def test_a_hanging_hdf5_file_is_stopped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A damaged HDF5 file that hangs the HDF5 library is stopped after TIMEOUT seconds and
    refused in one line (the read runs in a child process)."""
    path = tmp_path / "hang.h5"
    hanging_hdf5(path)
    monkeypatch.setattr(keras_file, "TIMEOUT", 3.0)
    with pytest.raises(ParamcountError, match=r"took over 3 s and was stopped") as error:
        keras_file.read(path)
    assert str(error.value).startswith(f"{path}: ") and error.value.exit_code == 2


@needs_h5py
def test_a_crashing_reader_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A child process killed by a signal (as a crash in the HDF5 library would) gives one
    line, exit 2."""
    path = tmp_path / "model.h5"
    path.write_bytes(HDF5_NOISE)
    monkeypatch.setattr(keras_file, "_CHILD", "import os, signal; os.kill(os.getpid(), "
                                              "signal.SIGSEGV)")
    with pytest.raises(ParamcountError, match=r"crashed reading it \(signal 11\)"):
        keras_file.read(path)


def test_the_command_refuses_a_zip_bomb_in_one_line(cli: CLI, tmp_path: Path) -> None:
    """``paramcount inspect`` on a zip bomb named .keras exits 2 with one ``Error:`` line."""
    path = tmp_path / "bomb.keras"
    path.write_bytes(BROKEN["zip-bomb"][0])
    result = cli("inspect", str(path))
    assert result.code == 2 and result.out == ""
    assert result.err.startswith(f"Error: {path}: model.weights.h5 declares 8,388,608 bytes")
    assert result.err.count("\n") == 1


@pytest.fixture(scope="module")
def keras2_gru(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int]:
    """A legacy .h5 saved by tf_keras (Keras 2) holding GRU(8, reset_after=False) and
    GRU(8, reset_after=True), and Keras' own count_params()."""
    tf_keras = pytest.importorskip("tf_keras")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = tf_keras.Sequential([
            tf_keras.layers.InputLayer((5, 4)),
            tf_keras.layers.GRU(8, reset_after=False, return_sequences=True, name="old"),
            tf_keras.layers.GRU(8, reset_after=True, name="new"),
            tf_keras.layers.Dense(2),
        ])
        path = tmp_path_factory.mktemp("keras2") / "gru.h5"
        model.save(path)
    return path, int(model.count_params())


def _rewritten(source: Path, target: Path, change: dict[str, Any]) -> Path:
    """A copy of ``source`` whose model_config gives each named layer's reset_after as
    ``change`` says (None: no reset_after at all, as Keras 2.0.6 wrote it), by h5py."""
    import shutil

    import h5py

    shutil.copy(source, target)
    with h5py.File(target, "r+") as h5:
        config = json.loads(h5.attrs["model_config"])
        for layer in config["config"]["layers"]:
            if layer["config"].get("name") in change:
                value = change[layer["config"]["name"]]
                if value is None:
                    layer["config"].pop("reset_after", None)
                else:
                    layer["config"]["reset_after"] = value
        h5.attrs["model_config"] = json.dumps(config)
    return target


@pytest.mark.keras
@pytest.mark.parametrize(("change", "words"), [
    ({}, None),
    ({"old": None, "new": None}, "has no reset_after (saved by Keras 2.0"),
    ({"old": True, "new": False}, "the weights win"),
], ids=["as-saved", "keras-2.0-config", "config-contradicts-weights"])
def test_gru_reset_after_is_what_the_bias_says(keras2_gru: tuple[Path, int], tmp_path: Path,
                                               change: dict[str, Any],
                                               words: str | None) -> None:
    """A GRU bias of (3H,) is reset_after=False, (2, 3H) True, whatever the config says or
    leaves out; the layers' counts add up to Keras' count_params()."""
    source, keras_count = keras2_gru
    listing = keras_file.read(_rewritten(source, tmp_path / "gru.h5", change))
    found = {r.prefix.rstrip("/"): r for r in listing.recognised}
    assert found["old"].spec.reset_after is False and found["new"].spec.reset_after is True
    assert conventions.total(found["old"].spec) == 3 * 8 * (4 + 8 + 1)
    assert listing.total == keras_count
    notes = [n for r in found.values() for n in r.notes if "reset_after" in n]
    assert len(notes) == (0 if words is None else 2)
    assert all(words in n for n in notes)
