"""Is reading a sharded index linear in the header entries, and bounded? (issue 30, items 5, 6)

Makes indexes of S shards, each shard holding T tensors (copies, so that each is a file of its
own and read), reads each with ``inspect``'s reader in a fresh process, and prints the time
per million header entries (flat when linear) and the peak memory the read adds:

- 250 × 250, 1,000 × 1,000 (read whole), and 2,000 × 2,000 (4 million entries, past the
  limit of :data:`paramcount.files.dispatch.MAX_ENTRIES`: refused once it is passed);
- 8 levels of folders whose index names 4 links to the next level (4^8 re-reads before):
  refused at the first link, which is a folder.

    python benchmarks/index_speed.py [--runs 1]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

from probe import ROOT, probe

sys.path.insert(0, str(ROOT))

from paramcount.files.dispatch import MAX_ENTRIES
from tests.test_inspect_shards import write_index, write_shard

IMPORTS = ("from pathlib import Path\nfrom paramcount.files.dispatch import read_file\n"
           "from paramcount.errors import ParamcountError\nimport paramcount.files.hf_folder")
READ = ("try:\n    read_file(Path(path))\nexcept ParamcountError as error:\n"
        "    print(str(error)[-60:], file=sys.stderr)")

SIZES = (250, 1_000, 2_000)


def index_of(folder: Path, n: int) -> Path:
    """``n`` shards of ``n`` tensors each; the index lists each shard's first tensor."""
    first = write_shard(folder / "s0.safetensors", ["t0"] + [f"x.{k}" for k in range(1, n)])
    for s in range(1, n):
        shutil.copyfile(first, folder / f"s{s}.safetensors")
    return write_index(folder, {"t0": "s0.safetensors",
                                **{f"x.{s}": f"s{s}.safetensors" for s in range(1, n)}})


def link_tree(folder: Path, levels: int = 8) -> Path:
    """Folders of links: each level's index names 4 links to the next level's folder."""
    level = folder / f"level{levels}"
    level.mkdir()
    write_shard(level / "model.safetensors", ["w"])
    for depth in range(levels - 1, -1, -1):
        upper = folder / f"level{depth}"
        upper.mkdir()
        for n in range(4):
            (upper / f"s{n}.safetensors").symlink_to(level)
        write_index(upper, {f"w{n}": f"s{n}.safetensors" for n in range(4)})
        level = upper
    return level / "model.safetensors.index.json"


def measure(path: Path, runs: int) -> tuple[float, int]:
    """Median seconds and the largest peak-memory growth (KiB) of reading ``path``."""
    found = [probe(IMPORTS, READ, path) for _ in range(runs)]
    return statistics.median(t for t, _, _ in found), max(a - b for _, b, a in found)


def main() -> None:
    """Print each index's time per million entries and memory, against the smallest."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1)
    runs = parser.parse_args().runs
    base = None
    print(f"{'shards × tensors':18} {'read':>10} {'seconds':>8} {'s per 1M':>9} {'× base':>7}"
          f" {'peak MiB':>9}")
    for n in SIZES:
        with tempfile.TemporaryDirectory() as folder:
            seconds, memory = measure(index_of(Path(folder), n), runs)
        read = min(n * n, MAX_ENTRIES + n)  # past the limit, the read stops at the shard
        per_million = seconds / read * 1e6  # that passes it
        base = base or per_million
        print(f"{f'{n:,} × {n:,}':18} {read:>10,} {seconds:8.2f} {per_million:9.2f} "
              f"{per_million / base:7.2f} {memory / 1024:9.0f}")
    with tempfile.TemporaryDirectory() as folder:
        seconds, memory = measure(link_tree(Path(folder)), runs)
    print(f"8 levels of 4 links: {seconds:.3f} s, peak memory added {memory / 1024:.0f} MiB")


if __name__ == "__main__":
    main()
