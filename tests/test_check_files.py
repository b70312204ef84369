"""``check`` on model files (``file = "..."``): read by the inspect readers, headers only."""

from __future__ import annotations

import json
import pickle
from pathlib import Path

import pytest

from tests.conftest import CLI


@pytest.mark.torch
def test_torch_checkpoint_counts_parameters_not_buffers(cli: CLI, tmp_path: Path) -> None:
    """A state dict saved by torch is counted as torch counts parameters (buffers apart); its
    LSTM is recognised and explained; --update records the modules."""
    torch = pytest.importorskip("torch")
    from torch import nn

    model = nn.Sequential(nn.Embedding(100, 16), nn.LSTM(16, 32, num_layers=2,
                                                         bidirectional=True),
                          nn.BatchNorm1d(64), nn.Linear(64, 5))
    (tmp_path / "ckpt").mkdir()
    torch.save(model.state_dict(), tmp_path / "ckpt" / "tagger.pt")
    config = tmp_path / "models.toml"
    config.write_text('[models.released]\nfile = "ckpt/tagger.pt"\nmax_params = 40_000\n')
    result = cli("check", str(config), "--json")
    assert result.code == 0, result.err
    (data,) = json.loads(result.out)["models"]
    assert data["total"] == sum(p.numel() for p in model.parameters()) == 39_941
    rows = {m["name"]: m for m in data["modules"]}
    assert rows["1"]["recurrent"] == {"layer": "LSTM(16, 32, 2 layers, bidirectional)",
                                      "formula": 37_888}
    assert rows["2"]["buffers"] == sum(b.numel() for b in model[2].buffers())
    assert cli("check", str(config), "--update").code == 0
    assert "modules = { 0 = 1_600, 1 = 37_888, 2 = 128, 3 = 325 }" in config.read_text()


@pytest.mark.keras
@pytest.mark.filterwarnings("ignore:__array__ implementation doesn't accept a copy keyword"
                            ":DeprecationWarning")  # TensorFlow's tensors, saving the fixture
def test_keras_file_counts_every_weight(cli: CLI, tmp_path: Path) -> None:
    """A .keras file is counted as Keras' count_params (moving statistics included)."""
    keras = pytest.importorskip("keras")
    inputs = keras.Input((None, 8))
    x = keras.layers.Bidirectional(keras.layers.GRU(16))(inputs)
    x = keras.layers.BatchNormalization()(x)
    model = keras.Model(inputs, keras.layers.Dense(3)(x))
    model.save(tmp_path / "spotter.keras")
    config = tmp_path / "models.toml"
    config.write_text(f'[models.spotter]\nfile = "spotter.keras"\ntotal = '
                      f'{model.count_params()}\n')
    result = cli("check", str(config))
    assert result.code == 0, result.out + result.err


def test_missing_and_hostile_files_are_located_errors(cli: CLI, tmp_path: Path) -> None:
    """A missing file and a pickle that would run code are one located line each (exit 2);
    the pickle's code never runs."""
    marker = tmp_path / "ran"

    class Exploit:
        def __reduce__(self) -> tuple[object, tuple[str]]:
            return (Path.touch, (str(marker),))  # type: ignore[return-value]

    (tmp_path / "evil.pt").write_bytes(pickle.dumps({"w": Exploit()}))
    config = tmp_path / "models.toml"
    config.write_text('[models.a]\nfile = "missing.pt"\n\n[models.b]\nfile = "evil.pt"\n')
    result = cli("check", str(config))
    assert (result.code, result.out) == (2, "")
    first, second = result.err.splitlines()
    assert first == f"Error: {config}:2:8: models.a.file: missing.pt: no such file"
    assert second.startswith(f"Error: {config}:5:8: models.b.file: ")
    assert not marker.exists()
