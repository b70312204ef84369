"""Is ``paramcount check`` linear in a model's layers? (issue 30, item 12)

One model of an LSTM followed by N parameter-free layers (dropout and relu in turn, each
named, every tenth reading the one before it by ``from``), checked whole (``paramcount check
FILE``) in a fresh process for N = 12,500 to 100,000; prints the seconds per 10,000 layers
(flat when linear) and the ratio to the smallest size's (a copy of the following layers' kinds
for each layer made 100,000 layers take 113 s).

    python benchmarks/check_layers_speed.py [--runs 1]
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

ROOT = Path(__file__).resolve().parent.parent
SIZES = (12_500, 25_000, 50_000, 100_000)


def config_text(n: int) -> str:
    """The config: one model, an LSTM then ``n`` parameter-free layers."""
    layers = ['{ kind = "lstm", hidden = 32, name = "l0" }']
    for k in range(1, n + 1):
        kind = "dropout" if k % 2 else "relu"
        read = f', from = "l{k - 1}"' if k % 10 == 0 else ""
        layers.append(f'{{ kind = "{kind}", name = "l{k}"{read} }}')
    return "[models.deep]\ninput = 16\nlayers = [\n  " + ",\n  ".join(layers) + ",\n]\n"


def seconds(path: Path, runs: int) -> float:
    """Median wall seconds of ``paramcount check PATH`` in a fresh process."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "paramcount", "check", str(path)], check=True,
                       capture_output=True, env=env)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    """Print the seconds per 10,000 layers at each size, and the ratio to the smallest."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1)
    runs = parser.parse_args().runs
    base = None
    print(f"{'layers':>8} {'seconds':>8} {'s per 10k':>10} {'× base':>7}")
    for n in SIZES:
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder, "deep.toml")
            path.write_text(config_text(n))
            taken = seconds(path, runs)
        per = taken / n * 10_000
        base = base or per
        print(f"{n:8,} {taken:8.2f} {per:10.3f} {per / base:7.2f}")


if __name__ == "__main__":
    main()
