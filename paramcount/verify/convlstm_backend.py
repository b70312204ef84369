"""Check the ConvLSTM conventions against real Keras and Flax layers, without their memory.

Keras layers are built inside ``keras.StatelessScope(initialize_variables=False)`` in a fresh
session (so the automatic names start at ``conv_lstm2d``), each layer on the output shape of the
one before — that is how the channels_first Bidirectional quirk shows. Flax linen stacks are
initialised under ``jax.eval_shape``. Framework imports happen inside the functions.
"""

from __future__ import annotations

import os
from typing import Any

from paramcount import quiet
from paramcount.engine.convlstm_report import ConvLSTMSpec, ConvReport
from paramcount.engine.spec import Framework
from paramcount.errors import BackendUnavailable
from paramcount.verify.compare import Verification, compare, refused

Named = list[tuple[str, tuple[int, ...]]]
"""(name, shape) pairs."""

_FRAME = 4
"""Size of every spatial axis of the test frames."""


def keras_tensors(spec: ConvLSTMSpec) -> Named:
    """The variables of the Keras ConvLSTM stack, in ``weights`` order, named by path."""
    os.environ.setdefault("KERAS_BACKEND", "tensorflow")
    quiet.install()
    try:
        import keras
    except ImportError:
        raise BackendUnavailable("keras", "keras") from None
    conv = {1: keras.layers.ConvLSTM1D, 2: keras.layers.ConvLSTM2D,
            3: keras.layers.ConvLSTM3D}[spec.rank]
    keras.backend.clear_session()
    channels_first = spec.data_format.value == "channels_first"
    spatial = (_FRAME,) * spec.rank
    frame = (spec.input_channels, *spatial) if channels_first else (*spatial, spec.input_channels)
    shape: tuple[int | None, ...] = (None, 3, *frame)
    out: Named = []
    with keras.StatelessScope(initialize_variables=False):
        for layer_index in range(spec.num_layers):
            layer = conv(
                spec.filters, spec.kernel, padding="same", use_bias=spec.bias,
                data_format=spec.data_format.value,
                return_sequences=layer_index < spec.num_layers - 1,
            )
            if spec.bidirectional:
                layer = keras.layers.Bidirectional(layer)
            layer.build(shape)
            shape = tuple(layer.compute_output_shape(shape))
            out += [(v.path, tuple(int(n) for n in v.shape)) for v in layer.weights]
    return out


def flax_tensors(spec: ConvLSTMSpec) -> Named:
    """The parameter tree of the linen ConvLSTMCell stack, initialised under jax.eval_shape."""
    try:
        import jax
        import jax.numpy as jnp
        from flax import linen as nn
    except ImportError:
        raise BackendUnavailable("flax", "flax") from None

    def cell() -> Any:
        return nn.ConvLSTMCell(spec.filters, spec.kernel, use_bias=spec.bias)

    layers = [
        nn.Bidirectional(nn.RNN(cell()), nn.RNN(cell())) if spec.bidirectional
        else nn.RNN(cell())
        for _ in range(spec.num_layers)
    ]
    module = layers[0] if len(layers) == 1 else nn.Sequential(layers)
    x = jnp.zeros((1, 2, *(_FRAME,) * spec.rank, spec.input_channels))
    tree = jax.eval_shape(lambda: module.init(jax.random.key(0), x))

    def flatten(node: Any, prefix: str) -> Named:
        named: Named = []
        for key in sorted(node):
            value = node[key]
            if hasattr(value, "items"):
                named += flatten(value, f"{prefix}{key}/")
            else:
                named.append((f"{prefix}{key}", tuple(int(n) for n in value.shape)))
        return named

    return flatten(tree, "")


def verify_conv(report: ConvReport) -> Verification:
    """Build ``report``'s real ConvLSTM stack and compare it with the engine, tensor by tensor.

    Flax returns its parameter tree sorted by path, so both lists are compared in path order.
    Raises BackendUnavailable when the framework is not installed.
    """
    from paramcount.verify import backend, verifiable

    spec = report.spec
    verifiable(spec.num_layers, spec.bidirectional)
    version = backend(spec.framework).version()  # imports the framework quietly
    expected = list(report.tensors)
    try:
        if spec.framework is Framework.KERAS:
            actual = keras_tensors(spec)
        else:
            actual = sorted(flax_tensors(spec))
            expected.sort(key=lambda t: t.name)
    except BackendUnavailable:
        raise
    except Exception as error:
        return refused(spec.framework, version, expected, error)
    return compare(spec.framework, version, expected, actual, report.formula.total)
