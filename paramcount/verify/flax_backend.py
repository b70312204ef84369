"""Check the Flax conventions against real flax modules, without allocating their weights.

linen modules are initialised under ``jax.eval_shape`` and NNX modules built under
``nnx.eval_shape``: both trace the initialisers and return only shapes, so a
billion-parameter stack costs no memory. The stack is built the way the convention describes
it: ``nn.RNN(cell)``, ``nn.Bidirectional(nn.RNN(cell), nn.RNN(cell))``, several layers in
``nn.Sequential`` (NNX: ``nnx.Sequential``), or the bare cell.

:func:`version` and :func:`tensors` make this module the ``--verify`` backend of
``-f flax-linen`` and ``-f flax-nnx`` (registered in ``paramcount.verify``). Imports of jax and
flax happen inside the functions, only when called.
"""

from __future__ import annotations

import re
from typing import Any

from paramcount.engine.spec import Cell, Framework, LayerSpec
from paramcount.errors import BackendUnavailable

Named = list[tuple[str, tuple[int, ...]]]
"""(name, shape) pairs, in the order the parameter tree flattens."""

_CELL = {Cell.RNN: "SimpleCell", Cell.LSTM: "LSTMCell", Cell.GRU: "GRUCell"}


def load_flax() -> tuple[Any, Any, Any, Any]:
    """jax, jax.numpy, flax.linen and flax.nnx, or BackendUnavailable naming the extra."""
    try:
        import jax
        import jax.numpy as jnp
        from flax import linen, nnx
    except ImportError:
        raise BackendUnavailable("flax", "flax") from None
    return jax, jnp, linen, nnx


def _flatten(tree: Any, prefix: str = "") -> Named:
    out: Named = []
    for key in sorted(tree):
        value = tree[key]
        if hasattr(value, "items"):
            out += _flatten(value, f"{prefix}{key}/")
        else:
            out.append((f"{prefix}{key}", tuple(int(n) for n in value.shape)))
    return out


def _activation(spec: LayerSpec, module: Any) -> dict[str, Any]:
    if spec.nonlinearity is not None and spec.nonlinearity.value == "relu":
        return {"activation_fn": module.relu}
    return {}


def _cell_name(spec: LayerSpec, optimized: bool) -> str:
    return "OptimizedLSTMCell" if optimized and spec.cell is Cell.LSTM else _CELL[spec.cell]


def linen_tensors(spec: LayerSpec, optimized: bool = False) -> Named:
    """The parameter tree of the linen stack (or cell), initialised under jax.eval_shape.

    ``optimized`` builds LSTMs from OptimizedLSTMCell (same names and shapes in linen).
    """
    jax, jnp, nn, _ = load_flax()
    cell_class = getattr(nn, _cell_name(spec, optimized))
    options = _activation(spec, nn)

    def cell() -> Any:
        return cell_class(spec.hidden_size, **options)

    key = jax.random.key(0)
    if spec.single_cell:
        module = cell()
        x = jnp.zeros((1, spec.input_size))

        def init() -> Any:
            carry = module.initialize_carry(key, x.shape)
            return module.init(key, carry, x)
    else:
        layers = [
            nn.Bidirectional(nn.RNN(cell()), nn.RNN(cell())) if spec.bidirectional
            else nn.RNN(cell())
            for _ in range(spec.num_layers)
        ]
        module = layers[0] if len(layers) == 1 else nn.Sequential(layers)
        x = jnp.zeros((1, 2, spec.input_size))

        def init() -> Any:
            return module.init(key, x)

    return _flatten(jax.eval_shape(init))


def nnx_tensors(spec: LayerSpec, optimized: bool = False) -> Named:
    """The parameter state of the NNX stack (or cell), built under nnx.eval_shape.

    ``optimized`` builds LSTMs from OptimizedLSTMCell (fused ``dense_i`` / ``dense_h`` in NNX).
    """
    _, _, _, nnx = load_flax()
    cell_class = getattr(nnx, _cell_name(spec, optimized))
    options = _activation(spec, nnx)

    def build() -> Any:
        rngs = nnx.Rngs(0)

        def cell(width: int) -> Any:
            return cell_class(width, spec.hidden_size, rngs=rngs, **options)

        if spec.single_cell:
            return cell(spec.input_size)
        layers = []
        width = spec.input_size
        for _ in range(spec.num_layers):
            if spec.bidirectional:
                layers.append(nnx.Bidirectional(nnx.RNN(cell(width)), nnx.RNN(cell(width))))
            else:
                layers.append(nnx.RNN(cell(width)))
            width = spec.directions * spec.hidden_size
        return layers[0] if len(layers) == 1 else nnx.Sequential(*layers)

    module = nnx.eval_shape(build)
    state = nnx.state(module, nnx.Param)
    return sorted(
        ("/".join(str(part) for part in path), tuple(int(n) for n in variable.shape))
        for path, variable in nnx.to_flat_state(state)
    )


def real_tensors(spec: LayerSpec) -> Named:
    """The real parameters of ``spec`` in its Flax API (linen or NNX)."""
    if spec.framework is Framework.FLAX_NNX:
        return nnx_tensors(spec)
    return linen_tensors(spec)


def version() -> str:
    """The installed flax version, e.g. ``0.12.8``."""
    load_flax()
    import flax

    return str(flax.__version__)


_DIRECTION_ORDER = {"forward_rnn": 0, "backward_rnn": 1}
_NUMBERED = re.compile(r"(.*?)(\d+)")


def _flow_order(path: str) -> tuple[tuple[int, str, int], ...]:
    """Sort key of a tree path: layers by number, forward before backward, then by name."""
    key = []
    for part in path.split("/"):
        numbered = _NUMBERED.fullmatch(part)
        if part in _DIRECTION_ORDER:
            key.append((0, "", _DIRECTION_ORDER[part]))
        elif numbered:
            key.append((1, numbered.group(1), int(numbered.group(2))))
        else:
            key.append((2, part, 0))
    return tuple(key)


def tensors(spec: LayerSpec) -> Named:
    """The ``--verify`` backend: the real tree, in flow order (layer, forward first, name).

    A parameter tree is a nested dict whose flattening sorts keys as strings (``layers_10``
    before ``layers_2``, ``backward_rnn`` before ``forward_rnn``); the paths and shapes are
    the real ones, listed in the order paramcount shows tensors.
    """
    return sorted(real_tensors(spec), key=lambda named: _flow_order(named[0]))
