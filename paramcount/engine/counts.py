"""Counts as people write them, read exactly: ``250``, ``1_000_000``, ``1,000,000``, ``1e6``,
``1.5M``, ``250K``; and byte sizes such as ``4MB`` or ``4MiB``.

Pure and integer-only: the digits and the decimal exponent are read apart and combined with
integer arithmetic, so ``1.5M`` is exactly 1500000 and a fraction that is not whole after
scaling (``1.5``, ``1.2345K``) is refused. Every value is bounded by :data:`MAX_SIZE`, so no
count read here can ever be too long to print.

>>> [parse_int(text) for text in ("250", "1_000_000", "1,000,000", "1e6", "1.5M", "250K")]
[250, 1000000, 1000000, 1000000, 1500000, 250000]
>>> parse_int("1.5")
Traceback (most recent call last):
...
paramcount.engine.counts.CountError: '1.5' is not a whole number
"""

from __future__ import annotations

import re

from paramcount.engine.spec import MAX_SIZE, MAX_SIZE_TEXT
from paramcount.errors import SpecError, number_text, quote

COUNT_SUFFIXES = {"": 0, "K": 3, "M": 6, "G": 9, "B": 9, "T": 12}
"""Decimal suffixes of a count, as powers of ten: 1.5M, 250K, 7B (billion) or 7G."""

BYTE_SUFFIXES = {
    "": 1, "B": 1,
    "KB": 10**3, "MB": 10**6, "GB": 10**9, "TB": 10**12,
    "KIB": 2**10, "MIB": 2**20, "GIB": 2**30, "TIB": 2**40,
}
"""Units of a size in bytes: decimal KB/MB/GB/TB and binary KiB/MiB/GiB/TiB."""

COUNT_EXAMPLES = "250, 1_000_000, 1e6 or 1.5M"

_NUMBER = re.compile(
    r"(?P<sign>[-+]?)"
    r"(?P<whole>[0-9]+(?:_[0-9]+)*|[0-9]{1,3}(?:,[0-9]{3})+)?"
    r"(?:\.(?P<fraction>[0-9]+))?"
    r"(?:[eE](?P<exponent>[-+]?[0-9]+))?"
    r"\s*(?P<suffix>[A-Za-z]*)"
)
_MAX_DIGITS = len(str(MAX_SIZE))


class CountError(SpecError):
    """A count or size that cannot be read, is not whole, or is too large."""

    def __init__(self, message: str) -> None:
        super().__init__(message.replace("{", "{{").replace("}", "}}"))


def parse_int(text: object, suffixes: dict[str, int] | None = None,
              limit: int = MAX_SIZE) -> int:
    """A whole number, positive or not, written as people write counts (see the module doc).

    ``suffixes`` maps an upper-case suffix to a power of ten (:data:`COUNT_SUFFIXES` by
    default; ``{"": 0}`` for plain numbers). Values beyond ``limit`` in size are refused.

    >>> parse_int("-5"), parse_int(" 2.5K "), parse_int("7B")
    (-5, 2500, 7000000000)
    """
    if isinstance(text, int) and not isinstance(text, bool):
        value = text
        if abs(value) > limit:
            raise CountError(f"{number_text(value)} is too large: {_limit_text(limit)}")
        return value
    raw = str(text)
    match = _NUMBER.fullmatch(raw.strip())
    table = COUNT_SUFFIXES if suffixes is None else suffixes
    if (match is None or not (match["whole"] or match["fraction"])
            or match["suffix"].upper() not in table):
        units = "/".join(s for s in table if s)
        example = COUNT_EXAMPLES if units else "250 or 1_000_000"
        raise CountError(f"{quote(raw)} is not a whole number (write it as {example})")
    whole = (match["whole"] or "").replace("_", "").replace(",", "")
    fraction = match["fraction"] or ""
    exponent_text = match["exponent"] or "0"
    digits = (whole + fraction).lstrip("0")
    if not digits:
        return 0
    if len(exponent_text.lstrip("+-0")) > 6:  # 1e9999999: refuse before any arithmetic
        raise CountError(_too_large_or_fractional(raw, exponent_text, limit))
    scale = int(exponent_text) - len(fraction) + table[match["suffix"].upper()]
    if scale < 0:
        digits = digits.rjust(1 - scale, "0")
        kept, dropped = digits[:scale], digits[scale:]
        if dropped.strip("0"):
            shown = f"{kept or '0'}.{dropped.rstrip('0')}"
            raise CountError(f"{quote(raw.strip())} is not a whole number"
                             + (f" ({shown})" if shown != raw.strip() and len(shown) < 40
                                else ""))
        digits, scale = kept or "0", 0
    if len(digits.lstrip("0")) + scale > _MAX_DIGITS:
        raise CountError(f"{quote(raw.strip())} is too large: {_limit_text(limit)}")
    value = int(digits + "0" * scale)
    if value > limit:
        raise CountError(f"{quote(raw.strip())} is too large: {_limit_text(limit)}")
    return -value if match["sign"] == "-" else value


def parse_count(text: object) -> int:
    """A positive count: a whole number as people write it, above 0.

    >>> parse_count("1.5M")
    1500000
    """
    value = parse_int(text)
    if value <= 0:
        raise CountError(f"{quote(str(text).strip())} must be positive")
    return value


def parse_bytes(text: object) -> int:
    """A positive size in bytes: a number with B, KB/MB/GB/TB (powers of 1000) or
    KiB/MiB/GiB/TiB (powers of 1024).

    >>> parse_bytes("4MB"), parse_bytes("4MiB"), parse_bytes("1.5KiB")
    (4000000, 4194304, 1536)
    """
    raw = str(text).strip()
    match = re.fullmatch(r"(.*?)\s*([A-Za-z]*)", raw, re.S)
    assert match is not None  # the pattern matches any text
    unit = match[2].upper()
    if unit not in BYTE_SUFFIXES:
        raise CountError(
            f"{quote(raw)} is not a size in bytes: write a number with an optional unit "
            "B, KB/MB/GB/TB or KiB/MiB/GiB/TiB, e.g. 4MB or 4MiB"
        )
    try:
        # Read the number exactly, then multiply: 1.5KiB is 1536 bytes, 0.5B is not whole.
        number = _exact(match[1])
    except _TooLarge:
        raise CountError(f"{quote(raw)} is too large: {_limit_text(MAX_SIZE)}") from None
    except CountError:
        raise CountError(
            f"{quote(raw)} is not a size in bytes: write a number with an optional unit "
            "B, KB/MB/GB/TB or KiB/MiB/GiB/TiB, e.g. 4MB or 4MiB"
        ) from None
    numerator, denominator = number
    total, remainder = divmod(numerator * BYTE_SUFFIXES[unit], denominator)
    if numerator <= 0:
        raise CountError(f"{quote(raw)} must be positive")
    if remainder:
        raise CountError(f"{quote(raw)} is not a whole number of bytes")
    if total > MAX_SIZE:
        raise CountError(f"{quote(raw)} is too large: {_limit_text(MAX_SIZE)}")
    return total


class _TooLarge(CountError):
    """A number far beyond any size, refused before it is computed."""


def _exact(text: str) -> tuple[int, int]:
    """``text`` (a plain decimal, maybe with an exponent) as numerator / denominator."""
    match = _NUMBER.fullmatch(text.strip())
    if match is None or match["suffix"] or not (match["whole"] or match["fraction"]):
        raise CountError(text)
    whole = (match["whole"] or "").replace("_", "").replace(",", "")
    fraction = match["fraction"] or ""
    exponent_text = match["exponent"] or "0"
    big_exponent = len(exponent_text.lstrip("+-0")) > 3
    if (big_exponent and not exponent_text.startswith("-")) or len(whole.lstrip("0")) > 40:
        raise _TooLarge(text)
    if big_exponent or len(fraction) > 40:
        raise CountError(text)
    scale = int(exponent_text) - len(fraction)
    numerator = int((whole + fraction) or "0")
    if match["sign"] == "-":
        numerator = -numerator
    return (numerator * 10**scale, 1) if scale >= 0 else (numerator, 10**-scale)


def _too_large_or_fractional(raw: str, exponent: str, limit: int) -> str:
    if exponent.lstrip("+").startswith("-"):
        return f"{quote(raw.strip())} is not a whole number"
    return f"{quote(raw.strip())} is too large: {_limit_text(limit)}"


def _limit_text(limit: int) -> str:
    if limit == MAX_SIZE:
        return MAX_SIZE_TEXT
    return f"at most {limit:,}"
