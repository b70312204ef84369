"""Example model factories for ``paramcount check`` (see examples/project/paramcount.toml).

``paramcount check`` imports this module and calls the functions named in the config: torch
models are built on the meta device (no weights allocated), Keras models without initialising
their weights. Keep factories cheap: build the model, do not load checkpoints or data.
"""

from __future__ import annotations

from typing import Any


def build(hidden: int = 256, layers: int = 3, vocab: int = 1000, tags: int = 9) -> Any:
    """A BiLSTM tagger in PyTorch: embedding, stacked bidirectional LSTM, LayerNorm, linear."""
    from torch import nn

    class Listener(nn.Module):
        """Token ids -> per-token tag scores."""

        def __init__(self) -> None:
            super().__init__()
            self.embed = nn.Embedding(vocab, 128, padding_idx=0)
            self.rnn = nn.LSTM(128, hidden, num_layers=layers, bidirectional=True,
                               batch_first=True)
            self.norm = nn.LayerNorm(2 * hidden)
            self.head = nn.Linear(2 * hidden, tags)

        def forward(self, tokens: Any) -> Any:
            output, _ = self.rnn(self.embed(tokens))
            return self.head(self.norm(output))

    return Listener()


def build_keras(units: int = 64, features: int = 40, classes: int = 5) -> Any:
    """A Keras classifier: Conv1D front end, BatchNormalization, a BiGRU and a dense head."""
    import keras

    inputs = keras.Input((None, features))
    x = keras.layers.Conv1D(64, 5, padding="same", activation="relu")(inputs)
    x = keras.layers.BatchNormalization()(x)
    x = keras.layers.Bidirectional(keras.layers.GRU(units))(x)
    outputs = keras.layers.Dense(classes, activation="softmax")(x)
    return keras.Model(inputs, outputs, name="keyword_spotter")
