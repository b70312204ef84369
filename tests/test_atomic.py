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

DEAD = 2**22 + 12_345
"""A process id no process holds (above Linux's default pid_max of 2^22)."""

CONFIG = '[models.a]\ninput = 32\nlayers = [{ kind = "lstm", hidden = 128 }]\n'


def test_update_never_writes_through_a_hard_link_at_a_temporary_name(
        cli: CLI, tmp_path: Path) -> None:
    """A hard link planted at a temporary name of ``--update`` (a dead run's) is removed,
    not written through: the file it links to keeps its content."""
    path = tmp_path / "models.toml"
    path.write_text(CONFIG)
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    os.link(victim, temporary_path(str(path), "update", pid=DEAD))
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
    """A run killed with SIGKILL leaves its files (and an earlier version its fixed-name one);
    the next run removes them, and leaves a live writer's alone."""
    target = tmp_path / "out.npz"
    stale = temporary_path(str(target), "port", pid=DEAD)
    fixed = str(tmp_path / ".out.npz.paramcount-port.tmp")
    live = temporary_path(str(target), "port", pid=os.getppid())
    for name in (stale, stale + ".data", fixed, live):
        Path(name).write_text("left by a killed run")
    with replacing(str(target), "port", companions=(".data",)) as temporary:
        assert temporary not in (stale, live) and os.path.getsize(temporary) == 0
        Path(temporary).write_text("new")
    assert sorted(os.listdir(tmp_path)) == sorted(["out.npz", os.path.basename(live)])
    assert target.read_text() == "new"


def test_concurrent_junit_writers_each_keep_their_exit_code(tmp_path: Path) -> None:
    """Twelve ``check --junit same.xml`` at once: every one exits 0 (27 of 60 exited 2, "No
    such file or directory" or "File exists", when all shared one temporary name), the report
    is whole and nothing else is left."""
    config = tmp_path / "models.toml"
    config.write_text(CONFIG)
    report = tmp_path / "same.xml"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    runs = [subprocess.Popen([sys.executable, "-m", "paramcount", "check", str(config),
                              "--junit", str(report)], cwd=ROOT, env=env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            for _ in range(12)]
    results = [(run.wait(timeout=300), run.stderr.read() if run.stderr else "") for run in runs]
    for run in runs:
        if run.stderr:
            run.stderr.close()
    assert [code for code, _ in results] == [0] * 12, results
    assert report.read_text().rstrip().endswith("</testsuites>")
    assert sorted(os.listdir(tmp_path)) == ["models.toml", "same.xml"]


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
    stale = temporary_path(str(out), "port", ".safetensors", pid=DEAD)
    for name in (stale, stale + ".data"):
        Path(name).write_text("left by a killed run")
    result = cli("port", str(source), "--to", "keras", "--out", str(out))
    assert result.code == 0, result.err
    assert sorted(os.listdir(tmp_path)) == ["rnn.pt", "rnn.safetensors"]


def _not_regular(tmp_path: Path, kind: str) -> Path:
    """Make a target that exists and is not a regular file: a FIFO, a device node, a folder or
    a socket (a device node needs root: skipped otherwise)."""
    import socket
    import stat

    target = tmp_path / f"report-{kind}.xml"
    if kind == "fifo":
        os.mkfifo(target)
    elif kind == "device":
        try:
            os.mknod(target, 0o666 | stat.S_IFCHR, os.makedev(1, 3))  # /dev/null's numbers
        except PermissionError:
            pytest.skip("making a device node needs root")
    elif kind == "folder":
        target.mkdir()
    else:
        listener = socket.socket(socket.AF_UNIX)
        listener.bind(str(target))
        listener.close()
    return target


def _kind_of(path: Path) -> int:
    """The file-type bits of ``path`` (not following a link)."""
    import stat

    return stat.S_IFMT(os.lstat(path).st_mode)


KINDS = ("fifo", "device", "folder", "socket")


@pytest.mark.parametrize("kind", KINDS)
def test_replacing_refuses_a_target_that_is_not_a_regular_file(tmp_path: Path, kind: str) -> None:
    """A FIFO, a device node, a folder or a socket at the target is refused before anything is
    made (OSError naming what it is), and stays what it was, with nothing beside it."""
    target = _not_regular(tmp_path, kind)
    before = _kind_of(target)
    with pytest.raises(OSError, match="not a regular file") as raised, \
            replacing(str(target), "junit") as temporary:
        Path(temporary).write_text("report")
    assert raised.value.strerror is not None and "left as it is" in raised.value.strerror
    assert _kind_of(target) == before
    assert os.listdir(tmp_path) == [target.name]


def test_replacing_dev_null_is_refused_before_any_file_is_touched(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``/dev/null`` (a character device) is refused before a temporary file is made or
    anything is renamed: those calls fail the test instead of running, so the device can never
    be replaced by it, even as root."""
    import paramcount.atomic as atomic

    def forbidden(*args: object, **kwargs: object) -> None:
        raise AssertionError(f"touched the file system: {args}")

    for name in ("open", "replace", "unlink", "chmod"):
        monkeypatch.setattr(atomic.os, name, forbidden)
    with pytest.raises(OSError, match="/dev/null: a character device, not a regular file"), \
            replacing("/dev/null", "junit"):
        raise AssertionError("not reached")


@pytest.mark.parametrize("kind", KINDS)
def test_check_junit_onto_what_is_not_a_regular_file_is_refused(
        cli: CLI, tmp_path: Path, kind: str) -> None:
    """``check --junit`` onto a FIFO, a device node, a folder or a socket: exit 2, one line
    naming it, before any work, and the target left as it was."""
    path = tmp_path / "models.toml"
    path.write_text(CONFIG)
    target = _not_regular(tmp_path, kind)
    before = _kind_of(target)
    result = cli("check", str(path), "--junit", str(target))
    assert result.code == 2, result
    assert result.err.count("\n") == 1 and f"--junit {target}" in result.err, result.err
    assert _kind_of(target) == before
    assert sorted(os.listdir(tmp_path)) == sorted(["models.toml", target.name])


def test_check_update_onto_a_fifo_is_refused(tmp_path: Path) -> None:
    """``--update``'s writer refuses a config path that is now a FIFO: a ConfigError, the FIFO
    kept."""
    from paramcount.checking.source import Source
    from paramcount.checking.update import write
    from paramcount.errors import ConfigError

    target = _not_regular(tmp_path, "fifo")
    source = Source(name=str(target), text=CONFIG, format="toml", data={}, path=str(target))
    with pytest.raises(ConfigError, match="a FIFO, not a regular file"):
        write(source, CONFIG)
    import stat

    assert stat.S_ISFIFO(os.lstat(target).st_mode) and os.listdir(tmp_path) == [target.name]


@pytest.mark.torch
@pytest.mark.parametrize("kind", ("fifo", "device"))
def test_port_out_onto_what_is_not_a_regular_file_is_refused(
        cli: CLI, tmp_path: Path, kind: str) -> None:
    """``port --out`` onto a FIFO or a device node: exit 2, one line, the target as it was."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("numpy")
    source = tmp_path / "rnn.pt"
    torch.save(torch.nn.LSTM(3, 4).state_dict(), source)
    target = _not_regular(tmp_path, kind)
    out = target.with_name(target.stem + ".npz")
    target.rename(out)
    before = _kind_of(out)
    result = cli("port", str(source), "--to", "keras", "--out", str(out))
    assert result.code == 2, result
    assert result.err.count("\n") == 1 and "not a regular file" in result.err, result.err
    assert _kind_of(out) == before
    assert sorted(os.listdir(tmp_path)) == sorted(["rnn.pt", out.name])
