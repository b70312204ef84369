"""Config files as they were at a git revision (``check --baseline REF``), read without a checkout.

``git`` runs with an argument list, never through a shell, with no pager, no prompt and no
filters: ``rev-parse`` finds the repository and the commit, ``cat-file blob REF:path`` gives a
file's bytes as ``git show REF:path`` shows them, and ``archive`` gives the model files a config
names (or, for ``--baseline-factories``, the whole tree whose factories run). A revision that
starts with ``-`` (it would read as an option) is refused, and so is a path that leaves the
repository. Every failure is one :class:`GitError` line (exit 2).
"""

from __future__ import annotations

import os
import subprocess
import tarfile
from collections.abc import Sequence
from pathlib import PurePosixPath

from paramcount.errors import ConfigError

TIMEOUT = 120
"""Seconds any one git command may take."""


class GitError(ConfigError):
    """Git could not give what ``--baseline`` asked for: no repository, an unknown revision."""


def _git(args: Sequence[str], cwd: str) -> subprocess.CompletedProcess[bytes]:
    """Run ``git ARGS`` in ``cwd`` (an argument list, no shell), capturing its output."""
    environment = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "GIT_PAGER": "cat",
                   "LC_ALL": "C"}
    try:
        return subprocess.run(["git", "--no-pager", *args], cwd=cwd, capture_output=True,
                              timeout=TIMEOUT, env=environment, check=False)
    except FileNotFoundError:
        raise GitError("--baseline needs git, and no git command was found") from None
    except subprocess.TimeoutExpired:
        raise GitError(f"--baseline: git {args[0]} took more than {TIMEOUT} seconds") from None


def _said(result: subprocess.CompletedProcess[bytes]) -> str:
    """Git's own first line of complaint."""
    text = result.stderr.decode("utf-8", "replace").strip()
    return text.splitlines()[0][:200] if text else f"git exited with {result.returncode}"


def toplevel(folder: str) -> str:
    """The root of the work tree holding ``folder``; GitError when it is in none."""
    result = _git(["rev-parse", "--show-toplevel"], folder or ".")
    if result.returncode != 0:
        raise GitError(f"--baseline: {folder or '.'} is not in a git repository "
                       f"({_said(result)})")
    return result.stdout.decode("utf-8", "surrogateescape").strip()


def check_ref(ref: str) -> None:
    """Refuse a revision git could read as an option or that no revision can spell."""
    if not ref or ref.startswith("-"):
        raise GitError(f"--baseline {ref!r}: a revision may not be empty or start with '-'")
    if any(c in ref for c in "\0\n\r") or ":" in ref:
        raise GitError(f"--baseline {ref!r}: not a revision (give a branch, a tag or a "
                       "commit, e.g. origin/main or HEAD~1)")


def commit(ref: str, top: str) -> str:
    """The commit ``ref`` names in the repository at ``top``; GitError when it names none."""
    check_ref(ref)
    result = _git(["rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"], top)
    if result.returncode != 0:
        raise GitError(f"--baseline {ref}: unknown revision in {top} (fetch it first, e.g. "
                       "git fetch origin main, or check out with fetch-depth: 0)")
    return result.stdout.decode("ascii").strip()


def relative(path: str, top: str) -> str | None:
    """``path`` as git names it in the repository at ``top`` (``configs/models.toml``), or
    None when it lies outside."""
    full = os.path.realpath(path)
    root = os.path.realpath(top)
    inside = os.path.relpath(full, root)
    if inside == os.curdir or inside.startswith(os.pardir + os.sep) or inside == os.pardir:
        return None
    return PurePosixPath(*inside.split(os.sep)).as_posix()


def show(revision: str, path: str, top: str) -> bytes | None:
    """The bytes of ``path`` (relative to the repository) at ``revision``; None when the file
    was not there (or was not a file)."""
    result = _git(["cat-file", "blob", f"{revision}:{path}"], top)
    return result.stdout if result.returncode == 0 else None


def extract(revision: str, path: str, top: str, into: str) -> bool:
    """Write ``path`` (a file or a folder; empty: the whole tree) as it was at ``revision``
    under ``into``, at the same relative place, streamed from ``git archive`` (a checkpoint
    is never held in memory);
    False when it was not there. Only regular files inside ``into`` are written (nothing a
    link or ``..`` could place elsewhere)."""
    environment = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C"}
    try:
        process = subprocess.Popen(["git", "--no-pager", "archive", "--format=tar", revision,
                                    *(["--", path] if path else [])], cwd=top,
                                   stdout=subprocess.PIPE,
                                   stderr=subprocess.DEVNULL, env=environment)
    except FileNotFoundError:
        raise GitError("--baseline needs git, and no git command was found") from None
    assert process.stdout is not None
    wrote = False
    try:
        with tarfile.open(fileobj=process.stdout, mode="r|") as archive:
            for member in archive:
                name = PurePosixPath(member.name)
                if name.is_absolute() or ".." in name.parts or not member.isfile():
                    continue
                source = archive.extractfile(member)
                if source is None:
                    continue
                target = os.path.join(into, *name.parts)
                os.makedirs(os.path.dirname(target), exist_ok=True)
                with source, open(target, "wb") as out:
                    while chunk := source.read(1 << 20):
                        out.write(chunk)
                wrote = True
    except tarfile.ReadError:  # nothing came: the path was not there
        wrote = False
    finally:
        process.stdout.close()
        try:
            process.wait(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    return wrote and process.returncode == 0
