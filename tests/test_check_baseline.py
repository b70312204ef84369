"""``check --baseline REF``: each model beside the same config at a git revision, git's failures as
one line, the growth limit, and the reports CI reads (annotations, Markdown, GitLab's)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from paramcount.checking.baseline import Growth, parse_growth
from paramcount.checking.definition import definition
from tests.conftest import CLI
from tests.docfiles.check import PR_BASE, git

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")

BASE = PR_BASE
"""The documented pull request's base: the counts these tests and tests/test_action.py expect
are torch's (test_the_counts_expected_are_torchs)."""


def commit(repo: Path, files: dict[str, str | None], message: str) -> None:
    """Write (or, for None, delete) ``files`` in ``repo`` and commit them."""
    for name, text in files.items():
        path = repo / name
        if text is None:
            path.unlink()
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", message, "--allow-empty")


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repository whose first commit holds models.toml as BASE; the current folder."""
    path = tmp_path / "repo"
    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    commit(path, {"models.toml": BASE}, "base")
    monkeypatch.chdir(path)
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)
    return path


def test_a_raised_hidden_size_breaks_the_budget_on_its_line(cli: CLI, repo: Path) -> None:
    """The issue's case: the last commit raised a hidden size; --format github annotates the
    budget it breaks at its line, and the table shows before, after and the change."""
    commit(repo, {"models.toml": BASE.replace("hidden = 64", "hidden = 96")}, "wider")
    result = cli("check", "models.toml", "--baseline", "HEAD~1", "--format", "github")
    assert result.code == 1
    lines = result.out.splitlines()
    assert ("::error file=models.toml,line=3,col=14,title=paramcount%3A tagger over "
            "max_params::tagger: 324,297 parameters, over max_params 200,000 (+124,297)"
            "%0Alayers[0]: LSTM(32, 96, 2 layers, bidirectional) 322,560 (99.5%25 of the "
            "total)%0Alayers[1]: nn.Linear(192, 9) 1,737 (0.5%25 of the total)") in lines
    start = lines.index(next(line for line in lines if line.startswith("Against HEAD~1 (")))
    assert lines[start + 1:start + 6] == [
        "  model     before    after    change           layers",
        "  tagger   150,665  324,297  +173,632  +115.2%",
        "      layers[0]: LSTM(32, 96, 2 layers, bidirectional) 322,560 — was hidden 64 "
        "(149,504)",
        "      layers[1]: nn.Linear(192, 9) 1,737 — was 1,161",
        "  spotter    1,333    1,333        ±0      ±0%",
    ]
    warning = [line for line in lines if line.startswith("::warning ")]
    assert warning == ["::warning file=models.toml,line=1,title=paramcount%3A tagger grew::"
                      "tagger: 150,665 → 324,297 (+173,632, +115.2%25) against HEAD~1%0A"
                      "layers[0]: LSTM(32, 96, 2 layers, bidirectional) 322,560 — was hidden "
                      "64 (149,504)%0Alayers[1]: nn.Linear(192, 9) 1,737 — was 1,161"]


@pytest.mark.parametrize(("setup", "args", "message"), [
    ("not-a-repo", ["--baseline", "HEAD"], "is not in a git repository"),
    ("repo", ["--baseline", "v9"], "Error: --baseline v9: unknown revision in "),
    ("repo", ["--baseline=-p"], "Error: --baseline '-p': a revision may not be empty or "
                                "start with '-'"),
    ("repo", ["--baseline=--output=/tmp/x"], "a revision may not be empty or start with '-'"),
    ("repo", ["--baseline", "HEAD:models.toml"], "not a revision"),
], ids=["not-a-repository", "unknown-ref", "option-like-ref", "option-like-ref-2",
        "path-in-ref"])
def test_git_failures_are_one_line(cli: CLI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                   setup: str, args: list[str], message: str) -> None:
    """No repository, an unknown or option-like revision: one error line, exit 2; a revision
    git cannot find leaves the config's own results shown (it is not what was invalid), one
    no revision can spell is refused before any work."""
    if setup == "repo":
        git(tmp_path, "init", "-q")
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path.parent))
    (tmp_path / "models.toml").write_text(BASE)
    monkeypatch.chdir(tmp_path)
    result = cli("check", "models.toml", *args)
    assert result.code == 2
    assert message in result.err
    assert len(result.err.splitlines()) == 1
    if "start with '-'" in message or "not a revision" in message:
        assert result.out == ""  # no revision can be spelt so: refused before any work
    else:
        assert result.out.endswith("\n2 models in models.toml: 2 passed, 0 failed\n")  # the
        # config is not what was invalid


def test_new_removed_and_unchanged_models(cli: CLI, repo: Path) -> None:
    """A model only today is new, one only at the base is removed, a file absent at the base
    makes every model new; biggest growth first, removed last."""
    text = BASE.replace("[models.spotter]", "[models.listener]").replace("hidden = 16",
                                                                       "hidden = 4")
    commit(repo, {"models.toml": text, "more/other.toml": BASE}, "renamed")
    result = cli("check", "models.toml", "more/other.toml", "--baseline", "HEAD~1", "--json")
    assert result.code == 0
    rows = [(m["file"], m["name"], m["status"], m["before"], m["after"], m["change"])
            for m in json.loads(result.out)["baseline"]["models"]]
    assert rows == [
        ("more/other.toml", "tagger", "new", None, 150665, None),
        ("more/other.toml", "spotter", "new", None, 1333, None),
        ("models.toml", "listener", "new", None, 3 * 4 * (8 + 4 + 2) + 4 * 5 + 5, None),
        ("models.toml", "tagger", "same", 150665, 150665, 0),
        ("models.toml", "spotter", "removed", 1333, None, None),
    ]


def test_pyproject_and_an_invalid_base(cli: CLI, repo: Path) -> None:
    """[tool.paramcount] of pyproject.toml is compared as it was; a base that was not a valid
    config leaves the models not counted, with the reason, and is no error today."""
    table = BASE.replace("[models.", "[tool.paramcount.models.")
    commit(repo, {"pyproject.toml": '[project]\nname = "x"\n\n'
                  + table.replace("hidden = 16", "hiden = 16")}, "broken")
    commit(repo, {"pyproject.toml": '[project]\nname = "x"\n\n' + table}, "fixed")
    result = cli("check", "--baseline", "HEAD~2", "--json")
    assert [m["status"] for m in json.loads(result.out)["baseline"]["models"]] == ["new",
                                                                                  "new"]
    result = cli("check", "--baseline", "HEAD~1")
    assert result.code == 0
    assert "  tagger        -  150,665  not counted\n      the config at HEAD~1 is not " \
        "compared (below)\n" in result.out
    assert "\n  note: pyproject.toml at HEAD~1 is not a valid config, not compared " \
        "(pyproject.toml at HEAD~1:14:27: tool.paramcount.models.spotter.layers[0].hiden: " \
        "unknown key" in result.out


def test_file_models_are_read_at_the_base_and_factories_never_run(
        cli: CLI, repo: Path) -> None:
    """A model file is counted from its bytes at the base (headers only); one absent there or
    outside the repository, and a factory model (its code at the base is not on disk, and it
    is never imported), are not counted at the base, each saying why."""
    numpy = pytest.importorskip("numpy")
    safetensors = pytest.importorskip("safetensors.numpy")
    config = ('[models.released]\nfile = "weights/model.safetensors"\n\n'
              '[models.built]\nfactory = "nowhere:build"\n\n'
              '[models.later]\nfile = "weights/later.safetensors"\n\n'
              '[models.outside]\nfile = "../outside.safetensors"\n')
    safetensors.save_file({"w": numpy.zeros((2, 2), "float32")},
                          str(repo.parent / "outside.safetensors"))
    safetensors.save_file({"embed.weight": numpy.zeros((100, 16), "float32")},
                          str(repo / "model.safetensors"))
    (repo / "weights").mkdir()
    shutil.move(repo / "model.safetensors", repo / "weights" / "model.safetensors")
    commit(repo, {"ci.toml": config}, "released")
    safetensors.save_file({"embed.weight": numpy.zeros((120, 16), "float32"),
                           "head.weight": numpy.zeros((5, 16), "float32")},
                          str(repo / "weights" / "model.safetensors"))
    shutil.copy(repo / "weights" / "model.safetensors", repo / "weights" / "later.safetensors")
    commit(repo, {}, "bigger")
    result = cli("check", "ci.toml", "--baseline", "HEAD~1", "--no-factories", "--json")
    assert result.code == 2  # the refused factory, as without --baseline
    models = {m["name"]: m for m in json.loads(result.out)["baseline"]["models"]}
    released = models["released"]
    assert (released["before"], released["after"], released["added"]) == (
        1600, 1920 + 80, ["head (weights)"])
    assert [(models[name]["status"], models[name]["why"]) for name in (
        "built", "later", "outside")] == [
        ("not counted", "not counted today (see the error above)"),
        ("not counted", "at HEAD~1: weights/later.safetensors was not in the base"),
        ("not counted", "at HEAD~1: ../outside.safetensors is outside the repository")]


def test_max_growth_fails_past_it_and_summary_is_written(cli: CLI, repo: Path,
                                                         tmp_path: Path) -> None:
    """--max-growth 10% exits 1 for a model that grew more; --summary writes the Markdown
    (a model name with Markdown and HTML in it stays text)."""
    renamed = BASE.replace("[models.spotter]", '[models."a|b<i>"]')
    commit(repo, {"models.toml": renamed}, "renamed")
    commit(repo, {"models.toml": renamed.replace("hidden = 16", "hidden = 24")}, "grown")
    summary = tmp_path / "summary.md"
    result = cli("check", "models.toml", "--baseline", "HEAD~1", "--max-growth", "10%",
                 "--summary", str(summary))
    assert result.code == 1
    assert "✗ a|b<i>    1,333    2,573  +1,240  +93.0%" in result.out
    assert result.out.endswith("2 models in models.toml: 2 passed, 0 failed; 1 model grew "
                               "past --max-growth 10%\n")
    text = summary.read_text()
    assert "| ✗ a\\|b&lt;i&gt; | 1,333 | 2,573 | +1,240 | +93.0% |" in text
    assert "#### Against HEAD~1 (" in text and "; --max-growth 10%: 1 model grew past it" in text
    assert cli("check", "models.toml", "--baseline", "HEAD~1", "--max-growth", "1300").code == 0


def test_step_summary_is_appended_and_never_written_through_a_link(
        cli: CLI, repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Under GitHub Actions the summary is added after what earlier steps wrote; a link at
    $GITHUB_STEP_SUMMARY is refused (exit 2) and its target left as it was."""
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    summary = tmp_path / "step.md"
    summary.write_text("earlier\n")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    assert cli("check", "models.toml", "--baseline", "HEAD").code == 0
    assert summary.read_text().startswith("earlier\n### paramcount check\n\n2 models in "
                                          "models.toml: 2 passed, 0 failed\n")
    target = tmp_path / "target.md"
    target.write_text("keep\n")
    link = tmp_path / "link.md"
    link.symlink_to(target)
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(link))
    result = cli("check", "models.toml")
    assert result.code == 2 and "symbolic link" in result.err
    assert target.read_text() == "keep\n"


def test_table_format_opts_out_of_annotations(cli: CLI, repo: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """GITHUB_ACTIONS=true turns annotations on; --format table turns them off."""
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    commit(repo, {"models.toml": BASE.replace("200_000", "100_000")}, "tighter")
    assert "::error file=models.toml" in cli("check", "models.toml").out
    assert "::" not in cli("check", "models.toml", "--format", "table").out


def test_annotations_escape_names_from_the_config(cli: CLI, repo: Path) -> None:
    """A model name with ``%``, ``,`` and ``:`` stays inside its command: escaped in the title
    (a property), ``%`` escaped in the message (data)."""
    commit(repo, {"models.toml": BASE.replace("[models.tagger]", '[models."50%,a:b"]')
                  .replace("200_000", "1")}, "odd")
    out = cli("check", "models.toml", "--format", "github").out
    (line,) = [x for x in out.splitlines() if x.startswith("::error")]
    assert line.startswith("::error file=models.toml,line=3,col=14,title=paramcount%3A "
                           "50%25%2Ca%3Ab over max_params::50%25,a:b: 150,665 parameters")


def test_gitlab_code_quality_report(cli: CLI, repo: Path, tmp_path: Path) -> None:
    """--format gitlab prints GitLab's Code Quality issues; --gitlab-report writes the same
    beside the table; fingerprints are distinct and stable across runs."""
    commit(repo, {"models.toml": BASE.replace("200_000", "100_000").replace(
        "hidden = 16", "hidden = 24")}, "tighter")
    result = cli("check", "models.toml", "--format", "gitlab", "--baseline", "HEAD~1",
                 "--max-growth", "50%")
    assert result.code == 1
    issues = json.loads(result.out)
    assert [(i["check_name"], i["severity"], i["location"]) for i in issues] == [
        ("paramcount/max_params", "major", {"path": "models.toml", "lines": {"begin": 3}}),
        ("paramcount/max_growth", "major", {"path": "models.toml", "lines": {"begin": 9}}),
    ]
    assert issues[0]["description"].startswith("tagger: 150,665 parameters, over max_params")
    assert len({i["fingerprint"] for i in issues}) == 2
    report = tmp_path / "gl.json"
    table = cli("check", "models.toml", "--gitlab-report", str(report), "--baseline",
                "HEAD~1", "--max-growth", "50%")
    assert table.out.startswith("✗ tagger")
    assert json.loads(report.read_text()) == issues


@pytest.mark.parametrize(("text", "limit", "before", "after", "exceeded"), [
    ("10%", Growth("10%", share=parse_growth("10%").share), 100, 110, False),
    ("10%", None, 100, 111, True),
    ("0%", None, 100, 101, True),
    ("2.5%", None, 1000, 1025, False),
    ("50000", None, 100, 50_100, False),
    ("1.5M", None, 0, 1_500_001, True),
    ("10%", None, 0, 1, True),
], ids=["at-the-limit", "past-it", "zero", "fraction", "count", "suffix", "from-zero"])
def test_growth_limits(text: str, limit: Growth | None, before: int, after: int,
                       exceeded: bool) -> None:
    """A share or a count, exact (no float), fails only strictly past it."""
    growth = limit or parse_growth(text)
    assert growth.exceeded(before, after) is exceeded


@pytest.mark.parametrize("text", ["ten", "-5%", "%", "1e400%", "1/2%", "nan%"], ids=str)
def test_bad_growth_limits(text: str) -> None:
    """A limit that is neither a percentage nor a count is refused with the option named."""
    with pytest.raises(ValueError, match="--max-growth"):
        parse_growth(text)


@pytest.mark.parametrize(("source", "target", "line"), [
    ("def build():\n    pass\n", "m:build", 1),
    ("import os\n\nclass Listener:\n    @classmethod\n    def create(cls):\n        pass\n",
     "m:Listener.create", 5),
    ("def build():\n    pass\n", "m:other", None),
    ("def build(:\n", "m:build", None),
    ("build = print\n", "m:build", None),
], ids=["function", "method", "missing", "syntax-error", "not-a-def"])
def test_factory_definition_is_found_by_reading(tmp_path: Path, source: str, target: str,
                                                line: int | None) -> None:
    """The factory's def line comes from the module's source read with ast, never imported."""
    (tmp_path / "m.py").write_text(source)
    found = definition(target, [str(tmp_path)])
    assert (found[1] if found else None) == line


def test_docs_show_the_summary_the_command_writes(cli: CLI, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """docs/check.md's job summary is what ``check --summary`` writes for the documented pull
    request (tests/docfiles/check.py's ``pr/``), where an inserted layer is one row added."""
    from tests.docfiles.check import make_pull_request

    make_pull_request(tmp_path)
    monkeypatch.chdir(tmp_path)
    result = cli("check", "pr/models.toml", "--baseline", "HEAD~1", "--summary", "s.md",
                 "--json")
    assert result.code == 1
    (spotter,) = [m for m in json.loads(result.out)["baseline"]["models"]
                  if m["name"] == "spotter"]
    assert (spotter["added"], spotter["removed"], spotter["grew"]) == (
        ["layers[1] (relu)"], [], [])
    docs = (Path(__file__).resolve().parent.parent / "docs" / "check.md").read_text()
    shown = docs.split("--summary FILE -->\n", 1)[1].split("<!-- end of summary -->", 1)[0]
    assert shown == (tmp_path / "s.md").read_text()


@pytest.mark.torch
def test_the_counts_expected_are_torchs() -> None:
    """The totals the baseline tests expect are what torch builds for the same layers."""
    torch = pytest.importorskip("torch")
    nn = torch.nn

    def total(*modules: object) -> int:
        with torch.device("meta"):
            built = [m() for m in modules]  # type: ignore[operator]
        return sum(p.numel() for m in built for p in m.parameters())

    def tagger(hidden: int) -> int:
        return total(lambda: nn.LSTM(32, hidden, 2, bidirectional=True),
                     lambda: nn.Linear(2 * hidden, 9))

    def spotter(hidden: int) -> int:
        return total(lambda: nn.GRU(8, hidden), lambda: nn.Linear(hidden, 5))

    assert (tagger(64), tagger(96)) == (150_665, 324_297)
    assert (spotter(16), spotter(17), spotter(24), spotter(4)) == (1_333, 1_467, 2_573,
                                                                  3 * 4 * (8 + 4 + 2) + 25)


@pytest.mark.torch
def test_a_factory_model_is_annotated_at_its_def(cli: CLI, repo: Path) -> None:
    """A factory model over its budget is annotated at the factory's ``def`` line (found by
    reading the module), the message naming the expectation's place in the config."""
    pytest.importorskip("torch")
    project = Path(__file__).resolve().parent.parent / "examples" / "project"
    shutil.copy(project / "speech_models.py", repo / "speech_models.py")
    commit(repo, {"listener.toml": '[models.listener]\nfactory = "speech_models:build"\n'
                                   "max_params = 1_000_000\n"}, "factory")
    result = cli("check", "listener.toml", "--format", "github")
    assert result.code == 1
    (line,) = [x for x in result.out.splitlines() if x.startswith("::error")]
    assert line.startswith("::error file=speech_models.py,line=13,title=paramcount%3A "
                           "listener over max_params::listener: 4,078,089 parameters, over "
                           "max_params 1,000,000 (+3,078,089)")
    assert line.endswith("%0A(the expectation is at listener.toml:3)")
    result = cli("check", "listener.toml", "--baseline", "HEAD~1", "--json")
    (listener,) = json.loads(result.out)["baseline"]["models"]
    assert (listener["status"], listener["why"]) == ("new", None)
    result = cli("check", "listener.toml", "--baseline", "HEAD", "--json")
    (listener,) = json.loads(result.out)["baseline"]["models"]
    assert (listener["status"], listener["before"], listener["after"], listener["why"]) == (
        "not counted", None, 4_078_089,
        "at HEAD: a factory is not run for the base (--baseline-factories runs it)")


def test_notes_are_warnings(tmp_path: Path) -> None:
    """What reading a model found to say is a ::warning at its table, not a failure."""
    from paramcount.checking import read
    from paramcount.checking.evaluate import evaluate
    from paramcount.checking.measure import Measured, Row
    from paramcount.checking.session import FileResult
    from paramcount.render.check_ci import findings, github

    (tmp_path / "m.toml").write_text('\n[models.m]\nfile = "m.safetensors"\n')
    config = read(str(tmp_path / "m.toml"))
    measured = Measured(10, (Row("w", "weights", None, 10),), "safetensors file",
                        notes=("config.json says hidden_size=4, the tensors hold 2",))
    outcome = evaluate(config.models[0], None, measured)
    result = FileResult(str(tmp_path / "m.toml"), config, [outcome])
    assert github(findings([result])) == [
        f"::warning file={tmp_path / 'm.toml'},line=2,title=paramcount%3A m::m: config.json "
        "says hidden_size=4, the tensors hold 2"]


def test_library_call_compares_too(repo: Path) -> None:
    """``paramcount.check(..., baseline=, max_growth=)`` gives the comparison, its JSON, its
    exit code and its Markdown, as the command does."""
    import paramcount

    commit(repo, {"models.toml": BASE.replace("hidden = 16", "hidden = 24")}, "grown")
    checked = paramcount.check("models.toml", baseline="HEAD~1", max_growth="10%")
    assert checked.exit_code == 1 and not checked.passed
    assert checked.to_dict()["baseline"]["over"] == ["spotter"]
    assert "| ✗ spotter | 1,333 | 2,573 | +1,240 | +93.0% |" in checked.markdown_summary()
    unknown = paramcount.check("models.toml", baseline="nowhere")
    assert unknown.exit_code == 2 and "unknown revision" in unknown.errors[0]


def test_gitlab_report_carries_config_errors(cli: CLI, repo: Path) -> None:
    """A config error is a critical issue at its line in the Code Quality report, exit 2."""
    commit(repo, {"models.toml": BASE.replace("hidden = 16", "hidden = 0")}, "broken")
    result = cli("check", "models.toml", "--format", "gitlab")
    assert result.code == 2
    (issue,) = json.loads(result.out)
    assert (issue["check_name"], issue["severity"], issue["location"]) == (
        "paramcount/config", "critical", {"path": "models.toml", "lines": {"begin": 11}})


def test_a_fifo_step_summary_is_refused_without_blocking(
        cli: CLI, repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """$GITHUB_STEP_SUMMARY naming a FIFO is neither read (it would block) nor written."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(fifo))
    result = cli("check", "models.toml")
    assert result.code == 2 and "a FIFO, not a regular file" in result.err


SPEECH = ('from pathlib import Path\n\nfrom torch import nn\n\nfrom sizes import HIDDEN\n\n\n'
          'def build():\n'
          '    layers = int(Path("layers.txt").read_text())  # from the working directory\n'
          '    return nn.LSTM(16, HIDDEN, layers)\n')
"""A factory module whose model's hidden size comes from a module it imports (``sizes``) and
its depth from a file it reads in the working directory."""

FACTORY_CONFIG = ('[models.encoder]\nfactory = "speech:build"\nmax_params = 1_000_000\n\n'
                  '[models.tiny]\nlayers = [{ kind = "gru", input = 2, hidden = 2 }]\n')


def factory_repo(repo: Path, base: str = SPEECH) -> None:
    """The base commit: the factory ``speech:build`` (``base``) with HIDDEN 32 and 1 layer;
    the last commit: HIDDEN 48 and 2 layers, SPEECH as today's module."""
    commit(repo, {"ci.toml": FACTORY_CONFIG, "speech.py": base, "sizes.py": "HIDDEN = 32\n",
                  "layers.txt": "1\n"}, "factory")
    commit(repo, {"speech.py": SPEECH, "sizes.py": "HIDDEN = 48\n", "layers.txt": "2\n"},
           "wider and deeper")


def lstm(hidden: int, layers: int) -> int:
    """torch's own count of ``nn.LSTM(16, hidden, layers)``, built on the meta device."""
    torch = pytest.importorskip("torch")
    with torch.device("meta"):
        model = torch.nn.LSTM(16, hidden, layers)
    return sum(p.numel() for p in model.parameters())


@pytest.mark.torch
@pytest.mark.parametrize(("args", "before", "status", "why"), [
    ([], None, "not counted",
     "at HEAD~1: a factory is not run for the base (--baseline-factories runs it)"),
    (["--baseline-factories"], (32, 1), "grew", None),
], ids=["not-run", "run-from-the-base"])
def test_base_factories_run_only_when_asked_and_from_the_bases_source(
        cli: CLI, repo: Path, args: list[str], before: tuple[int, int] | None, status: str,
        why: str | None) -> None:
    """Without --baseline-factories the base's factory model is not counted, saying why;
    with it, the base's own module, the module it imports and the file it reads (in the base's
    tree, written by git archive) build the base's model: before and after are torch's counts
    of each commit's model, and the work tree is left as it was."""
    pytest.importorskip("torch")
    factory_repo(repo)
    result = cli("check", "ci.toml", "--baseline", "HEAD~1", "--json", *args)
    assert result.code == 0, result.err
    models = {m["name"]: m for m in json.loads(result.out)["baseline"]["models"]}
    encoder = models["encoder"]
    assert (encoder["status"], encoder["before"], encoder["after"], encoder["why"]) == (
        status, lstm(*before) if before else None, lstm(48, 2), why)
    assert models["tiny"]["status"] == "same"
    if before:
        text = cli("check", "ci.toml", "--baseline", "HEAD~1", *args).out
        assert f"(model): LSTM(16, 48, 2 layers) {lstm(48, 2):,} — was hidden 32, layers 1 " \
            f"({lstm(32, 1):,})" in text, text
    assert (repo / "sizes.py").read_text() == "HIDDEN = 48\n"
    assert git(repo, "status", "--porcelain") == ""


@pytest.mark.torch
@pytest.mark.parametrize(("base", "args", "why"), [
    (SPEECH.replace("def build():", "def build():\n    raise ValueError('no such size')"), [],
     "at HEAD~1: speech:build(...) raised ValueError: no such size"),
    (SPEECH.replace("def build():", "def build():\n    import time\n    time.sleep(600)"),
     ["--factory-timeout", "20"],  # today's factory, importing torch, fits in it under load
     "at HEAD~1: speech:build(...) did not return within 20 s: stopped (a factory that takes "
     "longer needs --factory-timeout SECONDS)"),
    (SPEECH.replace("def build():", "def build(:"), [],
     "at HEAD~1: cannot import speech: SyntaxError: "),
    (SPEECH.replace("def build():", "def make():"), [],
     "at HEAD~1: speech has no attribute 'build'"),
    (SPEECH.replace("def build():", "def build():\n    import os\n    os._exit(3)"), [],
     "at HEAD~1: speech:build(...) ended its process (exit code 3) before returning a model"),
], ids=["raises", "times-out", "syntax-error", "missing", "exits"])
def test_a_base_factory_that_fails_is_one_row_with_its_reason(
        cli: CLI, repo: Path, base: str, args: list[str], why: str) -> None:
    """A base factory that raises, runs out of time, does not import, is missing or exits:
    its model is not counted at the base, with the reason on its row; no traceback, and
    today's check is unchanged (exit 0)."""
    pytest.importorskip("torch")
    factory_repo(repo, base)
    result = cli("check", "ci.toml", "--baseline", "HEAD~1", "--baseline-factories", *args)
    assert result.code == 0, result.err
    assert "Traceback" not in result.out + result.err
    lines = result.out.splitlines()
    row = lines.index(next(line for line in lines if line.startswith("  encoder ")))
    assert lines[row].split() == ["encoder", "-", f"{lstm(48, 2):,}", "not", "counted"]
    assert lines[row + 1].strip().startswith(why), lines[row + 1]


@pytest.mark.parametrize(("args", "message"), [
    (["--baseline", "HEAD", "--baseline-factories", "--no-factories"],
     "Error: --baseline-factories runs the base's factories and --no-factories refuses every "
     "factory: give one of them"),
    (["--baseline-factories"], "Error: --baseline-factories needs --baseline REF"),
], ids=["with-no-factories", "without-baseline"])
def test_baseline_factories_is_refused_where_it_cannot_apply(
        cli: CLI, repo: Path, args: list[str], message: str) -> None:
    """With --no-factories, or without --baseline, --baseline-factories is a usage error
    (exit 2, one line) before anything runs."""
    result = cli("check", "models.toml", *args)
    assert result.code == 2
    assert result.err.startswith(message) and len(result.err.splitlines()) == 1


@pytest.mark.torch
def test_the_environment_refuses_base_factories_too(
        repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """PARAMCOUNT_NO_FACTORIES=1 wins over ``baseline_factories``: the library call runs no
    factory, today's or the base's, and says what refused it (as the command does)."""
    import paramcount

    pytest.importorskip("torch")
    factory_repo(repo)
    monkeypatch.setenv("PARAMCOUNT_NO_FACTORIES", "1")
    checked = paramcount.check("ci.toml", baseline="HEAD~1", baseline_factories=True)
    assert checked.comparison is not None
    (encoder,) = [c for c in checked.comparison.changes if c.name == "encoder"]
    assert (encoder.status, encoder.before, encoder.why) == (
        "not counted", None, "not counted today (see the error above)")
    assert [str(e).split(": ", 1)[1] for e in checked.errors] == [
        "models.encoder.factory: not run: PARAMCOUNT_NO_FACTORIES=1 refuses every factory, so "
        "no code named by the config is imported (layers and file models are still checked)"]


@pytest.mark.parametrize(("old", "new", "expected"), [
    ({"hidden_size": 32}, {"hidden_size": 48}, "hidden 32"),
    ({"hidden_size": 32, "num_layers": 1}, {"hidden_size": 20, "num_layers": 2},
     "hidden 32, layers 1"),
    ({"bidirectional": True}, {}, "LSTM(16, 32, bidirectional)"),
    ({}, {}, None),
], ids=["one-size", "two-sizes-one-count", "other-setting", "same"])
def test_what_a_known_module_was_is_read_not_guessed(
        old: dict[str, object], new: dict[str, object], expected: str | None) -> None:
    """Where the base's module is known, what differs is read from it: two sizes changed
    are both named (one count alone fits hidden 20 with 2 layers as well), any other
    difference shows the old module whole."""
    from paramcount.checking.grew import differs
    from paramcount.engine.spec import Cell, LayerSpec

    def spec(**change: object) -> LayerSpec:
        return LayerSpec(**{"cell": Cell.LSTM, "input_size": 16, "hidden_size": 32,
                            **change})  # type: ignore[arg-type]

    assert differs(spec(**old), spec(**new)) == expected


@pytest.mark.torch
def test_a_module_the_base_lacks_is_not_imported_from_today(
        cli: CLI, repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A factory module added after the base is not found at the base, even with today's
    work tree on PYTHONPATH (the repository's folders are taken off it): the model is not
    counted there, never counted with today's code."""
    pytest.importorskip("torch")
    commit(repo, {"ci.toml": FACTORY_CONFIG}, "config first")
    commit(repo, {"speech.py": SPEECH, "sizes.py": "HIDDEN = 48\n", "layers.txt": "2\n"},
           "the factory")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(
        [str(repo), *filter(None, [os.environ.get("PYTHONPATH")])]))
    result = cli("check", "ci.toml", "--baseline", "HEAD~1", "--baseline-factories", "--json")
    assert result.code == 0, result.err
    (encoder,) = [m for m in json.loads(result.out)["baseline"]["models"]
                  if m["name"] == "encoder"]
    assert (encoder["status"], encoder["before"], encoder["after"]) == (
        "not counted", None, lstm(48, 2))
    assert encoder["why"].startswith("at HEAD~1: cannot import speech: ModuleNotFoundError")


@pytest.mark.parametrize(("old", "expected"), [
    (5_040, "hidden 30 or input 41"),
    (3_700, "hidden 25"),
    (1_000, None),
], ids=["two-settings-fit", "one-setting-fits", "none-fits"])
def test_an_old_count_names_every_setting_that_explains_it(old: int,
                                                           expected: str | None) -> None:
    """Where only the old count is known (``--update``), every single setting that gives it
    is named: LSTM(10, 20) had 5,040 parameters with hidden 30 or with input 41, and the
    count alone cannot tell which changed, so neither is claimed alone."""
    from paramcount.checking.config import recurrent_count
    from paramcount.checking.grew import was
    from paramcount.engine.spec import Cell, LayerSpec

    spec = LayerSpec(cell=Cell.LSTM, input_size=10, hidden_size=20)
    for setting in (expected or "").split(" or ") if expected else ():
        label, value = setting.split()
        field = {"hidden": "hidden_size", "input": "input_size"}[label]
        assert recurrent_count(LayerSpec(**{"cell": Cell.LSTM, "input_size": 10,
                                         "hidden_size": 20, field: int(value)})) == old
    assert was(spec, old) == expected
