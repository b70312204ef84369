"""Real PyTorch runs: check every claim of ``shapes`` and rebuild a stack for ``trace``.

torch is imported inside functions only; a missing torch raises BackendUnavailable (exit 3).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

from paramcount.analysis.flow import TOLERANCE, Check, Flow, Trace, TraceRow, mistake_note
from paramcount.engine.conventions import Direction
from paramcount.engine.spec import Cell, LayerSpec
from paramcount.verify import torch_backend
from paramcount.verify.proof import guard

_CLASS = {Cell.RNN: "RNN", Cell.LSTM: "LSTM", Cell.GRU: "GRU"}


def _torch() -> Any:
    """torch, imported by the verify backend (or BackendUnavailable)."""
    return torch_backend.load()


def _build(torch: Any, spec: LayerSpec, input_size: int, num_layers: int,
           bidirectional: bool, batch_first: bool = False) -> Any:
    """A real module like ``spec`` with other input size, depth or directions."""
    kwargs: dict[str, Any] = {
        "num_layers": num_layers,
        "bias": spec.bias,
        "bidirectional": bidirectional,
        "batch_first": batch_first,
    }
    if spec.proj_size:
        kwargs["proj_size"] = spec.proj_size
    if spec.cell is Cell.RNN and spec.nonlinearity is not None:
        kwargs["nonlinearity"] = spec.nonlinearity.value
    return getattr(torch.nn, _CLASS[spec.cell])(input_size, spec.hidden_size, **kwargs)


@dataclass
class _Run:
    """A randomly initialised stack, its inputs, and its real outputs (time-major)."""

    torch: Any
    spec: LayerSpec
    module: Any
    x: Any
    """Time-major input (T, N, I)."""
    h0: Any
    c0: Any
    output: Any
    """Time-major output (T, N, D·Hr)."""
    h_n: Any
    c_n: Any
    raw_output: Any
    """The output exactly as the module returned it (batch-first when asked)."""
    raw_input: Any


def _call(module: Any, x: Any, h0: Any, c0: Any) -> tuple[Any, Any, Any]:
    """Run ``module`` and return (output, h_n, c_n or None)."""
    with warnings.catch_warnings():
        # torch notes once that oneDNN has no projected LSTM and it uses its own kernel.
        warnings.filterwarnings("ignore", message="LSTM with projections is not supported")
        if c0 is not None:
            out, (h_n, c_n) = module(x, (h0, c0))
            return out, h_n, c_n
        out, h_n = module(x, h0)
        return out, h_n, None


def _start(spec: LayerSpec, batch: int, seq_len: int, seed: int, batch_first: bool) -> _Run:
    """Build the stack with seeded random weights, feed it random x, h0 (and c0)."""
    guard(spec, batch, seq_len)
    torch = _torch()
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        module = _build(torch, spec, spec.input_size, spec.num_layers, spec.bidirectional,
                        batch_first)
        states = spec.directions * spec.num_layers
        x = torch.randn(seq_len, batch, spec.input_size)
        h0 = torch.randn(states, batch, spec.output_size)
        c0 = torch.randn(states, batch, spec.hidden_size) if spec.cell is Cell.LSTM else None
    raw_input = x.transpose(0, 1).contiguous() if batch_first else x
    with torch.no_grad():
        raw, h_n, c_n = _call(module, raw_input, h0, c0)
    output = raw.transpose(0, 1) if batch_first else raw
    return _Run(torch, spec, module, x, h0, c0, output, h_n, c_n, raw, raw_input)


def _suffix(layer: int, direction: Direction) -> str:
    return f"_l{layer}" + ("_reverse" if direction is Direction.BACKWARD else "")


def _single(run: _Run, layer: int, direction: Direction) -> Any:
    """A unidirectional one-layer module holding the weights of ``layer`` / ``direction``."""
    torch, spec = run.torch, run.spec
    width = spec.input_size if layer == 0 else spec.directions * spec.output_size
    module = _build(torch, spec, width, 1, False)
    source = dict(run.module.named_parameters())
    with torch.no_grad():
        for name, parameter in module.named_parameters():
            parameter.copy_(source[name.replace("_l0", _suffix(layer, direction))])
    return module


def _truncated(run: _Run, layers: int) -> tuple[Any, Any, Any]:
    """The first ``layers`` layers of the real stack, run on the same input and h0 (time-major)."""
    if layers == run.spec.num_layers:
        return run.output, run.h_n, run.c_n
    torch, spec = run.torch, run.spec
    module = _build(torch, spec, spec.input_size, layers, spec.bidirectional)
    source = dict(run.module.named_parameters())
    with torch.no_grad():
        for name, parameter in module.named_parameters():
            parameter.copy_(source[name])
        k = spec.directions * layers
        return _call(module, run.x, run.h0[:k], None if run.c0 is None else run.c0[:k])


def _slot_state(tensor: Any, index: int) -> Any:
    return None if tensor is None else tensor[index : index + 1]


def _diff(torch: Any, a: Any, b: Any) -> tuple[float, bool]:
    """max |a − b| and whether it is within tolerance (relative to the values' size)."""
    if a.shape != b.shape:
        return float("inf"), False
    diff = float((a - b).abs().max()) if a.numel() else 0.0
    scale = max(1.0, float(b.abs().max()) if b.numel() else 0.0)
    return diff, diff <= TOLERANCE * scale


def _fmt(diff: float) -> str:
    return f"max |Δ| = {diff:.1e}"


def _direction_run(run: _Run, layer: int, direction: Direction, layer_input: Any,
                   flip_back: bool = True) -> tuple[Any, Any, Any]:
    """Run one direction of ``layer`` as its own module: backward on the reversed sequence."""
    torch, spec = run.torch, run.spec
    module = _single(run, layer, direction)
    index = spec.directions * layer + (1 if direction is Direction.BACKWARD else 0)
    h0 = _slot_state(run.h0, index)
    c0 = _slot_state(run.c0, index)
    backward = direction is Direction.BACKWARD
    seq = torch.flip(layer_input, dims=[0]) if backward else layer_input
    with torch.no_grad():
        out, h, c = _call(module, seq, h0, c0)
    if backward and flip_back:
        out = torch.flip(out, dims=[0])
    return out, h, c


def verify_flow(flow: Flow, seed: int = 0) -> dict[str, Check]:
    """Check every claim of a torch ``Flow`` with a real forward pass, keyed by claim id."""
    spec = flow.spec
    run = _start(spec, flow.batch, flow.seq_len, seed, flow.batch_first)
    torch = run.torch
    checks: dict[str, Check] = {}
    actual = {"input": run.raw_input, "output": run.raw_output, "h_n": run.h_n, "c_n": run.c_n}
    for item in flow.shapes:
        got = tuple(actual[item.name].shape)
        checks[f"shape:{item.name}"] = Check(
            f"{item.name} is {item.shape}", got == item.shape, f"torch: {got}"
        )
    for k, claim in enumerate(flow.slices):
        left = run.output[claim.time, :, claim.start : claim.stop]
        diff, ok = _diff(torch, left, run.h_n[claim.index])
        checks[f"slice:{k}"] = Check(claim.text, ok, _fmt(diff))
    hr = spec.output_size
    layer_inputs = [run.x] + [
        _truncated(run, layers)[0] for layers in range(1, spec.num_layers)
    ]
    for slot in flow.slots:
        layer_input = layer_inputs[slot.layer]
        _out, h, c = _direction_run(run, slot.layer, slot.direction, layer_input)
        diffs = [_diff(torch, h, run.h_n[slot.index : slot.index + 1])]
        if c is not None:
            diffs.append(_diff(torch, c, run.c_n[slot.index : slot.index + 1]))
        where = f"layer {slot.layer} {slot.direction.value}"
        checks[f"final:{slot.index}"] = Check(
            f"h_n[{slot.index}] is {where}'s final state",
            all(ok for _, ok in diffs),
            _fmt(max(d for d, _ in diffs)),
        )
        # h_0[k] enters at slot.step: one step of this direction from h_0[k] alone gives the
        # stack's output at that step.
        step = slot.step
        one, _, _ = _direction_run(run, slot.layer, slot.direction,
                                   layer_input[step : step + 1])
        stack_out = _truncated(run, slot.layer + 1)[0]
        cols = slice(0, hr) if slot.direction is Direction.FORWARD else slice(hr, 2 * hr)
        diff, ok = _diff(torch, one[0], stack_out[step, :, cols])
        checks[f"init:{slot.index}"] = Check(
            f"h_0[{slot.index}] enters {where} at t = {step}", ok, _fmt(diff)
        )
    return checks


def trace(spec: LayerSpec, batch: int, seq_len: int, seed: int = 0,
          mistake: bool = False) -> Trace:
    """Rebuild ``spec``'s stack from unidirectional single-layer modules and compare.

    Each layer's forward and backward modules both read concat(forward, backward) outputs of
    the layer below in time order; the backward one runs on the reversed sequence and its
    output is flipped back. With ``mistake`` the backward outputs are left reversed.
    """
    run = _start(spec, batch, seq_len, seed, False)
    torch = run.torch
    hr = spec.output_size
    rows: list[TraceRow] = []
    notes: list[str] = []
    layer_input = run.x
    for layer in range(spec.num_layers):
        reference = _truncated(run, layer + 1)[0]
        outputs = []
        for k, direction in enumerate(list(Direction)[: spec.directions]):
            index = spec.directions * layer + k
            out, h, c = _direction_run(run, layer, direction, layer_input,
                                       flip_back=not mistake)
            cols = slice(k * hr, (k + 1) * hr)
            out_diff, _ = _diff(torch, out, reference[:, :, cols])
            state_diff, _ = _diff(torch, h, run.h_n[index : index + 1])
            names = f"h_n[{index}]"
            if c is not None:
                state_diff = max(state_diff, _diff(torch, c, run.c_n[index : index + 1])[0])
                names += f", c_n[{index}]"
            scale = max(1.0, float(reference.abs().max()), float(run.h_n.abs().max()))
            rows.append(TraceRow(layer, direction.value, out_diff, state_diff, names,
                                 TOLERANCE * scale))
            if mistake and direction is Direction.BACKWARD and layer == 0 and seq_len > 1:
                _, reversed_ok = _diff(torch, torch.flip(out, dims=[0]), reference[:, :, cols])
                if reversed_ok:
                    notes.append(
                        "layer 0 backward: its final state matches, and its output is the real "
                        "one reversed in time: output step t holds the real step T−1−t"
                    )
            outputs.append(out)
        layer_input = torch.cat(outputs, dim=2)
    misread = "concat(forward[t], backward[T−1−t]) instead of concat(forward[t], backward[t])"
    if mistake and (note := mistake_note(rows, misread)):
        notes.append(note)
    return Trace(spec, batch, seq_len, seed, tuple(rows), tuple(notes))
