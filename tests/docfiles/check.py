"""Files the ``check`` documentation (docs/check.md) names: a project with factories, made from
examples/project, and a checkpoint saved by torch."""

from __future__ import annotations

import os
import shutil
import subprocess
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




PR_BASE = """\
[models.tagger]
input = 32
max_params = 200_000
layers = [
  { kind = "lstm", hidden = 64, layers = 2, bidirectional = true },
  { kind = "linear", out = 9 },
]

[models.spotter]
input = 8
layers = [{ kind = "gru", hidden = 16 }, { kind = "linear", out = 5 }]
"""


GIT_IDENTITY = {"GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1",
                "GIT_AUTHOR_NAME": "paramcount", "GIT_AUTHOR_EMAIL": "docs@example.com",
                "GIT_COMMITTER_NAME": "paramcount", "GIT_COMMITTER_EMAIL": "docs@example.com",
                "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z",
                "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z"}
"""A fixed author, date and no user config: the same commits give the same ids everywhere."""


def git(repo: Path, *args: str) -> str:
    """Run git in ``repo`` with :data:`GIT_IDENTITY`, returning its output."""
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True,
                          text=True, env={**os.environ, **GIT_IDENTITY}).stdout


def pull_request(repo: Path, text: str, branch: str | None = None) -> Path:
    """A new repository at ``repo``: ``main`` holds models.toml as :data:`PR_BASE`; one more
    commit (on ``branch``, if named) makes it ``text``."""
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    (repo / "models.toml").write_text(PR_BASE)
    git(repo, "add", "models.toml")
    git(repo, "commit", "-qm", "base")
    if branch:
        git(repo, "checkout", "-qb", branch)
    (repo / "models.toml").write_text(text)
    git(repo, "commit", "-qam", "pull request", "--allow-empty")
    return repo


def make_pull_request(directory: Path) -> None:
    """``pr/``: a git repository whose last commit (a pull request) widened the tagger's LSTM
    from 64 to 96 and added a layer to the spotter."""
    pull_request(directory / "pr", PR_BASE.replace("hidden = 64", "hidden = 96").replace(
        '{ kind = "gru", hidden = 16 }', '{ kind = "gru", hidden = 16 }, { kind = "relu" }'))


FILES = {
    "project.toml": (("torch", "keras", "tensorflow"), make_project),
    "grown.toml": (("torch", "keras", "tensorflow"), make_grown),
    "broken.toml": ((), make_broken),
    "released.toml": (("torch",), make_released),
    "pr/models.toml": ((), make_pull_request),
}
