"""Regular expressions compiled on first use: a paste is read by a few of the many readers, and
compiling every reader's patterns at import cost more than reading a 1,000-row table
(``benchmarks/read_speed.py``). A module-level pattern is written ``lazy(r"...")`` where it
would be ``re.compile(r"...")``, and used the same way."""

from __future__ import annotations

import re
from typing import Any, cast

_METHODS = ("match", "fullmatch", "search", "finditer", "findall", "sub", "subn", "split",
            "pattern", "flags", "groups", "groupindex")


class _Lazy:
    """A pattern not compiled yet: the first attribute asked for compiles it and binds its
    methods on the instance, so that later calls go straight to the compiled pattern's."""

    def __init__(self, pattern: str, flags: int) -> None:
        self._source = (pattern, flags)

    def __getattr__(self, name: str) -> Any:
        compiled = re.compile(*self._source)
        for method in _METHODS:
            setattr(self, method, getattr(compiled, method))
        return getattr(compiled, name)

    def __repr__(self) -> str:
        return f"lazy({self._source[0]!r})"


def lazy(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """``re.compile(pattern, flags)`` the first time it is used."""
    return cast("re.Pattern[str]", _Lazy(pattern, flags))
