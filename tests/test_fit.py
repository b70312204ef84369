"""Sizing to a budget: budget parsing, the exact quadratic, and the answer's two neighbours."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paramcount.analysis.fit import (
    BudgetTooSmall,
    Quadratic,
    fit,
    largest_within,
    parse_bytes,
    parse_count,
    quadratic,
)
from paramcount.engine import conventions
from paramcount.engine.spec import Cell, DType, Framework, LayerSpec
from paramcount.errors import SpecError
from tests.conftest import CLI
from tests.test_compute import specs

COUNTS = [("1M", 1_000_000), ("1.5k", 1_500), ("250_000", 250_000), ("2G", 2 * 10**9),
          ("1,000K", 1_000_000), ("0.5M", 500_000), ("7", 7), (" 3 M ", 3_000_000),
          ("1e6", 1_000_000), ("1.5e3K", 1_500_000), ("7B", 7 * 10**9),
          ("1,000,000", 1_000_000), ("9223372036854775807", 2**63 - 1)]
BYTES = [("4MB", 4_000_000), ("4MiB", 4 * 2**20), ("1 GiB", 2**30), ("512", 512),
         ("512B", 512), ("2kb", 2000), ("1.5KiB", 1536), ("3TB", 3 * 10**12)]


@pytest.mark.parametrize(("text", "value"), COUNTS, ids=[t for t, _ in COUNTS])
def test_parse_count(text: str, value: int) -> None:
    """Counts take decimal K/M/G/T suffixes."""
    assert parse_count(text) == value


@pytest.mark.parametrize(("text", "value"), BYTES, ids=[t for t, _ in BYTES])
def test_parse_bytes(text: str, value: int) -> None:
    """Sizes take decimal KB/MB/GB/TB and binary KiB/MiB/GiB/TiB."""
    assert parse_bytes(text) == value


BAD_COUNTS = [
    ("1.5.3M", "is not a whole number"), ("-5", "must be positive"), ("0", "must be positive"),
    ("0.0M", "must be positive"), ("1.2345K", r"'1.2345K' is not a whole number \(1234.5\)"),
    ("1MB", "is not a whole number"), ("M", "is not a whole number"),
    ("", "is not a whole number"), ("1,00", "is not a whole number"),
    ("1e-3", "is not a whole number"), ("1.5", "is not a whole number"),
    ("9223372036854775808", "is too large"), ("1e19", "is too large"),
    ("9" * 5000, r"'9{24}'… \(5,000 characters\) is too large"),
]


@pytest.mark.parametrize(("text", "message"), BAD_COUNTS, ids=[t or "empty" for t, _ in BAD_COUNTS])
def test_bad_counts(text: str, message: str) -> None:
    """Malformed, zero or negative counts raise SpecError naming the value."""
    with pytest.raises(SpecError, match=message):
        parse_count(text)


@pytest.mark.parametrize("text", ["4M", "4Mb4", "4 MiBs", "-1KB", "0.5B"], ids=str)
def test_bad_bytes(text: str) -> None:
    """Byte sizes need a byte unit, a positive value and a whole number of bytes."""
    with pytest.raises(SpecError):
        parse_bytes(text)


@settings(max_examples=150, deadline=None)
@given(specs(), st.integers(1, 10**6))
def test_quadratic_is_the_convention(spec: LayerSpec, hidden: int) -> None:
    """The polynomial from finite differences gives the convention's total at any hidden size."""
    spec = spec.replace(hidden_size=max(hidden, spec.proj_size + 1))
    q = quadratic(spec)
    assert q(spec.hidden_size) == sum(t.count for t in conventions.tensors(spec))


@settings(max_examples=200, deadline=None)
@given(specs(), st.integers(1, 10**12), st.sampled_from([1, 2, 8, 64]),
       st.sampled_from(list(DType)))
def test_answer_fits_and_next_does_not(
    spec: LayerSpec, budget: int, round_to: int, dtype: DType
) -> None:
    """The answer fits, the next multiple of --round does not, and the answer is a multiple."""
    try:
        answer = fit(spec, max_bytes=budget, dtype=dtype, round_to=round_to)
    except BudgetTooSmall:
        smallest = -(-(spec.proj_size + 1) // round_to) * round_to
        assert quadratic(spec)(smallest) * dtype.bytes > budget
        return
    total = sum(t.count for t in conventions.tensors(answer.spec))
    assert answer.total == total and total * dtype.bytes <= budget
    bigger = answer.spec.replace(hidden_size=answer.hidden_size + round_to)
    assert sum(t.count for t in conventions.tensors(bigger)) * dtype.bytes > budget
    assert answer.next_total == sum(t.count for t in conventions.tensors(bigger))
    assert answer.hidden_size % round_to == 0 and answer.hidden_size > spec.proj_size


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 10**6), st.integers(1, 10**6), st.integers(0, 10**6),
       st.integers(0, 10**30))
def test_largest_within(a: int, b: int, c: int, budget: int) -> None:
    """The integer root is exact for any increasing quadratic, even at 10^30."""
    q = Quadratic(a, b, c)
    h = largest_within(q, budget)
    if h < 0:
        assert c > budget
    else:
        assert q(h) <= budget < q(h + 1)


@pytest.mark.parametrize(
    ("spec", "budget", "expected"),
    [(LayerSpec(Cell.LSTM, 32, 1, num_layers=2, bidirectional=True), 10**6, 172),
     (LayerSpec(Cell.GRU, 13, 1, framework=Framework.KERAS), 2100, 20),
     (LayerSpec(Cell.LSTM, 64, 65, num_layers=3, proj_size=64), 10**6, 570)],
    ids=["lstm-bidir", "keras-gru", "lstm-proj"],
)
def test_known_answers(spec: LayerSpec, budget: int, expected: int) -> None:
    """Answers worked out by hand in formulas.md."""
    assert fit(spec, max_params=budget).hidden_size == expected


def test_too_small() -> None:
    """A budget below H = 1 (or the first multiple of --round) is a budget exceeded (exit 1)."""
    with pytest.raises(BudgetTooSmall, match="the smallest, 8, already needs 112 parameters"):
        fit(LayerSpec(Cell.RNN, 4, 1), max_params=100, round_to=8)


CLI_ERRORS = [
    (["--max-params", "1.5.3M"], 2, "'--max-params': '1.5.3M' is not a whole number"),
    (["--max-params", "-5"], 2, "'--max-params': '-5' must be positive"),
    (["--max-params", "0"], 2, "'--max-params': '0' must be positive"),
    (["--max-params", "2.5"], 2, "'--max-params': '2.5' is not a whole number"),
    (["--max-params", "1e30"], 2, "'--max-params': '1e30' is too large"),
    (["--max-bytes", "4M"], 2, "'--max-bytes': '4M' is not a size in bytes"),
    (["--max-params", "1M", "-f", "torch,keras"], 2, "one framework at a time"),
    (["--max-params", "1M", "--max-bytes", "4MB"], 2, "give one budget"),
    ([], 2, "give one budget"),
    (["--max-params", "10"], 1, "no hidden size fits 10 parameters"),
    (["--max-bytes", "100", "--dtype", "bf16"], 1, "no hidden size fits 100 bytes"),
    (["--max-params", "1M", "--round", "0"], 2, "--round 0 must be a positive whole number"),
    (["--max-params", "1M", "--proj", "8", "-f", "keras"], 2, "--proj 8 is a PyTorch option"),
]


@pytest.mark.parametrize(("args", "code", "message"), CLI_ERRORS, ids=[m for *_, m in CLI_ERRORS])
def test_cli_errors(cli: CLI, args: list[str], code: int, message: str) -> None:
    """Bad budgets exit 2 and impossible ones exit 1, each with one line on stderr."""
    result = cli("fit", "lstm", "--input", "32", *args)
    assert result.code == code
    assert result.err.startswith("Error: ") and message in result.err
    assert result.err.count("\n") == 1 and result.out == ""


@pytest.mark.parametrize("extra", [[], ["--json"], ["--markdown"]], ids=["text", "json", "md"])
def test_cli_output(cli: CLI, extra: list[str]) -> None:
    """fit prints the answer and its neighbour in every format."""
    result = cli("fit", "lstm", "-i", "32", "-L", "2", "--bidir", "--max-params", "1M", *extra)
    assert result.code == 0, result.err
    assert "172" in result.out and "173" in result.out
    if extra == ["--json"]:
        import json

        data: dict[str, Any] = json.loads(result.out)
        assert (data["hidden_size"], data["total"], data["next"]["total"]) == (
            172, 996_224, 1_007_552)
        assert data["polynomial"] == {"a": 32, "b": 288, "c": 0}


@pytest.mark.parametrize(("args", "smallest", "need"), [
    (["--max-params", "1"], 1, 28),
    (["--max-bytes", "10", "--round", "8"], 8, 448),
], ids=["params", "bytes-round"])
def test_nothing_fits_is_json_too(cli: CLI, args: list[str], smallest: int, need: int) -> None:
    """With --json, "nothing fits" exits 1 with a JSON answer: no hidden size, the smallest as
    the next size up, and the error, which stderr also prints as one line."""
    import json

    result = cli("fit", "lstm", "-i", "4", *args, "--json")
    assert result.code == 1
    data: dict[str, Any] = json.loads(result.out)
    assert data["hidden_size"] is None and data["total"] is None
    assert (data["next"]["hidden_size"], data["next"]["total"]) == (smallest, need)
    assert data["error"] in result.err and result.err.count("\n") == 1


def test_fit_takes_every_layer_option_but_hidden(cli: CLI) -> None:
    """fit shares the count commands' layer options (here --peepholes), minus --hidden."""
    result = cli("fit", "lstm", "-i", "8", "--max-params", "1M", "-f", "onnx", "--peepholes",
                 "--json")
    assert result.code == 0, result.err
    h = json.loads(result.out)["hidden_size"]
    assert 4 * h * h + 43 * h <= 1_000_000 < 4 * (h + 1) ** 2 + 43 * (h + 1)
    assert cli("fit", "lstm", "-i", "8", "--max-params", "1M", "-H", "3").code == 2
    assert "one framework at a time" in cli("fit", "lstm", "-i", "8", "--max-params", "1M",
                                           "-f", "all").err
