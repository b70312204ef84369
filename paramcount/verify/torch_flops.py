"""Measure a torch layer's matmul FLOPs with ``FlopCounterMode`` on the meta device.

On the meta device ``nn.LSTM`` / ``nn.GRU`` / ``nn.RNN`` run their decomposed reference
implementation, one ``addmm`` per product and time step (``mm`` for ``weight_hr``), so the FLOP
counter sees every product without allocating any value. On CPU the fused oneDNN kernel reports
0 FLOPs unless ``torch.backends.mkldnn.flags(enabled=False)``: should the meta device ever report
none (a torch that fuses there too), the layer is run once more on CPU with oneDNN disabled, one
sequence, if its weights are small enough to allocate. Each time step of each direction is one
Python-level call, so a long pass is measured over at most STEP_BUDGET steps × layers ×
directions and scaled exactly by its sample-steps.
"""

from __future__ import annotations

import warnings
from typing import Any

from paramcount.analysis.compute import Compute
from paramcount.verify import torch_backend
from paramcount.verify.flops import FlopCheck

STEP_BUDGET = 256
"""The most time steps × layers × directions run for one measurement (about a second)."""
CPU_PARAMETERS = 20_000_000
"""The largest layer whose weights the CPU fallback allocates (80 MB as fp32)."""


def _run(torch: Any, module: Any, compute: Compute, seq_len: int, batch: int,
         lengths: tuple[int, ...] | None, device: str) -> tuple[int, dict[str, int]]:
    """The FLOP counter's total and per-operator counts for one forward pass on ``device``
    (on CPU with oneDNN disabled, so that the products are not hidden in a fused kernel)."""
    from torch.utils.flop_counter import FlopCounterMode

    spec = compute.spec
    with warnings.catch_warnings():
        # Toggling oneDNN tells, once, that TF32 on oneDNN needs an Intel GPU: not ours.
        warnings.filterwarnings("ignore", message=".*TF32 acceleration on top of oneDNN",
                                category=UserWarning)
        with (torch.backends.mkldnn.flags(enabled=False),
              FlopCounterMode(display=False) as counter, torch.no_grad()):
            if spec.single_cell:
                x = torch.zeros(batch, spec.input_size, device=device)
                state = None
                for _ in range(seq_len):
                    state = module(x, state)
            elif lengths is not None:
                from torch.nn.utils.rnn import pack_padded_sequence

                x = torch.zeros(max(lengths), len(lengths), spec.input_size, device=device)
                module(pack_padded_sequence(x, torch.tensor(lengths), enforce_sorted=False))
            else:
                module(torch.zeros(seq_len, batch, spec.input_size, device=device))
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
    device = "meta"
    measured, ops = _run(torch, module, compute, seq_len, batch, lengths, device)
    parameters = sum(p.numel() for p in module.parameters())
    if measured == 0 and compute.matmul_flops and parameters <= CPU_PARAMETERS:
        device, batch, lengths, steps = "cpu", 1, None, seq_len
        module = module.to_empty(device="cpu")
        measured, ops = _run(torch, module, compute, seq_len, batch, lengths, device)
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
        device=device,
    )
