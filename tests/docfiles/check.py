"""Files the ``check`` documentation (docs/check.md) names: a project with factories, made from
examples/project, and a checkpoint saved by torch."""

from __future__ import annotations

import shutil
from pathlib import Path

PROJECT = Path(__file__).resolve().parent.parent.parent / "examples" / "project"


def _module(directory: Path) -> None:
    shutil.copy(PROJECT / "speech_models.py", directory / "speech_models.py")


def make_project(directory: Path) -> None:
    """``project.toml``: the example project's config, beside its factory module."""
    _module(directory)
    shutil.copy(PROJECT / "paramcount.toml", directory / "project.toml")


def make_grown(directory: Path) -> None:
    """``grown.toml``: the listener after someone widened its LSTM from 256 to 320."""
    _module(directory)
    text = (PROJECT / "paramcount.toml").read_text()
    (directory / "grown.toml").write_text(text.replace("hidden = 256", "hidden = 320"))


def make_broken(directory: Path) -> None:
    """``broken.toml``: three mistakes in one config."""
    _module(directory)
    (directory / "broken.toml").write_text(
        '[models.listener]\nfactory = "speech_models:bulid"\ntotal = 4_078_089\n\n'
        '[models.tagger]\ninput = 32\nlayers = [\n  { kind = "lstm", hiden = 64 },\n'
        '  { kind = "linear", out = 0 },\n]\n')


def make_released(directory: Path) -> None:
    """``released.toml`` and the checkpoint it names, ``released.pt`` (torch.save)."""
    import torch
    from torch import nn

    torch.manual_seed(0)
    model = nn.Sequential(nn.Embedding(100, 16), nn.LSTM(16, 32, num_layers=2,
                                                         bidirectional=True),
                          nn.BatchNorm1d(64), nn.Linear(64, 5))
    torch.save(model.state_dict(), directory / "released.pt")
    (directory / "released.toml").write_text(
        '[models.released]\nfile = "released.pt"   # any format paramcount inspect reads\n'
        "max_params = 50_000\n")


FILES = {
    "project.toml": (("torch", "keras", "tensorflow"), make_project),
    "grown.toml": (("torch", "keras", "tensorflow"), make_grown),
    "broken.toml": ((), make_broken),
    "released.toml": (("torch",), make_released),
}
