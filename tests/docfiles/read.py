"""Printouts for docs/read.md, made by the real libraries: torchinfo, Keras 3, torch."""

from __future__ import annotations

import contextlib
import io
import os
from pathlib import Path


def _torch_model() -> object:
    import torch.nn as nn

    class Tagger(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.embedding = nn.Embedding(5000, 64)
            self.lstm = nn.LSTM(64, 128, num_layers=2, batch_first=True, bidirectional=True)
            self.head = nn.Linear(256, 9)

    return Tagger()


def make_torchinfo(directory: Path) -> None:
    """A torchinfo table with per-tensor rows, as ``summary(model, verbose=2)`` prints it."""
    import torchinfo

    with contextlib.redirect_stdout(io.StringIO()):
        table = torchinfo.summary(_torch_model(), verbose=2)
    (directory / "torchinfo.txt").write_text(f"{table}\n")


def make_named_parameters(directory: Path) -> None:
    """``for name, p in model.named_parameters(): print(name, p.shape)``."""
    model = _torch_model()
    lines = [f"{name} {p.shape}" for name, p in model.named_parameters()]  # type: ignore[attr-defined]
    (directory / "named-parameters.txt").write_text("\n".join(lines) + "\n")


def make_keras_summary(directory: Path) -> None:
    """A Keras 3 ``model.summary()`` of a functional model, and the question around it."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import keras

    keras.backend.clear_session()  # layer names as in a fresh session, whatever ran before
    inputs = keras.Input(shape=(None, 40))
    x = keras.layers.Bidirectional(keras.layers.GRU(64, return_sequences=True))(inputs)
    x = keras.layers.Bidirectional(keras.layers.LSTM(32), merge_mode="sum")(x)
    model = keras.Model(inputs, keras.layers.Dense(5)(x))
    lines: list[str] = []
    model.summary(print_fn=lambda text, line_break=True: lines.append(text))
    (directory / "keras3-summary.txt").write_text("\n".join(lines) + "\n")


H0_QUESTION = """\
Why does my LSTM fail?

import torch
import torch.nn as nn

class Net(nn.Module):
    def __init__(self, input_size=20, hidden_size=64, num_layers=2):
        super().__init__()
        self.num_layers, self.hidden_size = num_layers, hidden_size
        self.lstm = nn.LSTM(input_size, hidden_size, num_layers, batch_first=True,
                            bidirectional=True)

    def forward(self, x):
        h0 = torch.zeros(self.num_layers, x.size(0), self.hidden_size)
        c0 = torch.zeros(self.num_layers, x.size(0), self.hidden_size)
        return self.lstm(x, (h0, c0))

out = Net()(torch.randn(8, 30, 20))
"""


def make_runtime_error(directory: Path) -> None:
    """The question's code, then the error torch raises running it (as a traceback ends)."""
    namespace: dict[str, object] = {}
    try:
        exec(H0_QUESTION.split("\n\n", 1)[1], namespace)
    except RuntimeError as error:
        message = f"RuntimeError: {error}"
    else:
        raise AssertionError("the question's code ran without the error it asks about")
    (directory / "h0-error.txt").write_text(f"{H0_QUESTION}\n{message}\n")


FILES = {
    "h0-error.txt": (("torch",), make_runtime_error),
    "torchinfo.txt": (("torch", "torchinfo"), make_torchinfo),
    "named-parameters.txt": (("torch",), make_named_parameters),
    "keras3-summary.txt": (("keras", "tensorflow"), make_keras_summary),
}
