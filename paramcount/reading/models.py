"""What a paste describes: the layers and models found in it, and what a layer still needs.

:class:`Layer` (one layer, counted where everything it needs is known), :class:`Model` (its
layers, its total exact only where its reader's accounting is whole) and :class:`Missing` (a
value the paste does not give). Made by :mod:`paramcount.reading.found`; pure data.
"""

from __future__ import annotations

import functools
import re

from paramcount.engine.spec import Cell, Framework, LayerSpec
from paramcount.reading.accounting import NOTHING, Accounting, bound_words
from paramcount.reading.code.python_code import Call
from paramcount.reading.keras_version import KerasVersion
from paramcount.reading.listings.unnamed import Grouping
from paramcount.reading.solve import Solution
from paramcount.record import field, record

__all__ = ["Layer", "Missing", "Model", "cell_of"]


@record
class Missing:
    """A value a layer needs that the paste does not give."""

    name: str
    line: int | None
    hint: str
    """What to do about it: ``pass --set hidden_size=N``, or why it cannot be set."""


@record
class Layer:
    """One layer found in the paste, counted where everything it needs is known."""

    name: str
    """Its attribute or variable (``lstm``, ``encoder.0``) or its printed name."""
    kind: str
    """Its class as written: ``nn.LSTM``, ``Bidirectional(LSTM)``, ``Dense``."""
    framework: Framework | None
    line: int | None
    spec: LayerSpec | None = None
    """Recurrent layers: the configuration, in the framework's words."""
    params: int | None = None
    formula: str | None = None
    """Non-recurrent layers: the count with its numbers (``256·2 + 2``)."""
    missing: tuple[Missing, ...] = ()
    printed: int | None = None
    """What a printout says this layer holds, where one does."""
    notes: tuple[str, ...] = ()
    solution: Solution | None = None
    """Where several configurations may fit, every one that does: a printed count's fits
    (:mod:`solve`), or the readings of unnamed shapes (:mod:`..listings.unnamed`), the
    recognised configuration first."""
    defaults: tuple[str, ...] = ()
    """Options the code leaves to a default that changed between Keras versions."""
    call: Call | None = field(default=None, compare=False, repr=False)
    """Code: the call that builds it (its options, such as ``batch_first``)."""
    holds: int | None = None
    """A row that prints a nested model (Keras' ``expand_nested``): the part of its printed
    count that its nested rows print again."""
    groupings: tuple[Grouping, ...] = ()
    """Unnamed shapes: the other ways to read this layer's tensors, as several layers in a row
    (:mod:`..listings.unnamed`)."""
    conditional: bool = False
    """Code: built in the branch read of an ``if`` whose test is not known, or in a loop of no
    known length (read once): shown, but left out of a bound, since it may not be built."""

    @property
    def candidates(self) -> tuple[LayerSpec, ...]:
        """The configurations that fit, as specs (:attr:`solution`'s fits; none where unsolved)."""
        return () if self.solution is None else tuple(fit.spec for fit in self.solution.fits)

    @property
    def recurrent(self) -> bool:
        """Whether this is an RNN/LSTM/GRU layer or cell."""
        return self.spec is not None or cell_of(self.kind) is not None or (
            self.kind.startswith("Bidirectional"))


@record
class Candidate:
    """One configuration a printout fits where several do, with its count (a family's
    ``print(model)`` does not show whether ``lm_head`` is tied to the embeddings)."""

    configuration: str
    params: int
    command: str | None
    """The ``paramcount`` command that counts it."""
    default: bool
    """Whether the library builds this one from a config that does not say (its default)."""
    options: tuple[tuple[str, object], ...] = ()
    """What sets it apart from the others: ``(("tie_word_embeddings", False),)``."""


@record
class Model:
    """A model the paste defines or prints."""

    name: str
    source: str
    """``code``, ``keras-summary``, ``torchinfo``, ``repr`` or ``shapes``."""
    line: int | None
    layers: tuple[Layer, ...]
    printed_total: int | None = None
    notes: tuple[str, ...] = ()
    candidates: tuple[Candidate, ...] = ()
    """Where its total is one of several the printout fits: each, with its count."""
    tensors: tuple[tuple[str, tuple[int, ...], int], ...] = ()
    """A shape dump's tensors as printed: (name, shape, line)."""
    stacks: tuple[LayerSpec, ...] = ()
    """Keras: runs of alike recurrent layers, each feeding the next, as one stacked spec (its
    count is the sum of theirs), so the growth analysis can explain the stack."""
    keras: KerasVersion | None = None
    """The Keras whose defaults it follows, where the paste says (:mod:`keras_version`)."""
    accounting: Accounting = NOTHING
    """The lines its reader claimed and could not read (:mod:`paramcount.reading.accounting`):
    its total is exact only where that is whole."""
    tied: int = 0
    """Code: the parameters of tensors it ties to another layer's (``head.weight =
    emb.weight``), counted once; a printer that counts per module (torchinfo) counts them
    twice."""
    unnamed: bool = False
    """A dump of shapes without names (``parameters()``): its layers' names are made up and
    their grouping is only a reading, so it is paired with no code model."""

    @property
    def total(self) -> int | None:
        """The sum of its layers' counts, or None where one of them is not known or a line of
        it was not read (the printout cut off, a row not understood)."""
        if not self.accounting.whole or any(
                layer.params is None for layer in self.layers):
            return None
        return sum(layer.params for layer in self.layers if layer.params is not None)

    @property
    def at_least(self) -> int | None:
        """Where the total is not exact, the sum of the counts that are known: a lower bound
        (counts are never negative; a layer that may not be built is left out); None where the
        total is exact or nothing is counted."""
        known = [layer.params for layer in self.layers
                 if layer.params is not None and not layer.conditional]
        if self.total is not None or not known:
            return None
        return sum(known)

    @property
    def bound(self) -> str:
        """Where the total is not exact: ``at least N; line 7 `…` not read: …``, else ""."""
        if self.total is not None:
            return ""
        return bound_words(self.at_least, self.accounting)


_CELLS = {"LSTM": Cell.LSTM, "GRU": Cell.GRU, "RNN": Cell.RNN, "SimpleRNN": Cell.RNN,
          "CuDNNLSTM": Cell.LSTM, "CuDNNGRU": Cell.GRU}


@functools.lru_cache(maxsize=1024)  # asked of each layer's class again and again
def cell_of(kind: str) -> Cell | None:
    """The cell of a class name such as ``nn.LSTM``, ``Bidirectional(GRU)``, ``LSTMCell``."""
    match = re.search(r"(CuDNNLSTM|CuDNNGRU|SimpleRNN|LSTM|GRU|RNN)(Cell)?\)?$", kind)
    return _CELLS[match.group(1)] if match else None
