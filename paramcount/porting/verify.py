"""Proof of a port: run the real source layer and the real target layer, compare what they compute.

Both layers get the same random input and the same non-zero initial states (torch's ``h0`` and
``c0``, Keras' ``initial_state``, ONNX's ``initial_h`` and ``initial_c``, Flax's initial
carry), and the largest absolute difference of their outputs and final states is reported. Each
framework is imported only when a side uses it. Arrays are exchanged in torch's layout: input
[N, T, I] (batch first), output [N, T, D·Hr], states [L·D, N, Hr] and [L·D, N, H].

A Keras Bidirectional layer is run with ``merge_mode='concat'`` whatever its file says: the
merge only combines the two directions' outputs after the layer, so it does not depend on the
weights being checked.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from paramcount.engine import conventions
from paramcount.engine.spec import Cell, Framework, LayerSpec
from paramcount.errors import BackendUnavailable
from paramcount.porting.layouts import Side

TOLERANCE = 1e-5
"""The largest difference accepted in fp32."""

Arrays = dict[str, Any]
"""The convention's tensor name (no prefix) -> numpy array."""


@dataclass(frozen=True)
class Run:
    """What one real layer computed: output and final states, in torch's layout."""

    output: Any
    h: Any
    c: Any | None
    runner: str
    """The framework and version that ran it: ``torch 2.13.0+cpu``."""


@dataclass(frozen=True)
class Comparison:
    """The largest differences between the source's and the target's runs."""

    source: str
    target: str
    output: float
    states: float

    @property
    def largest(self) -> float:
        """The largest of the two."""
        return max(self.output, self.states)

    @property
    def ok(self) -> bool:
        """Whether both are within :data:`TOLERANCE`."""
        return self.largest <= TOLERANCE


@dataclass(frozen=True)
class Inputs:
    """Random input and initial states shared by both runs."""

    x: Any
    h0: Any
    c0: Any


def inputs(side: Side, batch: int = 3, steps: int = 5, seed: int = 0) -> Inputs:
    """Random non-zero input [N, T, I] and initial states for ``side``'s stack."""
    import numpy as np

    spec = side.spec
    rng = np.random.default_rng(seed)
    steps = 1 if spec.single_cell else steps
    layers = spec.num_layers * spec.directions
    x = rng.standard_normal((batch, steps, spec.input_size)).astype(np.float32)
    h0 = rng.standard_normal((layers, batch, spec.output_size)).astype(np.float32)
    c0 = rng.standard_normal((layers, batch, spec.hidden_size)).astype(np.float32)
    return Inputs(x, h0, c0)


def compare(source: Side, source_arrays: Arrays, target: Side, target_arrays: Arrays,
            seed: int = 0) -> Comparison:
    """Run both sides on the same input and states and measure the largest differences."""
    import numpy as np

    given = inputs(source, seed=seed)
    a = run(source, source_arrays, given)
    b = run(target, target_arrays, given)
    output = float(np.max(np.abs(a.output - b.output)))
    states = float(np.max(np.abs(a.h - b.h)))
    if a.c is not None and b.c is not None:
        states = max(states, float(np.max(np.abs(a.c - b.c))))
    return Comparison(a.runner, b.runner, output, states)


def run(side: Side, arrays: Arrays, given: Inputs) -> Run:
    """Run ``side``'s real layer with ``arrays`` as its weights."""
    runner = _RUNNERS.get(side.framework)
    if runner is None:
        raise BackendUnavailable(
            side.framework.value, "",
            f"{side.framework.display_name} layers cannot be run here (TensorFlow 1 does not "
            "install next to TensorFlow 2), so --verify cannot prove this port",
        )
    return runner(side, {k: _f32(v) for k, v in arrays.items()}, given)


def _f32(array: Any) -> Any:
    import numpy as np

    return np.ascontiguousarray(array, dtype=np.float32)


def _torch(side: Side, arrays: Arrays, given: Inputs) -> Run:
    from paramcount.verify.torch_backend import load

    torch = load()
    spec = side.spec
    name = {Cell.RNN: "RNN", Cell.LSTM: "LSTM", Cell.GRU: "GRU"}[spec.cell]
    options: dict[str, Any] = {"bias": spec.bias}
    if spec.cell is Cell.RNN and spec.nonlinearity is not None:
        options["nonlinearity"] = spec.nonlinearity.value
    state = {k: torch.from_numpy(v.copy()) for k, v in arrays.items()}  # may be read-only
    x, h0, c0 = (torch.from_numpy(a) for a in (given.x, given.h0, given.c0))
    with torch.no_grad():
        if spec.single_cell:
            cell = getattr(torch.nn, name + "Cell")(spec.input_size, spec.hidden_size,
                                                    **options)
            cell.load_state_dict(state, strict=True)
            if spec.cell is Cell.LSTM:
                h, c = cell(x[:, 0], (h0[0], c0[0]))
                return Run(h[:, None].numpy(), h[None].numpy(), c[None].numpy(),
                           f"torch {torch.__version__}")
            h = cell(x[:, 0], h0[0])
            return Run(h[:, None].numpy(), h[None].numpy(), None, f"torch {torch.__version__}")
        if spec.proj_size:
            options["proj_size"] = spec.proj_size
        module = getattr(torch.nn, name)(spec.input_size, spec.hidden_size,
                                         num_layers=spec.num_layers,
                                         bidirectional=spec.bidirectional, batch_first=True,
                                         **options)
        module.load_state_dict(state, strict=True)
        if spec.cell is Cell.LSTM:
            with warnings.catch_warnings():  # torch's note that oneDNN skips projections
                warnings.filterwarnings("ignore", "LSTM with projections", UserWarning)
                y, (h, c) = module(x, (h0, c0))
            return Run(y.numpy(), h.numpy(), c.numpy(), f"torch {torch.__version__}")
        y, h = module(x, h0)
        return Run(y.numpy(), h.numpy(), None, f"torch {torch.__version__}")


def _keras(side: Side, arrays: Arrays, given: Inputs) -> Run:
    import numpy as np

    from paramcount.verify.keras_backend import load as load_keras

    keras = load_keras()
    spec = side.spec
    tensors = conventions.tensors(spec)
    layer_class = {Cell.RNN: "SimpleRNN", Cell.LSTM: "LSTM", Cell.GRU: "GRU"}[spec.cell]
    options: dict[str, Any] = {"use_bias": spec.bias}
    if spec.cell is Cell.GRU:
        options["reset_after"] = bool(spec.reset_after)
    if spec.cell is Cell.RNN and spec.nonlinearity is not None:
        options["activation"] = spec.nonlinearity.value
    if side.recurrent_activation != "sigmoid" and spec.cell is not Cell.RNN:
        options["recurrent_activation"] = side.recurrent_activation
    lstm = spec.cell is Cell.LSTM
    d = spec.directions

    def states(layer: int, direction: int) -> list[Any]:
        index = layer * d + direction
        out = [given.h0[index]]
        if lstm:
            out.append(given.c0[index])
        return out

    if spec.single_cell:
        cell = getattr(keras.layers, layer_class + "Cell")(spec.hidden_size, **options)
        cell.build((None, spec.input_size))
        cell.set_weights([arrays[t.name] for t in tensors])
        h, new = cell(given.x[:, 0], states(0, 0))
        h = np.asarray(h)
        c = np.asarray(new[1])[None] if lstm else None
        return Run(h[:, None], h[None], c, f"keras {keras.__version__}")
    x: Any = given.x
    finals_h, finals_c = [], []
    for layer in range(spec.num_layers):
        made = getattr(keras.layers, layer_class)(spec.hidden_size, return_sequences=True,
                                                  return_state=True, **options)
        initial = states(layer, 0)
        if spec.bidirectional:
            made = keras.layers.Bidirectional(made, merge_mode="concat")
            initial = initial + states(layer, 1)
        result = made(x, initial_state=initial)
        made.set_weights([arrays[t.name] for t in tensors if t.layer == layer])
        result = [np.asarray(r) for r in made(x, initial_state=initial)]
        x = result[0]
        per = 2 if lstm else 1
        for direction in range(d):
            part = result[1 + direction * per: 1 + (direction + 1) * per]
            finals_h.append(part[0])
            if lstm:
                finals_c.append(part[1])
    return Run(np.asarray(x), np.stack(finals_h), np.stack(finals_c) if lstm else None,
               f"keras {keras.__version__}")


def _onnx(side: Side, arrays: Arrays, given: Inputs) -> Run:
    import numpy as np

    from paramcount.porting.graph import onnx_model

    spec = side.spec
    plain = Side(spec, reset_after=side.reset_after)
    names = {t.name: t.name for t in conventions.tensors(spec)}
    model = onnx_model([(plain, names)], arrays.items(), states=True)
    feeds = {"X": np.ascontiguousarray(given.x.transpose(1, 0, 2)), "initial_h": given.h0}
    if spec.cell is Cell.LSTM:
        feeds["initial_c"] = given.c0
    wanted = ["Y", "Y_h"] + (["Y_c"] if spec.cell is Cell.LSTM else [])
    try:
        import onnxruntime

        session = onnxruntime.InferenceSession(model.SerializeToString(),
                                               providers=["CPUExecutionProvider"])
        outputs = session.run(wanted, feeds)
        runner = f"onnxruntime {onnxruntime.__version__}"
    except ImportError:
        import onnx
        from onnx.reference import ReferenceEvaluator

        outputs = ReferenceEvaluator(model).run(wanted, feeds)
        runner = f"onnx.reference {onnx.__version__}"
    y = np.asarray(outputs[0]).transpose(1, 0, 2)
    c = np.asarray(outputs[2]) if spec.cell is Cell.LSTM else None
    return Run(y, np.asarray(outputs[1]), c, runner)


def _flax(side: Side, arrays: Arrays, given: Inputs) -> Run:

    from paramcount.verify.flax_backend import load_flax

    _, jnp, linen, _ = load_flax()
    spec = side.spec
    cell_class, options = _flax_cell(spec, linen)
    carry = _flax_carry(spec, given, jnp)
    from paramcount.porting.write import nest

    tree = nest(arrays.items())["params"]
    if spec.single_cell:
        cell = cell_class(spec.hidden_size, **options)
        state, y = cell.apply({"params": tree}, carry(0, 0), jnp.asarray(given.x[:, 0]))
        return _flax_run(spec, y[:, None], [state])
    x: Any = jnp.asarray(given.x)
    states: list[Any] = []
    for layer in range(spec.num_layers):
        params = tree[f"layers_{layer}"] if spec.num_layers > 1 else tree
        if spec.bidirectional:
            module = linen.Bidirectional(linen.RNN(cell_class(spec.hidden_size, **options)),
                                         linen.RNN(cell_class(spec.hidden_size, **options)),
                                         return_carry=True)
            (forward, backward), x = module.apply(
                {"params": params}, x, initial_carry=(carry(layer, 0), carry(layer, 1)))
            states += [forward, backward]
        else:
            module = linen.RNN(cell_class(spec.hidden_size, **options), return_carry=True)
            state, x = module.apply({"params": params}, x, initial_carry=carry(layer, 0))
            states.append(state)
    return _flax_run(spec, x, states)


def _flax_nnx(side: Side, arrays: Arrays, given: Inputs) -> Run:

    from paramcount.verify.flax_backend import load_flax

    _, jnp, _, nnx = load_flax()
    spec = side.spec
    cell_class, options = _flax_cell(spec, nnx)
    carry = _flax_carry(spec, given, jnp)
    widths = conventions.input_widths(spec)

    def cell(layer: int) -> Any:
        return cell_class(widths[layer], spec.hidden_size, rngs=nnx.Rngs(0), **options)

    def load(module: Any, prefix: str) -> None:
        state = nnx.state(module, nnx.Param)
        flat = dict(nnx.to_flat_state(state))
        for path, variable in flat.items():
            key = prefix + "/".join(str(p) for p in path)
            variable.set_value(jnp.asarray(arrays[key]))
        nnx.update(module, nnx.from_flat_state(flat))

    if spec.single_cell:
        one = cell(0)
        load(one, "")
        state, y = one(carry(0, 0), jnp.asarray(given.x[:, 0]))
        return _flax_run(spec, y[:, None], [state])
    x: Any = jnp.asarray(given.x)
    states: list[Any] = []
    for layer in range(spec.num_layers):
        root = f"layers/{layer}/" if spec.num_layers > 1 else ""
        if spec.bidirectional:
            forward = nnx.RNN(cell(layer), return_carry=True)
            backward = nnx.RNN(cell(layer), return_carry=True, reverse=True, keep_order=True)
            load(forward, root + "forward_rnn/")
            load(backward, root + "backward_rnn/")
            f_state, f_y = forward(x, initial_carry=carry(layer, 0))
            b_state, b_y = backward(x, initial_carry=carry(layer, 1))
            x = jnp.concatenate([f_y, b_y], axis=-1)
            states += [f_state, b_state]
        else:
            rnn = nnx.RNN(cell(layer), return_carry=True)
            load(rnn, root)
            state, x = rnn(x, initial_carry=carry(layer, 0))
            states.append(state)
    return _flax_run(spec, x, states)


def _flax_cell(spec: LayerSpec, api: Any) -> tuple[Any, dict[str, Any]]:
    """The Flax cell class of ``spec`` in ``api`` (linen or nnx), and its options."""
    cell_class = {Cell.RNN: api.SimpleCell, Cell.LSTM: api.LSTMCell,
                  Cell.GRU: api.GRUCell}[spec.cell]
    options: dict[str, Any] = {}
    if spec.cell is Cell.RNN and spec.nonlinearity is not None:
        options["activation_fn"] = getattr(api, spec.nonlinearity.value)
    return cell_class, options


def _flax_carry(spec: LayerSpec, given: Inputs, jnp: Any) -> Callable[[int, int], Any]:
    """The initial carry of one layer's direction, in Flax's order: (c, h) for an LSTM."""

    def carry(layer: int, direction: int) -> Any:
        index = layer * spec.directions + direction
        h = jnp.asarray(given.h0[index])
        return (jnp.asarray(given.c0[index]), h) if spec.cell is Cell.LSTM else h

    return carry


def _flax_run(spec: LayerSpec, y: Any, states: list[Any]) -> Run:
    """A Flax run: the output and each layer's directions' final carries, as torch orders them."""
    import numpy as np

    lstm = spec.cell is Cell.LSTM
    h = np.stack([np.asarray(s[1] if lstm else s) for s in states])
    c = np.stack([np.asarray(s[0]) for s in states]) if lstm else None
    return Run(np.asarray(y), h, c, f"flax {__import__('flax').__version__}")


_RUNNERS: dict[Framework, Callable[[Side, Arrays, Inputs], Run]] = {
    Framework.TORCH: _torch,
    Framework.KERAS: _keras,
    Framework.ONNX: _onnx,
    Framework.FLAX_LINEN: _flax,
    Framework.FLAX_NNX: _flax_nnx,
}
