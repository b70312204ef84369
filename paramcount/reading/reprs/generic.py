"""Any repr tree whose lines carry a printer's own figures beside the constructor's arguments.

A per-layer flop counter prints ``print(model)`` with its figures first in each module's
brackets: ptflops ``(gru): GRU(18.82 k, 94.358% Params, 385.28 KMac, 95.935% MACs, 32, 64,
batch_first=True)``, calflops ``GRU(18.82 K = 96.66% Params, 385.28 KMACs = 99.83% MACs,
...)``, and a line of figures alone under each container's ``Net(``. The constructor's
arguments follow the figures: :func:`arguments` finds where they start (after the last leading
argument that carries a printer's word or unit), so :mod:`.torch_repr` reads the layer calls as
it reads a plain repr; :func:`figures_only` tells a container's line of figures, read past.
"""

from __future__ import annotations

import re

from paramcount.reading.tables.generic import approximate
from paramcount.reading.tables.table import count
from paramcount.usertext import ascii_digits

__all__ = ["arguments", "figures_only", "parameters_figure", "parameters_share"]

_FIGURE = re.compile(
    r"""\s*+-?[0-9.,]{1,30}\s?(?:[kKMGTPB]|[kKMGT]?(?:Mac|MACs?|FLOPS|FLOPs?|B)|[mun]?s)?\s?%?
        (?:\s?(?:Params|params|MACs?|FLOPs?|FLOPS|Mac))?
        (?:\s?=\s?[0-9.,]{1,30}\s?%\s?(?:Params|params|MACs?|FLOPs?|FLOPS|latency))?\s*+""",
    re.X)
"""One figure: ptflops' ``18.82 k``, ``94.358% Params``; calflops' ``18.82 K = 96.66% Params``;
DeepSpeed's profiler's latency too (``107.05 us = 1.64% latency``)."""
_WORDED = re.compile(r"[A-Za-z%]")
_LIMIT = 12
"""The most leading figures one module line carries (ptflops 4, calflops 3 to 6)."""


def _leading(text: str) -> list[str]:
    """The first arguments of ``text`` (split at top-level commas, at most a few), as printed."""
    parts: list[str] = []
    depth, begin = 0, 0
    for at, char in enumerate(text):
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
            if depth < 0:
                parts.append(text[begin:at])
                return parts
        elif char == "," and depth == 0:
            parts.append(text[begin:at])
            begin = at + 1
            if len(parts) > _LIMIT:
                return parts
    parts.append(text[begin:])
    return parts


def arguments(rest: str) -> int:
    """Where the constructor's own arguments start in ``rest`` (a module line after its
    ``Class(``): past the printer's leading figures, the last of which carries a unit, a
    percent or a word (``18.82 k``, ``94.358% Params``, ``650.0 Mac``); 0 where it carries
    none (a plain repr: ``GRU(32, 64)`` keeps its 32 and 64)."""
    end, at = 0, 0
    for part in _leading(rest)[:_LIMIT]:
        if _FIGURE.fullmatch(part) is None or not part.strip():
            break
        at += len(part) + 1
        if _WORDED.search(part) is not None:
            end = at
    if end == 0:
        return 0
    while end < len(rest) and rest[end] == " ":
        end += 1
    return min(end, len(rest))


def figures_only(line: str) -> bool:
    """Whether ``line`` holds a printer's figures and nothing else (ptflops' line under a
    container's ``Net(``: ``19.47 k, 100.000% Params, 385.93 KMac, 100.000% MACs,``)."""
    text = line.strip().rstrip(",")
    if not text or not ascii_digits(text[0]) or len(text) > 400:
        return False
    parts = text.split(",")
    return len(parts) >= 2 and all(_FIGURE.fullmatch(p) is not None for p in parts) and any(
        _WORDED.search(p) is not None for p in parts)


def parameters_figure(line: str) -> tuple[int, int] | None:
    """The parameter count a line of figures leads with (ptflops' ``19.47 k, 100.000% Params,
    ...``): the counts it stands for, None where it leads with none."""
    first = line.strip().split(",", 1)[0].strip()
    exact = count(first)
    return (exact, exact) if exact is not None else approximate(first)


_SHARE = re.compile(r"\b([0-9]{1,3}(?:\.[0-9]{1,6})?)\s?% Params")


def parameters_share(line: str) -> str | None:
    """The share of the model's parameters a line of figures gives its module (ptflops'
    ``19.974% Params``), as printed; None where it gives none."""
    found = _SHARE.search(line[:400])
    return found.group(1) if found else None
