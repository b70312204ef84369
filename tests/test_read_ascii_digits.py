"""Digits in a paste are ASCII digits (issue 39, item 3): a count or a shape written with
Arabic-Indic (``٣``) or superscript (``²``) digits, in a table, a listing, a repr or code, is
never read as the number those digits stand for: its line is named unread, or its value is not
taken, and no total but the truth is claimed. Every paste is printed by the real printer at test
time; one number in it is then written in other digits (a different number, so a reading of
them would show)."""

from __future__ import annotations

import contextlib
import io
import warnings
from collections.abc import Callable
from typing import Any

import pytest

from paramcount.reading.pipeline import Answer, NothingFound, read
from paramcount.usertext import foreign_digits
from tests.conftest import have

pytest.importorskip("torch")

DIGITS = {
    "arabic-indic": str.maketrans("0123456789", "٠١٢٣٤٥٦٧٨٩"),
    "superscript": str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹"),
}
"""The digits a paste's number is written in: each is a digit to ``str.isdigit`` and to
``re``'s ``\\d``, and ``int`` reads the first kind."""


def _net() -> Any:
    """An embedding (400) and a two-layer LSTM (3,840): 4,240 parameters."""
    from torch import nn

    return nn.Sequential(nn.Embedding(50, 8), nn.LSTM(8, 16, num_layers=2))


def _example() -> Any:
    """A batch of token ids for :func:`_net`."""
    import torch

    return torch.zeros(3, 4, dtype=torch.long)


def _repr() -> str:
    """``print(model)``."""
    return str(_net()) + "\n"


def _named() -> str:
    """``for n, p in model.named_parameters(): print(n, p.shape)``."""
    return "\n".join(f"{n} {p.shape}" for n, p in _net().named_parameters()) + "\n"


def _state_dict() -> str:
    """A state dict printed as a dict."""
    return str({k: v.shape for k, v in _net().state_dict().items()}) + "\n"


def _torchinfo() -> str:
    """torchinfo's table."""
    from torchinfo import summary

    return str(summary(_net(), input_data=_example(), verbose=0)) + "\n"


def _fvcore() -> str:
    """fvcore's ``parameter_count_table``."""
    from tests.printers_generic import fvcore_parameters

    return fvcore_parameters(_net())


def _lightning() -> str:
    """Lightning's ModelSummary with its sizes."""
    from tests.printers_more import lightning_text

    return lightning_text(_net(), _example(), False, 1, True)


def _keras(era: int) -> Callable[[], str]:
    """``summary()`` of an embedding (400) and an LSTM (1,600) by Keras 3 or tf-keras."""
    def made() -> str:
        from tests.printers import quiet_tensorflow

        quiet_tensorflow()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            import keras
            import tf_keras

            module = keras if era == 3 else tf_keras
            model = module.Sequential([module.layers.Input((4,)),
                                       module.layers.Embedding(50, 8), module.layers.LSTM(16)])
            if era == 2:
                lines: list[str] = []
                model.summary(print_fn=lambda line, *args, **kwargs: lines.append(line))
                return "\n".join(lines) + "\n"
            with contextlib.redirect_stdout(io.StringIO()) as out:
                model.summary()
            return out.getvalue()
    return made


def _code() -> str:
    """The code that builds :func:`_net`, as a post shows it."""
    return ("import torch.nn as nn\n"
            "model = nn.Sequential(nn.Embedding(50, 8), nn.LSTM(8, 16, num_layers=2))\n"
            "print(model)\n")


def _torch_class() -> str:
    """The same model as a class."""
    return ("import torch.nn as nn\n\nclass Net(nn.Module):\n    def __init__(self):\n"
            "        super().__init__()\n        self.emb = nn.Embedding(50, 8)\n"
            "        self.rnn = nn.LSTM(8, 16, num_layers=2)\n")


KERAS = pytest.mark.skipif(not (have("keras") and have("tensorflow") and have("tf_keras")),
                           reason="needs keras 3, tensorflow and tf-keras")
CASES = [
    # (id, paste, truth, the number as printed, the number written in other digits instead)
    pytest.param(_repr, 4240, "LSTM(8, 16", "LSTM(8, 17", id="print(model) hidden size"),
    pytest.param(_named, 4240, "[64, 8]", "[65, 8]", id="named_parameters() shape"),
    pytest.param(_state_dict, 4240, "[64, 8]", "[65, 8]", id="state dict shape"),
    pytest.param(_torchinfo, 4240, "3,840", "3,841", id="torchinfo count"),
    pytest.param(_torchinfo, 4240, "Total params: 4,240", "Total params: 4,241",
                 id="torchinfo total"),
    pytest.param(_fvcore, 4240, "(64, 8)", "(65, 8)", id="fvcore shape",
                 marks=pytest.mark.skipif(not have("fvcore"), reason="needs fvcore")),
    pytest.param(_lightning, 4240, "| 400 ", "| 401 ", id="Lightning count",
                 marks=pytest.mark.skipif(not have("lightning"), reason="needs lightning")),
    pytest.param(_keras(3), 2000, "1,600", "1,601", id="Keras 3 count", marks=KERAS),
    pytest.param(_keras(2), 2000, "1600", "1601", id="Keras 2 count", marks=KERAS),
    pytest.param(_keras(2), 2000, "Total params: 2000", "Total params: 2001",
                 id="Keras 2 total", marks=KERAS),
    pytest.param(_code, 4240, "LSTM(8, 16", "LSTM(8, 17", id="code, one line"),
    pytest.param(_torch_class, 4240, "LSTM(8, 16", "LSTM(8, 17", id="code, a class"),
]


def _numbers(answer: Answer) -> set[int]:
    """Every count the answer claims or shows: totals (claimed and printed), layers' counts,
    printed counts."""
    found = {m.total for m in answer.models} | {m.printed_total for m in answer.models} | {
        n for m in answer.models for layer in m.layers for n in (layer.params, layer.printed)}
    return {n for n in found if n is not None}


@pytest.mark.parametrize("digits", list(DIGITS), ids=list(DIGITS))
@pytest.mark.parametrize(("make", "truth", "printed", "other"), CASES)
def test_a_number_in_other_digits_is_not_read_as_that_number(
        make: Callable[[], str], truth: int, printed: str, other: str, digits: str) -> None:
    """One number of a real printout (or of code) written in other digits: no count that
    number gives (read in ASCII digits) is claimed or shown, every total claimed is the
    truth, and the line is named unread or the value left out; never a traceback."""
    text = make()
    assert printed in text, text
    changed = other.translate(DIGITS[digits])
    paste = text.replace(printed, changed, 1)
    line = paste[:paste.index(changed)].count("\n") + 1
    try:
        answer = read(paste)
    except NothingFound as refused:  # nothing else to count: the line is named
        assert f"line {line} " in str(refused), str(refused)
        return
    wrong = _numbers(read(text.replace(printed, other, 1))) - _numbers(read(text))
    assert wrong, "the number written in ASCII digits changes no count: the test would not fail"
    assert not wrong & _numbers(answer), (wrong & _numbers(answer), paste)
    assert all(m.total in (None, truth) for m in answer.models), paste
    assert not answer.disagreements, answer.disagreements
    unread = {u.line for m in answer.models for u in m.accounting.unread}
    taken = {layer.printed for m in answer.models for layer in m.layers if layer.line == line}
    assert line in unread or taken <= {None}, (unread, taken, paste)


def test_no_reader_matches_digits_with_backslash_d() -> None:
    """No regular expression of the paste readers spells a digit ``\\d`` (which matches ``٣``
    and ``²``): they spell ``[0-9]``."""
    from pathlib import Path

    import paramcount.reading

    root = Path(paramcount.reading.__file__).parent
    spelled = [str(path.relative_to(root)) for path in sorted(root.rglob("*.py"))
               if "\\d" in path.read_text(encoding="utf-8")]
    assert spelled == []


@pytest.mark.parametrize("line", [
    "model = nn.Sequential(nn.Embedding(50, 8), nn.LSTM(8, 16 num_layers=2))",
    "model = nn.Sequential(nn.Embedding(50, 8), nn.LSTM(8, ١٦, num_layers=2))",
], ids=["a typo", "other digits"])
def test_a_code_line_whose_layer_does_not_parse_is_named(line: str) -> None:
    """A line of code whose layer call does not parse: the layers on it that do are read, the
    line is named unread and the total is a bound (it was claimed exact: 400)."""
    (model,) = read(f"import torch.nn as nn\n{line}\nprint(model)\n").models
    assert model.total is None and model.bound.startswith("at least 400")
    assert [u.line for u in model.accounting.unread] == [2]


@pytest.mark.parametrize(("text", "ascii"), [
    ("w torch.Size([64, 8])", None),
    ("w torch.Size([٦٤, 8])", "w torch.Size([00, 8])"),
    ("(64, 8²)", "(64, 80)"),
    ("３ K", "0 K"),
    ("lstm (LSTM)", None),
    ("naïve ×", None),
], ids=["ascii", "arabic-indic", "superscript", "fullwidth", "a name", "other non-ascii"])
def test_foreign_digits_are_told(text: str, ascii: str | None) -> None:
    """A text's digits that are not ASCII digits are told (written as ``0``, so a reader can
    see the line it would have read); a text without any is None."""
    assert foreign_digits(text) == ascii
