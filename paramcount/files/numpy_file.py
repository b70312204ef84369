"""numpy ``.npz`` archives and ``.npy`` files, read from each array's header alone.

``np.save`` writes the magic ``\\x93NUMPY``, a version, a header length and a header: a Python
dict literal ``{'descr': '<f4', 'fortran_order': False, 'shape': (768, 256), }``; the data
follows. ``np.savez`` zips one such ``<key>.npy`` per array. Only the headers are read: a
literal parsed by :func:`ast.literal_eval` (no code runs, as numpy's own reader does it), at most
:data:`MAX_HEADER` bytes, its shape bounded and checked against the bytes the member holds.
Arrays of Python objects are pickles: never unpickled (numpy itself refuses them without
``allow_pickle``), named in a note and not counted.
"""

from __future__ import annotations

import ast
import math
import struct
import zipfile
from pathlib import Path
from typing import IO

from paramcount.errors import ParamcountError
from paramcount.files.limits import MAX_COUNT, shown_name
from paramcount.files.listing import Listing, NamedTensor

MAGIC = b"\x93NUMPY"
MAX_HEADER = 10_000
"""numpy's own limit on a header it reads without ``max_header_size`` (10,000 bytes)."""
MAX_MEMBERS = 100_000
"""The most arrays an archive may hold."""

# numpy's kind letter and itemsize -> its name
_NAMES = {
    ("f", 2): "float16", ("f", 4): "float32", ("f", 8): "float64",
    ("i", 1): "int8", ("i", 2): "int16", ("i", 4): "int32", ("i", 8): "int64",
    ("u", 1): "uint8", ("u", 2): "uint16", ("u", 4): "uint32", ("u", 8): "uint64",
    ("b", 1): "bool", ("c", 8): "complex64", ("c", 16): "complex128",
}


def read(path: Path, shown: str | None = None) -> Listing:
    """The arrays of an ``.npz`` archive or a ``.npy`` file, from their headers."""
    label = shown or str(path)
    skipped: list[str] = []
    try:
        if zipfile.is_zipfile(path):
            tensors = _archive(path, label, skipped)
            kind = "npz"
        else:
            with path.open("rb") as stream:
                size = path.stat().st_size
                tensor = _array(stream, size, path.stem, label, skipped)
            tensors = [] if tensor is None else [tensor]
            kind = "npy"
    except OSError as error:
        raise ParamcountError(f"{label}: cannot read it ({error.strerror or error})") from None
    notes = []
    if skipped:
        notes.append(f"not counted: {len(skipped):,} array" + ("" if len(skipped) == 1 else "s")
                     + " of Python objects, strings or records (" + ", ".join(skipped[:3])
                     + (", ..." if len(skipped) > 3 else "")
                     + "): not numbers, and an object array is a pickle, never loaded")
    return Listing(label, kind, tuple(tensors), tuple(notes))


def _archive(path: Path, label: str, skipped: list[str]) -> list[NamedTensor]:
    try:
        with zipfile.ZipFile(path) as archive:
            members = archive.infolist()
            if len(members) > MAX_MEMBERS:
                raise ParamcountError(f"{label}: an archive of {len(members):,} members (at "
                                      f"most {MAX_MEMBERS:,} are read)")
            arrays = [m for m in members if m.filename.endswith(".npy")]
            if not arrays or len(arrays) != len(members):
                other = next((m.filename for m in members if not m.filename.endswith(".npy")),
                             None)
                raise ParamcountError(
                    f"{label}: a zip that is not a numpy .npz archive (np.savez writes only "
                    f"<name>.npy members; it holds {shown_name(other or '(nothing)')})"
                )
            tensors = []
            for member in arrays:
                if member.flag_bits & 0x1:
                    raise ParamcountError(f"{label}: {shown_name(member.filename)} is "
                                          "encrypted")
                with archive.open(member) as stream:
                    tensor = _array(stream, member.file_size, member.filename[:-4],
                                    f"{label}: {shown_name(member.filename)}", skipped)
                if tensor is not None:
                    tensors.append(tensor)
            return tensors
    except zipfile.BadZipFile as error:
        raise ParamcountError(f"{label}: a damaged zip archive ({error})") from None
    except (EOFError, NotImplementedError, RuntimeError, ValueError) as error:
        raise ParamcountError(f"{label}: cannot read the zip archive ({error})") from None


def _array(stream: IO[bytes], size: int, name: str, where: str,
           skipped: list[str]) -> NamedTensor | None:
    """One array from its header, or None (named in ``skipped``) for one of objects."""
    head = stream.read(len(MAGIC) + 2)
    if not head.startswith(MAGIC) or len(head) < len(MAGIC) + 2:
        raise ParamcountError(f"{where}: not a numpy array (no \\x93NUMPY magic)")
    major = head[len(MAGIC)]
    if major not in (1, 2, 3):
        raise ParamcountError(f"{where}: numpy format version {major}, which numpy never "
                              "wrote")
    width = 2 if major == 1 else 4
    raw_length = stream.read(width)
    if len(raw_length) < width:
        raise ParamcountError(f"{where}: a truncated numpy header")
    (length,) = struct.unpack("<H" if width == 2 else "<I", raw_length)
    if length > MAX_HEADER:
        raise ParamcountError(f"{where}: a numpy header of {length:,} bytes, over numpy's "
                              f"{MAX_HEADER:,}-byte limit")
    raw = stream.read(length)
    if len(raw) < length:
        raise ParamcountError(f"{where}: a truncated numpy header")
    descr, shape = _header(raw, "utf-8" if major == 3 else "latin1", where)
    start = len(MAGIC) + 2 + width + length
    if not isinstance(descr, str) or descr[1:2] in ("O", "U", "S", "V"):
        skipped.append(shown_name(name))
        return None
    kind, digits = descr[1:2], descr[2:]
    dtype = _NAMES.get((kind, int(digits))) if digits.isdigit() and len(digits) <= 2 else None
    if dtype is None:
        raise ParamcountError(f"{where}: dtype {descr!r} is not a numeric numpy dtype")
    need = math.prod(shape) * int(digits)
    if start + need != size:
        raise ParamcountError(
            f"{where}: shape {shape} of {descr} needs {need:,} bytes of data, the file holds "
            f"{max(size - start, 0):,}: a damaged or forged array"
        )
    return NamedTensor(name, shape, dtype)


def _header(raw: bytes, encoding: str, where: str) -> tuple[object, tuple[int, ...]]:
    """The header's ``descr`` and ``shape``, checked: a literal dict, a tuple of whole
    numbers each at most 2^63 − 1, C or Fortran order (the count is the same)."""
    try:
        header = ast.literal_eval(raw.decode(encoding))
    except (ValueError, SyntaxError) as error:
        if "digits" in str(error):  # Python's limit on the digits of a literal integer
            raise ParamcountError(f"{where}: its header holds a number of thousands of digits "
                                  "(sizes are at most 2^63 − 1)") from None
        header = None
    except (UnicodeDecodeError, MemoryError, RecursionError, TypeError):
        header = None
    if not isinstance(header, dict) or not {"descr", "shape", "fortran_order"} <= set(header):
        raise ParamcountError(f"{where}: its numpy header is not a dict of descr, "
                              "fortran_order and shape")
    shape = header["shape"]
    if not isinstance(shape, tuple) or not all(
        isinstance(d, int) and not isinstance(d, bool) and 0 <= d <= MAX_COUNT for d in shape
    ) or math.prod(shape) > MAX_COUNT:
        raise ParamcountError(f"{where}: its shape is not a tuple of whole numbers of at most "
                              "2^63 − 1 elements")
    return header["descr"], shape
