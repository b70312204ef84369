"""``paramcount read`` on code as Python means it (issue 36): a name bound again to a new model
starts a new model, each ``summary()`` / ``print(model)`` shows the model the name held at that
line, and comments, fences and prose change nothing. Each post is our own code, executed here
(never a user's paste) to build the truth: every model it shows, counted by the framework, with
the framework's own printout of it beside the code."""

from __future__ import annotations

import contextlib
import io
import re
import warnings
from dataclasses import dataclass
from typing import Any

import pytest

from paramcount.reading.pipeline import read
from tests.conftest import have
from tests.printers import keras_text, quiet_tensorflow


@dataclass(frozen=True)
class Post:
    """Fenced blocks of code with prose between them; each ``x.summary()`` / ``print(x)``
    shows a model, and the framework's printout of it follows the block."""

    framework: str
    """``torch``, ``keras`` or ``both``: what the post needs installed."""
    fences: tuple[str, ...]
    prose: tuple[str, ...] = ("Here is what I tried:", "Then I built another one:")


_SHOWN = re.compile(r"^(?P<indent>\s*)(?:print\((?P<printed>.+)\)|(?P<summary>.+)\.summary\(\))$")


def _shown_models(post: Post) -> list[list[Any]]:
    """The models each fence shows, in order: the fences executed one after another in one
    namespace (as a notebook runs them), each ``summary()`` / ``print(...)`` recording its
    model. Our own code: executing it is what makes it the oracle."""
    namespace: dict[str, Any] = {"__name__": "rebound_post", "_shown": []}
    shown: list[list[Any]] = []
    for fence in post.fences:
        namespace["_shown"] = []
        lines = [_SHOWN.sub(lambda m: f"{m['indent']}_shown.append("
                            f"{m['printed'] or m['summary']})", line)
                 for line in fence.split("\n")]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            exec(compile("\n".join(lines), "<post>", "exec"), namespace)  # ours, not a paste
        shown.append(list(namespace["_shown"]))
    return shown


def _count(model: Any) -> int:
    """The framework's own count of ``model``'s parameters."""
    if not hasattr(model, "count_params"):  # torch
        return sum(p.numel() for p in model.parameters())
    return int(model.count_params())


def _printout(model: Any) -> str:
    """What ``print(model)`` / ``model.summary()`` shows of ``model``."""
    if not hasattr(model, "count_params"):
        return str(model) + "\n"
    with contextlib.redirect_stdout(io.StringIO()):
        return keras_text(model, 3)


def compose(post: Post, printouts: bool) -> tuple[str, list[int]]:
    """The post as text (each fence in Markdown, its models' printouts after it when
    ``printouts``) and the truth of every model it shows, in order."""
    parts: list[str] = []
    truths: list[int] = []
    for index, (fence, models) in enumerate(zip(post.fences, _shown_models(post), strict=True)):
        parts.append(post.prose[index % len(post.prose)])
        parts.append(f"```python\n{fence.strip()}\n```")
        for model in models:
            truths.append(_count(model))
            if printouts:
                parts.append(f"```\n{_printout(model).rstrip()}\n```")
    return "\n\n".join(parts) + "\n", truths


_KERAS_IMPORTS = """\
from keras import Input, Model, Sequential
from keras.layers import GRU, LSTM, Dense
"""

_TORCH_IMPORTS = """\
import torch
import torch.nn as nn
"""

POSTS = {
    "Sequential bound twice (180 and 360, not 540)": Post("keras", (_KERAS_IMPORTS + """
model = Sequential()
model.add(Input(shape=(8,)))
model.add(Dense(20))
model.summary()

model = Sequential()
model.add(Input(shape=(17,)))
model.add(Dense(20))
model.summary()
""",)),
    "two fences each starting x = Input(...)": Post("keras", (_KERAS_IMPORTS + """
x = Input(shape=(10, 8))
h = LSTM(16)(x)
out = Dense(1)(h)
model = Model(x, out)
model.summary()
""", """
x = Input(shape=(10, 8))
h = GRU(32)(x)
h = Dense(24)(h)
out = Dense(1)(h)
model = Model(inputs=x, outputs=out)
model.summary()
""")),
    "two fences, graphs named by no Model variable": Post("keras", (_KERAS_IMPORTS + """
x = Input(shape=(10, 8))
h = LSTM(16)(x)
out = Dense(1)(h)
Model(x, out).summary()
""", """
x = Input(shape=(10, 8))
h = GRU(32)(x)
out = Dense(3)(h)
Model(x, out).summary()
""")),
    "Sequential list bound again in a second fence": Post("keras", (_KERAS_IMPORTS + """
model = Sequential([Input(shape=(5, 3)), LSTM(12), Dense(2)])
model.summary()
""", """
model = Sequential([Input(shape=(5, 3)), GRU(12), Dense(2)])
model.summary()
""")),
    "a trailing comment in a fenced class (BiLSTM)": Post("torch", (_TORCH_IMPORTS + """
class BiLSTM(nn.Module):
    def __init__(self, vocab_size, embedding_dim, hidden_dim, output_dim):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embedding_dim)
        self.lstm = nn.LSTM(embedding_dim, hidden_dim, bidirectional=True, batch_first=True)
        self.fc = nn.Linear(hidden_dim * 2, output_dim)  # x2 because of the two directions

    def forward(self, x):
        out, _ = self.lstm(self.embedding(x))  # out: (batch, seq, 2 * hidden)
        return self.fc(out[:, -1])


model = BiLSTM(5000, 100, 128, 1)
print(model)
""",)),
    "an instance of the paste's class bound twice": Post("torch", (_TORCH_IMPORTS + """
class Tagger(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.rnn = nn.GRU(16, hidden, batch_first=True)
        self.head = nn.Linear(hidden, 5)


model = Tagger(32)
print(model)
model = Tagger(64)
print(model)
""",)),
    "a layer bound twice": Post("torch", (_TORCH_IMPORTS + """
lstm = nn.LSTM(10, 20)
print(lstm)
""", """
lstm = nn.LSTM(20, 40, num_layers=2)
print(lstm)
""")),
    "keras.Model is Keras' Model, not the paste's class Model": Post("both", ("""
import keras
import torch.nn as nn
from keras import layers


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.LSTM(3, 6)


class Encoder(keras.Model):
    def __init__(self):
        super().__init__()
        self.embedding = layers.Embedding(100, 8)

    def call(self, x):
        return self.embedding(x)


torch_model = Model()
print(torch_model)
encoder = Encoder()
encoder(keras.ops.zeros((1, 5)))
encoder.summary()
""",)),
    "model = model.to(device) is the same model": Post("torch", (_TORCH_IMPORTS + """
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
model = model.to("cpu")
print(model)
""",)),
}


def _needs(post: Post) -> None:
    """Skip where the post's framework is not installed."""
    if post.framework in ("torch", "both") and not have("torch"):
        pytest.skip("needs torch")
    if post.framework in ("keras", "both") and not (have("keras") and have("tensorflow")):
        pytest.skip("needs keras 3")
    if post.framework in ("keras", "both"):
        quiet_tensorflow()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            import keras
        keras.backend.clear_session()


@pytest.mark.parametrize("printouts", [False, True], ids=["code alone", "with printouts"])
@pytest.mark.parametrize("post", POSTS.values(), ids=POSTS.keys())
def test_each_model_shown_is_read_whole(post: Post, printouts: bool) -> None:
    """Each model the post shows is one model of the code, in order, its total exact and the
    framework's; beside the printouts, no disagreement."""
    _needs(post)
    text, truths = compose(post, printouts)
    answer = read(text)
    code = sorted((m for m in answer.models if m.source == "code"), key=lambda m: m.line or 0)
    assert [m.total for m in code] == truths, (text, [(m.name, m.total, m.at_least)
                                                      for m in code])
    assert not answer.disagreements, answer.disagreements
    assert not any("indentation" in note for note in answer.notes), answer.notes
