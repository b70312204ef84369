"""The code reader's accounting: the statements each model claims, and those it could not read.

Each model (a class's ``__init__``, a ``Sequential`` and its ``.add`` lines, a functional graph,
a layer alone) gets an :class:`~paramcount.reading.accounting.Accounting`. A class model claims
every statement of its ``__init__`` the walker read (with those of the base ``__init__``, the
classes and the functions of the paste it followed); a top-level model claims the statements
that made it or added a layer to it. A statement that builds no layer (``super().__init__()``,
``self.dropout_p = 0.1``) is claimed and used: it was read, and its value kept. ``forward`` and
any method but ``__init__`` is not walked, so not claimed. A statement is named unread, with
why, where it may build a layer paramcount could not count: a submodule built by a call the
paste does not show, a class it does not define, a layer chosen by a value not known, an ``if``
whose test is not known or a loop whose length is not known (their layers are shown, as read
once, but left out of the bound: they may not be built), a class that builds itself.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from typing import Any

from paramcount.engine.layers import KNOWN
from paramcount.reading.accounting import Accounting, Unread
from paramcount.reading.code.evaluate import _Evaluator
from paramcount.reading.code.values import Call, Unknown, _applied, _Scope, dotted


def _account(claimed: Iterable[int], unread: Iterable[Unread]) -> Accounting:
    """The account of one model: its lines, the unread among them (claimed too)."""
    found = tuple(dict.fromkeys(unread))
    return Accounting(frozenset(claimed) | {u.line for u in found}, found)


def _span(node: ast.stmt) -> tuple[int, int]:
    return node.lineno, node.end_lineno or node.lineno


def _lines(span: tuple[int, int] | None) -> range:
    return range(0) if span is None else range(span[0], span[1] + 1)


_IF = "`if {}` is not known: the layers of its first branch are shown, not counted"
_LOOP = "the loop over {} has no known length: its layers are shown once, not counted"


class _Accountant(_Evaluator):
    """The walker's bookkeeping: the lines each model claims, the statements it could not read,
    and the layers read in statements that may not run."""

    def __init__(self, overrides: Mapping[str, Any]) -> None:
        super().__init__(overrides)
        self.reading: list[_Scope] = []
        """The scopes of the ``__init__`` s being read, innermost last: the statements of a
        function of the paste they follow are accounted in the innermost one."""
        self.doubtful: dict[int, Call] = {}
        """The ids of the layer calls put in a list by statements that may not run (a loop of
        no known length): their steps are conditional."""

    def lose(self, scope: _Scope, line: int, reason: str, owner: str | None = None) -> None:
        """A statement that may build a layer and could not be read: named, with why, in the
        account of its model (``owner``, a key of :attr:`_Scope.claims`) or of every model
        the scope makes."""
        text = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
        unread = Unread(line, text, reason)
        if owner is None:
            scope.unread.append(unread)
            scope.claimed.add(line)
        else:
            scope.owned.setdefault(owner, []).append(unread)
            scope.claims.setdefault(owner, set()).add(line)

    def claim(self, scope: _Scope, owner: str) -> None:
        """The statement being read made or added to the top-level model ``owner``."""
        scope.claims.setdefault(owner, set()).update(_lines(scope.span))

    def absorb(self, scope: _Scope, account: Accounting) -> None:
        """A class or function the statement being read followed: its lines and what it could
        not read join the scope's (an unread line 0 is the statement itself)."""
        scope.claimed |= account.claimed
        for unread in account.unread:
            if unread.line:
                scope.unread.append(unread)
            else:
                self.lose(scope, scope.span[0] if scope.span else 0, unread.reason)

    def builds(self, nodes: Iterable[ast.stmt]) -> bool:
        """Whether statements may build a layer: they call a layer class or a class or function
        of the paste, apply a layer, add to a container, or assign a call to ``self.``."""
        own = KNOWN | self.functions.keys()
        for node in (n for statement in nodes for n in ast.walk(statement)):
            if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None and any(
                    (dotted(t) or "").startswith("self.") for t in (
                        node.targets if isinstance(node, ast.Assign) else [node.target])) and any(
                    isinstance(n, ast.Call) for n in ast.walk(node.value)):
                return True
            if isinstance(node, ast.Call):
                callee = dotted(node.func) or ""
                if callee.rsplit(".", 1)[-1] in own or self.own_class(callee) is not None or (
                        _applied(node)) or callee.endswith(
                        (".add", ".append", ".add_module", ".extend", ".insert")):
                    return True
        return False

    def doubt(self, before: Mapping[str, Any], env: Mapping[str, Any]) -> None:
        """The layers a statement that may not run added to the lists of ``env`` (``before``
        holds them as they were): marked doubtful, so their steps are conditional."""
        for name, value in env.items():
            if isinstance(value, list):
                old = {id(item) for item in before.get(name, [])}
                self.doubtful.update((id(item), item) for item in value
                                     if isinstance(item, Call) and id(item) not in old)

    def unsettle(self, nodes: Iterable[ast.stmt], scope: _Scope, unknown: Unknown) -> None:
        """The names statements that may not run (or run another way) assign are not known
        after them: they depend on what decides whether they run (``unknown``)."""
        for node in (n for statement in nodes for n in ast.walk(statement)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target] if (
                isinstance(node, (ast.AnnAssign, ast.AugAssign, ast.For))) else []
            for target in targets:
                for element in target.elts if isinstance(target, (ast.Tuple, ast.List)) else [
                        target]:
                    if (name := dotted(element)) is not None:
                        scope.env[name] = unknown

    def cut_short(self, node: ast.stmt) -> bool:
        """Whether an ``__init__`` assignment of a bare name or attribute (``self.rnn =
        nn.GR``) is the last line of the code, where a cut leaves a statement short."""
        last = max((n for n, line in enumerate(self.lines, 1) if line.strip()), default=0)
        return isinstance(node, (ast.Assign, ast.AnnAssign)) and isinstance(
            node.value, (ast.Name, ast.Attribute)) and node.end_lineno == last

    def lists(self, env: Mapping[str, Any]) -> dict[str, list[Any]]:
        """The lists of ``env`` as they are now (for :meth:`doubt`)."""
        return {name: list(value) for name, value in env.items() if isinstance(value, list)}
