"""Shared fixtures: run the CLI in-process and capture what a user would see."""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from dataclasses import dataclass

import pytest

from paramcount.cli.main import run


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

    def invoke(*args: str) -> Result:
        capsys.readouterr()
        code = run(list(args))
        captured = capsys.readouterr()
        return Result(code, captured.out, captured.err)

    return invoke


def have(module: str) -> bool:
    """Whether ``module`` can be imported, without importing it."""
    return importlib.util.find_spec(module) is not None
