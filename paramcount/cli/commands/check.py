"""``paramcount check [FILE...]``: hold whole model configs to their parameter budgets, in CI."""

from __future__ import annotations

import gc
import os
import re
import shutil
from typing import TYPE_CHECKING

import click

from paramcount.checking.session import FileResult, check_file, expand, inputs
from paramcount.cli.options import resolve_format
from paramcount.errors import ConfigError
from paramcount.factories.policy import FactoryPolicy, parse_timeout, policy_from

if TYPE_CHECKING:
    from paramcount.checking.baseline import Growth
    from paramcount.checking.config import Config, Model
    from paramcount.render.check_ci import Finding

_LOCATED = re.compile(r"^(?P<file>.+?):(?P<line>\d+):(?P<column>\d+): (?P<message>.*)$")


def _github() -> bool:
    return os.environ.get("GITHUB_ACTIONS") == "true"


def _annotate_error(message: str, err: bool) -> None:
    """Echo a config error as a GitHub Actions annotation too, when running there (on stderr
    with ``err``, so that stdout stays one JSON document under --json)."""
    from paramcount.render.check_ci import annotation, error_annotation

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


def _junit_refused(path: str, inputs: list[str], option: str = "--junit",
                   example: str = "paramcount.xml") -> ConfigError | None:
    """Why the report cannot go to ``path``: a link (never written through), a folder or
    anything else that is not a regular file, or a file this run reads; None when it can."""
    if os.path.islink(path):
        return ConfigError(f"{option} {path} is a symbolic link: the report is never written "
                           "through a link; name a plain file")
    if os.path.isdir(path):
        return ConfigError(f"{option} {path} is a folder: name the report's file, e.g. "
                           f"{os.path.join(path, example)}")
    from paramcount.atomic import refusal

    refused = refusal(path)
    if refused is not None:
        return ConfigError(f"{option} {path}: {refused.strerror} (name a regular file)")
    for name in inputs:
        if _same_file(path, name):
            return ConfigError(f"{option} {path} is an input of this run ({name}): give the "
                               "report another name")
    return None


def _write_junit(path: str, xml: str, option: str = "--junit",
                 purpose: str = "junit") -> ConfigError | None:
    """Write the report in place of ``path`` (atomically, never through a link); the error
    when it cannot be written."""
    from paramcount.atomic import replacing

    try:
        with replacing(path, purpose) as temporary, open(temporary, "w",
                                                         encoding="utf-8") as out:
            out.write(xml)
    except OSError as error:
        return ConfigError(f"{option} {path}: cannot write the report: "
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
@click.option("--format", "output_format",
              type=click.Choice(("table", "json", "github", "gitlab")), default=None,
              help="Output format: github adds one annotation (workflow command) per finding "
                   "to the table, gitlab prints GitLab's Code Quality report. [default: github "
                   "when GITHUB_ACTIONS=true, else table]")
@click.option("--json", "as_json", is_flag=True,
              help="Shorthand for --format json: the results as JSON (errors too, as "
                   "{\"errors\": [...]}).")
@click.option("--junit", "junit_file", metavar="FILE", default=None,
              help="Also write JUnit XML results to FILE.")
@click.option("--gitlab-report", "gitlab_file", metavar="FILE", default=None,
              help="Also write GitLab's Code Quality report (JSON) to FILE.")
@click.option("--baseline", "baseline", metavar="REF", default=None,
              help="Count the same configs at git revision REF (origin/main, HEAD~1; read "
                   "with git, no checkout, no factory run unless --baseline-factories) and "
                   "show each model's before, after and change.")
@click.option("--baseline-factories", is_flag=True,
              help="With --baseline: also run the base's factories, from the base's own "
                   "source (its tree written by git archive to a temporary folder), in the "
                   "same fence and time limit. Never with --no-factories.")
@click.option("--max-growth", "max_growth", metavar="LIMIT", default=None,
              help="With --baseline: fail (exit 1) when a model grows past LIMIT, a share "
                   "of its base count (10%) or a number of parameters (50000).")
@click.option("--summary", "summary_file", metavar="FILE", default=None,
              help="Write the results (and the comparison with --baseline) as Markdown to "
                   "FILE. Under --format github it is also appended to $GITHUB_STEP_SUMMARY.")
@click.option("--no-factories", is_flag=True,
              help="Refuse every factory model (run no code a config names) and still check "
                   "layers and file models: for configs from untrusted pull requests. "
                   "Also PARAMCOUNT_NO_FACTORIES=1.")
@click.option("--factory-timeout", metavar="SECONDS", default=None,
              help="Stop a factory that has not returned its model after SECONDS (each runs in "
                   "a child process). Also PARAMCOUNT_FACTORY_TIMEOUT. [default: 120]")
def check(files: tuple[str, ...], verify: bool, update: bool, details: bool,
          output_format: str | None, as_json: bool, junit_file: str | None,
          gitlab_file: str | None, baseline: str | None, max_growth: str | None,
          summary_file: str | None, baseline_factories: bool, no_factories: bool,
          factory_timeout: str | None) -> int:
    """Check the parameter counts of the models in each FILE (.toml or .json; quoted globs
    such as 'configs/*.toml' are expanded) against their expectations; without FILE, read
    [tool.paramcount] from ./pyproject.toml. Models are hand-written layers, a factory in
    your code (factory = "pkg.module:function") or a model file (file = "model.pt").

    Exit codes: 0 all pass, 1 a mismatch, a budget exceeded or a model grown past
    --max-growth, 2 an invalid config (or a factory that fails, exits or runs out of time, or
    a --baseline git cannot read), 3 a framework missing for --verify or a factory.
    """
    from paramcount.checking.baseline import parse_growth

    try:
        timeout = (None if factory_timeout is None
                   else parse_timeout(factory_timeout, "--factory-timeout"))
        factories = policy_from(no_factories, timeout)
        limit: Growth | None = None
        if max_growth is not None:
            if baseline is None:
                raise ValueError(f"--max-growth {max_growth} needs --baseline REF: the growth "
                                 "is measured against the base's counts")
            limit = parse_growth(max_growth)
        if baseline is not None:
            from paramcount.checking.git import check_ref

            check_ref(baseline)  # before any work: '-x' is refused, not counted against
        if baseline_factories and baseline is None:
            raise ValueError("--baseline-factories needs --baseline REF: it runs the "
                             "factories of the base's configs")
        if baseline_factories and no_factories:
            raise ValueError("--baseline-factories runs the base's factories and "
                             "--no-factories refuses every factory: give one of them")
    except ValueError as error:
        raise click.UsageError(str(error)) from None
    chosen = resolve_format(output_format, as_json, False)
    if output_format is None and not as_json and _github():
        chosen = "github"
    # The parsed documents live to the end: spare the collector walking them, then thaw what
    # was frozen so that in-process runs (tests, library use) do not pile up frozen objects.
    thaw = gc.get_freeze_count() == 0  # never thaw what the host program froze itself
    try:
        return _check(files, verify, update, details, chosen,
                      _Reports(junit_file, gitlab_file, summary_file), factories,
                      baseline, limit, baseline_factories)
    finally:
        if thaw:
            gc.unfreeze()


class _Reports:
    """The files a run writes besides its output: JUnit, GitLab's report, the summary."""

    def __init__(self, junit: str | None, gitlab: str | None, summary: str | None) -> None:
        self.junit = junit
        self.gitlab = gitlab
        self.summary = summary

    def named(self) -> list[tuple[str, str, str]]:
        """(option, file, an example name) of each report asked for."""
        return [(option, file, example) for option, file, example in (
            ("--junit", self.junit, "paramcount.xml"),
            ("--gitlab-report", self.gitlab, "gl-code-quality-report.json"),
            ("--summary", self.summary, "paramcount.md")) if file]


def _check(files: tuple[str, ...], verify: bool, update: bool, details: bool, chosen: str,
           reports: _Reports, factories: FactoryPolicy, baseline: str | None,
           limit: Growth | None, baseline_factories: bool = False) -> int:
    from paramcount.render import check as render

    as_json = chosen == "json"
    annotate = chosen == "github" or (as_json and _github())
    junit_file = reports.junit
    try:
        names = expand(files)
    except ConfigError as error:
        return _fail([FileResult(files[0] if files else "", errors=[error])], as_json,
                     junit_file if junit_file and not _junit_refused(junit_file, []) else None,
                     annotate)
    read = [n or "pyproject.toml" for n in names]
    for option, file, example in reports.named():
        refused = _junit_refused(file, read, option, example)
        if refused:  # before any work: a report that cannot be written is no report
            return _fail([FileResult(file, errors=[refused])], as_json, None, annotate)
    results = []
    for name in names:
        results.append(check_file(name, verify=verify, update=update, factories=factories))
        gc.freeze()
    comparison = None
    if baseline is not None:
        from paramcount.checking.baseline import compare_or_error

        comparison = compare_or_error(results, baseline, limit,
                                      factories if baseline_factories else None)
    if junit_file:
        failed = _junit_refused(junit_file, [f for r in results for f in inputs(r)]) or \
            _write_junit(junit_file, render.junit_all(results))
        if failed is not None:  # said in the answer too, so --json never reads as a pass
            results.append(FileResult(junit_file, errors=[failed], config_file=False))
    from paramcount.render import check_ci

    found = check_ci.findings(results, comparison, _definition)
    if reports.gitlab or chosen == "gitlab":
        report = _gitlab(found, results)
        if reports.gitlab:
            failed = _write_junit(reports.gitlab, report, "--gitlab-report", "gitlab")
            if failed is not None:
                results.append(FileResult(reports.gitlab, errors=[failed], config_file=False))
    summary_text = render.summary_all(results)
    if comparison is not None and comparison.over:
        assert comparison.limit is not None
        over = len(comparison.over)
        summary_text += (f"; {over} model{'s' if over != 1 else ''} grew past --max-growth "
                         f"{comparison.limit.text}")
    if reports.summary or (annotate and os.environ.get("GITHUB_STEP_SUMMARY")):
        markdown = check_ci.markdown(results, comparison, summary_text)
        if reports.summary:
            failed = _write_junit(reports.summary, markdown, "--summary", "summary")
            if failed is not None:
                results.append(FileResult(reports.summary, errors=[failed], config_file=False))
        if annotate and os.environ.get("GITHUB_STEP_SUMMARY"):
            failed = _append_summary(os.environ["GITHUB_STEP_SUMMARY"], markdown)
            if failed is not None:
                results.append(FileResult("$GITHUB_STEP_SUMMARY", errors=[failed],
                                          config_file=False))
    for result in results:
        for problem in result.errors:
            click.echo(f"Error: {problem}", err=True)
            if annotate:
                _annotate_error(str(problem), err=as_json)
    if as_json:
        from paramcount.api.budgets import Checked

        click.echo(Checked(results, update, comparison).to_json(), nl=False)
    elif chosen == "gitlab":
        click.echo(report, nl=False)
    elif any(r.outcomes for r in results) or comparison is not None:
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
        if comparison is not None:
            lines += check_ci.text_lines(comparison)
        lines.append(summary_text)
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
    if annotate:  # on stderr under --json, so stdout stays one JSON document
        for line in check_ci.github(found):
            click.echo(line, err=as_json)
    if any(r.errors for r in results):
        return 2
    if comparison is not None and comparison.over:
        return 1
    return 0 if all(r.failed == 0 for r in results) else 1


def _definition(config: Config, model: Model) -> tuple[str, int] | None:
    """Where a factory model's ``def`` is, read from its source (never imported)."""
    from paramcount.checking.definition import definition
    from paramcount.checking.measure import folders

    return definition(model.factory, folders(config)) if model.factory else None


def _gitlab(found: list[Finding], results: list[FileResult]) -> str:
    """GitLab's Code Quality report of a run, findings and config errors."""
    import json

    from paramcount.render.check import error_data
    from paramcount.render.check_ci import gitlab

    errors = [error_data(r.name, str(e)) for r in results for e in r.errors]
    return json.dumps(gitlab(found, [(e["file"], e["line"], e["message"]) for e in errors]),
                      indent=2, ensure_ascii=False) + "\n"


def _append_summary(path: str, markdown: str) -> ConfigError | None:
    """Add the summary to GitHub's step summary file (what earlier steps wrote kept), through
    an atomic replacement; the error when it cannot be written."""
    from paramcount.atomic import refusal

    try:
        if os.path.islink(path):
            raise OSError(f"{path} is a symbolic link, never written through")
        refused = refusal(path)  # a FIFO or a device is neither read (it could block) nor written
        if refused is not None:
            raise refused
        try:
            with open(path, encoding="utf-8", errors="surrogateescape") as handle:
                before = handle.read()
        except FileNotFoundError:
            before = ""
    except OSError as error:
        return ConfigError(f"$GITHUB_STEP_SUMMARY {path}: cannot write the summary: "
                           f"{error.strerror or error}")
    joined = before + ("\n" if before and not before.endswith("\n") else "") + markdown
    return _write_junit(path, joined, "$GITHUB_STEP_SUMMARY", "summary")


def _fail(results: list[FileResult], as_json: bool, junit_file: str | None,
          annotate: bool) -> int:
    """Report errors found before any file was read (a glob matching nothing, a --junit path
    that cannot take the report)."""
    from paramcount.render import check as render

    if junit_file:
        failed = _write_junit(junit_file, render.junit_all(results))
        if failed is not None:
            results = [*results, FileResult(junit_file, errors=[failed], config_file=False)]
    for result in results:
        for error in result.errors:
            click.echo(f"Error: {error}", err=True)
            if annotate:
                _annotate_error(str(error), err=as_json)
    if as_json:
        from paramcount.api.budgets import Checked

        click.echo(Checked(results).to_json(), nl=False)
    return 2
