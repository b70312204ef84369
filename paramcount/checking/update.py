"""``--update``: write today's counts back as the expectations, touching nothing else.

Surgical text edits at the positions the locator found: each expected ``total`` and layer
``params`` value is replaced in place (keeping ``1_000`` underscores if the user wrote them),
and a model without ``total`` gets one line after its ``[models.NAME]`` header. Comments,
order, spacing and quoting stay exactly as they were; budgets (max_params, max_bytes) are the
user's decisions and are never rewritten.
"""

from __future__ import annotations

import json
import os
import re
import stat
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from paramcount.checking.config import Config, Model
from paramcount.checking.evaluate import Outcome
from paramcount.checking.locate import Path, Span, path_text
from paramcount.checking.source import Source
from paramcount.errors import ConfigError


@dataclass(frozen=True)
class Change:
    """One expectation rewritten or added."""

    model: str
    key: str
    """``total`` or ``layers[2].params``."""
    old: int | None
    new: int
    note: str | None = None
    """What to print instead of ``old → new`` (the modules table: how many were recorded)."""

    def __str__(self) -> str:
        if self.note is not None:
            return self.note
        old = "(none)" if self.old is None else f"{self.old:,}"
        return f"{self.model} {self.key} {old} → {self.new:,}"


@dataclass(frozen=True)
class Skipped:
    """A model whose ``total`` could not be added without restructuring the file."""

    model: str
    reason: str


def _literal(old: str | None, value: int, format: str) -> str:
    """``value`` as the user wrote the old one: TOML underscores kept (and used for new keys)."""
    if format == "toml" and (old is None or "_" in old):
        return f"{value:_}"
    return str(value)


def _key(name: str, format: str) -> str:
    if format == "toml" and re.fullmatch(r"[A-Za-z0-9_-]+", name):
        return name
    return json.dumps(name)


def modules_literal(counts: Mapping[str, int], format: str) -> str:
    """``{ rnn = 3_944_448, "head.0" = 32_832 }`` (TOML) or ``{"rnn": 3944448}`` (JSON)."""
    if format == "json":
        return "{" + ", ".join(f"{json.dumps(k)}: {v}" for k, v in counts.items()) + "}"
    return "{ " + ", ".join(f"{_key(k, format)} = {_literal(None, v, format)}"
                            for k, v in counts.items()) + " }"


def recorded_modules(outcome: Outcome) -> dict[str, int]:
    """The per-module counts ``--update`` records for a factory or file model."""
    if outcome.measured is None or outcome.model.kind in ("layers", "family"):
        return {}  # a family model's parts follow from its config: nothing to record
    return {row.name: row.params for row in outcome.measured.rows if row.params}


def updated_text(config: Config, outcomes: Sequence[Outcome] | None = None
                 ) -> tuple[str, list[Change], list[Skipped]]:
    """The config's text with every expectation set to today's count, and what changed.

    Factory and file models also get their per-module counts (``modules = { ... }``).
    """
    source = config.source
    text = source.text
    spans = source.spans
    newline = "\r\n" if "\r\n" in text else "\n"
    edits: list[tuple[int, int, str]] = []
    changes: list[Change] = []
    skipped: list[Skipped] = []

    def full(path: Path) -> Path:
        return (*source.root, *path)

    first_child = _first_child_keys(spans)
    totals = ([o.total for o in outcomes] if outcomes is not None
              else [m.total for m in config.models])
    for n, (model, total) in enumerate(zip(config.models, totals, strict=True)):
        modules = recorded_modules(outcomes[n]) if outcomes is not None else {}
        total_span = spans.get(full((*model.path, "total")))
        additions: list[tuple[str, str]] = []
        if total_span is not None:
            if model.total_expected != total:
                old = text[total_span.start : total_span.end]
                edits.append((total_span.start, total_span.end,
                              _literal(old, total, source.format)))
                changes.append(Change(model.name, "total", model.total_expected, total))
        else:
            additions.append(("total", _literal(None, total, source.format)))
            changes.append(Change(model.name, "total", None, total))
        if modules and modules != dict(model.modules_expected or {}):
            span = spans.get(full((*model.path, "modules")))
            literal = modules_literal(modules, source.format)
            changed = sum(1 for k, v in modules.items()
                          if (model.modules_expected or {}).get(k) != v)
            gone = len(set(model.modules_expected or {}) - set(modules))
            note = Change(model.name, "modules", None, changed,
                          f"{model.name} modules: {changed} recorded"
                          + (f", {gone} removed" if gone else ""))
            if span is not None:
                edits.append((span.start, span.end, literal))
            else:
                additions.append(("modules", literal))
            changes.append(note)
        if [key for key, _ in additions] == ["modules"] and total_span is not None and (
                source.format == "toml" and text.find("\n", total_span.end) >= 0
                and "\n" not in text[total_span.key : total_span.end]
                and _header(source, model)):
            end = text.find("\n", total_span.end) + 1  # the line after ``total = ...``
            edits.append((end, end, f"modules = {additions[0][1]}{newline}"))
        elif additions:
            insertion = _insert(text, config, model, additions, newline, first_child)
            if isinstance(insertion, str):
                keys = " and ".join(f"'{k} = {v}'" for k, v in additions)
                skipped.append(Skipped(model.name, f"{insertion}: add {keys} by hand"))
                changes = [c for c in changes if not (c.model == model.name and (
                    c.key == "modules" or (c.key == "total" and c.old is None)))]
            else:
                edits.append(insertion)
        stack = [(layer, "") for layer in model.layers]
        while stack:
            layer, prefix = stack.pop(0)
            label = f"{prefix}layers[{layer.index}]"
            stack[:0] = [(child, f"{label}.") for child in layer.children]
            if layer.expected is not None and layer.expected != layer.params:
                span = spans.get(full((*layer.path, "params")))
                if span is None:
                    skipped.append(Skipped(model.name, f"cannot locate {label}.params in the "
                                                       "file; set it by hand"))
                    continue
                old = text[span.start : span.end]
                edits.append((span.start, span.end,
                              _literal(old, layer.params, source.format)))
                changes.append(Change(model.name, f"{label}.params", layer.expected,
                                      layer.params))
    pieces = []
    at = 0
    for start, end, replacement in sorted(edits):
        pieces += [text[at:start], replacement]
        at = end
    pieces.append(text[at:])
    return "".join(pieces), changes, skipped


def _first_child_keys(spans: dict[Path, Span]) -> dict[Path, int]:
    """The offset of the first key inside each entry, found in one pass over the spans."""
    first: dict[Path, int] = {}
    for path, span in spans.items():
        if path:
            parent = path[:-1]
            known = first.get(parent)
            if known is None or span.key < known:
                first[parent] = span.key
    return first


def _header(source: Source, model: Model) -> bool:
    """Whether ``model`` is a TOML ``[models.NAME]`` table (keys on lines of their own)."""
    span = source.spans.get((*source.root, *model.path))
    return span is not None and span.header


def _insert(text: str, config: Config, model: Model, keys: Sequence[tuple[str, str]],
            newline: str, first_child: dict[Path, int]) -> tuple[int, int, str] | str:
    """Where and what to insert so that ``model`` states ``keys``, or why it cannot be."""
    source = config.source
    path = (*source.root, *model.path)
    span = source.spans.get(path)
    if span is None:
        return (f"declared only through [[{path_text((*path, 'layers'))}]] tables, with no "
                f"[{path_text(path)}] table")
    if source.format == "toml" and span.header:
        lines = "".join(f"{key} = {value}{newline}" for key, value in keys)
        end = text.find("\n", span.key)
        if end < 0:
            return len(text), len(text), newline + lines.removesuffix(newline)
        return end + 1, end + 1, lines
    dotted = "declared with dotted keys"
    if span.start == span.end or text[span.start] != "{":
        return dotted
    first = first_child.get(path)
    if first is None:
        return dotted
    gap = text[span.start + 1 : first]
    if source.format == "json":
        return first, first, "".join(f'"{key}": {value},{gap or " "}' for key, value in keys)
    return first, first, "".join(f"{key} = {value},{gap or ' '}" for key, value in keys)


TEMPORARY_SUFFIX = ".paramcount-update.tmp"
"""The one fixed name earlier versions gave ``--update``'s temporary file
(``.models.toml.paramcount-update.tmp``); each run now writes one of its own
(:func:`paramcount.atomic.temporary_path`), and the next run removes either, left by a run
killed hard."""


def write(source: Source, text: str) -> None:
    """Replace the config file atomically (:func:`paramcount.atomic.replacing`).

    The file keeps its permission bits, a symlink keeps pointing at the updated file, a
    read-only file is refused, and the temporary file is created exclusively, flushed to disk
    before the rename, and removed on any error, on Ctrl-C and on SIGTERM (killed harder, it
    stays under its obviously disposable name, which the next run removes).
    """
    from paramcount.atomic import replacing

    target = os.path.realpath(source.path)
    try:
        info = os.stat(target)
        if not os.access(target, os.W_OK) or not info.st_mode & stat.S_IWUSR:
            raise ConfigError(f"{source.name}: read-only, not updated (make it writable to "
                              "let --update rewrite it)")
        with replacing(target, "update") as temporary:
            descriptor = os.open(temporary, os.O_WRONLY | os.O_TRUNC
                                 | getattr(os, "O_NOFOLLOW", 0))
            with os.fdopen(descriptor, "w", encoding="utf-8", newline="") as file:
                file.write(("\ufeff" if source.bom else "") + text)
    except OSError as error:
        raise ConfigError(f"{source.name}: cannot write: {error.strerror or error}") from None
