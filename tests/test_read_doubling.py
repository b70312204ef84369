"""``read`` takes linear time on any paste: doubling the paste at most doubles the time.

Each printer the readers know prints a small model here, at test time (torchinfo,
torchsummary, pytorch-model-summary, Lightning's plain and boxed tables, Keras 2 and Keras 3
summaries, Flax tabulate, ``print(model)``); its header line, its header block and the whole
printout are each repeated, and read at n and 2n copies (n chosen where one read takes about
0.1 s or more). The issue's own inputs are here too: header lines repeated (a header scanned
to the end of the paste: Keras 2 style 8,000 lines 16 s, boxed Keras 4,000 lines past 40 s,
Lightning 16,000 lines past 60 s), Lightning rows whose rounded counts send the solver
searching (no cache, no budget: 1,000 rows 106 s) and ``nn.Sequential(`` nested 10,000 deep.
Times are the best of three, compared within the test: the time at 2n must stay under three
times the time at n, which a quadratic reader (four times) does not.
"""

from __future__ import annotations

import contextlib
import io
import re
import time
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from paramcount.errors import ParamcountError
from paramcount.reading import budget
from paramcount.reading import solve as solving
from paramcount.reading.pipeline import read
from paramcount.reading.printout import header_reader, landmark_reader
from paramcount.reading.solve import solve
from paramcount.reading.tables import rounded
from tests.conftest import have

RATIO = 3.0
"""Twice the paste may take at most this many times as long (linear: 2; quadratic: 4)."""
FLOOR = 0.05
"""Seconds below which a time is noise on a shared machine: the ratio is taken over this."""
MOST_COPIES = 1 << 15


def _seconds(text: str) -> float:
    """The best of three times ``read`` takes on ``text`` (a refusal is an answer too)."""
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        with contextlib.suppress(ParamcountError):
            read(text)
        best = min(best, time.perf_counter() - start)
    return best


def assert_linear(make: Callable[[int], str], start: int = 64) -> None:
    """``make(n)`` and ``make(2n)`` read in times within :data:`RATIO`, n doubled from
    ``start`` until one read takes 0.1 s."""
    copies = start
    once = _seconds(make(copies))
    while once < 0.1 and copies < MOST_COPIES:
        copies *= 2
        once = _seconds(make(copies))
    twice = _seconds(make(2 * copies))
    if twice >= RATIO * max(once, FLOOR):  # measured once more: noise does not repeat, growth does
        once = min(once, _seconds(make(copies)))
        twice = min(twice, _seconds(make(2 * copies)))
    assert twice < RATIO * max(once, FLOOR), (
        f"{copies:,} copies: {once:.3f} s; {2 * copies:,}: {twice:.3f} s")


class _Net:
    """The torch model every torch printer prints: a GRU and a linear head (torchsummary
    cannot print an LSTM: its hook takes the (h, c) pair for a tensor)."""

    @staticmethod
    def build() -> tuple[Any, Any]:
        import torch

        class Net(torch.nn.Module):
            """A GRU and a head."""

            def __init__(self) -> None:
                super().__init__()
                self.gru = torch.nn.GRU(50, 360, batch_first=True)
                self.head = torch.nn.Linear(360, 7)

            def forward(self, x: Any) -> Any:
                """The head on the GRU's outputs."""
                return self.head(self.gru(x)[0])

        return Net(), torch.zeros(1, 5, 50)


def _torch_printouts() -> Iterator[tuple[str, str]]:
    import torch

    from tests.printers import dump_text, torchinfo_text, torchsummary_text
    from tests.printers_more import lightning_text, pms_text

    net, example = _Net.build()
    yield "print(model)", str(net) + "\n"
    yield "parameters() shapes", dump_text(torch.nn.RNN(4, 4, num_layers=3), "bare")
    yield "torchinfo", torchinfo_text(net, example, {"verbose": 0})
    yield "torchsummary", torchsummary_text(net, example)
    if have("pytorch_model_summary"):
        yield "pytorch-model-summary", pms_text(net, example, "default")
        yield "pytorch-model-summary hierarchical", pms_text(net, example, "show_hierarchical")
    if have("lightning"):
        yield "lightning", lightning_text(net, example, False, 1, True)
        yield "lightning boxed", lightning_text(net, example, True, 1, True)


def _keras_printouts() -> Iterator[tuple[str, str]]:
    from tests.printers import keras_text, quiet_tensorflow

    quiet_tensorflow()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import keras
        import tf_keras
    for era, module in ((2, tf_keras), (3, keras)):
        model = module.Sequential([module.Input((5, 50)), module.layers.LSTM(360),
                                   module.layers.Dense(7)])
        yield f"keras {era}", keras_text(model, era)


def _flax_printouts() -> Iterator[tuple[str, str]]:
    from tests.printers_more import FlaxPlan, flax_paste

    yield "flax tabulate", flax_paste(FlaxPlan(8, (("rnn", "LSTMCell", 16),
                                                    ("dense", "", 4)), 160)).text


@pytest.fixture(scope="module")
def printouts() -> dict[str, str]:
    """Each installed printer's printout of a small model, made now by the printer."""
    made: dict[str, str] = {}
    with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
        warnings.simplefilter("ignore")
        if have("torch"):
            made.update(_torch_printouts())
        if have("keras") and have("tf_keras") and have("tensorflow"):
            made.update(_keras_printouts())
        if have("flax") and have("jax"):
            made.update(_flax_printouts())
    return made


PRINTERS = ("print(model)", "parameters() shapes", "torchinfo", "torchsummary",
            "pytorch-model-summary", "pytorch-model-summary hierarchical", "lightning",
            "lightning boxed", "keras 2", "keras 3", "flax tabulate")


def _header(text: str) -> int:
    """The index of the line where a reader starts reading ``text``."""
    lines = text.split("\n")
    for index, line in enumerate(lines):
        if landmark_reader(line) or header_reader(lines, index) or line.endswith("(") or (
                "torch.Size" in line):
            return index
    raise AssertionError(f"no printout starts in {text!r}")


@pytest.mark.parametrize("printer", PRINTERS)
@pytest.mark.parametrize("part", ["header line", "header block", "whole printout"])
def test_every_printout_repeated_reads_in_linear_time(printouts: dict[str, str], printer: str,
                                                      part: str) -> None:
    """A printer's header line, its header with the lines around it, or its whole printout,
    repeated: twice the copies take at most about twice the time."""
    if printer not in printouts:
        pytest.skip(f"{printer} is not installed")
    text = printouts[printer]
    lines = text.split("\n")
    at = _header(text)
    unit = {"header line": lines[at] + "\n",
            "header block": "\n".join(lines[max(at - 2, 0):at + 2]) + "\n",
            "whole printout": text if text.endswith("\n") else text + "\n"}[part]
    assert_linear(lambda n: unit * n, 16 if part == "whole printout" else 256)


def _name(index: int) -> str:
    """A module name of three characters, its own for each index (below 1,296)."""
    digits = "abcdefghijklmnopqrstuvwxyz0123456789"
    return "g" + digits[index // 36 % 36] + digits[index % 36]


def _lightning_rows(text: str, rows: int, alike: bool) -> str:
    """Lightning's table with its GRU row repeated ``rows`` times (``alike``: the same row, one
    module listed again; else each a module of its own name reading a width of its own, so no
    two searches are alike)."""
    lines = text.split("\n")
    at = next(i for i, line in enumerate(lines) if "GRU" in line)
    row = lines[at]
    made = [row if alike else row.replace("[1, 5, 50] ", f"[1, 5, {50 + i % 900}]"[:11].ljust(11)
                                          ).replace("| gru ", f"| {_name(i)} ", 1)
            for i in range(rows)]
    return "\n".join(lines[:at] + made + lines[at + 1:]) + "\n"


@pytest.mark.parametrize("alike", [True, False], ids=["rows alike", "rows each their own"])
def test_lightning_rounded_rows_read_in_linear_time(printouts: dict[str, str], alike: bool
                                                    ) -> None:
    """Lightning rows whose rounded count sends the solver searching: alike rows are searched
    once, and all the searches of a paste share one budget."""
    if "lightning" not in printouts:
        pytest.skip("lightning is not installed")
    assert_linear(lambda n: _lightning_rows(printouts["lightning"], n, alike), 8)


def test_a_spent_budget_names_the_rows_it_cut(printouts: dict[str, str],
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """Rows whose search the paste's budget did not reach are named unread, and the model's
    total is a bound, not a number."""
    if "lightning" not in printouts:
        pytest.skip("lightning is not installed")
    monkeypatch.setattr(budget, "STEPS", 12)
    rounded.fits_in.cache_clear()  # searched before: free, and never cut
    answer = read(_lightning_rows(printouts["lightning"], 30, alike=False))
    (model,) = answer.models
    unread = model.accounting.unread
    assert unread and all(u.reason == budget.SPENT for u in unread)
    assert not model.accounting.whole
    assert any(layer.solution is not None for layer in model.layers)  # the first ones solved


@pytest.mark.parametrize("printer", ["torchinfo", "keras 3"])
def test_a_row_the_budget_did_not_search_claims_no_configuration(
        printouts: dict[str, str], monkeypatch: pytest.MonkeyPatch, printer: str) -> None:
    """A recurrent row whose count the paste's spent budget left unsearched keeps its printed
    count and claims no configuration, and says why (no disagreement is made of it)."""
    if printer not in printouts:
        pytest.skip(f"{printer} is not installed")
    monkeypatch.setattr(budget, "STEPS", 0)
    solve.cache_clear()  # solved before: free, and never cut
    solving._fits.cache_clear()  # the search itself too (another test's rows may be alike)
    answer = read(printouts[printer])
    layers = [layer for model in answer.models for layer in model.layers if layer.recurrent]
    assert layers and all(layer.spec is None for layer in layers)
    assert all(any(budget.SPENT in note for note in layer.notes) for layer in layers)
    assert not answer.disagreements


def test_unnamed_groupings_past_the_budget_are_too_many_to_list(
        printouts: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    """Bare shapes whose ways of grouping the paste's budget does not reach are said to be too
    many to list, none claimed."""
    if "parameters() shapes" not in printouts:
        pytest.skip("torch is not installed")
    monkeypatch.setattr(budget, "STEPS", 1)
    answer = read(printouts["parameters() shapes"])
    notes = [note for model in answer.models for layer in model.layers for note in layer.notes]
    assert any("too many ways to list" in note for note in notes), notes


def _nested(depth: int) -> str:
    """``nn.Sequential(`` nested ``depth`` deep around an LSTM."""
    return ("import torch.nn as nn\nm = " + "nn.Sequential(" * depth + "nn.LSTM(1, 2)"
            + ")" * depth + "\n")


def _nested_lines(depth: int) -> str:
    """The same, one ``nn.Sequential(`` a line."""
    return ("import torch.nn as nn\nm = " + "nn.Sequential(\n" * depth + "nn.LSTM(1, 2)"
            + ")\n" * depth)


@pytest.mark.parametrize("make", [_nested, _nested_lines], ids=["one line", "a line each"])
def test_deep_nesting_reads_in_linear_time(make: Callable[[int], str]) -> None:
    """Code nested deeper than paramcount reads is named unread at once, however deep: no
    search runs over it (10,000 deep ran past 60 s)."""
    assert_linear(make, 1024)


@pytest.mark.parametrize("make", [_nested, _nested_lines], ids=["one line", "a line each"])
def test_code_nested_too_deep_is_named_unread(make: Callable[[int], str]) -> None:
    """A paste of nothing but code nested too deep is refused in one line that says why."""
    with pytest.raises(ParamcountError, match="nest more than 100 deep") as refused:
        read(make(10_000))
    assert "\n" not in str(refused.value)


def test_code_beside_deep_nesting_is_a_bound() -> None:
    """Code read before a statement nested too deep is counted, its total a bound."""
    answer = read("import torch.nn as nn\nlstm = nn.LSTM(10, 20)\n" + _nested(300)[21:])
    (model,) = answer.models
    assert not model.accounting.whole
    assert "nest more than 100 deep" in model.accounting.words()


def _folded_repr() -> str:
    """``print(model)`` of a ModuleList of two alike LSTMs: torch folds them, ``(0-1): 2 x``."""
    import torch

    net = torch.nn.Module()
    net.layers = torch.nn.ModuleList([torch.nn.LSTM(10, 20) for _ in range(2)])
    return str(net) + "\n"


@pytest.mark.parametrize("where", ["repr fold index", "repr fold count", "lightning count",
                                   "lightning total"])
def test_digit_runs_past_4300_digits_are_answered(printouts: dict[str, str], where: str) -> None:
    """A printed number of 5,000 digits (``int`` refuses past 4,300: exit 70) is read as a
    number past every size: the paste is answered or refused in one line."""
    huge = "9" * 5000
    if where.startswith("repr"):
        pytest.importorskip("torch")
        text = _folded_repr()
        assert "(0-1): 2 x LSTM" in text
        text = text.replace("(0-1)", f"(0-{huge})") if where.endswith("index") else (
            text.replace("2 x LSTM", f"{huge} x LSTM"))
    else:
        if "lightning" not in printouts:
            pytest.skip("lightning is not installed")
        text = printouts["lightning"]
        text = re.sub(r"\d+ K" if where.endswith("count") else r"\d+ K(?=\s+Total params)",
                      f"{huge} K", text, count=1)
        assert huge in text
    try:
        read(text)
    except ParamcountError as refused:
        assert "\n" not in str(refused)


def test_folds_nested_in_folds_expand_within_a_bound() -> None:
    """A fold inside a fold, torch's own print with each raised to 100,000 copies (10¹⁰
    modules: the walk ran past 60 s, copying them one by one), keeps its first outer copy
    and names the outer fold unread: a bound no higher than the truth, read at once."""
    torch = pytest.importorskip("torch")
    nn = torch.nn

    def block() -> Any:
        made = nn.Module()
        made.layers = nn.ModuleList([nn.Linear(4, 4) for _ in range(3)])
        return made

    net = nn.Module()
    net.blocks = nn.ModuleList([block() for _ in range(3)])
    text = str(net) + "\n"
    assert text.count("(0-2): 3 x") == 2
    answer = read(text.replace("(0-2): 3 x", "(0-99999): 100000 x"))
    (model,) = answer.models
    assert not model.accounting.whole
    assert model.total is None and model.at_least == 100_000 * 20
    assert "more than 200,000 modules in all" in model.accounting.words()
