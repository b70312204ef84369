"""Keras model files: ``.keras`` archives, legacy ``.h5`` models and ``.weights.h5`` files.

What is read, never the weights' data:

- ``.keras`` (a zip): ``config.json`` (layer classes and options) and ``model.weights.h5``,
  whose datasets ``layers/<name>/cell/vars/0`` are named after the layer's variable path
  (``lstm/lstm_cell/kernel``) from the ``name`` attribute of each ``vars`` group and the
  variables each class creates, in order. Sizes are checked before anything is read (a member
  declaring more than 100 times its compressed size is refused as a zip bomb). Keras stores
  the weights uncompressed, so h5py reads them in place through a window onto the archive: no
  copy, no extraction; a compressed member up to :data:`IN_MEMORY` bytes is decompressed into
  memory, a larger one into a temporary file that is removed afterwards.
- legacy ``.h5`` (``model.save('x.h5')``): the ``model_config`` attribute and the
  ``model_weights`` group, whose ``weight_names`` attributes hold each weight's path.
- ``.weights.h5`` (``model.save_weights``): the same layout as inside a ``.keras`` archive,
  without a config; a layer's class is read from its group's name (Keras names the groups
  after the classes: ``batch_normalization_1``).

Weights Keras does not train (BatchNormalization's moving statistics, a layer saved with
``trainable=False``) are listed with ``trainable=False``; the total is Keras' ``count_params()``.
With a config, every recurrent layer (SimpleRNN, LSTM, GRU, under Bidirectional with its merge
mode) is recognised exactly from its class and options; ConvLSTM layers are described in a note.
Reading HDF5 needs h5py (``pip install 'paramcount[h5]'``). The HDF5 library is not hardened
against hostile files (one flipped byte can make it loop for ever), so :func:`read` reads in a
child process stopped after :data:`TIMEOUT` seconds; :func:`read_here` is the reading itself.
"""

from __future__ import annotations

import importlib.util
import io
import json
import math
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from enum import Enum
from typing import IO, Any

from paramcount.engine.conventions.base import Recognised
from paramcount.engine.spec import Cell, Framework, LayerSpec, MergeMode, Nonlinearity
from paramcount.errors import BackendUnavailable, ParamcountError, SpecError, install_hint
from paramcount.files.limits import bounded, shown_name
from paramcount.files.listing import Listing, NamedTensor
from paramcount.record import fields as record_fields

IN_MEMORY = 256 * 2**20
"""The largest compressed weights member decompressed into memory (larger ones go to a
temporary file)."""
MAX_CONFIG = 64 * 2**20
"""The largest ``config.json`` read."""
MAX_RATIO = 100
"""A zip member declaring more than this many times its compressed size is a zip bomb."""
MAX_MEMBERS = 100_000

_ZIP_MAGIC = b"PK\x03\x04"
_HDF5_MAGIC = b"\x89HDF\r\n\x1a\n"
_WEIGHTS_MEMBER = "model.weights.h5"

# The variables each class creates, in order (Keras 3 names), keyed by the snake-case class
# name Keras gives its h5 groups. BatchNormalization and LayerNormalization depend on
# center / scale, handled in _roles.
_ROLES: dict[str, tuple[str, ...]] = {
    "dense": ("kernel", "bias"),
    "einsum_dense": ("kernel", "bias"),
    "embedding": ("embeddings",),
    "lstm_cell": ("kernel", "recurrent_kernel", "bias"),
    "gru_cell": ("kernel", "recurrent_kernel", "bias"),
    "simple_rnn_cell": ("kernel", "recurrent_kernel", "bias"),
    "conv_lstm_cell": ("kernel", "recurrent_kernel", "bias"),
    **{f"conv{r}d{t}": ("kernel", "bias") for r in (1, 2, 3) for t in ("", "_transpose")},
}
_NOT_TRAINED = frozenset({"moving_mean", "moving_variance"})
_CELLS = {"SimpleRNN": Cell.RNN, "LSTM": Cell.LSTM, "GRU": Cell.GRU}
_CONV = re.compile(r"ConvLSTM([123])D")


def _h5py() -> Any:
    try:
        import h5py
    except ImportError:
        raise BackendUnavailable(
            "h5py", "h5",
            "reading Keras HDF5 weights requires the h5py package: " + install_hint("h5"),
        ) from None
    return h5py


def read(path: str | os.PathLike[str]) -> Listing:
    """The weights of a ``.keras``, legacy ``.h5`` or ``.weights.h5`` file, and the recurrent
    layers its config describes.

    The file is read in a child process stopped after :data:`TIMEOUT` seconds: the HDF5
    library is not hardened against hostile files, and a damaged one can hang or crash it.
    Raises ParamcountError (exit 2) with one line naming the file for anything unreadable or
    not a Keras file (a hang or a crash included), and BackendUnavailable (exit 3) when h5py
    is missing.
    """
    source = os.fspath(path)
    _kind(source)
    if importlib.util.find_spec("h5py") is None:
        _h5py()
    if not sys.executable:  # embedded without an interpreter to start: read here
        return read_here(source)
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    try:
        done = subprocess.run(
            [sys.executable, "-P", "-c", _CHILD, root, source], stdin=subprocess.DEVNULL,
            capture_output=True, timeout=TIMEOUT, check=False,
        )
    except subprocess.TimeoutExpired:
        raise ParamcountError(
            f"{source}: reading its HDF5 took over {TIMEOUT:g} s and was stopped (a damaged "
            "HDF5 file can hang the HDF5 library)"
        ) from None
    if done.returncode < 0:
        raise ParamcountError(
            f"{source}: the HDF5 library crashed reading it (signal {-done.returncode}): a "
            "damaged or hostile file"
        )
    try:
        answer = json.loads(done.stdout)
    except ValueError:
        last = (done.stderr.decode("utf-8", "replace").strip().splitlines() or ["no output"])
        raise ParamcountError(f"{source}: reading it failed: {last[-1]}") from None
    if "error" in answer:
        if answer.get("exit_code") == BackendUnavailable.exit_code:
            raise BackendUnavailable("h5py", "h5", answer["error"])
        raise ParamcountError(answer["error"])
    return _decode(answer)


TIMEOUT = 60.0
"""Seconds the child process reading a Keras file may take."""

_CHILD = (
    "import sys; sys.path.insert(0, sys.argv[1]); "
    "from paramcount.files.keras_file import serve; serve(sys.argv[2])"
)


def serve(source: str) -> None:
    """Read ``source`` here and print the listing, or the error, as one JSON object (the
    child process of :func:`read`)."""
    answer: dict[str, Any]
    try:
        answer = _encode(read_here(source))
    except BackendUnavailable as error:
        answer = {"error": str(error), "exit_code": error.exit_code}
    except ParamcountError as error:
        answer = {"error": str(error), "exit_code": error.exit_code}
    except Exception as error:  # a hostile file can break h5py in any way
        first = (str(error).splitlines() or [""])[0]
        answer = {"error": f"{source}: not a readable Keras file ({type(error).__name__}: "
                           f"{first})", "exit_code": 2}
    sys.stdout.write(json.dumps(answer))


def _encode(listing: Listing) -> dict[str, Any]:
    """A listing as JSON-ready data."""
    return {
        "source": listing.source, "format": listing.format, "notes": list(listing.notes),
        "tensors": [[t.name, list(t.shape), t.dtype, t.trainable] for t in listing.tensors],
        "recognised": [
            {"prefix": r.prefix, "names": list(r.names), "notes": list(r.notes),
             "spec": {name: _plain(getattr(r.spec, name)) for name in record_fields(r.spec)}}
            for r in listing.recognised
        ],
        "config": listing.config,
    }


def _plain(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    return value.value if isinstance(value, Enum) else value


def _decode(data: dict[str, Any]) -> Listing:
    """The listing :func:`_encode` wrote."""
    recognised = []
    for r in data["recognised"]:
        spec = dict(r["spec"])
        if spec.get("merge_modes") is not None:
            spec["merge_modes"] = tuple(spec["merge_modes"])
        recognised.append(Recognised(r["prefix"], LayerSpec(**spec), tuple(r["names"]),
                                     tuple(r["notes"])))
    return Listing(
        data["source"], data["format"],
        tuple(NamedTensor(name, tuple(shape), dtype, trainable)
              for name, shape, dtype, trainable in data["tensors"]),
        tuple(data["notes"]), tuple(recognised), data["config"],
    )


def _kind(source: str) -> str:
    """``zip`` or ``hdf5`` by the file's first bytes, or a one-line error."""
    try:
        if os.path.exists(source) and not os.path.isdir(source) and not os.path.isfile(source):
            raise ParamcountError(f"{source}: not a regular file")
        with open(source, "rb") as handle:
            head = handle.read(8)
            if head.startswith(_ZIP_MAGIC):
                return "zip"
            if _is_hdf5(handle, head):
                return "hdf5"
    except IsADirectoryError:
        raise ParamcountError(f"{source}: is a directory, not a Keras file") from None
    except OSError as error:
        raise ParamcountError(f"{source}: cannot read: {error.strerror or error}") from None
    what = "empty file" if not head else "neither a zip archive (.keras) nor HDF5 (.h5)"
    raise ParamcountError(f"{source}: not a Keras file: {what}")


def read_here(source: str) -> Listing:
    """What :func:`read` does, in this process (no time limit: for the child process)."""
    kind = _kind(source)
    try:
        with open(source, "rb") as handle:
            if kind == "zip":
                return _archive(source, handle)
            return _hdf5(source, handle, None)
    except OSError as error:
        raise ParamcountError(f"{source}: cannot read: {error.strerror or error}") from None
    except ParamcountError as error:  # name the file where the message does not
        if str(error).startswith(f"{source}: ") or isinstance(error, BackendUnavailable):
            raise
        raise ParamcountError(f"{source}: {error}") from None


def _is_hdf5(handle: IO[bytes], head: bytes) -> bool:
    """HDF5's signature sits at byte 0, 512, 1024, 2048, ... (after a user block)."""
    if head == _HDF5_MAGIC:
        return True
    size = os.fstat(handle.fileno()).st_size
    offset = 512
    while offset + 8 <= size and offset <= 2**20:
        handle.seek(offset)
        if handle.read(8) == _HDF5_MAGIC:
            return True
        offset *= 2
    return False


# --- the .keras archive ------------------------------------------------------------------------


def _archive(source: str, handle: IO[bytes]) -> Listing:
    handle.seek(0)
    try:
        archive = zipfile.ZipFile(handle)
    except (zipfile.BadZipFile, ValueError, EOFError) as error:
        raise ParamcountError(f"{source}: not a valid .keras archive: {error}") from None
    with archive:
        members = archive.infolist()
        if len(members) > MAX_MEMBERS:
            raise ParamcountError(f"{source}: a .keras archive with {len(members):,} members")
        by_name = {m.filename: m for m in members}
        if "config.json" not in by_name:
            raise ParamcountError(f"{source}: not a .keras archive: it has no config.json")
        config = _config(source, archive, by_name["config.json"])
        weights = by_name.get(_WEIGHTS_MEMBER)
        if weights is None:
            other = "model.weights.npz" in by_name
            raise ParamcountError(
                f"{source}: the archive has no {_WEIGHTS_MEMBER}"
                + (" (its weights are in model.weights.npz, which paramcount does not read)"
                   if other else "")
            )
        _check_member(source, weights)
        with _member(source, archive, handle, weights) as stream:
            return _hdf5(source, stream, config)


def _check_member(source: str, info: zipfile.ZipInfo) -> None:
    """Refuse a member whose declared size is a zip bomb."""
    if info.flag_bits & 0x1:
        raise ParamcountError(f"{source}: {info.filename} is encrypted")
    if (info.compress_type != zipfile.ZIP_STORED and info.file_size > 2**20
            and info.file_size > MAX_RATIO * max(info.compress_size, 1)):
        raise ParamcountError(
            f"{source}: {info.filename} declares {info.file_size:,} bytes compressed into "
            f"{info.compress_size:,} (more than {MAX_RATIO}:1): refused as a zip bomb"
        )


def _config(source: str, archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> dict[str, Any]:
    _check_member(source, info)
    if info.file_size > MAX_CONFIG:
        raise ParamcountError(
            f"{source}: config.json declares {info.file_size:,} bytes (at most "
            f"{MAX_CONFIG:,} are read)"
        )
    try:
        with archive.open(info) as stream:
            text = stream.read(MAX_CONFIG + 1)
        config = json.loads(text)
    except (zipfile.BadZipFile, OSError, EOFError, NotImplementedError) as error:
        raise ParamcountError(f"{source}: cannot read config.json: {error}") from None
    except (ValueError, RecursionError) as error:
        raise ParamcountError(f"{source}: config.json is not valid JSON: "
                              f"{str(error).splitlines()[0]}") from None
    if not isinstance(config, dict):
        raise ParamcountError(f"{source}: config.json is not a Keras model config (not an "
                              "object)")
    return config


class _Window(io.RawIOBase):
    """A read-only, seekable view of ``size`` bytes of ``handle`` from ``start``."""

    def __init__(self, handle: IO[bytes], start: int, size: int) -> None:
        super().__init__()
        self.handle, self.start, self.size, self.position = handle, start, size, 0

    def readable(self) -> bool:
        """It can be read."""
        return True

    def seekable(self) -> bool:
        """It can seek."""
        return True

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        """Move within the window."""
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self.position, io.SEEK_END: self.size}[whence]
        self.position = max(0, base + offset)
        return self.position

    def tell(self) -> int:
        """The position within the window."""
        return self.position

    def readinto(self, buffer: Any) -> int:
        """Read up to len(buffer) bytes of the window into buffer."""
        wanted = min(len(buffer), self.size - self.position)
        if wanted <= 0:
            return 0
        self.handle.seek(self.start + self.position)
        data = self.handle.read(wanted)
        buffer[: len(data)] = data
        self.position += len(data)
        return len(data)


@contextmanager
def _member(source: str, archive: zipfile.ZipFile, handle: IO[bytes],
            info: zipfile.ZipInfo) -> Iterator[IO[bytes]]:
    """The weights member as a seekable file: a window onto the archive when stored, else
    decompressed into memory or a temporary file (removed on exit)."""
    if info.compress_type == zipfile.ZIP_STORED:
        handle.seek(info.header_offset)
        local = handle.read(30)
        if len(local) < 30 or not local.startswith(_ZIP_MAGIC):
            raise ParamcountError(f"{source}: {info.filename}'s local header is damaged")
        name_length, extra_length = struct.unpack("<HH", local[26:30])
        start = info.header_offset + 30 + name_length + extra_length
        if start + info.file_size > os.fstat(handle.fileno()).st_size:
            raise ParamcountError(f"{source}: {info.filename} runs past the end of the archive")
        yield io.BufferedReader(_Window(handle, start, info.file_size))
        return
    try:
        if info.file_size <= IN_MEMORY:
            with archive.open(info) as stream:
                yield io.BytesIO(stream.read(info.file_size + 1))
            return
        with tempfile.TemporaryDirectory(prefix="paramcount-") as directory:
            target = os.path.join(directory, "model.weights.h5")
            with archive.open(info) as stream, open(target, "wb") as out:
                shutil.copyfileobj(stream, out, 2**20)
            with open(target, "rb") as extracted:
                yield extracted
    except (zipfile.BadZipFile, EOFError, NotImplementedError) as error:
        raise ParamcountError(f"{source}: cannot read {info.filename}: {error}") from None


# --- HDF5 -----------------------------------------------------------------------------------


def _hdf5(source: str, stream: IO[bytes], config: dict[str, Any] | None) -> Listing:
    h5py = _h5py()
    try:
        with h5py.File(stream, "r") as h5:
            if "model_weights" in h5 or "model_config" in h5.attrs:
                return _legacy(source, h5, h5.get("model_weights"), _legacy_config(source, h5))
            if "layer_names" in h5.attrs:
                return _legacy(source, h5, h5, None)
            if "layers" in h5 or "vars" in h5:
                return _current(source, h5, config)
    except ParamcountError:
        raise
    except (OSError, KeyError, ValueError, TypeError, RuntimeError) as error:
        raise ParamcountError(
            f"{source}: not a readable Keras HDF5 file: {str(error).splitlines()[0]}"
        ) from None
    raise ParamcountError(f"{source}: an HDF5 file without Keras weights (no model_weights, "
                          "layer_names or layers)")


def _text(value: Any) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


def _legacy_config(source: str, h5: Any) -> dict[str, Any] | None:
    raw = h5.attrs.get("model_config")
    if raw is None:
        return None
    try:
        config = json.loads(_text(raw))
    except (ValueError, RecursionError):
        raise ParamcountError(f"{source}: its model_config attribute is not valid JSON") from None
    return config if isinstance(config, dict) else None


@dataclass
class _Layers:
    """What the config says of each layer, by name."""

    configs: dict[str, dict[str, Any]] = field(default_factory=dict)
    classes: dict[str, str] = field(default_factory=dict)
    order: dict[str, int] = field(default_factory=dict)


def _layers(config: dict[str, Any] | None) -> _Layers:
    """Every layer the config lists (nested models' layers too), with its class and options."""
    found = _Layers()

    def visit(entry: Any, depth: int) -> None:
        if not isinstance(entry, dict) or depth > 50:
            return
        inner = entry.get("config")
        if not isinstance(inner, dict):
            return
        name = inner.get("name", entry.get("name"))
        if isinstance(name, str):
            found.configs.setdefault(name, inner)
            found.classes.setdefault(name, str(entry.get("class_name", "")))
            found.order.setdefault(name, len(found.order))
        for child in inner.get("layers", ()) if isinstance(inner.get("layers"), list) else ():
            visit(child, depth + 1)

    if config is not None:
        visit(config, 0)
    return found


def _legacy(source: str, h5: Any, weights: Any, config: dict[str, Any] | None) -> Listing:
    """A Keras 2 / Keras 3 legacy HDF5 model (or Keras 2 weights): names are stored."""
    layers = _layers(config)
    tensors = []
    notes = []
    if weights is None:
        raise ParamcountError(f"{source}: a legacy Keras .h5 model without model_weights")
    names = [_text(n) for n in weights.attrs.get("layer_names", ())]
    stripped = False
    owned: dict[str, list[NamedTensor]] = {}
    for layer in names:
        group = weights.get(layer)
        if group is None:
            raise ParamcountError(f"{source}: layer {layer!r} is listed but has no weights group")
        frozen = layers.configs.get(layer, {}).get("trainable") is False
        for raw in group.attrs.get("weight_names", ()):
            path = _text(raw)
            dataset = group.get(path)
            if dataset is None or not hasattr(dataset, "shape"):
                raise ParamcountError(f"{source}: weight {path!r} of layer {layer!r} is missing")
            name = path
            if name.endswith(":0"):
                name, stripped = name[:-2], True
            trainable = not frozen and name.rsplit("/", 1)[-1] not in _NOT_TRAINED
            tensors.append(NamedTensor(name, _shape(dataset),
                                       _dtype(dataset), trainable))
            owned.setdefault(layer, []).append(tensors[-1])
    if stripped:
        notes.append("Keras 2 weight names end in ':0'; shown without it")
    if "optimizer_weights" in h5:
        notes.append("optimizer state (optimizer_weights) is not counted")
    return _finish(source, "keras-h5", tensors, notes, config, layers, owned)


def _shape(dataset: Any) -> tuple[int, ...]:
    """A dataset's shape, refused past 2^63 − 1 elements (HDF5 dimensions reach 2^64)."""
    shape = tuple(int(d) for d in dataset.shape)
    if not bounded(math.prod(shape)):
        raise ParamcountError(f"dataset '{shown_name(str(dataset.name))}' has {len(shape)} "
                              "dimensions holding more than 2^63 − 1 elements")
    return shape


def _dtype(dataset: Any) -> str | None:
    try:
        return str(dataset.dtype)
    except (TypeError, ValueError):
        return None


def _current(source: str, h5: Any, config: dict[str, Any] | None) -> Listing:
    """A Keras 3 weights file: ``layers/<group>/.../vars/<i>``, named by ``vars`` attributes."""
    layers = _layers(config)
    tensors: list[tuple[int, NamedTensor]] = []
    notes: list[str] = []
    seen = _Seen(layers)
    owned: dict[str, list[NamedTensor]] = {}
    top = h5.get("layers")
    if top is not None:
        for key in top:
            group = top[key]
            name = _object_name(group, key)
            rank = layers.order.get(name, len(layers.order))
            frozen = layers.configs.get(name, {}).get("trainable") is False
            klass = layers.classes.get(name) or _class_of(key)
            for tensor in _walk(group, [name], klass, layers.configs.get(name), frozen, seen,
                                0):
                tensors.append((rank, tensor))
                owned.setdefault(name, []).append(tensor)
    own = h5.get("vars")
    if own is not None and len(own):
        model = _object_name(h5, "model")
        for index, dataset in _datasets(own):
            tensors.append((len(layers.order) + 1, NamedTensor(
                f"{model}/vars/{index}", _shape(dataset), _dtype(dataset))))
    if seen.unnamed:
        notes.append("paramcount does not know the variable names of "
                     + ", ".join(sorted(seen.unnamed))
                     + ": shown by position (vars/0, vars/1, ...)")
    if config is None:
        notes.append("a .weights.h5 file holds no config: layer classes are read from group "
                     "names, layers are listed in the file's (alphabetical) order, and a layer "
                     "frozen with trainable=False cannot be told")
    ordered = [t for _, t in sorted(tensors, key=lambda item: item[0])]
    return _finish(source, "keras" if config is not None else "keras-weights-h5", ordered,
                   notes, config, layers, owned)


def _object_name(group: Any, fallback: str) -> str:
    """The Keras name of the object a group saves: its ``vars`` group's ``name`` attribute."""
    own = group.get("vars") if hasattr(group, "get") else None
    if own is not None and "name" in own.attrs:
        return _text(own.attrs["name"])
    return fallback


def _class_of(key: str) -> str:
    """The snake-case class name Keras gave a group: ``batch_normalization_2`` → its class."""
    return re.sub(r"_\d+$", "", key)


def _snake(klass: str) -> str:
    """Keras' snake case of a class name: ``ConvLSTM2D`` → ``conv_lstm2d``."""
    text = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", klass)
    return re.sub(r"([a-z])([A-Z])", r"\1_\2", text).lower()


def _datasets(group: Any) -> list[tuple[int, Any]]:
    """The datasets of a ``vars`` group, by their integer keys in order."""
    out = []
    for key in group:
        item = group[key]
        if hasattr(item, "shape") and key.isdigit():
            out.append((int(key), item))
    return sorted(out, key=lambda pair: pair[0])


def _roles(klass: str, config: dict[str, Any] | None, count: int) -> tuple[str, ...] | None:
    """The variable names of ``count`` variables of a ``klass`` layer, if paramcount knows."""
    snake = klass if klass.islower() else _snake(klass)
    if snake == "batch_normalization":
        scale = (config or {}).get("scale", count in (3, 4) if config is None else True)
        center = (config or {}).get("center", count == 4 if config is None else True)
        names = (("gamma",) if scale else ()) + (("beta",) if center else ())
        roles = (*names, "moving_mean", "moving_variance")
        return roles if len(roles) == count else None
    if snake == "layer_normalization":
        options = config or {}
        roles = (("gamma",) if options.get("scale", True) else ()) + (
            ("beta",) if options.get("center", True) else ())
        return roles if len(roles) == count else None
    known = _ROLES.get("dense" if snake.endswith("_dense") else snake)
    if known is None:
        return None
    roles = known
    if config is not None and config.get("use_bias") is False:
        roles = tuple(r for r in roles if r != "bias")
    elif config is None and count == len(roles) - 1 and roles[-1] == "bias":
        roles = roles[:-1]  # use_bias=False: the bias is the last variable, absent
    return roles if len(roles) == count else None


def _walk(group: Any, names: list[str], klass: str, config: dict[str, Any] | None,
          frozen: bool, seen: _Seen, depth: int) -> Iterator[NamedTensor]:
    """The tensors under one saved object: its own vars, then its children's (nested layers in
    the config's order, a wrapper's forward layer before its backward one)."""
    if depth > 20:
        return
    own = group.get("vars")
    if own is not None:
        datasets = _datasets(own)
        in_order = [index for index, _ in datasets] == list(range(len(datasets)))
        roles = _roles(klass, config, len(datasets)) if in_order else None
        if roles is None and datasets:
            seen.unnamed.add(f"{'/'.join(names)} ({klass})")
        for index, dataset in datasets:
            role = roles[index] if roles is not None else f"vars/{index}"
            yield NamedTensor("/".join([*names, role]), _shape(dataset),
                              _dtype(dataset), not frozen and role not in _NOT_TRAINED)
    order = {"layers": 0, "cell": 1, "forward_layer": 2, "backward_layer": 3}
    for child in sorted((k for k in group if k != "vars"), key=lambda k: (order.get(k, 9), k)):
        item = group[child]
        if not hasattr(item, "keys"):
            continue
        name = _object_name(item, child)
        if child == "layers":
            inner = {key: _object_name(item[key], key) for key in item
                     if hasattr(item[key], "keys")}
            for key in sorted(inner, key=lambda k: seen.layers.order.get(inner[k], 1 << 30)):
                inner_config = seen.layers.configs.get(inner[key])
                yield from _walk(item[key], [*names, inner[key]],
                                 seen.layers.classes.get(inner[key]) or _class_of(key),
                                 inner_config,
                                 frozen or (inner_config or {}).get("trainable") is False,
                                 seen, depth + 1)
            continue
        inner_class = _class_of(name) if child == "cell" else _class_of(child)
        inner_config = None
        if child in ("forward_layer", "backward_layer") and config is not None:
            layer = config.get("layer")
            inner_config = layer.get("config") if isinstance(layer, dict) else None
        elif child == "cell" and config is not None:
            inner_config = config
        yield from _walk(item, [*names, name], inner_class, inner_config, frozen, seen,
                         depth + 1)


@dataclass
class _Seen:
    """What a walk knows and gathers: the config's layers, objects whose variables it cannot
    name."""

    layers: _Layers
    unnamed: set[str] = field(default_factory=set)


# --- recognition from the config --------------------------------------------------------------


def _finish(source: str, format: str, tensors: list[NamedTensor], notes: list[str],
            config: dict[str, Any] | None, layers: _Layers,
            owned: dict[str, list[NamedTensor]]) -> Listing:
    recognised: list[Recognised] = []
    if config is not None:
        for name, layer_config in layers.configs.items():
            recognised += _recognise(name, layers.classes[name], layer_config,
                                     owned.get(name, []), notes)
    frozen = [t for t in tensors if not t.trainable]
    if frozen:
        notes.append(
            f"{sum(t.count for t in frozen):,} of the {sum(t.count for t in tensors):,} values "
            "are not trainable (Keras' non_trainable_weights, counted by count_params())"
        )
    return Listing(source, format, tuple(tensors), tuple(notes), tuple(recognised), config)


def _recognise(name: str, klass: str, config: dict[str, Any], mine: list[NamedTensor],
               notes: list[str]) -> list[Recognised]:
    """A recurrent layer (possibly under Bidirectional) read from its config and kernel."""
    inner, merge = config, None
    bidirectional = klass == "Bidirectional"
    if bidirectional:
        layer = config.get("layer")
        if not isinstance(layer, dict) or not isinstance(layer.get("config"), dict):
            return []
        klass, inner = str(layer.get("class_name", "")), layer["config"]
        mode = config.get("merge_mode", "concat")
        merge = MergeMode.NONE if mode is None else mode
        backward = config.get("backward_layer")
        if isinstance(backward, dict) and _unlike(layer, backward):
            return _directions(name, layer, backward, mine, notes)
    kernels = [t for t in mine if t.name.endswith("/kernel")]
    conv = _CONV.fullmatch(klass)
    if conv and kernels:
        notes.append(_conv_note(name, klass, inner, kernels[0], bidirectional, mine))
        return []
    if klass not in _CELLS or not kernels:
        return []
    cell = _CELLS[klass]
    layer_notes = []
    if inner.get("return_sequences"):
        layer_notes.append("return_sequences=True")
    if inner.get("go_backwards"):
        layer_notes.append("go_backwards=True")
    activation = inner.get("activation")
    nonlinearity = None
    if cell is Cell.RNN and activation == "relu":
        nonlinearity = Nonlinearity.RELU
    reset_after = _reset_after(name, inner, mine, layer_notes) if cell is Cell.GRU else None
    try:
        spec = LayerSpec(
            cell, kernels[0].shape[0], int(inner.get("units", 0)), bidirectional=bidirectional,
            bias=inner.get("use_bias", True) is not False, framework=Framework.KERAS,
            merge_modes=(merge,) if merge is not None else None,
            reset_after=reset_after, nonlinearity=nonlinearity,
        )
    except (SpecError, TypeError, ValueError, IndexError) as error:
        notes.append(f"layer {name!r} ({klass}): its config is not a layer paramcount can "
                     f"build ({error})")
        return []
    return [Recognised(_prefix(name, mine[0].name), spec, tuple(t.name for t in mine),
                       tuple(layer_notes))]


_SAME_IN_BOTH = ("units", "use_bias", "activation", "recurrent_activation", "reset_after")


def _unlike(forward: dict[str, Any], backward: dict[str, Any]) -> bool:
    """Whether a Bidirectional's backward layer is another layer than its forward one (a GRU
    beside an LSTM, other units), not the mirror Keras makes by default."""
    inner = backward.get("config")
    if not isinstance(inner, dict) or backward.get("class_name") != forward.get("class_name"):
        return True
    return any(inner.get(k) != forward["config"].get(k) for k in _SAME_IN_BOTH)


def _directions(name: str, forward: dict[str, Any], backward: dict[str, Any],
                mine: list[NamedTensor], notes: list[str]) -> list[Recognised]:
    """A Bidirectional whose backward layer is another layer: each direction recognised as the
    one-directional layer it is, from its own weights (grouped by the path segment after the
    wrapper's name: ``bidirectional/forward_lstm/...``, ``bidirectional/gru/...``)."""
    groups: dict[str, list[NamedTensor]] = {}
    for tensor in mine:
        at = tensor.name.find(name + "/")
        rest = tensor.name[at + len(name) + 1:] if at >= 0 else ""
        groups.setdefault(rest.partition("/")[0], []).append(tensor)
    classes = [str(forward.get("class_name", "")), str(backward.get("class_name", ""))]
    if len(groups) != 2 or "" in groups:
        notes.append(f"layer {name!r} (Bidirectional): its backward layer is a {classes[1]}, "
                     f"its forward one a {classes[0]}, and their weights could not be told "
                     "apart: counted in the total, not recognised")
        return []
    found: list[Recognised] = []
    for (segment, tensors), layer, direction in zip(groups.items(), (forward, backward),
                                                    ("forward", "backward"), strict=True):
        for item in _recognise(segment, str(layer.get("class_name", "")), layer["config"],
                               tensors, notes):
            found.append(Recognised(item.prefix, item.spec, item.names, (
                f"the {direction} direction of Bidirectional {name!r}, whose backward layer "
                f"is a {classes[1]} and forward one a {classes[0]}: each counted as it is",
                *item.notes)))
    return found


def _reset_after(name: str, config: dict[str, Any], mine: list[NamedTensor],
                 notes: list[str]) -> bool:
    """A GRU's reset_after as its bias says: (3H,) is False, (2, 3H) True. The config's value
    (Keras 2.0 wrote none; its GRU had no reset_after) is taken only where the weights cannot
    tell (no bias); where the two disagree, the weights win and a note says so."""
    stated = config.get("reset_after")
    bias = next((t.shape for t in mine if t.name.endswith("/bias")), None)
    if bias is None:
        return bool(stated) if stated is not None else True
    held = len(bias) == 2
    if stated is None:
        notes.append(f"the config of {name!r} has no reset_after (saved by Keras 2.0, before "
                     f"the option): its bias {bias} says reset_after={held}")
    elif bool(stated) != held:
        notes.append(f"the config of {name!r} says reset_after={bool(stated)}, but its bias "
                     f"{bias} is reset_after={held}'s: the weights win")
    return held


def _prefix(layer: str, first: str) -> str:
    """What stands before the layer's own names, the layer's name included, as
    ``conventions.recognise`` writes it: ``lstm/``, ``classifier/lstm/`` in a legacy .h5."""
    marker = layer + "/"
    at = first.find("/" + marker)
    return first[: at + 1 + len(marker)] if at >= 0 and not first.startswith(marker) else marker


def _conv_note(name: str, klass: str, config: dict[str, Any], kernel: NamedTensor,
               bidirectional: bool, mine: list[NamedTensor]) -> str:
    """A ConvLSTM layer, described and checked against paramcount's ConvLSTM convention:
    ``conv_lstm2d: ConvLSTM2D(3, kernel_size=(3, 3)) on 2 channels, 552 parameters, as
    `paramcount convlstm --rank 2 -C 2 -F 3 -k 3x3` counts``."""
    from paramcount.engine.conventions import convlstm as convention
    from paramcount.engine.convlstm_report import ConvLSTMSpec, DataFormat

    rank, size = int(_CONV.fullmatch(klass)[1]), kernel.shape[:-2]  # type: ignore[index]
    channels, total = kernel.shape[-2], sum(t.count for t in mine)
    text = f"{klass}({config.get('filters')}, kernel_size={tuple(size)})"
    if bidirectional:
        text = f"Bidirectional({text})"
    described = f"{name}: {text} on {channels} channels, {total:,} parameters"
    try:
        spec = ConvLSTMSpec(rank, channels, int(config.get("filters", 0)), tuple(size),
                            bidirectional=bidirectional,
                            bias=config.get("use_bias", True) is not False,
                            data_format=DataFormat(config.get("data_format") or "channels_last"))
    except (SpecError, TypeError, ValueError):
        return described
    if sorted(t.shape for t in convention.tensors(spec)) != sorted(t.shape for t in mine):
        return described + " (not the shapes paramcount's ConvLSTM convention writes)"
    command = (f"paramcount convlstm --rank {rank} -C {channels} -F {spec.filters} "
               f"-k {'x'.join(map(str, size))}" + (" --bidir" if bidirectional else "")
               + ("" if spec.bias else " --no-bias"))
    return f"{described}, as `{command}` counts"
