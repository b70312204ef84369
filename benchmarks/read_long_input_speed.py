"""Is ``paramcount read`` linear on long pasted text? (issue 24, item 2)

Every long input of ``tests/long_inputs.py`` (a run of each character class, alone, in code, in
a question, after each printer's header, and one long mixed line) is read at a base size and at
20× it, in this process; the ratio of the total times is printed against the bound (work at 20×
the size within 25× the time). A pattern that backtracks over every start in a long word grows
with the square of the size: 400× here.

    python benchmarks/read_long_input_speed.py [--size 5000]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.long_inputs import main as time_all

BOUND = 25.0


def measure(size: int) -> tuple[float, float, tuple[float, str]]:
    """Total seconds at ``size`` and at 20×, and the slowest case at 20×."""
    time_all(size // 10)  # warm: imports and caches
    small = sum(seconds for seconds, _ in time_all(size))
    large_cases = time_all(20 * size)
    return small, sum(seconds for seconds, _ in large_cases), large_cases[0]


def report(size: int) -> bool:
    """Print the ratio; whether it is within the bound."""
    small, large, (slowest, name) = measure(size)
    ratio = large / small
    print(f"read on long inputs: {size:,} → {20 * size:,} characters (20×): {small:.2f} s → "
          f"{large:.2f} s, {ratio:.1f}× (bound {BOUND:g}×); slowest at 20×: {name} "
          f"{slowest:.2f} s")
    return ratio <= BOUND


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=5_000)
    sys.exit(0 if report(parser.parse_args().size) else 1)
