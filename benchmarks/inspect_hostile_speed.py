"""Do hostile files cost time and memory in proportion to their size? (issue 24, items 1, 3, 4)

Makes each reproducer at a base size and at 20× it, reads each in a fresh process with
``paramcount inspect``'s reader and core, and prints the ratio of the large one's time to the
small one's against the bound (work at 20× the size within 25× the time), with the peak memory
each read adds:

- a torch checkpoint whose 100 top-level keys share one list of Nones (item 1), the list 20×
  longer, and 5 against 100 keys sharing one list (each key once cost a walk of the list);
- a legacy (pre-1.6) torch checkpoint whose pickle is one BINBYTES8 over a hole of a sparse
  file (item 3): 100 MB is read (under the 256 MB limit of a checkpoint's structure), 2 GB is
  refused before anything is read;
- an ONNX model of If nodes branching into a binary tree of subgraphs, each holding a
  Constant, within the nesting limit (item 4).

    python benchmarks/inspect_hostile_speed.py [--runs 3]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from probe import ROOT, probe

sys.path.insert(0, str(ROOT))

from tests.test_inspect_bounds import if_tree, shared_nones, sparse_legacy

IMPORTS = ("from pathlib import Path\nfrom paramcount.files.dispatch import read_file\n"
           "from paramcount.errors import ParamcountError\n"
           "from paramcount.files.inspect import inspect\n"
           "import paramcount.files.torch_file, paramcount.files.onnx_file")
READ = ("try:\n    inspect(read_file(Path(path)))\nexcept ParamcountError:\n    pass")

CASES: dict[str, Callable[[Path, int], Path]] = {
    "shared list of Nones (torch)": lambda p, n: shared_nones(p / "shared.pt", 100, 20_000 * n),
    "5 → 100 keys sharing it (torch)": lambda p, n: shared_nones(p / "keys.pt", 5 * n, 200_000),
    "sparse BINBYTES8 (legacy torch)": lambda p, n: sparse_legacy(p / "legacy.pt",
                                                                  100_000_000 * n),
    "tree of If subgraphs (ONNX)": lambda p, n: _write(p / "tree.onnx",
                                                        if_tree(8 if n == 1 else 12, 200)),
}
"""Each reproducer, at size 1 and 20 (the ONNX tree: 511 and 8,191 subgraphs, 16×)."""


def _write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def measure(path: Path, runs: int) -> tuple[float, int]:
    """Median seconds and the largest peak-memory growth (KiB) of reading ``path``."""
    times, growths = [], []
    for _ in range(runs):
        elapsed, before, after = probe(IMPORTS, READ, path)
        times.append(elapsed)
        growths.append(after - before)
    return statistics.median(times), max(growths)


def main() -> None:
    """Print each reproducer's small and large time and memory, and their ratios."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    runs = parser.parse_args().runs
    print(f"{'reproducer':34} {'size ×':>6} {'time ×':>7}  bound 25×")
    for name, make in CASES.items():
        with tempfile.TemporaryDirectory() as folder:
            small_dir, large_dir = Path(folder, "small"), Path(folder, "large")
            small_dir.mkdir()
            large_dir.mkdir()
            small, large = make(small_dir, 1), make(large_dir, 20)
            size = large.stat().st_blocks / max(small.stat().st_blocks, 1)
            (t_small, m_small), (t_large, m_large) = measure(small, runs), measure(large, runs)
            ratio = t_large / t_small
            print(f"{name:34} {size:6.1f} {ratio:7.1f}  {'ok' if ratio <= 25 else 'OVER'}"
                  f"  ({t_small * 1000:.0f} → {t_large * 1000:.0f} ms; peak memory added "
                  f"{m_small / 1024:.0f} → {m_large / 1024:.0f} MiB)")


if __name__ == "__main__":
    main()
