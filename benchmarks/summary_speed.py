"""How long ``paramcount.summary(model)`` takes beside torchinfo's ``summary(model)`` (no
input) on the same live models, in the same process, on the meta device (no memory).

Models: a Hugging Face Mamba of the published 130M size (24 blocks), and a torch tagger with a
deep bidirectional LSTM stack and a tied head. Prints each tool's median time over ``--runs``
and paramcount's ratio to torchinfo, and each tool's parameter total against torch's own
``sum(p.numel() for p in model.parameters())``.

    python benchmarks/summary_speed.py [--runs 5]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import statistics
import time
import warnings
from collections.abc import Callable
from typing import Any


def models() -> dict[str, Any]:
    """The models, built on the meta device."""
    import torch
    from torch import nn
    from transformers import MambaConfig, MambaForCausalLM

    class Tagger(nn.Module):
        """An embedding, a 6-layer bidirectional LSTM with projections, a tied head."""

        def __init__(self) -> None:
            super().__init__()
            self.embed = nn.Embedding(32000, 512)
            self.encoder = nn.LSTM(512, 1024, num_layers=6, bidirectional=True,
                                   proj_size=256)
            self.head = nn.Linear(512, 32000)
            self.head.weight = self.embed.weight

    with torch.device("meta"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return {"mamba-130m (HF)": MambaForCausalLM(MambaConfig(
                    vocab_size=50280, hidden_size=768, num_hidden_layers=24)),
                "lstm tagger": Tagger()}


def timed(call: Callable[[], Any], runs: int) -> tuple[float, Any]:
    """The median seconds of ``call`` over ``runs`` calls, and its last result."""
    times, result = [], None
    for _ in range(runs):
        start = time.perf_counter()
        result = call()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def main() -> None:
    """Time both tools on every model and print the ratios."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    runs = parser.parse_args().runs
    import torchinfo

    import paramcount

    print(f"{'model':<18} {'torch total':>12} {'paramcount':>12} {'torchinfo':>12} "
          f"{'pc s':>7} {'ti s':>7} {'pc/ti':>6}")
    for name, model in models().items():
        truth = sum(p.numel() for p in model.parameters())
        ours_s, ours = timed(lambda m=model: paramcount.summary(m), runs)
        with contextlib.redirect_stdout(io.StringIO()):
            theirs_s, theirs = timed(lambda m=model: torchinfo.summary(m, verbose=0), runs)
        print(f"{name:<18} {truth:>12,} {ours.total:>12,} {theirs.total_params:>12,} "
              f"{ours_s:>7.3f} {theirs_s:>7.3f} {ours_s / theirs_s:>6.2f}")


if __name__ == "__main__":
    main()
