"""The work one paste's searches may do, in all: every read stays linear in the paste.

A printed count that hides its configuration is searched for (a Lightning row's rounded count
over depths and projections, a table row's count over the solver's fits, bare shapes over the
ways they group). Each search costs steps (one configuration counted, one grouping made) from
one budget per paste, set by :func:`budgeted` around :func:`paramcount.reading.pipeline.read`;
results are cached, so a row repeated costs its search once. Where the budget is spent, the
searches left undone say so: their rows are named unread (the total a bound) or their readings
listed as too many, never guessed. Outside a budgeted call searches are unbounded.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from contextvars import ContextVar
from typing import ParamSpec, TypeVar

STEPS = 60_000
"""The steps one paste's searches may take in all (a step, one configuration counted, is
about 0.05 ms: some three seconds at most, whatever the paste holds; a Lightning row's search
takes a few to a few hundred)."""

SPENT = (f"its search was not run: this paste's searches used the {STEPS:,} steps one paste "
         "may take")
"""Why a row whose search the budget cut is not read."""


class Spent(Exception):
    """The paste's budget is spent: the search in progress stops, its row is named unread."""


class Budget:
    """Steps left to one paste's searches."""

    def __init__(self, steps: int) -> None:
        self.left = steps

    def spend(self, steps: int = 1) -> None:
        """Take ``steps`` from the budget, or raise :class:`Spent` where they are not left."""
        if steps > self.left:
            self.left = 0
            raise Spent
        self.left -= steps

    @property
    def spent(self) -> bool:
        """Whether nothing is left."""
        return self.left <= 0


_UNBOUNDED = Budget(1 << 62)
_CURRENT: ContextVar[Budget] = ContextVar("paramcount_read_budget", default=_UNBOUNDED)


def spend(steps: int = 1) -> None:
    """Take ``steps`` from the budget of the paste being read (:class:`Spent` where none are
    left)."""
    _CURRENT.get().spend(steps)


def spent() -> bool:
    """Whether the budget of the paste being read is spent."""
    return _CURRENT.get().spent


Parameters = ParamSpec("Parameters")
Result = TypeVar("Result")


def budgeted(function: Callable[Parameters, Result]) -> Callable[Parameters, Result]:
    """``function`` with a fresh budget of :data:`STEPS` for each call."""

    @functools.wraps(function)
    def within(*args: Parameters.args, **kwargs: Parameters.kwargs) -> Result:
        token = _CURRENT.set(Budget(STEPS))
        try:
            return function(*args, **kwargs)
        finally:
            _CURRENT.reset(token)

    return within
