"""``paramcount read`` review: hostile arithmetic, layers the reader must not drop silently."""

from __future__ import annotations

import json
from pathlib import Path

from paramcount.reading.code.python_code import MAX_CODE_LINES, MAX_REPEAT
from paramcount.reading.pipeline import read
from tests.conftest import CLI


def test_repeated_squaring_stays_small() -> None:
    """``a = a * a`` repeated is not evaluated past a few hundred bits: the size that needs it
    is listed as unresolved, with no ``--set`` hint for an expression."""
    text = ("import torch.nn as nn\na = 2**64\n" + "a = a * a\n" * 6
            + "lstm = nn.LSTM(a % 7 + 1, 8)\n")
    answer = read(text)
    assert answer.models[0].layers[0].params is None
    assert answer.unresolved and all("--set" not in m.hint for m in answer.unresolved)


def test_list_repetition_is_bounded_not_truncated() -> None:
    """A list repeated past the unrolling limit is unresolved (no MemoryError from nested
    repeats, and never silently cut to fewer layers)."""
    nested = "import torch.nn as nn\na = [1] * 1000\nb = a * 1000\nlstm = nn.LSTM(len(b), 8)\n"
    assert read(nested).models[0].layers[0].params is None
    many = (f"import torch.nn as nn\nstack = nn.Sequential(*[nn.LSTM(4, 4)] * {MAX_REPEAT + 1})\n"
            "net = nn.Sequential(nn.Linear(4, 4), nn.Linear(4, 4))\n")
    answer = read(many)
    assert all(len(m.layers) != MAX_REPEAT for m in answer.models)


def test_layers_the_reader_cannot_count_are_never_dropped() -> None:
    """A ModuleList of unknown length, ``Sequential(*layers)`` and a torch.nn class paramcount
    does not know: the first two are read (or the model marked incomplete), the last listed
    as unresolved, and no total is given without them."""
    text = """\
import torch.nn as nn
class Deep(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.layers = nn.ModuleList([nn.LSTM(16, 16) for _ in range(cfg.n_layers)])
        self.fc = nn.Linear(16, 2)
class Attn(nn.Module):
    def __init__(self):
        super().__init__()
        layers = [nn.LSTM(8, 8), nn.LSTM(8, 8)]
        self.stack = nn.Sequential(*layers)
        self.attn = nn.MultiheadAttention(8, 2)
        self.loss = nn.CrossEntropyLoss()
"""
    deep, attn = read(text).models
    assert deep.total is None and [(u.line, u.reason) for u in deep.accounting.unread] == [
        (5, "a layer of layers is not known (cfg.n_layers)")]
    assert [layer.name for layer in attn.layers] == ["stack.0", "stack.1", "attn", "loss"]
    assert attn.layers[1].params == 576 and attn.layers[3].params == 0
    assert attn.total is None and attn.layers[2].missing


def test_layer_norm_over_a_list_of_axes() -> None:
    """``nn.LayerNorm([64])`` (a list, as people write it) counts like ``nn.LayerNorm(64)``."""
    answer = read("import torch.nn as nn\nnorm = nn.LayerNorm([2 * 32])\n"
                  "norm2 = nn.LayerNorm([4, 8], bias=False)\n")
    assert [m.total for m in answer.models] == [128, 32]


def test_keras_names_convlstm_as_keras_does() -> None:
    """Keras names a ConvLSTM2D ``conv_lstm2d``, the name its summary prints and the code is
    matched by (not ``conv_lst_m2d``)."""
    answer = read("from keras import layers\nimport keras\nmodel = keras.Sequential([\n"
                  "    keras.Input(shape=(4, 8, 8, 1)), layers.ConvLSTM2D(2, 3),\n"
                  "    layers.ConvLSTM2D(2, 3)])\n")
    assert [layer.name for layer in answer.models[0].layers] == [
        "conv_lstm2d", "conv_lstm2d_1"]


def test_a_model_from_code_alone_is_not_said_to_be_printed() -> None:
    """A paste of code without a recurrent layer or printout does not claim its counts were
    printed."""
    answer = read("import torch.nn as nn\nnet = nn.Sequential(nn.Linear(4, 2), nn.ReLU())\n")
    assert answer.title == "net: 10 parameters"
    assert "printed" not in answer.reason


def test_code_past_the_line_limit_is_not_parsed() -> None:
    """Python's syntax tree of a million short statements takes gigabytes: code past
    MAX_CODE_LINES is not parsed, and the models read name the first line left as not read."""
    text = ("import torch.nn as nn\nlstm = nn.LSTM(4, 8)\n" + "a = 1\n" * MAX_CODE_LINES
            + "gru = nn.GRU(4, 8)\n")
    answer = read(text)
    assert [m.name for m in answer.models] == ["lstm"]
    assert answer.models[0].total is None
    [unread] = answer.models[0].accounting.unread
    assert unread.line == MAX_CODE_LINES + 1  # the first line of code not read
    assert f"past {MAX_CODE_LINES:,} lines" in unread.reason


def test_a_latin1_paste_is_read(cli: CLI, tmp_path: Path) -> None:
    """A short paste saved as Latin-1 (its accents are not UTF-8) is text, not binary."""
    path = tmp_path / "question.txt"
    path.write_bytes("import torch.nn as nn\nlstm = nn.LSTM(4, 8)  # réglé à 8 unités cachées\n"
                     .encode("latin-1"))
    result = cli("read", str(path), "--json")
    assert result.code == 0
    assert json.loads(result.out)["recurrent"][0]["params"] == 4 * 8 * (4 + 8 + 2)


def test_keyword_spreads_are_applied_or_block_the_count() -> None:
    """``nn.LSTM(32, 64, **extra)`` spreads a dict the paste defines; ``**config`` it does not
    define leaves the layer uncounted (it was counted as if the options were absent)."""
    answer = read("import torch.nn as nn\nextra = dict(num_layers=2, bidirectional=True)\n"
                  "lstm = nn.LSTM(32, 64, **extra)\ngru = nn.GRU(32, 64, **config)\n"
                  "from keras import layers\nbi = layers.Bidirectional(layers.LSTM(8, **kw),"
                  " input_shape=(5, 4))\n")
    lstm, gru, bi = (m.layers[0] for m in answer.models)
    assert lstm.spec is not None and (lstm.spec.num_layers, lstm.spec.bidirectional) == (2, True)
    assert gru.params is None and bi.params is None
    assert [m.name for m in answer.unresolved] == ["**config", "**kw"]


def test_base_classes_and_conditional_layers() -> None:
    """A subclass counts the layers its base's ``__init__`` builds (with the arguments of
    ``super().__init__``, or through the base when it has no ``__init__``); a layer chosen by
    an unknown condition leaves the model without a total instead of being dropped."""
    text = """\
import torch.nn as nn
class Base(nn.Module):
    def __init__(self, hidden=32):
        super().__init__()
        self.lstm = nn.LSTM(16, hidden)
class Child(Base):
    def __init__(self):
        super().__init__(hidden=64)
        self.fc = nn.Linear(64, 2)
class Explicit(Base):
    def __init__(self):
        Base.__init__(self, 8)
class Same(Base):
    pass
class Other(nn.Module):
    def __init__(self, cell):
        super().__init__()
        self.rnn = nn.LSTM(8, 8) if cell == "lstm" else nn.GRU(8, 8)
        self.fc = nn.Linear(8, 1)
"""
    totals = {m.name: m.total for m in read(text).models}
    assert totals == {"Base": 6_400, "Child": 4 * 64 * (16 + 64 + 2) + 130,
                      "Explicit": 4 * 8 * (16 + 8 + 2), "Same": 6_400, "Other": None}


def test_a_class_that_builds_itself_is_read_once() -> None:
    """``self.a = A()`` inside ``A.__init__`` (twice) stops at once with a note, instead of
    reading a million nested instances."""
    text = ("import torch.nn as nn\nclass A(nn.Module):\n    def __init__(self):\n"
            "        super().__init__()\n        self.a = A()\n        self.b = A()\n"
            "        self.l = nn.LSTM(2, 2)\nm = A()\n")
    (model,) = read(text).models
    assert model.total is None
    assert [layer.params for layer in model.layers] == [4 * 2 * (2 + 2 + 2)]
    assert [(u.line, u.reason) for u in model.accounting.unread] == [
        (5, "A builds itself: read once"), (6, "A builds itself: read once")]


def test_a_dump_whose_names_repeat_loses_no_tensor() -> None:
    """Keras 3's ``for w in model.weights: print(w.name, w.shape)`` prints ``kernel`` for every
    layer: the dump's total is still every tensor's (it counted each name once)."""
    dump = ("kernel (12, 64)\nrecurrent_kernel (16, 64)\nbias (64,)\n"
            "kernel (12, 64)\nrecurrent_kernel (16, 64)\nbias (64,)\n"
            "kernel (8, 2)\nbias (2,)\n")
    (model,) = read(dump).models
    assert model.printed_total == model.total == 2 * (12 * 64 + 16 * 64 + 64) + 8 * 2 + 2


def test_a_repr_with_modules_paramcount_cannot_count_has_no_total() -> None:
    """``print(model)`` of a model with a MultiheadAttention (whose in_proj parameters the
    repr does not show) and an unknown leaf class: listed, and no total (592 of 880 was)."""
    text = """\
M(
  (lstm): LSTM(8, 8)
  (attn): MultiheadAttention(
    (out_proj): NonDynamicallyQuantizableLinear(in_features=8, out_features=8, bias=True)
  )
  (norm): LayerNorm((8,), eps=1e-05, elementwise_affine=True, bias=True)
  (pe): PositionalEncoding()
)
"""
    answer = read(text)
    (model,) = answer.models
    assert model.total is None
    assert {m.name for m in answer.unresolved} >= {"MultiheadAttention (attn)",
                                                   "PositionalEncoding (pe)"}


def test_a_submodule_the_paste_does_not_define_leaves_no_total() -> None:
    """``self.attn = Attention(hidden)`` imported from the asker's own code (a name Keras also
    has) or ``self.pe = PositionalEncoding(...)``: listed or noted, and no total is given
    (Attention was counted as a weightless Keras layer, PositionalEncoding dropped)."""
    text = """\
import torch
import torch.nn as nn
from .modules import Attention
class Net(nn.Module):
    def __init__(self, hidden=32):
        super().__init__()
        self.lstm = nn.LSTM(16, hidden, batch_first=True)
        self.attn = Attention(hidden)
        self.device = torch.device("cpu")
        self.fc = nn.Linear(hidden, 2)
class Other(nn.Module):
    def __init__(self):
        super().__init__()
        self.pe = PositionalEncoding(16)
        self.fc = nn.Linear(16, 2)
"""
    answer = read(text)
    net, other = answer.models
    assert net.total is None and [m.name for m in answer.unresolved] == ["Attention (attn)"]
    assert other.total is None and [u.line for u in other.accounting.unread
                                    if "PositionalEncoding" in u.reason] == [14]
