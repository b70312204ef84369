"""docs/torchinfo.md: torchinfo's ``summary`` and ``paramcount.summary`` on the same models,
each printed by the real tool when the page is written.

``python -m tests.torchinfo_side`` writes the page; tests/test_torchinfo_side.py writes it
afresh and compares, so every number on it is what the installed torchinfo prints now.
"""

from __future__ import annotations

import contextlib
import io
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "torchinfo.md"

MODEL = '''\
import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(1000, 64)
        self.encoder = nn.LSTM(64, 64, num_layers=2, bidirectional=True, proj_size=32,
                               batch_first=True)
        self.head = nn.Linear(64, 1000)
        self.head.weight = self.embed.weight  # tied to the embedding

    def forward(self, tokens, lengths):
        x = self.embed(tokens)
        packed = pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False)
        out, _ = self.encoder(packed)
        out, _ = pad_packed_sequence(out, batch_first=True)
        return self.head(out)

model = Tagger()
tokens, lengths = torch.zeros(2, 7, dtype=torch.long), torch.tensor([7, 3])
'''
"""The model both tools are given: tied weights, a packed batch of lengths 7 and 3."""


ROWS = [
    ("", "torchinfo `summary(model)`", "`paramcount.summary(model)`"),
    ("---", "---", "---"),
    ("input", "none for counts; one (and a forward that runs on it) for shapes and mult-adds",
     "none; the model is never run"),
    ("tied / shared weights", "counted in every module that holds them",
     "once, the other names listed"),
    ("trainable, frozen, buffers", "trainable and non-trainable",
     "trainable, frozen and buffers apart"),
    ("recurrent layers", "class name and count",
     "configuration, naive guess against the truth, tensor check, the command that explains "
     "it"),
    ("frameworks", "torch", "torch, Keras (3 and tf-keras), Flax, Hugging Face models"),
    ("in Jupyter", "text", "HTML tables ([summary.ipynb](summary.ipynb))"),
]
TABLE = "\n".join("| " + " | ".join(row) + " |" for row in ROWS)
"""What each tool needs and gives, as the page's closing table."""


def _model() -> dict[str, Any]:
    """The namespace of ``MODEL`` run (the model and its example input)."""
    namespace: dict[str, Any] = {}
    exec(compile(MODEL, "<docs/torchinfo.md>", "exec"), namespace)  # our own source
    return namespace


def _cut(text: str, before: str) -> str:
    """``text`` up to the line ``before`` (a long table left out, said where)."""
    head, _, _ = text.partition(f"\n{before}\n")
    return head.rstrip("\n") + f"\n\n{before}\n  … every tensor, its shape, dtype, count and kind"


def page() -> str:
    """The whole page, every output printed by the tools themselves."""
    import torchinfo

    import paramcount
    from paramcount.cli.main import run

    space = _model()
    model, tokens, lengths = space["model"], space["tokens"], space["lengths"]
    true_total = sum(p.numel() for p in model.parameters())
    bare = str(torchinfo.summary(model, verbose=0))
    ran = torchinfo.summary(model, input_data=[tokens, lengths], verbose=0,
                            col_names=("output_size", "num_params", "mult_adds"))
    ours = paramcount.summary(model)
    lstm_row = next(s for s in ran.summary_list if type(s.module).__name__ == "LSTM")
    linear_row = next(s for s in ran.summary_list if type(s.module).__name__ == "Linear")
    with contextlib.redirect_stdout(io.StringIO()) as out:
        run(["compute", "lstm", "-i", "64", "-H", "64", "-L", "2", "--bidir", "--proj", "32",
             "--lengths", "7,3", "--json"])
    import json

    compute = json.loads(out.getvalue())
    lstm_macs = compute["compute"]["macs"]
    linear_macs = 2 * 7 * 64 * 1000

    class Broken(type(model)):  # type: ignore[misc]
        """The same model, its forward needing what the example input is not."""

        def forward(self, *args: Any) -> Any:
            raise NotImplementedError("the forward needs a batch object")

    broken = Broken()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        try:
            torchinfo.summary(broken, input_data=[tokens, lengths], verbose=0)
            refused = "(torchinfo printed a summary)"
        except Exception as error:  # what torchinfo raises is the point
            refused = f"{type(error).__name__}: {str(error).splitlines()[0]}"
    fine = paramcount.summary(broken)
    shared = model.embed.weight.numel()  # the claims below, held to what was printed
    assert ran.total_params == true_total + shared and ours.total == fine.total == true_total
    assert list(lstm_row.output_size) == [10, 64] and lstm_row.macs > lstm_macs
    return f"""# paramcount beside torchinfo

torchinfo's `summary(model)` is what people reach for in a notebook. Here both tools are given
the same model: a tagger whose output layer is tied to its embedding and whose LSTM reads a
packed batch (lengths 7 and 3). Every output below is printed by torchinfo {torchinfo.__version__}
and by paramcount when this page is written (`python -m tests.torchinfo_side`;
`tests/test_torchinfo_side.py` checks the page against a fresh run).

```python
{MODEL.rstrip()}
```

## Without an input

torchinfo lists each module's count and nothing more:

```text
{bare.rstrip()}
```

`paramcount.summary(model)` (the same as `print(paramcount.summary(model))`):

```text
{_cut(ours.to_text().rstrip(), "Tensors")}
```

- **Tied weights.** `head.weight` is `embed.weight`: the model has
  `sum(p.numel() for p in model.parameters())` = **{true_total:,}** parameters. torchinfo's
  total is **{ran.total_params:,}**: the shared {shared:,}-value matrix counted in both
  modules. paramcount's is
  **{ours.total:,}**, the tensor listed once, `also head.weight`.
- **The recurrent layer explained.** torchinfo says `LSTM` and a count; paramcount gives its
  configuration (`{ours.recurrent[0].description}`), why it is not twice the one-direction
  count (the naive guess column), every tensor checked against the formula engine, and the
  command that explains it all: `{ours.recurrent[0].command}`.

## With an input

torchinfo needs an input to show shapes and mult-adds, and runs the model to get them:

```text
{str(ran).rstrip()}
```

- **Packed sequences.** The LSTM's output shape is `{list(lstm_row.output_size)}`: the packed
  data of 7 + 3 = 10 real time steps, not a `[batch, time, features]` tensor.
- **A fused kernel counted by formula.** torchinfo gives the LSTM
  {lstm_row.macs:,} mult-adds. `paramcount compute lstm -i 64 -H 64 -L 2 --bidir --proj 32
  --lengths 7,3` counts the matrix products of each real time step of each direction of each
  layer: **{lstm_macs:,} MACs** ({lstm_row.macs / lstm_macs:.1f} × fewer). torchinfo's Linear
  row says {linear_row.macs:,}, where 2 × 7 positions × 64 × 1000 weights are {linear_macs:,}
  multiply-adds.

## A model whose forward cannot run on the example

Given an input its forward refuses, torchinfo stops:

```text
{refused}
```

paramcount never runs the model: `paramcount.summary(broken)` gives the same
{fine.total:,} parameters and the same recognised LSTM as above.

## What each needs and gives

{TABLE}
"""


def main() -> None:
    """Write docs/torchinfo.md."""
    PAGE.write_text(page())


if __name__ == "__main__":
    main()
