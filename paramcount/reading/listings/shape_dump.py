"""Shape dumps, a dialect of :mod:`.generic`'s listing of one tensor a line: what it cannot know.

The frameworks' variable reprs (TensorFlow's ``<tf.Variable 'name:0' shape=(28, 256)
dtype=float32>``, Keras 3's ``<Variable path=...>``), their values over the lines after them,
the ``:0`` TensorFlow adds to each name; and bare ``torch.Size([...])`` lines from
``model.parameters()``, named in torch's order where they form recurrent layers.
"""

from __future__ import annotations

from collections.abc import Sequence

from paramcount.reading.listings.generic import Dialect, is_line, read_lines, read_unnamed
from paramcount.reading.patterns import lazy
from paramcount.reading.tables.table import Printout

_VARIABLE = lazy(r"^\s*+\[?<(?:tf\.|Keras)?Variable\b(?=.*?\bshape=\()(?P<rest>.*)")
"""A framework's repr of a variable: TensorFlow's ``<tf.Variable 'rnn/lstm_cell/kernel:0'
shape=(138, 512) dtype=float32_ref>`` (TF 1.x, a ``tf.trainable_variables()`` loop; TF 2 adds
``numpy=array(...`` over the next lines), Keras 3's ``<Variable path=lstm/lstm_cell/kernel,
shape=(3, 16), dtype=float32, value=[[...`` (``<KerasVariable shape=..., path=...>`` before
3.4): its values, where printed, run on to the line that ends in ``>``."""
_VARIABLE_NAME = lazy(r"'(?P<quoted>[^'\s]{1,300})'|\bpath=(?P<path>[^\s,>]{1,300})")
_VARIABLE_SHAPE = lazy(r"\bshape=(?P<shape>\([0-9,\s]*+\))")


def _variable(line: str) -> tuple[str, str] | None:
    """A variable's repr on its first line: (name, shape), None where it is none."""
    found = _VARIABLE.match(line)
    if found is None:
        return None
    head = found.group("rest").split("value=")[0].split("numpy=")[0]
    name, shape = _VARIABLE_NAME.search(head), _VARIABLE_SHAPE.search(head)
    if name is None or shape is None:
        return None
    return name.group("quoted") or name.group("path"), shape.group("shape")


DIALECT = Dialect(form=_variable, runs_to=">", suffix=":0")
"""What the generic reader cannot know of these listings: the frameworks' variable reprs,
their values running on to ``>``, and TensorFlow's ``:0`` after each name."""

_BARE = lazy(r"^\s*+torch\.Size\(\[(?P<dims>[0-9,\s]*+)\]\)\s*+,?\s*+$")


def read_named(lines: Sequence[str], start: int) -> tuple[Printout, int] | None:
    """Consecutive ``name shape`` lines, read by :func:`.generic.read_lines` in this dialect."""
    return read_lines(lines, start, DIALECT)


def read_bare(lines: Sequence[str], start: int) -> tuple[Printout, int] | None:
    """Consecutive bare ``torch.Size([...])`` lines (``for p in model.parameters()``), read by
    :func:`.generic.read_unnamed`: named in torch's order where they form recurrent layers."""
    return read_unnamed(lines, start, _BARE, name_bare)


def name_bare(sizes: Sequence[tuple[int, ...]]) -> list[tuple[str, tuple[int, ...]]]:
    """Names for unnamed parameter shapes, so recognition can read them.

    Each run shaped like a torch RNN layer — (G·H, in), (G·H, Hr), two (G·H,) biases and, for
    an LSTM with ``proj_size``, (Hr, H) — is named as one (``rnn0.weight_ih_l0``...). A second
    identical run right after the first is its ``_reverse`` direction when the runs after the
    pair read 2·Hr (or nothing follows); a 1-layer bidirectional stack and a 2-layer one whose
    input equals its hidden size have the same shapes and the same total, and are named as the
    former. The runs after are further layers of the stack while they have the same roles and
    read its output width. Anything else is ``param{N}``.
    """
    named: list[tuple[str, tuple[int, ...]]] = []
    index, group = 0, 0
    while index < len(sizes):
        roles = _roles(sizes, index)
        if not roles:
            named.append((f"param{index}", sizes[index]))
            index += 1
            continue
        directions = 2 if _bidirectional(sizes, index, len(roles)) else 1
        for layer in range(_depth(sizes, index, roles, directions)):
            for suffix in ("", "_reverse")[:directions]:
                named += [(f"rnn{group}.{role}_l{layer}{suffix}", sizes[index + k])
                          for k, role in enumerate(roles)]
                index += len(roles)
        group += 1
    return named


def _roles(sizes: Sequence[tuple[int, ...]], index: int) -> tuple[str, ...]:
    """The roles of a torch RNN layer's tensors starting at ``index`` (``weight_ih``,
    ``weight_hh``, the biases where present, ``weight_hr`` for an LSTM's projection), or none."""
    if index + 1 >= len(sizes):
        return ()
    ih, hh = sizes[index], sizes[index + 1]
    if len(ih) != 2 or len(hh) != 2 or ih[0] != hh[0] or not hh[1]:
        return ()
    rows = ih[0]
    biased = tuple(sizes[index + 2:index + 4]) == ((rows,), (rows,))
    roles = ("weight_ih", "weight_hh", *(("bias_ih", "bias_hh") if biased else ()))
    if rows % hh[1] == 0 and rows // hh[1] in (1, 3, 4):
        return roles
    hidden, after = rows // 4, index + len(roles)
    if rows % 4 == 0 and hh[1] < hidden and after < len(sizes) and sizes[after] == (
            hh[1], hidden):
        return (*roles, "weight_hr")
    return ()


def _bidirectional(sizes: Sequence[tuple[int, ...]], index: int, run: int) -> bool:
    """Whether the run at ``index`` is repeated right after as its reverse direction (with the
    same roles: no biases of its own after it) and the pair is not followed by a run of the
    same rows that reads one direction's width."""
    if tuple(sizes[index + run:index + 2 * run]) != tuple(sizes[index:index + run]) or len(
            _roles(sizes, index + run)) != run:
        return False
    after = index + 2 * run
    return not _roles(sizes, after) or sizes[after][0] != sizes[index][0] or (
        sizes[after][1] == 2 * sizes[index + 1][1])


def _depth(sizes: Sequence[tuple[int, ...]], index: int, roles: tuple[str, ...],
           directions: int) -> int:
    """How many layers the stack starting at ``index`` has: each further layer's runs have the
    same roles and shapes as the first's, but read the width it gives (directions · Hr)."""
    run = len(roles)
    width = directions * sizes[index + 1][1]
    layers, at = 1, index + run * directions
    while _roles(sizes, at) == roles and sizes[at] == (sizes[index][0], width) and (
            tuple(sizes[at + 1:at + run]) == tuple(sizes[index + 1:index + run])) and all(
            tuple(sizes[at + d * run:at + (d + 1) * run]) == tuple(sizes[at:at + run])
            for d in range(1, directions)):
        layers += 1
        at += run * directions
    return layers


def is_dump(line: str) -> bool:
    """Whether ``line`` reads as one ``name shape`` line of a dump."""
    return is_line(line) or _variable(line) is not None
