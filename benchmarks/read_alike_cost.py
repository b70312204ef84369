"""Does ``read``'s answer grow linearly with a dump of alike layers? (issue 30, item 11)

``parameters()`` shapes of N nn.LSTM(8, 16) in a row (alike, and unable to stack: a chain in
which every member's note once named the whole chain), read by ``paramcount read --json`` in a
fresh process for N = 1,000 to 8,000; prints the JSON's size and the peak memory the read adds,
per layer (flat when linear), and their ratios to the smallest size's (8,000 layers once took
1.7 GB and 574 MB of JSON).

    python benchmarks/read_alike_cost.py
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from probe import ROOT, probe

sys.path.insert(0, str(ROOT))

from tests.test_read_cost import alike

SIZES = (1_000, 2_000, 4_000, 8_000)
IMPORTS = "import contextlib, io\nfrom paramcount.cli.main import run"
READ = ("answer = io.StringIO()\nwith contextlib.redirect_stdout(answer):\n"
        "    run(['read', path, '--json'])\nprint(len(answer.getvalue()), file=sys.stderr)")


def main() -> None:
    """Print the JSON bytes and peak memory per layer at each size, against the smallest."""
    import subprocess

    print(f"{'layers':>7} {'JSON bytes':>12} {'per layer':>10} {'× base':>7} {'peak MiB':>9} "
          f"{'KiB/layer':>10} {'seconds':>8}")
    base = None
    for n in SIZES:
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder, "dump.txt")
            path.write_text(alike(n))
            seconds, before, after = probe(IMPORTS, READ, path)
            size = int(subprocess.run(
                [sys.executable, "-c", f"{IMPORTS}\nimport sys\npath = sys.argv[1]\n{READ}",
                 str(path)], capture_output=True, text=True,
                env={"PYTHONPATH": str(ROOT)}).stderr.split()[-1])
        per = size / n
        base = base or per
        print(f"{n:7,} {size:12,} {per:10.0f} {per / base:7.2f} {(after - before) / 1024:9.0f} "
              f"{(after - before) / n:10.1f} {seconds:8.2f}")


if __name__ == "__main__":
    main()
