"""The GitHub Action (action.yml) run as a runner runs it: each ``run:`` step in bash with its
``env:`` filled in, ``GITHUB_ACTIONS``, ``GITHUB_STEP_SUMMARY`` and ``GITHUB_BASE_REF`` set, in a
temporary git repository whose pull-request branch changed a model; paramcount is this
checkout's, through ``install: false`` and ``$PARAMCOUNT``."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from tests.docfiles.check import PR_BASE, git, pull_request

ROOT = Path(__file__).resolve().parent.parent
ACTION = yaml.safe_load((ROOT / "action.yml").read_text())
EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")

pytestmark = pytest.mark.skipif(shutil.which("git") is None or shutil.which("bash") is None,
                                reason="needs git and bash")

BASE = PR_BASE


@dataclass(frozen=True)
class Run:
    """What the action's steps printed, the summary they wrote, and the last exit status."""

    code: int
    out: str
    summary: str


def upstream(tmp: Path, change: str | None) -> Path:
    """A repository with ``main`` (models.toml as BASE) and a ``pr`` branch that applies
    ``change`` (``old=>new``) to it."""
    text = BASE
    if change:
        old, new = change.split("=>")
        assert old in text
        text = text.replace(old, new)
    return pull_request(tmp / "upstream", text, "pr")


def clone(tmp: Path, repo: Path, shallow: bool) -> Path:
    """The runner's checkout of the pull request: a full clone, or actions/checkout's default
    (depth 1, the pull request's branch alone, so origin/main is not there)."""
    work = tmp / "work"
    args = ["clone", "-q", "--branch", "pr"]
    if shallow:
        args += ["--depth", "1"]
    git(tmp, *args, repo.as_uri(), str(work))
    return work


def expression(text: str, inputs: dict[str, str], fork: bool) -> str:
    """``${{ ... }}`` of the action's env filled in as the runner does for these contexts."""
    def value(found: re.Match[str]) -> str:
        name = found.group(1)
        if name.startswith("inputs."):
            return inputs[name.removeprefix("inputs.")]
        known = {"github.action_path": str(ROOT),
                 "github.event.pull_request.head.repo.fork": "true" if fork else "false"}
        assert name in known, f"action.yml uses {name}, which this test does not provide"
        return known[name]

    return EXPRESSION.sub(value, text)


def run_action(work: Path, tmp: Path, given: dict[str, str], fork: bool = False) -> Run:
    """Every step of action.yml, in order, stopping at the first that fails."""
    inputs = {name: spec.get("default", "") for name, spec in ACTION["inputs"].items()}
    assert set(given) <= set(inputs), set(given) - set(inputs)
    inputs.update(given, install="false")
    summary = tmp / "step_summary.md"
    summary.write_text("earlier step\n")
    environment = {k: v for k, v in os.environ.items()
                   if not k.startswith(("GITHUB_", "RUNNER_", "CI_"))}
    environment.update({
        "GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": str(summary),
        "GITHUB_BASE_REF": "main", "GITHUB_WORKSPACE": str(work),
        "PARAMCOUNT": f"{sys.executable} -m paramcount",
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT),
                                                    os.environ.get("PYTHONPATH")])),
        "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1",
    })
    out = []
    code = 0
    for step in ACTION["runs"]["steps"]:
        assert step["shell"] == "bash" and "if" not in step
        assert not EXPRESSION.search(step["run"]), "scripts read their inputs from env"
        env = {**environment, **{k: expression(str(v), inputs, fork)
                                 for k, v in step.get("env", {}).items()}}
        done = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c",
                               step["run"]], cwd=work, env=env, capture_output=True,
                              text=True, timeout=300)
        out.append(done.stdout + done.stderr)
        code = done.returncode
        if code:
            break
    return Run(code, "".join(out), summary.read_text())


def test_action_steps_are_bash_reading_env() -> None:
    """action.yml is a composite action whose inputs include the ones the docs promise."""
    assert ACTION["runs"]["using"] == "composite"
    assert {"files", "verify", "no-factories", "baseline", "baseline-factories", "max-growth",
            "extras", "install"} <= set(ACTION["inputs"])
    assert ACTION["inputs"]["baseline-factories"]["default"] == "false"


def test_a_pull_request_that_grows_a_model_past_its_budget(tmp_path: Path) -> None:
    """A hidden size raised on the branch: the budget's line is annotated, the summary shows
    the model's before, after and change, biggest growth first, and the step fails (exit 1);
    the base branch is fetched when the checkout is shallow."""
    repo = upstream(tmp_path, "hidden = 64=>hidden = 96")
    work = clone(tmp_path, repo, shallow=True)
    run = run_action(work, tmp_path, {"files": "models.toml"})
    assert run.code == 1, run.out
    assert ("::error file=models.toml,line=3,col=14,title=paramcount%3A tagger over "
            "max_params::tagger: 324,297 parameters, over max_params 200,000 (+124,297)"
            ) in run.out
    assert run.summary.startswith("earlier step\n### paramcount check\n")
    rows = [line for line in run.summary.splitlines() if line.startswith("| tagger |")
            or line.startswith("| spotter |")]
    assert rows[0].startswith("| tagger | 150,665 | 324,297 | +173,632 | +115.2% |  | "
                              "layers[0]: LSTM(32, 96, 2 layers, bidirectional) 322,560 — "
                              "was hidden 64 (149,504)")
    assert rows[1] == "| spotter | 1,333 | 1,333 | ±0 | ±0% |  |  |"


@pytest.mark.parametrize(("change", "given", "fork", "code", "expected"), [
    ("hidden = 16 }=>hidden = 24 }", {"files": "models.toml", "max-growth": "10%"}, False,
     1, "::error file=models.toml,line=9,title=paramcount%3A spotter grew past 10%25::"
        "spotter: 1,333 → 2,573 (+1,240, +93.0%25) against origin/main"),
    ("hidden = 16 }=>hidden = 16 }", {"files": "models.toml", "max-growth": "10%"}, False,
     0, "| spotter | 1,333 | 1,333 | ±0 | ±0% |"),
    ("hidden = 16 }=>hidden = 17 }", {"max-growth": "15%", "files": "*.toml"}, False,
     0, "::warning file=models.toml,line=9,title=paramcount%3A spotter grew::spotter: 1,333 → "
        "1,467 (+134, +10.1%25)"),
    ("[models.spotter]=>[models.listener]\nfactory = \"speech:build\"\n\n[models.spotter]",
     {"files": "models.toml"},
     True, 2, "::error file=models.toml,line=10,col=11,title=paramcount check::"
              "models.listener.factory: not run: --no-factories refuses every factory"),
    ("hidden = 64=>hidden = 96", {"baseline": "none", "files": "models.toml"}, False, 1,
     "::error file=models.toml,line=3,col=14,"),
], ids=["grew-past-max-growth", "unchanged-passes", "grew-within-max-growth-warning",
        "fork-runs-no-factory", "baseline-none"])
def test_action_outcomes(tmp_path: Path, change: str, given: dict[str, str], fork: bool,
                         code: int, expected: str) -> None:
    """Each input changes what the action runs, and its exit code says what the step
    should: 0 pass, 1 a budget or the growth limit broken, 2 a config error."""
    work = clone(tmp_path, upstream(tmp_path, change), shallow=False)
    run = run_action(work, tmp_path, given, fork)
    assert run.code == code, run.out
    assert expected in run.out + run.summary, run.out + run.summary
    if given.get("baseline") == "none":
        assert "Against" not in run.summary


def test_unknown_baseline_is_one_line(tmp_path: Path) -> None:
    """A baseline the checkout does not have: a warning from the fetch step, then one error
    line from check, exit 2, never a traceback."""
    work = clone(tmp_path, upstream(tmp_path, None), shallow=False)
    run = run_action(work, tmp_path, {"baseline": "v9.9", "files": "models.toml"})
    assert run.code == 2
    assert "::warning title=paramcount action::v9.9 is not in this checkout" in run.out
    assert "Error: --baseline v9.9: unknown revision in" in run.out
    assert "Traceback" not in run.out


@pytest.mark.parametrize(("extras", "code", "expected"), [
    ("", 0, f"-m pip install --disable-pip-version-check {ROOT}\n"),
    ("torch, keras", 0, f"-m pip install --disable-pip-version-check {ROOT}[torch,keras]\n"),
    ("torch]; rm -rf x", 2, "::error title=paramcount action::extras: 'torch]; rm -rf x' is "
                            "not a list of extras"),
], ids=["none", "two", "refused"])
def test_install_step(tmp_path: Path, extras: str, code: int, expected: str) -> None:
    """The install step installs the action's own copy with the extras asked for (a stand-in
    ``python`` records the command), and refuses extras that are not names."""
    step = ACTION["runs"]["steps"][0]
    assert step["name"] == "Install paramcount"
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "python").write_text('#!/bin/sh\necho "$@"\n')
    (bin_dir / "python").chmod(0o755)
    inputs = {name: spec.get("default", "") for name, spec in ACTION["inputs"].items()}
    inputs["extras"] = extras
    env = {"PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
           **{k: expression(str(v), inputs, False) for k, v in step["env"].items()}}
    done = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c",
                           step["run"]], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == code
    assert expected in done.stdout


def factory_upstream(tmp: Path) -> Path:
    """A repository whose ``main`` builds its encoder with ``speech:build`` (an nn.LSTM of
    hidden size 32) and whose ``pr`` branch raises the size to 48 in the factory's module."""
    repo = tmp / "upstream"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    (repo / "models.toml").write_text('[models.encoder]\nfactory = "speech:build"\n'
                                      "max_params = 1_000_000\n")
    speech = "from torch import nn\n\n\ndef build():\n    return nn.LSTM(16, {})\n"
    (repo / "speech.py").write_text(speech.format(32))
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    git(repo, "checkout", "-qb", "pr")
    (repo / "speech.py").write_text(speech.format(48))
    git(repo, "commit", "-qam", "pull request")
    return repo


@pytest.mark.torch
@pytest.mark.parametrize(("given", "fork", "code", "row", "notice"), [
    ({}, False, 0, "| encoder | - | {after:,} | not counted |", None),
    ({"baseline-factories": "true"}, False, 0,
     "| encoder | {before:,} | {after:,} | +{change:,} | +98.0% |", None),
    ({"baseline-factories": "true"}, True, 2, "| encoder | - | - | not counted |",
     "baseline-factories not applied: a pull request from a fork runs no factory of the base"),
    ({"baseline-factories": "true", "no-factories": "true"}, False, 2,
     "| encoder | - | - | not counted |",
     "baseline-factories not applied: no-factories is on, no factory runs"),
], ids=["off-by-default", "on", "forced-off-for-forks", "forced-off-by-no-factories"])
def test_baseline_factories_input(tmp_path: Path, given: dict[str, str], fork: bool, code: int,
                                  row: str, notice: str | None) -> None:
    """The base's factories run only with ``baseline-factories: true``, then the summary shows
    the encoder's before (torch's count of the base's LSTM(16, 32)) and after (of LSTM(16,
    48)); on a fork's pull request, or with no-factories on, they never run, and a notice says
    why."""
    torch = pytest.importorskip("torch")
    with torch.device("meta"):
        before, after = (sum(p.numel() for p in torch.nn.LSTM(16, hidden).parameters())
                         for hidden in (32, 48))
    work = clone(tmp_path, factory_upstream(tmp_path), shallow=True)
    run = run_action(work, tmp_path, {"files": "models.toml", **given}, fork)
    assert run.code == code, run.out
    shown = row.format(before=before, after=after, change=after - before)
    assert shown in run.summary, run.summary
    if notice:
        assert f"::notice title=paramcount action::{notice}" in run.out
    else:
        assert "::notice" not in run.out
    assert "Traceback" not in run.out
