"""The static site (``paramcount web build DIR``): the page with paramcount's pure-Python core
running in the browser on Pyodide, every file vendored into DIR, so that the page fetches
nothing from anywhere else when it runs.

Pyodide comes from the npm registry at build time (``npm pack pyodide@`` :data:`PYODIDE`, kept
in a cache folder), or from an archive given; its runtime files are taken out of the archive
by name. paramcount's own package files and click's (the command line's parser reads the
``#cmd=`` links; both are pure Python) go in as zip archives that the page unpacks into
Pyodide's file system, with their bytecode compiled at build time by the same Pyodide under
Node.js (which ``npm`` comes with), so that the page's first answer does not wait for it.
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


ARCHIVES = ("paramcount.zip", "click.zip")
"""The Python packages the page unpacks into Pyodide's file system."""

_COMPILE = """
import { readFileSync, writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
const site = process.env.PARAMCOUNT_SITE;
const { loadPyodide } = await import(pathToFileURL(site + "/pyodide/pyodide.mjs").href);
const py = await loadPyodide({ indexURL: site + "/pyodide/" });
const names = JSON.parse(process.env.PARAMCOUNT_ARCHIVES);
for (const name of names) py.FS.writeFile("/tmp/" + name, readFileSync(site + "/" + name));
py.globals.set("names", py.toPy(names));
py.runPython(`
import compileall, os, py_compile, zipfile
UNCHECKED = py_compile.PycInvalidationMode.UNCHECKED_HASH
for name in names:
    work = "/tmp/work-" + name
    zipfile.ZipFile("/tmp/" + name).extractall(work)
    if not compileall.compile_dir(work, quiet=2, invalidation_mode=UNCHECKED):
        raise SystemExit(name + ": a module does not compile")
    with zipfile.ZipFile("/tmp/out-" + name, "w", zipfile.ZIP_DEFLATED) as out:
        for root, folders, files in sorted(os.walk(work)):
            for file in sorted(files):
                path = os.path.join(root, file)
                out.write(path, os.path.relpath(path, work))
`);
for (const name of names) writeFileSync(site + "/" + name, py.FS.readFile("/tmp/out-" + name));
"""
"""Run by Node.js on the vendored Pyodide: each archive's modules compiled to Pyodide's own
bytecode (``unchecked-hash`` .pyc, valid whatever the files' times once unpacked), so that the
page does not compile them every time it starts."""


def precompile(target: Path) -> bool:
    """Add Pyodide's bytecode of every module to the site's archives, compiled by the vendored
    Pyodide under Node.js; False (the archives left as source) where Node.js is absent."""
    node = shutil.which("node")
    if node is None:
        return False
    env = {**os.environ, "PARAMCOUNT_SITE": str(target.resolve()),
           "PARAMCOUNT_ARCHIVES": json.dumps(ARCHIVES)}
    done = subprocess.run([node, "--input-type=module", "-e", _COMPILE], env=env,
                          capture_output=True, text=True, timeout=600, check=False)
    if done.returncode != 0:
        lines = (done.stderr or done.stdout).strip().splitlines()
        raise BuildFailed("compiling paramcount's modules with Pyodide failed: "
                          + (lines[-1][:300] if lines else f"exit {done.returncode}"))
    return True


def build_site(directory: str | os.PathLike[str],
               archive: str | os.PathLike[str] | None = None) -> int:
    """Write the static site into ``directory`` and return the bytes written (its Python
    modules compiled to Pyodide's bytecode where Node.js is installed)."""
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
    precompile(target)
    return sum((target / name).stat().st_size for name in files)
