"""``check --update``: expectations rewritten in place; comments, layout and the rest untouched."""

from __future__ import annotations

import difflib
import json
from pathlib import Path

import pytest

from tests.conftest import CLI

TOML = """\
# Budgets for our models — reviewed by the ML platform team.
dtype = "fp16"   # we ship half precision

[models.bilstm]          # the encoder
input = 32
total    =   1_000       # stale on purpose
max_params = 100_000     # a budget: --update never rewrites it
layers = [
  # one stack, two layers
  { kind = "lstm", hidden = 64, layers = 2, bidirectional = true, params = 7 },
]

[models.head]
input = 256
layers = [
  { kind = "attention", layers = [{ kind = "linear", out = 1, params = 0 }] },
  { kind = "linear", out = 4 },   # no expectation yet
]
"""


def changed_lines(before: str, after: str) -> list[str]:
    """The lines a unified diff removes (-) and adds (+)."""
    return [
        line for line in difflib.unified_diff(before.splitlines(), after.splitlines(), n=0,
                                              lineterm="")
        if line[:1] in "+-" and not line.startswith(("+++", "---"))
    ]


def test_update_rewrites_only_the_numbers(cli: CLI, tmp_path: Path) -> None:
    """Only expectation values change; comments, spacing and budgets survive byte for byte."""
    path = tmp_path / "models.toml"
    path.write_text(TOML)
    result = cli("check", str(path), "--update")
    after = path.read_text()
    assert changed_lines(TOML, after) == [
        "-total    =   1_000       # stale on purpose",
        "+total    =   149_504       # stale on purpose",
        '-  { kind = "lstm", hidden = 64, layers = 2, bidirectional = true, params = 7 },',
        '+  { kind = "lstm", hidden = 64, layers = 2, bidirectional = true, params = 149504 },',
        "+total = 1_285",
        '-  { kind = "attention", layers = [{ kind = "linear", out = 1, params = 0 }] },',
        '+  { kind = "attention", layers = [{ kind = "linear", out = 1, params = 257 }] },',
    ]
    assert after == TOML.replace("total    =   1_000", "total    =   149_504").replace(
        "params = 7", "params = 149504").replace(
        "[models.head]\n", "[models.head]\ntotal = 1_285\n").replace(
        "out = 1, params = 0", "out = 1, params = 257")
    assert result.code == 1  # the budget max_params = 100_000 still fails
    assert result.out.splitlines()[-1] == (
        f"updated {path}: bilstm total 1,000 → 149,504; bilstm layers[0].params 7 → 149,504; "
        "head total (none) → 1,285; head layers[0].layers[0].params 0 → 257"
    )


def test_update_then_check_passes(cli: CLI, tmp_path: Path) -> None:
    """After --update (budgets met) a check passes and a second update is a no-op."""
    path = tmp_path / "models.toml"
    path.write_text(TOML.replace("max_params = 100_000", "max_params = 200_000"))
    assert cli("check", str(path), "--update").code == 0
    once = path.read_bytes()
    assert cli("check", str(path)).code == 0
    again = cli("check", str(path), "--update")
    assert again.out.splitlines()[-1] == f"{path} is up to date: no expectation changed"
    assert path.read_bytes() == once


def test_update_json_keeps_layout(cli: CLI, tmp_path: Path) -> None:
    """In JSON the value is replaced in place and a missing total is added with the same indent."""
    text = (
        '{\n'
        '    "models": {\n'
        '        "gru": {\n'
        '            "input": 13,\n'
        '            "framework": "keras",\n'
        '            "layers": [ {"kind": "gru", "units": 20, "params": 1} ]\n'
        '        }\n'
        '    }\n'
        '}\n'
    )
    path = tmp_path / "m.json"
    path.write_text(text)
    assert cli("check", str(path), "--update").code == 0
    assert path.read_text() == text.replace(
        '            "input": 13,', '            "total": 2100,\n            "input": 13,'
    ).replace('"params": 1}', '"params": 2100}')


def test_update_pyproject_touches_only_its_table(cli: CLI, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """In pyproject.toml only [tool.paramcount] expectations change, nothing else."""
    text = (
        '[project]\nname = "demo"\nversion = "1.0"  # total = 5 here is not ours\n\n'
        '[tool.paramcount.models.tiny]\ninput = 4\ntotal = 5\n'
        'layers = [{ kind = "linear", out = 2 }]\n\n[tool.ruff]\nline-length = 100\n'
    )
    (tmp_path / "pyproject.toml").write_text(text)
    monkeypatch.chdir(tmp_path)
    assert cli("check", "--update").code == 0
    assert (tmp_path / "pyproject.toml").read_text() == text.replace(
        "input = 4\ntotal = 5", "input = 4\ntotal = 10")


@pytest.mark.parametrize(
    ("prefix", "newline"), [("", "\r\n"), ("\ufeff", "\n")], ids=["crlf", "bom"]
)
def test_update_keeps_line_endings_and_bom(cli: CLI, tmp_path: Path, prefix: str,
                                           newline: str) -> None:
    """CRLF line endings and a byte order mark survive an update, and the new line uses them."""
    lines = ["# tiny", "[models.tiny]", "input = 4", 'layers = [{ kind = "linear", out = 2 }]', ""]
    path = tmp_path / "m.toml"
    path.write_bytes((prefix + newline.join(lines)).encode())
    assert cli("check", str(path), "--update").code == 0
    lines.insert(2, "total = 10")
    assert path.read_bytes() == (prefix + newline.join(lines)).encode()


def test_update_inline_model_table(cli: CLI, tmp_path: Path) -> None:
    """A model written as one inline table gets ``total`` as its first key."""
    text = '[models]\ntiny = { input = 4, layers = [{ kind = "linear", out = 2 }] }\n'
    path = tmp_path / "m.toml"
    path.write_text(text)
    assert cli("check", str(path), "--update").code == 0
    assert path.read_text() == text.replace("{ input", "{ total = 10, input")


def test_check_without_update_never_writes(cli: CLI, tmp_path: Path) -> None:
    """A failing check (exit 1) leaves the file byte-identical."""
    path = tmp_path / "models.toml"
    path.write_text(TOML)
    assert cli("check", str(path), "--json").code == 1
    assert path.read_text() == TOML


class _CountingSpans(dict):  # type: ignore[type-arg]
    """A span map that counts how often it is scanned whole."""

    scans = 0

    def items(self):  # type: ignore[no-untyped-def]
        """Every entry, counted as one scan."""
        self.scans += 1
        return super().items()


def test_update_of_many_inline_models_scans_the_spans_once(tmp_path: Path) -> None:
    """Thousands of inline-table models get their totals with one scan of the spans, not one
    scan per model (which made --update of 10,000 such models take minutes)."""
    from paramcount.checking import read
    from paramcount.checking.update import updated_text

    count = 3000
    text = "[models]\n" + "".join(
        f'm{n} = {{ input = 8, layers = [{{ kind = "linear", out = {n % 7 + 1} }}] }}\n'
        for n in range(count))
    path = tmp_path / "m.toml"
    path.write_text(text)
    config = read(str(path))
    spans = _CountingSpans(config.source.spans)
    config.source._spans = spans
    new, changes, skipped = updated_text(config)
    assert spans.scans <= 1
    assert (len(changes), skipped) == (count, [])
    assert new.splitlines()[1:4] == [
        f'm{n} = {{ total = {9 * (n % 7 + 1)}, input = 8, layers = [{{ kind = "linear", '
        f'out = {n % 7 + 1} }}] }}' for n in range(3)]


def test_update_keeps_permissions_and_leaves_no_temporary_file(cli: CLI, tmp_path: Path) -> None:
    """--update replaces the file through a temporary file beside it, keeping its mode bits."""
    path = tmp_path / "models.toml"
    path.write_text(TOML)
    path.chmod(0o640)
    assert cli("check", str(path), "--update").code == 1  # max_params stays exceeded
    assert "total    =   149_504" in path.read_text()
    assert path.stat().st_mode & 0o777 == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["models.toml"]


def test_update_through_a_symlink_updates_the_target(cli: CLI, tmp_path: Path) -> None:
    """A config reached through a symlink is updated in place; the link stays a link."""
    real = tmp_path / "real.toml"
    real.write_text(TOML)
    link = tmp_path / "models.toml"
    link.symlink_to(real)
    assert cli("check", str(link), "--update").code == 1  # max_params stays exceeded
    assert link.is_symlink() and "total    =   149_504" in real.read_text()


def test_update_write_failure_is_one_line(cli: CLI, tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """When the file cannot be replaced, --update exits 2 with one line and the file intact."""
    import errno
    import os

    def refuse(source: str, target: str) -> None:
        raise PermissionError(errno.EACCES, "Permission denied")

    path = tmp_path / "models.toml"
    path.write_text(TOML)
    monkeypatch.setattr(os, "replace", refuse)
    result = cli("check", str(path), "--update")
    assert (result.code, result.err) == (2, f"Error: {path}: cannot write: Permission denied\n")
    assert path.read_text() == TOML
    assert sorted(p.name for p in tmp_path.iterdir()) == ["models.toml"]


# (id, config text, the last line --update prints)
NOT_WRITTEN = [
    ("dotted-keys", 'models.b.input = 3\nmodels.b.layers = [{ kind = "lstm", hidden = 4 }]\n',
     "m.toml not updated: b: declared with dotted keys: add 'total = 144' by hand"),
    ("array-of-tables-only", '[[models.a.layers]]\nkind = "lstm"\nhidden = 4\ninput = 3\n',
     "m.toml not updated: a: declared only through [[models.a.layers]] tables, with no "
     "[models.a] table: add 'total = 144' by hand"),
]


@pytest.mark.parametrize(("text", "line"), [c[1:] for c in NOT_WRITTEN],
                         ids=[c[0] for c in NOT_WRITTEN])
def test_update_that_writes_nothing_says_not_updated(cli: CLI, tmp_path: Path, text: str,
                                                     line: str,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """When --update cannot write, it says 'not updated' and why, and the file is unchanged."""
    monkeypatch.chdir(tmp_path)
    Path("m.toml").write_text(text)
    result = cli("check", "m.toml", "--update")
    assert (result.code, result.out.splitlines()[-1]) == (0, line)
    assert Path("m.toml").read_text() == text
    data = json.loads(cli("check", "m.toml", "--update", "--json").out)
    assert (data["updated"], data["not_updated"]) == ([], [line.split(": ", 1)[1]])


@pytest.mark.torch
def test_update_refused_when_a_model_could_not_be_built(cli: CLI, tmp_path: Path) -> None:
    """--verify --update names the model the framework could not build, not a disagreement."""
    pytest.importorskip("torch")
    text = ('[models.huge]\ninput = 3\ntotal = 1\n'
            'layers = [{ kind = "lstm", hidden = 4_611_686_018_427_387_904 }]\n')
    path = tmp_path / "m.toml"
    path.write_text(text)
    result = cli("check", str(path), "--verify", "--update")
    assert result.code == 1
    assert result.out.splitlines()[-1].startswith(
        f"{path} not updated: --verify could not build a model (huge: PyTorch could not build "
        "it: ")
    assert "disagrees" not in result.out
    assert path.read_text() == text
