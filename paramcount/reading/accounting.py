"""What a reader was handed and what became of each line: the one place exactness is decided.

Every reader (a printer's, the code reader) returns an :class:`Accounting` beside what it
read: the lines it claimed, those among them it could not read (each with why, as
:class:`Unread`), and whether what it claimed is a whole printout or a crop of one (no header,
no closing line, no totals). A model's total is exact only when its accounting is whole;
otherwise the answer is a bound (:func:`bound_words`: ``at least 61,824; line 7 `(1-2): …` not
read: a folded repeat of an unknown form``). The lines claimed and not named unread are the
lines used: a reader that claims a line it did not read must say so, so nothing it could not
read disappears. Pure: no framework is imported.
"""

from __future__ import annotations

from collections.abc import Iterable

from paramcount.record import record

__all__ = ["CLIP", "NOTHING", "Accounting", "Unread", "bound_words", "clip"]

CLIP = 48
"""The most characters of a line quoted in an answer."""


def clip(text: str) -> str:
    """A line as quoted in an answer: stripped, cut to :data:`CLIP` characters with ``…``."""
    text = text.strip()
    return text if len(text) <= CLIP else text[:CLIP - 1].rstrip() + "…"


@record
class Unread:
    """A line a reader claimed but could not read, and why (in the reader's words, never
    blaming the input for what paramcount could not read)."""

    line: int
    text: str
    reason: str

    @property
    def words(self) -> str:
        """``line 7 `(1-2): 2 x Foo(…` not read: a folded repeat of an unknown form``."""
        return f"line {self.line} `{clip(self.text)}` not read: {self.reason}"


@record
class Accounting:
    """The lines a reader claimed, those it could not read, and whether it saw a whole
    printout (``cropped`` names what is missing where it did not)."""

    claimed: frozenset[int] = frozenset()
    unread: tuple[Unread, ...] = ()
    cropped: tuple[str, ...] = ()
    """What shows the printout is cut: ``no closing line``, ``no header``, ``no totals``."""

    @classmethod
    def span(cls, first: int, last: int, unread: Iterable[Unread] = (),
             cropped: Iterable[str] = ()) -> Accounting:
        """Lines ``first`` to ``last`` (1-based, inclusive) claimed, ``unread`` among them."""
        return cls(frozenset(range(first, last + 1)), tuple(unread), tuple(cropped))

    @property
    def used(self) -> frozenset[int]:
        """The lines claimed and read: every claimed line not named unread."""
        return self.claimed - {u.line for u in self.unread}

    @property
    def whole(self) -> bool:
        """Whether every claimed line was read and the printout is not a crop: only then is a
        total exact."""
        return not self.unread and not self.cropped

    @property
    def stray(self) -> tuple[Unread, ...]:
        """Unread lines outside what was claimed (a reader's mistake; tests hold it empty)."""
        return tuple(u for u in self.unread if u.line not in self.claimed)

    def __add__(self, other: Accounting) -> Accounting:
        """Two accounts of one model (a table and its nested printout) as one."""
        return Accounting(self.claimed | other.claimed,
                          tuple(dict.fromkeys((*self.unread, *other.unread))),
                          tuple(dict.fromkeys((*self.cropped, *other.cropped))))

    def words(self, most: int = 3) -> str:
        """What keeps the total from being exact, in words (the first ``most`` unread lines
        quoted, the rest counted); "" where the accounting is whole."""
        parts = [f"the printout is cut off ({', '.join(self.cropped)})"] if self.cropped else []
        parts += [u.words for u in self.unread[:most]]
        if len(self.unread) > most:
            parts.append(f"and {len(self.unread) - most:,} more lines not read")
        return "; ".join(parts)


NOTHING = Accounting()
"""The account of a reader that claimed no line (nothing unread, nothing cut)."""


def bound_words(at_least: int | None, accounting: Accounting) -> str:
    """A model's count where its accounting is not whole: ``at least 61,824; line 7 …``, or
    ``not known; …`` where nothing was counted."""
    head = "not known" if at_least is None else f"at least {at_least:,}"
    reason = accounting.words()
    return f"{head}; {reason}" if reason else head
