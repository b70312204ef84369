"""What --verify costs beyond importing the framework, at 48 billion parameters.

For each framework, fresh interpreters either only import it (the baseline) or import it and
run ``paramcount lstm --input 8192 --hidden 16384 --layers 8 --bidir --verify``. Reported: the
extra peak RSS and the extra wall time of the verifying run over the baseline (medians of
several runs), and the time the verification itself took after the import, measured inside the
process. Goal: at most 200 MB and 1 s beyond the import, in each framework.

Run from the repository root: ``PYTHONPATH=. python benchmarks/verify_memory.py [--repeat N]``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ARGS = ["lstm", "--input", "8192", "--hidden", "16384", "--layers", "8", "--bidir", "--verify"]
GOAL_MB, GOAL_S = 200.0, 1.0

CHILD = """
import contextlib, io, json, resource, sys, time
start = time.perf_counter()
from paramcount.engine.spec import Framework
from paramcount.verify import backend
framework, mode, args = sys.argv[1], sys.argv[2], sys.argv[3:]
backend(Framework(framework)).version()  # imports the framework, quietly
imported = time.perf_counter()
import_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
code = 0
if mode == "verify":
    from paramcount.cli.main import run
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = run([*args, "--framework", framework])
    assert "Verified against" in out.getvalue(), out.getvalue()
end = time.perf_counter()
print(json.dumps({
    "code": code,
    "import_s": imported - start,
    "after_import_s": end - imported,
    "peak_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
    "import_peak_kb": import_rss,
}))
"""


def child(framework: str, mode: str) -> dict[str, float]:
    """Run one fresh interpreter; return its measurements and its wall time."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    start = time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-c", CHILD, framework, mode, *ARGS],
        capture_output=True, text=True, env=env, cwd=ROOT, check=True,
    )
    wall = time.perf_counter() - start
    data: dict[str, float] = json.loads(out.stdout.strip().splitlines()[-1])
    assert data["code"] == 0, out
    data["wall_s"] = wall
    return data


def median(runs: list[dict[str, float]], key: str) -> float:
    """The median of one measurement over the runs."""
    return statistics.median(run[key] for run in runs)


def main() -> int:
    """Measure each framework and print the figures; exit 1 if a goal is missed."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per measurement (median)")
    parser.add_argument("--framework", action="append", choices=["torch", "keras"])
    options = parser.parse_args()
    print(f"paramcount {' '.join(ARGS)}  (48,320,479,232 parameters in torch)")
    print(f"{'framework':<10} {'import MB':>10} {'verify MB':>10} {'extra MB':>9} "
          f"{'import s':>9} {'verify s':>9} {'extra s':>8} {'in-process s':>13}  goal")
    ok = True
    for framework in options.framework or ["torch", "keras"]:
        base, verify = [], []
        for _ in range(options.repeat):
            base.append(child(framework, "import"))
            verify.append(child(framework, "verify"))
        base_mb = median(base, "peak_kb") / 1024
        verify_mb = median(verify, "peak_kb") / 1024
        extra_mb = verify_mb - base_mb
        extra_s = median(verify, "wall_s") - median(base, "wall_s")
        inside_s = median(verify, "after_import_s")
        met = extra_mb <= GOAL_MB and max(extra_s, inside_s) <= GOAL_S
        ok &= met
        print(f"{framework:<10} {base_mb:>10.1f} {verify_mb:>10.1f} {extra_mb:>+9.1f} "
              f"{median(base, 'wall_s'):>9.2f} {median(verify, 'wall_s'):>9.2f} "
              f"{extra_s:>+8.2f} {inside_s:>13.3f}  {'met' if met else 'MISSED'}")
    print(f"goal: extra peak RSS <= {GOAL_MB:.0f} MB and extra wall time <= {GOAL_S:.0f} s")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
