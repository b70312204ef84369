"""PyTorch checkpoints (``.pt``, ``.pth``, ``.bin``, ``.ckpt``), read without torch and without
running anything in them.

``torch.save`` writes a zip holding ``<name>/data.pkl`` (the object structure) and one
``<name>/data/N`` entry per storage; before PyTorch 1.6 it wrote a stream of pickles followed
by the raw storages. Either way only the pickle is read, by :class:`RestrictedUnpickler`: its
``find_class`` resolves an explicit allow-list of names (torch's tensor-rebuilding functions,
storage types and dtypes, ``OrderedDict``, plain data) to inert stand-ins defined here, and
refuses every other global with an error naming it; its ``persistent_load`` turns each storage
reference into a :class:`Storage` record without touching the storage's bytes. So reading a
multi-gigabyte checkpoint reads a few kilobytes, and a pickle that would run code is refused
before anything runs.
"""

from __future__ import annotations

import _compat_pickle
import collections
import io
import math
import pickle
import zipfile
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from paramcount.errors import ParamcountError
from paramcount.files.limits import bounded, shown_name
from paramcount.files.listing import Listing, NamedTensor
from paramcount.files.state_dict import torch_names

MAX_PICKLE = 256 * 1024 * 1024
"""The largest ``data.pkl`` read: the structure of a checkpoint, not its data, is this small."""

MAGIC_NUMBER = 0x1950A86A20F9469CFC6C
"""The first pickle of a legacy (pre-zip) ``torch.save`` file."""

LEGACY_PROTOCOL = 1001

# torch's legacy storage classes -> (dtype, bytes per element)
STORAGES: dict[str, tuple[str, int]] = {
    "DoubleStorage": ("float64", 8),
    "FloatStorage": ("float32", 4),
    "HalfStorage": ("float16", 2),
    "BFloat16Storage": ("bfloat16", 2),
    "LongStorage": ("int64", 8),
    "IntStorage": ("int32", 4),
    "ShortStorage": ("int16", 2),
    "CharStorage": ("int8", 1),
    "ByteStorage": ("uint8", 1),
    "BoolStorage": ("bool", 1),
    "ComplexDoubleStorage": ("complex128", 16),
    "ComplexFloatStorage": ("complex64", 8),
    "QInt8Storage": ("qint8", 1),
    "QUInt8Storage": ("quint8", 1),
    "QInt32Storage": ("qint32", 4),
    "QUInt4x2Storage": ("quint4x2", 1),
    "QUInt2x4Storage": ("quint2x4", 1),
}

# torch dtype attribute -> numpy-style name
DTYPES = {
    "float32": "float32", "float": "float32", "float64": "float64", "double": "float64",
    "float16": "float16", "half": "float16", "bfloat16": "bfloat16",
    "int64": "int64", "long": "int64", "int32": "int32", "int": "int32",
    "int16": "int16", "short": "int16", "int8": "int8", "uint8": "uint8", "bool": "bool",
    "uint16": "uint16", "uint32": "uint32", "uint64": "uint64",
    "complex64": "complex64", "cfloat": "complex64", "complex128": "complex128",
    "cdouble": "complex128", "complex32": "complex32",
    "float8_e4m3fn": "float8_e4m3fn", "float8_e5m2": "float8_e5m2",
    "float8_e4m3fnuz": "float8_e4m3fnuz", "float8_e5m2fnuz": "float8_e5m2fnuz",
    "float8_e8m0fnu": "float8_e8m0fnu", "float4_e2m1fn_x2": "float4_e2m1fn_x2",
    "qint8": "qint8", "quint8": "quint8", "qint32": "qint32",
}

MODEL_KEYS = (
    "state_dict", "model_state_dict", "model_state", "model", "net", "network", "module",
    "model_dict", "state", "params", "weights",
)
"""Keys under which training scripts nest a model's state dict, tried in this order."""

OPTIMIZER_KEYS = frozenset({
    "optimizer", "optimizer_state_dict", "optimizer_state", "optimizer_states", "optim",
    "opt", "scheduler", "lr_scheduler", "lr_schedulers", "scaler", "grad_scaler",
})


class Refused(ParamcountError):
    """A pickle that names a global outside the allow-list: nothing of it was run."""


def _no_state(self: object, state: object) -> None:
    """BUILD on an allow-listed global: torch.save never writes it, and it could change the
    stand-in for every later file, so the pickle is refused."""
    raise Refused(f"a pickle sets the state of {type(self).__name__}, which torch.save "
                  "never does")


@dataclass(frozen=True)
class StorageType:
    """A storage class named in a pickle (``torch.FloatStorage``): only its dtype matters."""

    dtype: str
    __setstate__ = _no_state


@dataclass(frozen=True)
class TorchDtype:
    """A ``torch.<dtype>`` global, such as the dtype argument of ``_rebuild_tensor_v3``."""

    name: str
    __setstate__ = _no_state


@dataclass(frozen=True)
class Function:
    """An allow-listed function a pickle may call but not change (BUILD on it is refused)."""

    call: Callable[..., Any]
    __setstate__ = _no_state

    def __call__(self, *args: Any) -> Any:
        """Call the stand-in with the pickle's arguments."""
        return self.call(*args)


class StateDict(collections.OrderedDict[Any, Any]):
    """``collections.OrderedDict`` as a pickle builds it: the state BUILD gives it (torch's
    ``_metadata``) is dropped, so a pickle cannot shadow its methods with attributes."""

    def __setstate__(self, state: object) -> None:
        """Drop the pickled attributes."""


@dataclass(frozen=True)
class Storage:
    """A storage a tensor views: its key in the archive and its dtype; its bytes are unread."""

    key: str
    dtype: str
    numel: int | None = None
    """The elements of ``dtype`` the pickle says the storage holds (bytes when untyped)."""


@dataclass(frozen=True)
class TensorStub:
    """What a rebuilt tensor would be: its storage, offset, shape and stride, no data."""

    storage: Storage | None
    offset: int
    shape: tuple[int, ...]
    stride: tuple[int, ...]
    dtype: str
    parameter: bool = False


@dataclass
class Opaque:
    """An object of an allowed plain-data class (argparse.Namespace, a numpy scalar), kept
    as its class name without building the real thing."""

    type_name: str
    args: tuple[Any, ...] = ()
    state: Any = None

    def __setstate__(self, state: Any) -> None:
        """Keep the pickled state as it is."""
        self.state = state


def _opaque_class(qualified: str) -> type[Opaque]:
    """A class standing in for ``qualified``: calling or instantiating it builds an Opaque."""

    def init(self: Opaque, *args: Any, **kwargs: Any) -> None:
        Opaque.__init__(self, qualified, args)

    def new(cls: type, *args: Any, **kwargs: Any) -> Opaque:
        instance: Opaque = object.__new__(cls)
        Opaque.__init__(instance, qualified, args)
        return instance

    return type("Opaque", (Opaque,), {"__init__": init, "__new__": new})


def _dict_class(qualified: str) -> type[dict[Any, Any]]:
    """A dict subclass standing in for a dict-like class (Lightning's AttributeDict)."""
    def drop(self: dict[Any, Any], state: object) -> None:
        """Drop the pickled attributes, so none shadows a dict method."""

    return type("OpaqueDict", (dict,), {"type_name": qualified, "__setstate__": drop})


def _size(value: object) -> tuple[int, ...]:
    if not isinstance(value, (tuple, list)) or len(value) > 64 or not all(
        isinstance(d, int) and not isinstance(d, bool) and bounded(d) for d in value
    ) or not bounded(math.prod(value)):
        raise ParamcountError(f"a tensor's size {_shown(value)} is not a tuple of whole numbers "
                              "of at most 2^63 − 1 elements")
    return tuple(value)


def _shown(value: object) -> str:
    """A value from a pickle for a message, at most a few dozen characters: numbers of any
    size are never turned into text whole."""
    if isinstance(value, int) and not bounded(abs(value)):
        return "a number of over 19 digits"
    if isinstance(value, (tuple, list)):
        inner = ", ".join(_shown(v) for v in value[:4]) + (", ..." if len(value) > 4 else "")
        text = f"({inner})" if isinstance(value, tuple) else f"[{inner}]"
    else:
        text = repr(value) if isinstance(value, (int, float, str, bool, type(None))) else (
            type(value).__name__)
    return text if len(text) <= 60 else text[:57] + "..."


def _rebuild_tensor(storage: object, offset: object, size: object, stride: object,
                    *rest: Any) -> TensorStub:
    if not isinstance(storage, Storage):
        raise ParamcountError(f"a tensor's storage is {type(storage).__name__}, not a storage")
    if not isinstance(offset, int) or not bounded(abs(offset)):
        raise ParamcountError(f"a tensor's storage offset {_shown(offset)} is not a whole "
                              "number of at most 2^63 − 1")
    stride_tuple = tuple(stride) if isinstance(stride, (tuple, list)) else ()
    if not all(isinstance(s, int) and bounded(abs(s)) for s in stride_tuple):
        raise ParamcountError(f"a tensor's stride {_shown(stride)} is not whole numbers of at "
                              "most 2^63 − 1")
    return TensorStub(storage, offset, _size(size), stride_tuple, storage.dtype)


def _rebuild_tensor_v3(storage: object, offset: object, size: object, stride: object,
                       requires_grad: object, hooks: object, dtype: object,
                       *rest: Any) -> TensorStub:
    stub = _rebuild_tensor(storage, offset, size, stride)
    if isinstance(dtype, TorchDtype):
        stub = TensorStub(stub.storage, stub.offset, stub.shape, stub.stride,
                          DTYPES.get(dtype.name, dtype.name))
    return stub


def _rebuild_parameter(data: object, *rest: Any) -> TensorStub:
    if not isinstance(data, TensorStub):
        raise ParamcountError(f"a parameter's data is {type(data).__name__}, not a tensor")
    return TensorStub(data.storage, data.offset, data.shape, data.stride, data.dtype, True)


def _rebuild_meta(dtype: object, size: object, stride: object, *rest: Any) -> TensorStub:
    name = dtype.name if isinstance(dtype, TorchDtype) else "float32"
    return TensorStub(None, 0, _size(size), tuple(stride) if isinstance(stride, tuple) else (),
                      DTYPES.get(name, name))


def _rebuild_from_type(function: object, new_type: object, args: object,
                       state: object) -> object:
    """``torch._tensor._rebuild_from_type_v2``: a tensor subclass rebuilt as plain data."""
    if not callable(function) or not isinstance(args, tuple):
        raise ParamcountError("a tensor subclass's rebuild arguments are malformed")
    return function(*args)


def _encode(text: object, encoding: object = "utf-8") -> bytes:
    """``_codecs.encode``, which protocol-2 pickles use to spell bytes."""
    if not isinstance(text, str) or encoding not in ("latin1", "latin-1", "utf-8", "utf8"):
        raise ParamcountError(f"_codecs.encode({type(text).__name__}, {encoding!r}) is not "
                              "the way a pickle spells bytes")
    return text.encode(str(encoding))


def _bytearray(source: object = b"", encoding: object = None) -> bytearray:
    """``builtins.bytearray`` as pickles call it, from bytes (or text and its encoding); never
    from a length, which would allocate whatever the file asks."""
    if isinstance(source, (bytes, bytearray)) and encoding is None:
        return bytearray(source)
    if isinstance(source, str) and encoding in ("latin1", "latin-1", "utf-8", "utf8"):
        return bytearray(source.encode(str(encoding)))
    raise ParamcountError(f"bytearray({type(source).__name__}, {encoding!r}) is not the way "
                          "a pickle spells bytes")


def _device(*args: Any) -> Opaque:
    return Opaque("torch.device", args)


def _defaultdict(*args: Any) -> dict[Any, Any]:
    return {}


# (module, name) -> what find_class returns. Nothing here runs code from the file.
ALLOWED: dict[tuple[str, str], Any] = {
    ("collections", "OrderedDict"): StateDict,
    ("collections", "defaultdict"): Function(_defaultdict),
    ("torch._utils", "_rebuild_tensor"): Function(_rebuild_tensor),
    ("torch._utils", "_rebuild_tensor_v2"): Function(_rebuild_tensor),
    ("torch._utils", "_rebuild_tensor_v3"): Function(_rebuild_tensor_v3),
    ("torch._utils", "_rebuild_qtensor"): Function(_rebuild_tensor),
    ("torch._utils", "_rebuild_parameter"): Function(_rebuild_parameter),
    ("torch._utils", "_rebuild_parameter_with_state"): Function(_rebuild_parameter),
    ("torch._utils", "_rebuild_meta_tensor_no_storage"): Function(_rebuild_meta),
    ("torch._tensor", "_rebuild_from_type_v2"): Function(_rebuild_from_type),
    ("torch", "Size"): tuple,
    ("torch", "device"): Function(_device),
    ("torch.storage", "UntypedStorage"): StorageType("uint8"),
    ("torch", "UntypedStorage"): StorageType("uint8"),
    ("builtins", "set"): set,
    ("builtins", "frozenset"): frozenset,
    ("builtins", "complex"): complex,
    ("builtins", "slice"): slice,
    ("builtins", "bytearray"): Function(_bytearray),
    ("_codecs", "encode"): Function(_encode),
    **{("torch", name): StorageType(dtype) for name, (dtype, _) in STORAGES.items()},
    **{("torch", name): TorchDtype(name) for name in DTYPES},
    **{key: _opaque_class(".".join(key)) for key in (
        ("argparse", "Namespace"),
        ("numpy", "dtype"),
        ("numpy", "ndarray"),
        ("numpy.core.multiarray", "scalar"),
        ("numpy._core.multiarray", "scalar"),
        ("numpy.core.multiarray", "_reconstruct"),
        ("numpy._core.multiarray", "_reconstruct"),
        ("torch", "Tensor"),
        ("torch.nn.parameter", "Parameter"),
        ("torch", "layout"),
        ("torch", "per_tensor_affine"),
        ("torch", "per_channel_affine"),
        ("torch", "per_channel_affine_float_qparams"),
        ("torch", "per_tensor_symmetric"),
        ("torch", "per_channel_symmetric"),
        ("torch", "memory_format"),
        ("pathlib", "PosixPath"),
        ("pathlib", "WindowsPath"),
        ("datetime", "datetime"),
        ("datetime", "date"),
        ("datetime", "timedelta"),
    )},
    **{key: _dict_class(".".join(key)) for key in (
        ("pytorch_lightning.utilities.parsing", "AttributeDict"),
        ("lightning.fabric.utilities.data", "AttributeDict"),
        ("lightning_fabric.utilities.data", "AttributeDict"),
    )},
}


class RestrictedUnpickler(pickle.Unpickler):
    """An unpickler that resolves only :data:`ALLOWED` names and never reads storage bytes."""

    def __init__(self, stream: IO[bytes], label: str) -> None:
        super().__init__(stream, encoding="utf-8")
        self.label = label
        self.storages: dict[str, Storage] = {}

    def find_class(self, module: str, name: str) -> Any:
        """The inert stand-in for ``module.name``, or :class:`Refused` naming it."""
        # protocol-2 pickles spell Python 2 names (__builtin__.set): map them as pickle does
        module, name = _compat_pickle.NAME_MAPPING.get((module, name), (module, name))
        module = _compat_pickle.IMPORT_MAPPING.get(module, module)
        try:
            return ALLOWED[(module, name)]
        except KeyError:
            raise Refused(_refusal(self.label, module, name)) from None

    def persistent_load(self, pid: Any) -> Storage:
        """A storage reference: its key and dtype; the bytes stay in the file."""
        if not isinstance(pid, tuple) or not pid:
            raise ParamcountError(f"{self.label}: a persistent id {_shown(pid)} is not a tuple")
        kind = pid[0].decode("ascii") if isinstance(pid[0], bytes) else pid[0]
        if kind == "module":
            raise Refused(
                f"{self.label}: it pickles a whole module with its source code (torch.save "
                "of a model object, legacy format); paramcount reads state dicts and never "
                "runs code from a file: save model.state_dict() instead"
            )
        if kind != "storage" or len(pid) < 5 or not isinstance(pid[1], StorageType):
            raise ParamcountError(f"{self.label}: unknown persistent id {_shown(pid[:2])}")
        key = str(pid[2])
        numel = pid[4] if isinstance(pid[4], int) and not isinstance(pid[4], bool) else None
        if numel is not None and not bounded(numel):
            raise ParamcountError(f"{self.label}: a storage of {_shown(numel)} elements (at "
                                  "most 2^63 − 1)")
        storage = self.storages.setdefault(key, Storage(key, pid[1].dtype, numel))
        return storage


def _refusal(label: str, module: str, name: str) -> str:
    qualified = shown_name(f"{module}.{name}")
    if module.startswith(("torch.nn.modules", "__main__", "__torch__")) or (
        module.startswith("torch.nn") and name[:1].isupper()
    ):
        return (
            f"{label}: refusing to unpickle {qualified}: the file pickles a whole object, not "
            "tensors; paramcount never runs code from a file. If you trust it, load it in "
            "Python yourself and save the model's state_dict() with torch.save, then inspect "
            "that"
        )
    return (
        f"{label}: refusing to unpickle {qualified}: not a tensor, storage or plain-data "
        "type, and paramcount never runs code from a file"
    )


def read(path: Path, shown: str | None = None) -> Listing:
    """The model tensors of a torch checkpoint (zip or legacy), from its pickle alone."""
    label = shown or str(path)
    if zipfile.is_zipfile(path):
        root = _load_zip(path, label)
        kind = "torch"
    else:
        root = _load_legacy(path, label)
        kind = "torch-legacy"
    try:
        named, notes = model_tensors(root, label)
    except ParamcountError as error:
        raise ParamcountError(f"{label}: {error}") from None
    tensors = []
    seen: dict[tuple[object, ...], str] = {}
    for name, stub in named:
        _check_extent(name, stub, label)
        same_as = None
        if stub.storage is not None and 0 not in stub.shape:
            identity = (stub.storage.key, stub.offset, stub.shape, stub.stride, stub.dtype)
            same_as = seen.setdefault(identity, name)
            same_as = None if same_as == name else same_as
        tensors.append(NamedTensor(name, stub.shape, stub.dtype, same_as=same_as))
    return Listing(label, kind, tuple(torch_names(tensors)), tuple(notes))


ITEMSIZE = {dtype: size for dtype, size in STORAGES.values()}
"""Bytes per element of the dtypes that have a storage class (untyped storages count bytes)."""


def _check_extent(name: str, stub: TensorStub, label: str) -> None:
    """Refuse a tensor whose shape, stride and offset reach past its storage, as torch.load
    would: its count would be a number the file does not hold."""
    storage = stub.storage
    if storage is None or storage.numel is None or 0 in stub.shape:
        return
    size, unit = ITEMSIZE.get(stub.dtype), ITEMSIZE.get(storage.dtype)
    if size is None or unit is None:
        return
    if (len(stub.stride) != len(stub.shape) or stub.offset < 0
            or any(not isinstance(s, int) or s < 0 for s in stub.stride)):
        raise ParamcountError(
            f"{label}: tensor {name!r} has stride {stub.stride} and offset {stub.offset} for "
            f"shape {stub.shape}: not a tensor torch.save writes"
        )
    need = (stub.offset + sum((d - 1) * s for d, s in zip(stub.shape, stub.stride,
                                                          strict=True)) + 1) * size
    if need > storage.numel * unit:
        raise ParamcountError(
            f"{label}: tensor {name!r} of shape {stub.shape} needs {need:,} bytes of its "
            f"storage, which holds {storage.numel * unit:,}: a damaged or forged checkpoint"
        )


def _load_zip(path: Path, label: str) -> Any:
    try:
        with zipfile.ZipFile(path) as archive:
            names = archive.namelist()
            pickles = [n for n in names if n.endswith("data.pkl") and n.count("/") == 1]
            if any(n.endswith("/constants.pkl") or "/code/" in n for n in names):
                raise ParamcountError(
                    f"{label}: a TorchScript archive (torch.jit.save); paramcount reads "
                    "torch.save checkpoints and state dicts"
                )
            if len(pickles) != 1:
                raise ParamcountError(
                    f"{label}: a zip without exactly one <name>/data.pkl: not a torch.save "
                    f"checkpoint (it holds {len(names)} entries)"
                )
            info = archive.getinfo(pickles[0])
            if info.file_size > MAX_PICKLE:
                raise ParamcountError(
                    f"{label}: its {info.filename} declares {info.file_size:,} bytes, over the "
                    f"{MAX_PICKLE:,}-byte limit for a checkpoint's structure"
                )
            with archive.open(info) as member:
                data = member.read(MAX_PICKLE + 1)
    except zipfile.BadZipFile as error:
        raise ParamcountError(f"{label}: a damaged zip archive ({error})") from None
    except (OSError, EOFError, NotImplementedError, RuntimeError) as error:
        raise ParamcountError(f"{label}: cannot read the zip archive ({error})") from None
    if len(data) > MAX_PICKLE:
        raise ParamcountError(
            f"{label}: its {pickles[0]} inflates past {MAX_PICKLE:,} bytes (a zip bomb?)"
        )
    return _unpickle(io.BytesIO(data), label)


class _Capped:
    """A file read through a budget: the legacy format's pickles together may take at most
    :data:`MAX_PICKLE` bytes, as a zip checkpoint's data.pkl, so a pickle declaring gigabytes
    (a BINBYTES8 over a hole in a sparse file) is refused before anything is allocated."""

    def __init__(self, stream: IO[bytes], label: str) -> None:
        self.stream, self.label, self.left = stream, label, MAX_PICKLE

    def _take(self, size: int) -> None:
        if size > self.left:
            raise ParamcountError(
                f"{self.label}: its pickles ask for over {MAX_PICKLE:,} bytes, the limit for a "
                "checkpoint's structure (the legacy format's data follows them)"
            )
        self.left -= size

    def read(self, size: int = -1) -> bytes:
        """At most ``size`` bytes, charged to the budget before they are read."""
        self._take(self.left + 1 if size is None or size < 0 else size)
        return self.stream.read(size)

    def readline(self, size: int = -1) -> bytes:
        """One line (protocol 0's text opcodes), charged to the budget."""
        line = self.stream.readline(min(self.left + 1, size) if size >= 0 else self.left + 1)
        self._take(len(line))
        return line


def _load_legacy(path: Path, label: str) -> Any:
    with path.open("rb") as raw:
        head = raw.read(2)
        if len(head) < 2 or head[0] != 0x80:
            raise ParamcountError(
                f"{label}: not a PyTorch checkpoint (neither a zip archive nor a pickle)"
            )
        raw.seek(0)
        stream: Any = _Capped(raw, label)
        magic = _unpickle(stream, label)
        if magic != MAGIC_NUMBER:
            raise ParamcountError(
                f"{label}: a pickle that torch.save did not write (no torch magic number); "
                "paramcount reads torch checkpoints, not arbitrary pickles"
            )
        if _unpickle(stream, label) != LEGACY_PROTOCOL:
            raise ParamcountError(f"{label}: an unknown legacy torch serialization protocol")
        _unpickle(stream, label)  # system information: byte order, type sizes
        return _unpickle(stream, label)


def _unpickle(stream: IO[bytes], label: str) -> Any:
    try:
        return RestrictedUnpickler(stream, label).load()
    except ParamcountError as error:
        if str(error).startswith(f"{label}: "):
            raise
        raise type(error)(f"{label}: {error}") from None
    except RecursionError:
        raise ParamcountError(f"{label}: the pickle nests too deeply") from None
    except Exception as error:  # a damaged pickle raises almost anything; none may escape
        raise ParamcountError(
            f"{label}: a damaged or truncated pickle ({type(error).__name__}: {error})"
        ) from None


def _is_tensor(value: object) -> bool:
    return isinstance(value, TensorStub)


def _is_optimizer(value: object) -> bool:
    return isinstance(value, Mapping) and "state" in value and "param_groups" in value


MAX_ITEMS = 5_000_000
"""The most values a checkpoint's structure is walked through looking for tensors, all walks
of one file together (a real one holds a few per tensor); a pickle of millions of empty
containers is refused."""


class _Structure:
    """The walks over one file's structure: one visit budget for them all, and the containers
    already found to hold no tensor, which no later walk enters again (100 keys sharing one
    list of a million Nones cost one walk of it, not 100)."""

    def __init__(self) -> None:
        self.visited = 0
        self.empty: set[int] = set()

    def walk(self, value: object, path: str) -> Iterator[tuple[str, TensorStub]]:
        """Every tensor under ``value``, named by its dotted path (dict keys, list positions),
        in order; each container is entered once per walk and at most 64 deep."""
        seen: set[int] = set()
        # (entries, depth, the container's id, whether a tensor was found under it)
        stack: list[list[Any]] = [[iter([(path, value)]), 0, None, False]]
        while stack:
            frame = stack[-1]
            entry = next(frame[0], None)
            if entry is None:
                stack.pop()
                if frame[2] is not None and not frame[3]:
                    self.empty.add(frame[2])
                if stack and frame[3]:
                    stack[-1][3] = True
                continue
            self.visited += 1
            if self.visited > MAX_ITEMS:
                raise ParamcountError(f"its pickle holds over {MAX_ITEMS:,} values: not the "
                                      "structure of a checkpoint")
            where, item = entry
            if isinstance(item, TensorStub):
                frame[3] = True
                yield where, item
            elif (frame[1] < 64 and id(item) not in seen and id(item) not in self.empty
                  and isinstance(item, (Mapping, list, tuple))):
                seen.add(id(item))
                stack.append([_children(item, where), frame[1] + 1, id(item), False])


def _children(item: Mapping[Any, Any] | list[Any] | tuple[Any, ...],
              where: str) -> Iterator[tuple[str, object]]:
    """A container's entries, each named by its path under ``where``."""
    pairs = item.items() if isinstance(item, Mapping) else enumerate(item)
    for key, child in pairs:
        yield (f"{where}.{_key(key)}" if where else _key(key)), child


def _key(key: object) -> str:
    """A dict key or list position as a name (a number of any size, never turned into text
    whole)."""
    return key if isinstance(key, str) else str(key) if isinstance(key, int) and bounded(
        abs(key)) else _shown(key)


def _plural(count: int, word: str) -> str:
    return f"{count:,} {word}" + ("" if count == 1 else "s")


def _describe(key: str, value: object, structure: _Structure) -> str:
    """What a skipped top-level entry holds, in a few words."""
    tensors = list(structure.walk(value, ""))
    key = shown_name(key)
    if _is_optimizer(value) or key in OPTIMIZER_KEYS:
        roles = sorted({name.rsplit(".", 1)[-1] for name, _ in tensors
                        if not name.rsplit(".", 1)[-1].isdigit()})
        count = sum(math.prod(t.shape) for _, t in tensors)
        what = f" ({', '.join(roles[:4])})" if roles else ""
        return (f"'{key}': optimizer state, {_plural(len(tensors), 'tensor')}{what}, "
                f"{_plural(count, 'value')} — not parameters")
    if tensors:
        count = sum(math.prod(t.shape) for _, t in tensors)
        return f"'{key}': {_plural(len(tensors), 'tensor')}, {_plural(count, 'value')}"
    if isinstance(value, (int, float, str, bool)) or value is None:
        return f"'{key}' = {shown_name(_shown(value))}"
    if isinstance(value, Opaque):
        return f"'{key}': {value.type_name}"
    if isinstance(value, TorchDtype):
        return f"'{key}' = torch.{value.name}"
    if isinstance(value, (Mapping, list, tuple)):
        return f"'{key}': a {type(value).__name__} of {len(value)} without tensors"
    return f"'{key}': a {type(value).__name__}"


def model_tensors(root: object, label: str) -> tuple[list[tuple[str, TensorStub]], list[str]]:
    """The model's tensors in a checkpoint, and notes on what else it holds.

    A state dict is the model; a training checkpoint nests it under a key such as
    ``model_state_dict`` beside optimizer state, epochs and losses, which are skipped and named.
    """
    structure = _Structure()
    if isinstance(root, TensorStub):
        return [("tensor", root)], ["the file holds a single tensor"]
    if not isinstance(root, Mapping):
        listed = list(structure.walk(root, ""))
        kind = type(root).__name__
        return listed, [f"the file holds a {kind}; its tensors are named by position"
                        if listed else f"the file holds a {kind} without tensors"]
    items = [(_key(k), v) for k, v in root.items()]
    if items and all(_is_tensor(v) or k.endswith("_extra_state") for k, v in items):
        return list(structure.walk(root, "")), []
    found: list[tuple[str, TensorStub]] = []
    notes: list[str] = []
    for key in MODEL_KEYS:
        value = root.get(key)
        if (isinstance(value, Mapping) and not _is_optimizer(value)
                and any(structure.walk(value, ""))):
            chosen = [key]
            found = list(structure.walk(value, ""))
            notes.append(f"the model's state dict is the checkpoint's '{key}'")
            break
    else:
        chosen = [k for k, v in items if k not in OPTIMIZER_KEYS and not _is_optimizer(v)
                  and any(structure.walk(v, ""))]
        values = dict(items)
        for key in chosen:
            found += structure.walk(values[key], key)
    skipped = [_describe(k, v, structure) for k, v in items if k not in chosen]
    if skipped:
        notes.append("skipped: " + "; ".join(skipped))
    return found, notes

