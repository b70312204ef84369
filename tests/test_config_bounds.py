"""Family configs are untrusted input: only a regular file is read (never a FIFO, a device or
stdin), and every size in one is held to 2^63 − 1 as the same value on the command line is."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import CLI

ROOT = Path(__file__).resolve().parent.parent
HUGE = "1" + "0" * 100
ENORMOUS = "9" * 5000


@pytest.mark.parametrize("target", ["/dev/zero", "fifo", "/dev/stdin", "folder"])
def test_config_reads_only_a_regular_file(tmp_path: Path, target: str) -> None:
    """``--config`` on /dev/zero, a FIFO (with no writer), stdin or a folder: one line naming
    what it is, exit 2, at once (the FIFO would block an open, /dev/zero never ends)."""
    if target == "fifo":
        target = str(tmp_path / "config.json")
        os.mkfifo(target)
    elif target == "folder":
        target = str(tmp_path)
    done = subprocess.run([sys.executable, "-m", "paramcount", "mamba", "--config", target],
                          capture_output=True, text=True, timeout=60, cwd=ROOT, stdin=None,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 2, done.stderr
    assert done.stdout == "" and len(done.stderr.splitlines()) == 1
    assert "not a regular file" in done.stderr, done.stderr


def test_a_config_past_the_size_limit_is_refused(cli: CLI, tmp_path: Path) -> None:
    """A config.json over the limit is refused by its size, in one line."""
    from paramcount.families.config_json import MAX_CONFIG

    path = tmp_path / "config.json"
    path.write_bytes(b" " * (MAX_CONFIG + 1) + b"{}")
    result = cli("mamba", "--config", str(path))
    assert result.code == 2 and "too large for a config" in result.err


@pytest.mark.parametrize(("family", "key", "value"), [
    ("mamba", "vocab_size", HUGE),
    ("mamba", "hidden_size", ENORMOUS),
    ("rwkv", "hidden_size", HUGE),
    ("rwkv", "attention_hidden_size", ENORMOUS),
    ("mamba2", "num_heads", "-" + HUGE),
], ids=["mamba-vocab-1e100", "mamba-hidden-5000-digits", "rwkv-1e100",
        "rwkv-5000-digits", "mamba2-negative"])
def test_a_size_past_int64_in_config_json_is_one_line_exit_2(
        cli: CLI, tmp_path: Path, family: str, key: str, value: str) -> None:
    """A config.json size over 2^63 − 1 (or under its negative) is refused as the same value
    as a flag is: one line naming the key, exit 2, nothing on stdout."""
    path = tmp_path / "config.json"
    path.write_text(f'{{"{key}": {value}}}')
    result = cli(family, "--config", str(path))
    assert (result.code, result.out) == (2, ""), result
    assert len(result.err.splitlines()) == 1 and key in result.err, result.err
    assert "2^63 − 1" in result.err


def test_a_model_folder_with_a_huge_size_is_refused_by_inspect(cli: CLI, tmp_path: Path) -> None:
    """``inspect`` on a folder whose config.json holds a 100-digit size: one line, exit 2."""
    (tmp_path / "config.json").write_text(json.dumps({"model_type": "mamba"})[:-1]
                                          + f', "vocab_size": {HUGE}}}')
    result = cli("inspect", str(tmp_path))
    assert (result.code, result.out) == (2, ""), result
    assert "vocab_size" in result.err and "2^63 − 1" in result.err


@pytest.mark.parametrize("value", [HUGE, ENORMOUS])
def test_check_refuses_a_huge_family_size_with_json_on_stdout(
        cli: CLI, tmp_path: Path, value: str) -> None:
    """A family model of a check config with a huge size: a located error, exit 2, and
    ``check --json`` still prints one JSON document."""
    path = tmp_path / "models.toml"
    path.write_text(f'[models.m]\nfamily = "mamba"\nconfig = {{ vocab_size = {value} }}\n')
    result = cli("check", "--json", str(path))
    assert result.code == 2, result
    errors = json.loads(result.out)["errors"]
    assert len(errors) == 1 and errors[0]["line"] == 3 and "2^63 − 1" in errors[0]["message"]


def test_xlstm_slstm_at_with_5000_digits_is_one_line_exit_2(cli: CLI) -> None:
    """``xlstm-lm --slstm-at 999…`` (5,000 digits): one line, exit 2."""
    result = cli("xlstm-lm", "--slstm-at", ENORMOUS)
    assert (result.code, result.out) == (2, ""), result
    assert len(result.err.splitlines()) == 1 and "--slstm-at" in result.err
