"""Shell completion, as docs/commands.md documents it: click's, through the lazy command group."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _complete(words: str, cword: int) -> list[str]:
    """What ``paramcount`` offers for the words typed so far (click's bash protocol)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COMP_WORDS": words, "COMP_CWORD": str(cword),
           "_PARAMCOUNT_COMPLETE": "bash_complete"}
    done = subprocess.run([sys.executable, "-m", "paramcount"], env=env, capture_output=True,
                          text=True, check=True)
    return [line.split(",", 1)[1] for line in done.stdout.splitlines()]


@pytest.mark.parametrize(
    ("words", "cword", "expected"),
    [
        ("paramcount ls", 1, ["lstm"]),
        ("paramcount co", 1, ["compare", "compute", "convlstm"]),
        ("paramcount lstm --hid", 2, ["--hidden", "--hidden-size"]),
        ("paramcount shapes lstm -f ", 4, ["torch", "keras"]),
        ("paramcount lstm -f torch,k", 3, ["torch,keras"]),
        ("paramcount lstm --merge-mode s", 3, ["sum"]),
        ("paramcount explain g", 2, ["gru"]),
    ],
    ids=["command", "two-commands", "option", "frameworks", "comma-list", "merge", "cell"],
)
def test_completion_offers_what_is_accepted(words: str, cword: int, expected: list[str]) -> None:
    """Commands, options and choices complete, restricted to what each command accepts."""
    assert _complete(words, cword) == expected


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_bash_script_completes(tmp_path: Path) -> None:
    """The script ``_PARAMCOUNT_COMPLETE=bash_source paramcount`` prints works in bash."""
    shim = tmp_path / "paramcount"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m paramcount "$@"\n')
    shim.chmod(0o755)
    script = ('eval "$(_PARAMCOUNT_COMPLETE=bash_source paramcount)"; '
              "COMP_WORDS=(paramcount gr); COMP_CWORD=1; _paramcount_completion paramcount; "
              'echo "${COMPREPLY[@]}"')
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PATH": f"{tmp_path}:{os.environ['PATH']}"}
    done = subprocess.run(["bash", "-c", script], env=env, capture_output=True, text=True,
                          check=True)
    assert done.stdout.split() == ["granitemoehybrid", "gru"]
