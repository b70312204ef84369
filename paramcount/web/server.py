"""The served page (``paramcount serve``): the standard library's HTTP server on the loopback
address only, answering the page's questions with the library's calls.

It refuses a request whose ``Host`` is not this address (a DNS-rebinding page would send its
own name) and a question from another origin, reads a question of at most the bytes the
command line reads, in at most :data:`READ_SECONDS`, and sends every response with a
Content-Security-Policy that allows no inline script. The question travels in the request's
body, never in its address, so no log holds it; the server logs nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

LOOPBACK = "127.0.0.1"
"""The only address the server binds to."""

READ_SECONDS = 30.0
"""How long the server waits for a request's bytes before it closes the connection."""

Answer = Callable[[str, str], str]
"""(kind, text) → the answer's JSON text (:func:`paramcount.web.answers.answer_json`)."""

_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
    "X-Frame-Options": "DENY",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Resource-Policy": "same-origin",
}


class PageServer(ThreadingHTTPServer):
    """The page's server: bound to the loopback address, holding what its handler needs."""

    daemon_threads = True

    def __init__(self, port: int, answer: Answer, max_bytes: int) -> None:
        """Bind to ``127.0.0.1:port`` (0: a free port) and answer with ``answer``, reading
        questions of at most ``max_bytes`` bytes."""
        super().__init__((LOOPBACK, port), PageHandler)
        self.answer = answer
        self.max_bytes = max_bytes
        self.hosts = {f"{LOOPBACK}:{self.port}", f"localhost:{self.port}"}
        self.origins = {f"http://{host}" for host in self.hosts}

    @property
    def port(self) -> int:
        """The port bound."""
        return int(self.server_address[1])

    @property
    def url(self) -> str:
        """The page's address."""
        return f"http://{LOOPBACK}:{self.port}/"


class PageHandler(BaseHTTPRequestHandler):
    """One request: the page's files (GET) or a question (POST ``/answer/read|cmd``)."""

    server: PageServer
    timeout = READ_SECONDS
    server_version = "paramcount"
    sys_version = ""

    def log_message(self, format: str, *args: Any) -> None:
        """Log nothing: a question is the user's own."""

    def do_GET(self) -> None:
        """The page (``/``), its script and its style sheet."""
        from paramcount.web.page import ASSETS, asset, index_html

        if not self._allowed_host():
            return
        path = self.path.split("?", 1)[0]
        if path in ("/", "/index.html"):
            self._send(HTTPStatus.OK, "text/html; charset=utf-8",
                       index_html(static=False).encode("utf-8"))
        elif path.lstrip("/") in ASSETS:
            name = path.lstrip("/")
            self._send(HTTPStatus.OK, ASSETS[name], asset(name))
        else:
            self._refuse(HTTPStatus.NOT_FOUND, "no such page")

    def do_POST(self) -> None:
        """A question: the body is the paste or the command line, as UTF-8 text."""
        from paramcount.web.answers import KINDS

        if not self._allowed_host():
            return
        origin = self.headers.get("Origin")
        if origin is not None and origin not in self.server.origins:
            self._refuse(HTTPStatus.FORBIDDEN, f"a question from {origin[:80]!r} is refused: "
                         "the page answers its own origin only")
            return
        kind = self.path.removeprefix("/answer/")
        if not self.path.startswith("/answer/") or kind not in KINDS:
            self._refuse(HTTPStatus.NOT_FOUND, "no such question")
            return
        try:
            length = int(self.headers.get("Content-Length", ""))
        except ValueError:
            self._refuse(HTTPStatus.LENGTH_REQUIRED, "a question needs its Content-Length")
            return
        if length < 0 or length > self.server.max_bytes:
            self._refuse(HTTPStatus.REQUEST_ENTITY_TOO_LARGE,
                         f"the question is larger than {self.server.max_bytes:,} bytes; "
                         "paramcount reads pasted questions, not whole projects")
            return
        try:
            body = self.rfile.read(length)
        except TimeoutError:
            self.close_connection = True
            return
        text = body.decode("utf-8", errors="replace")
        self._send(HTTPStatus.OK, "application/json; charset=utf-8",
                   self.server.answer(kind, text).encode("utf-8"))

    def _allowed_host(self) -> bool:
        """Whether the request names this server as its host; else it is refused (a page
        reaching it through a rebound DNS name names its own)."""
        host = (self.headers.get("Host") or "").strip().lower()
        if host in self.server.hosts:
            return True
        self._refuse(HTTPStatus.MISDIRECTED_REQUEST,
                     f"Host {host[:80]!r} is not this server ({LOOPBACK}:{self.server.port})")
        return False

    def _refuse(self, status: HTTPStatus, message: str) -> None:
        """An error as the page's JSON (``error``, one line)."""
        import json

        self.close_connection = True
        self._send(status, "application/json; charset=utf-8",
                   json.dumps({"error": message, "exit_code": 2}).encode("utf-8"))

    def _send(self, status: HTTPStatus, content_type: str, body: bytes) -> None:
        """Send ``body`` with the page's security headers."""
        from paramcount.web.page import policy

        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Content-Security-Policy", policy(static=False)
                         + "; frame-ancestors 'none'")
        for name, value in _HEADERS.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)
