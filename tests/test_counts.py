"""Counts as people write them: the shared parser, exact, bounded, and its one-line errors."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from paramcount.engine.counts import CountError, parse_bytes, parse_count, parse_int
from paramcount.engine.spec import MAX_SIZE
from paramcount.errors import number_text, quote, shown

GOOD = [
    ("250", 250), ("1_000_000", 10**6), ("1,000,000", 10**6), ("1e6", 10**6), ("1E6", 10**6),
    ("1.5M", 1_500_000), ("250K", 250_000), ("250k", 250_000), ("7B", 7 * 10**9),
    ("2G", 2 * 10**9), ("3T", 3 * 10**12), ("1.5e3", 1500), ("2.5e3K", 2_500_000),
    (".5K", 500), ("5.0", 5), ("+3", 3), ("-5", -5), ("0", 0), ("007", 7), (" 4 M ", 4 * 10**6),
    ("1.000001M", 1_000_001), ("9223372036854775807", MAX_SIZE), ("9.223372036854775807e18",
                                                                   MAX_SIZE),
]


@pytest.mark.parametrize(("text", "value"), GOOD, ids=[t for t, _ in GOOD])
def test_counts_as_people_write_them(text: str, value: int) -> None:
    """Each spelling reads as the exact whole number it means."""
    assert parse_int(text) == value


BAD = [
    ("1.5", "'1.5' is not a whole number"),
    ("1.2345K", "'1.2345K' is not a whole number (1234.5)"),
    ("1e-3", "'1e-3' is not a whole number (0.001)"),
    ("1e-99999999999", "is not a whole number"),
    ("abc", "'abc' is not a whole number (write it as 250, 1_000_000, 1e6 or 1.5M)"),
    ("", "'' is not a whole number"), ("K", "is not a whole number"), ("1.", "is not a whole"),
    ("1,00", "is not a whole number"), ("1__0", "is not a whole number"),
    ("_1", "is not a whole number"), ("1_", "is not a whole number"), ("1MB", "is not a whole"),
    ("0x10", "is not a whole number"), ("1.5.3M", "is not a whole number"),
    ("9223372036854775808", "'9223372036854775808' is too large: at most "
                            "9,223,372,036,854,775,807 (2^63 - 1"),
    ("1e19", "is too large"), ("10T", "10T"), ("1e99999999999", "is too large"),
    ("1" + "0" * 2200, "'100000000000000000000000'… (2,201 characters) is too large"),
    ("9" * 5000, "(5,000 characters) is too large"),
]


@pytest.mark.parametrize(("text", "message"), BAD, ids=[t[:20] or "empty" for t, _ in BAD])
def test_bad_counts_name_the_value_briefly(text: str, message: str) -> None:
    """What is not a whole number, or exceeds 2^63 - 1, is refused quoting a few dozen chars."""
    if text == "10T":
        assert parse_int(text) == 10**13  # a valid control among the refusals
        return
    with pytest.raises(CountError) as raised:
        parse_int(text)
    assert message in str(raised.value)
    assert len(str(raised.value)) < 160


@given(st.integers(0, MAX_SIZE))
def test_every_size_reads_back_in_every_spelling(n: int) -> None:
    """Plain, underscored, comma-grouped and scientific spellings of n all read as n."""
    assert parse_int(str(n)) == parse_int(f"{n:_}") == parse_int(f"{n:,}") == n
    digits = str(n)
    scientific = f"{digits[0]}.{digits[1:] or '0'}e{len(digits) - 1}"
    assert parse_int(scientific) == n


@given(st.integers(1, 10**6), st.sampled_from([("K", 3), ("M", 6), ("G", 9), ("T", 12)]),
       st.integers(0, 3))
def test_suffixes_scale_exactly(mantissa: int, suffix: tuple[str, int], decimals: int) -> None:
    """m/10^d with a suffix is read exactly, and refused exactly when it is not whole."""
    letter, power = suffix
    text = f"{mantissa // 10**decimals}.{mantissa % 10**decimals:0{decimals}d}" if decimals \
        else str(mantissa)
    numerator = mantissa * 10**power
    whole = numerator % 10**decimals == 0
    if whole and numerator // 10**decimals <= MAX_SIZE:
        assert parse_int(text + letter) == numerator // 10**decimals
    elif not whole:
        with pytest.raises(CountError, match="is not a whole number"):
            parse_int(text + letter)


def test_positive_counts_and_bytes() -> None:
    """Budgets must be positive; byte sizes take decimal and binary units, exactly."""
    assert parse_count("1.5M") == 1_500_000
    with pytest.raises(CountError, match="must be positive"):
        parse_count("0")
    assert parse_bytes("4MB") == 4 * 10**6 and parse_bytes("4MiB") == 4 * 2**20
    assert parse_bytes("1e6") == 10**6 and parse_bytes("1.5KiB") == 1536
    for bad, message in [("0.5B", "not a whole number of bytes"), ("4M", "not a size in bytes"),
                         ("-1KB", "must be positive"), ("1e30B", "too large")]:
        with pytest.raises(CountError, match=message):
            parse_bytes(bad)


def test_long_values_are_shown_briefly() -> None:
    """Error messages show at most a few dozen characters of a long value, without int->str."""
    assert number_text(10**5000) == "1000000000…0000000000 (5,001 digits)"
    assert number_text(-(10**30) - 7) == "-1000000000…0000000007 (31 digits)"
    assert number_text(123_456) == "123,456"
    assert str(shown(10**5000)) == "1000000000…0000000000 (5,001 digits)"
    assert repr(shown("x" * 100)) == quote("x" * 100) == f"'{'x' * 24}'… (100 characters)"
    assert shown(12) == 12 and shown("short") == "short"


def test_specs_refuse_sizes_above_int64() -> None:
    """The API refuses sizes no framework can hold, naming the field and a short value."""
    from paramcount.engine.spec import Cell, LayerSpec
    from paramcount.errors import SpecError

    assert LayerSpec(Cell.LSTM, 1, MAX_SIZE).hidden_size == MAX_SIZE
    with pytest.raises(SpecError, match=r"^hidden_size=9223372036854775808 is too large"):
        LayerSpec(Cell.LSTM, 1, MAX_SIZE + 1)
    with pytest.raises(SpecError, match=r"^input_size=1000000000…0000000000 \(2,201 digits\)"):
        LayerSpec(Cell.LSTM, 10**2200, 8)
