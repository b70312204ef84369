"""Printouts for docs/read.md, made by the real libraries: torchinfo, Keras 3, Keras 2
(tf-keras), torch."""

from __future__ import annotations

import contextlib
import io
import os
import warnings
from pathlib import Path


def tagger(cell: str, vocab: int, classes: int) -> object:
    """A tagger: an embedding of width 64, a 2-layer bidirectional ``cell`` of 128 (its
    attribute named after it, ``lstm`` or ``gru``) and a head of ``classes``."""
    import torch.nn as nn

    class Tagger(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.embedding = nn.Embedding(vocab, 64)
            self.add_module(cell.lower(), getattr(nn, cell)(
                64, 128, num_layers=2, batch_first=True, bidirectional=True))
            self.head = nn.Linear(256, classes)

        def forward(self, x: object) -> object:
            return self.head(getattr(self, cell.lower())(self.embedding(x))[0])

    return Tagger()


def _torch_model() -> object:
    return tagger("LSTM", 5000, 9)


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


def gru_tagger() -> object:
    """The issue's torchinfo example: an embedding of width 64 before a 2-layer bidirectional
    GRU(64, 128) and a head."""
    return tagger("GRU", 1000, 10)


def torchinfo_table(model: object, **options: object) -> str:
    """What ``print(torchinfo.summary(model, ...))`` prints for a batch of 2 × 30 tokens."""
    import torch
    import torchinfo

    with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
        # torch on CPU says once that oneDNN has no projected LSTM; the run is the same
        warnings.filterwarnings("ignore", "LSTM with projections", UserWarning)
        table = torchinfo.summary(model, input_data=torch.zeros(2, 30, dtype=torch.long),
                                  **options)
    return f"{table}\n"


def make_torchinfo_gru(directory: Path) -> None:
    """torchinfo's default table of the GRU tagger: counts and output shapes, no sizes."""
    (directory / "torchinfo-gru.txt").write_text(torchinfo_table(gru_tagger()))


def keras2_summary(model: object) -> str:
    """What Keras 2's (tf-keras') ``model.summary()`` prints."""
    lines: list[str] = []
    model.summary(print_fn=lambda text, *_, **__: lines.append(text))  # type: ignore[attr-defined]
    return "\n".join(lines) + "\n"


def keras2_gru(functional: bool) -> object:
    """The issue's Keras 2 example: a GRU(16) with reset_after=False on 15 features, built by
    tf-keras (Keras 2); a functional model's summary shows its Input row, a Sequential's not."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tf_keras

    tf_keras.backend.clear_session()
    gru = tf_keras.layers.GRU(16, return_sequences=True, reset_after=False)
    if not functional:
        return tf_keras.Sequential([tf_keras.layers.InputLayer(input_shape=(64, 15)), gru,
                                    tf_keras.layers.Dense(1)])
    inputs = tf_keras.Input(shape=(64, 15))
    return tf_keras.Model(inputs, tf_keras.layers.Dense(1)(gru(inputs)))


def make_keras2_gru(directory: Path) -> None:
    """The functional model's Keras 2 summary: the Input row gives the width."""
    (directory / "keras2-gru-summary.txt").write_text(keras2_summary(keras2_gru(True)))


def make_keras2_gru_sequential(directory: Path) -> None:
    """The Sequential model's Keras 2 summary: no row gives the width."""
    (directory / "keras2-gru-sequential.txt").write_text(keras2_summary(keras2_gru(False)))


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


def folded_tagger() -> object:
    """A ModuleList of three GRUs, the last two alike (torch ≥ 2 folds them into one line)."""
    import torch.nn as nn

    class Tagger(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.rnns = nn.ModuleList(
                [nn.GRU(20, 30, batch_first=True, bidirectional=True)]
                + [nn.GRU(60, 30, batch_first=True, bidirectional=True) for _ in range(2)])
            self.head = nn.Linear(60, 10)

    return Tagger()


def make_cut_repr(directory: Path) -> None:
    """``print(model)`` of the folded tagger, pasted without its last lines."""
    lines = str(folded_tagger()).split("\n")
    (directory / "cut-repr.txt").write_text("\n".join(lines[:5]) + "\n")


FILES = {
    "cut-repr.txt": (("torch",), make_cut_repr),
    "h0-error.txt": (("torch",), make_runtime_error),
    "torchinfo-gru.txt": (("torch", "torchinfo"), make_torchinfo_gru),
    "keras2-gru-summary.txt": (("tf_keras", "tensorflow"), make_keras2_gru),
    "keras2-gru-sequential.txt": (("tf_keras", "tensorflow"), make_keras2_gru_sequential),
    "torchinfo.txt": (("torch", "torchinfo"), make_torchinfo),
    "named-parameters.txt": (("torch",), make_named_parameters),
    "keras3-summary.txt": (("keras", "tensorflow"), make_keras_summary),
}
