"""Is the time of a deep stack linear in its layers? Commands timed at L and at 10·L layers.

Each command runs in this process as ``paramcount`` runs it (after one warm-up run, so that
imports are not timed), the median of several runs; the ratio of the 10·L time to the L time
is printed with the goal (≤ 12×: linear, with room for noise; quadratic work shows as ~100×).
The goal is judged on the two reported quadratic (``compare`` of two deep stacks,
``convlstm -f all``); the other commands that walk every layer follow, for information
(``lstm -f all`` builds seven conventions' tensors several times over, and the garbage
collector's passes over that heap grow a little faster than it).

    python benchmarks/depth_speed.py [--runs 5] [--only compare,convlstm]
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import io
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from paramcount.cli.main import run

GOAL = 12.0
"""The most time 10× the layers may take, relative to the baseline."""
JUDGED = ("compare", "convlstm")
"""The cases the goal is judged on (issue 22, item 5)."""

CASES: dict[str, tuple[int, Callable[[int], list[str]]]] = {
    "compare": (200, lambda n: ["compare", f"lstm -i 4 -H 4 -L {n}",
                                f"lstm -i 4 -H 4 -L {n - 1}"]),
    "convlstm": (400, lambda n: ["convlstm", "--rank", "2", "-C", "3", "-F", "4", "-k", "3",
                                 "--bidir", "-f", "all", "-L", str(n)]),
    "compare-frameworks": (100, lambda n: ["compare", f"gru -i 4 -H 4 -L {n}",
                                           "--frameworks"]),
    "lstm-all": (100, lambda n: ["lstm", "-i", "4", "-H", "4", "--bidir", "-f", "all", "-L",
                                 str(n)]),
    "explain": (200, lambda n: ["explain", "lstm", "-i", "4", "-H", "4", "--bidir", "-L",
                                str(n)]),
    "shapes": (200, lambda n: ["shapes", "lstm", "-i", "4", "-H", "4", "--bidir", "-L",
                               str(n)]),
    "compute": (200, lambda n: ["compute", "gru", "-i", "4", "-H", "4", "--bidir", "-L", str(n),
                                "-T", "5"]),
}


def seconds(args: list[str], runs: int) -> float:
    """The median CPU time (the work: it is one thread, and a shared machine's wall time is
    mostly the neighbours') of ``paramcount ARGS`` in this process, output discarded, each run
    as the console process makes it (``freeze``: see :func:`paramcount.cli.main.run`), from a
    collected heap."""
    times = []
    for _ in range(runs):
        gc.unfreeze()
        gc.collect()
        start = time.process_time()
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            code = run(args, freeze=True)
        times.append(time.process_time() - start)
        if code != 0:
            raise SystemExit(f"paramcount {' '.join(args)} exited {code}")
    return statistics.median(times)


def main() -> int:
    """Print each command's time at L and 10·L layers and their ratio; exit 1 above the goal."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--only", default="", help="comma-separated case names")
    options = parser.parse_args()
    names = options.only.split(",") if options.only else list(CASES)
    worst = 0.0
    print(f"{'case':20} {'L':>6} {'time':>9} {'10·L':>6} {'time':>9} {'ratio':>7}  "
          f"goal ≤ {GOAL:g}×")
    for name in names:
        layers, command = CASES[name]
        seconds(command(layers), 1)  # warm-up: imports and first-call costs
        base = seconds(command(layers), options.runs)
        deep = seconds(command(10 * layers), options.runs)
        ratio = deep / base
        if name in JUDGED:
            worst = max(worst, ratio)
        print(f"{name:20} {layers:>6,} {base:>8.3f}s {10 * layers:>6,} {deep:>8.3f}s "
              f"{ratio:>6.1f}×{'' if name in JUDGED else '  (information)'}", flush=True)
    print(f"worst judged ratio {worst:.1f}× (goal ≤ {GOAL:g}×): "
          f"{'ok' if worst <= GOAL else 'OVER'}")
    return 0 if worst <= GOAL else 1


if __name__ == "__main__":
    sys.exit(main())
