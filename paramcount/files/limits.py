"""What every reader bounds and escapes: sizes past 2^63 − 1, names that would break a line,
files outside a model folder.

Files are untrusted: a dimension may have thousands of digits and a tensor's name may hold a
line feed, a carriage return or a right-to-left override. Readers refuse any size over
:data:`MAX_COUNT` (as ``check`` does) and show names through :func:`shown_name`, so that what a
file holds can neither spoof a table nor stretch an error line.
"""

from __future__ import annotations

from pathlib import Path

from paramcount.engine.spec import MAX_SIZE
from paramcount.errors import ParamcountError, printable

__all__ = ["MAX_COUNT", "MAX_NAME", "bounded", "inside", "printable", "shown_name"]

MAX_COUNT = MAX_SIZE
"""The largest dimension, element count or byte size a reader accepts (2^63 − 1)."""

MAX_NAME = 120
"""The most characters of a name a message shows."""


def shown_name(name: str) -> str:
    """A name from a file for a message: escaped, and cut to :data:`MAX_NAME` characters with
    its length when longer."""
    if len(name) > MAX_NAME:
        return f"{printable(name[:MAX_NAME - 40])}… ({len(name):,} characters)"
    return printable(name)


def bounded(value: int) -> bool:
    """Whether a size read from a file is a whole number from 0 to 2^63 − 1."""
    return 0 <= value <= MAX_COUNT


def inside(folder: Path, path: Path, what: str) -> tuple[int, int]:
    """The identity (device, inode) of ``path``, a regular file whose resolved path lies inside
    ``folder``; ParamcountError starting with ``what`` otherwise."""
    from paramcount.filekind import kind_of, not_regular

    kind = kind_of(path)
    if kind is not None:
        raise ParamcountError(f"{what} is {not_regular(kind)}")
    try:
        resolved = path.resolve(strict=True)
        home = folder.resolve(strict=True)
        info = resolved.stat()
    except (OSError, RuntimeError) as error:
        raise ParamcountError(f"{what} cannot be read ({error})") from None
    if not resolved.is_relative_to(home):
        raise ParamcountError(f"{what} leads out of the model folder (to {resolved}); a shard "
                              "must be a file inside it")
    return info.st_dev, info.st_ino
