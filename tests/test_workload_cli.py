"""The count commands' --optimizer / --seq-len options: sections, JSON keys and one-line errors."""

from __future__ import annotations

import json

import pytest

from tests.conftest import CLI
from tests.test_imports import HEAVY, loaded_after

BASE = ["lstm", "-i", "32", "-H", "128", "-L", "2", "--bidir"]


def test_json_keys_null_when_not_asked(cli: CLI) -> None:
    """Without the options the JSON carries memory and compute as null."""
    data = json.loads(cli(*BASE, "--json").out)
    assert data["memory"] is None and data["compute"] is None


def test_json_memory_and_compute(cli: CLI) -> None:
    """With the options the JSON carries the breakdowns, exact integers throughout."""
    result = cli(*BASE, "--json", "--optimizer", "adam", "--dtype", "bf16", "--mixed-precision",
                 "--seq-len", "10", "--batch", "4")
    data = json.loads(result.out)
    memory, compute = data["memory"], data["compute"]
    assert [line["name"] for line in memory["lines"]] == [
        "parameters", "gradients", "master weights", "optimizer state", "step counters"]
    assert memory["bytes"] == 16 * 561_152 + 64
    assert memory["cudnn_bias_slots"] is None
    assert (compute["steps"], compute["macs"], compute["flops"]) == (40, 22_282_240, 44_994_560)
    assert [d["per_step"]["input_macs"] for d in compute["directions"]] == [
        16384, 16384, 131072, 131072]


def test_framework_all_json(cli: CLI) -> None:
    """--framework all gives each convention its own memory and compute."""
    data = json.loads(cli(*BASE, "-f", "torch,keras", "--json", "--optimizer", "sgd", "-T",
                          "3").out)
    assert [r["memory"]["lines"][-1]["name"] for r in data["reports"]] == [
        "gradients", "learning_rate"]
    assert len({r["compute"]["flops"] for r in data["reports"]}) == 2


@pytest.mark.parametrize("fmt", [[], ["--markdown"], ["-f", "torch,keras"]],
                         ids=["text", "md", "two-frameworks"])
def test_sections_appended(cli: CLI, fmt: list[str]) -> None:
    """The table output gains a memory and a compute section after the count."""
    result = cli(*BASE, *fmt, "--optimizer", "momentum", "--lengths", "7,3,1", "--no-bias")
    assert result.code == 0, result.err
    assert "Training memory (SGD with momentum)" in result.out
    out = " ".join(result.out.split())
    assert "Σ lengths = 11 sample-steps, not the padded 3 × 7 = 21" in out
    assert "cuDNN's flat weight buffer" in out


ERRORS = [
    (["--lengths", "3,0"], "--lengths 3,0 has 0: every length must be positive"),
    (["--lengths=-3,2"], "--lengths -3,2 has -3: every length must be positive"),
    (["--lengths", "3,x"], "'x' in '3,x' is not a whole number"),
    (["--lengths", "3,2", "--batch", "3"], "--lengths 3,2 lists 2 lengths but --batch 3"),
    (["--lengths", "9", "-T", "5"], "--lengths 9 has 9, longer than --seq-len 5"),
    (["--seq-len", "0"], "--seq-len 0 must be a positive integer"),
    (["--seq-len", "-4"], "--seq-len -4 must be a positive integer"),
    (["-T", "4", "--batch", "0"], "--batch 0 must be a positive integer"),
    (["--batch", "2"], "--batch needs --seq-len"),
    (["--optimizer", "adamx"], "'adamx' is not one of 'sgd', 'momentum', 'adam', 'adamw'"),
    (["--mixed-precision"], "--mixed-precision describes training memory: give --optimizer"),
    (["--optimizer", "adam", "--mixed-precision"],
     "--dtype fp32 cannot be the low-precision copy of --mixed-precision"),
    (["--optimizer", "adam", "--dtype", "int8"], "--dtype int8 weights are not trained"),
]


@pytest.mark.parametrize(("args", "message"), ERRORS, ids=[m for _, m in ERRORS])
def test_errors(cli: CLI, args: list[str], message: str) -> None:
    """Bad values exit 2 with one line on stderr."""
    result = cli(*BASE, *args)
    assert result.code == 2
    assert result.err.startswith("Error: ") and message in result.err
    assert result.err.count("\n") == 1 and result.out == ""


@pytest.mark.parametrize(
    "args",
    [
        [*BASE, "--optimizer", "adam", "-T", "10", "-N", "4", "--json"],
        [*BASE, "--optimizer", "adam", "--lengths", "7,3,1"],
        ["fit", "lstm", "-i", "32", "-L", "2", "--bidir", "--max-params", "1M"],
        ["fit", "gru", "-i", "32", "--max-bytes", "4MiB", "--json"],
    ],
    ids=["count-json", "count-table", "fit-table", "fit-json"],
)
def test_no_framework_imported(args: list[str]) -> None:
    """Memory, compute and fit import no framework, and rich only for a terminal."""
    code = (
        "import contextlib, io\nfrom paramcount.cli.main import run\n"
        f"with contextlib.redirect_stdout(io.StringIO()): assert run({args!r}) == 0"
    )
    assert not loaded_after(code) & {*HEAVY, "rich"}


def test_optimizer_choices_are_the_optimizers() -> None:
    """The --optimizer choices, listed without importing memory, are memory.Optimizer's values."""
    from paramcount.analysis.memory import Optimizer
    from paramcount.cli.workload_options import OPTIMIZERS

    assert tuple(o.value for o in Optimizer) == OPTIMIZERS
