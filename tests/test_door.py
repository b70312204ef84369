"""The door a new user comes through: ``port -h`` says what port does and writes, click's errors
read as one plain line, TensorFlow's log lines stay off stderr, ``--what-if`` answers first."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.conftest import CLI, have

ROOT = Path(__file__).resolve().parent.parent


def test_port_help_describes_whole_models_and_every_format(cli: CLI) -> None:
    """``port -h`` speaks of whole models, and names every file port reads and writes."""
    from paramcount.porting.load import READS
    from paramcount.porting.write import SUFFIXES

    text = " ".join(cli("port", "-h").out.split())
    assert "whole model" in text
    assert "recurrent weights of SRC" not in text
    described, _, options = text.partition("Options:")
    out_help = options.split("--out FILE")[1].split("--verify")[0]
    assert [s for s in READS if s not in described] == []
    assert [s for s in SUFFIXES if s not in out_help] == []


@pytest.mark.parametrize("args", [["explain"], ["fit"], ["shapes"]])
def test_click_choices_are_one_plain_line(cli: CLI, args: list[str]) -> None:
    """A missing choice names the choices on one line, without escapes."""
    result = cli(*args)
    assert result.code == 2
    assert result.err == ("Error: Missing argument '{rnn|lstm|gru}'. Choose from: rnn, lstm, "
                          "gru\n")


@pytest.mark.parametrize("args", [
    ["lstm", "-i", "3", "-H", "4", "--format", "js\non\t"],
    ["read", "no\nsuch\tfile.txt"],
    ["gru", "-i", "3", "-H", "4", "--framework", "ker\x1bas"],
])
def test_a_users_control_characters_stay_escaped(cli: CLI, args: list[str]) -> None:
    """A value of the user's with line breaks, tabs or escapes is still shown escaped, on the
    error's one line."""
    result = cli(*args)
    assert result.code == 2
    assert result.err.count("\n") == 1 and "\t" not in result.err and "\x1b" not in result.err
    assert "\\n" in result.err or "\\x1b" in result.err


def _run(args: list[str], cwd: Path, env: dict[str, str] | None = None,
         timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """``paramcount ARGS`` in a fresh process, in ``cwd``."""
    environment = {k: v for k, v in os.environ.items() if not k.startswith(("TF_", "GLOG_"))}
    environment["PYTHONPATH"] = os.pathsep.join([str(ROOT), str(cwd)])
    environment.update(env or {})
    return subprocess.run([sys.executable, "-m", "paramcount", *args], cwd=cwd,
                          env=environment, capture_output=True, text=True, timeout=timeout,
                          check=False)


FAKE = textwrap.dedent("""\
    import os
    os.write(2, b"W0000 00:00:1.0 fake.cc:1] All log messages before absl::InitializeLog()\\n")
    VERSION = "fake"
""")
"""A stand-in package that writes to descriptor 2 while it loads, as TensorFlow's core does."""


def test_the_finder_silences_a_loud_import(tmp_path: Path) -> None:
    """Once installed, a package named tensorflow writes nothing to stderr while it loads, and
    is imported whole; without it, the line appears (the stand-in is loud)."""
    (tmp_path / "tensorflow").mkdir()
    (tmp_path / "tensorflow" / "__init__.py").write_text(FAKE)
    script = ("import sys; from paramcount import quiet\n"
              "if sys.argv[1] == 'quiet': quiet.install()\n"
              "import tensorflow; print(tensorflow.VERSION, tensorflow.__loader__.__class__"
              ".__name__)\n")
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)])}
    loud, silent = (subprocess.run([sys.executable, "-c", script, mode], env=environment,
                                   capture_output=True, text=True, check=True, cwd=tmp_path)
                    for mode in ("loud", "quiet"))
    assert "absl::InitializeLog" in loud.stderr
    assert (silent.stdout, silent.stderr) == ("fake SourceFileLoader\n", "")


TF_LINE = ("absl::InitializeLog", "cuda", "oneDNN", "cpu_feature_guard", "E0000", "W0000",
           "I0000")


@pytest.mark.torch
@pytest.mark.keras
@pytest.mark.skipif(not (have("torch") and have("keras") and have("tensorflow")),
                    reason="needs torch, keras and tensorflow")
def test_a_port_into_the_users_keras_model_keeps_stderr_clean(tmp_path: Path) -> None:
    """``port --to keras --model`` with a factory whose module imports Keras at its top (before
    paramcount can), verified: stderr holds none of TensorFlow's log lines."""
    import torch

    torch.save(torch.nn.GRU(8, 16).state_dict(), tmp_path / "decoder.pt")
    (tmp_path / "userkeras.py").write_text(textwrap.dedent("""\
        import keras


        def model():
            inputs = keras.Input(shape=(None, 8))
            return keras.Model(inputs, keras.layers.GRU(16)(inputs))
    """))
    result = _run(["port", "decoder.pt", "--to", "keras", "--model", "userkeras:model",
                   "--out", "decoder.weights.h5", "--verify"], tmp_path)
    assert result.returncode == 0, result.stderr
    assert [line for line in result.stderr.splitlines()
            if any(word in line for word in TF_LINE)] == []
    assert (tmp_path / "decoder.weights.h5").is_file()


def test_what_if_answers_first(cli: CLI) -> None:
    """``--what-if`` prints the change right after the total, before the configuration and the
    tensors it would otherwise follow."""
    lines = cli("mamba", "--d-model", "768", "--layers", "24", "--what-if",
                "state_size=64").out.splitlines()
    assert lines[3] == "state_size 16 → 64"
    assert lines[4].strip().startswith("129,135,360 → 134,443,776 parameters")
    assert lines.index("Configuration") > lines.index("state_size 16 → 64")
