"""Long runs of every character class, fed to every reader of pasted text, timed.

A pattern that backtracks over every start inside a long run (``(\\w+)\\s*\\(`` on a word of
40,000 letters took 14 s) makes the work grow with the square of the run; every reader here
must grow linearly. Each case is a run of one character class, alone, inside a line of code,
after each printer's header (so that printer's reader reads it), and one very long line of
mixed text; each goes through ``paramcount read``'s reader and the load-error reader.

    python -m tests.long_inputs 200000     # prints the slowest cases and their times
"""

from __future__ import annotations

import contextlib
import string
import sys
import time
from collections.abc import Iterator

CLASSES = {
    "letters": "a", "capitals": "A", "digits": "7", "underscore": "_", "space": " ",
    "tab": "\t", "accented": "é", "box": "│", "heavy-box": "┃", "rule": "─", "branch": "├─",
    "ellipsis": "…", "word-space": "ab ", "digit-comma": "1,", "call": "f(", "index": "a[0]",
    "shape": "(None, ", "dotted": "a.", "quote": "'a", "dash": "-1",
    **{f"char-{ord(c)}": c for c in string.punctuation},
}

QUESTION = "import torch.nn as nn\nlstm = nn.LSTM(10, 20, num_layers=2)\n"
"""Code whose layer a number stated in the question's prose is checked against."""

HEADERS = {
    "keras2": ('Model: "m"\n' + "_" * 65 + "\n Layer (type)                Output Shape"
               "              Param #   \n" + "=" * 65 + "\n"),
    "keras3": ('Model: "m"\n┏━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━┳━━━━━━━━━┓\n'
               "┃ Layer (type)        ┃ Output Shape  ┃ Param # ┃\n"
               "┡━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━╇━━━━━━━━━┩\n│ "),
    "torchinfo": ("=" * 60 + "\nLayer (type:depth-idx)                   Param #\n" + "=" * 60
                  + "\nNet                                      --\n├─"),
    "torchsummary": ("-" * 64 + "\n        Layer (type)               Output Shape"
                     "         Param #\n" + "=" * 64 + "\n"),
    "repr": "Net(\n  (lstm): LSTM(",
    "dump": "lstm.weight_ih_l0 torch.Size([",
    "code": "import torch.nn as nn\nlstm = nn.LSTM(",
    "error": ("Error(s) in loading state_dict for Net:\n\tMissing key(s) in state_dict: "
              '"'),
    "pipe-table": "| name | #elements or shape |\n|:---|:---|\n| ",
    "bordered": "+------+--------+\n| name | params |\n+======+========+\n| ",
    "box-table": "│ name │ params │\n├──────┼────────┤\n│ ",
    "aligned": "Layer    Type    Param #\n" + "=" * 40 + "\n",
    "literal": "{'a.weight': torch.Size([",
    "tree": "{'params': {'",
    "ptflops": "Net(\n  19.47 k, 100.000% Params, 3.93 KMac, 100.000% MACs, \n  (gru): GRU(",
}


def cases(size: int) -> Iterator[tuple[str, str]]:
    """(name, text) of every long input of about ``size`` characters."""
    for name, unit in CLASSES.items():
        run = unit * (size // len(unit))
        yield name, run
        yield f"{name} in code", f"x = {run}\n"
        yield f"{name} in a question", f"{QUESTION}Why does it hold {run} parameters?\n"
    for printer, header in HEADERS.items():
        for name in ("letters", "digits", "space", "box", "shape", "call", "char-40",
                     "char-91", "char-34"):
            unit = CLASSES[name]
            yield f"{name} after {printer}", header + unit * (size // len(unit))
    mixed = "".join(string.printable[(i * 7) % 94] for i in range(size))
    yield "one long mixed line", mixed.replace("\n", " ")


def run(text: str) -> float:
    """Seconds ``read`` and the load-error reader take on ``text`` (errors are answers)."""
    from paramcount.errors import ParamcountError
    from paramcount.reading.messages.load_error import analyse
    from paramcount.reading.pipeline import read

    start = time.perf_counter()
    for reader in (read, analyse):
        with contextlib.suppress(ParamcountError):
            reader(text)
    return time.perf_counter() - start


def main(size: int) -> list[tuple[float, str]]:
    """Time every case; the slowest first."""
    return sorted(((run(text), name) for name, text in cases(size)), reverse=True)


if __name__ == "__main__":
    size = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    timed = main(size)
    print(f"{len(timed)} inputs of {size:,} characters, {sum(t for t, _ in timed):.1f} s in all")
    for seconds, name in timed[:10]:
        print(f"  {seconds:8.3f} s  {name}")
