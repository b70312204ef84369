"""Headless Chromium for the page's tests: ``--dump-dom`` for a link, and a small client of the
Chrome DevTools protocol (its websocket spoken with the standard library) to type, press keys,
read the page and take screenshots.

Chromium starts with a fresh profile and no network of its own (no sync, no component
updates, no background requests); the tests reach only the servers they start on 127.0.0.1.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import socket
import struct
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage", "--window-size=1200,1600"]
"""The flags every run of Chromium gets (root in a container needs ``--no-sandbox``)."""

_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


def chromium() -> str | None:
    """The path of Chromium (Debian's ``chromium``), or None where none is installed."""
    for name in _NAMES:
        found = shutil.which(name)
        if found:
            return found
    return None


def dump_dom(url: str, budget_ms: int = 10_000, timeout: float = 120.0) -> str:
    """The page's DOM after its scripts ran for ``budget_ms`` of virtual time."""
    path = chromium()
    assert path is not None
    with tempfile.TemporaryDirectory(prefix="paramcount-chromium-") as profile:
        done = subprocess.run(
            [path, *FLAGS, f"--user-data-dir={profile}", f"--virtual-time-budget={budget_ms}",
             "--dump-dom", url], capture_output=True, text=True, timeout=timeout, check=False)
    return done.stdout


_DIRECT = urllib.request.build_opener(urllib.request.ProxyHandler({}))
"""An opener that never goes through a proxy: the tests talk to 127.0.0.1 only."""


class Socket:
    """A websocket client (RFC 6455) over a plain TCP socket: text frames only."""

    def __init__(self, url: str, timeout: float) -> None:
        """Connect and shake hands with ``ws://host:port/path``."""
        rest = url.removeprefix("ws://")
        address, _, path = rest.partition("/")
        host, _, port = address.partition(":")
        self.sock = socket.create_connection((host, int(port)), timeout=timeout)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall((f"GET /{path} HTTP/1.1\r\nHost: {address}\r\nUpgrade: websocket\r\n"
                           f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                           "Sec-WebSocket-Version: 13\r\n\r\n").encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(4096)
            assert chunk, "the websocket closed during its handshake"
            head += chunk
        status, _, self.buffer = head.partition(b"\r\n\r\n")
        assert b" 101 " in status.split(b"\r\n")[0], status

    def send(self, text: str) -> None:
        """Send one masked text frame."""
        data = text.encode()
        mask = os.urandom(4)
        length = len(data)
        if length < 126:
            head = struct.pack("!BB", 0x81, 0x80 | length)
        elif length < 1 << 16:
            head = struct.pack("!BBH", 0x81, 0x80 | 126, length)
        else:
            head = struct.pack("!BBQ", 0x81, 0x80 | 127, length)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(data))
        self.sock.sendall(head + mask + masked)

    def _read(self, count: int) -> bytes:
        while len(self.buffer) < count:
            chunk = self.sock.recv(1 << 16)
            assert chunk, "the websocket closed"
            self.buffer += chunk
        data, self.buffer = self.buffer[:count], self.buffer[count:]
        return data

    def receive(self) -> str:
        """The next whole text message (fragments joined; control frames skipped)."""
        parts = []
        while True:
            first, second = self._read(2)
            length = second & 0x7F
            if length == 126:
                length = struct.unpack("!H", self._read(2))[0]
            elif length == 127:
                length = struct.unpack("!Q", self._read(8))[0]
            payload = self._read(length)
            opcode = first & 0x0F
            if opcode in (0x1, 0x0):
                parts.append(payload)
                if first & 0x80:
                    return b"".join(parts).decode()
            elif opcode == 0x8:
                raise ConnectionError("the websocket closed")

    def close(self) -> None:
        """Close the connection."""
        self.sock.close()


class Browser:
    """Headless Chromium driven over the DevTools protocol: one page."""

    def __init__(self, timeout: float = 60.0) -> None:
        """Start Chromium with a fresh profile and connect to its first page."""
        path = chromium()
        assert path is not None
        self.timeout = timeout
        self.profile = tempfile.mkdtemp(prefix="paramcount-chromium-")
        self.process = subprocess.Popen(
            [path, *FLAGS, f"--user-data-dir={self.profile}", "--remote-debugging-port=0",
             "about:blank"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        active = Path(self.profile) / "DevToolsActivePort"
        deadline = time.monotonic() + timeout
        while not (active.is_file() and active.read_text().count("\n") >= 1):
            assert time.monotonic() < deadline, "Chromium did not open its DevTools port"
            assert self.process.poll() is None, "Chromium exited"
            time.sleep(0.05)
        port = active.read_text().split("\n")[0]
        with _DIRECT.open(f"http://127.0.0.1:{port}/json/list", timeout=timeout) as response:
            targets = json.load(response)
        page = next(t for t in targets if t["type"] == "page")
        self.socket = Socket(page["webSocketDebuggerUrl"], timeout)
        self.ids = 0
        self.events: list[dict[str, Any]] = []
        for domain in ("Page", "Runtime", "Log"):
            self.send(f"{domain}.enable")
        self.send("Emulation.setFocusEmulationEnabled", enabled=True)  # as a window in front

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop Chromium and remove its profile."""
        self.socket.close()
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        shutil.rmtree(self.profile, ignore_errors=True)

    def send(self, method: str, **params: Any) -> dict[str, Any]:
        """Call one DevTools method and return its result (events met on the way are kept)."""
        self.ids += 1
        ident = self.ids
        self.socket.send(json.dumps({"id": ident, "method": method, "params": params}))
        while True:
            message = json.loads(self.socket.receive())
            if message.get("id") == ident:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                result: dict[str, Any] = message.get("result", {})
                return result
            if "method" in message:
                self.events.append(message)

    def evaluate(self, expression: str, wait: bool = False) -> Any:
        """The value of a JavaScript expression in the page (awaited where ``wait``)."""
        result = self.send("Runtime.evaluate", expression=expression, returnByValue=True,
                           awaitPromise=wait)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def open(self, url: str) -> None:
        """Load ``url`` and wait until its document is complete."""
        self.send("Page.navigate", url=url)
        self.wait_for("document.readyState === 'complete' && !!document.getElementById('status')")

    def wait_for(self, expression: str, timeout: float | None = None) -> Any:
        """Poll ``expression`` until it is truthy; its value."""
        deadline = time.monotonic() + (timeout or self.timeout)
        while True:
            value = self.evaluate(expression)
            if value:
                return value
            if time.monotonic() > deadline:
                raise TimeoutError(f"waited for {expression}; status: "
                                   + str(self.evaluate("document.getElementById('status')"
                                                       "?.textContent")))
            time.sleep(0.05)

    def answered(self, after: int, timeout: float | None = None) -> str:
        """Wait for the page's answer number ``after + 1`` and return the status line."""
        self.wait_for(f"Number(document.body.dataset.answered || 0) > {after}", timeout)
        return str(self.evaluate("document.getElementById('status').textContent"))

    def count(self) -> int:
        """How many answers the page has shown."""
        return int(self.evaluate("Number(document.body.dataset.answered || 0)"))

    def text(self, selector: str) -> str:
        """The visible text of the first element ``selector`` finds."""
        return str(self.evaluate(f"document.querySelector({json.dumps(selector)}).innerText"))

    def key(self, key: str, modifiers: int = 0) -> None:
        """Press and release one key (``Tab``, ``Enter``, ``Space``...)."""
        codes = {"Tab": 9, "Enter": 13, " ": 32, "ArrowDown": 40}
        code = codes[key]
        text = {"Enter": "\r", " ": " "}.get(key, "")
        for kind in ("keyDown", "keyUp"):
            self.send("Input.dispatchKeyEvent", type=kind, key=key,
                      code="Space" if key == " " else key, windowsVirtualKeyCode=code,
                      nativeVirtualKeyCode=code, modifiers=modifiers,
                      **({"text": text} if kind == "keyDown" and text else {}))

    def type(self, text: str) -> None:
        """Type ``text`` into the focused element, as a keyboard's input does."""
        self.send("Input.insertText", text=text)

    def focused(self) -> str:
        """The id of the focused element."""
        return str(self.evaluate("document.activeElement && document.activeElement.id"))

    def screenshot(self, path: Path) -> None:
        """Save the whole page as a PNG."""
        shot = self.send("Page.captureScreenshot", format="png", captureBeyondViewport=True)
        path.write_bytes(base64.b64decode(shot["data"]))

    def problems(self) -> list[str]:
        """Script errors, console errors and CSP reports seen so far."""
        self.evaluate("1")  # collect the events sent meanwhile
        found = []
        for event in self.events:
            params = event.get("params", {})
            if event["method"] == "Runtime.exceptionThrown":
                found.append(str(params["exceptionDetails"].get("text")))
            elif event["method"] == "Log.entryAdded" and params["entry"]["level"] == "error":
                found.append(params["entry"]["text"])
            elif (event["method"] == "Runtime.consoleAPICalled"
                  and params.get("type") == "error"):
                found.append(str(params.get("args")))
        return found
