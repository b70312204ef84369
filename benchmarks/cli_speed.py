"""Whole-process speed of ``paramcount lstm``, as ratios against baselines timed in this run.

    python benchmarks/cli_speed.py [--runs 30]

Baselines: a bare interpreter (``python -c pass``) and counting the same layer with torch.
Goals (issue 3): table output ≤ 8× bare start, --json ≤ 5×, and ≥ 15× faster than torch.
Runs are interleaved and the median is reported, because machines are noisy.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time

LAYER = ["lstm", "--input", "32", "--hidden", "128", "--layers", "2", "--bidir"]
TORCH = (
    "import torch; m = torch.nn.LSTM(32, 128, 2, bidirectional=True); "
    "print(sum(p.numel() for p in m.parameters()))"
)


def paramcount_command() -> list[str]:
    """The installed console script next to this interpreter, else ``python -m paramcount``."""
    script = shutil.which("paramcount", path=os.path.dirname(sys.executable))
    return [script] if script else [sys.executable, "-m", "paramcount"]


def main() -> None:
    """Time each command, print medians, ratios and whether the goals are met."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--no-torch", action="store_true", help="skip the torch baseline")
    args = parser.parse_args()

    pc = paramcount_command()
    cases: dict[str, tuple[list[str], dict[str, str]]] = {
        "python -c pass": ([sys.executable, "-c", "pass"], {}),
        "paramcount (table, piped)": ([*pc, *LAYER], {}),
        "paramcount (table, terminal/rich)": ([*pc, *LAYER], {"FORCE_COLOR": "1"}),
        "paramcount --json": ([*pc, *LAYER, "--json"], {}),
        "paramcount --markdown": ([*pc, *LAYER, "--markdown"], {}),
    }
    if not args.no_torch:
        cases["torch nn.LSTM count"] = ([sys.executable, "-c", TORCH], {})
    times: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(args.runs):
        for name, (command, extra_env) in cases.items():
            env = {**os.environ, **extra_env}
            start = time.perf_counter()
            subprocess.run(command, stdout=subprocess.DEVNULL, env=env, check=True)
            times[name].append(time.perf_counter() - start)
    median = {name: statistics.median(values) for name, values in times.items()}
    bare = median["python -c pass"]
    print(f"command: {' '.join(pc)}  ({args.runs} interleaved runs, medians)")
    for name, value in median.items():
        print(f"  {name:36s} {value * 1000:8.1f} ms  {value / bare:6.2f}× bare")
    print("goals:")
    goals = [
        ("table (piped) ≤ 8× bare", median["paramcount (table, piped)"] / bare, 8, "≤"),
        ("table (terminal) ≤ 8× bare", median["paramcount (table, terminal/rich)"] / bare, 8,
         "≤"),
        ("--json ≤ 5× bare", median["paramcount --json"] / bare, 5, "≤"),
    ]
    if "torch nn.LSTM count" in median:
        goals.append((
            "≥ 15× faster than torch",
            median["torch nn.LSTM count"] / median["paramcount (table, piped)"], 15, "≥",
        ))
    for label, value, limit, sense in goals:
        met = value <= limit if sense == "≤" else value >= limit
        print(f"  {label:30s} {value:6.2f}  {'met' if met else 'NOT met'}")


if __name__ == "__main__":
    main()
