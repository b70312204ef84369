"""How fast is recognition? ``conventions.recognise`` over a large state dict, in process.

The state dict looks like a real one: transformer-like blocks of linear layers and norms, with
recurrent layers (torch stacks and cells, Keras-style and Flax-style paths) scattered among them.
Prints the median time of several runs for each size and the ratio against a baseline measured
in the same run: one pass over the same dict that matches each name against one regular
expression (the least any name-based recogniser has to do). Goal: 10,000 tensors well under a
second.

    python benchmarks/recognise_speed.py [--tensors 10000 100000] [--runs 5]
"""

from __future__ import annotations

import argparse
import re
import statistics
import time
from collections.abc import Callable

from paramcount.engine import conventions
from paramcount.engine.spec import Cell, Framework, LayerSpec

_SPECS = [
    LayerSpec(Cell.LSTM, 64, 128, num_layers=2, bidirectional=True),
    LayerSpec(Cell.GRU, 32, 64, single_cell=True),
    LayerSpec(Cell.GRU, 32, 64, bidirectional=True, framework=Framework.KERAS),
    LayerSpec(Cell.LSTM, 16, 32, num_layers=2, framework=Framework.FLAX_LINEN),
    LayerSpec(Cell.RNN, 16, 32, num_layers=3, framework=Framework.ONNX),
]


def state_dict(size: int) -> dict[str, tuple[int, ...]]:
    """About ``size`` tensors: blocks of linear layers, one recurrent layer every 50 blocks."""
    shapes: dict[str, tuple[int, ...]] = {}
    block = 0
    while len(shapes) < size:
        shapes[f"blocks.{block}.attn.qkv.weight"] = (384, 128)
        shapes[f"blocks.{block}.attn.qkv.bias"] = (384,)
        shapes[f"blocks.{block}.mlp.fc1.weight"] = (512, 128)
        shapes[f"blocks.{block}.norm.weight"] = (128,)
        if block % 50 == 0:
            spec = _SPECS[(block // 50) % len(_SPECS)]
            sep = "." if spec.framework is Framework.TORCH else "/"
            for t in conventions.tensors(spec):
                shapes[f"blocks{sep}{block}{sep}rnn{sep}{t.name}"] = t.shape
        block += 1
    return shapes


def median_seconds(
    run: Callable[[dict[str, tuple[int, ...]]], object], shapes: dict[str, tuple[int, ...]],
    runs: int,
) -> float:
    """The median wall time of ``runs`` calls of ``run(shapes)``."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        run(shapes)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    """Time recognition and the one-regex baseline for each size."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tensors", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    pattern = re.compile(r"(?:.*[./])?(weight_ih|weight_hh|bias_ih|bias_hh)(?:_l[0-9]+)?")
    print(f"{'tensors':>9}  {'layers':>6}  {'recognise':>10}  {'one regex':>10}  {'ratio':>6}")
    for size in args.tensors:
        shapes = state_dict(size)
        found = conventions.recognise(shapes)
        seconds = median_seconds(conventions.recognise, shapes, args.runs)
        baseline = median_seconds(
            lambda named: [pattern.fullmatch(name) for name in named], shapes, args.runs)
        print(f"{len(shapes):>9,}  {len(found):>6}  {seconds * 1000:>8.1f} ms  "
              f"{baseline * 1000:>8.1f} ms  {seconds / baseline:>5.1f}×")


if __name__ == "__main__":
    main()
