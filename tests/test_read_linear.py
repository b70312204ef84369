"""Every reader of pasted text works in linear time and never crashes on a long run.

``tests/long_inputs.py`` feeds ``paramcount read`` and the load-error reader a run of 30,000
characters of every character class (alone, in code, in a question, after each printer's
header) and one long mixed line. Linear readers finish them all in seconds; one pattern that
backtracks over every start in a run needs minutes for a single input, so the run is bounded
by a generous time limit in a child process, not by a timed assertion.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_long_runs_of_every_character_class_are_read_in_linear_time() -> None:
    """All long inputs read within the limit, with no traceback (any error is a one-line
    answer the readers raise as ParamcountError)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "tests.long_inputs", "30000"], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=180, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.startswith("292 inputs of 30,000 characters"), done.stdout
