"""Files the ``paramcount port`` examples in docs/port.md read, made by torch, Keras and numpy."""

from __future__ import annotations

import warnings
from pathlib import Path


def make_speech(directory: Path) -> None:
    """speech.pt: a torch state dict with a 2-layer bidirectional LSTM encoder and a head."""
    import torch

    torch.manual_seed(0)
    model = torch.nn.ModuleDict({
        "encoder": torch.nn.LSTM(8, 16, num_layers=2, bidirectional=True),
        "head": torch.nn.Linear(32, 4),
    })
    torch.save(model.state_dict(), directory / "speech.pt")


def make_decoder(directory: Path) -> None:
    """decoder.pt: a torch GRU's state dict."""
    import torch

    torch.manual_seed(1)
    torch.save(torch.nn.GRU(8, 16).state_dict(), directory / "decoder.pt")


def make_tagger(directory: Path) -> None:
    """tagger.keras: a Keras model with a bidirectional LSTM and a GRU, saved by Keras."""
    import numpy as np

    from paramcount.verify.keras_backend import load

    keras = load()
    model = keras.Sequential([
        keras.Input((None, 8)),
        keras.layers.Bidirectional(keras.layers.LSTM(16, return_sequences=True, name="lstm"),
                                   name="encoder"),
        keras.layers.GRU(16, return_sequences=True, name="gru"),
        keras.layers.Dense(5, name="tags"),
    ])
    rng = np.random.default_rng(2)
    model.set_weights([rng.standard_normal(w.shape).astype("float32") * 0.3
                       for w in model.get_weights()])
    with warnings.catch_warnings():  # Keras' own NumPy 2 notice while saving
        warnings.filterwarnings("ignore", "__array__ implementation", DeprecationWarning)
        model.save(directory / "tagger.keras")


def make_tf1(directory: Path) -> None:
    """tf1_lstm.npz: the variables of a TF1 ``dynamic_rnn(LSTMCell(16))`` on 8 inputs."""
    import numpy as np

    rng = np.random.default_rng(3)
    np.savez(directory / "tf1_lstm.npz", **{
        "rnn/lstm_cell/kernel": rng.standard_normal((8 + 16, 64)).astype("float32") * 0.3,
        "rnn/lstm_cell/bias": rng.standard_normal(64).astype("float32") * 0.3,
    })


TWINS = '''"""A classifier's Keras twin, for docs/port.md's --model example."""


def keras_classifier():
    """Token ids -> embedding -> LSTM -> three classes."""
    from paramcount.verify.keras_backend import load

    keras = load()
    return keras.Sequential([
        keras.Input((None,), dtype="int32"),
        keras.layers.Embedding(50, 8),
        keras.layers.LSTM(16),
        keras.layers.Dense(3),
    ])
'''


def make_classifier(directory: Path) -> None:
    """classifier.pt: a torch embedding, LSTM and head; and twins.py, its Keras twin."""
    import torch

    torch.manual_seed(4)
    model = torch.nn.ModuleDict({"embed": torch.nn.Embedding(50, 8),
                                 "lstm": torch.nn.LSTM(8, 16, batch_first=True),
                                 "head": torch.nn.Linear(16, 3)})
    torch.save(model.state_dict(), directory / "classifier.pt")
    (directory / "twins.py").write_text(TWINS)


FILES = {
    "classifier.pt": (("torch",), make_classifier),
    "speech.pt": (("torch",), make_speech),
    "decoder.pt": (("torch",), make_decoder),
    "tagger.keras": (("keras", "tensorflow"), make_tagger),
    "tf1_lstm.npz": (("numpy",), make_tf1),
}
