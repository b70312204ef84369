"""When a total or budget fails, say what grew: changed modules, each recurrent one explained.

Against the per-module counts recorded by ``--update`` (``modules = { rnn = 3_944_448 }``) the
changed, new and removed modules are named; with none recorded, the largest ones. A recurrent
module whose old count one changed setting explains says which: ``was hidden 256``; where the
old module itself is known (``--baseline``), what differs is read from it, never guessed:
``was hidden 32, layers 1``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from paramcount.checking.config import Model, recurrent_count
from paramcount.checking.explain import short
from paramcount.checking.measure import Measured, Row
from paramcount.engine.spec import LayerSpec
from paramcount.errors import SpecError
from paramcount.record import fields, replace

LARGEST = 3
"""How many modules are named when no per-module counts were recorded."""


def _count(spec: LayerSpec, **change: Any) -> int | None:
    try:
        return recurrent_count(replace(spec, **change))
    except (SpecError, ValueError, TypeError):
        return None


def _search(count: Callable[[int], int | None], target: int, low: int, high: int) -> int | None:
    """The value in [low, high] whose (increasing) count is ``target``, if there is one."""
    while low <= high:
        middle = (low + high) // 2
        value = count(middle)
        if value is None:
            return None
        if value == target:
            return middle
        if value < target:
            low = middle + 1
        else:
            high = middle - 1
    return None


def was(spec: LayerSpec, old: int) -> str | None:
    """The one setting whose old value gives ``old`` parameters: ``hidden 256``; every such
    setting where several do (``hidden 30 or input 41``: the count alone cannot tell which
    changed); None where none does."""
    candidates: list[tuple[str, str, int, int]] = [
        ("hidden", "hidden_size", 1, max(2 * spec.hidden_size, 1 << 20)),
        ("input", "input_size", 1, max(2 * spec.input_size, 1 << 24)),
        ("layers", "num_layers", 1, max(2 * spec.num_layers, 64)),
    ]
    if spec.proj_size:
        candidates.append(("proj", "proj_size", 0, spec.hidden_size - 1))
    found = []
    for label, field, low, high in candidates:
        value = _search(lambda v, f=field: _count(spec, **{f: v}), old, low, high)  # type: ignore[misc]
        if value is not None and value != getattr(spec, field):
            found.append(f"{label} {value}")
    if _count(spec, bidirectional=not spec.bidirectional,
              merge_modes=None) == old:
        found.append("unidirectional" if spec.bidirectional else "bidirectional")
    return " or ".join(found) or None


_SETTINGS = {"hidden_size": "hidden", "input_size": "input", "num_layers": "layers",
             "proj_size": "proj"}
"""The settings :func:`differs` names one by one; any other difference shows the old module."""


def differs(old: LayerSpec, new: LayerSpec) -> str | None:
    """What ``old`` was where it differs from ``new``: ``hidden 32, layers 1`` for the
    sizes, else the old module whole (``GRU(32, 64)``); None when they are the same."""
    changed = [name for name in fields(old) if getattr(old, name) != getattr(new, name)]
    if not changed:
        return None
    if set(changed) <= set(_SETTINGS):
        return ", ".join(f"{_SETTINGS[name]} {getattr(old, name)}" for name in changed)
    return short(old)


def line(row: Row, old: int | None, total: int, before: LayerSpec | None = None) -> str:
    """``rnn: LSTM(128, 320, 3 layers, bidirectional) 6,081,280 — was hidden 256 (3,944,448)``
    (``before``: the old module, when known, read rather than guessed from ``old``)."""
    what = short(row.spec) if row.spec is not None else row.type
    text = f"{row.name}: {what} {row.params:,}"
    if old is None:
        share = f"{100 * row.params / total:.1f}%" if total else "0%"
        return f"{text} ({share} of the total)"
    reason = None
    if row.spec is not None:
        reason = differs(before, row.spec) if before is not None else was(row.spec, old)
    return f"{text} — was {reason} ({old:,})" if reason else f"{text} — was {old:,}"


def what_grew(model: Model, measured: Measured) -> list[str]:
    """One line per module that changed against ``modules`` (or per largest module)."""
    recorded = model.modules_expected
    if not recorded:
        rows = [r for r in measured.rows if r.params]
        largest = sorted(rows, key=lambda r: -r.params)[:LARGEST]
        return [line(r, None, measured.total) for r in largest]
    return against(measured, recorded)


def against(measured: Measured, recorded: Mapping[str, int],
            before: Mapping[str, LayerSpec] | None = None) -> list[str]:
    """One line per module whose count differs from ``recorded`` (module → count: what
    ``--update`` wrote, or what the model held at ``--baseline``): changed, new, gone
    (``before``: module → the recurrent stack it was, where known)."""
    rows = [r for r in measured.rows if r.params or r.name in recorded]
    out = []
    for row in rows:
        old = recorded.get(row.name)
        if old is None:
            out.append(f"{row.name}: {short(row.spec) if row.spec else row.type} "
                       f"{row.params:,} — new")
        elif old != row.params:
            out.append(line(row, old, measured.total, (before or {}).get(row.name)))
    names = {r.name for r in measured.rows}
    out += [f"{name}: gone (was {old:,})" for name, old in recorded.items() if name not in names]
    return out

