"""The shipped pre-commit hook runs for real: ``pre-commit try-repo`` installs paramcount from
this repository into its own environment and checks a project's budgets."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PROJECT = """\
[tool.paramcount.models.tagger]
input = 32
total = 149_504
layers = [{ kind = "lstm", hidden = 64, layers = 2, bidirectional = true }]
"""


@pytest.mark.precommit
def test_pre_commit_try_repo(tmp_path: Path) -> None:
    """``pre-commit try-repo <this repo> paramcount-check --all-files`` passes on a project
    within its budget and fails (naming the model) once the count drifts."""
    executable = Path(sys.executable).parent / "pre-commit"
    command = str(executable) if executable.exists() else shutil.which("pre-commit")
    if command is None:
        pytest.skip("pre-commit is not installed (pip install 'paramcount[test]')")
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    project = tmp_path / "project"
    project.mkdir()
    (project / "pyproject.toml").write_text(PROJECT)
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "cache"),
           "GIT_CONFIG_GLOBAL": os.devnull, "PIP_DISABLE_PIP_VERSION_CHECK": "1",
           "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    for args in (["init", "-q"], ["add", "-A"]):
        subprocess.run(["git", *args], cwd=project, check=True, env=env)

    def hook() -> subprocess.CompletedProcess[str]:
        return subprocess.run([command, "try-repo", str(ROOT), "paramcount-check",
                               "--all-files"], cwd=project, env=env, capture_output=True,
                              text=True, timeout=900)

    passed = hook()
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "paramcount check (parameter budgets)" in passed.stdout
    assert "Passed" in passed.stdout
    (project / "pyproject.toml").write_text(PROJECT.replace("hidden = 64", "hidden = 65"))
    failed = hook()
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert "✗ tagger: 153,920 parameters, expected total 149,504 (+4,416)" in failed.stdout
