"""Recurrent weights under loose names, recognised by the shapes the conventions give.

Hand-written models and numpy archives name a GRU's weights their own way: ``enc_w_ih``,
``dec.W``, ``rnn_recurrent_kernel``. Three spellings are read, after any prefix (ending in
``.``, ``/``, ``_``, ``-`` or ``:``):

- ``w_ih`` / ``w_hh`` / ``b_ih`` / ``b_hh``: PyTorch's layout, (G·H, I), (G·H, H), (G·H,);
- ``W`` / ``U`` / ``b``: Keras 1's names, in Keras' layout (I, G·H), (H, G·H), (G·H,);
- ``kernel`` / ``recurrent_kernel`` / ``bias``: Keras' names and layout.

Each group is renamed to the convention's own names and handed to that convention's exact
recogniser, so a group is claimed only when the convention writes exactly its shapes (G·H rows
over H gives the cell: 768 = 3·256 rows is a GRU). The names taken for each tensor are said in
a note. ``W`` / ``U`` / ``b`` is also tried in PyTorch's layout (one bias): where both layouts
fit with different layers, the note lists both.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from paramcount.engine.conventions import keras, pytorch
from paramcount.engine.conventions.base import Recognised
from paramcount.engine.conventions.recognition import Shapes, index_of
from paramcount.engine.spec import Cell

_SPELLINGS: dict[str, tuple[str, dict[str, str]]] = {
    "torch": ("PyTorch's", {"w_ih": "weight_ih_l0", "w_hh": "weight_hh_l0",
                            "b_ih": "bias_ih_l0", "b_hh": "bias_hh_l0"}),
    "keras1": ("Keras'", {"W": "rnn/kernel", "U": "rnn/recurrent_kernel", "b": "rnn/bias"}),
    "keras": ("Keras'", {"kernel": "rnn/kernel", "recurrent_kernel": "rnn/recurrent_kernel",
                         "bias": "rnn/bias"}),
}
_NAME = re.compile(
    r"(?P<prefix>(?:.*?[./_\-:])??)"
    r"(?P<role>[wWbB]_(?:ih|hh)|W|U|b|recurrent_kernel|kernel|bias)"
)


def recognise(shapes: Shapes) -> list[Recognised]:
    """Every recurrent layer whose tensors carry one of the loose spellings, in source order."""
    groups: dict[tuple[str, str], dict[str, str]] = {}
    for name in shapes:
        match = _NAME.fullmatch(name)
        if match is None:
            continue
        role, prefix = match["role"], match["prefix"]
        if role.lower() in _SPELLINGS["torch"][1]:
            role, spelling = role.lower(), "torch"
        else:
            spelling = "keras" if role in _SPELLINGS["keras"][1] else "keras1"
        groups.setdefault((prefix, spelling), {})[role] = name
    index = index_of(shapes)
    found = []
    for (prefix, spelling), roles in groups.items():
        layer = _layer(prefix, spelling, roles, shapes)
        if layer is not None:
            found.append(layer)
    found.sort(key=lambda r: min(index[n] for n in r.names))
    return found


def _layer(prefix: str, spelling: str, roles: Mapping[str, str],
           shapes: Shapes) -> Recognised | None:
    """The one layer a group is, in its spelling's layout (or in both, said in a note)."""
    candidates = [spelling] + (["torch-one-bias"] if spelling == "keras1" else [])
    readings = [r for r in (_read(c, roles, shapes) for c in candidates) if r is not None]
    if not readings:
        return None
    chosen, taken = readings[0]
    notes = list(chosen.notes)
    layout = "PyTorch's" if chosen.spec.framework.value == "torch" else "Keras'"
    notes.insert(0, "loose names read in " + layout + " layout by their shapes: " + ", ".join(
        f"{original} as {convention}" for convention, original in taken))
    if spelling == "keras1" and chosen.spec.cell is Cell.RNN:
        notes.append("W, U and b of one gate block are also the shapes of any W·x + U·h + b "
                     "(an attention score, for one): a plain RNN only if the module is one")
    if len(readings) > 1 and readings[1][0].spec != chosen.spec:
        other = readings[1][0].spec
        notes.append(f"the same shapes also fit PyTorch's layout as {pytorch.describe(other)}: "
                     "which one the file means is not stored in it")
    names = tuple(original for _, original in taken)
    return Recognised(prefix, chosen.spec, names, tuple(notes))


def _read(spelling: str, roles: Mapping[str, str],
          shapes: Shapes) -> tuple[Recognised, list[tuple[str, str]]] | None:
    """The layer the convention recognises once the group carries its own names, and which
    name was taken for which of its tensors (in the convention's order)."""
    if spelling == "torch-one-bias":
        if "b" in roles:
            return None
        renames = {"W": "weight_ih_l0", "U": "weight_hh_l0"}
    else:
        renames = _SPELLINGS[spelling][1]
    if set(roles) - set(renames):
        return None
    renamed = {renames[role]: shapes[name] for role, name in roles.items()}
    torch_layout = any(own.startswith("weight") for own in renames.values())
    found = (pytorch if torch_layout else keras).recognise(renamed)
    if len(found) != 1 or set(found[0].names) != set(renamed):
        return None
    back = {renames[role]: name for role, name in roles.items()}
    return found[0], [(own, back[own]) for own in renames.values() if own in back]
