"""Real forward passes that prove what ``paramcount shapes`` and ``paramcount trace`` state.

One module per framework; each imports its framework inside functions only, so importing this
package is free. ``guard`` refuses configurations too large to run for a demonstration.
"""

from __future__ import annotations

from paramcount.errors import ConfigError
from paramcount.report import build_report
from paramcount.spec import LayerSpec

MAX_PARAMETERS = 20_000_000
"""The largest stack run for real: the flow does not depend on size, so small ones prove it."""
MAX_ACTIVATIONS = 20_000_000
"""The largest number of values in one layer's input or output sequence that is allocated."""


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
            f"--batch {batch} × --seq-len {seq_len} × width {widest} is too large to run "
            f"for real (limit {MAX_ACTIVATIONS:,} values); use a smaller batch or sequence"
        )
