"""A module listed once per call (haiku's ``tabulate`` of an unrolled core) is one module in
every table reader, not only in haiku's dialect: the real haiku table re-posted as a Markdown
pipe table or a space-aligned one is counted once per module path, and the answer says so;
rows that only share a bare name (under two parents, or a class's name) stay apart."""

from __future__ import annotations

import re
from typing import Any

import pytest

from paramcount.reading.pipeline import read
from paramcount.reading.tables.dialect import once
from paramcount.reading.tables.table import Row
from tests.conftest import have
from tests.printers_found import HaikuPlan, haiku_paste

needs_haiku = pytest.mark.skipif(not have("haiku"), reason="needs dm-haiku")

_ROW = re.compile(r"\| (?P<path>\S+) \((?P<type>\w+)[.\w]*\)\s*\|.*\|\s*(?P<count>[\d,]+) \|"
                  r"[^|]*\|$")


def _rows(text: str) -> list[tuple[str, str, str]]:
    """Each call's row of a real haiku table: (module path, class, Param count)."""
    return [(m["path"], m["type"], m["count"]) for line in text.splitlines()
            if (m := _ROW.match(line))]


_TENSOR = re.compile(r"\|[^|]*\|[^|]*\|\s*(?P<name>\w+): f32\[(?P<dims>[\d,]*)\]")


def _tensors(text: str) -> list[tuple[str, str]]:
    """Each call's tensors in a real haiku table: (``path/name``, its shape as torch prints a
    tuple), once per call."""
    found, path = [], ""
    for line in text.splitlines():
        if module := _ROW.match(line):
            path = module["path"]
        if tensor := _TENSOR.match(line):
            dims = tensor["dims"].split(",")
            found.append((f"{path}/{tensor['name']}",
                          f"({', '.join(dims)}{',' if len(dims) == 1 else ''})"))
    return found


def repost(text: str, form: str) -> str:
    """Haiku's table as a user re-posts it: its rows re-typed into a Markdown pipe table with
    other headers, into columns aligned by spaces, or its tensors one a row."""
    rows = _rows(text)
    if form == "tensors":
        return "| name | shape |\n|---|---|\n" + "".join(
            f"| {n} | {s} |\n" for n, s in _tensors(text))
    if form == "pipe":
        return "| Module | Kind | # Params |\n|---|---|---|\n" + "".join(
            f"| {p} | {t} | {c} |\n" for p, t, c in rows)
    width = max(len(p) for p, _, _ in rows) + 2
    return (f"{'Layer':<{width}}{'Type':<10}Params\n{'-' * (width + 16)}\n"
            + "".join(f"{p:<{width}}{t:<10}{c}\n" for p, t, c in rows))


PLANS = {"lstm-7-steps": HaikuPlan(16, 7, (("LSTM", 32),), False, 5),
         "gru-lstm-static": HaikuPlan(6, 4, (("GRU", 8), ("LSTM", 5)), True, 3),
         "vanilla-1-step": HaikuPlan(3, 1, (("VanillaRNN", 4),), False, 2)}


@needs_haiku
@pytest.mark.parametrize("form", ["pipe", "aligned", "tensors"])
@pytest.mark.parametrize("plan", list(PLANS.values()), ids=list(PLANS))
def test_haiku_table_reposted_counts_each_module_once(plan: HaikuPlan, form: str) -> None:
    """The real haiku table's rows re-typed as a pipe table (exact: its paths nest its counts),
    an aligned one (no total printed: a bound that holds) or a table of its tensors (exact)
    give the truth, never a count per call, and the answer names what was listed more than
    once."""
    paste = haiku_paste(plan)
    text = repost(paste.text, form)
    calls = ([n for n, _ in _tensors(paste.text)] if form == "tensors"
             else [p for p, _, _ in _rows(paste.text)])
    answer = read(text)
    assert len(answer.models) == 1
    model = answer.models[0]
    shown = sum(layer.params or 0 for layer in model.layers) or sum(
        count for _, _, count in model.tensors)
    assert shown == paste.truth.total, text
    if form != "aligned":
        assert model.total == paste.truth.total and model.accounting.whole
    else:
        assert model.total is None and not model.accounting.whole  # no total: "at least"
    again = sorted({p for p in calls if calls.count(p) > 1})
    notes = [n for n in model.notes if "more than once" in n]
    assert len(notes) == (1 if again else 0), (calls, model.notes)
    assert all(f"{p} ({calls.count(p)} rows)" in notes[0] for p in again), notes


def _row(name: str, kind: str, params: int | None, depth: int = 1) -> Row:
    """A table row as the readers build it."""
    return Row(name, kind, None, params, 1, depth)


CASES: dict[str, tuple[list[Row], list[str]]] = {
    "same path, same count": ([_row("lstm", "LSTM", 9), _row("lstm", "LSTM", 9)], ["lstm"]),
    "same path, other count": ([_row("lstm", "LSTM", 9), _row("lstm", "LSTM", 8)],
                               ["lstm", "lstm"]),
    "bare name under two parents": ([_row("enc", "Part", 0), _row("lstm", "LSTM", 9, 2),
                                     _row("dec", "Part", 0), _row("lstm", "LSTM", 9, 2)],
                                    ["enc", "lstm", "dec", "lstm"]),
    "a class's name": ([_row("Linear", "Linear", 20), _row("Linear", "", 20)],
                       ["Linear", "Linear"]),
    "no name": ([_row("", "Linear", 20), _row("", "Linear", 20)], ["", ""]),
    "no count (recursive)": ([_row("fc", "Linear", None), _row("fc", "Linear", None)],
                             ["fc", "fc"]),
    "a nested repeat": ([_row("lstm", "LSTM", 9), _row("lstm/linear", "Linear", 9, 2),
                         _row("lstm", "LSTM", 9), _row("lstm/linear", "Linear", 9, 2)],
                        ["lstm", "lstm/linear"]),
}


@pytest.mark.parametrize("case", list(CASES))
def test_once_keeps_only_one_full_paths_repeats(case: str) -> None:
    """Only a row whose full path (its name under its parents') and count repeat an earlier
    row's is left out; a bare name under other parents, a class's name, a row without a name
    or a count, and the same path with another count are kept."""
    rows, kept = CASES[case]
    found, note = once(rows)
    assert [r.name for r in found] == kept
    assert bool(note) == (len(found) < len(rows))


def _nets() -> dict[str, Any]:
    """A torch model with two alike parts (an ``lstm`` and an ``fc`` in each) and two alike
    Linear layers: the same bare names and class names, with the same counts, twice."""
    import torch
    from torch import nn

    class Part(nn.Module):
        """An LSTM and a Linear."""

        def __init__(self) -> None:
            super().__init__()
            self.lstm = nn.LSTM(4, 4, batch_first=True)
            self.fc = nn.Linear(4, 4)

        def forward(self, x: Any) -> Any:
            """The LSTM's outputs through the Linear."""
            return self.fc(self.lstm(x)[0])

    class Net(nn.Module):
        """Two parts, then two Linear layers."""

        def __init__(self) -> None:
            super().__init__()
            self.enc, self.dec = Part(), Part()
            self.a, self.b = nn.Linear(4, 4), nn.Linear(4, 4)

        def forward(self, x: Any) -> Any:
            """Every module in order."""
            return self.b(self.a(self.dec(self.enc(x))))

    return {"net": Net(), "example": torch.zeros(2, 3, 4)}


PRINTERS = ["torchinfo", "torchinfo-var-names", "torchscan-depth-2", "fvcore"]


@pytest.mark.parametrize("printer", PRINTERS)
def test_alike_modules_under_other_parents_are_all_counted(printer: str) -> None:
    """Real printers' tables that repeat a bare name (``lstm`` in ``enc`` and in ``dec``) or
    a class's name (``├─Linear`` twice) with the same count are read whole: every module
    counted, the truth 400."""
    from tests.printers import torchinfo_text
    from tests.printers_generic import fvcore_parameters, torchscan_text

    made = _nets()
    net, example = made["net"], made["example"]
    text = {"torchinfo": lambda: torchinfo_text(net, example, {
                "depth": 3, "row_settings": (), "verbose": 0}),
            "torchinfo-var-names": lambda: torchinfo_text(net, example, {
                "depth": 3, "row_settings": ("var_names",), "verbose": 0}),
            "torchscan-depth-2": lambda: torchscan_text(net, example, 2),
            "fvcore": lambda: fvcore_parameters(net)}[printer]()
    answer = read(text)
    assert [m.total for m in answer.models] == [400], text
    assert not any("more than once" in n for m in answer.models for n in m.notes)


REUSED = ["torchinfo", "pytorch-model-summary", "Lightning ModelSummary"]


@pytest.mark.parametrize("printer", REUSED)
def test_module_called_twice_by_torch_printers_reads_the_truth(printer: str) -> None:
    """A torch module called twice in one forward (torchinfo prints its second call
    ``(recursive)``; pytorch-model-summary and Lightning print it once) reads the truth, 30,
    and no row is taken for another's repeat."""
    needs = {"torchinfo": "torchinfo", "pytorch-model-summary": "pytorch_model_summary",
             "Lightning ModelSummary": "lightning"}[printer]
    if not have(needs):
        pytest.skip(f"needs {needs}")
    import torch
    from torch import nn

    from tests.printers import torchinfo_text
    from tests.printers_more import lightning_text, pms_text

    class Net(nn.Module):
        """``fc`` twice, then ``out``."""

        def __init__(self) -> None:
            super().__init__()
            self.fc, self.out = nn.Linear(4, 4), nn.Linear(4, 2)

        def forward(self, x: Any) -> Any:
            """``fc`` applied twice, then ``out``."""
            return self.out(self.fc(self.fc(x)))

    net, example = Net(), torch.zeros(2, 4)
    text = {"torchinfo": lambda: torchinfo_text(net, example, {
                "depth": 3, "row_settings": ("var_names",), "verbose": 0}),
            "pytorch-model-summary": lambda: pms_text(net, example, "default"),
            "Lightning ModelSummary": lambda: lightning_text(net, example, False, 1, True),
            }[printer]()
    answer = read(text)
    assert [m.total for m in answer.models] == [30], text
    assert not any("more than once" in n for m in answer.models for n in m.notes)
