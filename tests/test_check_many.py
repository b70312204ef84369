"""``check`` over many files, every error of a config at once, and hardened writes."""

from __future__ import annotations

import json
import os
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from paramcount.checking.update import TEMPORARY_SUFFIX
from tests.conftest import CLI

GOOD = """\
[models.bilstm]
input = 32
total = 149_504
layers = [{ kind = "lstm", hidden = 64, layers = 2, bidirectional = true }]
"""
OVER = """\
[models.big]
input = 32
max_params = 1000
layers = [{ kind = "gru", hidden = 64 }]
"""
BROKEN = """\
[models.a]
input = 32
totl = 5
layers = [
  { kind = "lstm", hiden = 64 },
  { kind = "linear", out = 0 },
  { kind = "lstm", hidden = 8, layers = -1 },
]

[models.b]
framework = "jax"
input = 8
layers = [{ kind = "lstm", hidden = 8 }]
"""


def write(folder: Path, name: str, text: str) -> Path:
    """Write one config file."""
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_many_files_one_summary_and_exit_code(cli: CLI, tmp_path: Path) -> None:
    """Several files give one summary; one budget exceeded anywhere is exit 1."""
    a = write(tmp_path, "a.toml", GOOD)
    b = write(tmp_path, "b.toml", OVER)
    result = cli("check", str(a), str(b))
    assert result.code == 1
    assert result.out.splitlines()[-1] == "2 models in 2 files: 1 passed, 1 failed"
    assert cli("check", str(a), str(a)).out.splitlines()[-1] == (
        "1 model in " + str(a) + ": 1 passed, 0 failed")


def test_quoted_glob_is_expanded(cli: CLI, tmp_path: Path) -> None:
    """A quoted pattern (the shell left it) is expanded by paramcount, sorted."""
    write(tmp_path, "configs/x.toml", GOOD)
    write(tmp_path, "configs/deep/y.toml", GOOD.replace("bilstm", "other"))
    result = cli("check", str(tmp_path / "configs" / "**" / "*.toml"), "--json")
    data = json.loads(result.out)
    assert result.code == 0
    assert data["files"] == sorted(data["files"]) and len(data["files"]) == 2
    assert {m["name"] for m in data["models"]} == {"bilstm", "other"}
    nothing = cli("check", str(tmp_path / "none-*.toml"))
    assert nothing.code == 2
    assert nothing.err == f"Error: {tmp_path / 'none-*.toml'}: no file matches this pattern\n"


def test_every_problem_of_a_config_is_reported(cli: CLI, tmp_path: Path) -> None:
    """A config with several problems reports each, located, in one run."""
    path = write(tmp_path, "m.toml", BROKEN)
    result = cli("check", str(path))
    assert (result.code, result.out) == (2, "")
    lines = result.err.splitlines()
    assert [line.split(": ")[2] for line in lines] == [
        "models.a.totl", "models.a.layers[0].hiden", "models.a.layers[1].out",
        "models.a.layers[2].layers", "models.b.framework"]
    assert lines[2] == (f"Error: {path}:6:28: models.a.layers[1].out: expected the output "
                        "width, a positive whole number, got 0")
    assert lines[0] == (f"Error: {path}:3:1: models.a.totl: unknown key in model 'a'; expected "
                        "one of: framework, input, layers, factory, kwargs, file, family, "
                        "config, total, max_params, max_bytes, dtype, description, modules. "
                        "Did you mean 'total'?")
    assert lines[3].startswith(f"Error: {path}:7:41: ")


def test_json_reports_errors_and_good_files_together(cli: CLI, tmp_path: Path) -> None:
    """--json prints one document on stdout, with the valid files' models and every error."""
    good = write(tmp_path, "good.toml", GOOD)
    bad = write(tmp_path, "bad.toml", BROKEN)
    result = cli("check", str(good), str(bad), "--json")
    assert result.code == 2
    data = json.loads(result.out)
    assert "file" not in data and data["files"] == [str(good), str(bad)]
    assert [m["name"] for m in data["models"]] == ["bilstm"]
    assert data["models"][0]["file"] == str(good)
    assert len(data["errors"]) == 5
    assert data["errors"][0] == {
        "file": str(bad), "line": 3, "column": 1,
        "message": data["errors"][0]["message"], "text": data["errors"][0]["text"]}
    assert data["errors"][0]["message"].startswith("models.a.totl: unknown key")


def test_one_junit_file_for_many(cli: CLI, tmp_path: Path) -> None:
    """One JUnit report: a suite per file, the invalid file as a test case in error."""
    files = [write(tmp_path, n, t) for n, t in
             (("a.toml", GOOD), ("b.toml", OVER), ("c.toml", BROKEN))]
    report = tmp_path / "report.xml"
    assert cli("check", *map(str, files), "--junit", str(report)).code == 2
    root = ET.parse(report).getroot()
    assert (root.get("tests"), root.get("failures"), root.get("errors")) == ("3", "1", "1")
    assert [s.get("name") for s in root.findall("testsuite")] == list(map(str, files))


@pytest.mark.parametrize("extra", [[], ["--update"]])
def test_junit_never_overwrites_an_input(cli: CLI, tmp_path: Path, extra: list[str]) -> None:
    """``--junit models.toml`` on models.toml is refused (exit 2) and the file is untouched."""
    path = write(tmp_path, "models.toml", GOOD.replace("149_504", "1"))
    before = path.read_bytes()
    result = cli("check", str(path), "--junit", str(path), *extra)
    assert (result.code, result.out) == (2, "")
    assert result.err == (f"Error: --junit {path} is an input of this run ({path}): give the "
                          "report another name\n")
    link = tmp_path / "link.xml"
    link.symlink_to(path)
    assert cli("check", str(path), "--junit", str(link)).code == 2
    assert path.read_bytes() == before


def test_update_refuses_a_read_only_config(cli: CLI, tmp_path: Path) -> None:
    """--update does not replace a read-only config: exit 2, one line, the file as it was."""
    path = write(tmp_path, "models.toml", GOOD.replace("149_504", "1"))
    before = path.read_bytes()
    path.chmod(0o444)
    try:
        result = cli("check", str(path), "--update")
    finally:
        path.chmod(0o644)
    assert result.code == 2
    assert result.err == (f"Error: {path}: read-only, not updated (make it writable to let "
                          "--update rewrite it)\n")
    assert path.read_bytes() == before
    assert os.listdir(tmp_path) == ["models.toml"]


def test_update_interrupted_leaves_no_temporary_file(cli: CLI, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Interrupted between writing and replacing, --update removes its temporary file; one
    left by a run killed outright has one fixed, disposable name that the next run reuses."""
    path = write(tmp_path, "models.toml", GOOD.replace("149_504", "1"))
    before = path.read_bytes()

    def interrupted(source: str, target: str) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", interrupted)
    assert cli("check", str(path), "--update").err.strip() == "Error: aborted"  # Ctrl-C
    monkeypatch.undo()
    assert os.listdir(tmp_path) == ["models.toml"] and path.read_bytes() == before
    stale = tmp_path / f".models.toml{TEMPORARY_SUFFIX}"
    stale.write_text("half a file from a run killed with SIGKILL")
    assert cli("check", str(path), "--update").code == 0
    assert os.listdir(tmp_path) == ["models.toml"]
    assert "total = 149504" in path.read_text()  # as the user wrote the old value: "1"


@pytest.mark.parametrize(("name", "text", "located"), [
    ("toml-5000-digits", "[models.a]\ninput = 32\nlayers = [{ kind = \"lstm\", hidden = 1"
     + "0" * 5000 + " }]\n", "3:37: a number of 5,001 digits: sizes and counts must be at "
                             "most 2^63 − 1 (what the frameworks hold)"),
    ("toml-2200-digits", "[models.a]\ninput = 1" + "0" * 2200 + "\nlayers = [{ kind = "
     "\"lstm\", hidden = 8 }]\n", "2:9: models.a.input: expected the input width, a positive "
                                 "whole number (or a sample's shape, e.g. [28, 28, 1]) up to "
                                 "2^63 − 1 (what the frameworks hold), got "
                                 "100000000000... (about 2,201 digits)"),
    ("toml-2^63", "[models.a]\ninput = 32\ntotal = 9_223_372_036_854_775_808\nlayers = [{ kind"
     " = \"lstm\", hidden = 8 }]\n", "3:9: models.a.total: expected a whole number of "
                                     "parameters (the exact total expected) up to 2^63 − 1 "
                                     "(what the frameworks hold), got 9223372036854775808"),
])
def test_sizes_above_int64_are_refused(cli: CLI, tmp_path: Path, name: str, text: str,
                                       located: str) -> None:
    """Sizes over 2^63 − 1 are one located line quoting a few digits, never a traceback."""
    path = write(tmp_path, "m.toml", text)
    for args in ([], ["--json"]):
        result = cli("check", str(path), *args)
        assert result.code == 2
        assert result.err == f"Error: {path}:{located}\n"
        assert len(result.err) < 300


def test_json_file_with_a_huge_number(cli: CLI, tmp_path: Path) -> None:
    """A JSON config with a number Python cannot read is located too."""
    path = write(tmp_path, "m.json", '{"models": {"a": {"input": ' + "9" * 5000 + "}}}")
    result = cli("check", str(path), "--json")
    assert result.code == 2
    assert json.loads(result.out)["errors"][0]["column"] == 28


def test_each_layer_is_handed_the_later_kinds_as_a_view(monkeypatch: pytest.MonkeyPatch) -> None:
    """A stack of n parameter-free layers is read in linear time: each layer is handed the
    kinds after it as a view of the stack's one list, never a copy (a copy each made 100,000
    layers take 113 s; benchmarks/check_layers_speed.py times it)."""
    from paramcount.checking import layers as stack
    from paramcount.checking.config import load_config
    from paramcount.checking.source import Source, parse

    seen: list[object] = []
    real = stack._layer

    def spy(*args: object, following: object, **kwargs: object) -> object:
        seen.append(following)
        return real(*args, following=following, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(stack, "_layer", spy)
    text = ('[models.m]\ninput = 4\nlayers = [{ kind = "lstm", hidden = 8 }, '
            + ", ".join('{ kind = "dropout" }' for _ in range(50)) + "]\n")
    config = load_config(Source("m.toml", text, "toml", parse("m.toml", text, "toml")))
    assert config.models[0].total == 4 * 8 * (4 + 8 + 2)
    assert len(seen) == 51 and all(isinstance(f, stack.Rest) for f in seen)
    assert len({id(f.kinds) for f in seen}) == 1  # type: ignore[attr-defined]
    assert [len(f) for f in seen] == list(range(50, -1, -1))  # type: ignore[arg-type]
    assert list(seen[0])[:2] == ["dropout", "dropout"] and seen[0][0] == "dropout"  # type: ignore[index]
