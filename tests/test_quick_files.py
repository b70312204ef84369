"""The quick path of ``inspect PATH`` and ``check FILE --json`` says exactly what click says,
or leaves the command line to click untouched (as tests/test_quick.py holds for the counts)."""

from __future__ import annotations

import contextlib
import io
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from paramcount.cli import quick
from paramcount.cli.main import _run_click, run
from paramcount.errors import ParamcountError

ROOT = Path(__file__).resolve().parent.parent


def _run(function: object, args: list[str]) -> tuple[int | None, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = function(args)  # type: ignore[operator]
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def place(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A config-only model folder, a weights file, check configs that pass, fail and are
    wrong, and a file that is no model."""
    root = tmp_path_factory.mktemp("quick")
    (root / "m2").mkdir()
    shutil.copy(ROOT / "examples" / "hf" / "mamba2-1.3b" / "config.json", root / "m2")
    (root / "pass.toml").write_text('[models.m]\nfile = "m2"\nmax_params = 2_000_000_000\n')
    (root / "fail.toml").write_text('[models.m]\nfile = "m2"\nmax_params = 1_000\n')
    (root / "wrong.toml").write_text('[models.m]\nfile = "missing"\n')
    (root / "notes.txt").write_text("not a model\n")
    return root


WORDS = ["--json", "--markdown", "--format", "json", "table", "markdown", "--format=json",
         "--as", "torch", "--details", "--verify", "-h", "--bogus"]


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(command=st.sampled_from(["inspect", "check"]),
       target=st.sampled_from(["m2", "pass.toml", "fail.toml", "wrong.toml", "notes.txt",
                               "missing"]),
       words=st.lists(st.sampled_from(WORDS), max_size=3), data=st.data())
def test_quick_files_say_what_click_says(place: Path, command: str, target: str,
                                         words: list[str], data: st.DataObject,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """Command lines valid or not: where the quick path answers, click prints the same bytes
    and exit code; where it declines, it has printed nothing."""
    for name in ("FORCE_COLOR", "TTY_COMPATIBLE", "GITHUB_ACTIONS", "_PARAMCOUNT_COMPLETE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(place)
    args = [command, *data.draw(st.permutations([target, *words]))]
    try:
        code, out, err = _run(quick.answer, args)
    except ParamcountError:  # a refusal: run() turns it into click's line
        code, out, err = None, "", ""
    if code is None:
        assert out == "" and err == ""
    assert _run(run, args) == _run(_run_click, args), args


@pytest.mark.parametrize(("args", "code"), [
    (["inspect", "m2"], 0), (["inspect", "m2", "--json"], 0),
    (["inspect", "--markdown", "m2"], 0), (["check", "pass.toml", "--json"], 0),
    (["check", "--format", "json", "fail.toml"], 1), (["check", "wrong.toml", "--json"], 2),
])
def test_config_routes_take_the_quick_path(place: Path, args: list[str], code: int,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """Counting a config-only folder, directly or through check, needs no click."""
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    monkeypatch.chdir(place)
    answer = _run(quick.answer, args)
    assert answer[0] == code and answer[1]
    assert answer == _run(_run_click, args)
