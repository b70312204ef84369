"""Make the small model files the README's examples read: ``checkpoint.pt`` and ``decoder.pt``.

    python examples/make_files.py [FOLDER]

They ship in ``examples/`` so that the README's commands run as written on a fresh clone; this
script is how they were made (with torch, seeded), and ``tests/test_docs.py`` checks that the
shipped files hold what it makes.

- ``checkpoint.pt``: a training checkpoint of a small tagger (``nn.GRU(16, 32)``, a batch
  norm, a linear head), its state beside Adam's moments, the epoch and the loss.
- ``decoder.pt``: the state dict of ``nn.GRU(8, 16)``.
"""

from __future__ import annotations

import sys
from pathlib import Path


def make_checkpoint(folder: Path) -> Path:
    """``checkpoint.pt``: the tagger's state and its optimizer's after one step."""
    import torch
    from torch import nn

    class Tagger(nn.Module):
        """A GRU over the sequence, a batch norm of its last state, a linear head."""

        def __init__(self) -> None:
            super().__init__()
            self.gru = nn.GRU(16, 32, batch_first=True)
            self.norm = nn.BatchNorm1d(32)
            self.out = nn.Linear(32, 5)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            """Five scores per sequence."""
            y, _ = self.gru(x)
            return self.out(self.norm(y[:, -1]))

    torch.manual_seed(0)
    model = Tagger()
    optimizer = torch.optim.Adam(model.parameters())
    model(torch.randn(4, 3, 16)).sum().backward()
    optimizer.step()
    path = folder / "checkpoint.pt"
    torch.save({"epoch": 12, "model_state_dict": model.state_dict(),
                "optimizer_state_dict": optimizer.state_dict(), "loss": 0.25}, path)
    return path


def make_decoder(folder: Path) -> Path:
    """``decoder.pt``: a torch GRU's state dict."""
    import torch

    torch.manual_seed(1)
    path = folder / "decoder.pt"
    torch.save(torch.nn.GRU(8, 16).state_dict(), path)
    return path


MAKERS = {"checkpoint.pt": make_checkpoint, "decoder.pt": make_decoder}
"""Each shipped file and the function that makes it."""


def main(argv: list[str]) -> None:
    """Write every file into the folder given (by default, this script's own)."""
    folder = Path(argv[0]) if argv else Path(__file__).resolve().parent
    for make in MAKERS.values():
        print(make(folder))


if __name__ == "__main__":
    main(sys.argv[1:])
