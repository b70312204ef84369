"""Every example in README.md, formulas.md and docs/*.md is executed: commands, outputs, doctests.

A ```console block holds ``$ paramcount ...`` lines, each followed by exactly what it prints
(stdout, then stderr). A line ``...`` in an expected output skips any number of lines. Run
``pytest tests/test_docs.py --update-golden`` to rewrite outputs that have no ``...``.

Commands run in the repository's root, except those naming a file that ``tests/docfiles``
makes (``paramcount inspect encoder.pt``): the real library first writes it into one shared
directory, and the command runs there. The README's commands run as written on a fresh clone:
they name only files the repository ships (``examples/``), and run in a directory holding a copy
of them, where what they write lands. ``< FILE`` at the end of a command feeds that file to
standard input.
"""

from __future__ import annotations

import doctest
import io
import re
import shlex
import shutil
import sys
import textwrap
from pathlib import Path

import pytest

from tests.conftest import CLI, have
from tests.docfiles import makers

ROOT = Path(__file__).resolve().parent.parent
DOCS = ["README.md", "formulas.md",
        *sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "docs").glob("*.md"))]
BLOCK = re.compile(r"^```console\n(.*?)^```$", re.S | re.M)


def examples(doc: str) -> list[tuple[str, str]]:
    """(command, expected output) pairs of every console block in ``doc``."""
    pairs = []
    for block in BLOCK.findall((ROOT / doc).read_text()):
        command, lines = None, []
        for line in block.splitlines():
            if line.startswith("$ "):
                if command is not None:
                    pairs.append((command, "\n".join(lines)))
                command, lines = line[2:], []
            else:
                lines.append(line)
        if command is not None:
            pairs.append((command, "\n".join(lines)))
    return pairs


def matches(expected: str, actual: str) -> bool:
    """Whether ``actual`` matches ``expected``, where a ``...`` line skips lines."""
    pattern = "\n".join(
        ".*?" if part == "..." else re.escape(part) for part in expected.split("\n")
    ).replace("\n.*?\n", "(?:\n.*?)?\n")
    return re.fullmatch(pattern, actual, re.S) is not None


def printed(cli: CLI, command: str, monkeypatch: pytest.MonkeyPatch | None = None) -> str:
    """What ``command`` prints, stdout then stderr, without trailing blank lines."""
    args = shlex.split(command)
    assert args[0] == "paramcount", f"doc commands must run paramcount: {command}"
    if len(args) > 2 and args[-2] == "<":
        assert monkeypatch is not None, "a command reading standard input needs monkeypatch"
        data = Path(args[-1]).read_bytes()
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"))
        args = args[:-2]
    result = cli(*args[1:])
    return (result.out + result.err).rstrip("\n")


DOC_FILES = makers()


@pytest.fixture(scope="session")
def doc_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The directory every console example runs in."""
    return tmp_path_factory.mktemp("docs")


@pytest.fixture(scope="session")
def clone_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory laid out as a fresh clone is, for the README's commands: the repository's
    ``examples/`` copied (the files a command writes land here, not in the repository)."""
    directory = tmp_path_factory.mktemp("clone")
    shutil.copytree(ROOT / "examples", directory / "examples",
                    ignore=shutil.ignore_patterns("__pycache__"))
    return directory


def documented_files(command: str) -> list[str]:
    """The files made by ``tests/docfiles`` that ``command`` names."""
    return [word for word in shlex.split(command) if word in DOC_FILES]


def prepare_files(command: str, directory: Path) -> list[str]:
    """Make the documented files ``command`` names; return the modules missing for one."""
    missing = []
    for word in documented_files(command):
        needs, make = DOC_FILES[word]
        if absent := [m for m in needs if not have(m)]:
            missing += absent
        elif not (directory / word).exists():
            make(directory)
            assert (directory / word).exists(), f"the maker of {word} did not write it"
    return missing


# The packages a ``--verify`` example needs, by --framework.
VERIFY_NEEDS = {
    "torch": ("torch",), "keras": ("keras", "tensorflow"), "onnx": ("onnx",),
    "flax-linen": ("jax", "flax"), "flax-nnx": ("jax", "flax"),
    "all": ("torch", "keras", "tensorflow", "onnx", "jax", "flax"),
}


def missing_for(command: str) -> list[str]:
    """The framework packages ``command`` runs for real (trace, --verify) but are missing."""
    args = shlex.split(command)
    if "--verify" not in args and args[1:2] != ["trace"]:
        return []
    framework = "torch"
    for flag in ("--framework", "-f", "--to"):
        if flag in args:
            framework = args[args.index(flag) + 1]
    return [name for name in VERIFY_NEEDS[framework] if not have(name)]


CASES = [(doc, command, expected) for doc in DOCS for command, expected in examples(doc)]


@pytest.mark.parametrize(
    ("doc", "command", "expected"), CASES, ids=[f"{d}:{c}" for d, c, _ in CASES]
)
def test_console_example(
    cli: CLI, update_golden: bool, doc: str, command: str, expected: str,
    doc_dir: Path, clone_dir: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The command shown in the docs prints exactly what the docs say it prints (the README's
    as written, on a fresh clone)."""
    if doc == "README.md":
        assert not documented_files(command), f"README: {command!r} names a file the "\
            "repository does not ship (put a small one in examples/)"
    if missing := missing_for(command) + prepare_files(command, doc_dir):
        pytest.skip(f"needs {', '.join(missing)}")
    monkeypatch.chdir(clone_dir if doc == "README.md"
                      else doc_dir if documented_files(command) else ROOT)
    actual = printed(cli, command, monkeypatch)
    assert "<built-in method" not in actual and "<bound method" not in actual
    if update_golden and "\n...\n" not in f"\n{expected}\n":
        path = ROOT / doc
        text = path.read_text()
        old = f"$ {command}\n{expected}\n" if expected else f"$ {command}\n"
        assert text.count(old) == 1, f"cannot locate the example {command!r} in {doc}"
        path.write_text(text.replace(old, f"$ {command}\n{actual}\n"))
        return
    assert matches(expected, actual), f"{doc}: `{command}` printed:\n{actual}"


def test_readme_files_ship_and_are_what_their_script_makes(tmp_path: Path) -> None:
    """Every file a README command names is in the repository, and ``examples/make_files.py``
    makes the shipped model files anew with the same tensors (names, shapes, dtypes)."""
    named = {word for command, _ in examples("README.md") for word in shlex.split(command)
             if word.startswith("examples/")}
    assert named and all((ROOT / word).is_file() for word in named), named
    pytest.importorskip("torch")
    import runpy

    from paramcount.files.dispatch import read_file

    maker = runpy.run_path(str(ROOT / "examples" / "make_files.py"))
    for name, make in maker["MAKERS"].items():
        made, shipped = read_file(make(tmp_path)), read_file(ROOT / "examples" / name)
        assert [(t.name, t.shape, t.dtype) for t in made.tensors] == \
            [(t.name, t.shape, t.dtype) for t in shipped.tensors], name


def test_docs_have_examples() -> None:
    """The README shows commands, and so do the docs together (the reference moved there), so
    the test above cannot pass vacuously."""
    assert len(examples("README.md")) >= 3
    assert sum(len(examples(doc)) for doc in DOCS) >= 60
    for doc in ("formulas.md", "docs/commands.md", "docs/forum.md", "docs/frameworks.md",
                "docs/check-config.md"):
        assert len(examples(doc)) >= 3, doc


PYTHON = re.compile(r"^```python\n(.*?)^```$", re.S | re.M)
BACKENDS = {"onnx_backend": ("onnx",), "flax_backend": ("jax", "flax"),
            "torch_backend": ("torch",), "keras_backend": ("keras", "tensorflow")}


def python_examples(doc: str) -> list[tuple[int, str]]:
    """(line, source) of every ```python block with ``>>>`` examples in ``doc``."""
    text = (ROOT / doc).read_text()
    return [(text[: m.start()].count("\n") + 2, m.group(1))
            for m in PYTHON.finditer(text) if ">>>" in m.group(1)]


@pytest.mark.parametrize("doc", DOCS)
def test_python_examples(doc: str) -> None:
    """Every ``>>>`` example in the docs runs in order and prints what it shows.

    Blocks share one namespace, as in a doctest file; a block using a verification backend
    whose framework is not installed is skipped.
    """
    namespace: dict[str, object] = {}
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for line, block in python_examples(doc):
        if any(name in block and not all(have(m) for m in modules)
               for name, modules in BACKENDS.items()):
            continue
        test = doctest.DocTestParser().get_doctest(block, namespace, f"{doc}:{line}", doc, line)
        runner.run(test, clear_globs=False)
        namespace.update(test.globs)  # DocTest copies its globals
    assert runner.summarize(verbose=False).failed == 0


def test_docs_have_python_examples() -> None:
    """formulas.md and the Python API reference hold executed Python examples."""
    assert python_examples("formulas.md") and python_examples("docs/python-api.md")


@pytest.mark.parametrize(
    "module",
    ["paramcount", "paramcount.engine.spec", "paramcount.errors", "paramcount.render.document"],
)
def test_docstring_examples(module: str) -> None:
    """The examples in the core modules' docstrings run."""
    import importlib

    result = doctest.testmod(importlib.import_module(module))
    assert result.failed == 0


LIBRARY_CALLS = ["summary", "read", "inspect", "check", "family", "load_error", "port",
                 "counted", "explain", "fit", "compute", "memory", "compare", "shapes", "trace",
                 "convlstm"]
NEEDS_TORCH = {"summary", "trace"}


@pytest.mark.parametrize("name", LIBRARY_CALLS)
def test_library_call_docstring_example_runs(name: str) -> None:
    """Each library call's docstring, which ``help()`` shows in full, holds an example, and
    the example runs (from the repository's root, where its files are)."""
    import pydoc

    import paramcount

    call = getattr(paramcount, name)
    assert ">>> " in pydoc.render_doc(call)
    if name in NEEDS_TORCH and not have("torch"):
        pytest.skip("its example builds a torch model")
    finder = doctest.DocTestFinder(recurse=False)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    [test] = finder.find(call, name, globs={})
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(ROOT)
        runner.run(test)
    assert runner.summarize(verbose=False).failed == 0


def test_ci_yaml_snippets_are_valid_ci_config() -> None:
    """The CI recipes of docs/check.md parse: the workflow uses this repository's action with
    inputs it has, the GitLab job keeps the report it writes, the step without the action
    installs paramcount from git and runs no factory, and the hooks name real hook ids (the
    action runs in test_action, the hook in test_precommit)."""
    yaml = pytest.importorskip("yaml")
    text = (ROOT / "docs" / "check.md").read_text()
    blocks = re.findall(r"^```yaml\n(.*?)^```$", text, re.S | re.M)
    assert len(blocks) == 5
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    (uses,) = [step for step in yaml.safe_load(blocks[0])["jobs"]["budgets"]["steps"]
               if step["uses"].startswith("OWNER/paramcount@")]
    assert set(uses["with"]) <= set(action["inputs"])
    job = yaml.safe_load(blocks[1])["paramcount"]
    command = next(line for line in job["script"] if line.startswith("paramcount check"))
    report = job["artifacts"]["reports"]["codequality"]
    assert f"--gitlab-report {report}" in command
    (step,) = yaml.safe_load(textwrap.dedent(blocks[2]))
    assert "paramcount check" in step["run"] and "git+https://" in step["run"]
    # a pull request's config comes from a branch that may not be trusted: it names the code
    # a factory runs, so the step without the action runs none
    assert "--no-factories" in step["run"]
    shipped = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    hook_ids = {hook["id"] for hook in shipped}
    remote = yaml.safe_load(blocks[3])["repos"][0]
    assert remote["repo"].startswith("https://") and "rev" in remote
    assert {hook["id"] for hook in remote["hooks"]} <= hook_ids
    for hook in yaml.safe_load(blocks[4])["repos"][0]["hooks"]:
        assert hook["id"] in hook_ids
        assert hook["entry"].startswith("paramcount check")
