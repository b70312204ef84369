"""Writing the ported tensors in the target's container: .npz, .safetensors, .pt or .onnx.

Arrays come one at a time from an iterator and, for .npz and .safetensors, go to disk one at a
time, so writing needs about one tensor of memory. Every file is written beside its destination
and moved into place only when complete: a failure leaves nothing behind and nothing changed.
"""

from __future__ import annotations

import contextlib
import json
import os
import zipfile
from collections.abc import Callable, Sequence
from typing import Any

from paramcount.atomic import refusal, replacing
from paramcount.engine.spec import Framework
from paramcount.errors import ParamcountError
from paramcount.porting.graph import Arrays
from paramcount.porting.plan import ModulePlan, UnitPlan
from paramcount.porting.variables import assign

SUFFIXES = (".npz", ".safetensors", ".pt", ".onnx", ".weights.h5", ".keras", ".msgpack")


class WriteError(ParamcountError):
    """An output that cannot be written."""


_OWN = {".pt": Framework.TORCH, ".onnx": Framework.ONNX, ".weights.h5": Framework.KERAS,
        ".keras": Framework.KERAS, ".msgpack": Framework.FLAX_LINEN}
"""Containers of one framework's own; .npz and .safetensors hold any convention's tensors."""

_NEEDS_MODEL = (".weights.h5",)
"""Containers only the user's model can be written to (Keras loads weights into a model)."""


def suffix_of(path: str) -> str:
    """``.weights.h5`` or the path's last suffix, lower case."""
    lower = path.lower()
    return ".weights.h5" if lower.endswith(".weights.h5") else os.path.splitext(lower)[1]


def check_destination(path: str, framework: Framework, model: bool = False) -> str:
    """The suffix of ``path`` if port can write ``framework``'s tensors there, else an error."""
    suffix = suffix_of(path)
    if suffix not in SUFFIXES:
        raise WriteError(f"--out {path}: port writes {', '.join(SUFFIXES)} files")
    own = _OWN.get(suffix)
    if own is not None and own is not framework:
        raise WriteError(f"--out {path}: a {suffix} file holds {own.display_name} weights; "
                         f"write {framework.display_name} tensors to .npz or .safetensors")
    if suffix in _NEEDS_MODEL and not model:
        raise WriteError(f"--out {path}: Keras loads a {suffix} file into a model it has "
                         "built; give that model with --model module:function")
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):
        raise WriteError(f"--out {path}: no such directory {directory}")
    refused = refusal(path)
    if refused is not None:
        raise WriteError(f"--out {path}: {refused.strerror}")
    return suffix


def check_not_source(path: str, source: str) -> None:
    """Refuse to write over ``source`` (by its name, a link or another path to it)."""
    if os.path.exists(path) and os.path.exists(source) and os.path.samefile(path, source):
        raise WriteError(f"--out {path} is the source file; write the port to another file")


def write(path: str, framework: Framework, plans: Sequence[ModulePlan | UnitPlan],
          arrays: Callable[[], Arrays], model: Any = None) -> None:
    """Write every target tensor to ``path`` in the container its suffix names (``model``: the
    user's built model, which a Keras ``.weights.h5`` is saved from)."""
    suffix = check_destination(path, framework, model is not None)
    map_large_blocks()
    try:
        with replacing(path, "port", suffix=suffix_of(path), companions=(".data",)) as temporary:
            if suffix == ".onnx":
                _onnx(temporary, plans, arrays())
            elif suffix == ".weights.h5":
                _keras_weights(temporary, model, arrays())
            elif suffix == ".keras":
                _keras_file(temporary, plans, model, arrays())
            else:
                _WRITERS[suffix](temporary, arrays())
    except OSError as error:
        raise WriteError(f"--out {path}: {error.strerror or error}") from None


def map_large_blocks() -> None:
    """Have glibc's malloc give every block of 1 MiB or more a mapping of its own, returned to
    the system when freed (``mallopt(M_MMAP_THRESHOLD, 1 MiB)``, for the rest of the process).

    By default glibc raises that threshold to the largest block freed so far (up to 32 MiB);
    the tensors a port makes and frees one at a time then come from the heap, which keeps what
    is freed: a 256 MB checkpoint ported to .keras peaked at 2.35 × its size beyond the
    imports, and at 1.29 × with this (``benchmarks/port_memory.py``).
    """
    import ctypes
    import sys

    if not sys.platform.startswith("linux"):
        return
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):  # a C library without mallopt
        return
    mallopt(ctypes.c_int(-3), ctypes.c_int(1 << 20))  # M_MMAP_THRESHOLD


def _npz(path: str, arrays: Arrays) -> None:
    import numpy as np

    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED, allowZip64=True) as archive:
        for name, array in arrays:
            with archive.open(name + ".npy", "w", force_zip64=True) as member:
                np.lib.format.write_array(member, np.ascontiguousarray(array),
                                          allow_pickle=False)


_SAFETENSORS_DTYPES = {"float16": "F16", "float32": "F32", "float64": "F64",
                       "bfloat16": "BF16"}


def _safetensors(path: str, arrays: Arrays) -> None:
    """The safetensors layout (8-byte header size, JSON header, data), written streaming."""
    import numpy as np

    header: dict[str, Any] = {}
    offset = 0
    data_path = path + ".data"
    try:
        with open(data_path, "wb") as data:
            for name, array in arrays:
                dtype = _SAFETENSORS_DTYPES.get(array.dtype.name)
                if dtype is None:
                    raise WriteError(f"{name}: safetensors cannot hold {array.dtype.name}")
                little = np.ascontiguousarray(array.astype(array.dtype.newbyteorder("<"),
                                                           copy=False))
                size = little.nbytes
                header[name] = {"dtype": dtype, "shape": list(array.shape),
                                "data_offsets": [offset, offset + size]}
                data.write(little.data)
                offset += size
        text = json.dumps(header, separators=(",", ":")).encode()
        text += b" " * (-len(text) % 8)
        with open(path, "wb") as out, open(data_path, "rb") as data:
            out.write(len(text).to_bytes(8, "little") + text)
            while chunk := data.read(1 << 24):
                out.write(chunk)
    finally:
        with contextlib.suppress(OSError):
            os.unlink(data_path)


def _torch(path: str, arrays: Arrays) -> None:
    from paramcount.verify.torch_backend import load

    torch = load()
    state = {name: torch.from_numpy(array.copy()) for name, array in arrays}
    with open(path, "wb") as handle:  # torch names the archive after the file; keep it valid
        torch.save(state, handle)


def _saved_by_keras(save: Callable[[str], None], path: str) -> None:
    import warnings

    with warnings.catch_warnings():  # Keras' own NumPy 2 notice while saving
        warnings.filterwarnings("ignore", "__array__ implementation", DeprecationWarning)
        save(path)


def _keras_weights(path: str, model: Any, arrays: Arrays) -> None:
    """The user's Keras model with every variable assigned, saved by Keras itself."""
    _saved_by_keras(assign(model, arrays).save_weights, path)


def _keras_file(path: str, plans: Sequence[ModulePlan | UnitPlan], model: Any,
                arrays: Arrays) -> None:
    """A whole Keras model, saved by Keras: the user's, or one built from the layers, each
    variable assigned as its array comes."""
    if model is None:
        from paramcount.porting.graph import keras_model

        model = keras_model(plans, arrays)
    else:
        assign(model, arrays)
    _zipped_by_keras(model, path)


def _zipped_by_keras(model: Any, path: str) -> None:
    """``model`` saved by Keras as a folder, then zipped into ``path`` as Keras zips a .keras
    file (its ``config.json``, ``metadata.json`` and ``model.weights.h5``, stored).

    Saved straight to a .keras file, Keras builds the weights file in memory and copies it
    into the archive (about 2 × the weights beyond the model's own); saved as a folder, it
    writes them to disk one variable at a time, and the archive copies the file in chunks.
    """
    import tempfile

    with tempfile.TemporaryDirectory(prefix=".paramcount-keras-",
                                     dir=os.path.dirname(os.path.abspath(path))) as folder:
        saved = os.path.join(folder, "model")
        _saved_by_keras(lambda where: model.save(where, zipped=False), saved)
        with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED, allowZip64=True) as archive:
            for root, folders, files in os.walk(saved):
                folders.sort()
                for name in sorted(files):
                    full = os.path.join(root, name)
                    archive.write(full, os.path.relpath(full, saved).replace(os.sep, "/"))


def nest(arrays: Arrays) -> dict[str, Any]:
    """``params/Dense_0/kernel`` -> nested dictionaries, as Flax's variables are."""
    tree: dict[str, Any] = {}
    for name, array in arrays:
        node = tree
        *parents, leaf = name.split("/")
        for parent in parents:
            node = node.setdefault(parent, {})
        node[leaf] = array
    return tree


def _msgpack(path: str, arrays: Arrays) -> None:
    """Flax's own serialisation of the variables tree (``params``, ``batch_stats``)."""
    from flax import serialization

    with open(path, "wb") as handle:
        handle.write(serialization.msgpack_serialize(nest(arrays)))


_WRITERS: dict[str, Callable[[str, Arrays], None]] = {
    ".npz": _npz, ".safetensors": _safetensors, ".pt": _torch, ".msgpack": _msgpack}

_LOADERS = {
    ".pt": "model.load_state_dict(torch.load({path!r}, weights_only=True), strict=True)",
    ".weights.h5": "model.load_weights({path!r})",
    ".keras": "model = keras.saving.load_model({path!r})",
    ".msgpack": "variables = flax.serialization.msgpack_restore(open({path!r}, 'rb').read())",
    ".onnx": "session = onnxruntime.InferenceSession({path!r})",
    ".npz": "arrays = numpy.load({path!r})",
    ".safetensors": "arrays = safetensors.numpy.load_file({path!r})",
}


def load_line(path: str) -> str:
    """The one line of Python that loads what port wrote to ``path``."""
    return _LOADERS[suffix_of(path)].format(path=path)

def _onnx(path: str, plans: Sequence[ModulePlan | UnitPlan], arrays: Arrays) -> None:
    """Recurrent modules alone as today's subgraphs; with other layers, the whole chain."""
    import onnx

    if any(isinstance(m, UnitPlan) for m in plans):
        from paramcount.porting.graph import chain_model

        onnx.save(chain_model(plans, arrays), path)
        return
    modules = [(m.target, {r.name[len(m.target.prefix):]: r.name for r in m.rows})
               for m in plans if isinstance(m, ModulePlan)]
    from paramcount.porting.graph import onnx_model

    onnx.save(onnx_model(modules, arrays), path)
