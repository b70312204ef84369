"""The ONNX and Keras files docs/inspect-formats.md inspects, written by torch and Keras."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any


def _tagger() -> Any:
    """Embedding → 2-layer bidirectional LSTM → Linear, seeded."""
    import torch
    from torch import nn

    torch.manual_seed(0)

    class Tagger(nn.Module):  # type: ignore[misc]
        """A sequence tagger."""

        def __init__(self) -> None:
            super().__init__()
            self.embed = nn.Embedding(100, 8)
            self.lstm = nn.LSTM(8, 16, num_layers=2, bidirectional=True)
            self.head = nn.Linear(32, 5)

        def forward(self, tokens: Any) -> Any:
            out, _ = self.lstm(self.embed(tokens))
            return self.head(out)

    return Tagger().eval()


def make_exported(directory: Path) -> None:
    """exported.onnx: the tagger through torch.onnx.export (the TorchScript exporter)."""
    import torch

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(_tagger(), (torch.zeros(6, 1, dtype=torch.long),),
                          str(directory / "exported.onnx"), dynamo=False)


def make_truncated(directory: Path) -> None:
    """truncated.onnx: the first half of exported.onnx, as an interrupted download leaves it."""
    if not (directory / "exported.onnx").exists():
        make_exported(directory)
    data = (directory / "exported.onnx").read_bytes()
    (directory / "truncated.onnx").write_bytes(data[: len(data) // 2])


def _classifier() -> Any:
    """A text classifier, built in a fresh Keras session so its layers have their first names."""
    import keras
    from keras import layers

    keras.backend.clear_session()
    return keras.Sequential([
        keras.Input((20,), dtype="int32"),
        layers.Embedding(1000, 16),
        layers.Bidirectional(layers.GRU(9, return_sequences=True), merge_mode="sum"),
        layers.LSTM(12),
        layers.BatchNormalization(),
        layers.Dense(3),
    ], name="classifier")


def _old_model() -> Any:
    """A functional stack of two LSTMs and a head, in a fresh Keras session."""
    import keras
    from keras import layers

    keras.backend.clear_session()
    inputs = keras.Input((None, 40))
    hidden = layers.LSTM(32, return_sequences=True)(inputs)
    hidden = layers.LSTM(32)(hidden)
    return keras.Model(inputs, layers.Dense(10)(hidden), name="old_model")


def make_classifier(directory: Path) -> None:
    """classifier.keras: model.save of the Keras classifier."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _classifier().save(directory / "classifier.keras")


def make_old_model(directory: Path) -> None:
    """old_model.h5: the legacy HDF5 format, model.save('old_model.h5')."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _old_model().save(directory / "old_model.h5")


FILES = {
    "exported.onnx": (("torch", "onnx"), make_exported),
    "truncated.onnx": (("torch", "onnx"), make_truncated),
    "classifier.keras": (("keras", "tensorflow", "h5py"), make_classifier),
    "old_model.h5": (("keras", "tensorflow", "h5py"), make_old_model),
}
