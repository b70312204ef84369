"""How long ``paramcount.summary(model)`` takes beside torchinfo's ``summary(model)`` (no
input) on the same live models, in the same process, on the meta device (no memory), and how
it grows with the number of modules.

Models: a deep stack (a 24-layer LSTM), a wide one (``--wide`` Linear children of one
Sequential), a torch tagger with a deep bidirectional LSTM stack and a tied head, and (with
``--hf``) a Hugging Face Mamba of the published 130M size. For each: each tool's best time over
``--runs``, paramcount's ratio to torchinfo for ``summary(model)`` (the model read and counted;
its layers are recognised when first asked for) and for ``summary(model).recurrent`` (read and
recognised), and each tool's total against torch's own ``sum(p.numel() for p in
model.parameters())``. Then the growth: ``summary(model)`` and ``.recurrent`` on 12,500 to
``--most`` Linear children, in microseconds per module and as the ratio of each size's time to
the one before (2.00 is linear when the size doubles).

    python benchmarks/summary_speed.py [--runs 5] [--wide 10000] [--most 100000] [--hf]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import time
import warnings
from collections.abc import Callable
from functools import partial
from typing import Any


def models(wide: int, hf: bool) -> dict[str, Any]:
    """The models, built on the meta device."""
    import torch
    from torch import nn

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
        built = {"deep: 24-layer LSTM": nn.LSTM(256, 256, num_layers=24),
                 f"wide: {wide:,} Linear": nn.Sequential(*(nn.Linear(4, 4)
                                                           for _ in range(wide))),
                 "lstm tagger": Tagger()}
        if hf:
            from transformers import MambaConfig, MambaForCausalLM

            built["mamba-130m (HF)"] = MambaForCausalLM(MambaConfig(
                vocab_size=50280, hidden_size=768, num_hidden_layers=24))
        return built


def timed(call: Callable[[], Any], runs: int) -> tuple[float, Any]:
    """The best seconds of ``call`` over ``runs`` calls (the least disturbed by other work on
    the machine), and its last result."""
    times, result = [], None
    for _ in range(runs):
        start = time.perf_counter()
        result = call()
        times.append(time.perf_counter() - start)
    return min(times), result


def recognised(model: Any) -> Any:
    """``summary(model)`` with its layers recognised."""
    import paramcount

    return paramcount.summary(model).recurrent


def versus_torchinfo(runs: int, wide: int, hf: bool) -> None:
    """Both tools on every model: times, ratios and totals."""
    import torchinfo

    import paramcount

    print(f"{'model':<22} {'torch total':>12} {'paramcount':>12} {'torchinfo':>12} "
          f"{'ti ms':>9} {'pc ms':>9} {'pc/ti':>6} {'+recog ms':>10} {'/ti':>6}")
    for name, model in models(wide, hf).items():
        truth = sum(p.numel() for p in model.parameters())
        n = runs if "wide" not in name else max(1, runs // 3)
        ours_s, ours = timed(partial(paramcount.summary, model), n)
        full_s, _ = timed(partial(recognised, model), n)
        with contextlib.redirect_stdout(io.StringIO()):
            theirs_s, theirs = timed(partial(torchinfo.summary, model, verbose=0), n)
        print(f"{name:<22} {truth:>12,} {ours.total:>12,} {theirs.total_params:>12,} "
              f"{theirs_s * 1e3:>9.2f} {ours_s * 1e3:>9.2f} {ours_s / theirs_s:>6.2f} "
              f"{full_s * 1e3:>10.2f} {full_s / theirs_s:>6.2f}")


def growth(most: int) -> None:
    """``summary(model)`` and its recognition on ever more modules: linear or not."""
    import torch
    from torch import nn

    import paramcount

    print(f"\n{'modules':>8} {'summary s':>10} {'us/module':>10} {'x prev':>7} "
          f"{'+recog s':>9} {'us/module':>10} {'x prev':>7}")
    size, before = 12_500, None
    while size <= most:
        with torch.device("meta"):
            model = nn.Sequential(*(nn.Linear(4, 4) for _ in range(size)))
        read_s, result = timed(partial(paramcount.summary, model), 1)
        recog_s, _ = timed(partial(getattr, result, "recurrent"), 1)
        grew = ("" if before is None else f"{read_s / before[0]:>7.2f}",
                "" if before is None else f"{recog_s / before[1]:>7.2f}")
        print(f"{size:>8,} {read_s:>10.2f} {read_s / size * 1e6:>10.1f} {grew[0]:>7} "
              f"{recog_s:>9.2f} {recog_s / size * 1e6:>10.1f} {grew[1]:>7}")
        before, size = (read_s, recog_s), size * 2
        del model, result


def main() -> None:
    """Time both tools on every model and print the ratios, then the growth."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--wide", type=int, default=10_000)
    parser.add_argument("--most", type=int, default=100_000)
    parser.add_argument("--hf", action="store_true", help="also a Hugging Face Mamba")
    args = parser.parse_args()
    versus_torchinfo(args.runs, args.wide, args.hf)
    growth(args.most)


if __name__ == "__main__":
    main()
