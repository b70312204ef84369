"""Real forward passes that prove what ``paramcount shapes`` and ``paramcount trace`` state.

One module per framework; each imports its framework inside functions only, so importing this
package is free. ``guard`` refuses configurations too large to run for a demonstration.

The flow these runs prove does not depend on size, so small runs prove it; ``guard`` bounds a
run's work so that it finishes in seconds, and says which option to lower:

- parameters (``MAX_PARAMETERS``) and the values of one layer's input or output sequence
  (``MAX_ACTIVATIONS``), for memory;
- layers × directions (``MAX_LAYER_RUNS``): each is built and run on its own;
- time steps × layers × directions (``MAX_STEPS``): the steps run one after another, some
  milliseconds each in Keras, tens of microseconds in PyTorch;
- batch × time steps × parameters (``MAX_WORK``): the multiply-adds of one pass.

``--verify`` builds every layer of a stack too, so its depth is bounded the same way
(``MAX_VERIFIED_LAYERS``, :func:`check_depth`).
"""

from __future__ import annotations

from paramcount.engine.report import build_report
from paramcount.engine.spec import Framework, LayerSpec
from paramcount.errors import ConfigError

MAX_PARAMETERS = 20_000_000
"""The largest stack run for real: the flow does not depend on size, so small ones prove it."""
MAX_ACTIVATIONS = 20_000_000
"""The largest number of values in one layer's input or output sequence that is allocated."""
MAX_LAYER_RUNS = 32
"""The most layer directions (layers × directions) built and run one by one."""
MAX_STEPS = {Framework.TORCH: 20_000, Framework.KERAS: 200}
"""The most sequential steps (time steps × layers × directions) run, per framework."""
MAX_WORK = 2_000_000_000
"""The most multiply-adds (batch × time steps × parameters) of one forward pass."""
MAX_VERIFIED_LAYERS = 256
"""The most layers × directions ``--verify`` builds (an ONNX node checked and run, a Keras
layer built, each in milliseconds): the tensors it checks follow rules that do not depend on
depth."""


def check_depth(num_layers: int, bidirectional: bool, limit: int, work: str, purpose: str,
                proven: str) -> str:
    """Refuse (exit 2) more than ``limit`` layers × directions, each built for real; return
    the depth as the options say it (``--layers 4 × 2 directions``)."""
    runs = num_layers * (2 if bidirectional else 1)
    layers = f"--layers {num_layers:,}" + (" × 2 directions" if bidirectional else "")
    if runs > limit:
        raise ConfigError(
            f"{layers} = {runs:,} layers to {work} is more than {purpose} needs (limit "
            f"{limit:,}); {proven} does not depend on depth, so use fewer --layers"
        )
    return layers


def guard(spec: LayerSpec, batch: int, seq_len: int) -> None:
    """Refuse (exit 2) to allocate a configuration too large for a demonstration run."""
    if spec.single_cell:
        raise ConfigError(
            "--cell: a single-step cell has no sequence, no h_n and no layers to trace; "
            "drop --cell"
        )
    for name, value in (("--batch", batch), ("--seq-len", seq_len)):
        if value <= 0:
            raise ConfigError(f"{name} {value} must be a positive integer")
    total = build_report(spec).total
    if total > MAX_PARAMETERS:
        raise ConfigError(
            f"{total:,} parameters is too large to run for real (limit "
            f"{MAX_PARAMETERS:,}); the flow does not depend on size, so run the same "
            "configuration with smaller --input / --hidden"
        )
    widest = max(spec.input_size, 2 * spec.hidden_size)
    if batch * seq_len * widest > MAX_ACTIVATIONS:
        raise ConfigError(
            f"--batch {batch:,} × --seq-len {seq_len:,} × width {widest:,} is too large to run "
            f"for real (limit {MAX_ACTIVATIONS:,} values); use a smaller batch or sequence"
        )
    runs = spec.num_layers * spec.directions
    layers = check_depth(spec.num_layers, spec.bidirectional, MAX_LAYER_RUNS,
                         "build and run", "a demonstration", "the flow")
    limit = MAX_STEPS[spec.framework]
    if seq_len * runs > limit:
        raise ConfigError(
            f"--seq-len {seq_len:,} × {layers} = {seq_len * runs:,} sequential steps is too slow "
            f"to run in {spec.framework.display_name} (limit {limit:,}); the flow does not "
            f"depend on length, so use --seq-len {max(1, limit // runs):,} or less"
        )
    if batch * seq_len * total > MAX_WORK:
        raise ConfigError(
            f"--batch {batch:,} × --seq-len {seq_len:,} × {total:,} parameters = "
            f"{batch * seq_len * total:,} multiply-adds is too much to run in seconds (limit "
            f"{MAX_WORK:,}); use a smaller --batch, --seq-len, --hidden or --input"
        )
