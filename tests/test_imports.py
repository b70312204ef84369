"""The core stays light: no framework, click or rich on import, and none on the JSON path."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

HEAVY = ("torch", "tensorflow", "keras", "jax", "flax", "onnx")


def loaded_after(code: str) -> set[str]:
    """Top-level modules loaded by running ``code`` in a fresh interpreter."""
    probe = f"{code}\nimport sys\nprint(' '.join(sorted({{m.split('.')[0] for m in sys.modules}})))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return set(out.stdout.split("\n")[-2].split())


def test_import_paramcount_is_light() -> None:
    """``import paramcount`` loads no framework, and neither click nor rich."""
    loaded = loaded_after("import paramcount")
    assert not loaded & {*HEAVY, "click", "rich"}


QUICK = {"json": ["lstm", "-i", "32", "-H", "128", "-L", "2", "--bidir", "--json"],
         "plain-table": ["lstm", "-i", "32", "-H", "128", "-L", "2", "--bidir"],
         "markdown": ["gru", "-i", "13", "-H", "20", "-f", "keras", "--markdown"],
         "all-frameworks": ["lstm", "-i", "28", "-H", "128", "--bidir", "-f", "all"],
         "mamba": ["mamba", "--d-model", "768", "--layers", "24", "--vocab", "50280"],
         "mamba2-json": ["mamba2", "--config", "examples/hf/mamba2-1.3b/config.json", "--json"]}
"""Everyday count command lines: answered by the quick path, without click."""

CLICK = {"compute": ["compute", "lstm", "-i", "32", "-H", "128", "-T", "10", "--json"],
         "memory": ["memory", "gru", "-i", "32", "-H", "128", "-f", "keras"],
         "shapes-json": ["shapes", "lstm", "-i", "3", "-H", "4", "--json"],
         "explain-brief": ["explain", "lstm", "-i", "3", "-H", "4", "--brief"],
         "compare-onnx": ["compare", "lstm -i 3 -H 4 -f onnx", "lstm -i 3 -H 4", "--json"],
         "count-with-memory": ["lstm", "-i", "3", "-H", "4", "--optimizer", "adam"]}
"""Other formula command lines: click reads them."""


@pytest.mark.parametrize("name", [*QUICK, *CLICK])
def test_formula_commands_import_no_framework(name: str) -> None:
    """The formula commands import no framework, rich only for a terminal, and click only when
    the quick path leaves the command line to it."""
    args = QUICK.get(name) or CLICK[name]
    code = (
        "import contextlib, io\nfrom paramcount.cli.main import run\n"
        f"with contextlib.redirect_stdout(io.StringIO()): assert run({args!r}) == 0"
    )
    loaded = loaded_after(code)
    assert not loaded & {*HEAVY, "rich"}
    assert ("click" in loaded) == (name in CLICK)


def test_plain_count_loads_only_what_it_uses() -> None:
    """Counting a torch layer as JSON loads neither other conventions, memory, compute nor
    the document model (startup time is a product feature, see benchmarks/cli_speed.py)."""
    probe = (
        "import contextlib, io, sys\nfrom paramcount.cli.main import run\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    assert run(['lstm', '-i', '32', '-H', '128', '--bidir', '--json']) == 0\n"
        "print(' '.join(m for m in sys.modules if m.startswith('paramcount')))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True)
    loaded = set(out.stdout.split())
    unwanted = {"paramcount.analysis.memory", "paramcount.analysis.compute",
                "paramcount.render.document",
                "paramcount.engine.conventions.flax", "paramcount.engine.conventions.tf1",
                "paramcount.engine.conventions.keras", "paramcount.verify"}
    assert not loaded & unwanted


def test_read_json_loads_neither_click_nor_rich() -> None:
    """``paramcount read FILE --json`` is answered by the quick path: no click, no rich, no
    framework (start-up is most of a paste's answer, see benchmarks/read_speed.py)."""
    code = (
        "import contextlib, io\nfrom paramcount.cli.main import run\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    assert run(['read', 'examples/pastes/bilstm-question.txt', '--json']) == 0"
    )
    assert not loaded_after(code) & {*HEAVY, "click", "rich"}


def test_check_json_loads_only_the_factory_policy(tmp_path_factory: pytest.TempPathFactory
                                                  ) -> None:
    """``paramcount check FILE --json`` of layers and a config-only folder is answered by the
    quick path with the factories' policy alone: neither the fence nor the factory builder, nor
    the process machinery they use (subprocess, tempfile, signal, ctypes), nor click."""
    root = tmp_path_factory.mktemp("light")
    (root / "m2").mkdir()
    (root / "m2" / "config.json").write_text(
        (ROOT / "examples" / "hf" / "mamba2-1.3b" / "config.json").read_text())
    config = root / "check.toml"
    config.write_text('[models.layers]\ninput = 32\nlayers = [{ kind = "lstm", hidden = 64 }]\n'
                      '[models.folder]\nfile = "m2"\n')
    probe = (
        "import contextlib, io, os, sys\nfrom paramcount.cli.main import run\n"
        f"os.chdir({str(root)!r})\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    assert run(['check', 'check.toml', '--json']) == 0\n"
        "print(' '.join(sys.modules))"
    )
    environ = {k: v for k, v in os.environ.items() if k != "GITHUB_ACTIONS"}  # click's there
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True, env=environ)
    loaded = set(out.stdout.split())
    assert "paramcount.factories.policy" in loaded
    assert not loaded & {"paramcount.factories.fence", "paramcount.factories.factory",
                         "subprocess", "tempfile", "signal", "ctypes", "click"}


def test_the_read_command_loads_only_what_it_reads_with(tmp_path: Path) -> None:
    """``paramcount read FILE --json`` starts without the modules that cost its start-up and
    that it does not need: dataclasses and inspect (with dis and tokenize), threading, the json
    package (``benchmarks/read_speed.py``)."""
    paste = tmp_path / "paste.txt"
    paste.write_text("import torch.nn as nn\nmodel = nn.LSTM(10, 20)\n", encoding="utf-8")
    code = ("import contextlib, io, sys\nfrom paramcount.cli.main import main\n"
            f"sys.argv = ['paramcount', 'read', {str(paste)!r}, '--json']\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            "    try:\n        main()\n"
            "    except SystemExit as done:\n        assert done.code == 0, done.code")
    loaded = loaded_after(code)
    assert not loaded & {"dataclasses", "inspect", "dis", "tokenize", "threading", "json"}


@pytest.mark.parametrize("command", [["inspect", "folder", "--json"],
                                     ["check", "check.toml", "--json"]], ids=["inspect", "check"])
def test_a_config_folder_is_counted_without_dataclasses(tmp_path: Path,
                                                        command: list[str]) -> None:
    """``inspect DIR`` and ``check`` of a folder holding only a ``config.json`` load neither
    dataclasses nor inspect (with dis and tokenize), which cost their start-up
    (``benchmarks/config_speed.py``)."""
    folder = tmp_path / "folder"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps({"model_type": "mamba", "hidden_size": 16,
                                                    "num_hidden_layers": 2, "vocab_size": 10}))
    (tmp_path / "check.toml").write_text('[models.m]\nfile = "folder"\n')
    code = ("import contextlib, io, os, sys\nfrom paramcount.cli.main import main\n"
            f"os.chdir({str(tmp_path)!r})\nsys.argv = ['paramcount', *{command!r}]\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            "    try:\n        main()\n"
            "    except SystemExit as done:\n        assert done.code == 0, done.code")
    loaded = loaded_after(code)
    assert not loaded & {"dataclasses", "inspect", "dis", "tokenize"}
