"""One door for model files: tell the format by its first bytes (and name), then read it.

Each format's reader lives in its own module, imported only when a file of that format comes.
Anything that is not a file paramcount reads is refused in one line naming the file and the
formats it knows.
"""

from __future__ import annotations

import importlib
import json
import os
from pathlib import Path, PurePosixPath

from paramcount.errors import ParamcountError, number_text
from paramcount.files.limits import bounded, inside, printable, shown_name
from paramcount.files.listing import Listing

# format -> (module whose ``read(path)`` reads it, what users call it)
READERS: dict[str, tuple[str, str]] = {
    "safetensors": ("paramcount.files.safetensors_file", "safetensors"),
    "torch": ("paramcount.files.torch_file", "PyTorch .pt/.pth/.bin/.ckpt"),
    "onnx": ("paramcount.files.onnx_file", "ONNX .onnx"),
    "keras": ("paramcount.files.keras_file", "Keras .keras/.h5/.weights.h5"),
    "numpy": ("paramcount.files.numpy_file", "numpy .npz/.npy"),
}
KNOWN = ("safetensors, sharded *.index.json, PyTorch .pt/.pth/.bin/.ckpt, ONNX .onnx, "
         "Keras .keras/.h5/.weights.h5, numpy .npz/.npy")

ZIP = b"PK\x03\x04"
HDF5 = b"\x89HDF\r\n\x1a\n"
NUMPY = b"\x93NUMPY"
MAX_INDEX = 100_000_000
"""The largest ``*.index.json`` read (real ones are a few hundred kilobytes)."""
MAX_ENTRIES = 1_000_000
"""The most header entries (tensors) read from an index's shards in all: the largest real
checkpoints hold about a hundred thousand; past this a model is refused, so that shards which
each hold every tensor cannot make the read grow as shards × tensors."""


def read_file(path: Path) -> Listing:
    """Read a model file of any known format, or raise one-line errors naming it."""
    from paramcount.filekind import kind_of, not_regular

    label = printable(str(path))
    kind = kind_of(path)
    if kind == "a folder":
        from paramcount.files import hf_folder

        return hf_folder.read(path, read_file)
    if kind is not None:
        raise ParamcountError(f"{label}: {not_regular(kind)}")
    try:
        info = path.stat()
    except OSError as error:
        raise ParamcountError(f"{label}: cannot read it ({error.strerror or error})") from None
    if info.st_size == 0:
        raise ParamcountError(f"{label}: an empty file")
    try:
        with path.open("rb") as stream:
            head = stream.read(64)
    except OSError as error:
        raise ParamcountError(f"{label}: cannot read it ({error.strerror or error})") from None
    return _read(path, detect(path, head, info.st_size))


def detect(path: Path, head: bytes, size: int) -> str:
    """The format of a file from its first bytes and its name, or an error listing formats."""
    from paramcount.files.safetensors_file import looks_like

    name = path.name.lower()
    if name.endswith(".index.json"):
        return "index"
    if head.startswith(ZIP):
        import zipfile  # only for a zip archive: it loads compression modules and threading

        if not zipfile.is_zipfile(path):
            raise ParamcountError(f"{path}: a truncated or damaged zip archive")
        members = _zip_names(path)
        if name.endswith(".keras") or "config.json" in members:
            return "keras"
        if name.endswith(".npz") or (members and all(m.endswith(".npy") for m in members)):
            return "numpy"
        return "torch"
    if head.startswith(NUMPY):
        return "numpy"
    if head.startswith(HDF5):
        return "keras"
    if looks_like(head, size):
        return "safetensors"
    if head[:1] == b"\x80" and name.endswith((".pt", ".pth", ".bin", ".ckpt", ".pkl", ".tar")):
        return "torch"
    if name.endswith(".onnx") or _looks_like_onnx(head):
        return "onnx"
    if head[:1] == b"\x80":
        return "torch"
    if name.endswith(".safetensors"):
        return "safetensors"  # its reader says what is wrong with the header
    raise ParamcountError(f"{path}: not a model file paramcount reads (it reads {KNOWN})")


def _zip_names(path: Path) -> set[str]:
    import zipfile

    try:
        with zipfile.ZipFile(path) as archive:
            return set(archive.namelist())
    except (zipfile.BadZipFile, OSError, EOFError, ValueError) as error:
        raise ParamcountError(f"{path}: a damaged zip archive ({error})") from None


def _looks_like_onnx(head: bytes) -> bool:
    """An ONNX ModelProto starts with ir_version (field 1, varint) then a string field."""
    return len(head) > 3 and head[0] == 0x08 and head[1] < 0x80 and head[2] in (0x12, 0x1A, 0x3A)


def _read(path: Path, kind: str) -> Listing:
    if kind == "index":
        return read_index(path)
    module_name = READERS[kind][0]
    module = importlib.import_module(module_name)
    listing: Listing = module.read(path)
    return listing


def read_index(path: Path) -> Listing:
    """A sharded checkpoint (``model.safetensors.index.json``): every shard's tensors."""
    label = str(path)
    if path.stat().st_size > MAX_INDEX:
        raise ParamcountError(f"{label}: over {MAX_INDEX:,} bytes, too large for an index")
    try:
        index = json.loads(path.read_bytes().decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as error:  # ValueError: a number
        first = (str(error).splitlines() or [""])[0]                   # of over 4,300 digits
        raise ParamcountError(f"{label}: not valid JSON ({first[:100]})") from None
    weight_map = index.get("weight_map") if isinstance(index, dict) else None
    if not isinstance(weight_map, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in weight_map.items()
    ):
        raise ParamcountError(
            f"{label}: a sharded index needs a \"weight_map\" object of tensor name -> shard file"
        )
    shards: dict[str, list[str]] = {}
    for tensor, shard in weight_map.items():
        shards.setdefault(shard, []).append(tensor)
    tensors = []
    notes = []
    formats = set()
    files: dict[tuple[int, int], tuple[Path, str, list[str]]] = {}
    for shard, names in shards.items():  # each file once, whatever names lead to it
        shard_path, identity = _shard_path(path, shard)
        files.setdefault(identity, (shard_path, shard, []))[2].extend(names)
    entries = 0
    for shard_path, shard, names in files.values():
        listing = read_file(shard_path)
        entries += len(listing.tensors)
        if entries > MAX_ENTRIES:
            raise ParamcountError(f"{label}: its shards hold over {MAX_ENTRIES:,} header "
                                  "entries in all, more than paramcount reads")
        formats.add(listing.format)
        held = {t.name for t in listing.tensors}
        if missing := [n for n in names if n not in held]:
            raise ParamcountError(
                f"{label}: the index puts '{shown_name(missing[0])}' in {shown_name(shard)}, "
                "which does not hold it"
                + (f" ({len(missing) - 1} more missing)" if len(missing) > 1 else "")
            )
        wanted = set(names)
        tensors += [t for t in listing.tensors if t.name in wanted]
        if extra := [t.name for t in listing.tensors if t.name not in wanted]:
            notes.append(f"{shown_name(shard)} holds {len(extra)} tensors the index does "
                         f"not list (not counted): {', '.join(map(shown_name, extra[:3]))}")
        notes += [f"{shown_name(shard)}: {note}" for note in listing.notes]
    metadata = index.get("metadata")
    declared = metadata.get("total_size") if isinstance(metadata, dict) else None
    if isinstance(declared, int) and not bounded(declared):
        raise ParamcountError(f"{label}: its metadata's total_size is not a byte count from 0 "
                              f"to 2^63 − 1 ({number_text(declared)})")
    kind = formats.pop() if len(formats) == 1 else "mixed"
    notes.insert(0, f"{len(shards)} shards" + (
        f", total_size {declared:,} bytes declared" if isinstance(declared, int) else ""))
    return Listing(label, f"{kind}-sharded", tuple(tensors), tuple(notes))


def _shard_path(index: Path, shard: str) -> tuple[Path, tuple[int, int]]:
    """A shard named by the index, which must be a regular file beside it, whose resolved path
    is inside the index's folder; with the file's identity (device, inode), so that names
    leading to one file read it once."""
    parts = PurePosixPath(shard.replace("\\", "/")).parts
    if not parts or PurePosixPath(shard).is_absolute() or ".." in parts or os.sep in shard[:1]:
        raise ParamcountError(
            f"{index}: the shard {shard!r} is not a file name beside the index"
        )
    if shard.lower().endswith(".index.json"):
        raise ParamcountError(f"{index}: the shard {shard!r} is itself an index")
    path = index.parent.joinpath(*parts)
    return path, inside(index.parent, path, f"{index}: the shard {shard_text(shard)}")


def shard_text(name: str) -> str:
    """A shard's name for a message, quoted and shortened."""
    return repr(shown_name(name))
