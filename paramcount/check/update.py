"""``--update``: write today's counts back as the expectations, touching nothing else.

Surgical text edits at the positions the locator found: each expected ``total`` and layer
``params`` value is replaced in place (keeping ``1_000`` underscores if the user wrote them),
and a model without ``total`` gets one line after its ``[models.NAME]`` header. Comments,
order, spacing and quoting stay exactly as they were; budgets (max_params, max_bytes) are the
user's decisions and are never rewritten.
"""

from __future__ import annotations

from dataclasses import dataclass

from paramcount.check.config import Config, Model
from paramcount.check.locate import Path, Span, path_text


@dataclass(frozen=True)
class Change:
    """One expectation rewritten or added."""

    model: str
    key: str
    """``total`` or ``layers[2].params``."""
    old: int | None
    new: int

    def __str__(self) -> str:
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


def updated_text(config: Config) -> tuple[str, list[Change], list[Skipped]]:
    """The config's text with every expectation set to today's count, and what changed."""
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
    for model in config.models:
        total_span = spans.get(full((*model.path, "total")))
        if total_span is not None:
            if model.total_expected != model.total:
                old = text[total_span.start : total_span.end]
                edits.append((total_span.start, total_span.end,
                              _literal(old, model.total, source.format)))
                changes.append(Change(model.name, "total", model.total_expected, model.total))
        else:
            insertion = _insert_total(text, config, model, newline, first_child)
            if isinstance(insertion, str):
                skipped.append(Skipped(model.name, f"{insertion}: add 'total = {model.total}' "
                                                   "by hand"))
            else:
                edits.append(insertion)
                changes.append(Change(model.name, "total", None, model.total))
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


def _insert_total(text: str, config: Config, model: Model, newline: str,
                  first_child: dict[Path, int]) -> tuple[int, int, str] | str:
    """Where and what to insert so that ``model`` states ``total``, or why it cannot be."""
    source = config.source
    path = (*source.root, *model.path)
    span = source.spans.get(path)
    if span is None:
        return (f"declared only through [[{path_text((*path, 'layers'))}]] tables, with no "
                f"[{path_text(path)}] table")
    if source.format == "toml" and span.header:
        number = _literal(None, model.total, "toml")
        end = text.find("\n", span.key)
        if end < 0:
            return len(text), len(text), f"{newline}total = {number}"
        return end + 1, end + 1, f"total = {number}{newline}"
    dotted = "declared with dotted keys"
    if span.start == span.end or text[span.start] != "{":
        return dotted
    first = first_child.get(path)
    if first is None:
        return dotted
    gap = text[span.start + 1 : first]
    if source.format == "json":
        return first, first, f'"total": {model.total},{gap}'
    return first, first, f"total = {_literal(None, model.total, 'toml')},{gap or ' '}"
