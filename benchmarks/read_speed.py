"""Speed of ``paramcount read`` on large pastes, as ratios against a bare interpreter's start.

    python benchmarks/read_speed.py [--runs 7]

Inputs, written to a temporary directory: a 5,000-line Python source dense with models (a model
class or a Keras builder every ten lines: 500 models), the same source with its indentation
lost, a 5,000-line training script (11 models among loaders, metrics and training loops, as
model code usually comes), a 1,000-row Keras 3 summary, and a 1,000-row Markdown table in
fvcore's layout (the generic table reader's). Each is read by the whole command
(``paramcount read FILE --json``) and by the library call ``paramcount.reading.pipeline.read``
alone; the baseline is ``python -c pass`` timed in the same run. Runs are interleaved and
medians reported, because machines are noisy (after one warm-up run of each, which writes the
bytecode an installation has); beside the wall-clock ratio, the ratio of CPU time (the child's
user + system time, or the process' own for ``read()``), which a machine shared with other jobs
disturbs much less. The last row, ``ast.parse`` of the dense source alone, is the floor of any
reading of it: CPython's parser, before paramcount looks at a node.
"""

from __future__ import annotations

import argparse
import ast
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def _whole_blocks(out: list[str], lines: int) -> str:
    """The first ``lines`` lines of ``out``, cut back to the last blank line (a whole block)."""
    end = lines
    while end > 0 and out[end - 1]:
        end -= 1
    return "\n".join(out[:end]) + "\n"


def _keras_builder(index: int) -> list[str]:
    """A function that builds a Keras Sequential stack (a bidirectional GRU, an LSTM)."""
    return [f"def build_{index}(units={32 + index % 5}):",
            "    model = Sequential()",
            "    model.add(layers.Input(shape=(None, 28)))",
            "    model.add(layers.Bidirectional(layers.GRU(units, return_sequences=True)))",
            "    model.add(layers.LSTM(units))",
            "    model.add(layers.Dense(1))",
            "    return model",
            ""]


def source(lines: int) -> str:
    """A Python file of about ``lines`` lines that builds torch and Keras models."""
    out = ["import torch.nn as nn", "from tensorflow.keras import layers, Sequential",
           "HIDDEN = 256", ""]
    block = 0
    while len(out) < lines:
        out += [f"class Block{block}(nn.Module):",
                f"    def __init__(self, width={64 + block % 7}, hidden=HIDDEN):",
                "        super().__init__()",
                "        # an encoder and a head",
                "        self.embedding = nn.Embedding(10000, width)",
                "        self.lstm = nn.LSTM(width, hidden, num_layers=2, bidirectional=True)",
                "        self.norm = nn.LayerNorm(hidden * 2)",
                "        self.head = nn.Linear(hidden * 2, 10)",
                "",
                "    def forward(self, x):",
                "        return self.head(self.norm(self.lstm(self.embedding(x))[0]))",
                "",
                *_keras_builder(block)]
        block += 1
    return _whole_blocks(out, lines)


def training_script(lines: int) -> str:
    """A training script of about ``lines`` lines, as model code usually comes: a few model
    classes and builders among data loading, metrics, training loops and plotting."""
    out = ["import argparse", "import json", "import os", "import numpy as np", "import torch",
           "import torch.nn as nn", "from tensorflow.keras import layers, Sequential", "",
           "HIDDEN = 256", "VOCAB = 20000", ""]
    part = 0
    while len(out) < lines:
        if part % 20 == 0:
            out += [f"class Tagger{part}(nn.Module):",
                    f"    def __init__(self, vocab=VOCAB, width={64 + part % 7}, "
                    "hidden=HIDDEN, tags=17):",
                    "        super().__init__()",
                    "        self.embedding = nn.Embedding(vocab, width)",
                    "        self.lstm = nn.LSTM(width, hidden, num_layers=2, "
                    "bidirectional=True, batch_first=True)",
                    "        self.head = nn.Linear(hidden * 2, tags)",
                    "",
                    "    def forward(self, x):",
                    "        return self.head(self.lstm(self.embedding(x))[0])",
                    ""]
        elif part % 20 == 10:
            out += _keras_builder(part)
        else:
            out += [f"class Loader{part}:",
                    f'    """Batches of the {part}th dataset, shuffled each epoch."""',
                    "",
                    "    def __init__(self, root, batch_size=32, shuffle=True):",
                    "        self.root = root",
                    "        self.batch_size = batch_size",
                    "        self.shuffle = shuffle",
                    "        with open(os.path.join(root, 'index.json')) as handle:",
                    "            self.items = json.load(handle)",
                    "",
                    "    def __len__(self):",
                    "        return (len(self.items) + self.batch_size - 1) // self.batch_size",
                    "",
                    "    def __iter__(self):",
                    "        order = np.random.permutation(len(self.items)) if self.shuffle "
                    "else range(len(self.items))",
                    "        batch = []",
                    "        for index in order:",
                    "            batch.append(self.items[index])",
                    "            if len(batch) == self.batch_size:",
                    "                yield self.collate(batch)",
                    "                batch = []",
                    "        if batch:",
                    "            yield self.collate(batch)",
                    "",
                    "    def collate(self, batch):",
                    "        width = max(len(item['tokens']) for item in batch)",
                    "        tokens = np.zeros((len(batch), width), dtype=np.int64)",
                    "        for row, item in enumerate(batch):",
                    "            tokens[row, :len(item['tokens'])] = item['tokens']",
                    "        return torch.from_numpy(tokens), [item['label'] for item in batch]",
                    "",
                    f"def accuracy_{part}(predicted, expected, ignore=-100):",
                    "    mask = expected != ignore",
                    "    if not mask.any():",
                    "        return 0.0",
                    "    right = (predicted.argmax(-1) == expected) & mask",
                    "    return float(right.sum()) / float(mask.sum())",
                    "",
                    f"def train_{part}(model, loader, optimizer, epochs=10, log_every=100):",
                    "    history = {'loss': [], 'accuracy': []}",
                    "    for epoch in range(epochs):",
                    "        for step, (tokens, labels) in enumerate(loader):",
                    "            optimizer.zero_grad()",
                    "            scores = model(tokens)",
                    "            loss = torch.nn.functional.cross_entropy(scores.flatten(0, 1), "
                    "torch.tensor(labels).flatten())",
                    "            loss.backward()",
                    "            optimizer.step()",
                    "            if step % log_every == 0:",
                    "                history['loss'].append(loss.item())",
                    "                print(f'epoch {epoch} step {step}: {loss.item():.4f}')",
                    "    return history",
                    ""]
        part += 1
    return _whole_blocks(out, lines)


def summary(rows: int) -> str:
    """A Keras 3 ``model.summary()`` table with ``rows`` layer rows."""
    top = "┏" + "━" * 33 + "┳" + "━" * 24 + "┳" + "━" * 15 + "┓"
    head = "┃ Layer (type)                    ┃ Output Shape           ┃       Param # ┃"
    rule = "┡" + "━" * 33 + "╇" + "━" * 24 + "╇" + "━" * 15 + "┩"
    sep = "├" + "─" * 33 + "┼" + "─" * 24 + "┼" + "─" * 15 + "┤"
    out = ['Model: "sequential"', top, head, rule]
    total = 0
    width = 28
    for index in range(rows):
        if index % 2 == 0:
            name, kind, params, width = f"lstm_{index}", "LSTM", 4 * 64 * (width + 64 + 1), 64
        else:
            name, kind, params, width = f"dense_{index}", "Dense", width * 32 + 32, 32
        total += params
        cell = f"{name} ({kind})"
        out += [f"│ {cell:<31} │ {f'(None, 10, {width})':<22} │ {params:>13,} │", sep]
    out[-1] = "└" + "─" * 33 + "┴" + "─" * 24 + "┴" + "─" * 15 + "┘"
    out += [f" Total params: {total:,} ({total * 4 / 1024:.2f} KB)"]
    return "\n".join(out) + "\n"


def generic_table(rows: int) -> str:
    """A Markdown table of ``rows`` tensors as fvcore's ``parameter_count_table`` lays it out
    (read by the generic table reader): a module row over its weight and bias rows."""
    total = rows // 3 * (8 * 16 + 8)
    out = ["| name | #elements or shape |", "|:-----|:-----|", f"| model | {total / 1e3:.1f}K |"]
    for index in range(rows // 3):
        out += [f"| fc{index} | 0.1K |", f"| fc{index}.weight | (8, 16) |",
                f"| fc{index}.bias | (8,) |"]
    return "\n".join(out) + "\n"


def _children() -> float:
    """CPU seconds (user + system) the finished child processes have used so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    """Write the inputs, time each reading, print medians and ratios."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    script = shutil.which("paramcount", path=os.path.dirname(sys.executable))
    command = [script] if script else [sys.executable, "-m", "paramcount"]
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        code = source(5000)
        flat = "\n".join(line.strip() for line in code.splitlines()) + "\n"
        table = summary(1000)
        inputs = {"5,000-line source": code, "5,000 lines, indentation lost": flat,
                  "5,000-line training script": training_script(5000),
                  "1,000-row Keras summary": table,
                  "1,000-row generic table (fvcore's layout)": generic_table(1000)}
        paths = {}
        for index, (name, text) in enumerate(inputs.items()):
            paths[name] = directory / f"input{index}.txt"
            paths[name].write_text(text)
        from paramcount.reading.pipeline import read

        cases = {"python -c pass": [sys.executable, "-c", "pass"]}
        cases.update({f"paramcount read ({name})": [*command, "read", str(path), "--json"]
                      for name, path in paths.items()})
        # what a user's installation has: bytecode written once, then loaded
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        for argv in cases.values():
            subprocess.run(argv, stdout=subprocess.DEVNULL, check=True, env=env)
        times: dict[str, list[tuple[float, float]]] = {name: [] for name in cases}
        library: dict[str, list[tuple[float, float]]] = {name: [] for name in inputs}
        floor: list[tuple[float, float]] = []
        for _ in range(args.runs):
            for name, argv in cases.items():
                start, cpu = time.perf_counter(), _children()
                subprocess.run(argv, stdout=subprocess.DEVNULL, check=True, env=env)
                times[name].append((time.perf_counter() - start, _children() - cpu))
            for name, text in inputs.items():
                start, cpu = time.perf_counter(), time.process_time()
                answer = read(text)
                library[name].append((time.perf_counter() - start, time.process_time() - cpu))
                assert answer.models
            start, cpu = time.perf_counter(), time.process_time()
            ast.parse(code)  # the floor of reading code: CPython's own parser, nothing else
            floor.append((time.perf_counter() - start, time.process_time() - cpu))
        bare = [statistics.median(v[k] for v in times["python -c pass"]) for k in (0, 1)]
        print(f"{args.runs} interleaved runs, medians; command: {' '.join(command)}")
        print(f"  {'':<52} {'wall':>8}     {'× bare':>6}  {'CPU':>8}     {'× bare':>6}")
        rows = [*times.items(), *((f"read() in-process: {n}", v) for n, v in library.items()),
                ("ast.parse() alone: 5,000-line source", floor)]
        for name, values in rows:
            wall, cpu = (statistics.median(v[k] for v in values) for k in (0, 1))
            print(f"  {name:<52} {wall * 1000:8.1f} ms  {wall / bare[0]:6.1f}×  "
                  f"{cpu * 1000:8.1f} ms  {cpu / bare[1]:6.1f}×")


if __name__ == "__main__":
    main()
