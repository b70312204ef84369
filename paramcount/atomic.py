"""Replacing a file atomically: a temporary file beside it, under a name of its own, then a rename.

Every file paramcount writes for the user (``check --update``, ``check --junit``, ``port --out``)
goes through :func:`replacing`, so that a reader never sees half a file, a failure or a kill
changes nothing, concurrent writers never trip over each other, and nothing piles up:

- the temporary file has a name of its own per run
  (``.models.toml.paramcount-update-PID-TOKEN.tmp``: the target, the purpose, the writer's
  process id and a random token), so writers of the same
  target at once each write their own and the last rename wins whole; a run killed hard leaves
  its file, which the next run removes (its process is gone);
- it is created exclusively (``O_EXCL``, never following a link), so nothing planted at a
  temporary name is ever written through;
- it is flushed to disk (``fsync``) before the rename, and removed on any error, on Ctrl-C and
  on SIGTERM;
- a target that exists and is not a regular file (a FIFO, a device node such as ``/dev/null``,
  a folder, a socket) is refused before anything is made, and left as it is
  (:func:`refusal`).
"""

from __future__ import annotations

import contextlib
import errno
import os
import signal
import stat
import sys
import threading
from collections.abc import Iterator, Sequence

_KINDS = {stat.S_IFIFO: "a FIFO", stat.S_IFCHR: "a character device",
          stat.S_IFBLK: "a block device", stat.S_IFDIR: "a folder", stat.S_IFSOCK: "a socket"}


class NotRegularFile(OSError):
    """A target that exists and is not a regular file, which is never replaced."""

    def __str__(self) -> str:
        return f"{self.filename}: {self.strerror}"


def refusal(target: str) -> NotRegularFile | None:
    """Why ``target`` may not be replaced (it exists, through any link, and is not a regular
    file), or None.

    >>> str(refusal("/dev/null"))
    '/dev/null: a character device, not a regular file; it is left as it is'
    """
    try:
        info = os.stat(target)
    except OSError:
        return None
    if stat.S_ISREG(info.st_mode):
        return None
    what = _KINDS.get(stat.S_IFMT(info.st_mode), "not a file")
    return NotRegularFile(errno.EEXIST, f"{what}, not a regular file; it is left as it is",
                          target)


def temporary_path(target: str, purpose: str, suffix: str = ".tmp", pid: int | None = None,
                   token: str | None = None) -> str:
    """Where the new content of ``target`` is written first:
    ``.NAME.paramcount-PURPOSE-PID-TOKEN.tmp`` beside it, a name no other writer uses (ending in
    ``suffix`` instead of ``.tmp`` for writers that insist on one, such as Keras'
    ``.weights.h5``); ``pid`` (default: this process) and ``token`` (default: a random one).

    >>> temporary_path("configs/models.toml", "update", pid=7, token="ab12")
    'configs/.models.toml.paramcount-update-7-ab12.tmp'
    >>> temporary_path("out/tagger.weights.h5", "port", ".weights.h5", pid=7, token="ab12")
    'out/.tagger.weights.h5.paramcount-port-7-ab12.weights.h5'
    """
    folder, name = os.path.split(target)
    pid = os.getpid() if pid is None else pid
    token = os.urandom(6).hex() if token is None else token
    return os.path.join(folder, f".{name}.paramcount-{purpose}-{pid}-{token}{suffix}")


def leftovers(target: str, purpose: str) -> list[str]:
    """The temporary files (and their side files) of ``target`` and ``purpose`` that runs
    killed hard left beside it: their process is gone (a live writer's are its own), or they
    carry the one fixed name earlier versions used."""
    folder, name = os.path.split(target)
    prefix = f".{name}.paramcount-{purpose}"
    try:
        entries = os.listdir(folder or ".")
    except OSError:
        return []
    found = []
    for entry in entries:
        if not entry.startswith(prefix):
            continue
        rest = entry[len(prefix):]
        if rest.startswith("."):  # an earlier version's fixed name
            found.append(os.path.join(folder, entry))
            continue
        pid = rest[1:].split("-", 1)[0]
        if rest.startswith("-") and pid.isascii() and pid.isdigit() and len(pid) < 12 and (
                not _alive(int(pid))):
            found.append(os.path.join(folder, entry))
    return found


def _alive(pid: int) -> bool:
    """Whether process ``pid`` runs (on Windows, where no signal asks it, assumed so)."""
    if pid == os.getpid() or sys.platform == "win32":
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


@contextlib.contextmanager
def terminate_as_exit() -> Iterator[None]:
    """Turn SIGTERM into SystemExit for the duration (main thread only), so cleanup runs."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum: int, frame: object) -> None:
        raise SystemExit(128 + signum)

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _remove(path: str) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)


def new_file_mode() -> int:
    """The permissions a new file gets from the process's umask (0666 less the umask)."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def mode_of(path: str) -> int:
    """The permission bits ``path`` keeps when it is replaced, or a new file's."""
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        return new_file_mode()


@contextlib.contextmanager
def replacing(target: str, purpose: str, mode: int | None = None, suffix: str = ".tmp",
              companions: Sequence[str] = ()) -> Iterator[str]:
    """Yield a fresh, empty temporary file's path beside ``target``; when the block ends,
    flush it to disk, give it ``mode`` (default: the target's, or a new file's) and rename it
    onto ``target``.

    ``companions`` are suffixes of side files a writer makes next to the temporary file
    (``.data``): stale ones are removed first, and they are removed with it on failure. OSError
    is the caller's to report; a target that is not a regular file is refused first, as a
    :class:`NotRegularFile` OSError, with nothing made or touched.
    """
    refused = refusal(target)
    if refused is not None:
        raise refused
    temporary = temporary_path(target, purpose, suffix)
    extras = [temporary + suffix for suffix in companions]
    keep = mode_of(target) if mode is None else mode
    with terminate_as_exit():
        for stale in leftovers(target, purpose):
            with contextlib.suppress(OSError):
                _remove(stale)
        try:
            os.close(os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL
                             | getattr(os, "O_NOFOLLOW", 0), 0o600))
            yield temporary
            descriptor = os.open(temporary, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
            try:
                os.fsync(descriptor)
            finally:
                os.close(descriptor)
            os.chmod(temporary, keep)
            os.replace(temporary, target)
        except BaseException:
            for leftover in (temporary, *extras):
                with contextlib.suppress(OSError):
                    _remove(leftover)
            raise
