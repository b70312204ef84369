"""Replacing a file atomically: a temporary file beside it, under one fixed name, then a rename.

Every file paramcount writes for the user (``check --update``, ``check --junit``, ``port --out``)
goes through :func:`replacing`, so that a reader never sees half a file, a failure or a kill
changes nothing, and nothing piles up:

- the temporary file has one fixed, obviously disposable name per target and purpose
  (``.models.toml.paramcount-update.tmp``), so a run killed hard leaves at most one, which the
  next run removes;
- it is created exclusively (``O_EXCL``, after removing a stale one, never following a link),
  so a link planted at its name is replaced, never written through;
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


def temporary_path(target: str, purpose: str, suffix: str = ".tmp") -> str:
    """Where the new content of ``target`` is written first: ``.NAME.paramcount-PURPOSE.tmp``
    beside it (ending in ``suffix`` instead of ``.tmp`` for writers that insist on one, such
    as Keras' ``.weights.h5``).

    >>> temporary_path("configs/models.toml", "update")
    'configs/.models.toml.paramcount-update.tmp'
    >>> temporary_path("out/tagger.weights.h5", "port", ".weights.h5")
    'out/.tagger.weights.h5.paramcount-port.weights.h5'
    """
    folder, name = os.path.split(target)
    return os.path.join(folder, f".{name}.paramcount-{purpose}{suffix}")


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
        for stale in (temporary, *extras):
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
