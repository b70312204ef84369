"""Real Keras runs: check ``shapes`` claims and rebuild a Bidirectional stack for ``trace``.

keras is imported inside functions only; a missing keras raises BackendUnavailable (exit 3).
Each Bidirectional layer is rebuilt from a forward layer and a ``go_backwards=True`` layer
holding the same weights; the backward layer's output comes out in reversed time order and is
flipped back before the two are merged.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from paramcount.analysis.flow import TOLERANCE, Check, Flow, Trace, TraceRow, mistake_note
from paramcount.engine.conventions import Direction
from paramcount.engine.spec import Cell, LayerSpec, MergeMode
from paramcount.verify import keras_backend
from paramcount.verify.proof import guard

_CLASS = {Cell.RNN: "SimpleRNN", Cell.LSTM: "LSTM", Cell.GRU: "GRU"}


def _keras() -> tuple[Any, Any]:
    """keras, imported quietly by the verify backend (or BackendUnavailable), and numpy."""
    keras = keras_backend.load()
    import numpy

    return keras, numpy


def _layer(keras: Any, spec: LayerSpec, go_backwards: bool = False) -> Any:
    """One unidirectional recurrent layer returning its sequence and its states."""
    kwargs: dict[str, Any] = {
        "return_sequences": True,
        "return_state": True,
        "use_bias": spec.bias,
        "go_backwards": go_backwards,
    }
    if spec.cell is Cell.RNN and spec.nonlinearity is not None:
        kwargs["activation"] = spec.nonlinearity.value
    if spec.cell is Cell.GRU:
        kwargs["reset_after"] = bool(spec.reset_after)
    return getattr(keras.layers, _CLASS[spec.cell])(spec.hidden_size, **kwargs)


def _merge(numpy: Any, mode: MergeMode | None, forward: Any, backward: Any) -> Any:
    if mode is MergeMode.CONCAT:
        return numpy.concatenate([forward, backward], axis=-1)
    if mode is MergeMode.SUM:
        return forward + backward
    if mode is MergeMode.MUL:
        return forward * backward
    if mode is MergeMode.AVE:
        return (forward + backward) / 2
    return [forward, backward]


@dataclass
class _LayerRun:
    """One real layer of the stack, what it read, what it returned."""

    layer: Any
    layer_input: Any
    states: list[Any]
    """Initial states: forward ones, then backward ones."""
    output: Any
    """The merged output, or [forward, backward] with merge_mode=None."""
    final: list[Any]
    """Returned states, in Keras' order."""


def _stack(
    spec: LayerSpec, batch: int, seq_len: int, seed: int
) -> tuple[Any, Any, list[_LayerRun]]:
    """Build the real stack with seeded weights and run it on random input and states."""
    guard(spec, batch, seq_len)
    keras, numpy = _keras()
    keras.utils.set_random_seed(seed)
    rng = numpy.random.default_rng(seed)
    n_states = 2 if spec.cell is Cell.LSTM else 1
    layer_input = rng.standard_normal((batch, seq_len, spec.input_size)).astype("float32")
    runs = []
    for layer in range(spec.num_layers):
        inner = _layer(keras, spec)
        if spec.bidirectional:
            assert spec.merge_modes is not None
            mode = spec.merge_modes[layer]
            real = keras.layers.Bidirectional(
                inner, merge_mode=None if mode is MergeMode.NONE else mode.value
            )
        else:
            real = inner
        states = [
            rng.standard_normal((batch, spec.hidden_size)).astype("float32")
            for _ in range(n_states * spec.directions)
        ]
        result = [numpy.asarray(t) for t in real(layer_input, initial_state=states)]
        if spec.bidirectional and spec.merge_modes and spec.merge_modes[layer] is MergeMode.NONE:
            output, final = result[:2], result[2:]
        else:
            output, final = result[0], result[1:]
        runs.append(_LayerRun(real, layer_input, states, output, final))
        layer_input = output
    return keras, numpy, runs


def _diff(numpy: Any, a: Any, b: Any) -> tuple[float, bool]:
    a, b = numpy.asarray(a), numpy.asarray(b)
    if a.shape != b.shape:
        return float("inf"), False
    diff = float(numpy.abs(a - b).max()) if a.size else 0.0
    scale = max(1.0, float(numpy.abs(b).max()) if b.size else 0.0)
    return diff, diff <= TOLERANCE * scale


def _fmt(diff: float) -> str:
    return f"max |Δ| = {diff:.1e}"


def _direction(keras: Any, numpy: Any, spec: LayerSpec, run: _LayerRun, direction: Direction,
               sequence: Any, flip_back: bool = True) -> tuple[Any, list[Any]]:
    """Rebuild one direction as its own layer with the real weights; run it on ``sequence``."""
    backward = direction is Direction.BACKWARD
    n_states = 2 if spec.cell is Cell.LSTM else 1
    states = run.states[n_states:] if backward else run.states[:n_states]
    rebuilt = _layer(keras, spec, go_backwards=backward)
    rebuilt(sequence, initial_state=states)
    source = run.layer
    if spec.bidirectional:
        source = run.layer.backward_layer if backward else run.layer.forward_layer
    rebuilt.set_weights(source.get_weights())
    result = [numpy.asarray(t) for t in rebuilt(sequence, initial_state=states)]
    out = numpy.flip(result[0], axis=1) if backward and flip_back else result[0]
    return out, result[1:]


def verify_flow(flow: Flow, seed: int = 0) -> dict[str, Check]:
    """Check every claim of a Keras ``Flow`` with real layers, keyed by claim id."""
    spec = flow.spec
    keras, numpy, runs = _stack(spec, flow.batch, flow.seq_len, seed)
    last = runs[-1]
    checks: dict[str, Check] = {}
    outputs = last.output if isinstance(last.output, list) else [last.output]
    actual = {"input": runs[0].layer_input}
    if len(outputs) == 2:
        actual.update({"output[0]": outputs[0], "output[1]": outputs[1]})
    else:
        actual["output"] = outputs[0]
    state_names = [s.name for s in flow.shapes if s.name not in actual]
    actual.update(dict(zip(state_names, last.final, strict=False)))
    for item in flow.shapes:
        got = tuple(numpy.asarray(actual[item.name]).shape)
        checks[f"shape:{item.name}"] = Check(
            f"{item.name} is {item.shape}", got == item.shape, f"keras: {got}"
        )
    for k, claim in enumerate(flow.slices):
        source = outputs[k] if len(outputs) == 2 else outputs[0]
        left = source[:, claim.time, claim.start : claim.stop]
        diff, ok = _diff(numpy, left, actual[claim.state])
        checks[f"slice:{k}"] = Check(claim.text, ok, _fmt(diff))
    n_states = 2 if spec.cell is Cell.LSTM else 1
    mode = spec.merge_modes[-1] if spec.merge_modes else None
    for slot in flow.slots:
        k = 1 if slot.direction is Direction.BACKWARD else 0
        _out, final = _direction(keras, numpy, spec, last, slot.direction, last.layer_input)
        # Compare with the returned tensors by the names the flow gives them (h, then c), so
        # a wrong claim about which returned state is which fails here.
        prefix = f"{slot.direction.value}_" if spec.bidirectional else ""
        named = [actual[prefix + state] for state in ("h", "c")[:n_states]]
        diffs = [_diff(numpy, a, b) for a, b in zip(final, named, strict=True)]
        name = f"{slot.direction.value}_h" if spec.bidirectional else "h"
        checks[f"final:{slot.index}"] = Check(
            f"{name} is layer {slot.layer} {slot.direction.value}'s final state",
            all(ok for _, ok in diffs), _fmt(max(d for d, _ in diffs)),
        )
        # The initial state enters at slot.step: one step from it alone, merged with the other
        # direction's real output at that step, gives the layer's real output there.
        step = slot.step
        one, _ = _direction(keras, numpy, spec, last, slot.direction,
                            last.layer_input[:, step : step + 1])
        if spec.bidirectional:
            other_direction = Direction.FORWARD if k else Direction.BACKWARD
            other, _ = _direction(keras, numpy, spec, last, other_direction, last.layer_input)
            pair = (other[:, step], one[:, 0]) if k else (one[:, 0], other[:, step])
            merged = _merge(numpy, mode, *pair)
            real = outputs[k][:, step] if mode is MergeMode.NONE else outputs[0][:, step]
            mine = merged[k] if mode is MergeMode.NONE else merged
        else:
            mine, real = one[:, 0], outputs[0][:, step]
        diff, ok = _diff(numpy, mine, real)
        checks[f"init:{slot.index}"] = Check(
            f"initial_state[{slot.index}] enters layer {slot.layer} {slot.direction.value} "
            f"at t = {step}", ok, _fmt(diff),
        )
    return checks


def trace(spec: LayerSpec, batch: int, seq_len: int, seed: int = 0,
          mistake: bool = False) -> Trace:
    """Rebuild a Keras stack from unidirectional layers with the same weights, and compare."""
    keras, numpy, runs = _stack(spec, batch, seq_len, seed)
    h = spec.hidden_size
    n_states = 2 if spec.cell is Cell.LSTM else 1
    rows: list[TraceRow] = []
    notes: list[str] = []
    layer_input = runs[0].layer_input
    for layer, run in enumerate(runs):
        mode = spec.merge_modes[layer] if spec.merge_modes else None
        outputs = []
        for k, direction in enumerate(list(Direction)[: spec.directions]):
            out, final = _direction(keras, numpy, spec, run, direction, layer_input,
                                    flip_back=not mistake)
            real_final = run.final[k * n_states : (k + 1) * n_states]
            state_diff = max(_diff(numpy, a, b)[0] for a, b in zip(final, real_final, strict=False))
            out_diff: float | None = None
            if not spec.bidirectional:
                out_diff = _diff(numpy, out, run.output)[0]
            elif mode is MergeMode.CONCAT:
                out_diff = _diff(numpy, out, run.output[..., k * h : (k + 1) * h])[0]
            elif mode is MergeMode.NONE:
                out_diff = _diff(numpy, out, run.output[k])[0]
            scale = max(1.0, *(float(numpy.abs(numpy.asarray(o)).max()) for o in
                               (run.output if isinstance(run.output, list) else [run.output])))
            names = ("forward" if k == 0 else "backward") + "_h" if spec.bidirectional else "h"
            if n_states == 2:
                names += ", " + names[:-1] + "c"
            rows.append(TraceRow(layer, direction.value, out_diff, state_diff,
                                 f"layer {layer} {names}", TOLERANCE * scale))
            if mistake and direction is Direction.BACKWARD and layer == 0 and out_diff:
                notes.append(
                    "layer 0 backward: its final state matches, but its output comes out of a "
                    "go_backwards layer in reversed time order: step t holds the real step T−1−t"
                )
            outputs.append(out)
        merged = _merge(numpy, mode, *outputs) if spec.bidirectional else outputs[0]
        if spec.bidirectional and mode not in (MergeMode.CONCAT, MergeMode.NONE):
            diff = _diff(numpy, merged, run.output)[0]
            scale = max(1.0, float(numpy.abs(run.output).max()))
            name = f"merge_mode={mode.value if mode else None}"
            rows.append(TraceRow(layer, "merged", diff, 0.0, name, TOLERANCE * scale))
        layer_input = merged
    if mistake and (note := mistake_note(rows, "backward[T−1−t] beside forward[t]")):
        notes.append(note)
    return Trace(spec, batch, seq_len, seed, tuple(rows), tuple(notes))
