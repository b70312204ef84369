"""``paramcount serve`` (the page on this machine) and ``paramcount web build DIR`` (the same
page as a static site): wiring only, the page lives in :mod:`paramcount.web`."""

from __future__ import annotations

import click


class PortRefused(click.ClickException):
    """The port cannot be bound (taken, or not the user's to take): bad input, exit 2."""

    exit_code = 2


@click.command(name="serve")
@click.option("--port", type=click.IntRange(0, 65535), default=0, show_default=True,
              help="The port on 127.0.0.1 (0: a free one).")
@click.option("--no-browser", is_flag=True, help="Do not open the page in the browser.")
def serve(port: int, no_browser: bool) -> int:
    """Serve the page on 127.0.0.1: paste a question or fill the count form, get the answer
    with its why; nothing leaves this machine (Ctrl+C stops it)."""
    from paramcount.cli.asked import page_answer
    from paramcount.cli.paste import MAX_BYTES
    from paramcount.web.server import PageServer

    try:
        server = PageServer(port, page_answer, MAX_BYTES)
    except OSError as error:
        raise PortRefused(f"cannot serve on 127.0.0.1:{port}: {error.strerror or error}"
                          ) from None
    click.echo(f"paramcount's page: {server.url} (Ctrl+C stops it)")
    if not no_browser:
        import webbrowser

        webbrowser.open(server.url)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        click.echo("stopped")
    finally:
        server.server_close()
    return 0


@click.group(name="web")
def web() -> None:
    """The page as a static site: paramcount's pure-Python core running in the browser."""


@web.command(name="build")
@click.argument("directory", metavar="DIR", type=click.Path(file_okay=False))
@click.option("--pyodide", "pyodide_archive", metavar="FILE", default=None,
              type=click.Path(dir_okay=False, exists=True),
              help="Pyodide's npm archive (pyodide-VERSION.tgz) to vendor; by default "
                   "'npm pack' fetches the pinned version into a cache.")
def build(directory: str, pyodide_archive: str | None) -> int:
    """Write the static site into DIR: the page, Pyodide and paramcount's package files;
    the page fetches nothing from anywhere else when it runs."""
    from paramcount.web.site import build_site

    written = build_site(directory, pyodide_archive)
    click.echo(f"wrote the static site to {directory} ({written:,} bytes); serve it as plain "
               "files, e.g. python -m http.server -d " + directory)
    return 0
