"""The page's files: ``index.html`` filled in with the library's own lists (the cells, the
families, the frameworks) and its Content-Security-Policy, the script and the style sheet."""

from __future__ import annotations

from html import escape
from pathlib import Path
from string import Template

STATIC = Path(__file__).resolve().parent / "static"
"""The page's files as shipped in the package."""

ASSETS = {"app.js": "text/javascript; charset=utf-8", "page.css": "text/css; charset=utf-8"}
"""The files the page loads beside ``index.html``, with their content types."""

STYLES = ("text-align: right",)
"""The inline style attributes the results' HTML holds (numeric columns, render/html.py):
the policy allows these by hash and no other."""


def _hash(style: str) -> str:
    """A style's CSP source expression: ``'sha256-…'``."""
    import base64
    import hashlib

    return "'sha256-" + base64.b64encode(hashlib.sha256(style.encode()).digest()).decode() + "'"


_POLICY = ("default-src 'none'; script-src 'self'{wasm}; style-src 'self' 'unsafe-hashes' "
           + " ".join(_hash(style) for style in STYLES)
           + "; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'")


def policy(static: bool) -> str:
    """The Content-Security-Policy: scripts only as files from the page's own origin (no inline
    script, no ``eval``), styles from the style sheet and the results' own few
    (:data:`STYLES`, by hash), nothing fetched from elsewhere; the static page also lets
    WebAssembly compile (``'wasm-unsafe-eval'``), which Pyodide needs."""
    return _POLICY.format(wasm=" 'wasm-unsafe-eval'" if static else "")


def index_html(static: bool) -> str:
    """``index.html`` for the served page or the static site."""
    from paramcount._version import __version__
    from paramcount.engine.spec import Cell, Framework
    from paramcount.families import command
    from paramcount.families import registry as families

    cells = "".join(f'<option value="{c.value}"{" selected" if c is Cell.LSTM else ""}>'
                    f"{c.value}</option>" for c in Cell)
    named = "".join(f'<option value="{escape(name)}" data-family>{escape(name)} — '
                    f"{escape(families.family(name).TITLE)}</option>"
                    for name in command.commands())
    frameworks = "".join(f'<option value="{f.value}">{f.value} ({escape(f.display_name)})'
                         "</option>" for f in Framework)
    where = ("Everything runs in this page, in Python compiled to WebAssembly: your question "
             "is sent nowhere." if static else
             "Answered by paramcount on this machine (127.0.0.1): nothing leaves it.")
    template = Template((STATIC / "index.html").read_text(encoding="utf-8"))
    return template.substitute(
        mode="static" if static else "served", csp=policy(static), version=__version__,
        cells=cells, families=named, frameworks=frameworks, where=where,
        waiting="Loading…" if static else "Ask a question above.")


def asset(name: str) -> bytes:
    """One of the page's files (:data:`ASSETS`)."""
    return (STATIC / name).read_bytes()
