"""The shipped examples: their totals pass, --verify agrees, and hand-written real models match."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from paramcount.checking import read
from tests.conftest import CLI

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
TORCH_FILES = ["attention.toml", "bilstm.toml", "cnn.toml", "seq2seq_encoder.json",
               "tagger.toml", "text_classifier.toml"]
KERAS_FILES = ["convlstm.toml", "keras.toml"]


def stated(file: str) -> dict[str, int]:
    """The ``total`` each model of an example states (and paramcount computes)."""
    models = read(str(EXAMPLES / file)).models
    assert all(m.total_expected == m.total for m in models)
    return {m.name: m.total for m in models}


CONFIGS = sorted(p.name for p in EXAMPLES.iterdir() if p.suffix in (".toml", ".json"))


def test_every_example_is_tested() -> None:
    """No example config escapes the framework tests below."""
    assert sorted(TORCH_FILES + KERAS_FILES) == CONFIGS


@pytest.mark.parametrize("file", CONFIGS)
def test_example_passes(cli: CLI, file: str) -> None:
    """Each example's expectations hold (exit 0) and every model has a total."""
    result = cli("check", str(EXAMPLES / file))
    assert result.code == 0, result.out + result.err
    assert "no expectation" not in result.out


@pytest.mark.torch
@pytest.mark.parametrize("file", TORCH_FILES)
def test_torch_example_verifies(cli: CLI, file: str) -> None:
    """--verify builds every torch example on the meta device and agrees."""
    pytest.importorskip("torch")
    result = cli("check", str(EXAMPLES / file), "--verify")
    assert result.code == 0, result.out + result.err
    assert result.out.count("verified with PyTorch") == len(stated(file))


@pytest.mark.keras
@pytest.mark.parametrize("file", KERAS_FILES)
def test_keras_example_verifies(cli: CLI, file: str) -> None:
    """--verify builds every Keras example without weights and agrees."""
    pytest.importorskip("keras")
    result = cli("check", str(EXAMPLES / file), "--verify")
    assert result.code == 0, result.out + result.err
    assert result.out.count("verified with Keras") == len(stated(file))


# ------------------------------------------------------------------ the models, written by hand


def torch_models() -> dict[str, tuple[Any, Any]]:
    """name -> (module, an example input): the examples as a PyTorch user writes them."""
    import torch
    from torch import nn

    class Classifier(nn.Module):
        def __init__(self, pooling: tuple[str, ...]) -> None:
            super().__init__()
            self.pooling = pooling
            self.embedding = nn.Embedding(5000, 100, padding_idx=0)
            self.lstm = nn.LSTM(100, 128, num_layers=2, bidirectional=True, batch_first=True)
            self.head = nn.Sequential(nn.Linear(len(pooling) * 2 * 128, 128), nn.ReLU(),
                                      nn.Dropout(0.3), nn.Linear(128, 4))

        def forward(self, tokens: torch.Tensor) -> torch.Tensor:
            out, (h, _) = self.lstm(self.embedding(tokens))
            pooled = {"last": torch.cat([h[-2], h[-1]], dim=1),
                      "max": out.max(dim=1).values, "mean": out.mean(dim=1)}
            return self.head(torch.cat([pooled[p] for p in self.pooling], dim=1))

    class Tagger(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.embedding = nn.Embedding(5000, 100)
            self.lstm = nn.LSTM(100, 128, num_layers=2, bidirectional=True, batch_first=True)
            self.out = nn.Linear(256, 9)

        def forward(self, tokens: torch.Tensor) -> torch.Tensor:
            return self.out(self.lstm(self.embedding(tokens))[0])

    class Attention(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.lstm = nn.LSTM(300, 128, bidirectional=True, batch_first=True)
            self.score = nn.Sequential(nn.Linear(256, 128), nn.Tanh(), nn.Linear(128, 1))
            self.classifier = nn.Linear(256, 3)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            out, _ = self.lstm(x)
            weights = torch.softmax(self.score(out), dim=1)
            return self.classifier((weights * out).sum(dim=1))

    class Encoder(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.embedding = nn.Embedding(8000, 256)
            self.lstm = nn.LSTM(256, 256, num_layers=2, bidirectional=True, batch_first=True)
            self.bridge_h = nn.Linear(512, 256)
            self.bridge_c = nn.Linear(512, 256)

        def forward(self, tokens: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            _, (h, c) = self.lstm(self.embedding(tokens))
            return (torch.tanh(self.bridge_h(torch.cat([h[-2], h[-1]], dim=1))),
                    torch.tanh(self.bridge_c(torch.cat([c[-2], c[-1]], dim=1))))

    tokens = torch.randint(1, 5000, (2, 7))
    return {
        "bilstm": (nn.LSTM(32, 64, num_layers=2, bidirectional=True, batch_first=True),
                   torch.zeros(2, 7, 32)),
        "classifier-last": (Classifier(("last",)), tokens),
        "classifier-last-max-mean": (Classifier(("last", "max", "mean")), tokens),
        "tagger": (Tagger(), tokens),
        "attention-classifier": (Attention(), torch.zeros(2, 7, 300)),
        "seq2seq-encoder": (Encoder(), tokens),
        "cnn": (nn.Sequential(nn.Conv2d(1, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
                              nn.MaxPool2d(2), nn.Conv2d(32, 64, 3), nn.MaxPool2d(2),
                              nn.Flatten(), nn.Linear(64 * 6 * 6, 10)).eval(),
                torch.zeros(2, 1, 28, 28)),
    }


@pytest.mark.torch
def test_torch_examples_match_hand_written_models() -> None:
    """Real torch models written the usual way (and run once) hold exactly the stated totals."""
    torch = pytest.importorskip("torch")
    expected = {name: total for file in TORCH_FILES for name, total in stated(file).items()}
    models = torch_models()
    assert sorted(models) == sorted(expected)
    with torch.no_grad():
        for name, (module, example) in models.items():
            module(example)  # the widths chain as configured
            assert sum(p.numel() for p in module.parameters()) == expected[name], name


@pytest.mark.torch
def test_tagger_layer_expectations_match_modules() -> None:
    """The tagger's per-layer ``params`` equal its real modules' counts."""
    pytest.importorskip("torch")
    module, _ = torch_models()["tagger"]
    (model,) = read(str(EXAMPLES / "tagger.toml")).models
    real = [sum(p.numel() for p in m.parameters()) for m in module.children()]
    assert [layer.expected for layer in model.layers] == real


def keras_models() -> dict[str, Any]:
    """name -> a built Keras model: the Keras examples as a Keras user writes them."""
    import keras
    from keras import layers

    sentiment = keras.Sequential([
        keras.Input(shape=(None,), dtype="int32"),
        layers.Embedding(10000, 128, mask_zero=True),
        layers.Bidirectional(layers.LSTM(64)),
        layers.Dense(64, activation="relu"),
        layers.Dropout(0.5),
        layers.Dense(1, activation="sigmoid"),
    ])
    stacked = keras.Sequential([
        keras.Input(shape=(None, 16)),
        layers.LSTM(64, return_sequences=True),
        layers.LSTM(32),
        layers.Dense(10, activation="softmax"),
    ])
    gru = keras.Sequential([
        keras.Input(shape=(None, 8)),
        layers.GRU(32, reset_after=False),
        layers.Dense(1),
    ])
    tagger = keras.Sequential([
        keras.Input(shape=(None,), dtype="int32"),
        layers.Embedding(5000, 64),
        layers.Bidirectional(layers.LSTM(64, return_sequences=True)),
        layers.TimeDistributed(layers.Dense(9, activation="softmax")),
    ])
    return {"keras-sentiment": sentiment, "keras-stacked": stacked, "keras-gru-v1": gru,
            "keras-tagger": tagger}


@pytest.mark.keras
def test_keras_examples_match_hand_written_models() -> None:
    """Real Keras models written the usual way hold exactly the stated totals."""
    keras = pytest.importorskip("keras")
    keras.backend.clear_session()
    expected = stated("keras.toml")
    models = keras_models()
    assert sorted(models) == sorted(expected)
    for name, model in models.items():
        assert model.count_params() == expected[name], name


def test_readme_excerpt_is_verbatim() -> None:
    """The TOML shown in the README's "Parameter budgets in CI" is a verbatim excerpt."""
    readme = (EXAMPLES.parent / "README.md").read_text()
    start = readme.index("```toml\n# examples/text_classifier.toml (excerpt)\n")
    block = readme[start:readme.index("```\n", start + 8)].splitlines()[2:]
    assert "\n".join(block) in (EXAMPLES / "text_classifier.toml").read_text()


def test_pre_commit_hooks_run_check() -> None:
    """Every hook in .pre-commit-hooks.yaml runs ``paramcount check`` on no filenames."""
    yaml = pytest.importorskip("yaml")
    hooks = yaml.safe_load((EXAMPLES.parent / ".pre-commit-hooks.yaml").read_text())
    assert [h["id"] for h in hooks] == ["paramcount-check", "paramcount-check-verify"]
    for hook in hooks:
        assert hook["entry"].startswith("paramcount check")
        assert hook["pass_filenames"] is False and hook["language"] == "python"
