"""The page in a real browser (headless Chromium), served by ``paramcount serve`` and as the
static site of ``paramcount web build`` running the core in Pyodide: the four classic questions
pasted and answered, the count form, share links (``--dump-dom`` and live), "copy as Markdown",
the page by keyboard alone, and names from a paste that stay text.

Skipped only where Chromium is not installed (``.ci/run`` installs it). The static site needs
Pyodide's npm archive: ``paramcount web build`` fetches it with ``npm pack`` into its cache."""

from __future__ import annotations

import functools
import http.server
import threading
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest

import paramcount
from tests.browser import Browser, chromium, dump_dom

pytestmark = [pytest.mark.browser, pytest.mark.skipif(
    chromium() is None, reason="needs Chromium: apt-get install chromium (.ci/run installs it)")]

FACES = ["served", "static"]

STATIC_SECONDS = 90.0
"""How long a test waits for the static page's first answer (Pyodide starting on a busy
machine); the speed itself is measured by benchmarks/web_speed.py, not asserted."""


class _Quiet(http.server.SimpleHTTPRequestHandler):
    """A plain file server, as any static host is, that logs nothing."""

    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map,  # noqa: RUF012
                      ".mjs": "text/javascript", ".wasm": "application/wasm"}

    def log_message(self, format: str, *args: object) -> None:
        """Nothing."""


def serve_files(directory: Path) -> tuple[http.server.ThreadingHTTPServer, str]:
    """A plain static file server of ``directory`` on a free loopback port, and its address."""
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(_Quiet, directory=str(directory)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The static site, built by ``paramcount web build`` and hosted as plain files."""
    from paramcount.web.site import build_site

    directory = tmp_path_factory.mktemp("site")
    build_site(directory)
    server, url = serve_files(directory)
    yield url
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def served() -> Iterator[str]:
    """The page of ``paramcount serve``, on a free loopback port."""
    from paramcount.cli.asked import page_answer
    from paramcount.cli.paste import MAX_BYTES
    from paramcount.web.server import PageServer

    server = PageServer(0, page_answer, MAX_BYTES)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server.url
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module", params=FACES)
def face(request: pytest.FixtureRequest) -> str:
    """The page's address: served, or the static site."""
    return str(request.getfixturevalue("served" if request.param == "served" else "site"))


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """One headless Chromium for the module."""
    with Browser(timeout=STATIC_SECONDS) as opened:
        yield opened


def opened(browser: Browser, url: str) -> Browser:
    """``browser`` on a fresh load of ``url``, its script running (Pyodide started on the
    static page, which answers a first question to know it)."""
    browser.send("Page.navigate", url="about:blank")  # a fresh load, not a fragment's move
    browser.wait_for("location.href === 'about:blank' && document.readyState === 'complete'")
    browser.events.clear()
    browser.open(url)
    return browser


LINE = "lstm --input 32 --hidden 128 --layers 2 --bidir"
SHARE = "#cmd=lstm%20--input%2032%20--hidden%20128%20--layers%202%20--bidir"

CLASSIC = [
    ("nn-lstm-561152", "lstm = nn.LSTM(32, 128, num_layers=2, bidirectional=True)", "561,152"),
    ("keras-bidirectional-160768", "from keras import Sequential, Input\n"
     "from keras.layers import Bidirectional, LSTM\n"
     "model = Sequential([Input((None, 28)), Bidirectional(LSTM(128))])", "160,768"),
    ("one-layer-2p-165888", "lstm = nn.LSTM(32, 128, bidirectional=True)", "165,888"),
    ("rnn-rebuilt-53300", "rnn = nn.RNN(25, 50, 4, bidirectional=True)", "53,300"),
]
"""The four classic questions of docs/forum.md as they are pasted, and their totals."""


def test_share_links_dump_the_answered_page(face: str) -> None:
    """``chromium --headless --dump-dom`` of a ``#cmd=`` and a ``#read=`` link prints the
    answered page, its totals in it."""
    budget = 5_000 if face.endswith(":0/") else 60_000
    for fragment, total in ((SHARE, "561,152"),
                            ("#read=" + quote(CLASSIC[1][1], safe=""), "160,768")):
        dom = dump_dom(face + fragment, budget_ms=budget)
        assert 'id="result"' in dom and f"{total} parameters" in dom, dom[-2000:]
        assert "Answered:" in dom


def test_the_classic_questions_pasted(face: str, browser: Browser) -> None:
    """Each of the four classic questions, pasted and read, is answered with its total, the
    answer being the library's own for the paste."""
    page = opened(browser, face)
    for _, paste, total in CLASSIC:
        seen = page.count()
        page.evaluate(f"document.getElementById('paste').value = {paste!r}")
        page.evaluate("document.getElementById('read-button').click()")
        status = page.answered(seen)
        assert total in status and total in page.text("#result")
        expected = paramcount.read(paste, source="the paste")._repr_markdown_()
        assert page.evaluate("document.getElementById('markdown').value") == expected
    assert page.problems() == []


def test_the_count_form(face: str, browser: Browser) -> None:
    """The form filled (cell, input, hidden, layers, bidirectional, bias, framework) answers
    with the tensors, the formula, why not 2× and the ratio chart; its share link is the
    command line, URL-encoded."""
    page = opened(browser, face)
    for field, value in (("input", "32"), ("hidden", "128"), ("layers", "2")):
        page.evaluate(f"document.getElementById({field!r}).value = {value!r}")
    page.evaluate("document.getElementById('cell').value = 'lstm'")
    page.evaluate("document.getElementById('framework').value = 'torch'")
    seen = page.count()
    page.evaluate("document.getElementById('count-button').click()")
    assert "561,152 parameters" in page.answered(seen)
    text = page.text("#result")
    for part in ("weight_ih_l1_reverse", "Why not 2 × 215,040 = 430,080?", "Formula",
                 "Bidirectional ÷ unidirectional by depth"):
        assert part in text
    chart = page.text("#chart")
    assert "2.610" in chart and "2.000" in chart
    assert page.evaluate("document.getElementById('share').getAttribute('href')") == SHARE
    page.evaluate("document.getElementById('framework').value = 'keras'")
    page.evaluate("document.getElementById('layers').value = '1'")
    page.evaluate("document.getElementById('input').value = '28'")
    seen = page.count()
    page.evaluate("document.getElementById('count-button').click()")
    assert "160,768 parameters" in page.answered(seen)
    seen = page.count()
    page.evaluate("document.getElementById('cell').value = 'mamba'")
    page.evaluate("document.getElementById('family-options').value = "
                  "'--d-model 768 --layers 24 --d-state 16 --expand 2 --vocab 50280'")
    page.evaluate("document.getElementById('count-button').click()")
    assert "129,135,360 parameters" in page.answered(seen)


def test_a_share_link_opened_shows_the_same_answer(face: str, browser: Browser) -> None:
    """The page opened from a share link answers the question it carries, and a bad command
    line is one error line."""
    page = opened(browser, face + SHARE)
    assert "561,152 parameters" in page.answered(0)
    assert page.evaluate("document.getElementById('cmd').value") == LINE
    page.evaluate("location.hash = '#cmd=' + encodeURIComponent('inspect /etc/passwd')")
    status = page.answered(1)
    assert status.startswith("Error: the page answers the counting commands")


def test_copy_as_markdown(face: str, browser: Browser) -> None:
    """"Copy as Markdown" puts the result's own Markdown on the clipboard."""
    page = opened(browser, face + SHARE)
    page.answered(0)
    origin = face.rstrip("/")
    page.send("Browser.grantPermissions", origin=origin,
              permissions=["clipboardReadWrite", "clipboardSanitizedWrite"])
    page.evaluate("document.getElementById('copy').focus()")
    page.key("Enter")  # a user's own press: the clipboard wants one
    page.wait_for("document.getElementById('status').textContent.startsWith('Copied')", 20)
    expected = paramcount.counted("lstm", 32, 128, num_layers=2,
                                  bidirectional=True)._repr_markdown_()
    assert page.evaluate("navigator.clipboard.readText()", wait=True) == expected
    assert page.evaluate("document.getElementById('markdown').value") == expected


def test_the_page_by_keyboard_alone(face: str, browser: Browser) -> None:
    """Tab reaches the paste box, typing and the read button answer; Tab reaches the command
    box, Enter answers; Tab reaches "copy as Markdown" and Enter copies."""
    page = opened(browser, face)

    def tab_to(target: str, most: int = 40) -> None:
        for _ in range(most):
            if page.focused() == target:
                return
            page.key("Tab")
        raise AssertionError(f"Tab never reached #{target}")

    tab_to("paste")
    page.type(CLASSIC[3][1])
    tab_to("read-button")
    seen = page.count()
    page.key("Enter")
    assert "53,300" in page.answered(seen)
    tab_to("cmd")
    page.type(LINE)
    seen = page.count()
    page.key("Enter")
    assert "561,152" in page.answered(seen)
    tab_to("copy")
    page.key("Enter")
    page.wait_for("document.getElementById('status').textContent.includes('Markdown')")
    assert page.evaluate("document.getElementById('markdown').hidden") is False


HOSTILE = [
    ("keras-summary", "Model: \"sequential\"\n" + "_" * 65 + "\n"
     " Layer (type)                Output Shape              Param #\n" + "=" * 65 + "\n"
     " <script>window.pwned=2</script> (Bidirectional)  (None, 256)  160768\n"
     " <img src=x onerror=window.pwned=3> (Dense)  (None, 10)  2570\n" + "=" * 65 + "\n"
     "Total params: 163,338\n", ("<script>window.pwned=2</script>",
                                 "<img src=x onerror=window.pwned=3>")),
    ("keras-code", "from keras import layers, models\nmodel = models.Sequential(["
     "layers.Input((None, 28)), layers.Bidirectional(layers.LSTM(128, name="
     "\"<img src=x onerror=window.pwned=1>\"), name=\"<script>window.pwned=4</script>\")])",
     ("<script>window.pwned=4</script>",)),
]


@pytest.mark.parametrize(("paste", "names"), [h[1:] for h in HOSTILE], ids=[h[0] for h in HOSTILE])
def test_names_from_a_paste_are_text(face: str, browser: Browser, paste: str,
                                     names: tuple[str, ...]) -> None:
    """Layers named ``<img onerror>`` and ``<script>`` are shown as the text they are: no
    element is made of them, nothing runs, and the page reports no error."""
    page = opened(browser, face)
    page.evaluate(f"document.getElementById('paste').value = {paste!r}")
    page.evaluate("document.getElementById('read-button').click()")
    page.answered(0)
    page.evaluate("new Promise(r => setTimeout(r, 300))", wait=True)  # an image's error fires
    assert page.evaluate("typeof window.pwned") == "undefined"
    assert page.evaluate("document.querySelectorAll('#result img, #result script').length") == 0
    text = page.text("#result")
    assert all(name in text for name in names)
    assert page.problems() == []
