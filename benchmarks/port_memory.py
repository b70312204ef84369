"""What porting a ~1 GB checkpoint costs in memory, against the checkpoint's size.

A torch checkpoint of ``nn.LSTM(2048, 2048, num_layers=3, bidirectional=True)`` (268 million
parameters, 1.07 GB in fp32; ``--hidden 1024`` makes it 67 million, 268 MB) is written once.
Fresh interpreters then either only import what a port needs (torch, numpy and paramcount's
port modules: the baseline; for ``.keras``, Keras and TensorFlow too) or run
``paramcount port big.pt --to keras --out out.safetensors`` (and ``--out out.npz``, from
``big.safetensors``, and ``--out out.keras``, a whole Keras model), and report their peak RSS.
For contrast, a naive port is measured too: ``torch.load`` without mmap, every tensor
converted, all target arrays built before ``numpy.savez``. Reported: each run's peak RSS
beyond its baseline, as a ratio of the checkpoint's size. Goals: at most 1.0 for the array
files (a port needs no more memory than the checkpoint it reads) and 1.5 for ``.keras``
(which holds the whole model in Keras' variables while Keras saves it).

Run from the repository root:
``PYTHONPATH=. python benchmarks/port_memory.py [--keep DIR] [--hidden 1024] [--only keras]``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GOAL = 1.0
KERAS_GOAL = 1.5

MAKE = """
import sys, torch
torch.manual_seed(0)
hidden = int(sys.argv[2])
with torch.no_grad():
    lstm = torch.nn.LSTM(hidden, hidden, num_layers=3, bidirectional=True)
torch.save(lstm.state_dict(), sys.argv[1])
from safetensors.torch import save_file
save_file(lstm.state_dict(), sys.argv[1].replace(".pt", ".safetensors"))
"""

CHILD = """
import contextlib, io, json, resource, sys
mode, source, out = sys.argv[1], sys.argv[2], sys.argv[3]
import numpy, torch
import paramcount.porting.run, paramcount.porting.load, paramcount.porting.write
import paramcount.porting.execute, paramcount.cli.commands.port
if mode in ("import-keras", "port-keras"):
    import paramcount.porting.graph
    from paramcount.verify.keras_backend import load
    load()
code = 0
if mode in ("port", "port-keras"):
    from paramcount.cli.main import run
    with contextlib.redirect_stdout(io.StringIO()):
        code = run(["port", source, "--to", "keras", "--out", out])
elif mode == "port-safetensors":
    from paramcount.cli.main import run
    with contextlib.redirect_stdout(io.StringIO()):
        code = run(["port", source.replace(".pt", ".safetensors"), "--to", "keras",
                    "--out", out])
elif mode == "naive":
    state = torch.load(source, map_location="cpu", weights_only=True)
    arrays = {}
    for name, tensor in state.items():
        array = tensor.numpy()
        arrays[name] = array.T.copy() if array.ndim == 2 else array.copy()
    numpy.savez(out, **arrays)
print(json.dumps({"code": code,
                  "peak_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}))
"""


def child(mode: str, source: Path, out: Path) -> float:
    """Peak RSS in MB of one fresh interpreter running ``mode``."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", CHILD, mode, str(source), str(out)],
                          capture_output=True, text=True, env=env, cwd=ROOT, check=True)
    data = json.loads(done.stdout.strip().splitlines()[-1])
    assert data["code"] == 0, done
    return float(data["peak_kb"]) / 1024


def main() -> int:
    """Make the checkpoint, measure each way of porting it, print ratios; exit 1 off goal."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", type=Path, default=None,
                        help="a directory to write the files in (default: a temporary one)")
    parser.add_argument("--hidden", type=int, default=2048,
                        help="the LSTM's width (2048: 1.07 GB; 1024: 268 MB)")
    parser.add_argument("--only", choices=["arrays", "keras"], default=None,
                        help="measure only the array files, or only .keras")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        directory = options.keep or Path(scratch)
        source = directory / f"big{options.hidden}.pt"
        if not source.exists():
            subprocess.run([sys.executable, "-c", MAKE, str(source), str(options.hidden)],
                           check=True)
        size_mb = source.stat().st_size / 2**20
        print(f"checkpoint: nn.LSTM({options.hidden}, {options.hidden}, num_layers=3, "
              f"bidirectional=True), {size_mb:,.0f} MB")
        ok = True
        runs = [("import", "port", "out.safetensors", "port big.pt --out out.safetensors"),
                ("import", "port", "out.npz", "port big.pt --out out.npz"),
                ("import", "port-safetensors", "out.npz", "port big.safetensors --out out.npz"),
                ("import", "naive", "naive.npz", "naive torch.load + numpy.savez"),
                ("import-keras", "port-keras", "out.keras", "port big.pt --out out.keras")]
        wanted = {None: ("import", "import-keras"), "arrays": ("import",),
                  "keras": ("import-keras",)}[options.only]
        baselines = {}
        for base in wanted:
            baselines[base] = child(base, source, directory / "unused")
            print(f"baseline ({base.replace('-', ' ')} only): peak RSS "
                  f"{baselines[base]:,.0f} MB")
        for base, mode, out, label in runs:
            if base not in wanted:
                continue
            peak = child(mode, source, directory / out)
            extra = peak - baselines[base]
            ratio = extra / size_mb
            print(f"{label:38} peak RSS {peak:,.0f} MB, beyond baseline {extra:,.0f} MB "
                  f"= {ratio:.2f} × the checkpoint")
            goal = KERAS_GOAL if mode == "port-keras" else GOAL
            if mode != "naive" and ratio > goal:
                ok = False
                print(f"  OVER the goal of {goal:.1f} ×")
            (directory / out).unlink(missing_ok=True)
    print(f"goals: at most {GOAL:.1f} × the checkpoint beyond the baseline for array files, "
          f"{KERAS_GOAL:.1f} × for .keras: {'within' if ok else 'OVER'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
