"""A user's text as paramcount shows it and reads it: one safe line, ASCII digits only.

Every value or key a user hands paramcount (an option's value, a config key, a pasted name)
that an error, a note or an answer shows goes through :func:`shown_text`: line breaks, other
control characters and bidirectional overrides are written as their escapes, so the text stays
on its line in every output format and reads as stored, and it is cut to a stated length with
its whole length named. The text is always a value put into a message, never a template.
Numbers a user writes are read from ASCII digits only (``str.isdigit`` accepts ``²`` and
``٣``; ``int`` refuses the first and reads the second as 3), and a run of digits is bounded
before ``int`` sees it.
"""

from __future__ import annotations

MOST_SHOWN = 60
"""How many characters of a user's text a message shows (its length is named beyond that)."""

MOST_DIGITS = 30
"""The most digits :func:`whole_number` reads: past every size and count paramcount holds,
far below where ``int`` becomes slow or refuses (4,300 digits)."""


def printable(text: str) -> str:
    r"""``text`` with every unprintable character (line breaks, controls, bidirectional
    overrides) written as its Python escape, so it stays on its line and reads as stored.

    >>> print(printable("w\u202eevil\r\n"))
    w\u202eevil\r\n
    """
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def shown_text(value: object, most: int = MOST_SHOWN) -> str:
    r"""``value`` (its text) as a user's text is shown anywhere: control and bidirectional
    characters escaped (:func:`printable`), cut to ``most`` characters, its whole length named.

    >>> print(shown_text("key\u202e\n| row |"))
    key\u202e\n| row |
    >>> print(shown_text("x" * 1000))
    xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx… (1,000 characters)
    >>> print(shown_text(10**5000))
    a number of 5,001 digits
    """
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 3 * most:
        digits = len(str(abs(value))) if value.bit_length() < 14_000 else None
        if digits is None:  # str() refuses past 4,300 digits: count them without it
            magnitude, digits = abs(value), 0
            while magnitude >= 10**1000:
                magnitude //= 10**1000
                digits += 1000
            digits += len(str(magnitude))
        return f"a number of {digits:,} digits"
    text = value if isinstance(value, str) else str(value)
    if len(text) <= most:
        return printable(text)
    return f"{printable(text[:most])}… ({len(text):,} characters)"


def ascii_digits(text: str) -> bool:
    """Whether ``text`` is one or more ASCII digits (``²``, ``٣`` and ``３`` are not).

    >>> ascii_digits("42"), ascii_digits("²"), ascii_digits("٣"), ascii_digits("")
    (True, False, False, False)
    """
    return text.isascii() and text.isdigit()


def whole_number(text: str, most: int = MOST_DIGITS) -> int | None:
    """``text`` read as a whole number of ASCII digits, or None where it is not one or holds
    more than ``most`` significant digits (never a conversion of an unbounded run).

    >>> whole_number("0042"), whole_number("٣"), whole_number("9" * 5000)
    (42, None, None)
    """
    if not ascii_digits(text) or len(text.lstrip("0")) > most:
        return None
    return int(text)


def foreign_digits(text: str) -> str | None:
    """``text`` with each digit that is no ASCII digit (``²``, ``٣``, ``３``) written as ``0``,
    so a reader can tell a line it would have read but for them; None where it holds none.

    >>> foreign_digits("w torch.Size([٦٤, 8²])"), foreign_digits("w [64, 8]")
    ('w torch.Size([00, 80])', None)
    """
    if text.isascii() or not any(c.isdigit() and not c.isascii() for c in text):
        return None
    return "".join("0" if c.isdigit() and not c.isascii() else c for c in text)


NOT_ASCII_DIGITS = "its digits are not all ASCII digits (`٣`, `²`): not read as a number"
"""Why a pasted line whose numbers hold other digits is named unread."""


BEYOND: int = 10**MOST_DIGITS
"""What a run of more than :data:`MOST_DIGITS` digits reads as: a number past every size and
count, refused or unknown wherever one is checked."""


def digits_value(text: str) -> int:
    """A run of digits a reader matched (a pasted count, an index) as a number: itself up to
    :data:`MOST_DIGITS` significant digits, else :data:`BEYOND` (``int`` of a run past 4,300
    digits raises, and is slow long before).

    >>> digits_value("0042"), digits_value("9" * 5000) == BEYOND
    (42, True)
    """
    if len(text.lstrip("0")) > MOST_DIGITS:
        return BEYOND
    return int(text)
