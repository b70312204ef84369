"""What a path names, in the one phrase every command uses, and reading only regular files.

A path a user hands us may be a folder, a FIFO (whose open blocks until a writer comes), a
device (``/dev/zero`` never ends), a socket, a dangling symbolic link or a loop of them.
:func:`kind_of` names each the same way for ``check``, ``inspect``, ``--config`` and the
writers; :func:`read_regular` opens without blocking, refuses anything but a regular file and
reads at most a limit.
"""

from __future__ import annotations

import errno
import os
import stat

KINDS = {stat.S_IFIFO: "a FIFO", stat.S_IFCHR: "a character device",
         stat.S_IFBLK: "a block device", stat.S_IFDIR: "a folder", stat.S_IFSOCK: "a socket"}
"""The phrase for each kind of file that is not a regular one."""


def kind_of(path: str | os.PathLike[str]) -> str | None:
    """None for a regular file (through any links); else what ``path`` is: ``no such file``,
    ``a dangling symbolic link``, ``a symbolic link loop``, ``a folder``, ``a FIFO``, …

    >>> kind_of("/dev/null")
    'a character device'
    """
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return "a dangling symbolic link" if os.path.islink(path) else "no such file"
    except OSError as error:
        if error.errno == errno.ELOOP:
            return "a symbolic link loop"
        return f"unreadable ({error.strerror or error})"
    except ValueError:
        return "not a file name (it holds a NUL byte)"
    if stat.S_ISREG(info.st_mode):
        return None
    return KINDS.get(stat.S_IFMT(info.st_mode), "not a regular file")


def not_regular(kind: str) -> str:
    """The refusal's words for a path of ``kind`` (as :func:`kind_of` says it).

    >>> not_regular("a FIFO"), not_regular("no such file")
    ('a FIFO, not a regular file', 'no such file')
    """
    return f"{kind}, not a regular file" if kind in KINDS.values() else kind


class NotRegular(OSError):
    """A path that is not a regular file where one is read; ``strerror`` says what it is."""


def read_regular(path: str | os.PathLike[str], limit: int, what: str) -> bytes:
    """The bytes of the regular file ``path``, at most ``limit`` of them; NotRegular (an
    OSError) for anything else, ``OverflowError`` naming ``what`` past the limit. The open
    never blocks (a FIFO without a writer) and nothing past the limit is read."""
    descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        info = os.fstat(descriptor)
        if not stat.S_ISREG(info.st_mode):
            kind = KINDS.get(stat.S_IFMT(info.st_mode), "not a regular file")
            raise NotRegular(errno.EINVAL, not_regular(kind), str(path))
        if info.st_size > limit:
            raise OverflowError(f"over {limit:,} bytes, too large for {what}")
        chunks, size = [], 0
        while chunk := os.read(descriptor, min(1 << 20, limit + 1 - size)):
            chunks.append(chunk)
            size += len(chunk)
            if size > limit:
                raise OverflowError(f"over {limit:,} bytes, too large for {what}")
        return b"".join(chunks)
    finally:
        os.close(descriptor)
