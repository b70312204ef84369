"""``check`` on the models a project really builds: ``factory = "module:function"`` models."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from tests.conftest import CLI

ROOT = Path(__file__).resolve().parent.parent
PROJECT = ROOT / "examples" / "project"

TORCH_MODULE = '''\
from pathlib import Path

import torch
from torch import nn


class Model(nn.Module):
    def __init__(self, hidden, cells):
        super().__init__()
        self.rnn = nn.LSTM(40, hidden, num_layers=3, bidirectional=True, batch_first=True)
        self.proj = nn.LSTM(2 * hidden, hidden, proj_size=hidden // 2)
        self.gru = nn.GRU(hidden // 2, 24, bias=False)
        self.relu_rnn = nn.RNN(24, 12, nonlinearity="relu", num_layers=2)
        self.cells = nn.ModuleList([nn.LSTMCell(12, 8), nn.GRUCell(8, 8), nn.RNNCell(8, 4)][:cells])
        self.conv = nn.Conv1d(4, 16, 3)
        self.norm = nn.BatchNorm1d(16)
        self.head = nn.Linear(16, 3)
        self.head_tied = nn.Linear(16, 3)
        self.head_tied.weight = self.head.weight   # tied: counted once
        self.scale = nn.Parameter(torch.ones(5))


def build(hidden=64, cells=3):
    model = Model(hidden, cells)
    Path(__file__).with_name("built_on.txt").write_text(next(model.parameters()).device.type)
    return model


def fails(**kwargs):
    raise ValueError("hidden must be even\\nsecond line")


def not_a_model():
    return 42
'''


def project(tmp_path: Path, config: str, module: str = TORCH_MODULE,
            name: str = "nets") -> Path:
    """A throw-away project: a factory module and a config beside it."""
    (tmp_path / f"{name}.py").write_text(module)
    path = tmp_path / "models.toml"
    path.write_text(config)
    return path


@pytest.fixture(autouse=True)
def _forget_modules() -> object:
    """Each test imports its own ``nets`` module afresh."""
    yield
    for name in [n for n in sys.modules if n in ("nets", "speech_models", "broken")]:
        del sys.modules[name]


@pytest.mark.torch
def test_torch_factory_counts_every_parameter_on_the_meta_device(cli: CLI,
                                                                 tmp_path: Path) -> None:
    """Every parameter of a torch factory model is counted once (tied weights too), buffers
    apart, on the meta device, each recurrent module cross-checked with the formulas."""
    pytest.importorskip("torch")
    path = project(tmp_path, '[models.net]\nfactory = "nets:build"\nkwargs = { hidden = 64 }\n')
    result = cli("check", str(path), "--json")
    assert result.code == 0, result.err
    (model,) = json.loads(result.out)["models"]
    assert (tmp_path / "built_on.txt").read_text() == "meta"  # in check's child process
    import torch

    sys.path.insert(0, str(tmp_path))
    try:
        import nets  # type: ignore[import-not-found]
    finally:
        sys.path.remove(str(tmp_path))
    with torch.device("meta"):
        real = nets.build(hidden=64)
    assert model["total"] == sum(p.numel() for p in real.parameters())
    modules = {m["name"]: m for m in model["modules"]}
    assert modules["norm"]["buffers"] == sum(b.numel() for b in real.norm.buffers()) == 33
    for name in ("rnn", "proj", "gru", "relu_rnn", "cells.0", "cells.1", "cells.2"):
        module = modules[name]
        count = sum(p.numel() for p in real.get_submodule(name).parameters())
        assert module["params"] == module["recurrent"]["formula"] == count, name
    assert modules["proj"]["explain"] == (
        "paramcount explain lstm -i 128 -H 64 --proj 32")
    assert modules["relu_rnn"]["explain"] == (
        "paramcount explain rnn -i 24 -H 12 -L 2 --nonlinearity relu")
    assert modules["(model)"]["params"] == 5 and modules["head_tied"]["params"] == 3
    assert sum(m["params"] for m in model["modules"]) == model["total"]


@pytest.mark.torch
def test_update_records_modules_and_a_failed_total_says_what_grew(cli: CLI,
                                                                   tmp_path: Path) -> None:
    """--update writes total and modules; a later change is explained module by module."""
    pytest.importorskip("torch")
    path = project(tmp_path, "# our model\n[models.net]  # the tagger\nfactory = \"nets:build\""
                             "\nkwargs = { hidden = 64 }\n")
    assert cli("check", str(path), "--update").code == 0
    text = path.read_text()
    assert text.startswith("# our model\n[models.net]  # the tagger\ntotal = ")
    assert 'modules = { "(model)" = 5, rnn = 252_928, proj = 43_520, ' in text
    assert cli("check", str(path)).code == 0
    path.write_text(text.replace("hidden = 64", "hidden = 96"))
    result = cli("check", str(path))
    assert result.code == 1
    lines = result.out.splitlines()
    assert lines[1] == ("    rnn: LSTM(40, 96, 3 layers, bidirectional) 551,424 — was hidden 64 "
                        "(252,928)")
    assert lines[2].startswith("    proj: LSTM(192, 96, proj 48) ") and "was " in lines[2]


@pytest.mark.parametrize(("config", "message"), [
    ('factory = "nets:missing"', "3:11: models.net.factory: nets has no attribute 'missing'"),
    ('factory = "nowhere.at_all:build"', "3:11: models.net.factory: cannot import "
                                         "nowhere.at_all: ModuleNotFoundError: No module named "
                                         "'nowhere'"),
    ('factory = "nets:fails"', "3:11: models.net.factory: nets:fails(...) raised ValueError: "
                               "hidden must be even"),
    ('factory = "nets:not_a_model"', "3:11: models.net.factory: nets:not_a_model returned a "
                                     "int, not a torch nn.Module"),
    ('factory = "nets"', "3:11: models.net.factory: expected \"package.module:function\", got "
                         "string 'nets'"),
    ('factory = "nets:build"\nkwargs = 3', "4:10: models.net.kwargs: expected a table of "
                                            "keyword arguments, got integer 3"),
    ('factory = "nets:build"\ninput = 3', "4:9: models.net.input: input describes "
                                          "hand-written layers; a factory model knows its own"),
], ids=["no-attribute", "no-module", "raises", "not-a-model", "no-colon", "kwargs", "input"])
@pytest.mark.torch
def test_factory_errors_are_located(cli: CLI, tmp_path: Path, config: str,
                                    message: str) -> None:
    """A factory that cannot be imported, called or counted is a located error, exit 2."""
    pytest.importorskip("torch")
    path = project(tmp_path, f"# models\n[models.net]\n{config}\n")
    before = list(sys.path)
    result = cli("check", str(path))
    assert (result.code, result.out) == (2, "")
    assert result.err == f"Error: {path}:{message}\n"
    assert sys.path == before


def test_broken_import_is_located_and_path_restored(cli: CLI, tmp_path: Path) -> None:
    """A module that fails while importing (a syntax error) is exit 2, one line; sys.path and
    the current directory's place on it are restored."""
    path = project(tmp_path, '[models.a]\nfactory = "broken:build"\n', "def build(:\n",
                   "broken")
    before = list(sys.path)
    result = cli("check", str(path), "--json")
    assert result.code == 2
    (error,) = json.loads(result.out)["errors"]
    assert (error["line"], error["column"]) == (2, 11)
    assert error["message"].startswith("models.a.factory: cannot import broken: SyntaxError: ")
    assert sys.path == before


@pytest.mark.torch
@pytest.mark.keras
def test_project_with_torch_and_keras_factories(cli: CLI, tmp_path: Path) -> None:
    """The example project (a torch and a Keras factory) passes, with a whole-model table."""
    pytest.importorskip("torch")
    pytest.importorskip("keras")
    copy = tmp_path / "project"
    shutil.copytree(PROJECT, copy)
    result = cli("check", str(copy / "paramcount.toml"), "--details")
    assert result.code == 0, result.out + result.err
    lines = result.out.splitlines()
    assert lines[0] == "✓ listener: 4,078,089 parameters, expected total 4,078,089 (±0)"
    assert "  rnn     LSTM(128, 256, 3 layers, bidirectional) [1]  512     3,944,448   96.7%" \
        in lines
    assert "  [1] rnn: paramcount explain lstm -i 128 -H 256 -L 3 --bidir" in lines
    spotter = next(line for line in lines if line.startswith("  bidirectional "))
    assert "Bidirectional GRU(64, 64, bidirectional) [1]" in spotter and "(None, 128)" in spotter
    assert "  non-trainable, of the above: batch_normalization 128" in lines
    sys.path.insert(0, str(copy))
    try:
        import speech_models

        assert speech_models.build_keras().count_params() == 63_685
    finally:
        sys.path.remove(str(copy))


@pytest.mark.torch
def test_update_json_factory_model(cli: CLI, tmp_path: Path) -> None:
    """--update adds total and modules to a JSON model written on one line, and they hold."""
    pytest.importorskip("torch")
    path = tmp_path / "models.json"
    (tmp_path / "nets.py").write_text(TORCH_MODULE)
    path.write_text('{"models": {"net": {"factory": "nets:build", "kwargs": {"cells": 1}}}}\n')
    assert cli("check", str(path), "--update").code == 0
    text = path.read_text()
    assert text.startswith('{"models": {"net": {"total": 302251, "modules": {"(model)": 5, ')
    assert text.endswith('"factory": "nets:build", "kwargs": {"cells": 1}}}}\n')
    assert cli("check", str(path)).code == 0


@pytest.mark.torch
def test_recurrent_module_the_formulas_disagree_with_fails(
        cli: CLI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each recognised recurrent module is cross-checked with the formula engine: were the
    engine off by one, the model fails (exit 1), naming the module, and --update refuses."""
    pytest.importorskip("torch")
    from paramcount.checking import measure

    monkeypatch.setattr(measure, "recurrent_count", lambda spec: 1)
    path = project(tmp_path, '[models.net]\nfactory = "nets:build"\nkwargs = { cells = 0 }\n')
    result = cli("check", str(path))
    assert result.code == 1
    assert "; rnn: LSTM holds 252,928 parameters, the formulas say 1 (+252,927)" in result.out
    updated = cli("check", str(path), "--update")
    assert "not updated: a real framework and the formulas disagree on a count" in updated.out
    assert "total" not in path.read_text()
