"""``port --model`` and ``--source-model`` behind the factories' fence: whatever the user's
factory does (exit, print, sleep, start a process), port answers with its own output and exit
code, or one located exit-2 line, and nothing it started outlives it."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from tests.conftest import CLI, have
from tests.test_check_fence import run_and_reap

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.torch

ROOT = Path(__file__).resolve().parent.parent

FACTORIES = '''\
import os
import subprocess
import sys
import time


def keras_tagger():
    import keras

    inputs = keras.Input(shape=(None, 3))
    hidden = keras.layers.LSTM(4, return_sequences=True)(inputs)
    return keras.Model(inputs, keras.layers.Dense(2)(hidden))


def chatty():
    print("loading config... done")
    print("to stderr too", file=sys.stderr)
    os.write(1, b"straight to file descriptor 1\\n")
    return keras_tagger()


def exits():
    sys.exit(0)


def exits_hard():
    os._exit(0)


def sleeps():
    time.sleep(60)


def detaches_a_child():
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"],
                             start_new_session=True)
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "pids.txt"), "a") as f:
        f.write(f"{child.pid}\\n")
    return keras_tagger()
'''


@pytest.fixture(autouse=True)
def _no_policy_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """The tests set the policy themselves."""
    monkeypatch.delenv("PARAMCOUNT_NO_FACTORIES", raising=False)
    monkeypatch.delenv("PARAMCOUNT_FACTORY_TIMEOUT", raising=False)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A torch checkpoint (an LSTM and a linear head) and the factories, in the current
    folder (where port imports factories from)."""
    from torch import nn

    torch.manual_seed(0)
    model = nn.ModuleDict({"rnn": nn.LSTM(3, 4, batch_first=True), "out": nn.Linear(4, 2)})
    torch.save(model.state_dict(), tmp_path / "tagger.pt")
    (tmp_path / "nets.py").write_text(FACTORIES)
    monkeypatch.chdir(tmp_path)
    return tmp_path


needs_keras = pytest.mark.skipif(not have("keras"), reason="needs keras")


@pytest.mark.parametrize(("factory", "message"), [
    ("nets:exits", "Error: --model nets:exits(...) raised SystemExit: 0"),
    ("nets:exits_hard", "Error: --model nets:exits_hard(...) ended its process (exit code 0) "
                        "before returning a model: a factory must return the model, not exit"),
    ("nets:sleeps", "Error: --model nets:sleeps(...) did not return within 2 s: stopped (a "
                    "factory that takes longer needs --factory-timeout SECONDS)"),
], ids=["sys.exit(0)", "os._exit(0)", "sleeps"])
def test_a_model_factory_that_never_answers_is_one_line_exit_2(
        cli: CLI, project: Path, factory: str, message: str) -> None:
    """``sys.exit(0)``, ``os._exit(0)`` or a factory past ``--factory-timeout``: exit 2, one
    line, empty stdout, nothing written."""
    result = cli("port", "tagger.pt", "--to", "keras", "--model", factory, "--json",
                 "--out", "tagger.npz", "--factory-timeout", "2")
    assert (result.code, result.out) == (2, ""), result
    assert result.err.splitlines()[-1] == message and result.err.count("Error:") == 1
    assert sorted(os.listdir(project)) == ["nets.py", "tagger.pt"]


@needs_keras
def test_what_a_model_factory_prints_goes_to_stderr(cli: CLI, project: Path) -> None:
    """A factory's prints (Python's and file descriptor 1's) go to stderr: ``port --json``'s
    stdout is one JSON document, and the port is written."""
    result = cli("port", "tagger.pt", "--to", "keras", "--model", "nets:chatty", "--json",
                 "--out", "tagger.npz")
    assert result.code == 0, result.err
    data = json.loads(result.out)
    assert data["written"] == "tagger.npz"
    for said in ("loading config... done", "to stderr too", "straight to file descriptor 1"):
        assert said in result.err
    assert (project / "tagger.npz").is_file()


def test_a_source_model_factory_is_fenced_too(cli: CLI, project: Path) -> None:
    """``--source-model`` runs behind the same fence: its ``os._exit(0)`` is one line, exit 2."""
    result = cli("port", "tagger.pt", "--to", "keras", "--model", "nets:exits_hard",
                 "--source-model", "nets:exits_hard", "--verify", "--json")
    assert (result.code, result.out) == (2, ""), result
    assert "ended its process (exit code 0) before returning a model" in result.err


@pytest.mark.parametrize("value", ["0", "soon", "inf"])
def test_a_bad_factory_timeout_is_one_line_exit_2(cli: CLI, project: Path, value: str) -> None:
    """port's --factory-timeout takes a positive number of seconds, as check's does."""
    result = cli("port", "tagger.pt", "--to", "keras", "--model", "nets:chatty",
                 "--factory-timeout", value)
    assert result.code == 2 and len(result.err.strip().splitlines()) == 1
    assert f"--factory-timeout={value!r} is not a time limit" in result.err


def test_no_factories_in_the_environment_refuses_port_model(
        cli: CLI, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """PARAMCOUNT_NO_FACTORIES=1 refuses ``--model``'s factory too, importing nothing."""
    monkeypatch.setenv("PARAMCOUNT_NO_FACTORIES", "1")
    result = cli("port", "tagger.pt", "--to", "keras", "--model", "nets:exits_hard")
    assert result.code == 2 and result.out == ""
    assert result.err == ("Error: --model nets:exits_hard: not run: PARAMCOUNT_NO_FACTORIES=1 "
                          "refuses every factory\n")


@needs_keras
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the fence reaps on Linux")
def test_no_descendant_of_a_model_factory_outlives_port(project: Path) -> None:
    """A child ``--model``'s factory starts in a session of its own ends with the port: the
    pipes close and nothing is left."""
    done = run_and_reap(["port", "tagger.pt", "--to", "keras", "--model",
                         "nets:detaches_a_child", "--json"], project, project / "pids.txt", 1)
    assert done.returncode == 0, done.stderr_text  # type: ignore[attr-defined]
    assert json.loads(done.stdout_text)["layers"]  # type: ignore[attr-defined]
