"""safetensors files, read from their JSON header alone: no dependency, no tensor data.

A safetensors file is an 8-byte little-endian header length N, N bytes of JSON mapping each
tensor name to ``{"dtype", "shape", "data_offsets"}`` (plus an optional ``__metadata__`` of
strings), then the tensors' bytes. Everything in the header is validated before use, the way
the safetensors library does: the length fits in the file, the JSON is an object, every dtype
is known, every shape is a list of whole numbers, and every tensor's offsets lie inside the
data and hold exactly its elements.
"""

from __future__ import annotations

import json
import math
import os
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from paramcount.errors import ParamcountError
from paramcount.files.limits import bounded, shown_name
from paramcount.files.listing import Listing, NamedTensor
from paramcount.files.state_dict import torch_names

MAX_HEADER = 100_000_000
"""The safetensors library's own limit on the header (100 MB)."""

# safetensors dtype -> (numpy's spelling, bits per element)
DTYPES: dict[str, tuple[str, int]] = {
    "BOOL": ("bool", 8),
    "U8": ("uint8", 8),
    "I8": ("int8", 8),
    "F8_E5M2": ("float8_e5m2", 8),
    "F8_E4M3": ("float8_e4m3fn", 8),
    "F8_E8M0": ("float8_e8m0fnu", 8),
    "F4": ("float4_e2m1fn", 4),  # one 4-bit value per element (torch's _x2 packs two)
    "F6_E2M3": ("float6_e2m3fn", 6),
    "F6_E3M2": ("float6_e3m2fn", 6),
    "I16": ("int16", 16),
    "U16": ("uint16", 16),
    "F16": ("float16", 16),
    "BF16": ("bfloat16", 16),
    "I32": ("int32", 32),
    "U32": ("uint32", 32),
    "F32": ("float32", 32),
    "C64": ("complex64", 64),
    "F64": ("float64", 64),
    "I64": ("int64", 64),
    "U64": ("uint64", 64),
}


MAGIC_HINT = b"{"
"""The first byte of a safetensors header after its length (a JSON object)."""


def looks_like(head: bytes, file_size: int) -> bool:
    """Whether the first bytes of a file look like a safetensors header."""
    if len(head) < 9:
        return False
    (length,) = struct.unpack("<Q", head[:8])
    return 2 <= length <= file_size - 8 and head[8:9] == MAGIC_HINT


@dataclass(frozen=True)
class Entry:
    """One tensor of a safetensors file: its description and where its bytes lie."""

    tensor: NamedTensor
    dtype: str
    """The safetensors dtype code: ``F32``, ``BF16``, ..."""
    offset: int
    """The position of its first byte in the file."""
    size: int
    """Its bytes."""


def read(path: Path, shown: str | None = None) -> Listing:
    """The tensors of one safetensors file, from its header; never reads their data."""
    label = shown or str(path)
    found, metadata = entries(path, label)
    notes = []
    if metadata:
        shown_meta = ", ".join(f"{k}={v}" for k, v in sorted(metadata.items()))
        if len(shown_meta) > 200:
            shown_meta = shown_meta[:197] + "..."
        notes.append(f"metadata: {shown_meta}")
    tensors = [entry.tensor for entry in found]
    return Listing(label, "safetensors", tuple(torch_names(tensors)), tuple(notes))


def entries(path: Path, label: str) -> tuple[list[Entry], dict[str, Any]]:
    """Every tensor of a safetensors file in the order of its data, validated, and the
    metadata; reads the header only."""
    with path.open("rb") as stream:
        file_size = os.fstat(stream.fileno()).st_size
        prefix = stream.read(8)
        if len(prefix) < 8:
            raise ParamcountError(
                f"{label}: {file_size} bytes is too short for a safetensors file "
                "(it starts with an 8-byte header length)"
            )
        (length,) = struct.unpack("<Q", prefix)
        if length > file_size - 8:
            raise ParamcountError(
                f"{label}: the safetensors header length {length:,} is larger than the file "
                f"({file_size:,} bytes): truncated or not a safetensors file"
            )
        if length > MAX_HEADER:
            raise ParamcountError(
                f"{label}: the safetensors header length {length:,} is over the "
                f"{MAX_HEADER:,}-byte limit"
            )
        raw = stream.read(length)
    header = _parse(raw, label)
    return _tensors(header, 8 + length, file_size - 8 - length, label)


def _parse(raw: bytes, label: str) -> dict[str, Any]:
    try:
        header = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as error:  # ValueError: a number
        first = (str(error).splitlines() or [""])[0]                   # of over 4,300 digits
        raise ParamcountError(
            f"{label}: the safetensors header is not valid JSON ({first[:100]})"
        ) from None
    if not isinstance(header, dict):
        raise ParamcountError(
            f"{label}: the safetensors header must be a JSON object, not "
            f"{type(header).__name__}"
        )
    return header


def _shown(value: object) -> str:
    """A value from a header for a message: its JSON, at most a few dozen characters, numbers
    of any size included."""
    if isinstance(value, int) and not bounded(abs(value)):
        return "a number of over 19 digits"
    if isinstance(value, list) and any(isinstance(v, int) and not bounded(abs(v))
                                       for v in value):
        return f"a list of {len(value):,} holding a number of over 19 digits"
    if isinstance(value, str):
        return repr(value) if len(value) <= 40 else repr(value[:37]) + "..."
    try:
        text = json.dumps(value)
    except (ValueError, TypeError, RecursionError):  # a number of thousands of digits inside
        text = f"a {type(value).__name__}"
    return shown_name(text) if len(text) <= 60 else shown_name(text[:57]) + "..."


def _whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and bounded(value)


def _tensors(
    header: dict[str, Any], data_start: int, data_size: int, label: str
) -> tuple[list[Entry], dict[str, Any]]:
    """Validated tensors in the order of their data, and the metadata."""
    metadata = header.get("__metadata__") or {}
    if not isinstance(metadata, dict):
        raise ParamcountError(f"{label}: the safetensors __metadata__ must be an object")
    found: list[tuple[int, int, Entry]] = []
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        where = f"{label}: tensor '{shown_name(name)}'"
        if not isinstance(entry, dict):
            raise ParamcountError(f"{where} must be described by an object")
        dtype, shape, offsets = entry.get("dtype"), entry.get("shape"), entry.get("data_offsets")
        if dtype not in DTYPES:
            raise ParamcountError(
                f"{where} has dtype {_shown(dtype)}, not one of {', '.join(DTYPES)}"
            )
        if not isinstance(shape, list) or not all(_whole(d) for d in shape) or not bounded(
                math.prod(shape)):
            raise ParamcountError(f"{where} has shape {_shown(shape)}, not a list of whole "
                                  "numbers of at most 2^63 − 1 elements")
        if (not isinstance(offsets, list) or len(offsets) != 2
                or not all(_whole(o) for o in offsets) or offsets[0] > offsets[1]):
            raise ParamcountError(
                f"{where} has data_offsets {_shown(offsets)}, not [begin, end] with "
                "begin <= end <= 2^63 − 1"
            )
        numpy_name, bits = DTYPES[dtype]
        expected = (math.prod(shape) * bits + 7) // 8
        begin, end = offsets
        if end - begin != expected:
            raise ParamcountError(
                f"{where}: data_offsets {offsets} hold {end - begin:,} bytes, but "
                f"{dtype} {tuple(shape)} needs {expected:,}"
            )
        if end > data_size:
            raise ParamcountError(
                f"{where}: data_offsets {offsets} end past the file's data ({data_size:,} "
                "bytes): truncated?"
            )
        tensor = NamedTensor(name, tuple(shape), numpy_name)
        found.append((begin, end, Entry(tensor, dtype, data_start + begin, end - begin)))
    found.sort(key=lambda item: item[:2])  # as the library does: empty tensors first
    position = 0
    for begin, end, entry in found:
        if begin != position:
            raise ParamcountError(
                f"{label}: tensor '{shown_name(entry.tensor.name)}' starts at byte {begin:,} of "
                f"the data, where the previous one ends at {position:,} (overlapping or gapped "
                "offsets)"
            )
        position = end
    return [entry for _, _, entry in found], {str(k): v for k, v in metadata.items()}
