"""``check --baseline REF``: today's models beside the same configs at a git revision.

Each config checked today is read as it was at REF (``checking.git``, no checkout) and its
models counted there as today: hand-written layers and families by the formula engine, model
files from their bytes at REF (read header-only, as today). A factory is not run for the base
unless asked (``--baseline-factories``): its model's "before" is not counted, and says so.
Asked, the base's tree is written from ``git archive`` to a temporary folder and the factory
runs in the fence from there (that folder first on the import path and its working directory,
the repository's own folders taken off ``PYTHONPATH``), so that it is the base's code that
builds the base's model. Per model:
before, after, the change, modules added or removed, and why it grew in ``grew``'s words;
``--max-growth`` marks those that grew past it. Nothing here prints.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from paramcount.checking.config import Config, Model, load_config
from paramcount.checking.git import GitError, commit, extract, relative, show, toplevel
from paramcount.checking.grew import against
from paramcount.checking.locate import Path
from paramcount.checking.measure import Measured, Row, built_factory, from_layers, measure
from paramcount.checking.session import FileResult
from paramcount.checking.source import PYPROJECT_ROOT, Source, parse
from paramcount.errors import ConfigError
from paramcount.factories.policy import FactoryPolicy


@dataclass(frozen=True)
class Growth:
    """How much a model may grow against the base: a share (``10%``) or a count (``50K``)."""

    text: str
    """As the user wrote it."""
    share: Fraction | None = None
    count: int | None = None

    def exceeded(self, before: int, after: int) -> bool:
        """Whether going from ``before`` to ``after`` parameters grows past this limit."""
        if self.count is not None:
            return after - before > self.count
        assert self.share is not None
        return after > before and (before == 0 or Fraction(after - before, before) > self.share)


def parse_growth(text: str) -> Growth:
    """``10%``, ``2.5%`` (a share of the base's count) or ``50000``, ``1.5M`` (parameters);
    ValueError naming the option otherwise."""
    raw = text.strip()
    if raw.endswith("%"):
        import re

        number = raw[:-1].strip()
        if not re.fullmatch(r"\d{1,9}(\.\d{1,9})?", number):
            raise ValueError(f"--max-growth {text}: expected a percentage such as 10% or a "
                             "number of parameters such as 50000")
        return Growth(text, share=Fraction(number) / 100)
    from paramcount.engine.counts import parse_count

    try:
        return Growth(text, count=parse_count(raw))
    except (ValueError, TypeError) as error:
        raise ValueError(f"--max-growth {text}: expected a percentage such as 10% or a number "
                         f"of parameters such as 50000 ({error})") from None


@dataclass(frozen=True)
class Change:
    """One model today beside the same model at the base."""

    file: str
    """The config, as named today."""
    name: str
    status: str
    """``grew``, ``shrank``, ``same``, ``new``, ``removed`` or ``not counted``."""
    before: int | None
    after: int | None
    added: tuple[str, ...] = ()
    """Modules (rows) today that the base did not have: ``layers[1] (relu)``."""
    removed: tuple[str, ...] = ()
    grew: tuple[str, ...] = ()
    """What changed, module by module, in the engine's words (``was hidden 256``)."""
    why: str | None = None
    """Why a side is not counted."""
    over: bool = False
    """Whether it grew past ``--max-growth``."""
    path: Path = ()
    """Where the model's table is in today's config (the base's for a removed model)."""

    @property
    def change(self) -> int | None:
        """after − before, when both were counted."""
        return None if self.before is None or self.after is None else self.after - self.before

    @property
    def relative(self) -> Fraction | None:
        """The change as a share of before (None when either is missing or before is 0)."""
        change = self.change
        return None if change is None or not self.before else Fraction(change, self.before)

    @property
    def order(self) -> tuple[int, int]:
        """Sort key: counted models by growth, biggest first; the not counted last."""
        if self.status == "not counted":
            return (1, 0)
        grown = self.change if self.change is not None else (
            self.after or 0) - (self.before or 0)
        return (0, -grown)


@dataclass
class Comparison:
    """Every model of the configs checked, today beside the base."""

    ref: str
    commit: str
    changes: list[Change] = field(default_factory=list)
    limit: Growth | None = None
    notes: list[str] = field(default_factory=list)
    """Per file: what could not be compared (a base config that did not load)."""

    @property
    def over(self) -> list[Change]:
        """The models that grew past ``--max-growth``."""
        return [c for c in self.changes if c.over]


@dataclass
class _Base:
    """One repository at the base revision, and the folder its files are written to (made
    when a model file or a factory first needs it, removed at the end)."""

    revision: str
    top: str
    ref: str
    factories: FactoryPolicy | None
    """How the base's factories run (None: they are not run)."""
    folder: str = ""
    tree: bool = False
    """Whether the whole tree is in ``folder`` (written for a factory)."""

    def scratch(self) -> str:
        """The folder the base's files are written to."""
        if not self.folder:
            self.folder = tempfile.mkdtemp(prefix="paramcount-baseline-")
        return self.folder

    def extracted(self, where: str) -> bool:
        """Whether ``where`` (a file or folder of the repository) is in the folder now,
        written from the base when it is not yet."""
        if self.tree:
            return os.path.exists(os.path.join(self.folder, *where.split("/")))
        return extract(self.revision, where, self.top, self.scratch())

    def whole_tree(self) -> bool:
        """Write the base's whole tree to the folder (once); False when git gave nothing."""
        if not self.tree:
            self.tree = extract(self.revision, "", self.top, self.scratch())
        return self.tree

    def close(self) -> None:
        """Remove what was written."""
        if self.folder:
            import shutil

            shutil.rmtree(self.folder, ignore_errors=True)
            self.folder = ""


def compare(results: Sequence[FileResult], ref: str, limit: Growth | None = None,
            factories: FactoryPolicy | None = None) -> Comparison | None:
    """Compare each checked config with itself at ``ref`` (None when no config could be read
    today); GitError (one line) when there is no repository or the revision is unknown.
    ``factories``: how the base's factories run (None: they are not, and say so)."""
    from paramcount.checking.git import check_ref

    check_ref(ref)
    bases: dict[str, _Base] = {}
    changes: list[Change] = []
    notes: list[str] = []
    try:
        for result in results:
            if result.config is None:
                continue  # an invalid config today: its errors are the answer
            config = result.config
            path = config.source.path or result.name
            top = toplevel(os.path.dirname(os.path.abspath(path)))
            if top not in bases:
                bases[top] = _Base(commit(ref, top), top, ref, factories)
            inside = relative(path, top)
            if inside is None:
                raise GitError(f"--baseline: {path} is outside the repository at {top}")
            base, why = _base_config(config, bases[top].revision, inside, top, ref)
            if why is not None:
                notes.append(why)
            changes += _changes(result, base, why, bases[top], inside, limit)
    finally:
        for at in bases.values():
            at.close()
    if not bases:
        return None
    first = next(iter(bases.values())).revision
    return Comparison(ref, first, sorted(changes, key=lambda c: c.order), limit, notes)


def compare_or_error(results: list[FileResult], ref: str, limit: Growth | None = None,
                     factories: FactoryPolicy | None = None) -> Comparison | None:
    """:func:`compare`, with git's failure added to ``results`` as one more result in error
    (``--baseline``: said with the others, exit 2) instead of raised."""
    try:
        return compare(results, ref, limit, factories)
    except ConfigError as error:
        results.append(FileResult("--baseline", errors=[error], config_file=False))
        return None


def _base_config(config: Config, revision: str, inside: str, top: str, ref: str
                 ) -> tuple[Config | None, str | None]:
    """The config as it was at ``revision`` (None with why when it cannot be compared; None and
    no why when the file was not there: every model is new)."""
    raw = show(revision, inside, top)
    if raw is None:
        return None, None
    source = config.source
    name = f"{source.name} at {ref}"
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None, f"{name}: not UTF-8 text, not compared"
    bom = text.startswith("\ufeff")
    text = text[1:] if bom else text
    try:
        data = parse(name, text, source.format)
        base = Source(name, text, source.format, data, path="", bom=bom)
        if source.root:
            tool = data.get("tool") if isinstance(data, dict) else None
            if not isinstance(tool, dict) or not isinstance(tool.get("paramcount"), dict):
                return None, None  # no [tool.paramcount] at the base: every model is new
            base.data = tool["paramcount"]
            base.root = PYPROJECT_ROOT
        return load_config(base), None
    except ConfigError as error:
        first = str(error).splitlines()[0] if str(error) else type(error).__name__
        cut = first if len(first) <= 200 else first[:199] + "…"
        return None, f"{name} is not a valid config, not compared ({cut})"


def _measured_base(model: Model, base: Config, at: _Base, inside: str
                   ) -> tuple[Measured | None, str | None]:
    """What ``model`` held at the base, or why it is not counted."""
    if model.kind == "layers":
        return from_layers(model), None
    if model.kind == "factory":
        return _factory_base(model, base, at, inside)
    if model.kind == "file":
        assert model.file is not None
        folder = os.path.dirname(inside)
        where = os.path.normpath(os.path.join(folder, model.file)).replace(os.sep, "/")
        if os.path.isabs(model.file) or where == ".." or where.startswith("../"):
            return None, f"{model.file} is outside the repository"
        if not at.extracted(where):
            return None, f"{model.file} was not in the base"
        base.source.path = os.path.join(at.folder, *inside.split("/"))
    try:
        return measure(model, base, FactoryPolicy(allowed=False, refused_by="--baseline")), None
    except ConfigError as error:
        text = str(error)
        return None, text.split(": ", 2)[-1][:200] if text else "could not be read"


def _factory_base(model: Model, base: Config, at: _Base, inside: str
                  ) -> tuple[Measured | None, str | None]:
    """The factory ``model`` as the base's own code builds it, in the fence, from the base's
    tree (written for it); or why it is not counted."""
    if at.factories is None:
        return None, "a factory is not run for the base (--baseline-factories runs it)"
    if not at.factories.allowed:
        return None, f"not run: {at.factories.refused_by} refuses every factory"
    if not at.whole_tree():
        return None, "git archive gave no files for the base"
    tree = at.folder
    here = relative(os.getcwd(), at.top)
    cwd = os.path.join(tree, *here.split("/")) if here else tree
    cwd = cwd if os.path.isdir(cwd) else tree
    where = [os.path.dirname(os.path.join(tree, *inside.split("/"))), cwd]
    try:
        return built_factory(model, base, at.factories, where, cwd, _environment(at.top)), None
    except ConfigError as error:
        text = str(error)
        return None, text.split(": ", 2)[-1][:300] if text else "could not be built"


def _environment(top: str) -> dict[str, str]:
    """Our environment with the repository's own folders taken off ``PYTHONPATH`` (a module
    missing at the base is not imported from today's work tree)."""
    environment = dict(os.environ)
    root = os.path.realpath(top)
    kept = [p for p in environment.get("PYTHONPATH", "").split(os.pathsep)
            if p and os.path.realpath(p) != root and relative(p, top) is None]
    if kept:
        environment["PYTHONPATH"] = os.pathsep.join(kept)
    else:
        environment.pop("PYTHONPATH", None)
    return environment


def _paired(model: Model, old: Measured, new: Measured) -> tuple[dict[str, Row], list[Row]]:
    """Today's row name → the base's row of the same module, and the base's rows that
    today lacks. Modules with names (factories, files, named layers) pair by name; the rows
    of hand-written layers, named by position (``layers[2]``), pair by kind in order, so
    that a layer inserted is one row added, not every later row changed."""
    if model.kind != "layers":
        names = {r.name for r in new.rows}
        return ({r.name: r for r in old.rows},
                [r for r in old.rows if r.name not in names])
    from difflib import SequenceMatcher

    def kind(row: Row) -> str:
        return row.type.split("(", 1)[0].strip()

    pairs: dict[str, Row] = {}
    removed: list[Row] = []
    matcher = SequenceMatcher(None, [kind(r) for r in old.rows], [kind(r) for r in new.rows],
                              autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal" or (tag == "replace" and i2 - i1 == j2 - j1):
            pairs.update((new.rows[j].name, old.rows[i])
                         for i, j in zip(range(i1, i2), range(j1, j2), strict=True))
        else:
            removed += old.rows[i1:i2]
    return pairs, removed


def _changes(result: FileResult, base: Config | None, why: str | None, at: _Base,
             inside: str, limit: Growth | None) -> list[Change]:
    """One Change per model of today's config and per model the base had and today lacks."""
    assert result.config is not None
    ref = at.ref
    today = {o.model.name: o for o in result.outcomes}
    before: dict[str, tuple[Model, Measured | None, str | None]] = {}
    if base is not None:
        for model in base.models:
            measured, reason = _measured_base(model, base, at, inside)
            before[model.name] = (model, measured, reason)
    out = []
    for model in result.config.models:
        outcome = today.get(model.name)
        if outcome is None:
            out.append(Change(result.name, model.name, "not counted", None, None,
                              why="not counted today (see the error above)", path=model.path))
            continue
        after = outcome.table
        if base is None and why is not None:
            out.append(Change(result.name, model.name, "not counted", None, after.total,
                              why=f"the config at {ref} is not compared (below)",
                              path=model.path))
            continue
        if base is None or model.name not in before:
            out.append(Change(result.name, model.name, "new", None, after.total,
                              added=tuple(f"{r.name} ({r.type})" for r in after.rows),
                              path=model.path))
            continue
        _, old, reason = before[model.name]
        if old is None:
            out.append(Change(result.name, model.name, "not counted", None, after.total,
                              why=f"at {ref}: {reason}", path=model.path))
            continue
        paired, removed = _paired(model, old, after)
        rows = {name: row.params for name, row in paired.items()}
        specs = {name: row.spec for name, row in paired.items() if row.spec is not None}
        added = tuple(f"{r.name} ({r.type})" for r in after.rows if r.name not in rows)
        status = ("grew" if after.total > old.total else
                  "shrank" if after.total < old.total else "same")
        changed = added or removed or any(rows[r.name] != r.params for r in after.rows
                                          if r.name in rows)
        grew = [*against(after, rows, specs), *(f"{row.name}: gone (was {row.params:,})"
                                         for row in removed)] if changed else []
        out.append(Change(
            result.name, model.name, status, old.total, after.total, added=added,
            removed=tuple(f"{r.name} ({r.type})" for r in removed), grew=tuple(grew),
            over=limit is not None and limit.exceeded(old.total, after.total),
            path=model.path))
    names = {m.name for m in result.config.models}
    for name, (model, old, _) in before.items():
        if name not in names:
            out.append(Change(result.name, name, "removed",
                              old.total if old is not None else None, None, path=model.path))
    return out
