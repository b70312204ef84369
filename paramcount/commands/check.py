"""``paramcount check [FILE]``: hold whole model configs to their parameter budgets, in CI."""

from __future__ import annotations

import contextlib
import gc
import os
import re

import click

from paramcount.check import Config, Outcome, evaluate_all, load_config
from paramcount.check.source import Source, load, parse
from paramcount.errors import ConfigError

_LOCATED = re.compile(r"^(?P<file>.+?):(?P<line>\d+):(?P<column>\d+): (?P<message>.*)$")


def _github() -> bool:
    return os.environ.get("GITHUB_ACTIONS") == "true"


def _annotate_error(error: ConfigError, err: bool) -> None:
    """Echo a config error as a GitHub Actions annotation too, when running there (on stderr
    with ``err``, so that stdout stays one JSON document under --json)."""
    if not _github():
        return
    from paramcount.render.check import annotation, error_annotation

    found = _LOCATED.match(str(error))
    if found:
        click.echo(annotation(found["file"], int(found["line"]), int(found["column"]),
                              found["message"]), err=err)
    else:
        click.echo(error_annotation(str(error)), err=err)


def _write_junit(path: str, xml: str) -> None:
    try:
        with open(path, "w", encoding="utf-8") as out:
            out.write(xml)
    except OSError as error:
        raise click.BadParameter(f"cannot write {path}: {error.strerror}",
                                 param_hint="--junit") from None


def _write(source: Source, text: str) -> None:
    """Replace the config file atomically: a temporary file beside it, then ``os.replace``.

    The file keeps its permission bits, and a symlink keeps pointing at the updated file.
    """
    import stat
    import tempfile

    target = os.path.realpath(source.path)
    try:
        mode = stat.S_IMODE(os.stat(target).st_mode)
        descriptor, temporary = tempfile.mkstemp(
            prefix=f".{os.path.basename(target)}.", suffix=".tmp",
            dir=os.path.dirname(target))
        try:
            with os.fdopen(descriptor, "w", encoding="utf-8", newline="") as file:
                file.write(("\ufeff" if source.bom else "") + text)
            os.chmod(temporary, mode)
            os.replace(temporary, target)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            raise
    except OSError as error:
        raise ConfigError(f"{source.name}: cannot write: {error.strerror or error}") from None


@click.command(name="check")
@click.argument("file", required=False)
@click.option("--verify", is_flag=True,
              help="Also build every model with its real framework (torch on the meta device, "
                   "Keras without weights) and confirm the counts.")
@click.option("--update", is_flag=True,
              help="Write today's counts back as the expectations (total, layer params), "
                   "keeping comments and layout.")
@click.option("--json", "as_json", is_flag=True, help="Print the results as JSON.")
@click.option("--junit", "junit_file", metavar="FILE", default=None,
              help="Also write JUnit XML results to FILE.")
def check(file: str | None, verify: bool, update: bool, as_json: bool,
          junit_file: str | None) -> int:
    """Check the parameter counts of the models in FILE (.toml or .json) against their
    expectations; without FILE, read [tool.paramcount] from ./pyproject.toml.

    Exit codes: 0 all pass, 1 a mismatch or budget exceeded, 2 an invalid config,
    3 a framework missing for --verify.
    """
    # The parsed document lives to the end: spare the collector walking it, then thaw what
    # was frozen so that in-process runs (tests, library use) do not pile up frozen objects.
    thaw = gc.get_freeze_count() == 0  # never thaw what the host program froze itself
    try:
        return _check(file, verify, update, as_json, junit_file)
    finally:
        if thaw:
            gc.unfreeze()


def _check(file: str | None, verify: bool, update: bool, as_json: bool,
           junit_file: str | None) -> int:
    try:
        source = load(file)
        gc.freeze()
        config = load_config(source)
    except ConfigError as error:
        _annotate_error(error, err=as_json)
        if junit_file:
            from paramcount.render.check import junit_error

            try:
                _write_junit(junit_file, junit_error(file or "pyproject.toml", str(error)))
            except click.BadParameter:
                click.echo(f"Error: {error}", err=True)  # the config error first, then this
                raise
        raise
    verified = _verify(config) if verify else None
    outcomes = evaluate_all(config, verified)
    changes: list[str] = []
    written = False
    if update:
        config, outcomes, changes, written = _update(config, outcomes, verified)
    from paramcount.render import check as render

    if as_json:
        from paramcount.render.data import dumps

        data = render.data(config, outcomes)
        if update:
            data["updated"] = changes if written else []
            if not written and changes:
                data["not_updated"] = changes
        click.echo(dumps(data), nl=False)
    else:
        lines = []
        for outcome in outcomes:
            line = render.model_line(outcome)
            lines.append(click.style(line[0], fg="green" if outcome.passed else "red")
                         + line[1:])
        lines.append(render.summary(outcomes, config.source.name))
        click.echo("\n".join(lines))
        if update:
            name = config.source.name
            click.echo(f"updated {name}: " + "; ".join(changes) if written
                       else f"{name} not updated: " + "; ".join(changes) if changes
                       else f"{name} is up to date: no expectation changed")
    if junit_file:
        _write_junit(junit_file, render.junit(config, outcomes))
    if _github():  # on stderr under --json, so stdout stays one JSON document
        for line in render.github_annotations(config, outcomes):
            click.echo(line, err=as_json)
    return 0 if all(o.passed for o in outcomes) else 1


def _verify(config: Config) -> list[list[int] | str]:
    from paramcount.check.build import build, require

    require([m.framework for m in config.models])
    out: list[list[int] | str] = []
    for model in config.models:
        try:
            out.append(build(model))
        except Exception as error:  # the framework refused: a finding, not a crash
            first = str(error).strip().splitlines()[0] if str(error).strip() else ""
            out.append(f"{model.framework.display_name} could not build it: "
                       f"{type(error).__name__}: {first[:200]}")
    return out


def _update(config: Config, outcomes: list[Outcome], verified: list[list[int] | str] | None
            ) -> tuple[Config, list[Outcome], list[str], bool]:
    """Rewrite the expectations in the file; refuse when --verify found the formulas wrong.

    Returns the (re-read) config and outcomes, the notes to print, and whether it wrote.
    """
    from paramcount.check.update import updated_text

    if any(p.key == "verify" for o in outcomes for p in o.problems):
        unbuilt = [f"{m.name}: {v}" for m, v in zip(config.models, verified or [], strict=True)
                   if isinstance(v, str)]
        disagrees = any(p.key == "verify" for o, v in zip(outcomes, verified or [], strict=True)
                        if not isinstance(v, str) for p in o.problems)
        reasons = ([f"--verify could not build a model ({'; '.join(unbuilt)})"] if unbuilt
                   else []) + (["--verify found a count the real framework disagrees with"]
                               if disagrees else [])
        return config, outcomes, reasons, False
    text, changes, skipped = updated_text(config)
    notes = [str(c) for c in changes] + [f"{s.model}: {s.reason}" for s in skipped]
    if text == config.source.text:
        return config, outcomes, [f"{s.model}: {s.reason}" for s in skipped], False
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
    _write(source, text)
    return new_config, evaluate_all(new_config, verified), notes, True
