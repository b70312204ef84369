"""Shared fixtures: run the CLI in-process and capture what a user would see."""

from __future__ import annotations

import importlib.util
import os
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import settings

from paramcount.cli.main import run

settings.register_profile("ci", derandomize=True, database=None)
if os.environ.get("CI"):
    # CI replays the same examples every run (a submission lands on what it was tested with);
    # hunting for new ones is for runs without CI set, and benchmarks' seeds.
    settings.load_profile("ci")


def pytest_addoption(parser: pytest.Parser) -> None:
    """--update-golden rewrites golden files and the outputs shown in the docs."""
    parser.addoption(
        "--update-golden",
        action="store_true",
        help="rewrite tests/golden/* and the command outputs in README.md, formulas.md, docs/",
    )


@pytest.fixture
def update_golden(request: pytest.FixtureRequest) -> bool:
    """Whether this run rewrites golden outputs instead of comparing with them."""
    return bool(request.config.getoption("--update-golden"))


@dataclass(frozen=True)
class Result:
    """What one CLI run printed, and its exit code."""

    code: int
    out: str
    err: str


CLI = Callable[..., Result]


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> CLI:
    """Run ``paramcount ARGS`` in-process (stdout is not a terminal, so output is plain)."""
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    monkeypatch.delenv("TTY_COMPATIBLE", raising=False)
    for name in ("GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "GITHUB_WORKSPACE"):  # CI's own
        monkeypatch.delenv(name, raising=False)

    def invoke(*args: str) -> Result:
        capsys.readouterr()
        code = run(list(args))
        captured = capsys.readouterr()
        return Result(code, captured.out, captured.err)

    return invoke


def have(module: str) -> bool:
    """Whether ``module`` can be imported, without importing it."""
    return importlib.util.find_spec(module) is not None


@pytest.fixture(scope="module")
def eras() -> Iterator[dict[int, Any]]:
    """Keras 3 and Keras 2 (tf-keras), imported once, quietly (skipped where either is not
    installed)."""
    if not (have("keras") and have("tensorflow") and have("tf_keras")):
        pytest.skip("needs keras 3, tensorflow and tf-keras")
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        import keras
        import tf_keras
    yield {3: keras, 2: tf_keras}
