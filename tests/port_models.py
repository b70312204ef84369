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


def keras_pair(cell: str = "LSTM", bidirectional: bool = True, layers: int = 1,
               bias: bool = True) -> Any:
    """A Keras model of ``layers`` recurrent layers on 4 features (hidden 6), one at a time."""
    from paramcount.verify.keras_backend import load

    keras = load()
    stack: list[Any] = [keras.Input((None, 4))]
    for _ in range(layers):
        layer = getattr(keras.layers, cell)(6, return_sequences=True, use_bias=bias)
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


CRNN_HEIGHT = 8
"""The height of the CRNN's images (its LSTM reads channels × height features per column)."""


def torch_crnn() -> Any:
    """A torch CRNN: forward(images [N, 1, 8, W]) -> [N, W, 7]; Conv2d, BatchNorm2d, ReLU, one
    column per step into an LSTM, a linear head."""
    import torch
    from torch import nn

    class CRNN(nn.Module):
        """Conv2d, batch norm, columns into an LSTM, head."""

        def __init__(self) -> None:
            super().__init__()
            self.conv = nn.Conv2d(1, 4, 3, padding=1)
            self.bn = nn.BatchNorm2d(4)
            self.lstm = nn.LSTM(4 * CRNN_HEIGHT, 16, batch_first=True)
            self.out = nn.Linear(16, 7)

        def forward(self, images: torch.Tensor) -> torch.Tensor:
            """Scores for every column."""
            x = torch.relu(self.bn(self.conv(images)))
            n, c, h, w = x.shape
            x, _ = self.lstm(x.permute(0, 3, 1, 2).reshape(n, w, c * h))
            return self.out(x)

    return CRNN()


def keras_crnn(height: int | None = CRNN_HEIGHT, bias: bool = True) -> Any:
    """The same CRNN in Keras, channels last: Input((height, None, 1)) (``height=None``
    declares no height), its head with or without a bias."""
    from paramcount.verify.keras_backend import load

    keras = load()
    layers = keras.layers
    images = keras.Input((height, None, 1))
    x = layers.Conv2D(4, 3, padding="same")(images)
    x = layers.BatchNormalization(epsilon=1e-5, momentum=0.9)(x)
    x = layers.ReLU()(x)
    x = layers.Reshape((-1, 4 * CRNN_HEIGHT))(layers.Permute((2, 3, 1))(x))
    x = layers.LSTM(16, return_sequences=True)(x)
    return keras.Model(images, layers.Dense(7, use_bias=bias)(x))


def keras_fixed(steps: int = 10) -> Any:
    """A Keras model of a fixed sequence length: Input((steps, 4)), LSTM, Flatten, Dense(3)."""
    from paramcount.verify.keras_backend import load

    keras = load()
    return keras.Sequential([keras.Input((steps, 4)),
                             keras.layers.LSTM(8, return_sequences=True),
                             keras.layers.Flatten(), keras.layers.Dense(3)])


def torch_fixed(steps: int = 10) -> Any:
    """The same fixed-length model in torch: forward(x [N, steps, 4]) -> [N, 3]."""
    import torch
    from torch import nn

    class Fixed(nn.Module):
        """An LSTM whose every output step feeds one Linear."""

        def __init__(self) -> None:
            super().__init__()
            self.lstm = nn.LSTM(4, 8, batch_first=True)
            self.dense = nn.Linear(8 * steps, 3)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            """Three scores per sequence."""
            y, _ = self.lstm(x)
            return self.dense(y.flatten(1))

    return Fixed()


def never_built() -> Any:
    """A factory that must not be called: a refusal the source decides comes before it."""
    raise AssertionError("the model was built before the source was checked")
