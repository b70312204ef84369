"""One tagger in torch, Keras and Flax linen, for ``port --model``: the same function in each.

Token ids → embedding → conv1d (kernel 3, same padding) → batch norm → bidirectional LSTM →
GRU → layer norm → linear head. Each factory imports its framework only when called.
"""

from __future__ import annotations

from typing import Any

VOCAB, EMBED, CHANNELS, HIDDEN, TAGS = 20, 8, 12, 16, 5


def torch_tagger(hidden: int = HIDDEN) -> Any:
    """The torch tagger: forward(tokens [N, T]) -> [N, T, TAGS]."""
    import torch
    from torch import nn

    class Tagger(nn.Module):
        """Embedding, conv1d, batch norm, BiLSTM, GRU, layer norm, head."""

        def __init__(self) -> None:
            super().__init__()
            self.embed = nn.Embedding(VOCAB, EMBED)
            self.conv = nn.Conv1d(EMBED, CHANNELS, 3, padding=1)
            self.bn = nn.BatchNorm1d(CHANNELS)
            self.lstm = nn.LSTM(CHANNELS, hidden, batch_first=True, bidirectional=True)
            self.gru = nn.GRU(2 * hidden, hidden, batch_first=True)
            self.norm = nn.LayerNorm(hidden)
            self.head = nn.Linear(hidden, TAGS)

        def forward(self, tokens: torch.Tensor) -> torch.Tensor:
            """Tags for every token."""
            x = self.bn(self.conv(self.embed(tokens).transpose(1, 2))).transpose(1, 2)
            x, _ = self.lstm(x)
            x, _ = self.gru(x)
            return self.head(self.norm(x))

    return Tagger()


def keras_tagger(hidden: int = HIDDEN, epsilon: float = 1e-5) -> Any:
    """The same tagger in Keras, with torch's epsilon (unless told otherwise) and momentum."""
    from paramcount.verify.keras_backend import load

    keras = load()
    layers = keras.layers
    return keras.Sequential([
        keras.Input((None,), dtype="int32"),
        layers.Embedding(VOCAB, EMBED),
        layers.Conv1D(CHANNELS, 3, padding="same"),
        layers.BatchNormalization(epsilon=epsilon, momentum=0.9),
        layers.Bidirectional(layers.LSTM(hidden, return_sequences=True)),
        layers.GRU(hidden, return_sequences=True),
        layers.LayerNormalization(epsilon=epsilon),
        layers.Dense(TAGS),
    ])


def flax_tagger(hidden: int = HIDDEN) -> Any:
    """The same tagger as a compact Flax linen module (batch norm in inference mode); its cells
    are named by the module that makes them (``LSTMCell_0``, ``LSTMCell_1``, ``GRUCell_0``)."""
    from flax import linen as nn

    class Tagger(nn.Module):
        """Embedding, conv, batch norm, BiLSTM, GRU, layer norm, head."""

        @nn.compact
        def __call__(self, tokens: Any) -> Any:
            """Tags for every token."""
            x = nn.Embed(VOCAB, EMBED)(tokens)
            x = nn.Conv(CHANNELS, (3,), padding="SAME")(x)
            x = nn.BatchNorm(use_running_average=True, epsilon=1e-5)(x)
            x = nn.Bidirectional(nn.RNN(nn.LSTMCell(hidden)), nn.RNN(nn.LSTMCell(hidden)))(x)
            x = nn.RNN(nn.GRUCell(hidden))(x)
            x = nn.LayerNorm(epsilon=1e-5)(x)
            return nn.Dense(TAGS)(x)

    return Tagger()


def keras_pair(cell: str = "LSTM", bidirectional: bool = True, layers: int = 1) -> Any:
    """A Keras model of ``layers`` recurrent layers on 4 features (hidden 6), one at a time."""
    from paramcount.verify.keras_backend import load

    keras = load()
    stack: list[Any] = [keras.Input((None, 4))]
    for _ in range(layers):
        layer = getattr(keras.layers, cell)(6, return_sequences=True)
        stack.append(keras.layers.Bidirectional(layer) if bidirectional else layer)
    return keras.Sequential(stack)


def torch_gru(hidden: int = 4) -> Any:
    """A torch nn.GRU(3, hidden): the target of ``paramcount port --help``'s GRU examples."""
    from torch import nn

    return nn.GRU(3, hidden)


def keras_dense(widths: tuple[int, ...] = (4, 4, 2)) -> Any:
    """Dense layers on 4 features, one per width."""
    from paramcount.verify.keras_backend import load

    keras = load()
    return keras.Sequential([keras.Input((4,)), *(keras.layers.Dense(w) for w in widths)])
