"""``check`` as CI shows it: GitHub workflow commands (annotations on the pull request's lines),
GitLab's Code Quality report, the comparison with ``--baseline`` as text, JSON and Markdown (the
step summary)."""

from __future__ import annotations

import hashlib
import html
import os
from collections.abc import Callable, Sequence
from typing import Any

from paramcount.checking.baseline import Change, Comparison
from paramcount.checking.config import Config, Model
from paramcount.checking.evaluate import Outcome
from paramcount.checking.session import FileResult
from paramcount.errors import printable

Definition = Callable[[Config, Model], tuple[str, int] | None]
"""Where a factory model's ``def`` is: (file, line), or None."""

TITLES = {"total": "total changed", "max_params": "over max_params",
          "max_bytes": "over max_bytes", "params": "layer count changed",
          "verify": "the framework disagrees", "formula": "the formulas disagree"}


def escape_data(text: str) -> str:
    """A workflow command's message: ``%``, CR and LF escaped, so it stays one command."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """A workflow command's property (file, title): also ``:`` and ``,`` escaped."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def workspace_path(file: str) -> str:
    """``file`` as GitHub and GitLab match it: relative to the workspace (``GITHUB_WORKSPACE``,
    ``CI_PROJECT_DIR``, else the current folder) when it lies inside, else as given."""
    root = os.environ.get("GITHUB_WORKSPACE") or os.environ.get("CI_PROJECT_DIR") or os.curdir
    try:
        inside = os.path.relpath(os.path.abspath(file), os.path.abspath(root))
    except ValueError:  # another drive
        return file
    if inside == os.pardir or inside.startswith(os.pardir + os.sep):
        return file
    return inside.replace(os.sep, "/")


def command(kind: str, file: str | None, line: int | None, title: str, message: str,
            column: int | None = None) -> str:
    """One workflow command: ``::error file=F,line=L,title=T::MESSAGE``, every value escaped."""
    properties = []
    if file is not None:
        properties.append(f"file={escape_property(workspace_path(file))}")
    if line is not None:
        properties.append(f"line={line}")
    if column is not None:
        properties.append(f"col={column}")
    properties.append(f"title={escape_property(title)}")
    return f"::{kind} {','.join(properties)}::{escape_data(message)}"


def annotation(file: str, line: int, column: int, message: str) -> str:
    """A config error located at ``file:line:column`` as an ``::error`` workflow command."""
    return command("error", file, line, "paramcount check", message, column)


def error_annotation(message: str) -> str:
    """An error with no location as an ``::error`` workflow command."""
    return command("error", None, None, "paramcount check", message)


class Finding:
    """One thing to show on a pull request's line: severity, place, title and message."""

    def __init__(self, severity: str, file: str | None, line: int | None, title: str,
                 message: str, column: int | None = None, key: str = "") -> None:
        """``severity``: ``error`` (a failure) or ``warning`` (what is not one), as the
        workflow commands name them."""
        self.severity = severity
        self.file = file
        self.line = line
        self.column = column
        self.title = title
        self.message = message
        self.key = key


def _config_file(config: Config) -> str:
    return config.source.path or config.source.name


def outcome_findings(config: Config, outcome: Outcome, definition: Definition | None
                     ) -> list[Finding]:
    """Each unmet expectation of one model (at its line in the config, or at the factory's
    ``def``), and each note as a warning."""
    source = config.source
    model = outcome.model
    found = definition(config, model) if definition and model.factory else None
    out = []
    for problem in outcome.problems:
        line, column = source.where(problem.path)
        title = f"paramcount: {model.name} {TITLES.get(problem.key, problem.key)}"
        message = f"{model.name}: {problem.message}"
        if outcome.grew:
            message += "\n" + "\n".join(outcome.grew)
        if found is not None:
            out.append(Finding("error", found[0], found[1], title,
                               f"{message}\n(the expectation is at {source.name}:{line})",
                               key=problem.key))
        else:
            out.append(Finding("error", _config_file(config), line, title, message, column,
                               problem.key))
    table_line = source.where(model.path, at="key")[0]
    for note in outcome.measured.notes if outcome.measured is not None else ():
        out.append(Finding("warning", _config_file(config), table_line,
                           f"paramcount: {model.name}", f"{model.name}: {note}", key="note"))
    return out


def change_findings(result: FileResult, changes: Sequence[Change], comparison: Comparison
                    ) -> list[Finding]:
    """Each model of this file that grew against the base: an error past ``--max-growth``,
    else a warning (no failure), at the model's table in today's config."""
    config = result.config
    if config is None:
        return []
    out = []
    for change in changes:
        if change.file != result.name or change.status != "grew":
            continue
        line = config.source.where(change.path, at="key")[0]
        text = f"{change.name}: {change_text(change)} against {comparison.ref}"
        if change.grew:
            text += "\n" + "\n".join(change.grew)
        if change.over:
            assert comparison.limit is not None
            out.append(Finding("error", _config_file(config), line,
                               f"paramcount: {change.name} grew past {comparison.limit.text}",
                               text, key="max_growth"))
        else:
            out.append(Finding("warning", _config_file(config), line,
                               f"paramcount: {change.name} grew", text, key="growth"))
    return out


def findings(results: Sequence[FileResult], comparison: Comparison | None = None,
             definition: Definition | None = None) -> list[Finding]:
    """Every finding of a run, file after file (config errors are the CLI's, as they come)."""
    out: list[Finding] = []
    for result in results:
        if result.config is None:
            continue
        for outcome in result.outcomes:
            out += outcome_findings(result.config, outcome, definition)
        if comparison is not None:
            out += change_findings(result, comparison.changes, comparison)
    return out


def github(found: Sequence[Finding]) -> list[str]:
    """One workflow command per finding."""
    return [command(f.severity, f.file, f.line, f.title, f.message, f.column) for f in found]


SEVERITIES = {"error": "major", "warning": "minor"}


def gitlab(found: Sequence[Finding], errors: Sequence[tuple[str, int | None, str]] = ()
           ) -> list[dict[str, Any]]:
    """GitLab's Code Quality report: one issue per finding and per config error
    (``(file, line, message)``), each with a fingerprint that stays while the finding does."""
    issues = []
    for f in found:
        issues.append(_issue(f.message, f"paramcount/{f.key or f.severity}", f.file or "",
                             f.line or 1, SEVERITIES[f.severity], f.title))
    for file, line, message in errors:
        issues.append(_issue(message, "paramcount/config", file, line or 1, "critical",
                             message))
    return issues


def _issue(description: str, check: str, file: str, line: int, severity: str,
           identity: str) -> dict[str, Any]:
    path = workspace_path(file) if file else ""
    fingerprint = hashlib.sha256("\0".join((check, path, identity)).encode(
        "utf-8", "surrogatepass")).hexdigest()
    return {"description": printable(description.replace("\n", "; ")), "check_name": check,
            "fingerprint": fingerprint, "severity": severity,
            "location": {"path": path, "lines": {"begin": line}}}


# ------------------------------------------------------------------------- the base comparison

def percent(change: Change) -> str:
    """``+25.0%``, ``−3.1%``, ``±0%``; ``new``, ``removed`` or ``-`` where there is no base."""
    relative = change.relative
    if relative is None:
        return {"new": "new", "removed": "removed"}.get(change.status, "-")
    if relative == 0:
        return "±0%"
    tenths = round(abs(relative) * 1000)
    sign = "+" if relative > 0 else "−"
    return f"{sign}{tenths // 10}.{tenths % 10}%" if tenths else f"{sign}<0.1%"


def signed(value: int | None) -> str:
    """``+2,134,400``, ``−512``, ``±0``; ``-`` when not counted."""
    if value is None:
        return "-"
    return f"+{value:,}" if value > 0 else f"−{-value:,}" if value < 0 else "±0"


def count(value: int | None) -> str:
    """``4,078,089``, or ``-`` when not counted."""
    return "-" if value is None else f"{value:,}"


def change_text(change: Change) -> str:
    """``3,944,448 → 6,077,440 (+2,132,992, +54.1%)`` or ``new: 63,685``."""
    if change.status == "new":
        return f"new, {count(change.after)} parameters"
    if change.status == "removed":
        return f"removed (was {count(change.before)})"
    if change.change is None:
        return f"{count(change.before)} → {count(change.after)} ({change.why or 'not counted'})"
    return (f"{count(change.before)} → {count(change.after)} ({signed(change.change)}, "
            f"{percent(change)})")


def layers_text(change: Change) -> str:
    """``+ attn; − dropout`` for the modules added and removed, or empty."""
    parts = [f"+ {name}" for name in change.added] if change.status != "new" else []
    parts += [f"− {name}" for name in change.removed]
    return "; ".join(parts)


def _headline(comparison: Comparison) -> str:
    short = comparison.commit[:10]
    limit = f"; --max-growth {comparison.limit.text}" if comparison.limit else ""
    over = len(comparison.over)
    failed = f": {over} model{'s' if over != 1 else ''} grew past it" if over else ""
    return f"Against {comparison.ref} ({short}){limit}{failed}"


def label(change: Change, comparison: Comparison) -> str:
    """The model's name, after its config's when the run compared several files."""
    several = len({c.file for c in comparison.changes}) > 1
    return f"{change.file}: {change.name}" if several else change.name


def text_lines(comparison: Comparison) -> list[str]:
    """The comparison as plain lines: a table (biggest growth first), then what grew."""
    rows = [(("✗ " if c.over else "  ") + printable(label(c, comparison)), count(c.before),
             count(c.after),
             signed(c.change) if c.change is not None else c.status, percent(c)
             if c.change is not None else "", printable(layers_text(c)))
            for c in comparison.changes]
    header = ("  model", "before", "after", "change", "", "layers")
    widths = [max(len(r[i]) for r in (header, *rows)) for i in range(6)]
    right = (False, True, True, True, True, False)

    def line(cells: tuple[str, ...]) -> str:
        return "  ".join(c.rjust(w) if r else c.ljust(w)
                         for c, w, r in zip(cells, widths, right, strict=True)).rstrip()

    out = [_headline(comparison) + ":", line(header)]
    for change, row in zip(comparison.changes, rows, strict=True):
        out.append(line(row))
        out += [f"      {printable(text)}" for text in change.grew]
        if change.why:
            out.append(f"      {printable(change.why)}")
    out += [f"  note: {printable(note)}" for note in comparison.notes]
    return out


def data(comparison: Comparison) -> dict[str, Any]:
    """The comparison as JSON-ready data (``baseline`` in ``paramcount.check/1``)."""
    return {
        "ref": comparison.ref,
        "commit": comparison.commit,
        "max_growth": comparison.limit.text if comparison.limit else None,
        "over": [c.name for c in comparison.over],
        "notes": list(comparison.notes),
        "models": [{
            "file": c.file, "name": c.name, "status": c.status, "before": c.before,
            "after": c.after, "change": c.change,
            "relative": None if c.relative is None else float(c.relative),
            "added": list(c.added), "removed": list(c.removed), "grew": list(c.grew),
            "why": c.why, "over": c.over,
        } for c in comparison.changes],
    }


def _md(text: str) -> str:
    """A cell of text from a config (untrusted): one line, no HTML, no table break."""
    return html.escape(printable(text), quote=False).replace("|", "\\|").replace("`", "\\`")


def markdown(results: Sequence[FileResult], comparison: Comparison | None, summary: str
             ) -> str:
    """The run as Markdown for the step summary or a pull-request comment: the models, then
    the comparison with the base, biggest growth first."""
    out = ["### paramcount check", "", _md(summary), ""]
    outcomes = [(r, o) for r in results for o in r.outcomes]
    if outcomes:
        from paramcount.render.check import model_line

        out += ["| | model | parameters | expectations |", "| :--- | :--- | ---: | :--- |"]
        for _, outcome in outcomes:
            line = model_line(outcome)
            detail = line.split(": ", 1)[1].split(", ", 1)
            out.append(f"| {'✓' if outcome.passed else '✗'} | {_md(outcome.model.name)} | "
                       f"{outcome.total:,} | {_md(detail[1] if len(detail) > 1 else '')} |")
        out.append("")
    errors = [str(e) for r in results for e in r.errors]
    if errors:
        out += ["**Errors**", "", *(f"- {_md(e)}" for e in errors), ""]
    if comparison is not None:
        out += [f"#### {_md(_headline(comparison))}", "",
                "| model | before | after | change | % | layers | what changed |",
                "| :--- | ---: | ---: | ---: | ---: | :--- | :--- |"]
        for c in comparison.changes:
            name = ("✗ " if c.over else "") + _md(label(c, comparison))
            why = [_md(t) for t in c.grew] + ([_md(c.why)] if c.why else [])
            out.append(f"| {name} | {count(c.before)} | {count(c.after)} | "
                       f"{signed(c.change) if c.change is not None else c.status} | "
                       f"{percent(c) if c.change is not None else ''} | "
                       f"{_md(layers_text(c))} | {'<br>'.join(why)} |")
        out += [f"- {_md(note)}" for note in comparison.notes]
        out.append("")
    return "\n".join(out)
