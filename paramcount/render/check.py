"""Check outcomes as text lines, JSON data, JUnit XML and GitHub Actions annotations."""

from __future__ import annotations

from typing import Any

from paramcount import __version__
from paramcount.check.config import Config
from paramcount.check.evaluate import Outcome
from paramcount.check.locate import path_text

SCHEMA = "paramcount.check/1"


def model_line(outcome: Outcome) -> str:
    """``✓ name: 561,152 parameters, expected total 561,152 (±0)``."""
    model = outcome.model
    parts = [f"{model.total:,} parameters"]
    shown = [c.text for c in outcome.checks if c.key != "params" or not c.passed]
    met = sum(1 for c in outcome.checks if c.key == "params" and c.passed)
    if met:
        shown.append(f"{met} layer expectation{'s' if met != 1 else ''} met")
    if not outcome.checks:
        shown.append("no expectation set")
    text = ", ".join(parts) + (", " + "; ".join(shown) if shown else "")
    verify = [p.message for p in outcome.problems if p.key == "verify"]
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
            "total": model.total,
            "dtype": model.dtype.value,
            "bytes": model.bytes,
            "expected": {
                "total": model.total_expected,
                "max_params": model.max_params,
                "max_bytes": model.max_bytes,
            },
            "verified_total": outcome.verified_total,
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
            failure.text = "\n".join(details)
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


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def annotation(file: str, line: int, column: int, message: str) -> str:
    """A GitHub Actions ``::error`` workflow command pointing at ``file:line:column``.

    GitHub matches paths relative to the repository root, so an absolute path under the
    working directory is made relative.
    """
    import os

    if os.path.isabs(file):
        relative = os.path.relpath(file)
        file = file if relative.startswith("..") else relative
    return (f"::error file={_escape_property(file)},line={line},col={column},"
            f"title=paramcount check::{_escape_data(message)}")


def error_annotation(message: str) -> str:
    """A GitHub Actions ``::error`` workflow command for an error with no file location."""
    return f"::error title=paramcount check::{_escape_data(message)}"


def github_annotations(config: Config, outcomes: list[Outcome]) -> list[str]:
    """One ``::error`` line per unmet expectation."""
    return [
        annotation(config.source.name, line, column, message)
        for outcome in outcomes
        for line, column, message in where(config, outcome)
    ]
