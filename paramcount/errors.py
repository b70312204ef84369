"""The exceptions paramcount raises, and the exit code each one maps to."""

from __future__ import annotations

import re
from collections.abc import Callable

from paramcount.usertext import printable as printable

Label = Callable[[str, object], str]
"""Names a field for a message: (field, value) -> e.g. ``--proj 128`` or ``proj_size=128``."""


def api_label(field: str, value: object) -> str:
    """Label a field the way the Python API spells it: ``proj_size=128``."""
    return f"{field}={value!r}"


def quote(text: str) -> str:
    """``repr(text)``, with at most a few dozen characters of it.

    >>> quote("12.5"), quote("9" * 5000)
    ("'12.5'", "'999999999999999999999999'… (5,000 characters)")
    """
    if len(text) <= 40:
        return repr(text)
    return f"{text[:24]!r}… ({len(text):,} characters)"


def number_text(value: int, keep: int = 24) -> str:
    """``value`` with thousands separators, or its first and last digits when very long.

    >>> number_text(1234567)
    '1,234,567'
    >>> number_text(10**2200)
    '1000000000…0000000000 (2,201 digits)'
    """
    if value.bit_length() <= 3 * keep:  # at most ~22 digits: print it whole
        return f"{value:,}"
    sign = "-" if value < 0 else ""
    magnitude = abs(value)
    digits = int(magnitude.bit_length() * 0.30102999566398120) + 1
    while digits > 1 and 10 ** (digits - 1) > magnitude:
        digits -= 1
    while 10**digits <= magnitude:
        digits += 1
    head = magnitude // 10 ** (digits - 10)
    tail = magnitude % 10**10
    return f"{sign}{head}…{tail:010d} ({digits:,} digits)"


class _Shown:
    """A long value standing in a message as its shortened text."""

    def __init__(self, text: str, representation: str) -> None:
        self.text = text
        self.representation = representation

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return self.representation

    def __format__(self, spec: str) -> str:
        return self.text


def shown(value: object) -> object:
    """``value`` for a message: itself, or a stand-in quoting a few dozen characters of it (a
    long list: its first entries and its length).

    >>> shown(10**5000)
    1000000000…0000000000 (5,001 digits)
    >>> shown(tuple(range(10**6)))
    (0, 1, 2, 3, … 1,000,000 entries)
    """
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 80:
        text = number_text(value)
        return _Shown(text, text)
    if isinstance(value, str) and len(value) > 40:
        return _Shown(quote(value)[1:].replace("'…", "…", 1), quote(value))
    if isinstance(value, (list, tuple)) and (len(value) > _ENTRIES or any(
            isinstance(v, (list, tuple, dict)) or shown(v) is not v for v in value)):
        brackets = "[]" if isinstance(value, list) else "()"
        head = ", ".join(repr(shown(v)) if not isinstance(v, (list, tuple, dict)) else "…"
                         for v in value[:_ENTRIES])
        more = f", … {len(value):,} entries" if len(value) > _ENTRIES else ""
        text = f"{brackets[0]}{head}{more}{brackets[1]}"
        return _Shown(text, text)
    if isinstance(value, dict) and len(value) > _ENTRIES:
        text = f"{{…{len(value):,} keys}}"
        return _Shown(text, text)
    return value


_ENTRIES = 4
"""The most entries of a list a message quotes."""


def install_hint(extra: str) -> str:
    """How to install an extra, from an index and from a clone of the repository.

    >>> install_hint("torch")
    "pip install 'paramcount[torch]' (in a clone: pip install -e '.[torch]')"
    """
    return f"pip install 'paramcount[{extra}]' (in a clone: pip install -e '.[{extra}]')"


def literal(value: object) -> str:
    """``value`` shown (:func:`shown`, its repr) as literal text of a SpecError's template: its
    braces doubled, so no slot is read in it.

    >>> str(SpecError("{n}: entry 3 is " + literal("{n}"), n=1))
    "n=1: entry 3 is '{n}'"
    """
    return repr(shown(value)).replace("{", "{{").replace("}", "}}")


class ParamcountError(Exception):
    """Base class of every error paramcount raises on purpose."""

    exit_code = 2


class SpecError(ParamcountError, ValueError):
    """A layer configuration that no framework would build.

    The message is a template whose ``{field}`` slots are filled with a label for that field, so
    the CLI can say ``--proj 128`` where the Python API says ``proj_size=128``. Only the slots
    of the fields given are filled, each once, in one pass: any other brace (a user's text that
    reached the template, ``{}`` or ``{x.__class__}``) is kept as it reads, never evaluated.

    >>> str(SpecError("{hidden_size} must be a positive integer", hidden_size=0))
    'hidden_size=0 must be a positive integer'
    >>> str(SpecError("{n}: '{0}{n.__class__}' is no number", n="{}"))
    "n='{}': '{0}{n.__class__}' is no number"
    """

    def __init__(self, template: str, **values: object) -> None:
        self.template = template
        self.values = values
        super().__init__(self.render(api_label))

    def render(self, label: Label) -> str:
        """The message with every field named by ``label``."""
        labels = {k: label(k, shown(v)) for k, v in self.values.items()}
        return _SLOT.sub(lambda m: _BRACES.get(m[0]) or labels.get(m[1], m[0]), self.template)


_SLOT = re.compile(r"\{\{|\}\}|\{(\w+)\}")
"""A field's slot in a SpecError's template, or a brace written twice (``{{``: one brace)."""
_BRACES = {"{{": "{", "}}": "}"}


class ConfigError(ParamcountError, ValueError):
    """An invalid configuration file, located as ``file:line:column``."""


class BackendUnavailable(ParamcountError, ImportError):
    """A verification backend whose framework is not installed."""

    exit_code = 3

    def __init__(self, framework: str, extra: str, message: str | None = None) -> None:
        self.framework = framework
        self.extra = extra
        super().__init__(
            message
            or f"verifying with {framework} requires the {framework} package: "
            + install_hint(extra)
        )


class Mismatch(ParamcountError):
    """The formula engine and a real framework disagree, or a budget is exceeded."""

    exit_code = 1
