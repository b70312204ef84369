"""Whole-process start-up of ``paramcount lstm`` from a regular install, as ratios against
baselines timed in this run.

    python benchmarks/cli_speed.py [--runs 30] [--no-torch]

The repository is installed as a user would have it: a regular (non-editable) ``pip install``
into a fresh virtual environment holding only paramcount, click and rich, run through its
console script. Baselines: that environment's bare interpreter (``python -c pass``; a busy
environment's many ``.pth`` files slow a bare start and would flatter the ratios) and counting
the same layer with torch in this interpreter.
Goals (issue 15): table output ≤ 6× bare start (piped and on a terminal), --json ≤ 4×;
≥ 15× faster than torch. Issue 20: a family model counted from flags or from a config.json
starts as fast as an LSTM count (within 10%). Also shown: the imports those goals rule out
(click; rich's console, as the terminal table used to load it; dataclasses), each timed alone
from a bare start.
Runs are interleaved and the median is reported, because machines are noisy.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
LAYER = ["lstm", "--input", "32", "--hidden", "128", "--layers", "2", "--bidir"]
FAMILY = ["mamba", "--d-model", "768", "--layers", "24", "--d-state", "16", "--expand", "2",
          "--vocab", "50280"]
FAMILY_SMALL = ["mamba", "--d-model", "128", "--layers", "2", "--vocab", "1000"]
"""For --json, which lists every tensor of every block (mamba-130m's 264 take ~10 ms to encode,
the 2-layer LSTM's 16 well under one): 2 blocks, as the LSTM case has 2 layers."""
CONFIG = REPO / "examples" / "hf" / "mamba2-1.3b" / "config.json"
XLSTM = REPO / "examples" / "hf" / "xlstm-7b" / "config.json"
GEMMA = REPO / "examples" / "hf" / "recurrentgemma-2b" / "config.json"
TORCH = (
    "import torch; m = torch.nn.LSTM(32, 128, 2, bidirectional=True); "
    "print(sum(p.numel() for p in m.parameters()))"
)


def install(root: Path) -> tuple[list[str], str]:
    """A fresh virtual environment at ``root`` with the repository installed; its console
    script and its interpreter."""
    subprocess.run([sys.executable, "-m", "venv", str(root)], check=True)
    python = str(root / "bin" / "python")
    subprocess.run([python, "-m", "pip", "install", "--quiet", str(REPO)], check=True)
    where = subprocess.run(
        [python, "-c", "import paramcount; print(paramcount.__file__)"],
        capture_output=True, text=True, check=True, cwd=root,
    ).stdout.strip()
    if not where.startswith(str(root)):
        raise SystemExit(f"the installed copy is not the one imported: {where}")
    return [str(root / "bin" / "paramcount")], python


def main() -> None:
    """Install, time each command, print medians, ratios and whether the goals are met."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--no-torch", action="store_true", help="skip the torch baseline")
    args = parser.parse_args()

    # Every command runs outside the repository, so that the installed copy is imported.
    with tempfile.TemporaryDirectory() as tmp:
        pc, python = install(Path(tmp) / "venv")
        env = dict(os.environ)
        cases: dict[str, tuple[list[str], dict[str, str]]] = {
            "python -c pass": ([python, "-c", "pass"], {}),
            "paramcount (table, piped)": ([*pc, *LAYER], env),
            "paramcount (table, terminal)": ([*pc, *LAYER], {**env, "FORCE_COLOR": "1"}),
            "paramcount --json": ([*pc, *LAYER, "--json"], env),
            "paramcount --markdown": ([*pc, *LAYER, "--markdown"], env),
            "paramcount explain --brief (click)": ([*pc, "explain", *LAYER, "--brief"], env),
            "paramcount mamba (table, piped)": ([*pc, *FAMILY], env),
            "paramcount mamba --json (2 blocks)": ([*pc, *FAMILY_SMALL, "--json"], env),
            "paramcount mamba2 --config (table)": ([*pc, "mamba2", "--config", str(CONFIG)],
                                                   env),
            "paramcount xlstm --config (table)": ([*pc, "xlstm", "--config", str(XLSTM)], env),
            "paramcount rglru --config (table)": ([*pc, "rglru", "--config", str(GEMMA)], env),
            "python -c 'import click'": ([python, "-c", "import click"], {}),
            "python -c 'import rich.console'": ([python, "-c", "import rich.console"], {}),
            "python -c 'import dataclasses'": ([python, "-c", "import dataclasses"], {}),
        }
        if not args.no_torch:
            cases["torch nn.LSTM count"] = ([sys.executable, "-c", TORCH], {})
        times: dict[str, list[float]] = {name: [] for name in cases}
        for _ in range(args.runs):
            for name, (command, case_env) in cases.items():
                start = time.perf_counter()
                subprocess.run(command, stdout=subprocess.DEVNULL, env=case_env or None,
                               check=True, cwd=tmp)
                times[name].append(time.perf_counter() - start)
    median = {name: statistics.median(values) for name, values in times.items()}
    bare = median["python -c pass"]
    print(f"regular install (fresh venv, console script); {args.runs} interleaved runs, medians")
    for name, value in median.items():
        print(f"  {name:36s} {value * 1000:8.1f} ms  {value / bare:6.2f}× bare")
    print("goals:")
    goals = [
        ("table (piped) ≤ 6× bare", median["paramcount (table, piped)"] / bare, 6, "≤"),
        ("table (terminal) ≤ 6× bare", median["paramcount (table, terminal)"] / bare, 6, "≤"),
        ("--json ≤ 4× bare", median["paramcount --json"] / bare, 4, "≤"),
    ]
    lstm = median["paramcount (table, piped)"]
    goals += [
        ("mamba (flags) ≤ 1.1× lstm", median["paramcount mamba (table, piped)"] / lstm, 1.1, "≤"),
        ("mamba --json ≤ 1.1× lstm --json",
         median["paramcount mamba --json (2 blocks)"] / median["paramcount --json"], 1.1, "≤"),
        ("mamba2 --config ≤ 1.1× lstm", median["paramcount mamba2 --config (table)"] / lstm,
         1.1, "≤"),
        ("xlstm --config ≤ 1.1× lstm", median["paramcount xlstm --config (table)"] / lstm,
         1.1, "≤"),
        ("rglru --config ≤ 1.1× lstm", median["paramcount rglru --config (table)"] / lstm,
         1.1, "≤"),
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
