"""The static site (``paramcount web build DIR``): the page with paramcount's pure-Python core
running in the browser on Pyodide, every file vendored into DIR, so that the page fetches
nothing from anywhere else when it runs.

Pyodide comes from the npm registry at build time (``npm pack pyodide@`` :data:`PYODIDE`, kept
in a cache folder), or from an archive given; its runtime files are taken out of the archive
by name. paramcount's own package files and click's (the command line's parser reads the
``#cmd=`` links; both are pure Python) go in as zip archives that the page unpacks into
Pyodide's file system.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import tarfile
import zipfile
from pathlib import Path

from paramcount.errors import ParamcountError

PYODIDE = "314.0.7"
"""The Pyodide release vendored (CPython 3.14 in WebAssembly)."""

RUNTIME = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip",
           "pyodide-lock.json")
"""The files of Pyodide's npm package that the page loads."""

MOST_BYTES = 64_000_000
"""The most bytes taken out of the archive for one runtime file."""


class BuildFailed(ParamcountError):
    """The static site could not be built (no npm, no archive, a damaged archive)."""

    exit_code = 2


def cache_dir() -> Path:
    """Where ``npm pack`` leaves Pyodide's archive: ``$PARAMCOUNT_CACHE`` or
    ``$XDG_CACHE_HOME/paramcount`` (``~/.cache/paramcount``)."""
    chosen = os.environ.get("PARAMCOUNT_CACHE")
    if chosen:
        return Path(chosen)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "paramcount"


def pyodide_archive(given: str | os.PathLike[str] | None = None) -> Path:
    """Pyodide's npm archive: ``given``, else the cached one, else fetched with ``npm pack``."""
    if given is not None:
        return Path(given)
    folder = cache_dir()
    archive = folder / f"pyodide-{PYODIDE}.tgz"
    if archive.is_file():
        return archive
    npm = shutil.which("npm")
    if npm is None:
        raise BuildFailed(f"the static site needs Pyodide {PYODIDE} from the npm registry and "
                          "npm is not installed; install Node.js, or give the archive with "
                          "--pyodide pyodide-" + PYODIDE + ".tgz")
    folder.mkdir(parents=True, exist_ok=True)
    done = subprocess.run([npm, "pack", f"pyodide@{PYODIDE}", "--silent",
                           "--pack-destination", str(folder)],
                          capture_output=True, text=True, timeout=600, check=False)
    if done.returncode != 0 or not archive.is_file():
        lines = (done.stderr or done.stdout).strip().splitlines()
        raise BuildFailed(f"npm pack pyodide@{PYODIDE} failed: "
                          + (lines[-1] if lines else f"exit {done.returncode}"))
    return archive


def runtime_files(archive: Path) -> dict[str, bytes]:
    """The runtime files (:data:`RUNTIME`) out of Pyodide's npm archive, checked to be the
    release pinned."""
    found: dict[str, bytes] = {}
    try:
        with tarfile.open(archive, "r:gz") as tar:
            for member in tar:
                name = member.name.removeprefix("package/")
                if member.isfile() and name in (*RUNTIME, "package.json"):
                    if member.size > MOST_BYTES:
                        raise BuildFailed(f"{archive}: {name} is {member.size:,} bytes")
                    handle = tar.extractfile(member)
                    assert handle is not None  # a regular file
                    found[name] = handle.read()
    except (OSError, tarfile.TarError, EOFError) as error:
        raise BuildFailed(f"{archive} is not Pyodide's npm archive: {error}") from None
    missing = [name for name in (*RUNTIME, "package.json") if name not in found]
    if missing:
        raise BuildFailed(f"{archive} lacks {', '.join(missing)}: not Pyodide's npm archive")
    version = json.loads(found.pop("package.json")).get("version")
    if version != PYODIDE:
        raise BuildFailed(f"{archive} holds Pyodide {version}, not {PYODIDE}")
    return found


def package_zip(folder: Path) -> bytes:
    """A zip of a Python package's source files (``folder`` is the package, kept as the
    archive's top folder), without compiled caches."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(folder.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts and path.suffix in (
                    ".py", ".typed"):
                archive.write(path, path.relative_to(folder.parent).as_posix())
    return buffer.getvalue()


def installed_package(name: str) -> Path:
    """The folder of an installed pure-Python package, found without importing it."""
    import importlib.util

    spec = importlib.util.find_spec(name)
    if spec is None or spec.origin is None:
        raise BuildFailed(f"the static site needs the {name} package's files; pip install "
                          f"{name}")
    return Path(spec.origin).parent


def build_site(directory: str | os.PathLike[str],
               archive: str | os.PathLike[str] | None = None) -> int:
    """Write the static site into ``directory`` and return the bytes written."""
    from paramcount.web.page import ASSETS, asset, index_html

    runtime = runtime_files(pyodide_archive(archive))
    target = Path(directory)
    try:
        (target / "pyodide").mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise BuildFailed(f"cannot write {target}: {error.strerror or error}") from None
    files: dict[str, bytes] = {
        "index.html": index_html(static=True).encode("utf-8"),
        **{name: asset(name) for name in ASSETS},
        **{f"pyodide/{name}": data for name, data in runtime.items()},
        "paramcount.zip": package_zip(Path(__file__).resolve().parent.parent),
        "click.zip": package_zip(installed_package("click")),
    }
    for name, data in files.items():
        (target / name).write_bytes(data)
    return sum(len(data) for data in files.values())
