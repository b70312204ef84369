"""Make the screenshots of docs/web.md and the README: the served page's answer (down to its
chart) and the static site from its top, each opened from the share link of the first classic
question in headless Chromium, once it answered.

    python docs/web_screenshots.py
"""

from __future__ import annotations

import base64
import sys
import tempfile
import threading
from pathlib import Path

DOCS = Path(__file__).resolve().parent
sys.path.insert(0, str(DOCS.parent))

from tests.browser import Browser  # noqa: E402  (the repository's root first)
from tests.test_web_page import SHARE, serve_files  # noqa: E402


def capture(browser: Browser, url: str, path: Path, whole: bool) -> None:
    """Open ``url`` (a share link), wait for its answer, save the answer down to its chart
    (``whole``: the page from its top, forms and all, down to the first tables)."""
    browser.send("Page.navigate", url="about:blank")
    browser.wait_for("location.href === 'about:blank'")
    browser.open(url)
    browser.wait_for("Number(document.body.dataset.answered || 0) > 0", 180)
    box = "(id) => document.getElementById(id).getBoundingClientRect()"
    top = 0 if whole else browser.evaluate(f"({box})('answer').top + window.scrollY")
    bottom = browser.evaluate(f"({box})('chart').bottom + window.scrollY")
    height = 1300 if whole else bottom - top + 10
    shot = browser.send("Page.captureScreenshot", format="png", captureBeyondViewport=True,
                        clip={"x": 0, "y": top, "width": 1200, "height": height, "scale": 1})
    path.write_bytes(base64.b64decode(shot["data"]))
    print(f"wrote {path.relative_to(DOCS.parent)}")


def main() -> None:
    """Serve both faces, capture each."""
    from paramcount.cli.asked import page_answer
    from paramcount.cli.paste import MAX_BYTES
    from paramcount.web.server import PageServer
    from paramcount.web.site import build_site

    server = PageServer(0, page_answer, MAX_BYTES)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    with tempfile.TemporaryDirectory() as folder, Browser(timeout=180) as browser:
        build_site(folder)
        files, static_url = serve_files(Path(folder))
        capture(browser, server.url + SHARE, DOCS / "web-served.png", whole=False)
        capture(browser, static_url + SHARE, DOCS / "web-static.png", whole=True)
        files.shutdown()
    server.shutdown()


if __name__ == "__main__":
    main()
