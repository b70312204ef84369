"""Files paramcount writes for the user: replaced atomically, never through a planted link, and
nothing left behind by a run that is stopped."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from paramcount.atomic import replacing, temporary_path
from tests.conftest import CLI

ROOT = Path(__file__).resolve().parent.parent

CONFIG = '[models.a]\ninput = 32\nlayers = [{ kind = "lstm", hidden = 128 }]\n'


def test_update_never_writes_through_a_hard_link_at_its_temporary_name(
        cli: CLI, tmp_path: Path) -> None:
    """A hard link planted at ``--update``'s temporary name is replaced, not written through:
    the file it links to keeps its content."""
    path = tmp_path / "models.toml"
    path.write_text(CONFIG)
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    os.link(victim, temporary_path(str(path), "update"))
    assert cli("check", str(path), "--update").code == 0
    assert victim.read_text() == "precious"
    assert "total = 82_944" in path.read_text()
    assert sorted(os.listdir(tmp_path)) == ["models.toml", "victim.txt"]


def test_sigterm_inside_a_replacement_leaves_nothing_and_changes_nothing(tmp_path: Path) -> None:
    """SIGTERM while the new file is being written: the process ends (143), the target is as
    it was, the temporary file and its side files are gone."""
    target = tmp_path / "out.npz"
    target.write_text("before")
    script = (
        "import os, signal, sys\n"
        "from paramcount.atomic import replacing\n"
        "with replacing(sys.argv[1], 'port', companions=('.data',)) as temporary:\n"
        "    open(temporary, 'w').write('half')\n"
        "    open(temporary + '.data', 'w').write('half')\n"
        "    os.kill(os.getpid(), signal.SIGTERM)\n"
        "    raise AssertionError('not reached')\n")
    done = subprocess.run([sys.executable, "-c", script, str(target)], capture_output=True,
                          text=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 128 + signal.SIGTERM, done.stderr
    assert target.read_text() == "before"
    assert sorted(os.listdir(tmp_path)) == ["out.npz"]


def test_leftovers_of_a_run_killed_hard_are_removed_by_the_next(tmp_path: Path) -> None:
    """A run killed with SIGKILL leaves its fixed-name files; the next run removes them."""
    target = tmp_path / "out.npz"
    stale = temporary_path(str(target), "port")
    for name in (stale, stale + ".data"):
        Path(name).write_text("left by a killed run")
    with replacing(str(target), "port", companions=(".data",)) as temporary:
        assert temporary == stale and os.path.getsize(temporary) == 0
        Path(temporary).write_text("new")
    assert sorted(os.listdir(tmp_path)) == ["out.npz"] and target.read_text() == "new"


def test_a_failed_write_keeps_the_target_and_the_mode(tmp_path: Path) -> None:
    """An error inside the block leaves the target as it was; a success keeps its mode."""
    target = tmp_path / "out.txt"
    target.write_text("before")
    target.chmod(0o640)
    with pytest.raises(RuntimeError), replacing(str(target), "port") as temporary:
        Path(temporary).write_text("half")
        raise RuntimeError
    assert target.read_text() == "before" and os.listdir(tmp_path) == ["out.txt"]
    with replacing(str(target), "port") as temporary:
        Path(temporary).write_text("after")
    assert target.read_text() == "after" and target.stat().st_mode & 0o777 == 0o640


@pytest.mark.torch
def test_port_leaves_no_temporary_files(cli: CLI, tmp_path: Path) -> None:
    """``port --out`` replaces stale leftovers of a killed run and leaves only its output."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("numpy")
    source = tmp_path / "rnn.pt"
    torch.save(torch.nn.LSTM(3, 4).state_dict(), source)
    out = tmp_path / "rnn.safetensors"
    pytest.importorskip("safetensors")
    stale = temporary_path(str(out), "port", ".safetensors")
    for name in (stale, stale + ".data"):
        Path(name).write_text("left by a killed run")
    result = cli("port", str(source), "--to", "keras", "--out", str(out))
    assert result.code == 0, result.err
    assert sorted(os.listdir(tmp_path)) == ["rnn.pt", "rnn.safetensors"]
