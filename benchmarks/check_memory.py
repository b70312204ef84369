"""How much memory does ``paramcount check`` take for a large config? Peak RSS, as ratios.

Configs of one model whose ``description`` is one long string (plain, full of escaped quotes,
or in TOML) are checked in a fresh interpreter each; the peak resident memory above the same
check of a one-line-description config, divided by the file's size, is printed with the goal
(≤ 5×: memory proportional to the input; a regular expression over the string took 120×).

    python benchmarks/check_memory.py [--mb 10]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

from probe import probe

GOAL = 5.0
"""The most peak memory above the baseline, as a multiple of the config's size."""

IMPORTS = "import contextlib, io\nfrom paramcount.cli.main import run"
CHECK = "with contextlib.redirect_stdout(io.StringIO()):\n    run(['check', path])"


def json_config(description: str) -> str:
    """A one-model JSON config carrying ``description``."""
    return json.dumps({"models": {"tagger": {
        "description": description, "input": 8, "total": 544,
        "layers": [{"kind": "lstm", "hidden": 8}],
    }}})


def toml_config(description: str) -> str:
    """The same model as TOML."""
    return (f'[models.tagger]\ndescription = "{description}"\ninput = 8\ntotal = 544\n'
            'layers = [{ kind = "lstm", hidden = 8 }]\n')


def main() -> int:
    """Print each config's size, peak above the baseline and their ratio; exit 1 above goal."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=10.0, help="size of the long string")
    size = int(parser.parse_args().mb * 1_000_000)
    cases = {
        "json": ("json", json_config("x" * size)),
        "json-escapes": ("json", json_config('x"y\\' * (size // 4))),
        "toml": ("toml", toml_config("x" * size)),
    }
    worst = 0.0
    with tempfile.TemporaryDirectory() as directory:
        folder = Path(directory)
        for suffix in ("json", "toml"):
            small = json_config("x") if suffix == "json" else toml_config("x")
            (folder / f"small.{suffix}").write_text(small)
        baselines = {suffix: probe(IMPORTS, CHECK, folder / f"small.{suffix}")[2]
                     for suffix in ("json", "toml")}
        print(f"{'config':14} {'file':>12} {'peak above':>14} {'ratio':>7}  goal ≤ {GOAL:g}×")
        for name, (suffix, text) in cases.items():
            path = folder / f"{name}.{suffix}"
            path.write_text(text)
            file_bytes = path.stat().st_size
            _, _, peak = probe(IMPORTS, CHECK, path)
            above = (peak - baselines[suffix]) * 1024
            ratio = above / file_bytes
            worst = max(worst, ratio)
            print(f"{name:14} {file_bytes:>12,} {above:>14,} {ratio:>6.1f}×", flush=True)
    print(f"worst ratio {worst:.1f}× (goal ≤ {GOAL:g}×): {'ok' if worst <= GOAL else 'OVER'}")
    return 0 if worst <= GOAL else 1


if __name__ == "__main__":
    sys.exit(main())
