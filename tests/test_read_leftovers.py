"""``paramcount read`` on what issue 36 left from before: every size the paste leaves open named
once, with every name its total needs; a Flax ``tabulate`` at ``depth=1`` (one row per cell)
read to its printed total; a family's ``print(model)`` whose tied and untied counts are
structured candidates in the JSON, the library's default named. Every truth is the framework's,
built here."""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import pytest

from paramcount.reading.pipeline import read
from paramcount.reading.solve import same_configuration as same
from tests.conftest import CLI, have
from tests.printers_more import FlaxPlan, flax_paste, hf_paste
from tests.test_read_cli import documented_keys, produced_keys

_OPEN = """\
import torch.nn as nn


class Net(nn.Module):
    def __init__(self, hidden_size, num_class):
        super().__init__()
        self.lstm = nn.LSTM(hidden_size, hidden_size, bidirectional=True)
        self.fc = nn.Linear(hidden_size * 2, num_class)


model = Net(hidden_size, num_class)
"""


def _built(code: str, **sizes: int) -> int:
    """The count of the module-level ``model`` our own code builds with ``sizes`` bound (it is
    ours, not a paste: executing it is what makes it the truth)."""
    namespace: dict[str, Any] = {"__name__": "leftovers", **sizes}
    exec(compile(code, "<leftovers>", "exec"), namespace)
    return sum(p.numel() for p in namespace["model"].parameters())


def test_every_open_size_is_named_once() -> None:
    """``nn.LSTM(hidden_size, hidden_size)`` depends on hidden_size (named once, not twice),
    and the total needs num_class too (the Linear's): both are asked for, and with both set
    the total is torch's."""
    pytest.importorskip("torch")
    answer = read(_OPEN)
    assert [m.name for m in answer.unresolved] == ["hidden_size", "num_class"]
    assert answer.title.endswith("its count depends on hidden_size"), answer.title
    (lstm, fc) = answer.models[0].layers
    assert [m.name for m in lstm.missing] == ["hidden_size"]
    assert [m.name for m in fc.missing] == ["hidden_size", "num_class"]
    given = read(_OPEN, {"hidden_size": 7, "num_class": 3})
    assert given.models[0].total == _built(_OPEN, hidden_size=7, num_class=3)


FLAX_DEPTH_ONE = {
    "every cell, names cut": FlaxPlan(5, (("rnn", "LSTMCell", 7), ("bidir", "GRUCell", 3),
                                          ("rnn", "OptimizedLSTMCell", 4), ("dense", "", 6),
                                          ("rnn", "SimpleCell", 2)), 80, depth=1),
    "every cell, wide": FlaxPlan(5, (("rnn", "LSTMCell", 7), ("bidir", "GRUCell", 3),
                                     ("rnn", "OptimizedLSTMCell", 4), ("dense", "", 6),
                                     ("rnn", "SimpleCell", 2)), 160, depth=1),
    "LSTM, bidirectional GRU, Dense": FlaxPlan(20, (("rnn", "LSTMCell", 32),
                                                    ("bidir", "GRUCell", 8),
                                                    ("dense", "", 5)), 120, depth=1),
}


@pytest.mark.parametrize("plan", FLAX_DEPTH_ONE.values(), ids=FLAX_DEPTH_ONE.keys())
def test_flax_tabulate_at_depth_one(plan: FlaxPlan) -> None:
    """``tabulate(depth=1)`` prints each cell as one row with its whole count: each is read
    from its count and output shape (a Bidirectional pair as one layer), the total exact and
    flax's."""
    pytest.importorskip("flax")
    paste = flax_paste(plan)
    answer = read(paste.text)
    (model,) = [m for m in answer.models if m.source == "flax-tabulate"]
    specs = [layer.spec for layer in model.layers if layer.spec is not None]
    assert len(specs) == len(paste.truth.specs), model.layers
    assert all(same(a, b) for a, b in zip(specs, paste.truth.specs, strict=True))
    assert model.total == model.printed_total == paste.truth.total, model.bound


FAMILIES = {
    "mamba, tied": ("mamba", {
        "vocab_size": 50, "hidden_size": 8, "state_size": 4, "num_hidden_layers": 2,
        "expand": 2, "conv_kernel": 3, "use_bias": False, "use_conv_bias": True,
        "tie_word_embeddings": True}),
    "rwkv, untied": ("rwkv", {
        "vocab_size": 40, "hidden_size": 8, "num_hidden_layers": 2,
        "attention_hidden_size": 8, "intermediate_size": 12, "tie_word_embeddings": False}),
}


def _config_class(family: str) -> Any:
    """transformers' config class of a family."""
    import transformers

    names = {"mamba": "Mamba", "rwkv": "Rwkv"}
    return getattr(transformers, f"{names[family]}Config")


@pytest.mark.parametrize("family", FAMILIES.values(), ids=FAMILIES.keys())
def test_family_repr_candidates_in_the_json(cli: CLI, tmp_path: Path,
                                            family: tuple[str, dict[str, Any]]) -> None:
    """A family's ``print(model)`` fits its configuration with lm_head tied and untied: the
    JSON lists both as candidates (configuration, count, command, what sets them apart), one
    of them the truth, the library's default marked, and its keys those docs/read.md
    documents."""
    pytest.importorskip("transformers")
    name, values = family
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        paste = hf_paste(name, values)
    path = tmp_path / "repr.txt"
    path.write_text(paste.text)
    result = cli("read", str(path), "--json")
    assert result.code == 0, result.err
    data = json.loads(result.out)
    (model,) = data["models"]
    assert model["total"] is None
    candidates = model["candidates"]
    by_tie = {c["options"]["tie_word_embeddings"]: c for c in candidates}
    assert set(by_tie) == {True, False}
    assert by_tie[values["tie_word_embeddings"]]["params"] == paste.truth.total
    default = _config_class(name)().tie_word_embeddings  # the library's own default
    assert [c["options"]["tie_word_embeddings"] for c in candidates if c["default"]] == [default]
    for candidate in candidates:
        words = candidate["command"].split()[1:]
        assert cli(*words, "--json").code == 0
        assert json.loads(cli(*words, "--json").out)["total"] == candidate["params"]
    documented = {k for k in documented_keys() if k.startswith("models[].candidates")}
    produced = {k for k in produced_keys(data) if k.startswith("models[].candidates")
                and not k.startswith("models[].candidates[].options.")}  # keyed by field
    assert produced == documented


def test_no_candidates_where_one_total_fits() -> None:
    """A model read whole, with one total, lists no candidates."""
    answer = read("import torch.nn as nn\nlstm = nn.LSTM(4, 8)\n")
    assert [m.candidates for m in answer.models] == [()]


@pytest.mark.skipif(not have("flax"), reason="needs flax")
def test_flax_depth_one_cell_whose_count_fits_no_shape_is_not_claimed() -> None:
    """A depth-1 cell row whose count was changed fits no cell of its printed shapes: it is
    named unread and the total is only a bound, never a configuration made up to fit."""
    paste = flax_paste(FlaxPlan(20, (("rnn", "LSTMCell", 32), ("dense", "", 5)), 120,
                                depth=1))
    text = paste.text.replace("6,784", "6,785", 1)
    assert text != paste.text
    answer = read(text)
    (model,) = [m for m in answer.models if m.source == "flax-tabulate"]
    assert model.total is None and not any(layer.spec for layer in model.layers)
