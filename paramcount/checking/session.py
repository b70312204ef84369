"""One ``paramcount check`` run over many config files: each loaded, measured, held to its
expectations and (with ``--update``) written back; one result per file. Nothing here prints."""

from __future__ import annotations

import contextlib
import glob
import os
import re
from collections.abc import Sequence

from paramcount.checking.config import Config, ConfigErrors, load_config
from paramcount.checking.evaluate import Outcome, evaluate_all
from paramcount.checking.measure import Measured, measure_all
from paramcount.checking.source import Plain, Source, load, parse
from paramcount.errors import BackendUnavailable, ConfigError
from paramcount.factories.policy import RUN_FACTORIES, FactoryPolicy

_GLOB = set("*?[")


class FileResult(Plain):
    """What one config file gave: its models' outcomes, or its errors (each located); filled in
    as the run goes."""

    name: str
    """The file as the user named it (``pyproject.toml`` without FILE)."""
    config: Config | None
    outcomes: list[Outcome]
    errors: list[ConfigError]
    changes: list[str]
    """With --update: what was (or would have been) written."""
    written: bool
    config_file: bool
    """False for an error of the run itself (``--baseline``, a report that cannot be written),
    which no summary counts as a config file."""

    _FIELDS = ("name", "config", "outcomes", "errors", "changes", "written", "config_file")

    def __init__(self, name: str, config: Config | None = None,
                 outcomes: list[Outcome] | None = None, errors: list[ConfigError] | None = None,
                 changes: list[str] | None = None, written: bool = False,
                 config_file: bool = True) -> None:
        self.name, self.config, self.written, self.config_file = (
            name, config, written, config_file)
        self.outcomes = [] if outcomes is None else outcomes
        self.errors = [] if errors is None else errors
        self.changes = [] if changes is None else changes

    @property
    def passed(self) -> int:
        """How many models met every expectation."""
        return sum(1 for o in self.outcomes if o.passed)

    @property
    def failed(self) -> int:
        """How many models did not."""
        return sum(1 for o in self.outcomes if not o.passed)


def expand(patterns: Sequence[str]) -> list[str | None]:
    """The config files named: globs (quoted, so the shell left them) expanded and sorted;
    none named: ``[None]``, the ``[tool.paramcount]`` of ./pyproject.toml."""
    if not patterns:
        return [None]
    files: list[str | None] = []
    for pattern in patterns:
        if _GLOB & set(pattern) and not os.path.exists(pattern):
            found = sorted(glob.glob(pattern, recursive=True))
            if not found:
                raise ConfigError(f"{pattern}: no file matches this pattern")
            files += found
        else:
            files.append(pattern)
    return list(dict.fromkeys(files))


def inputs(result: FileResult) -> list[str]:
    """Every file a result read: the config and its models' files (for --junit's guard)."""
    if result.config is None:
        return [result.name]
    folder = os.path.dirname(os.path.abspath(result.config.source.path or result.name))
    return [result.config.source.path or result.name] + [
        os.path.join(folder, m.file) for m in result.config.models if m.file]


def _position(error: ConfigError) -> tuple[int, int]:
    """An error's line and column, to list a file's errors in reading order."""
    found = re.match(r"^.+?:(\d+):(\d+): ", str(error))
    return (int(found.group(1)), int(found.group(2))) if found else (0, 0)


def _errors(error: ConfigError) -> list[ConfigError]:
    """A config's errors in reading order (line, then column)."""
    return sorted(error.errors, key=_position) if isinstance(error, ConfigErrors) else [error]


def check_file(file: str | None, *, verify: bool = False, update: bool = False,
               factories: FactoryPolicy = RUN_FACTORIES) -> FileResult:
    """Load, measure and evaluate one config (and with ``update`` write it back).

    A model that cannot be measured (a factory that fails, a file that cannot be read) is a
    located error; the others are still evaluated, and nothing is written back."""
    result = FileResult(file or "pyproject.toml")
    try:
        source = load(file)
        config = load_config(source)
    except ConfigError as error:
        result.errors = _errors(error)
        partial = getattr(error, "partial", None)
        if partial is not None and any(m.kind != "layers" for m in partial.models):
            with contextlib.suppress(BackendUnavailable):  # said once the config is valid
                result.errors = sorted(result.errors + measure_all(partial, factories)[1],
                                       key=_position)
        return result
    result.config = config
    from paramcount.checking.measure import require

    require(config.models, factories)
    measured, errors = measure_all(config, factories)
    verified = _verify(config) if verify else None
    outcomes = evaluate_all(config, verified, measured)
    if errors:
        result.errors = errors
        result.outcomes = [o for o, m in zip(outcomes, measured, strict=True)
                           if m is not None or o.model.kind == "layers"]
        return result
    result.outcomes = outcomes
    if update:
        _update(result, verified, measured)
    return result


def _verify(config: Config) -> list[list[int] | str | None]:
    """Hand-written models built by their framework (factory and file models are real)."""
    from paramcount.checking.build import build, require
    from paramcount.checking.config import BUILDERS

    layered = [m for m in config.models if m.kind == "layers" and m.framework in BUILDERS]
    require([m.framework for m in layered])
    out: list[list[int] | str | None] = []
    for model in config.models:
        if model not in layered:  # real already, or a convention with no model builder
            out.append(None)
            continue
        try:
            out.append(build(model))
        except Exception as error:  # the framework refused: a finding, not a crash
            first = str(error).strip().splitlines()[0] if str(error).strip() else ""
            out.append(f"{model.framework.display_name} could not build it: "
                       f"{type(error).__name__}: {first[:200]}")
    return out


def _update(result: FileResult, verified: list[list[int] | str | None] | None,
            measured: Sequence[Measured | None]) -> None:
    """Rewrite the expectations in the file; refuse when --verify found the formulas wrong."""
    from paramcount.checking.update import updated_text, write

    config = result.config
    assert config is not None
    outcomes = result.outcomes
    if any(p.key in ("verify", "formula") for o in outcomes for p in o.problems):
        unbuilt = [f"{m.name}: {v}" for m, v in zip(
            config.models, verified or [None] * len(config.models), strict=True)
            if isinstance(v, str)]
        disagrees = any(p.key in ("verify", "formula") and p.actual is not None
                        for o in outcomes for p in o.problems)
        result.changes = ([f"--verify could not build a model ({'; '.join(unbuilt)})"]
                          if unbuilt else []) + (
            ["a real framework and the formulas disagree on a count"] if disagrees else [])
        return
    text, changes, skipped = updated_text(config, outcomes)
    notes = [str(c) for c in changes] + [f"{s.model}: {s.reason}" for s in skipped]
    if text == config.source.text:
        result.changes = [f"{s.model}: {s.reason}" for s in skipped]
        return
    source = config.source
    new_source = Source(source.name, text, source.format, parse(source.name, text, source.format),
                        path=source.path, bom=source.bom)
    if source.root:
        data = new_source.data
        for key in source.root:
            data = data[key]
        new_source.data = data
        new_source.root = source.root
    new_config = load_config(new_source)
    write(source, text)
    result.config = new_config
    result.outcomes = evaluate_all(new_config, verified, measured)
    result.changes, result.written = notes, True
