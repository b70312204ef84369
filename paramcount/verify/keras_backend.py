"""Keras 3: build SimpleRNN / LSTM / GRU stacks (or a cell) without memory and list the variables.

Layers are created inside ``keras.StatelessScope(initialize_variables=False)``, so variables get
shapes but no values, and a stack is chained on a symbolic input so that Keras itself works out
what each layer reads. Names are those of a fresh session (``keras.backend.clear_session()``
first), so they match the engine's ``bidirectional_1/forward_lstm_1/lstm_cell/kernel``.
``KERAS_BACKEND`` is respected; Keras defaults to tensorflow. keras is imported only when a
function here is called, with TensorFlow's C++ logging and oneDNN notices silenced (and, during
the import itself, whatever its C++ core writes to stderr before it reads its log level: the
GPU build's "Could not find cuda drivers" line on a machine without a GPU).
"""

from __future__ import annotations

import contextlib
import sys
import warnings
from types import ModuleType
from typing import Any

from paramcount import quiet
from paramcount.engine.spec import Cell, LayerSpec, MergeMode
from paramcount.errors import BackendUnavailable
from paramcount.verify.compare import RealTensor

_CLASS = {Cell.RNN: "SimpleRNN", Cell.LSTM: "LSTM", Cell.GRU: "GRU"}

def load() -> ModuleType:
    """Import keras (and its backend) quietly, or raise BackendUnavailable."""
    quiet.install()
    with warnings.catch_warnings(), quiet.native_stderr_silenced():
        warnings.simplefilter("ignore")
        try:
            import keras
        except ImportError:
            raise BackendUnavailable("keras", "keras") from None
        if "tensorflow" not in sys.modules:  # another backend: Keras still imports it lazily
            with contextlib.suppress(ImportError):
                import tensorflow  # noqa: F401
    quiet.quiet_loggers()
    module: ModuleType = keras
    return module


def version() -> str:
    """Keras' version and its backend's: ``3.15.1 (tensorflow 2.21.0)``."""
    keras = load()
    backend = keras.backend.backend()
    backend_version = getattr(sys.modules.get(backend), "__version__", None)
    detail = f"{backend} {backend_version}" if backend_version else backend
    return f"{keras.version()} ({detail})"


def _options(spec: LayerSpec) -> dict[str, Any]:
    options: dict[str, Any] = {"use_bias": spec.bias}
    if spec.cell is Cell.GRU and spec.reset_after is not None:
        options["reset_after"] = spec.reset_after
    if spec.cell is Cell.RNN and spec.nonlinearity is not None:
        options["activation"] = spec.nonlinearity.value
    return options


def _merge_mode(mode: MergeMode) -> str | None:
    return None if mode is MergeMode.NONE else mode.value


def _fresh_session(keras: Any) -> None:
    """Reset Keras' global state, so auto-generated names start again at ``lstm``."""
    try:
        # Skipping the garbage collection makes this microseconds instead of a third of a second.
        keras.backend.clear_session(free_memory=False)
    except TypeError:  # Keras before 3.6 has no free_memory argument
        keras.backend.clear_session()


def build(spec: LayerSpec) -> list[Any]:
    """The real Keras layers of ``spec`` in a fresh session, built without allocating weights.

    Starting a fresh session clears Keras' global state (name counters, global settings) in
    this process, as ``keras.backend.clear_session()`` does.
    """
    keras = load()
    name = _CLASS[spec.cell]
    _fresh_session(keras)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with keras.StatelessScope(initialize_variables=False):
            if spec.single_cell:
                cell = getattr(keras.layers, name + "Cell")(spec.hidden_size, **_options(spec))
                cell.build((None, spec.input_size))
                return [cell]
            layers = []
            x = keras.Input((None, spec.input_size))
            for index in range(spec.num_layers):
                layer = getattr(keras.layers, name)(
                    spec.hidden_size,
                    return_sequences=index < spec.num_layers - 1,
                    **_options(spec),
                )
                if spec.bidirectional:
                    modes = spec.merge_modes or (MergeMode.CONCAT,) * spec.num_layers
                    layer = keras.layers.Bidirectional(
                        layer, merge_mode=_merge_mode(modes[index])
                    )
                x = layer(x)
                layers.append(layer)
            return layers


def tensors(spec: LayerSpec) -> list[RealTensor]:
    """Every variable of the real layers: (path, shape) in ``model.weights`` order."""
    return [
        (variable.path, tuple(int(d) for d in variable.shape))
        for layer in build(spec)
        for variable in layer.weights
    ]
