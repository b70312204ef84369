"""``paramcount read`` on a runtime error pasted with its code: the argument at fault, the fix.

Every message is provoked in real torch or Keras at test time from the test's own code, and
pasted beside that code as a traceback would be. Each diagnosis is then checked against the
framework too: the code changed as the fix says runs.
"""

from __future__ import annotations

import json
import os
import textwrap
import warnings
from pathlib import Path
from typing import Any

import pytest

from paramcount.reading.messages.runtime_error import RuntimeFinding
from paramcount.reading.pipeline import read
from tests.conftest import CLI, have
from tests.test_read_cli import documented_keys, produced_keys

torch_only = [pytest.mark.torch, pytest.mark.skipif(not have("torch"), reason="needs torch")]
keras_only = [pytest.mark.keras, pytest.mark.skipif(
    not (have("keras") and have("tensorflow")), reason="needs keras and tensorflow")]

# id -> (code, the call that fails, the layer at fault, the argument, text in the fix,
#        the code changed as the fix says)
TORCH: dict[str, tuple[str, str, str, str, str, tuple[str, str]]] = {
    "h0-of-a-bidirectional-stack": ("""
        import torch
        import torch.nn as nn
        class Net(nn.Module):
            def __init__(self, features=20, hidden=20, depth=3):
                super().__init__()
                self.depth, self.hidden = depth, hidden
                self.gru = nn.GRU(features, hidden, depth, batch_first=True, bidirectional=True)
            def forward(self, x):
                state = torch.randn(self.depth, x.size(0), self.hidden)
                return self.gru(x, state)
        """, "Net()(torch.zeros(3, 5, 20))", "gru",
        "h_0's first dimension (num_layers * num_directions)",
        "(3 * 2, batch, 20), so its first dimension is 6, not 3; bidirectional=True doubles it",
        ("torch.randn(self.depth, x", "torch.randn(self.depth * 2, x")),
    "batch-first-missing": ("""
        import torch
        from torch import nn
        class Encoder(nn.Module):
            def __init__(self):
                super().__init__()
                self.gru = nn.GRU(8, 16)
            def forward(self, x):
                hidden = torch.zeros(1, x.size(0), 16)
                return self.gru(x, hidden)
        """, "Encoder()(torch.zeros(3, 5, 8))", "gru", "batch_first",
        "build gru with batch_first=True",
        ("nn.GRU(8, 16)", "nn.GRU(8, 16, batch_first=True)")),
    "h0-wider-than-hidden": ("""
        import torch
        from torch import nn
        rnn = nn.RNN(8, 16, batch_first=True)
        def run(x):
            h = torch.zeros(1, x.size(0), 32)
            return rnn(x, h)
        """, "run(torch.zeros(3, 5, 8))", "rnn", "h_0's last dimension",
        "the layer's hidden_size (proj_size when projecting), 16, not 32",
        ("torch.zeros(1, x.size(0), 32)", "torch.zeros(1, x.size(0), 16)")),
    "after-a-bidirectional-layer": ("""
        import torch
        import torch.nn as nn
        class Seq(nn.Module):
            def __init__(self, hidden=16):
                super().__init__()
                self.encoder = nn.LSTM(8, hidden, batch_first=True, bidirectional=True)
                self.drop = nn.Dropout(0.1)
                self.decoder = nn.LSTM(hidden, hidden, batch_first=True)
            def forward(self, x):
                out, _ = self.encoder(x)
                return self.decoder(self.drop(out))
        """, "Seq()(torch.zeros(2, 7, 8))", "decoder", "input_size",
        "encoder outputs 32 features (bidirectional: 2 * 16): build decoder with input_size=32",
        ("nn.LSTM(hidden, hidden, batch_first", "nn.LSTM(2 * hidden, hidden, batch_first")),
    "conv1d-channels-first": ("""
        import torch
        import torch.nn as nn
        class Tagger(nn.Module):
            def __init__(self):
                super().__init__()
                self.conv = nn.Conv1d(8, 32, kernel_size=3, padding=1)
                self.relu = nn.ReLU()
                self.lstm = nn.LSTM(32, 64, batch_first=True)
            def forward(self, x):
                return self.lstm(self.relu(self.conv(x)))
        """, "Tagger()(torch.zeros(2, 8, 50))", "lstm", "the input's layout",
        "x.transpose(1, 2)",
        ("self.lstm(self.relu(self.conv(x)))",
         "self.lstm(self.relu(self.conv(x)).transpose(1, 2))")),
    "linear-after-a-bidirectional-layer": ("""
        import torch
        import torch.nn as nn
        class Classifier(nn.Module):
            def __init__(self, hidden=128, classes=10):
                super().__init__()
                self.lstm = nn.LSTM(32, hidden, batch_first=True, bidirectional=True)
                self.fc = nn.Linear(hidden, classes)
            def forward(self, x):
                out, _ = self.lstm(x)
                return self.fc(out[:, -1, :])
        """, "Classifier()(torch.zeros(4, 6, 32))", "fc", "in_features",
        "lstm outputs 256 features (bidirectional: 2 * 128): build fc with in_features=256",
        ("nn.Linear(hidden, classes)", "nn.Linear(2 * hidden, classes)")),
    "linear-on-a-flattened-h-n": ("""
        import torch
        import torch.nn as nn
        class Classifier(nn.Module):
            def __init__(self, hidden=24):
                super().__init__()
                self.gru = nn.GRU(10, hidden, num_layers=2, batch_first=True)
                self.fc = nn.Linear(hidden, 3)
            def forward(self, x):
                _, h_n = self.gru(x)
                return self.fc(h_n.permute(1, 0, 2).reshape(x.size(0), -1))
        """, "Classifier()(torch.zeros(5, 4, 10))", "fc", "what reaches it",
        "take the last layer's: h_n[-1]",
        ("h_n.permute(1, 0, 2).reshape(x.size(0), -1)", "h_n[-1]")),
}


def provoke(code: str, failing: str) -> str:
    """Run the trusted code with the real framework and return the message the failing call
    raises, as the last line of a traceback prints it."""
    namespace: dict[str, Any] = {}
    exec(textwrap.dedent(code), namespace)
    with pytest.raises(RuntimeError) as raised:
        eval(failing, namespace)
    return f"{type(raised.value).__name__}: {raised.value}"


def paste(code: str, message: str) -> str:
    """The question as people post it: the code, then the traceback's last lines."""
    return (textwrap.dedent(code) + "\nand I get\n\nTraceback (most recent call last):\n"
            '  File "train.py", line 30, in <module>\n' + message + "\n")


def the_finding(text: str) -> RuntimeFinding:
    """The one runtime error ``read`` finds in ``text``."""
    answer = read(text)
    [finding] = answer.errors
    assert "runtime-error" in answer.kinds
    assert answer.title.endswith(f"{finding.argument} of {finding.layer}")
    return finding


@pytest.mark.parametrize("case", TORCH, ids=list(TORCH))
@pytest.mark.parametrize("mark", [pytest.param(None, marks=torch_only)], ids=["torch"])
def test_torch_errors_name_the_argument_and_the_fix(case: str, mark: None) -> None:
    """torch's own message, pasted with the code: the layer, the argument at fault and the fix
    are named, and the code changed as the fix says runs in torch."""
    code, failing, layer, argument, fix, (old, new) = TORCH[case]
    message = provoke(code, failing)
    finding = the_finding(paste(code, message))
    assert (finding.framework, finding.layer, finding.argument) == ("torch", layer, argument)
    assert fix in finding.fix
    assert finding.message in message
    fixed: dict[str, Any] = {}
    exec(textwrap.dedent(code).replace(old, new), fixed)
    eval(failing, fixed)


def test_the_message_alone_lists_what_fits() -> None:
    """A message without its code still gets the argument and the fix, with every cause that
    fits where the code would decide (here batch_first or the state's batch)."""
    answer = read("RuntimeError: Expected hidden[0] size (2, 5, 16), got [2, 3, 16]\n")
    [finding] = answer.errors
    assert finding.layer is None and not answer.models
    assert finding.argument == "batch_first or the batch size"
    assert "lacks batch_first=True" in finding.fix


def test_set_tells_the_directions() -> None:
    """Without code, ``--set num_layers=N`` says how many directions torch expects."""
    answer = read("Expected hidden[0] size (4, 3, 20), got [2, 3, 20]", {"num_layers": 2})
    assert "with --set num_layers=2: 2 direction(s)" in answer.errors[0].fix


@pytest.mark.parametrize("mark", [pytest.param(None, marks=torch_only)], ids=["torch"])
def test_json_lists_the_errors(cli: CLI, tmp_path: Path, mark: None) -> None:
    """``--json`` gives each runtime error with its line, layer, argument and fix."""
    code, failing, *_ = TORCH["after-a-bidirectional-layer"]
    path = tmp_path / "question.txt"
    path.write_text(paste(code, provoke(code, failing)))
    result = cli("read", str(path), "--json")
    assert result.code == 0
    [error] = json.loads(result.out)["errors"]
    assert error["framework"] == "torch" and error["layer"] == "decoder"
    assert error["line"] == len(textwrap.dedent(code).splitlines()) + 6
    assert error["message"] == "input.size(-1) must be equal to input_size. Expected 16, got 32"
    documented = {k for k in documented_keys() if k.startswith("errors")}
    assert {k for k in produced_keys(json.loads(result.out)) if k.startswith("errors")} == (
        documented)


# id -> (code building ``model``, the layer at fault, the argument, text in the fix,
#        the code changed as the fix says)
KERAS: dict[str, tuple[str, str, str, str, tuple[str, str]]] = {
    "stacked-without-return-sequences": ("""
        import keras
        from keras import layers
        model = keras.Sequential([
            keras.Input(shape=(10, 8)),
            layers.LSTM(16),
            layers.LSTM(8),
            layers.Dense(1),
        ])
        """, "lstm_1", "return_sequences",
        "build lstm with return_sequences=True to feed lstm_1 a sequence",
        ("layers.LSTM(16)", "layers.LSTM(16, return_sequences=True)")),
    "input-without-a-time-axis": ("""
        import keras
        from keras import layers
        inputs = keras.Input(shape=(10,))
        x = layers.GRU(8)(inputs)
        model = keras.Model(inputs, layers.Dense(1)(x))
        """, "gru", "the input's shape", "Input(shape=(timesteps, 10))",
        ("shape=(10,)", "shape=(None, 10)")),
    "after-a-dense-layer": ("""
        from tensorflow import keras
        from tensorflow.keras import layers
        model = keras.Sequential()
        model.add(keras.Input(shape=(12,)))
        model.add(layers.Dense(16))
        model.add(layers.Bidirectional(layers.LSTM(4)))
        """, "bidirectional", "the layer before", "RepeatVector(timesteps)",
        ("model.add(layers.Dense(16))",
         "model.add(layers.Dense(16))\nmodel.add(layers.RepeatVector(3))")),
}


def keras_source(code: str, module: str) -> str:
    """The trusted Keras code with its imports made ``module``'s (``keras`` or ``tf_keras``)."""
    source = textwrap.dedent(code)
    for old, new in (("from tensorflow.keras import", f"from {module} import"),
                     ("from tensorflow import keras", f"import {module} as keras"),
                     ("from keras import", f"from {module} import"),
                     ("import keras\n", f"import {module} as keras\n")):
        source = source.replace(old, new)
    return source


def build_error(code: str, module: str) -> str:
    """The first line of the message building ``code`` with ``module`` raises."""
    with pytest.raises(ValueError) as raised:
        exec(keras_source(code, module), {})
    return f"ValueError: {raised.value}".splitlines()[0]


@pytest.mark.parametrize("case", KERAS, ids=list(KERAS))
@pytest.mark.parametrize("module", [pytest.param("keras", marks=keras_only),
                                    pytest.param("tf_keras", marks=keras_only)],
                         ids=["keras3", "keras2"])
def test_keras_rank_errors_name_the_layer_and_the_fix(case: str, module: str) -> None:
    """Keras' own message (Keras 3's and Keras 2's wording), pasted with the code: the layer,
    what feeds it and the fix; the code changed as the fix says builds."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    keras = pytest.importorskip(module)
    code, layer, argument, fix, (old, new) = KERAS[case]
    keras.backend.clear_session()
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=UserWarning)
        message = build_error(code, module)
        finding = the_finding(paste(code, message))
        assert (finding.framework, finding.layer, finding.argument) == ("keras", layer,
                                                                        argument)
        assert fix in finding.fix
        keras.backend.clear_session()
        exec(keras_source(textwrap.dedent(code).replace(old, new), module), {})


def test_docstring_examples() -> None:
    """The examples in the runtime-error reader's and the code reader's docstrings run."""
    import doctest
    import importlib

    for module in ("paramcount.reading.messages.runtime_error",
                   "paramcount.reading.code.python_code"):
        result = doctest.testmod(importlib.import_module(module))
        assert result.failed == 0 and result.attempted > 0, module


# id -> (the Input's shape, the data's shape, the argument, text in the fix, the data fixed);
# Keras 2 says "expected ndim=3" of the LSTM for data without a time axis, which also fits a
# recurrent layer before it without return_sequences: both causes are given.
DATA: dict[str, tuple[tuple[int | None, ...], tuple[int, ...], set[str], str, str]] = {
    "features": ((10, 8), (4, 10, 16), {"the input's features"}, "or feed 8", "x[:, :, :8]"),
    "no-time-axis": ((None, 8), (4, 8), {"a time axis", "return_sequences or a time axis"},
                     "time axis", "x[:, None, :]"),
}


@pytest.mark.parametrize("case", DATA, ids=list(DATA))
@pytest.mark.parametrize("module", [pytest.param("keras", marks=keras_only),
                                    pytest.param("tf_keras", marks=keras_only)],
                         ids=["keras3", "keras2"])
def test_keras_data_that_does_not_fit_the_input(case: str, module: str) -> None:
    """Data fed to a model whose Input declares another shape (Keras 3's and Keras 2's
    wording): the features or the time axis at fault; the data changed as the fix says fits."""
    import numpy as np

    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    keras = pytest.importorskip(module)
    shape, data, argument, fix, fixed = DATA[case]
    model = keras.Sequential([keras.Input(shape=shape), keras.layers.LSTM(4)])
    x = np.zeros(data, dtype="float32")
    with pytest.raises(ValueError) as raised:
        model.predict(x, verbose=0)
    [finding] = read(f"Traceback (most recent call last):\n{raised.value}\n").errors
    assert finding.framework == "keras" and finding.argument in argument
    assert fix in finding.fix
    model.predict(eval(fixed, {"x": x}), verbose=0)
