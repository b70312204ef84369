"""The fence around factories: whatever the user's code does, ``check`` answers for that model
with a located error, checks the others, and its own output and exit code stay its own."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from paramcount.factories.policy import DEFAULT_TIMEOUT, FactoryPolicy, policy_from
from tests.conftest import CLI

ROOT = Path(__file__).resolve().parent.parent

FACTORIES = '''\
import os
import subprocess
import sys

from torch import nn

from helpers import imported as reexported  # defined elsewhere, reachable here


def build():
    return nn.LSTM(4, 8)


def chatty():
    print("loading config... done")
    print("to stderr too", file=sys.stderr)
    return nn.LSTM(4, 8)


def loops():
    while True:
        pass


def exits():
    os._exit(0)


def interrupted():
    raise KeyboardInterrupt


def closes_stdout():
    sys.stdout.close()
    return nn.LSTM(4, 8)


def leaves_a_child():
    subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    return nn.LSTM(4, 8)


def detaches_a_child():
    here = os.path.dirname(os.path.abspath(__file__))
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"],
                             start_new_session=True)
    with open(os.path.join(here, "pids.txt"), "a") as file:
        file.write(f"{child.pid}\\n")
    return nn.LSTM(4, 8)


def daemonizes():
    here = os.path.dirname(os.path.abspath(__file__))
    middle = os.fork()
    if middle == 0:
        os.setsid()
        if os.fork() == 0:
            with open(os.path.join(here, "pids.txt"), "a") as file:
                file.write(f"{os.getpid()}\\n")
            import time
            time.sleep(30)
        os._exit(0)
    os.waitpid(middle, 0)
    return nn.LSTM(4, 8)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.GRU(4, 8)

    @classmethod
    def create(cls):
        return cls()
'''

HELPERS = '''\
from pathlib import Path

Path(__file__).with_name("helpers_imported.txt").write_text("imported")


def imported():
    raise AssertionError("never called")
'''

LAYERS = '[models.plain]\nlayers = [{ kind = "lstm", input = 4, hidden = 8, params = 448 }]\n'


def project(tmp_path: Path, *factories: str, extra: str = "") -> Path:
    """A config with a hand-written model and one model per factory, beside the module."""
    (tmp_path / "nets.py").write_text(FACTORIES)
    (tmp_path / "helpers.py").write_text(HELPERS)
    text = LAYERS + "".join(f'[models.m{n}]\nfactory = "{f}"\n{extra}'
                            for n, f in enumerate(factories))
    path = tmp_path / "models.toml"
    path.write_text(text)
    return path


@pytest.fixture(autouse=True)
def _no_policy_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """The tests set the policy themselves."""
    monkeypatch.delenv("PARAMCOUNT_NO_FACTORIES", raising=False)
    monkeypatch.delenv("PARAMCOUNT_FACTORY_TIMEOUT", raising=False)


def run_json(cli: CLI, *args: str) -> tuple[int, dict[str, object], str]:
    """``check --json ARGS``: the exit code, the parsed JSON (stdout must be JSON) and stderr."""
    result = cli("check", "--json", *args)
    return result.code, json.loads(result.out), result.err


@pytest.mark.torch
def test_a_printing_factory_keeps_json_clean(cli: CLI, tmp_path: Path) -> None:
    """What a factory prints goes to stderr, so ``check --json``'s stdout still parses."""
    code, data, err = run_json(cli, str(project(tmp_path, "nets:chatty")))
    assert code == 0
    assert [m["total"] for m in data["models"]] == [448, 448]  # type: ignore[index]
    assert "loading config... done" in err and "to stderr too" in err


@pytest.mark.torch
@pytest.mark.parametrize(("factory", "message"), [
    ("nets:exits", "nets:exits(...) ended its process (exit code 0) before returning a model: "
                   "a factory must return the model, not exit"),
    ("nets:interrupted", "nets:interrupted(...) raised KeyboardInterrupt"),
    ("nets:loops", "nets:loops(...) did not return within 3 s: stopped (a factory that takes "
                   "longer needs --factory-timeout SECONDS)"),
], ids=["os._exit(0)", "KeyboardInterrupt", "never-returns"])
def test_a_factory_that_never_answers_is_a_located_error(cli: CLI, tmp_path: Path,
                                                         factory: str, message: str) -> None:
    """``os._exit(0)``, a KeyboardInterrupt or an endless loop is a located error (exit 2), and
    the other models are still checked: never a silent pass, never "budget exceeded"."""
    looping = factory == "nets:loops"  # with a short limit, which torch's import may exceed
    others = [] if looping else ["nets:build"]
    path = project(tmp_path, factory, *others)
    code, data, _ = run_json(cli, str(path), *(["--factory-timeout", "3"] if looping else []))
    assert code == 2
    assert data["errors"] == [{"file": str(path), "line": 4, "column": 11,
                               "message": f"models.m0.factory: {message}",
                               "text": f"{path}:4:11: models.m0.factory: {message}"}]
    assert [(m["name"], m["passed"]) for m in data["models"]] == [  # type: ignore[union-attr]
        ("plain", True)] + [("m1", True)] * len(others)


@pytest.mark.torch
def test_closing_stdout_in_a_factory_does_not_break_check(cli: CLI, tmp_path: Path) -> None:
    """A factory that closes its stdout still answers; check's own stdout is untouched."""
    code, data, _ = run_json(cli, str(project(tmp_path, "nets:closes_stdout")))
    assert code == 0 and data["passed"] == 2


@pytest.mark.torch
def test_a_process_the_factory_leaves_cannot_hold_check_open(tmp_path: Path) -> None:
    """A child the factory starts (sleeping 60 s) neither outlives check nor holds its pipes."""
    path = project(tmp_path, "nets:leaves_a_child")
    start = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "paramcount", "check", "--json", str(path)],
                          capture_output=True, text=True, timeout=50, cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert time.monotonic() - start < 45
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["passed"] == 2
    left = subprocess.run(["pgrep", "-f", "import time; time.sleep(60)"], capture_output=True,
                          text=True)
    assert left.stdout == ""


@pytest.mark.torch
@pytest.mark.parametrize(("factory", "message"), [
    ("os:system", "os:system is a builtin_function_or_method, not a function or class "
                  "defined in os: name a function or class written there"),
    ("nets:os.system", "nets:os.system is a module, not a function or class defined in nets: "
                       "name a function or class written there"),
    ("nets:reexported", 'nets:reexported is defined in helpers, not in nets: a factory is named '
                        'where it is written (factory = "helpers:imported")'),
], ids=["os:system", "through-a-module", "imported-name"])
def test_a_factory_is_defined_in_the_module_it_names(cli: CLI, tmp_path: Path, factory: str,
                                                     message: str) -> None:
    """Only a function or class written in the named module runs: never ``os:system`` or an
    attribute reached through the module."""
    path = project(tmp_path, factory, extra='kwargs = { command = "touch pwned" }\n')
    code, data, _ = run_json(cli, str(path))
    assert code == 2
    assert [e["message"] for e in data["errors"]] == [  # type: ignore[union-attr]
        f"models.m0.factory: {message}"]
    assert not (tmp_path / "pwned").exists()


@pytest.mark.torch
def test_a_classmethod_of_a_class_defined_there_is_a_factory(cli: CLI, tmp_path: Path) -> None:
    """``module:Class.create`` is written in the module: it runs."""
    code, data, _ = run_json(cli, str(project(tmp_path, "nets:Model.create")))
    assert code == 0 and [m["total"] for m in data["models"]] == [448, 336]  # type: ignore[index]


@pytest.mark.parametrize("how", ["option", "environment"])
def test_no_factories_refuses_every_factory_and_still_checks_the_rest(
        cli: CLI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str) -> None:
    """--no-factories (or PARAMCOUNT_NO_FACTORIES=1) imports nothing a config names: each
    factory is a located error, hand-written models are still checked."""
    path = project(tmp_path, "helpers:imported")
    args = [str(path)]
    if how == "option":
        args.append("--no-factories")
        refused_by = "--no-factories"
    else:
        monkeypatch.setenv("PARAMCOUNT_NO_FACTORIES", "1")
        refused_by = "PARAMCOUNT_NO_FACTORIES=1"
    code, data, _ = run_json(cli, *args)
    assert code == 2
    assert [e["message"] for e in data["errors"]] == [  # type: ignore[union-attr]
        f"models.m0.factory: not run: {refused_by} refuses every factory, so no code named by "
        "the config is imported (layers and file models are still checked)"]
    assert [m["name"] for m in data["models"]] == ["plain"]  # type: ignore[union-attr]
    assert not (tmp_path / "helpers_imported.txt").exists()


def test_the_library_check_respects_the_environment_too(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``paramcount.check()`` under PARAMCOUNT_NO_FACTORIES=1 runs no factory either (it ran
    today's while the baseline's were refused): the same located error as the command's."""
    import paramcount

    path = project(tmp_path, "helpers:imported")
    monkeypatch.setenv("PARAMCOUNT_NO_FACTORIES", "1")
    checked = paramcount.check(path)
    assert checked.exit_code == 2
    (error,) = checked.errors
    assert str(error).endswith(
        "models.m0.factory: not run: PARAMCOUNT_NO_FACTORIES=1 refuses every factory, so no "
        "code named by the config is imported (layers and file models are still checked)")
    assert [o.model.name for o in checked.outcomes] == ["plain"]
    assert not (tmp_path / "helpers_imported.txt").exists()


@pytest.mark.parametrize(("variables", "expected"), [
    ({}, FactoryPolicy(True, DEFAULT_TIMEOUT, "")),
    ({"PARAMCOUNT_NO_FACTORIES": "0"}, FactoryPolicy(True, DEFAULT_TIMEOUT, "")),
    ({"PARAMCOUNT_NO_FACTORIES": "true"},
     FactoryPolicy(False, DEFAULT_TIMEOUT, "PARAMCOUNT_NO_FACTORIES=true")),
    ({"PARAMCOUNT_FACTORY_TIMEOUT": "2.5"}, FactoryPolicy(True, 2.5, "")),
], ids=["default", "off", "on", "timeout"])
def test_policy_from_the_environment(variables: dict[str, str],
                                     expected: FactoryPolicy) -> None:
    """The environment variables set what the options do not."""
    assert policy_from(False, None, variables) == expected


@pytest.mark.parametrize("value", ["0", "-1", "soon", "nan", "inf"])
def test_a_bad_factory_timeout_is_one_line_exit_2(cli: CLI, tmp_path: Path, value: str) -> None:
    """--factory-timeout takes a positive number of seconds."""
    result = cli("check", str(project(tmp_path)), "--factory-timeout", value)
    assert result.code == 2
    assert f"--factory-timeout={value!r} is not a time limit" in result.err
    assert len(result.err.strip().splitlines()) == 1


def test_junit_onto_a_link_or_a_folder_is_refused_before_any_work(cli: CLI,
                                                                  tmp_path: Path) -> None:
    """--junit never writes through a symlink, and a folder is refused: exit 2 before any
    work, the JSON carrying the error (never a pass), the link's target untouched."""
    path = project(tmp_path)
    target = tmp_path / "precious.txt"
    target.write_text("keep me")
    link = tmp_path / "report.xml"
    link.symlink_to(target)
    for junit, said in ((link, "is a symbolic link"), (tmp_path, "is a folder")):
        code, data, err = run_json(cli, str(path), "--junit", str(junit))
        assert code == 2 and data["models"] == []
        (error,) = data["errors"]  # type: ignore[misc]
        assert error["message"].startswith(f"--junit {junit} {said}")
        assert err == f"Error: {error['text']}\n"
    assert target.read_text() == "keep me" and link.is_symlink()


def test_a_junit_report_that_cannot_be_written_is_in_the_json(cli: CLI, tmp_path: Path) -> None:
    """When the report cannot be written, the JSON says so and the exit code is 2."""
    path = project(tmp_path)
    junit = tmp_path / "no-such-folder" / "report.xml"
    code, data, _ = run_json(cli, str(path), "--junit", str(junit))
    assert code == 2
    (error,) = data["errors"]  # type: ignore[misc]
    assert error["message"].startswith(f"--junit {junit}: cannot write the report: ")


def test_junit_replaces_its_file_and_leaves_nothing_beside_it(cli: CLI, tmp_path: Path) -> None:
    """The report is written atomically; no temporary file stays."""
    path = project(tmp_path)
    junit = tmp_path / "report.xml"
    junit.write_text("old")
    assert cli("check", str(path), "--junit", str(junit)).code == 0
    assert junit.read_text().startswith("<?xml")
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "helpers.py", "models.toml", "nets.py", "report.xml"]


def alive(pid: int) -> bool:
    """Whether process ``pid`` exists and is not a zombie."""
    try:
        with open(f"/proc/{pid}/stat") as file:
            return file.read().rpartition(")")[2].split()[0] != "Z"
    except FileNotFoundError:
        return False


def wait_for_pids(path: Path, count: int) -> list[int]:
    """The ``count`` process ids written to ``path`` (waiting briefly for late writers)."""
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        pids = [int(n) for n in path.read_text().split()] if path.exists() else []
        if len(pids) >= count:
            return pids
        time.sleep(0.05)
    raise AssertionError(f"{path} holds {path.read_text() if path.exists() else 'nothing'}")


def run_and_reap(args: list[str], cwd: Path, pids: Path, count: int) -> subprocess.Popen[str]:
    """Run ``paramcount ARGS`` with its output on pipes; it must end, pipes closed, well before
    the 30 s its factory's children sleep, and none of them may be left alive."""
    process = subprocess.Popen([sys.executable, "-m", "paramcount", *args], cwd=cwd, text=True,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        out, err = process.communicate(timeout=25)  # returns once both pipes are closed
    finally:
        process.kill()
        found = wait_for_pids(pids, count)
        left = [pid for pid in found if alive(pid)]
        for pid in left:
            os.kill(pid, 9)
    assert left == [], f"left alive: {left}"
    process.stdout_text, process.stderr_text = out, err  # type: ignore[attr-defined]
    return process


@pytest.mark.torch
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the fence reaps on Linux")
@pytest.mark.parametrize("factory", ["nets:detaches_a_child", "nets:daemonizes"],
                         ids=["start_new_session", "double-fork"])
def test_no_descendant_of_a_factory_outlives_check(tmp_path: Path, factory: str) -> None:
    """A child the factory starts in a session of its own, or a daemon it leaves by forking
    twice, ends with the factory: check's pipes close and nothing it started is left."""
    path = project(tmp_path, factory)
    done = run_and_reap(["check", "--json", str(path)], tmp_path, tmp_path / "pids.txt", 1)
    assert done.returncode == 0, done.stderr_text  # type: ignore[attr-defined]
    assert json.loads(done.stdout_text)["passed"] == 2  # type: ignore[attr-defined]
