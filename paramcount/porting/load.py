"""Reading a source file's recurrent weights, safely, with the layers they belong to.

Nothing a file holds is run: torch files go through ``torch.load(weights_only=True,
mmap=True)`` (tensors stay on disk until used), safetensors through a checked header and one
positioned read per tensor, ``.npz`` through ``numpy.load(allow_pickle=False)``, Keras
``.keras`` files through their ``config.json`` and ``h5py`` (only the recurrent datasets are
read), ONNX through ``onnx.load`` and ``numpy_helper``. Tensor names are recognised by
``paramcount.engine.conventions.recognise``; ONNX and Keras files also say what the names cannot
(a GRU's ``linear_before_reset``, activations, merge modes), and are read from their structure.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import zipfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from paramcount.engine import conventions
from paramcount.engine.conventions.base import Recognised
from paramcount.engine.spec import Cell, Framework, LayerSpec, MergeMode, Nonlinearity
from paramcount.errors import BackendUnavailable, ParamcountError, install_hint
from paramcount.porting.layouts import Side, file_names
from paramcount.record import replace


class SourceError(ParamcountError):
    """A source file that cannot be read or holds no recurrent layer to port."""


@dataclass
class Opened:
    """An open source: its recurrent modules, and a way to read any tensor's array."""

    path: str
    format: str
    modules: list[Side]
    fetch: Callable[[str], Any]
    notes: list[str] = field(default_factory=list)
    release: Callable[[str], None] = lambda name: None
    """Let go of a tensor's memory once it is used (a memory-mapped one is read again from
    disk if it is needed later)."""
    shapes: dict[str, tuple[int, ...]] = field(default_factory=dict)
    """Every tensor of the file, in its order: what the port must account for."""
    convention: Framework | None = None
    """The convention of the names of the file's other layers (None: not read)."""
    settings: dict[str, dict[str, float]] = field(default_factory=dict)
    """What the file says of a layer that its tensors do not (a norm's epsilon), by prefix."""


TORCH_SUFFIXES = (".pt", ".pth", ".bin", ".ckpt")
READS = (*TORCH_SUFFIXES, ".safetensors", ".npz", ".keras", ".h5", ".hdf5", ".onnx")
"""Every source suffix that port reads."""


def _require(module: str, extra: str) -> Any:
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError:
        raise BackendUnavailable(module, extra,
                                 f"reading this file requires the {module} package: "
                                 + install_hint(extra)) from None


@contextmanager
def open_source(path: str, frameworks: tuple[Framework, ...] | None = None) -> Iterator[Opened]:
    """Open ``path`` and find its recurrent modules (only of ``frameworks`` when given)."""
    if not os.path.isfile(path):
        raise SourceError(f"{path}: no such file")
    suffix = os.path.splitext(path)[1].lower()
    with contextlib.ExitStack() as stack:
        try:
            opened = _open(path, suffix, frameworks, stack)
        except (ParamcountError, AssertionError):
            raise
        except Exception as error:  # a damaged or hostile file: one line, never a traceback
            raise _unreadable(path, suffix, error) from None
        fetch = opened.fetch

        def guarded(name: str) -> Any:
            # a tensor's data is read only now, and may be what is damaged
            try:
                return fetch(name)
            except (ParamcountError, AssertionError):
                raise
            except Exception as error:
                raise _unreadable(path, suffix, error) from None

        opened.fetch = guarded
        yield opened


def _unreadable(path: str, suffix: str, error: Exception) -> SourceError:
    text = str(error).strip()
    first = text.splitlines()[0] if text else ""
    return SourceError(f"{path}: cannot read it as {suffix[1:]}: "
                       f"{type(error).__name__}: {first}"[:300])


def _open(path: str, suffix: str, frameworks: tuple[Framework, ...] | None,
          stack: contextlib.ExitStack) -> Opened:
    if suffix == ".onnx":
        return _onnx(path, frameworks)
    if suffix == ".keras":
        return stack.enter_context(_keras(path, frameworks))
    if suffix in (".h5", ".hdf5"):
        return _keras_h5(path, frameworks, stack)
    if suffix == ".safetensors":
        return _by_names(path, "safetensors", *_safetensors(path), frameworks)
    if suffix == ".npz":
        shapes, fetch = stack.enter_context(_npz(path))
        return _by_names(path, "npz", shapes, fetch, frameworks)
    if suffix in TORCH_SUFFIXES:
        shapes, fetch, release = _torch(path)
        opened = _by_names(path, "torch", shapes, fetch, frameworks)
        opened.release = release
        return opened
    raise SourceError(
        f"{path}: cannot tell the format from '{suffix or 'no suffix'}' (port reads "
        f"{', '.join(READS[:-1])} and {READS[-1]} files)"
    )


def _by_names(
    path: str, fmt: str, shapes: dict[str, tuple[int, ...]], fetch: Callable[[str], Any],
    frameworks: tuple[Framework, ...] | None,
) -> Opened:
    found = conventions.recognise(shapes, frameworks)
    modules = []
    notes: list[str] = []
    for recognised in found:
        modules.append(side_of(recognised))
        notes += [n for n in recognised.notes if n not in notes]
    return Opened(path, fmt, modules, fetch, notes, shapes=shapes,
                  convention=_convention(fmt, shapes, modules, frameworks))


def _convention(fmt: str, shapes: dict[str, tuple[int, ...]], modules: list[Side],
                frameworks: tuple[Framework, ...] | None) -> Framework:
    """The convention of the names beside the recurrent layers: ``--from``, else the recurrent
    layers', else what the names look like (``params/`` Flax, ``a/b`` Keras, ``a.b`` torch)."""
    if frameworks:
        return frameworks[0]
    if modules:
        return modules[0].framework
    if fmt == "torch":
        return Framework.TORCH
    names = list(shapes)
    if names and all(n.startswith(("params/", "batch_stats/")) for n in names):
        return Framework.FLAX_LINEN
    if names and all("/" in n for n in names):
        return Framework.KERAS
    return Framework.TORCH


def side_of(recognised: Recognised, **extra: Any) -> Side:
    """The port's view of a recognised layer: its spec and each tensor's name in the file."""
    spec = recognised.spec
    # names are read below the module's prefix: a prefix such as bidirectional_1/ (one
    # layer of a Keras or CuDNN stack) is not a layer number of this module
    prefix = recognised.prefix
    local = {n[len(prefix):] if n.startswith(prefix) else n: n for n in recognised.names}
    found = file_names(spec, tuple(local))
    names = None if found is None else tuple((t, local[f]) for t, f in found)
    if names is None:
        raise SourceError(
            f"cannot place every tensor of {conventions.describe(spec)} under "
            f"'{recognised.prefix}' (found {', '.join(recognised.names)})"
        )
    reset_after = True
    if spec.cell is Cell.GRU:
        reset_after = spec.framework is not Framework.TF1 and spec.reset_after is not False
    return Side(spec, prefix=recognised.prefix, names=names, reset_after=reset_after, **extra)


def _numpy_of_torch(tensor: Any) -> Any:
    import torch

    if tensor.dtype == torch.bfloat16:
        return tensor.float().numpy()
    return tensor.numpy()


def _torch(path: str) -> tuple[dict[str, tuple[int, ...]], Callable[[str], Any],
                               Callable[[str], None]]:
    import pickle

    torch = _require("torch", "torch")
    mapped = True
    try:
        try:
            loaded = torch.load(path, map_location="cpu", weights_only=True, mmap=True)
        except RuntimeError as error:
            if "mmap" not in str(error):
                raise
            # the legacy (pre-zip) format cannot be memory-mapped; read it whole, still safely
            loaded = torch.load(path, map_location="cpu", weights_only=True)
            mapped = False
    except pickle.UnpicklingError as error:  # torch's text advises weights_only=False: not here
        named = re.search(r"GLOBAL ([\w.]+)", str(error))
        raise SourceError(
            f"{path}: it holds Python objects besides tensors"
            + (f" ({named[1]})" if named else "") + ", which only an unpickling that can run "
            "code would read (refused); save the model's state_dict() and port that file"
        ) from None
    tensors: dict[str, Any] = {}

    def walk(value: Any, prefix: str) -> None:
        if isinstance(value, torch.Tensor):
            tensors[prefix.rstrip(".")] = value
        elif isinstance(value, dict):
            for key, item in value.items():
                walk(item, f"{prefix}{key}.")

    walk(loaded, "")
    shapes = {name: tuple(int(d) for d in t.shape) for name, t in tensors.items()}

    def release(name: str) -> None:
        if not mapped:  # the pages are the process' own memory, not the file's: kept
            return
        tensor = tensors[name]
        _drop_pages(tensor.data_ptr(), tensor.numel() * tensor.element_size())

    return shapes, lambda name: _numpy_of_torch(tensors[name]), release


def _drop_pages(address: int, length: int) -> None:
    """Tell the kernel a memory-mapped range is not needed now (Linux ``MADV_DONTNEED``).

    The file's pages leave this process' resident memory and are read again from the file if
    touched; without this, every page a port has read stays resident until the file is closed.
    """
    import ctypes
    import mmap
    import sys

    if not sys.platform.startswith("linux") or length <= 0:
        return
    page = mmap.PAGESIZE
    start = address - address % page
    end = address + length
    end += -end % page
    libc = ctypes.CDLL(None, use_errno=True)
    libc.madvise(ctypes.c_void_p(start), ctypes.c_size_t(end - start), ctypes.c_int(4))


_SAFETENSORS_DTYPES = {"F64": "<f8", "F32": "<f4", "F16": "<f2", "BF16": "<u2",
                       "I64": "<i8", "I32": "<i4", "I16": "<i2", "I8": "i1", "U8": "u1",
                       "BOOL": "?"}


def _safetensors(path: str) -> tuple[dict[str, tuple[int, ...]], Callable[[str], Any]]:
    """A safetensors file: its header read and checked by ``paramcount.files.listing`` (the reader
    ``paramcount inspect`` uses), then each tensor read with one positioned read when it is
    needed, so no more than one tensor is in memory (a memory map would keep every page read
    resident). bfloat16 is widened to float32, exactly.
    """
    from pathlib import Path

    from paramcount.files.safetensors_file import entries as header_entries

    np = _require("numpy", "port")
    found, _ = header_entries(Path(path), path)
    for entry in found:
        if entry.dtype not in _SAFETENSORS_DTYPES:
            raise SourceError(f"{path}: tensor {entry.tensor.name!r} is {entry.dtype}, which "
                              "paramcount port does not read (floating and integer tensors "
                              "of 8 to 64 bits)")
    entries = {e.tensor.name: (e.dtype, e.tensor.shape, e.offset, e.size) for e in found}

    def fetch(name: str) -> Any:
        dtype, shape, offset, count = entries[name]
        with open(path, "rb") as handle:
            handle.seek(offset)
            raw = handle.read(count)
        array = np.frombuffer(raw, dtype=_SAFETENSORS_DTYPES[dtype]).reshape(shape)
        if dtype == "BF16":
            return (array.astype(np.uint32) << 16).view(np.float32)
        return array.astype(array.dtype.newbyteorder("="), copy=False)

    return {name: e[1] for name, e in entries.items()}, fetch


@contextmanager
def _npz(path: str) -> Iterator[tuple[dict[str, tuple[int, ...]], Callable[[str], Any]]]:
    np = _require("numpy", "port")
    shapes: dict[str, tuple[int, ...]] = {}
    with zipfile.ZipFile(path) as archive:
        for entry in archive.namelist():
            if not entry.endswith(".npy"):
                continue
            with archive.open(entry) as member:
                version = np.lib.format.read_magic(member)
                read = np.lib.format.read_array_header_1_0 if version == (1, 0) else \
                    np.lib.format.read_array_header_2_0
                shape, _, dtype = read(member)
            name = entry[: -len(".npy")]
            if dtype.hasobject:  # allow_pickle stays False: say so before any data is read
                raise SourceError(f"{path}: {name} is an array of Python objects, which only "
                                  "unpickling could read (refused)")
            shapes[name] = tuple(int(d) for d in shape)
    with np.load(path, allow_pickle=False) as data:
        yield shapes, lambda name: data[name]


# -- Keras: config.json says which layers are recurrent and how; the weights file has the data.

_KERAS_CELLS = {"LSTM": Cell.LSTM, "GRU": Cell.GRU, "SimpleRNN": Cell.RNN}
_SNAKE = {Cell.LSTM: "lstm", Cell.GRU: "gru", Cell.RNN: "simple_rnn"}
_ROLES = ("kernel", "recurrent_kernel", "bias")


@contextmanager
def _keras(path: str, frameworks: tuple[Framework, ...] | None) -> Iterator[Opened]:
    # inspect's reader checks the members (zip bombs, sizes) and reads a stored weights file
    # in place, without decompressing or copying it
    from paramcount.files.keras_file import _check_member, _config, _member

    h5py = _require("h5py", "port")
    with open(path, "rb") as handle, zipfile.ZipFile(handle) as archive:
        config = _config(path, archive, archive.getinfo("config.json"))
        info = archive.getinfo("model.weights.h5")
        _check_member(path, info)
        with _member(path, archive, handle, info) as member, \
                h5py.File(member, "r") as weights:
            modules: list[Side] = []
            datasets: dict[str, str] = {}
            notes: list[str] = []
            settings: dict[str, dict[str, float]] = {}
            for layer, group in _keras_layers(config):
                side = _keras_side(layer, group, weights, datasets)
                if side is not None:
                    modules.append(side)
                else:
                    _keras_other(layer, group, weights, datasets, settings)
            if frameworks is not None and Framework.KERAS not in frameworks:
                modules = []
            shapes = {n: tuple(int(d) for d in weights[k].shape) for n, k in datasets.items()}
            yield Opened(path, "keras", modules, lambda name: weights[datasets[name]][()],
                         notes, shapes=shapes, convention=Framework.KERAS, settings=settings)


_KERAS_LEAVES = {
    "Dense": ("kernel", "bias"), "EinsumDense": ("kernel", "bias"),
    "Embedding": ("embeddings",),
    "Conv1D": ("kernel", "bias"), "Conv2D": ("kernel", "bias"), "Conv3D": ("kernel", "bias"),
    "BatchNormalization": ("gamma", "beta", "moving_mean", "moving_variance"),
    "LayerNormalization": ("gamma", "beta"),
}
"""Each layer's variables in the order Keras saves them (``vars/0``, ``vars/1`` …)."""


def _keras_other(layer: dict[str, Any], group: str, weights: Any, datasets: dict[str, str],
                 settings: dict[str, dict[str, float]]) -> None:
    """A layer that is not recurrent: each saved variable under its Keras path (``dense/kernel``;
    ``dense/vars/2`` when the class is not one port maps), and its epsilon and momentum."""
    kind = str(layer.get("class_name"))
    config = layer.get("config", {})
    name = str(config.get("name"))
    leaves = list(_KERAS_LEAVES.get(kind, ()))
    if not config.get("use_bias", True):
        leaves = [leaf for leaf in leaves if leaf != "bias"]
    if not config.get("scale", True):
        leaves = [leaf for leaf in leaves if leaf != "gamma"]
    if not config.get("center", True):
        leaves = [leaf for leaf in leaves if leaf != "beta"]
    base = f"{group}/vars"
    count = len(weights[base]) if base in weights else 0
    for index in range(count):
        leaf = leaves[index] if index < len(leaves) else f"vars/{index}"
        datasets[f"{name}/{leaf}"] = f"{base}/{index}"
    said = _keras_settings(kind, config)
    if said:
        settings[f"{name}/"] = said


def _keras_settings(kind: str, config: dict[str, Any]) -> dict[str, float]:
    """A Keras norm's epsilon, and a batch norm's momentum in torch's sense (1 − Keras')."""
    said: dict[str, float] = {}
    if kind in ("BatchNormalization", "LayerNormalization") and "epsilon" in config:
        said["eps"] = float(config["epsilon"])
    if kind == "BatchNormalization" and "momentum" in config:
        said["momentum"] = round(1 - float(config["momentum"]), 12)
    return said


def _snake(name: str) -> str:
    """Keras' ``to_snake_case``, which names each layer's group in the weights file."""
    name = re.sub(r"\W+", "", name)
    name = re.sub("(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub("([a-z])([A-Z])", r"\1_\2", name).lower()


def _keras_layers(config: Any, base: str = "") -> list[tuple[dict[str, Any], str]]:
    """Each layer config of a Sequential or functional model (nested models walked) with its
    group in ``model.weights.h5``: ``layers/lstm_1``, numbered by class as Keras saves them."""
    found: list[tuple[dict[str, Any], str]] = []
    layers = config.get("config", {}).get("layers", []) if isinstance(config, dict) else []
    used: dict[str, int] = {}
    for layer in layers:
        if not isinstance(layer, dict) or layer.get("class_name") == "InputLayer":
            continue
        name = _snake(str(layer.get("class_name", "")))
        used[name] = used.get(name, -1) + 1
        path = f"{base}layers/{name}" + (f"_{used[name]}" if used[name] else "")
        inner = layer.get("config", {})
        if isinstance(inner, dict) and "layers" in inner:
            found += _keras_layers(layer, path + "/")
        else:
            found.append((layer, path))
    return found


def _essentials(layer: dict[str, Any]) -> tuple[Any, ...]:
    """What must agree between a Bidirectional's two layers for one spec to describe both."""
    options = layer.get("config", {})
    keys = ("units", "activation", "recurrent_activation", "use_bias", "reset_after")
    return (layer.get("class_name"), *(options.get(k) for k in keys))


def _keras_side(layer: dict[str, Any], group: str, weights: Any,
                datasets: dict[str, str]) -> Side | None:
    kind = layer.get("class_name")
    config = layer.get("config", {})
    name = str(config.get("name"))
    if not re.fullmatch(r"[A-Za-z0-9_.\-]+", name):
        return None
    bidirectional = kind == "Bidirectional"
    inner = config.get("layer", {}) if bidirectional else layer
    cell = _KERAS_CELLS.get(inner.get("class_name", ""))
    if cell is None:
        return None
    options = inner.get("config", {})
    backward = config.get("backward_layer") if bidirectional else None
    if isinstance(backward, dict) and _essentials(backward) != _essentials(inner):
        raise SourceError(f"Keras layer {name}: its backward_layer is configured unlike its "
                          "forward layer")
    if not bidirectional and options.get("go_backwards"):
        raise SourceError(f"Keras layer {name}: go_backwards=True has no counterpart here")
    base_name = str(options.get("name", _SNAKE[cell])).removeprefix("forward_")
    groups = [("forward_layer", f"forward_{base_name}"), ("backward_layer",
                                                         f"backward_{base_name}")] \
        if bidirectional else [("", "")]
    shapes = {}
    for part, label in groups:
        base = f"{group}/" + (f"{part}/" if part else "") + "cell/vars"
        if base not in weights:
            raise SourceError(f"Keras layer {name}: no weights at {base}")
        for index, role in enumerate(_ROLES):
            key = f"{base}/{index}"
            if key in weights:
                weight_path = f"{name}/" + (f"{label}/" if label else "") + \
                    f"{_SNAKE[cell]}_cell/{role}"
                datasets[weight_path] = key
                shapes[weight_path] = tuple(int(d) for d in weights[key].shape)
    kernel = shapes[next(iter(shapes))]
    details = _details(name, cell, options, config if bidirectional else None)
    spec = LayerSpec(
        cell=cell, input_size=kernel[0], hidden_size=int(options["units"]),
        bidirectional=bidirectional, bias=bool(options.get("use_bias", True)),
        framework=Framework.KERAS, merge_modes=details.merge_modes,
        reset_after=details.reset_after, nonlinearity=details.nonlinearity,
    )
    names = file_names(spec, tuple(shapes))
    if names is None:
        raise SourceError(f"Keras layer {name}: its weights do not fit "
                          f"{conventions.describe(spec)}")
    return Side(spec, prefix=f"{name}/", names=names,
                reset_after=cell is not Cell.GRU or spec.reset_after is not False,
                recurrent_activation=details.recurrent_activation)


@dataclass(frozen=True)
class _Details:
    """What a Keras layer's configuration says that its weights do not."""

    nonlinearity: Nonlinearity | None
    merge_modes: tuple[MergeMode, ...] | None
    reset_after: bool | None
    recurrent_activation: str


def _details(name: str, cell: Cell, options: dict[str, Any],
             wrapper: dict[str, Any] | None, reset_default: bool = True) -> _Details:
    """Activations, merge mode and reset_after from a layer's config; unported ones refused."""
    activation = str(options.get("activation", "tanh"))
    nonlinearity = None
    if cell is Cell.RNN:
        if activation not in ("tanh", "relu"):
            raise SourceError(f"Keras layer {name}: activation '{activation}' has no "
                              "counterpart in other frameworks' RNNs (tanh or relu)")
        nonlinearity = Nonlinearity(activation)
    elif activation != "tanh":
        raise SourceError(f"Keras layer {name}: activation '{activation}' (the others use tanh)")
    merge = wrapper.get("merge_mode", "concat") if wrapper is not None else None
    return _Details(
        nonlinearity,
        (MergeMode(merge or "none"),) if wrapper is not None else None,
        bool(options.get("reset_after", reset_default)) if cell is Cell.GRU else None,
        str(options.get("recurrent_activation", "sigmoid")) if cell is not Cell.RNN
        else "sigmoid",
    )


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _keras_h5(path: str, frameworks: tuple[Framework, ...] | None,
              stack: contextlib.ExitStack) -> Opened:
    """A whole model saved as HDF5 (Keras 2, or Keras 3's legacy ``model.save('m.h5')``)."""
    h5py = _require("h5py", "port")
    handle = stack.enter_context(h5py.File(path, "r"))
    if "model_weights" not in handle:
        kind = "weights only (model.save_weights)" if "layers" in handle else "no Keras model"
        raise SourceError(f"{path}: holds {kind}, without the layers' configuration; port the "
                          ".keras file or the model saved whole")
    raw = handle.attrs.get("model_config")
    config = json.loads(_text(raw)) if raw is not None else {}
    layers = {str(layer.get("config", {}).get("name")): layer
              for layer, _ in _keras_layers(config)}
    group = handle["model_weights"]
    shapes: dict[str, tuple[int, ...]] = {}
    datasets: dict[str, str] = {}
    for layer_name in (_text(n) for n in group.attrs.get("layer_names", list(group))):
        for weight in (_text(w) for w in group[layer_name].attrs.get("weight_names", [])):
            parts = weight.split("/")
            if layer_name in parts:  # Keras 3 puts the model's name first
                parts = parts[parts.index(layer_name):]
            shapes["/".join(parts)] = tuple(int(d) for d in group[layer_name][weight].shape)
            datasets["/".join(parts)] = f"model_weights/{layer_name}/{weight}"
    modules = []
    for recognised in conventions.recognise(shapes, (Framework.KERAS,)):
        side = side_of(recognised)
        layer = layers.get(recognised.prefix.split("/")[0])
        if layer is not None:
            bidirectional = layer.get("class_name") == "Bidirectional"
            inner = layer.get("config", {}).get("layer", {}) if bidirectional else layer
            # Keras before 2.3 (and tf.compat.v1) defaulted to reset_after=False
            details = _details(recognised.prefix.rstrip("/"), side.spec.cell,
                               inner.get("config", {}),
                               layer.get("config", {}) if bidirectional else None,
                               reset_default=False)
            spec = side.spec
            if spec.cell is Cell.GRU and not spec.bias:
                spec = spec.replace(reset_after=details.reset_after)
            spec = spec.replace(nonlinearity=details.nonlinearity,
                                merge_modes=details.merge_modes if spec.bidirectional else None)
            side = replace(side, spec=spec, recurrent_activation=details.recurrent_activation,
                           reset_after=spec.cell is not Cell.GRU or bool(spec.reset_after))
        modules.append(side)
    if frameworks is not None and Framework.KERAS not in frameworks:
        modules = []
    settings = {}
    for name, layer in layers.items():
        said = _keras_settings(str(layer.get("class_name")), layer.get("config", {}))
        if said:
            settings[f"{name}/"] = said
    return Opened(path, "keras-h5", modules, lambda name: handle[datasets[name]][()],
                  shapes=shapes, convention=Framework.KERAS, settings=settings)


# -- ONNX: each LSTM / GRU / RNN node, chained nodes as one stack.

_OPS = {"LSTM": Cell.LSTM, "GRU": Cell.GRU, "RNN": Cell.RNN}
_DEFAULT_ACTIVATIONS = {Cell.LSTM: ["Sigmoid", "Tanh", "Tanh"], Cell.GRU: ["Sigmoid", "Tanh"]}
_PASS_THROUGH = {"Transpose", "Reshape", "Squeeze", "Unsqueeze", "Identity", "Flatten"}


def _onnx(path: str, frameworks: tuple[Framework, ...] | None) -> Opened:
    onnx = _require("onnx", "onnx")
    from onnx import helper, numpy_helper

    model = onnx.load(path)
    graph = model.graph
    arrays: dict[str, Any] = {i.name: i for i in graph.initializer}
    for node in graph.node:
        if node.op_type == "Constant" and node.output:
            for attribute in node.attribute:
                if attribute.name == "value":
                    arrays[node.output[0]] = attribute.t
    producer = {out: node for node in graph.node for out in node.output}
    stacks: list[list[Any]] = []
    for node in graph.node:
        if node.op_type not in _OPS:
            continue
        if stacks and _continues(stacks[-1][-1], node, producer, arrays):
            stacks[-1].append(node)
        else:
            stacks.append([node])
    modules = []
    for position, nodes in enumerate(stacks):
        modules.append(_onnx_side(nodes, arrays, helper, len(stacks), position))
    if frameworks is not None and Framework.ONNX not in frameworks:
        modules = []
    weights = {i.name: tuple(int(d) for d in i.dims) for i in graph.initializer
               if i.data_type in _FLOATS}
    return Opened(path, "onnx", modules, lambda name: numpy_helper.to_array(arrays[name]),
                  shapes=weights, convention=Framework.ONNX)


_FLOATS = (1, 10, 11, 16)
"""ONNX's float, float16, double and bfloat16: the initializers that are weights."""


def _attributes(node: Any, helper: Any) -> dict[str, Any]:
    return {a.name: helper.get_attribute_value(a) for a in node.attribute}


def _continues(previous: Any, node: Any, producer: dict[str, Any], arrays: dict[str, Any]
               ) -> bool:
    """Whether ``node`` reads ``previous``'s Y, through reshapes only, with the same op."""
    if previous.op_type != node.op_type or not previous.output:
        return False
    name = node.input[0]
    for _ in range(8):
        if name == previous.output[0]:
            return list(previous.attribute) == list(node.attribute) and \
                _has_bias(previous) == _has_bias(node)
        source = producer.get(name)
        if source is None or source.op_type not in _PASS_THROUGH:
            return False
        name = source.input[0]
    return False


def _has_bias(node: Any) -> bool:
    return len(node.input) > 3 and bool(node.input[3])


def _onnx_side(nodes: list[Any], arrays: dict[str, Any], helper: Any, count: int,
               position: int) -> Side:
    first = nodes[0]
    cell = _OPS[first.op_type]
    attributes = _attributes(first, helper)
    label = f"ONNX {first.op_type} node {first.name or position}"
    direction = attributes.get("direction", b"forward")
    direction = direction.decode() if isinstance(direction, bytes) else str(direction)
    if direction == "reverse":
        raise SourceError(f"{label}: direction='reverse' alone has no counterpart elsewhere")
    if "clip" in attributes:
        raise SourceError(f"{label}: clip={attributes['clip']} has no counterpart elsewhere")
    if attributes.get("input_forget", 0):
        raise SourceError(f"{label}: input_forget=1 has no counterpart elsewhere")
    d = 2 if direction == "bidirectional" else 1
    activations = [a.decode() if isinstance(a, bytes) else str(a)
                   for a in attributes.get("activations", [])]
    nonlinearity = None
    if cell is Cell.RNN:
        kinds = set(activations) or {"Tanh"}
        if kinds not in ({"Tanh"}, {"Relu"}):
            raise SourceError(f"{label}: activations {activations} (port maps Tanh or Relu)")
        nonlinearity = Nonlinearity(kinds.pop().lower())
    elif activations and activations != _DEFAULT_ACTIVATIONS[cell] * d:
        raise SourceError(f"{label}: activations {activations} are not the default "
                          f"{_DEFAULT_ACTIVATIONS[cell]}")
    names: list[tuple[str, str]] = []
    biased = peepholes = False
    shapes: list[tuple[int, ...]] = []
    for layer, node in enumerate(nodes):
        inputs = list(node.input) + [""] * 8
        roles = [("W", 1), ("R", 2), ("B", 3)] + ([("P", 7)] if cell is Cell.LSTM else [])
        for role, index in roles:
            name = inputs[index]
            if not name:
                continue
            if name not in arrays:
                raise SourceError(f"{label}: its {role} input '{name}' is computed, not stored")
            names.append((f"layer{layer}/{role}", name))
            if layer == 0:
                biased |= role == "B"
                peepholes |= role == "P"
                shapes.append(tuple(int(x) for x in arrays[name].dims))
    w = shapes[0]
    spec = LayerSpec(
        cell=cell, input_size=w[2], hidden_size=int(attributes["hidden_size"]),
        num_layers=len(nodes), bidirectional=d == 2, bias=biased,
        framework=Framework.ONNX, nonlinearity=nonlinearity, peepholes=peepholes,
    )
    expected = {t.name: t.shape for t in conventions.tensors(spec)}
    for conv, name in names:
        if expected.get(conv) != tuple(int(x) for x in arrays[name].dims):
            raise SourceError(f"{label}: {conv} is {tuple(arrays[name].dims)}, "
                              f"{conventions.describe(spec)} needs {expected.get(conv)}")
    if len(names) != len(expected):
        raise SourceError(f"{label}: its layers do not all have the same inputs")
    return Side(spec, prefix=_onnx_prefix(first, count, position), names=tuple(names),
                reset_after=bool(attributes.get("linear_before_reset", 0)) or cell is not Cell.GRU)


def _onnx_prefix(node: Any, count: int, position: int) -> str:
    """The module prefix of a stack whose first node is ``node``.

    A module path in the node's name is kept even for a single module: paramcount's own
    ``encoder/layer0`` and torch.onnx.export's ``/encoder/LSTM`` give ``encoder/`` (so a
    port back to torch has the original state-dict keys); other names only tell several
    stacks apart.
    """
    name = node.name or ""
    path = re.fullmatch(r"(.+)/layer0", name) or \
        re.fullmatch(rf"/(.+)/{node.op_type}(?:_\d+)?", name)
    if path:
        return re.sub(r"[^A-Za-z0-9_/]", "_", path[1]).strip("/") + "/"
    if count == 1:
        return ""
    return f"{re.sub(r'[^A-Za-z0-9_]', '_', name) or node.op_type.lower() + str(position)}/"
