"""What a port holds in memory while writing: one array at a time into a Keras model, and the
pages of a memory-mapped checkpoint only (``benchmarks/port_memory.py`` measures the peaks)."""

from __future__ import annotations

import json
import weakref
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from paramcount.engine.spec import Framework
from paramcount.porting.load import open_source
from paramcount.porting.plan import TargetOptions
from paramcount.porting.run import SourceOptions, _arrays, _in_file_order, plans_of, units_of
from tests.conftest import CLI, have

np = pytest.importorskip("numpy")
torch = pytest.importorskip("torch")

pytestmark = pytest.mark.torch


def _one_at_a_time(pairs: Any, kept: list[str]) -> Iterator[tuple[str, Any]]:
    """``pairs`` passed on, noting in ``kept`` each array still alive two arrays later (the
    consumer's loop variable holds the last one while it asks for the next)."""
    alive: list[tuple[str, Any]] = []
    for name, array in pairs:
        if len(alive) == 2:
            old_name, old = alive.pop(0)
            if old() is not None:
                kept.append(old_name)
        alive.append((name, weakref.ref(array)))
        yield name, array


@pytest.fixture
def layers(tmp_path: Path) -> tuple[Any, Any]:
    """The planned layers of a torch checkpoint (Linear, LSTM, Linear), and their arrays."""
    torch.manual_seed(0)
    model = torch.nn.ModuleDict({"inp": torch.nn.Linear(4, 6), "rnn": torch.nn.LSTM(6, 5),
                                 "out": torch.nn.Linear(5, 3)})
    path = tmp_path / "m.pt"
    torch.save(model.state_dict(), path)
    target = TargetOptions(Framework.KERAS)
    with open_source(str(path), None) as opened:
        plans = plans_of(opened, SourceOptions(), target)
        units, _ = units_of(opened, plans, target)
        layers = _in_file_order(opened, plans, units)
        arrays = [(name, np.array(array)) for name, array in _arrays(layers, opened.fetch)]
    return layers, arrays


@pytest.mark.keras
@pytest.mark.skipif(not have("keras"), reason="needs keras")
def test_a_keras_model_takes_its_arrays_one_at_a_time(layers: tuple[Any, Any]) -> None:
    """The .keras writer assigns each array as it comes and keeps none (it gathered them all
    into a dict first: 1 × the checkpoint more)."""
    from paramcount.porting.graph import keras_model

    planned, arrays = layers
    kept: list[str] = []
    fresh = ((name, array.copy()) for name, array in arrays)  # made as asked, as a port does
    model = keras_model(planned, _one_at_a_time(fresh, kept))
    assert kept == []
    weights = [np.asarray(v.numpy()) for v in model.weights]
    assert len(weights) == len(arrays)
    assert all(any(w.shape == a.shape and np.array_equal(w, a) for w in weights)
               for _, a in arrays)


@pytest.mark.keras
@pytest.mark.skipif(not have("keras"), reason="needs keras")
def test_assign_takes_the_models_arrays_one_at_a_time() -> None:
    """The user's Keras model (--model) is assigned one array at a time, rows in chunks on
    TensorFlow, to the same values."""
    from paramcount.porting import variables
    from tests import port_models

    model = port_models.keras_dense((3000, 2))
    rng = np.random.default_rng(0)
    arrays = [(v.path, rng.standard_normal(tuple(v.shape)).astype(np.float32))
              for v in model.weights]
    kept: list[str] = []
    variables.assign(model, _one_at_a_time(((n, a.copy()) for n, a in arrays), kept))
    assert kept == []
    assert all(np.array_equal(np.asarray(v.numpy()), a)
               for v, (_, a) in zip(model.weights, arrays, strict=True))


@pytest.mark.keras
@pytest.mark.skipif(not have("keras"), reason="needs keras")
def test_the_keras_file_keeps_the_layers_own_initialisers(cli: CLI, tmp_path: Path) -> None:
    """The model is built with zeros (the port's values replace them) but its saved
    configuration names the layers' own initialisers, and Keras loads it."""
    torch.manual_seed(0)
    path = tmp_path / "m.pt"
    torch.save(torch.nn.ModuleDict({"rnn": torch.nn.LSTM(4, 6), "head": torch.nn.Linear(6, 2)})
               .state_dict(), path)
    out = tmp_path / "m.keras"
    result = cli("port", str(path), "--to", "keras", "--out", str(out))
    assert result.code == 0, result.err
    with zipfile.ZipFile(out) as archive:
        assert sorted(archive.namelist()) == ["config.json", "metadata.json",
                                              "model.weights.h5"]
        config = json.loads(archive.read("config.json"))
    layers = {layer["config"]["name"]: layer["config"] for layer in config["config"]["layers"]}
    assert layers["rnn"]["kernel_initializer"]["class_name"] == "GlorotUniform"
    assert layers["rnn"]["recurrent_initializer"]["class_name"] == "Orthogonal"
    assert layers["head"]["kernel_initializer"]["class_name"] == "GlorotUniform"


def test_a_checkpoint_read_whole_is_not_released(cli: CLI, tmp_path: Path) -> None:
    """A legacy (pre-zip) checkpoint, which torch cannot memory-map, keeps its tensors' memory
    while ported (its pages were dropped as a map's are: the port crashed or hung)."""
    torch.manual_seed(0)
    model = torch.nn.ModuleDict({"a": torch.nn.Linear(300, 70), "b": torch.nn.Linear(70, 33),
                                 "c": torch.nn.LSTM(33, 20)})
    path = tmp_path / "legacy.pt"
    torch.save(model.state_dict(), path, _use_new_zipfile_serialization=False)
    out = tmp_path / "out.npz"
    result = cli("port", str(path), "--to", "keras", "--out", str(out))
    assert result.code == 0, result.err
    state = model.state_dict()
    with np.load(out) as arrays:
        assert np.array_equal(arrays["a/kernel"], state["a.weight"].numpy().T)
        assert np.array_equal(arrays["b/kernel"], state["b.weight"].numpy().T)
        assert np.array_equal(arrays["c/lstm/lstm_cell/kernel"],
                              state["c.weight_ih_l0"].numpy().T)
