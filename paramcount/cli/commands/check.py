"""``paramcount check [FILE...]``: hold whole model configs to their parameter budgets, in CI."""

from __future__ import annotations

import gc
import os
import re
import shutil

import click

from paramcount.checking.session import FileResult, check_file, expand, inputs
from paramcount.cli.options import resolve_format
from paramcount.errors import ConfigError
from paramcount.factories.policy import FactoryPolicy, parse_timeout, policy_from

_LOCATED = re.compile(r"^(?P<file>.+?):(?P<line>\d+):(?P<column>\d+): (?P<message>.*)$")


def _github() -> bool:
    return os.environ.get("GITHUB_ACTIONS") == "true"


def _annotate_error(message: str, err: bool) -> None:
    """Echo a config error as a GitHub Actions annotation too, when running there (on stderr
    with ``err``, so that stdout stays one JSON document under --json)."""
    if not _github():
        return
    from paramcount.render.check import annotation, error_annotation

    found = _LOCATED.match(message)
    if found:
        click.echo(annotation(found["file"], int(found["line"]), int(found["column"]),
                              found["message"]), err=err)
    else:
        click.echo(error_annotation(message), err=err)


def _terminal_width() -> int | None:
    """The terminal's width when the table is drawn for one, else None (piped: no limit)."""
    from paramcount.cli.output import on_terminal

    return shutil.get_terminal_size().columns if on_terminal() else None


def _junit_refused(path: str, inputs: list[str]) -> ConfigError | None:
    """Why the report cannot go to ``path``: a link (never written through), a folder or
    anything else that is not a regular file, or a file this run reads; None when it can."""
    if os.path.islink(path):
        return ConfigError(f"--junit {path} is a symbolic link: the report is never written "
                           "through a link; name a plain file")
    if os.path.isdir(path):
        return ConfigError(f"--junit {path} is a folder: name the report's file, e.g. "
                           f"{os.path.join(path, 'paramcount.xml')}")
    from paramcount.atomic import refusal

    refused = refusal(path)
    if refused is not None:
        return ConfigError(f"--junit {path}: {refused.strerror} (name a regular file)")
    for name in inputs:
        if _same_file(path, name):
            return ConfigError(f"--junit {path} is an input of this run ({name}): give the "
                               "report another name")
    return None


def _write_junit(path: str, xml: str) -> ConfigError | None:
    """Write the report in place of ``path`` (atomically, never through a link); the error
    when it cannot be written."""
    from paramcount.atomic import replacing

    try:
        with replacing(path, "junit") as temporary, open(temporary, "w",
                                                         encoding="utf-8") as out:
            out.write(xml)
    except OSError as error:
        return ConfigError(f"--junit {path}: cannot write the report: "
                           f"{error.strerror or error}")
    return None


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.realpath(a) == os.path.realpath(b)


@click.command(name="check")
@click.argument("files", nargs=-1, metavar="[FILE]...")
@click.option("--verify", is_flag=True,
              help="Also build every hand-written model with its real framework (torch on the "
                   "meta device, Keras without weights) and confirm the counts.")
@click.option("--update", is_flag=True,
              help="Write today's counts back as the expectations (total, layer params, "
                   "modules), keeping comments and layout.")
@click.option("--details", is_flag=True,
              help="Show every model's whole table: module, type, output, parameters, share.")
@click.option("--format", "output_format", type=click.Choice(("table", "json")), default=None,
              help="Output format. [default: table]")
@click.option("--json", "as_json", is_flag=True,
              help="Shorthand for --format json: the results as JSON (errors too, as "
                   "{\"errors\": [...]}).")
@click.option("--junit", "junit_file", metavar="FILE", default=None,
              help="Also write JUnit XML results to FILE.")
@click.option("--no-factories", is_flag=True,
              help="Refuse every factory model (run no code a config names) and still check "
                   "layers and file models: for configs from untrusted pull requests. "
                   "Also PARAMCOUNT_NO_FACTORIES=1.")
@click.option("--factory-timeout", metavar="SECONDS", default=None,
              help="Stop a factory that has not returned its model after SECONDS (each runs in "
                   "a child process). Also PARAMCOUNT_FACTORY_TIMEOUT. [default: 120]")
def check(files: tuple[str, ...], verify: bool, update: bool, details: bool,
          output_format: str | None, as_json: bool, junit_file: str | None,
          no_factories: bool, factory_timeout: str | None) -> int:
    """Check the parameter counts of the models in each FILE (.toml or .json; quoted globs
    such as 'configs/*.toml' are expanded) against their expectations; without FILE, read
    [tool.paramcount] from ./pyproject.toml. Models are hand-written layers, a factory in
    your code (factory = "pkg.module:function") or a model file (file = "model.pt").

    Exit codes: 0 all pass, 1 a mismatch or budget exceeded, 2 an invalid config (or a
    factory that fails, exits or runs out of time), 3 a framework missing for --verify or a
    factory.
    """
    try:
        timeout = (None if factory_timeout is None
                   else parse_timeout(factory_timeout, "--factory-timeout"))
        factories = policy_from(no_factories, timeout)
    except ValueError as error:
        raise click.UsageError(str(error)) from None
    # The parsed documents live to the end: spare the collector walking them, then thaw what
    # was frozen so that in-process runs (tests, library use) do not pile up frozen objects.
    as_json = resolve_format(output_format, as_json, False) == "json"
    thaw = gc.get_freeze_count() == 0  # never thaw what the host program froze itself
    try:
        return _check(files, verify, update, details, as_json, junit_file, factories)
    finally:
        if thaw:
            gc.unfreeze()


def _check(files: tuple[str, ...], verify: bool, update: bool, details: bool, as_json: bool,
           junit_file: str | None, factories: FactoryPolicy) -> int:
    from paramcount.render import check as render

    try:
        names = expand(files)
    except ConfigError as error:
        return _fail([FileResult(files[0] if files else "", errors=[error])], as_json,
                     junit_file if junit_file and not _junit_refused(junit_file, []) else None)
    refused = junit_file and _junit_refused(junit_file, [n or "pyproject.toml" for n in names])
    if refused:  # before any work: a report that cannot be written is no report
        return _fail([FileResult(str(junit_file), errors=[refused])], as_json, None)
    results = []
    for name in names:
        results.append(check_file(name, verify=verify, update=update, factories=factories))
        gc.freeze()
    if junit_file:
        failed = _junit_refused(junit_file, [f for r in results for f in inputs(r)]) or \
            _write_junit(junit_file, render.junit_all(results))
        if failed is not None:  # said in the answer too, so --json never reads as a pass
            results.append(FileResult(junit_file, errors=[failed]))
    for result in results:
        for problem in result.errors:
            click.echo(f"Error: {problem}", err=True)
            _annotate_error(str(problem), err=as_json)
    if as_json:
        from paramcount.api.budgets import Checked

        click.echo(Checked(results, update).to_json(), nl=False)
    elif any(r.outcomes for r in results):
        lines = []
        width = _terminal_width() if details else None
        for result in results:
            for outcome in result.outcomes:
                line = render.model_line(outcome)
                lines.append(click.style(line[0], fg="green" if outcome.passed else "red")
                             + line[1:])
                lines += render.grew_lines(outcome)
                if details:
                    lines += render.details(outcome, width)
        lines.append(render.summary_all(results))
        click.echo("\n".join(lines))
        if update:
            for result in results:
                if result.errors:
                    continue
                name = result.name
                click.echo(f"updated {name}: " + "; ".join(result.changes) if result.written
                           else f"{name} not updated: " + "; ".join(result.changes)
                           if result.changes
                           else f"{name} is up to date: no expectation changed")
    if _github():  # on stderr under --json, so stdout stays one JSON document
        for result in results:
            if result.config is not None:
                for line in render.github_annotations(result.config, result.outcomes):
                    click.echo(line, err=as_json)
    if any(r.errors for r in results):
        return 2
    return 0 if all(r.failed == 0 for r in results) else 1


def _fail(results: list[FileResult], as_json: bool, junit_file: str | None) -> int:
    """Report errors found before any file was read (a glob matching nothing, a --junit path
    that cannot take the report)."""
    from paramcount.render import check as render

    if junit_file:
        failed = _write_junit(junit_file, render.junit_all(results))
        if failed is not None:
            results = [*results, FileResult(junit_file, errors=[failed])]
    for result in results:
        for error in result.errors:
            click.echo(f"Error: {error}", err=True)
            _annotate_error(str(error), err=as_json)
    if as_json:
        from paramcount.api.budgets import Checked

        click.echo(Checked(results).to_json(), nl=False)
    return 2
