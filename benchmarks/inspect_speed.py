"""Is ``paramcount inspect`` header-only? Big files read in about the time of tiny ones.

Makes, in a temporary folder: a tiny and a sparse multi-GB safetensors file (the header says
4 GB of float32; the data is a hole), and a tiny and a large torch checkpoint saved by the real
``torch.save`` (the large one's tensors are mapped from a sparse file, so making it costs disk,
not memory). Each file is read in a fresh process by paramcount (read + inspect), and, side by
side, by ``torch.load(mmap=True, weights_only=True)`` or ``safetensors.safe_open`` (every
tensor's shape). Prints the median time of the read itself (imports excluded), the ratio of
big to tiny, and peak RSS with its growth during the read. The files are deleted afterwards.

    python benchmarks/inspect_speed.py [--safetensors-gb 4] [--torch-gb 1] [--runs 3]
"""

from __future__ import annotations

import argparse
import json
import statistics
import struct
import subprocess
import sys
import tempfile
from pathlib import Path

from probe import probe

READERS = {
    "paramcount": (
        "from paramcount.files.dispatch import read_file\n"
        "from paramcount.files.inspect import inspect\nfrom pathlib import Path\n"
        "import paramcount.files.torch_file, paramcount.files.safetensors_file\n"
        "from paramcount.engine import conventions\n"
        "from paramcount.engine.spec import Framework\n"
        "for f in Framework: conventions.convention(f)",
        "report = inspect(read_file(Path(path)))\nassert report.total > 0",
    ),
    "torch.load": (
        "import torch",
        "state = torch.load(path, mmap=True, weights_only=True)\n"
        "state = state.get('model_state_dict', state)\n"
        "shapes = {k: tuple(v.shape) for k, v in state.items()}",
    ),
    "safe_open": (
        "from safetensors import safe_open",
        "with safe_open(path, framework='np') as f:\n"
        "    shapes = {k: f.get_slice(k).get_shape() for k in f.keys()}",
    ),
}


def run(reader: str, path: Path, runs: int) -> tuple[float, int, int]:
    """Median seconds, peak RSS and its growth (MiB) over ``runs`` fresh processes."""
    times, peaks, growths = [], [], []
    for _ in range(runs):
        elapsed, before, after = probe(*READERS[reader], path)
        times.append(elapsed)
        peaks.append(after // 1024)
        growths.append((after - before) // 1024)
    return statistics.median(times), max(peaks), max(growths)


def sparse_safetensors(path: Path, gigabytes: float) -> None:
    """A safetensors file whose header describes ``gigabytes`` of float32 held in a hole."""
    rows = 8192
    per = rows * rows * 4
    count = max(1, int(gigabytes * 1e9) // per)
    header = {f"layers.{i}.weight": {"dtype": "F32", "shape": [rows, rows],
                                     "data_offsets": [i * per, (i + 1) * per]}
              for i in range(count)}
    raw = json.dumps(header).encode()
    raw += b" " * (-len(raw) % 8)
    with path.open("wb") as stream:
        stream.write(struct.pack("<Q", len(raw)) + raw)
        stream.truncate(8 + len(raw) + count * per)


def make_files(directory: Path, safetensors_gb: float, torch_gb: float) -> None:
    """The four files: tiny and big, safetensors and torch."""
    import torch
    from safetensors.torch import save_file

    torch.manual_seed(0)
    tiny = torch.nn.LSTM(40, 128, num_layers=2).state_dict()
    save_file(tiny, str(directory / "tiny.safetensors"))
    torch.save(tiny, directory / "tiny.pt")
    sparse_safetensors(directory / "big.safetensors", safetensors_gb)
    rows = 4096
    count = max(1, int(torch_gb * 1e9) // (rows * rows * 4))
    backing = directory / "backing.bin"
    with backing.open("wb") as stream:
        stream.truncate(count * rows * rows * 4)
    flat = torch.from_file(str(backing), shared=True, size=count * rows * rows)
    state = {f"layers.{i}.weight": flat[i * rows * rows:(i + 1) * rows * rows].view(rows, rows)
             for i in range(count)}
    torch.save({"model_state_dict": state, "epoch": 1}, directory / "big.pt")
    del state, flat
    backing.unlink()


def main() -> None:
    """Make the files, time every reader on each, print the table and the ratios."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--safetensors-gb", type=float, default=4.0)
    parser.add_argument("--torch-gb", type=float, default=1.0)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--make", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.make:  # in a child process, so that this one stays small
        make_files(args.make, args.safetensors_gb, args.torch_gb)
        return
    with tempfile.TemporaryDirectory() as folder:
        subprocess.run([sys.executable, __file__, "--make", folder,
                        "--safetensors-gb", str(args.safetensors_gb),
                        "--torch-gb", str(args.torch_gb)], check=True)
        files = {name: Path(folder) / name for name in
                 ("tiny.safetensors", "big.safetensors", "tiny.pt", "big.pt")}
        print(f"{'file':18} {'size':>9}  {'reader':11} {'read s':>9} {'peak MiB':>9} "
              f"{'growth MiB':>10}")
        results: dict[tuple[str, str], float] = {}
        for name, path in files.items():
            baseline = "safe_open" if name.endswith(".safetensors") else "torch.load"
            for reader in ("paramcount", baseline):
                seconds, peak, growth = run(reader, path, args.runs)
                results[(name, reader)] = seconds
                print(f"{name:18} {path.stat().st_size / 1e9:8.2f}G  {reader:11} "
                      f"{seconds:9.5f} {peak:9d} {growth:10d}")
        print()
        for kind, baseline in (("safetensors", "safe_open"), ("pt", "torch.load")):
            for reader in ("paramcount", baseline):
                ratio = results[(f"big.{kind}", reader)] / results[(f"tiny.{kind}", reader)]
                print(f"{reader:11} big.{kind} / tiny.{kind}: {ratio:6.2f}x the time")


if __name__ == "__main__":
    main()
