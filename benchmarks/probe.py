"""One read timed in a fresh interpreter, with its peak memory before and after: shared by the
inspect benchmarks.

The peak is the process's own VmHWM (``ru_maxrss`` would inherit the parent's across exec).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

PROBE = """
import sys, time
def peak():
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmHWM"))
path = sys.argv[1]
{imports}
before = peak()
start = time.perf_counter()
{read}
elapsed = time.perf_counter() - start
after = peak()
print(elapsed, before, after)
"""


def probe(imports: str, read: str, path: Path) -> tuple[float, int, int]:
    """Seconds of ``read`` (after ``imports``) on ``path`` in a fresh interpreter, and its peak
    RSS in KiB before and after the read."""
    code = PROBE.format(imports=imports, read=read)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TF_CPP_MIN_LOG_LEVEL": "3"}
    out = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True,
                         text=True, check=True, env=env).stdout.split()
    return float(out[-3]), int(out[-2]), int(out[-1])
