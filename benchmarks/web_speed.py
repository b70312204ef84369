"""Speed of the page against the command line, measured in headless Chromium in one run.

    python benchmarks/web_speed.py [--runs 5]

The question is a 1,000-row Keras 3 summary (``benchmarks/read_speed.py`` writes it). The
command line's time is ``paramcount read FILE`` run whole (a fresh process, as a user runs it),
median of the runs; beside it the library call ``paramcount.read`` in this process. The served
page's time is from the click on "Read the paste" to the answer shown, measured by the page's
own clock (``performance.now()``), median of the runs. The static page (``paramcount web
build``, hosted as plain files on 127.0.0.1) is timed from the navigation to its first answer
(a ``#cmd=`` share link: Pyodide started, paramcount imported, the question answered) and then
for the same 1,000-row table. Targets: served ≤ CLI + 100 ms; static first answer ≤ 5 s; static
later answers ≤ CLI × 3. Machines are noisy: the load average is printed beside the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import runpy
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.browser import Browser  # noqa: E402  (the repository's root first)
from tests.test_web_page import serve_files  # noqa: E402

_TIMED = """new Promise((resolve) => {
  const before = Number(document.body.dataset.answered || 0);
  document.getElementById('paste').value = %s;
  const start = performance.now();
  const observer = new MutationObserver(() => {
    if (Number(document.body.dataset.answered || 0) > before) {
      observer.disconnect();
      resolve([performance.now() - start, document.getElementById('status').textContent]);
    }
  });
  observer.observe(document.body, {attributes: true});
  document.getElementById('read-button').click();
})"""


def page_times(browser: Browser, url: str, text: str, runs: int) -> list[float]:
    """Seconds from the click to the answer shown, ``runs`` times, on the page at ``url``."""
    times = []
    for _ in range(runs):
        seconds, status = browser.evaluate(_TIMED % json.dumps(text), wait=True)
        assert "parameters" in status or "Answered" in status, status
        times.append(seconds / 1000)
    return times


def cpu_seconds(root: int) -> float:
    """The CPU time (user + system) of process ``root`` and all its descendants so far."""
    ticks = os.sysconf("SC_CLK_TCK")
    parents: dict[int, int] = {}
    used: dict[int, float] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parents[int(entry.name)] = int(fields[1])
        used[int(entry.name)] = sum(int(f) for f in fields[11:15]) / ticks

    def under(pid: int) -> bool:
        while pid not in (0, 1):
            if pid == root:
                return True
            pid = parents.get(pid, 0)
        return False

    return sum(seconds for pid, seconds in used.items() if under(pid))


def first_answer(browser: Browser, url: str) -> tuple[float, float]:
    """Seconds from the navigation to the first answer of a ``#cmd=`` link, and the CPU
    seconds Chromium spent meanwhile (all its processes: a figure the machine's load
    disturbs much less)."""
    browser.send("Page.navigate", url="about:blank")
    browser.wait_for("location.href === 'about:blank'")
    before = cpu_seconds(browser.process.pid)
    browser.open(url + "#cmd=lstm%20--input%2032%20--hidden%20128%20--layers%202%20--bidir")
    browser.wait_for("Number(document.body.dataset.answered || 0) > 0", 120)
    cpu = cpu_seconds(browser.process.pid) - before
    return float(browser.evaluate("Number(document.body.dataset.answeredMs)")) / 1000, cpu


def main() -> None:
    """Measure and print the figures and ratios."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    runs = parser.parse_args().runs
    from paramcount.cli.asked import page_answer
    from paramcount.cli.paste import MAX_BYTES
    from paramcount.web.server import PageServer
    from paramcount.web.site import build_site

    table = runpy.run_path(str(ROOT / "benchmarks" / "read_speed.py"))["summary"](1000)
    with tempfile.TemporaryDirectory() as folder:
        paste = Path(folder) / "summary.txt"
        paste.write_text(table)
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        command = [sys.executable, "-m", "paramcount", "read", str(paste)]
        subprocess.run(command, capture_output=True, env=env, check=True)  # warm-up
        cli = []
        for _ in range(runs):
            start = time.perf_counter()
            subprocess.run(command, capture_output=True, env=env, check=True)
            cli.append(time.perf_counter() - start)
        import paramcount

        library = []
        for _ in range(runs):
            start = time.perf_counter()
            paramcount.read(table)
            library.append(time.perf_counter() - start)
        build_site(Path(folder) / "site")
        static_server, static_url = serve_files(Path(folder) / "site")
        server = PageServer(0, page_answer, MAX_BYTES)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        with Browser(timeout=120) as browser:
            browser.open(server.url)
            page_times(browser, server.url, table, 1)  # warm-up
            served = page_times(browser, server.url, table, runs)
            firsts = [first_answer(browser, static_url) for _ in range(max(1, runs // 2))]
            later = page_times(browser, static_url, table, runs)
        server.shutdown()
        static_server.shutdown()
    cli_s, lib_s = statistics.median(cli), statistics.median(library)
    served_s, later_s = statistics.median(served), statistics.median(later)
    first_s = statistics.median(f for f, _ in firsts)
    first_cpu = statistics.median(c for _, c in firsts)
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs; medians of {runs}")
    print(f"  paramcount read (1,000-row table, whole command)  {cli_s * 1000:8.0f} ms")
    print(f"  paramcount.read() in-process                      {lib_s * 1000:8.0f} ms")
    print(f"  served page, click → answer                       {served_s * 1000:8.0f} ms"
          f"   CLI + {(served_s - cli_s) * 1000:+.0f} ms (target ≤ +100 ms)")
    print(f"  static page, navigation → first answer            {first_s * 1000:8.0f} ms"
          f"   (target ≤ 5,000 ms; runs: {', '.join(f'{f:.1f} s' for f, _ in firsts)})")
    print(f"    of which Chromium's CPU time (all processes)     {first_cpu * 1000:8.0f} ms")
    print(f"  static page, click → answer (later)               {later_s * 1000:8.0f} ms"
          f"   {later_s / cli_s:.2f}× the CLI (target ≤ 3×)")


if __name__ == "__main__":
    main()
