"""The forms one step beside the torch reprs ``docs/read.md`` names (issue 36): a wrapped,
quantized, parametrized or scripted model's ``print(model)``, and the listings of its modules
(``named_modules()``, ``modules()``, ``named_children()``, ``children()``), each printed by
torch at test time and read back exact, as a bound naming what was not read, or as "nothing
countable found" with the reason."""

from __future__ import annotations

import contextlib
import io
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from paramcount.reading.pipeline import NothingFound, read

torch = pytest.importorskip("torch")
nn = torch.nn


class Tagger(nn.Module):  # type: ignore[misc]
    """An embedding, an LSTM(16, 32) and a Linear: 8,330 parameters."""

    def __init__(self) -> None:
        super().__init__()
        self.emb = nn.Embedding(100, 16)
        self.lstm = nn.LSTM(16, 32, batch_first=True)
        self.fc = nn.Linear(32, 10)

    def forward(self, x: Any) -> Any:
        """The LSTM's last step through the Linear."""
        return self.fc(self.lstm(self.emb(x))[0][:, -1])


class Nested(nn.Module):  # type: ignore[misc]
    """Containers among the children: a Sequential and a folded ModuleList."""

    def __init__(self) -> None:
        super().__init__()
        self.emb = nn.Embedding(50, 8)
        self.rnn = nn.Sequential(nn.GRU(8, 16), nn.Dropout(0.1))
        self.head = nn.ModuleList([nn.Linear(16, 4) for _ in range(3)])


def _printed(show: Callable[[], None]) -> str:
    """What ``show`` prints."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        show()
    return out.getvalue()


def _total(net: Any) -> int:
    """torch's own count."""
    return sum(p.numel() for p in net.parameters())


def _named_modules_loop(net: Any) -> str:
    """``for name, m in model.named_modules(): print(name, m)``."""
    return _printed(lambda: [print(n, m) for n, m in net.named_modules()] and None)


def _named_children_loop(net: Any) -> str:
    """``for name, m in model.named_children(): print(name, m)``."""
    return _printed(lambda: [print(n, m) for n, m in net.named_children()] and None)


def _quantized(net: Any) -> Any:
    """``quantize_dynamic`` of the LSTM and Linear."""
    return torch.ao.quantization.quantize_dynamic(net, {nn.LSTM, nn.Linear})


def _spectral(net: Any) -> Any:
    """The Linear under ``parametrizations.spectral_norm``: the same tensors, u and v buffers."""
    net.fc = nn.utils.parametrizations.spectral_norm(net.fc)
    return net


EXACT: dict[str, tuple[Callable[[], Any], Callable[[Any], str]]] = {
    "torch.compile": (Tagger, lambda net: repr(torch.compile(net))),
    "DataParallel": (Tagger, lambda net: repr(nn.DataParallel(net))),
    "quantize_dynamic": (Tagger, lambda net: repr(_quantized(net))),
    "spectral_norm": (Tagger, lambda net: repr(_spectral(net))),
    "named_modules-loop": (Tagger, _named_modules_loop),
    "named_modules-list": (Tagger, lambda net: repr(list(net.named_modules()))),
    "modules-list": (Tagger, lambda net: repr(list(net.modules()))),
    "named_children-loop": (Tagger, _named_children_loop),
    "children-list": (Tagger, lambda net: repr(list(net.children()))),
    "nested-named_modules-loop": (Nested, _named_modules_loop),
    "nested-named_modules-list": (Nested, lambda net: repr(list(net.named_modules()))),
    "nested-modules-list": (Nested, lambda net: repr(list(net.modules()))),
    "nested-named_children-loop": (Nested, _named_children_loop),
    "repr-then-named_children": (Tagger, lambda net: repr(net) + "\n" + _named_children_loop(
        net)),
}


@pytest.mark.parametrize("form", sorted(EXACT))
def test_neighbouring_forms_read_exact(form: str) -> None:
    """Each form gives one model, the framework's exact total (a quantized model's as the
    float model's: the same weights, packed), and no disagreement; a listing that repeats the
    model's modules after its repr counts them once."""
    import warnings

    build, printer = EXACT[form]
    net = build()
    total = _total(net)
    with warnings.catch_warnings():  # torch's own deprecation warnings, not paramcount's
        warnings.simplefilter("ignore")
        text = printer(net)
    answer = read(text)
    assert [m.total for m in answer.models] == [total]
    assert not answer.disagreements and not answer.unresolved


def test_weight_norm_is_a_bound_naming_its_magnitude() -> None:
    """``weight_norm`` adds a magnitude whose size depends on ``dim``, which the repr does not
    show: the total is a bound over every other tensor, and the answer names the
    parametrization."""
    net = Tagger()
    net.fc = nn.utils.parametrizations.weight_norm(net.fc)
    (model,) = read(repr(net)).models
    assert model.total is None and model.at_least == _total(Tagger())
    assert "_WeightNorm" in model.bound and "dim" in model.bound


_SCRIPTED = '''
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(100, 16)
        self.lstm = nn.LSTM(16, 32)

    def forward(self, x):
        return self.lstm(self.emb(x))[0]


print(repr(torch.jit.script(Net())))
'''


def test_scripted_repr_says_it_has_no_sizes(tmp_path: Path) -> None:
    """``torch.jit.script``'s repr prints classes and no sizes: "nothing countable found",
    saying why (scripting needs the class's source in a file, so it is scripted in a child)."""
    import subprocess
    import sys

    script = tmp_path / "scripted.py"
    script.write_text(_SCRIPTED)
    text = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          check=True, timeout=300).stdout
    assert "RecursiveScriptModule(original_name=" in text
    with pytest.raises(NothingFound, match=r"scripted module .*none of its sizes"):
        read(text)


def _keras_model(keras: Any) -> Any:
    """An Embedding, an LSTM(32) and a Dense(10) over 20 tokens: 8,202 weights."""
    model = keras.Sequential([keras.layers.Embedding(100, 16, name="embedding"),
                              keras.layers.LSTM(32, name="lstm"),
                              keras.layers.Dense(10, name="dense")])
    model.build((None, 20))
    return model


@pytest.mark.parametrize("attribute", ["weights", "trainable_weights"])
@pytest.mark.parametrize("package", ["keras", "tf_keras"])
def test_printed_variable_lists_read_exact(package: str, attribute: str) -> None:
    """``print(model.weights)`` (a list of variables, each with its values, one closing ``>, <``
    where the next begins) gives every variable, the exact total: Keras 3's ``<Variable
    path=..., shape=...`` and tf-keras' ``<tf.Variable '...:0' shape=...``."""
    keras = pytest.importorskip(package)
    model = _keras_model(keras)
    text = repr(getattr(model, attribute))
    assert text.count("Variable") == 6
    (read_model,) = read(text).models
    assert read_model.total == model.count_params()
    assert len(read_model.tensors) == 6


@pytest.mark.parametrize("width", [120, 200])
def test_keras_summary_wider_than_the_console(width: int) -> None:
    """``model.summary(line_length=200)`` on an 80-column console is cropped to its layer
    column (rich crops the table, Keras prints the totals whole): the layers are read by name
    and class, the printed total is the model's, and no other total is claimed."""
    keras = pytest.importorskip("keras")
    model = _keras_model(keras)
    text = _printed(lambda: model.summary(line_length=width))
    assert "Param #" not in text
    (read_model,) = read(text).models
    assert [layer.name for layer in read_model.layers] == ["embedding", "lstm", "dense"]
    assert read_model.printed_total == model.count_params()
    assert read_model.total in (None, model.count_params())


def test_quantized_layers_say_parameters_lists_none() -> None:
    """A dynamically quantized model's repr is counted as its float layers, and the answer says
    that ``parameters()`` lists none of their packed weights (``summary`` shows 1,600)."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        text = repr(_quantized(Tagger()))
    (model,) = read(text).models
    assert model.total == _total(Tagger())
    assert any("`model.parameters()` lists none" in note and "DynamicQuantizedLSTM" in note
               for note in model.notes)


def test_keras_get_config_says_it_is_not_read() -> None:
    """``print(model.get_config())`` is not read yet: "nothing countable found" says so and
    what to paste instead, rather than the bare list of what was looked for."""
    keras = pytest.importorskip("keras")
    text = repr(_keras_model(keras).get_config())
    with pytest.raises(NothingFound, match=r"get_config\(\)"):
        read(text)
