"""The page's server and its answers, without a browser: the answers are the library results'
own renderings, the command lines are read by the commands' own parsers and only the counting
ones answered, and the server keeps to loopback, its own Host, its own origin and the CLI's size
limit (the browser tests are in ``tests/test_web_page.py``)."""

from __future__ import annotations

import http.client
import json
import re
import threading
from collections.abc import Iterator

import pytest

import paramcount
from paramcount.cli.asked import page_answer
from paramcount.cli.paste import MAX_BYTES
from paramcount.web.page import index_html, policy
from paramcount.web.server import PageServer
from tests.conftest import CLI


@pytest.fixture(scope="module")
def server() -> Iterator[PageServer]:
    """The page's server on a free loopback port, in a thread."""
    page = PageServer(0, page_answer, MAX_BYTES)
    thread = threading.Thread(target=page.serve_forever, daemon=True)
    thread.start()
    yield page
    page.shutdown()
    page.server_close()


def request(server: PageServer, method: str, path: str, body: bytes | None = None,
            headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
    """One request to ``server``: status, headers, body (Host is the server's unless given)."""
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    given = {"Host": f"127.0.0.1:{server.port}", **(headers or {})}
    connection.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
    for name, value in given.items():
        connection.putheader(name, value)
    if body is not None and "Content-Length" not in given:
        connection.putheader("Content-Length", str(len(body)))
    connection.endheaders(body)
    response = connection.getresponse()
    data = response.read()
    connection.close()
    return response.status, dict(response.getheaders()), data


ASKED = [
    ("cmd", "lstm --input 32 --hidden 128 --layers 2 --bidir",
     lambda: paramcount.counted("lstm", 32, 128, num_layers=2, bidirectional=True)),
    ("cmd", "paramcount lstm -i 28 -H 128 --bidir -f keras",
     lambda: paramcount.counted("lstm", 28, 128, bidirectional=True, framework="keras")),
    ("cmd", "rnn -i 25 -H 50 -L 4 --bidir",
     lambda: paramcount.counted("rnn", 25, 50, num_layers=4, bidirectional=True)),
    ("cmd", "mamba --d-model 768 --layers 24 --d-state 16 --expand 2 --vocab 50280",
     lambda: paramcount.family("mamba", hidden_size=768, num_hidden_layers=24, state_size=16,
                               expand=2, vocab_size=50280)),
    ("read", "nn.LSTM(32, 128, num_layers=2, bidirectional=True)",
     lambda: paramcount.read("nn.LSTM(32, 128, num_layers=2, bidirectional=True)")),
]


@pytest.mark.parametrize(("kind", "text", "library"), ASKED, ids=[a[1] for a in ASKED])
def test_the_answer_is_the_library_result(server: PageServer, kind: str, text: str,
                                          library: object) -> None:
    """The server's answer is the library result's own HTML and Markdown, headline first."""
    status, headers, body = request(server, "POST", f"/answer/{kind}", text.encode())
    result = library()  # type: ignore[operator]
    answer = json.loads(body)
    assert status == 200 and headers["Content-Type"].startswith("application/json")
    assert answer["html"] == result._repr_html_()
    assert answer["markdown"] == result._repr_markdown_()
    assert answer["title"] == result.documents()[0].title


REFUSED = [
    ("inspect model.pt", "the page answers the counting commands"),
    ("check models.toml", "not 'check'"),
    ("port a.pt --to keras", "not 'port'"),
    ("lstm -i 3 -H 4 --verify", "--verify builds the real framework's layer"),
    ("mamba --config /etc/passwd", "--config reads a file"),
    ("lstm --help", "lists the options"),
    ("lstm -i 0 -H 4", "--input 0 must be a positive integer"),
    ("lstm --bogus", "No such option '--bogus'"),
    ("lstm -i 3", "Missing option '--hidden'"),
    ("lstm 'unclosed", "cannot be read"),
    ("", "give one"),
]


@pytest.mark.parametrize(("line", "message"), REFUSED, ids=[r[0] or "empty" for r in REFUSED])
def test_a_command_line_is_answered_or_refused_in_one_line(line: str, message: str) -> None:
    """Only the counting commands are answered, read by their own click parsers; anything
    else, an option that reads a file or runs a framework, or a bad value is one line."""
    answer = json.loads(page_answer("cmd", line))
    assert message in answer["error"] and "\n" not in answer["error"]
    assert answer["exit_code"] == 2


def test_a_hostile_name_is_text() -> None:
    """A name in a paste reaches the page as escaped text, never as markup."""
    paste = ("from keras import layers, models\nmodel = models.Sequential([layers.Input((None,"
             " 28)), layers.Bidirectional(layers.LSTM(128), name=\"<script>x()</script>\")])")
    answer = json.loads(page_answer("read", paste))
    assert "&lt;script&gt;x()&lt;/script&gt;" in answer["html"]
    assert "<script" not in answer["html"]


HOSTS = [("evil.example:80", 421), ("127.0.0.1", 421), ("localhost:1", 421), ("", 421)]


@pytest.mark.parametrize(("host", "status"), HOSTS, ids=[h or "none" for h, _ in HOSTS])
def test_a_foreign_host_is_refused(server: PageServer, host: str, status: int) -> None:
    """A request naming another host (a rebound DNS name) is refused, page and answers."""
    for method, path, body in (("GET", "/", None), ("POST", "/answer/cmd", b"lstm -i 3 -H 4")):
        got, _, data = request(server, method, path, body, {"Host": host})
        assert got == status and b"is not this server" in data


def test_localhost_is_this_server(server: PageServer) -> None:
    """``localhost:PORT`` names the server as well as ``127.0.0.1:PORT``."""
    got, _, _ = request(server, "GET", "/", None, {"Host": f"localhost:{server.port}"})
    assert got == 200


def test_a_question_from_another_origin_is_refused(server: PageServer) -> None:
    """A page of another origin cannot ask (its ``Origin`` header names it)."""
    got, _, data = request(server, "POST", "/answer/read", b"nn.LSTM(3, 4)",
                           {"Origin": "http://evil.example"})
    assert got == 403 and b"refused" in data


def test_a_question_larger_than_the_cli_reads_is_refused(server: PageServer) -> None:
    """The server reads at most the bytes ``paramcount read`` reads, refused before reading."""
    got, _, data = request(server, "POST", "/answer/read", b"",
                           {"Content-Length": str(MAX_BYTES + 1)})
    assert got == 413 and f"{MAX_BYTES:,} bytes" in json.loads(data)["error"]


def test_the_server_binds_loopback_only(server: PageServer) -> None:
    """The server listens on 127.0.0.1 and nowhere else."""
    assert server.server_address[0] == "127.0.0.1"


PAGES = [("/", "text/html"), ("/app.js", "text/javascript"), ("/page.css", "text/css")]


@pytest.mark.parametrize(("path", "kind"), PAGES, ids=[p for p, _ in PAGES])
def test_every_response_carries_the_policy(server: PageServer, path: str, kind: str) -> None:
    """Every file comes with a Content-Security-Policy allowing scripts only as files of the
    page's own origin (no inline script, no eval) and is not sniffed."""
    got, headers, _ = request(server, "GET", path)
    csp = headers["Content-Security-Policy"]
    assert got == 200 and headers["Content-Type"].startswith(kind)
    assert "script-src 'self';" in csp and "unsafe-inline" not in csp
    assert "default-src 'none'" in csp and "frame-ancestors 'none'" in csp
    assert headers["X-Content-Type-Options"] == "nosniff"


def test_no_inline_script_in_the_page() -> None:
    """The page's HTML holds no inline script or handler: its scripts are files; the static
    page's policy adds only ``'wasm-unsafe-eval'`` (Pyodide compiles WebAssembly)."""
    for static in (False, True):
        html = index_html(static)
        scripts = re.findall(r"<script([^>]*)>(.*?)</script>", html, re.S)
        assert scripts and all(' src="' in tag and not body.strip() for tag, body in scripts)
        assert not re.search(r"<[^>]*\son[a-z]+=", html) and "javascript:" not in html
        assert policy(static) in html
    assert policy(True) == policy(False).replace("'self';", "'self' 'wasm-unsafe-eval';", 1)


def test_an_unknown_path_is_not_found(server: PageServer) -> None:
    """Only the page's own files are served: no folder listing, no file of the machine."""
    for path in ("/../../etc/passwd", "/static/index.html", "/answer/run"):
        got, _, _ = request(server, "GET" if "answer" not in path else "POST", path, b"")
        assert got == 404


def test_the_chart_reads_without_colour() -> None:
    """The ratio chart writes every depth's ratio as text beside its bar, marks 2× with a
    dashed line and names the limit: nothing is said by colour alone."""
    from paramcount.web.chart import ratio_chart

    report = paramcount.count("lstm", 32, 128, num_layers=2, bidirectional=True)
    svg = ratio_chart(report.depth, report.depth_limit)
    for row in report.depth:
        assert f">{row.ratio:.3f}</text>" in svg and f">{row.layers} layer" in svg
    assert 'stroke-dasharray' in svg and "2× (2P)" in svg and "2.992" in svg
    assert 'role="img"' in svg and "aria-label=" in svg
    assert ratio_chart(()) == ""


@pytest.mark.parametrize("browser", [True, False], ids=["opens-browser", "no-browser"])
def test_serve_prints_the_address_and_opens_it(cli: CLI, monkeypatch: pytest.MonkeyPatch,
                                               browser: bool) -> None:
    """``paramcount serve`` binds a free loopback port, prints the page's address and opens it
    in the browser unless ``--no-browser``."""
    bound: list[tuple[str, int]] = []
    opened: list[str] = []
    monkeypatch.setattr(PageServer, "serve_forever",
                        lambda self, poll_interval=0.5: bound.append(self.server_address))
    monkeypatch.setattr("webbrowser.open", lambda url: opened.append(url) or True)
    result = cli("serve", *([] if browser else ["--no-browser"]))
    host, port = bound[0]
    url = f"http://127.0.0.1:{port}/"
    assert result.code == 0 and host == "127.0.0.1" and port > 0
    assert result.out.startswith(f"paramcount's page: {url}")
    assert opened == ([url] if browser else [])


def test_serve_on_a_port_in_use_is_one_line(cli: CLI, server: PageServer) -> None:
    """A port already taken is one error line and exit 2, no traceback."""
    result = cli("serve", "--no-browser", "--port", str(server.port))
    assert result.code == 2 and result.err.startswith(
        f"Error: cannot serve on 127.0.0.1:{server.port}: ")
    assert result.err.count("\n") == 1
