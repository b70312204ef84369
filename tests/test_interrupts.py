"""Ctrl-C at any moment exits 130 with one line and leaves nothing behind; a closed stdout is
one line, exit 2.

Each run is a real process sent SIGINT at a spread of moments: while paramcount's modules
load, while a framework imports (a half-done numpy import turned Ctrl-C into RecursionError,
exit 70), while it counts and while it writes.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import have

ROOT = Path(__file__).resolve().parent.parent
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}

START = ("import sys, signal, importlib.util, paramcount; "
         "code = importlib.util.find_spec('paramcount.__main__').loader.get_code("
         "'paramcount.__main__'); sys.argv = ['paramcount', *sys.argv[1:]]; "
         "sys.stderr.write('ready\\n'); sys.stderr.flush(); exec(code, {'__name__': '__main__'})")
"""The command as ``python -m paramcount`` runs it, saying ``ready`` once the interpreter is up
and ``paramcount/__main__.py`` is compiled (an interrupt before that is the interpreter's own or
runpy's, before any line of paramcount runs)."""


def _interrupted(args: list[str], delay: float, cwd: Path) -> tuple[int, str]:
    """Run ``paramcount ARGS``, send SIGINT ``delay`` seconds after it is up; its exit status
    (as a shell reports it) and stderr."""
    child = subprocess.Popen([sys.executable, "-c", START, *args], cwd=cwd, env=ENV,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    assert child.stderr is not None
    assert child.stderr.readline() == "ready\n"
    time.sleep(delay)
    child.send_signal(signal.SIGINT)
    err = child.stderr.read()
    child.stderr.close()
    code = child.wait(timeout=120)
    return (128 - code if code < 0 else code), err  # killed by SIGINT: the shell's 130


def _calm(code: int, err: str) -> None:
    """Finished (0) before the interrupt, or aborted: 130 and the one line."""
    assert (code, err) in ((0, ""), (130, "Error: aborted\n")), (code, err[-3000:])


DELAYS = (0.002, 0.005, 0.01, 0.03, 0.06, 0.1, 0.2, 0.4)


@pytest.mark.parametrize("delay", DELAYS)
def test_ctrl_c_on_the_quick_path(tmp_path: Path, delay: float) -> None:
    """Ctrl-C anywhere in a count command's short run exits 130 with ``Error: aborted``."""
    _calm(*_interrupted(["lstm", "-i", "3", "-H", "4", "--markdown"], delay, tmp_path))


@pytest.mark.torch
@pytest.mark.skipif(not have("torch"), reason="needs torch")
@pytest.mark.parametrize("delay", (0.1, 0.3, 0.6, 0.9, 1.2, 1.6, 2.0, 2.5))
def test_ctrl_c_while_a_framework_imports(tmp_path: Path, delay: float) -> None:
    """Ctrl-C while torch and numpy import (and while the real layer is built) exits 130:
    whatever a half-done import raises after the interrupt is the interrupt."""
    _calm(*_interrupted(["lstm", "-i", "3", "-H", "4", "--framework", "torch", "--verify"],
                        delay, tmp_path))


CONFIG = '[models.a]\ninput = 32\ntotal = 1\nlayers = [{ kind = "lstm", hidden = 128 }]\n'


@pytest.mark.parametrize("delay", (0.05, 0.15, 0.3, 0.5, 0.8))
def test_ctrl_c_while_writing_leaves_nothing_behind(tmp_path: Path, delay: float) -> None:
    """``check --update --junit`` interrupted at any moment leaves the config whole (as it
    was, or updated) and no temporary file."""
    config = tmp_path / "models.toml"
    config.write_text(CONFIG)
    code, err = _interrupted(["check", "models.toml", "--update", "--junit", "out.xml"],
                             delay, tmp_path)
    assert (code, err.strip()) in ((0, ""), (1, ""), (130, "Error: aborted")) or (
        code == 1 and "Error" not in err), (code, err)
    assert config.read_text() in (CONFIG, CONFIG.replace("total = 1", "total = 82944"))
    assert set(os.listdir(tmp_path)) <= {"models.toml", "out.xml"}


@pytest.mark.parametrize("args", [
    ["lstm", "-i", "32", "-H", "128"],  # the quick path
    ["lstm", "-i", "32", "-H", "128", "--json"],
    ["explain", "lstm", "-i", "32", "-H", "128", "--markdown"],  # click
    ["check", "examples/convlstm.toml"],
], ids=["quick", "quick-json", "click", "check"])
def test_a_closed_stdout_is_one_line_exit_2(args: list[str]) -> None:
    """Started with stdout closed (``>&-``), a command says so in one line and exits 2 (an
    AttributeError on flush exited 70)."""
    # the shell closes it (a preexec_fn forks a process the suite's threads share: unsafe)
    done = subprocess.run(["sh", "-c", 'exec "$0" -m paramcount "$@" >&-', sys.executable,
                           *args], stderr=subprocess.PIPE, text=True, env=ENV, cwd=ROOT)
    assert done.returncode == 2, done.stderr
    assert done.stderr == "Error: cannot write the output: standard output is closed\n"
