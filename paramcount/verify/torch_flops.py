"""Measure a torch layer's matmul FLOPs with ``FlopCounterMode`` on the meta device.

On the meta device ``nn.LSTM`` / ``nn.GRU`` / ``nn.RNN`` run their decomposed reference
implementation, one ``addmm`` per product and time step (``mm`` for ``weight_hr``), so the FLOP
counter sees every product without allocating any value. (On CPU the fused oneDNN kernel reports
0 FLOPs unless ``torch.backends.mkldnn.flags(enabled=False)``; the meta device needs neither a
kernel nor memory.) Each time step of each direction is one Python-level call, so a long pass is
measured over at most STEP_BUDGET steps × directions and scaled exactly by its sample-steps.
"""

from __future__ import annotations

from typing import Any

from paramcount.compute import Compute
from paramcount.verify import torch_backend
from paramcount.verify.flops import FlopCheck

STEP_BUDGET = 256
"""The most time steps × layers × directions run for one measurement (about a second)."""


def _run(torch: Any, module: Any, compute: Compute, seq_len: int, batch: int,
         lengths: tuple[int, ...] | None) -> tuple[int, dict[str, int]]:
    """The FLOP counter's total and per-operator counts for one forward pass on meta."""
    from torch.utils.flop_counter import FlopCounterMode

    spec = compute.spec
    with FlopCounterMode(display=False) as counter, torch.no_grad():
        if spec.single_cell:
            x = torch.zeros(batch, spec.input_size, device="meta")
            state = None
            for _ in range(seq_len):
                state = module(x, state)
        elif lengths is not None:
            from torch.nn.utils.rnn import pack_padded_sequence

            x = torch.zeros(max(lengths), len(lengths), spec.input_size, device="meta")
            module(pack_padded_sequence(x, torch.tensor(lengths), enforce_sorted=False))
        else:
            module(torch.zeros(seq_len, batch, spec.input_size, device="meta"))
    ops = {str(op): int(n) for op, n in counter.get_flop_counts().get("Global", {}).items()}
    return int(counter.get_total_flops()), ops


def measure(compute: Compute) -> FlopCheck:
    """Run ``compute``'s layer under the FLOP counter and set its matmul FLOPs beside ours."""
    torch = torch_backend.load()
    spec = compute.spec
    module = torch_backend.module(spec)
    per_step = spec.num_layers * spec.directions
    lengths = compute.lengths if compute.packed else None
    if lengths is not None and max(lengths) * per_step <= STEP_BUDGET:
        seq_len, batch, steps = max(lengths), len(lengths), sum(lengths)
    else:
        lengths = None
        seq_len = max(1, min(compute.seq_len, STEP_BUDGET // per_step))
        batch = compute.batch if compute.lengths is None or not compute.packed else 1
        steps = seq_len * batch
    measured, ops = _run(torch, module, compute, seq_len, batch, lengths)
    return FlopCheck(
        framework=spec.framework,
        version=torch_backend.version(),
        counted=compute.matmul_flops,
        measured=measured,
        measured_seq_len=seq_len,
        measured_batch=batch,
        measured_lengths=lengths,
        measured_steps=steps,
        steps=compute.steps,
        by_op=ops,
    )
