"""Check outcomes as text lines, JSON data and JUnit XML (CI's other forms: ``check_ci``)."""

from __future__ import annotations

from typing import Any

from paramcount._version import __version__
from paramcount.checking.config import Config
from paramcount.checking.evaluate import Outcome
from paramcount.checking.explain import short
from paramcount.checking.locate import path_text
from paramcount.checking.session import FileResult

SCHEMA = "paramcount.check/1"


def model_line(outcome: Outcome) -> str:
    """``✓ name: 561,152 parameters, expected total 561,152 (±0)``."""
    model = outcome.model
    parts = [f"{outcome.total:,} parameters"]
    shown = [c.text for c in outcome.checks if c.key != "params" or not c.passed]
    met = sum(1 for c in outcome.checks if c.key == "params" and c.passed)
    if met:
        shown.append(f"{met} layer expectation{'s' if met != 1 else ''} met")
    if not outcome.checks:
        shown.append("no expectation set")
    text = ", ".join(parts) + (", " + "; ".join(shown) if shown else "")
    verify = [p.message for p in outcome.problems if p.key in ("verify", "formula")]
    if outcome.verified_total is not None or verify:
        text += "; " + ("; ".join(verify) if verify
                        else f"verified with {model.framework.display_name}")
    return f"{'✓' if outcome.passed else '✗'} {model.name}: {text}"


def summary(outcomes: list[Outcome], name: str) -> str:
    """``3 models in models.toml: 2 passed, 1 failed``."""
    failed = sum(1 for o in outcomes if not o.passed)
    n = len(outcomes)
    return (f"{n} model{'s' if n != 1 else ''} in {name}: {n - failed} passed, "
            f"{failed} failed")


def summary_all(results: list[FileResult]) -> str:
    """One file: as :func:`summary`; several: ``5 models in 3 files: 4 passed, 1 failed``
    (``, 1 file invalid`` when a config could not be checked)."""
    configs = [r for r in results if r.config_file]
    if len(configs) == 1 and not configs[0].errors:
        return summary(configs[0].outcomes, configs[0].name)
    n = sum(len(r.outcomes) for r in configs)
    failed = sum(r.failed for r in configs)
    invalid = sum(1 for r in configs if r.errors)
    files = len(configs)
    return (f"{n} model{'s' if n != 1 else ''} in {files} file{'s' if files != 1 else ''}: "
            f"{n - failed} passed, {failed} failed"
            + (f", {invalid} file{'s' if invalid != 1 else ''} invalid" if invalid else ""))


def grew_lines(outcome: Outcome) -> list[str]:
    """What grew, indented under a failed model's line; then what reading the model found to
    say (a folder's config.json that its tensors contradict)."""
    return [f"    {text}" for text in outcome.grew] + [f"    note: {text}"
                                                     for text in notes(outcome)]


def notes(outcome: Outcome) -> tuple[str, ...]:
    """What measuring the model found to say."""
    return outcome.measured.notes if outcome.measured is not None else ()


def details(outcome: Outcome, width: int | None = None) -> list[str]:
    """The whole-model table: module, type, output, parameters, share; recurrent rows marked
    with a footnote giving the ``paramcount explain`` command for their count. Within
    ``width`` columns (a terminal's), a long type wraps at spaces and, if need be, the share
    column goes; module names and counts are never cut."""
    measured = outcome.table
    total = measured.total
    header = ("module", "type", "output", "params", "share")
    rows: list[tuple[str, ...]] = []
    notes: list[str] = []
    for row in measured.rows:
        kind = row.type
        if row.spec is not None and outcome.model.kind != "layers":
            name = short(row.spec)
            kind = name if name.startswith(row.type + "(") else f"{row.type} {name}"
        if row.command is not None:
            notes.append(f"[{len(notes) + 1}] {row.name}: {row.command}")
            kind += f" [{len(notes)}]"
        share = f"{100 * row.params / total:.1f}%" if total else "-"
        rows.append((row.name, kind, row.output or "-", f"{row.params:,}", share))
    rows.append(("total", measured.origin, "", f"{total:,}", "100.0%" if total else "-"))
    columns = 5
    widths = [max(len(r[i]) for r in (header, *rows)) for i in range(columns)]
    if width is not None and _line_width(widths) > width:
        least = max(len(word) for r in (header, *rows) for word in r[1].split())
        if _line_width([*widths[:1], least, *widths[2:]]) > width:
            columns = 4  # the share goes before a type is cut
            widths = widths[:4]
        widths[1] = max(least, widths[1] - (_line_width(widths) - width))
    right = (False, False, False, True, True)[:columns]

    def fmt(cells: tuple[str, ...]) -> list[str]:
        import textwrap  # only for a table shown as text: it compiles its patterns on import

        kinds = textwrap.wrap(cells[1], widths[1], break_long_words=False,
                              break_on_hyphens=False) or [""]
        out = []
        for k, kind in enumerate(kinds):
            line = (cells[0], kind, *cells[2:columns]) if k == 0 else \
                ("", kind, *("",) * (columns - 2))
            out.append("  " + "  ".join(c.rjust(w) if r else c.ljust(w) for c, w, r
                                        in zip(line, widths, right, strict=True)).rstrip())
        return out

    rule = "  " + "  ".join("-" * w for w in widths)
    lines = [*fmt(header), rule]
    for r in rows[:-1]:
        lines += fmt(r)
    lines += [rule, *fmt(rows[-1])]
    frozen = [f"{row.name} {row.non_trainable:,}" for row in measured.rows if row.non_trainable]
    if frozen:
        lines.append(f"  non-trainable, of the above: {', '.join(frozen)}")
    if measured.buffers:
        lines.append(f"  + {measured.buffers:,} buffer values (running statistics), not "
                     "parameters")
    return lines + [f"  {note}" for note in notes]


def _line_width(widths: list[int]) -> int:
    """The width of a details line: an indent of 2 and 2 between columns."""
    return 2 + sum(widths) + 2 * (len(widths) - 1)


def where(config: Config, outcome: Outcome) -> list[tuple[int, int, str]]:
    """(line, column, message) of each problem, or of the model when it has none."""
    source = config.source
    out = []
    for problem in outcome.problems:
        line, column = source.where(problem.path)
        out.append((line, column, f"{outcome.model.name}: {problem.message}"))
    return out


def data(config: Config, outcomes: list[Outcome]) -> dict[str, Any]:
    """Every outcome as JSON-ready data (the ``paramcount.check/1`` schema)."""
    source = config.source
    models = []
    for outcome in outcomes:
        model = outcome.model
        models.append({
            "name": model.name,
            "framework": model.framework.value,
            "passed": outcome.passed,
            "file": source.name,
            "source": model.kind,
            "total": outcome.total,
            "dtype": model.dtype.value,
            "bytes": outcome.bytes,
            "expected": {
                "total": model.total_expected,
                "max_params": model.max_params,
                "max_bytes": model.max_bytes,
            },
            "verified_total": outcome.verified_total,
            "modules": [
                {
                    "name": row.name,
                    "type": row.type,
                    "output": row.output,
                    "params": row.params,
                    "non_trainable": row.non_trainable,
                    "buffers": row.buffers,
                    "recurrent": (None if row.spec is None else {
                        "layer": short(row.spec),
                        "formula": row.formula,
                    }),
                    "explain": row.command,
                    "expected": (outcome.model.modules_expected or {}).get(row.name),
                }
                for row in outcome.table.rows
            ],
            "grew": list(outcome.grew),
            "notes": list(notes(outcome)),
            "layers": [
                {
                    "index": layer.index,
                    "kind": layer.kind,
                    "name": layer.name,
                    "layer": layer.description,
                    "input_width": layer.input_width,
                    "output_width": layer.output_width,
                    "params": layer.params,
                    "expected": layer.expected,
                    "verified": (outcome.verified_layers[n]
                                 if outcome.verified_layers is not None else None),
                }
                for n, layer in enumerate(model.layers)
            ],
            "problems": [
                {
                    "key": p.key,
                    "at": path_text((*source.root, *p.path)),
                    "line": source.where(p.path)[0],
                    "column": source.where(p.path)[1],
                    "expected": p.expected,
                    "actual": p.actual,
                    "difference": p.difference,
                    "message": p.message,
                }
                for p in outcome.problems
            ],
        })
    failed = sum(1 for o in outcomes if not o.passed)
    return {
        "schema": SCHEMA,
        "paramcount": __version__,
        "file": source.name,
        "passed": len(outcomes) - failed,
        "failed": failed,
        "models": models,
    }


def data_all(results: list[FileResult]) -> dict[str, Any]:
    """Every file's results as one document: models (each naming its file) and errors."""
    models: list[dict[str, Any]] = []
    for result in results:
        if result.config is not None and result.outcomes:
            models += data(result.config, result.outcomes)["models"]
    errors = [error_data(result.name, str(error)) for result in results
              for error in result.errors]
    failed = sum(r.failed for r in results)
    out: dict[str, Any] = {"schema": SCHEMA, "paramcount": __version__}
    if len(results) == 1:
        out["file"] = results[0].name
    out.update({"files": [r.name for r in results], "passed": len(models) - failed,
                "failed": failed, "models": models, "errors": errors})
    return out


def error_data(file: str, message: str) -> dict[str, Any]:
    """One config error as JSON: ``{"file", "line", "column", "message", "text"}``."""
    import re

    found = re.match(r"^(?P<file>.+?):(?P<line>\d+):(?P<column>\d+): (?P<message>.*)$",
                     message)
    if found:
        return {"file": found["file"], "line": int(found["line"]),
                "column": int(found["column"]), "message": found["message"], "text": message}
    return {"file": file, "line": None, "column": None,
            "message": message.removeprefix(f"{file}: "), "text": message}


def junit_all(results: list[FileResult]) -> str:
    """JUnit XML of a whole run: one test suite per file, one test case per model; a file
    that could not be checked is one test case in error."""
    import xml.etree.ElementTree as ET

    suites = ET.Element("testsuites", name="paramcount check")
    tests = failures = errors = 0
    for result in results:
        if result.errors or result.config is None:
            parsed = ET.fromstring(junit_error(result.name, "\n".join(
                str(e) for e in result.errors)).split("\n", 1)[1])
            suites.extend(parsed)
            tests, errors = tests + 1, errors + 1
            continue
        parsed = ET.fromstring(junit(result.config, result.outcomes).split("\n", 1)[1])
        suites.extend(parsed)
        tests += len(result.outcomes)
        failures += result.failed
    suites.set("tests", str(tests))
    suites.set("failures", str(failures))
    suites.set("errors", str(errors))
    ET.indent(suites)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(suites, "unicode") + "\n"


def junit(config: Config, outcomes: list[Outcome]) -> str:
    """JUnit XML: one test case per model, a failure element per unmet expectation."""
    import xml.etree.ElementTree as ET

    source = config.source
    failed = sum(1 for o in outcomes if not o.passed)
    suites = ET.Element("testsuites", name="paramcount check", tests=str(len(outcomes)),
                        failures=str(failed), errors="0")
    suite = ET.SubElement(suites, "testsuite", name=source.name, tests=str(len(outcomes)),
                          failures=str(failed), errors="0", skipped="0")
    for outcome in outcomes:
        line, _ = source.where(outcome.model.path, at="key")
        case = ET.SubElement(suite, "testcase", classname=source.name,
                             name=outcome.model.name, file=source.name, line=str(line))
        if outcome.problems:
            details = [f"{source.name}:{ln}:{col}: {msg}" for ln, col, msg in
                       where(config, outcome)]
            failure = ET.SubElement(case, "failure", type="ParameterCountMismatch",
                                    message=model_line(outcome))
            failure.text = "\n".join(details + [f"  {text}" for text in outcome.grew])
        else:
            ET.SubElement(case, "system-out").text = model_line(outcome)
    ET.indent(suites)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(suites, "unicode") + "\n"


def junit_error(file: str, message: str) -> str:
    """JUnit XML for a config that could not be checked: one test case in error."""
    import xml.etree.ElementTree as ET

    suites = ET.Element("testsuites", name="paramcount check", tests="1", failures="0",
                        errors="1")
    suite = ET.SubElement(suites, "testsuite", name=file, tests="1", failures="0", errors="1",
                          skipped="0")
    case = ET.SubElement(suite, "testcase", classname=file, name="config", file=file)
    ET.SubElement(case, "error", type="ConfigError", message=message)
    ET.indent(suites)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(suites, "unicode") + "\n"
