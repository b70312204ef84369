"""One command per family: ``paramcount xlstm`` counts both xLSTM layouts and ``paramcount mingru``
the layer and minLM, ``--impl`` choosing (or the config file, or the options given); the old
names ``xlstm-lm`` and ``minlm`` still work but are not listed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from paramcount.cli import quick
from paramcount.cli.main import _run_click
from paramcount.families import command
from paramcount.families.registry import FAMILIES
from tests.conftest import CLI
from tests.hybrid_strategies import needed_flags
from tests.test_quick import _run

STACK = ["--vocab", "50", "--embedding-dim", "32", "-L", "3", "--slstm-at", "1",
         "--slstm-backend", "vanilla"]
MINLM = ["--vocab", "40", "--dim", "16", "-L", "2", "--use-lstm", "--enable-conv"]

SAME = {
    "xlstm-impl": (["xlstm", "--impl", "xlstm", *STACK], ["xlstm-lm", *STACK]),
    "xlstm-impl-json": (["xlstm", "--impl=xlstm", *STACK, "--json"], ["xlstm-lm", *STACK,
                                                                       "--json"]),
    "xlstm-by-options": (["xlstm", *STACK], ["xlstm-lm", *STACK]),
    "xlstm-transformers": (["xlstm", "--impl", "transformers", "--hidden", "64", "-L", "2",
                            "--heads", "2"], ["xlstm", "--hidden", "64", "-L", "2", "--heads",
                                              "2"]),
    "mingru-lm": (["mingru", "--impl", "lm", *MINLM, "--markdown"], ["minlm", *MINLM,
                                                                     "--markdown"]),
    "mingru-by-options": (["mingru", *MINLM], ["minlm", *MINLM]),
    "mingru-layer": (["mingru", "--impl", "layer", "--dim", "96"], ["mingru", "--dim", "96"]),
}


@pytest.mark.parametrize(("args", "alias"), list(SAME.values()), ids=list(SAME))
def test_one_command_counts_each_implementation(args: list[str], alias: list[str]) -> None:
    """The command with ``--impl`` (or options only one implementation has) prints what the old
    command prints, on the quick path and through click alike."""
    quick_answer = _run(quick.answer, args)
    assert quick_answer[0] == 0, quick_answer
    assert quick_answer == _run(_run_click, args) == _run(_run_click, alias)


def test_help_lists_one_command_per_family(cli: CLI) -> None:
    """``paramcount --help`` lists xlstm and mingru, not the old names; those still run."""
    listed = cli("--help").out.split("Commands:")[1].split()
    assert {"xlstm", "mingru"} <= set(listed)
    assert not {"xlstm-lm", "minlm"} & set(listed)
    assert cli("xlstm-lm", *STACK).code == 0
    assert cli("minlm", *MINLM).code == 0
    assert "xlstm-lm" not in cli("no-such-command").err


def test_help_of_an_implementation_lists_its_options(cli: CLI) -> None:
    """``xlstm --help`` names --impl and lists transformers' options; ``--impl xlstm --help``
    the package's."""
    default = cli("xlstm", "--help").out
    package = cli("xlstm", "--impl", "xlstm", "--help").out
    assert "--impl [transformers|xlstm]" in default and "--impl [transformers|xlstm]" in package
    assert "--qk-dim-factor" in default and "--slstm-at" not in default
    assert "--slstm-at" in package and "--qk-dim-factor" not in package


@pytest.fixture
def configs(tmp_path: Path) -> dict[str, Path]:
    """Config files of each implementation: the xlstm package's nested model section, minLM's
    and minGRU's keyword arguments."""
    files = {
        "stack": {"model": {"num_blocks": 2, "embedding_dim": 64, "vocab_size": 3,
                            "slstm_at": [1], "context_length": 256,
                            "mlstm_block": {"mlstm": {"num_heads": 1}},
                            "slstm_block": {"slstm": {"num_heads": 1}}}},
        "minlm": {"num_tokens": 40, "dim": 16, "depth": 2},
        "mingru": {"dim": 16, "expansion_factor": 1.5},
    }
    for name, data in files.items():
        (tmp_path / f"{name}.json").write_text(json.dumps(data))
    return {name: tmp_path / f"{name}.json" for name in files}


@pytest.mark.parametrize(("name", "words", "alias"), [
    ("stack", ["xlstm"], ["xlstm-lm"]),
    ("minlm", ["mingru"], ["minlm"]),
    ("mingru", ["mingru"], ["mingru", "--impl", "layer"]),
], ids=["xlstm-package", "minlm", "mingru-layer"])
def test_the_config_file_says_which_implementation(configs: dict[str, Path], name: str,
                                                   words: list[str], alias: list[str]) -> None:
    """``--config`` alone chooses the implementation its file describes."""
    args = [*words, "--config", str(configs[name]), "--json"]
    code, out, err = _run(quick.answer, args)
    assert (code, err) == (0, "")
    assert (code, out, err) == _run(_run_click, [*alias, "--config", str(configs[name]),
                                                 "--json"])


def test_transformers_config_is_transformers(cli: CLI) -> None:
    """The xLSTM 7B config.json (transformers' ``model_type: xlstm``) is counted in
    transformers' layout, and ``--impl xlstm`` beside it is refused in one line."""
    path = "examples/hf/xlstm-7b/config.json"
    assert json.loads(cli("xlstm", "--config", path, "--json").out)["total"] == 6_865_424_896
    refused = cli("xlstm", "--impl", "xlstm", "--config", path)
    assert refused.code == 2 and refused.err.count("\n") == 1
    assert f"paramcount xlstm --config {path}" in refused.err


def test_transformers_own_config_is_recognised(tmp_path: Path) -> None:
    """A config transformers itself writes is recognised as transformers' layout."""
    transformers = pytest.importorskip("transformers")
    data = transformers.xLSTMConfig(hidden_size=64, embedding_dim=64, num_heads=2,
                                    num_blocks=2).to_dict()
    assert command.from_config("xlstm", data) == "xlstm"


def test_a_wrong_impl_is_one_line(cli: CLI) -> None:
    """An ``--impl`` that is not a choice is click's one-line error, exit 2."""
    args = ["mingru", "--impl", "gru", "--dim", "8"]
    assert _run(quick.answer, args) == (None, "", "")
    result = cli(*args)
    assert result.code == 2 and result.err.count("\n") == 1
    assert "'gru' is not one of 'layer', 'lm'" in result.err


@pytest.mark.parametrize("family", list(FAMILIES))
def test_each_family_is_spelled_by_a_listed_command(family: str) -> None:
    """The words paramcount writes for a family (as inspect's command) name a listed command,
    and that command line chooses the family again."""
    words = command.command_words(family)
    assert words[0] in command.commands()
    assert command.chosen(words[0], words[1:]) == family


@pytest.mark.parametrize("name", list(FAMILIES))
def test_family_help_says_what_it_counts_in_one_parenthesis(name: str) -> None:
    """Each family command's help (the hidden names' too) opens with what it counts, its title
    and reference written without two parentheses side by side or one inside another."""
    from paramcount.cli.commands.family import make_command

    text = make_command(name).help or ""
    assert text.startswith("Parameters of ")
    assert ") (" not in text, text
    depth = 0
    for character in text:
        depth += {"(": 1, ")": -1}.get(character, 0)
        assert 0 <= depth <= 1, text
    assert depth == 0, text


def test_compare_takes_an_implementation(cli: CLI) -> None:
    """compare reads ``--impl`` inside a quoted configuration."""
    result = cli("compare", "xlstm --impl xlstm " + " ".join(STACK),
                 "xlstm-lm " + " ".join(STACK).replace("32", "64"), "--json")
    assert result.code == 0, result.err


IMPLEMENTATIONS = [(name, family) for name in command.commands()
                   for family in command.VARIANTS.get(name, {"": name}).values()]


@pytest.mark.parametrize(("name", "family"), IMPLEMENTATIONS,
                         ids=[f"{n}:{f}" for n, f in IMPLEMENTATIONS])
def test_quick_path_reads_only_what_click_offers(name: str, family: str) -> None:
    """Every name the quick path reads for a family command (each implementation) is an option
    of the click command that implementation gets, taking a value exactly when click's does;
    what it leaves to click is help, --explain, --what-if, --context with --batch and --via."""
    import click

    from paramcount.cli.commands.family import make_command

    counted = make_command(name, family)
    options = {n: p for p in counted.params if isinstance(p, click.Option)
               for n in (*p.opts, *p.secondary_opts)}
    valued, switches = quick.family_options(name, family)
    assert valued.keys() | switches.keys() <= options.keys()
    assert [n for n in valued if options[n].is_flag] == []
    assert [n for n in switches if not options[n].is_flag] == []
    assert options.keys() - valued.keys() - switches.keys() <= {
        "--explain", "--what-if", "--context", "--batch", "--via", "--help", "-h"}


@pytest.mark.parametrize(("args", "says"), [
    (["xlstm", "--impl", "transformers", "--config", "{stack}"],
     "(count it with 'paramcount xlstm --impl xlstm --config {stack}')"),
    (["xlstm-lm", "--config", "examples/hf/xlstm-7b/config.json"],
     "(count it with 'paramcount xlstm --config examples/hf/xlstm-7b/config.json')"),
    (["minlm", "--config", "{mingru}"], "(count it with 'paramcount mingru --config {mingru}')"),
    (["mingru", "--impl", "layer", "--config", "{minlm}"],
     "(count it with 'paramcount mingru --impl lm --config {minlm}')"),
], ids=["transformers-on-package-file", "alias-on-transformers-file", "minlm-on-layer-file",
        "layer-on-minlm-file"])
def test_an_implementation_refuses_anothers_config(cli: CLI, configs: dict[str, Path],
                                                   args: list[str], says: str) -> None:
    """A config file of the other implementation is refused in one line that gives the command
    counting it, on both paths, never counted with defaults standing in."""
    args = [a.format(**configs) for a in args]
    assert _run(quick.answer, args) == (None, "", "")
    result = cli(*args)
    assert (result.code, result.out, result.err.count("\n")) == (2, "", 1)
    assert says.format(**configs) in result.err
    again = cli(*says.format(**configs).split("'")[1].split()[1:])
    assert again.code == 0, again.err


def test_a_file_with_both_implementations_keys_says_nothing() -> None:
    """A config holding keys of both minGRU and minLM chooses neither (the default counts)."""
    assert command.from_config("mingru", {"dim": 8, "depth": 2, "expansion_factor": 1.5}) is None


@pytest.mark.parametrize(("name", "family"), IMPLEMENTATIONS,
                         ids=[f"{n}:{f}" for n, f in IMPLEMENTATIONS])
def test_the_what_if_example_in_help_runs(cli: CLI, name: str, family: str) -> None:
    """The ``--what-if`` setting each command's help shows is one of its own fields: run as
    shown (with what the defaults lack for a model), it answers with that change first."""
    from paramcount.cli.commands.family import what_if_example

    impl = [i for i, f in command.VARIANTS.get(name, {}).items() if f == family]
    args = [name, *(["--impl", impl[0]] if impl else []), *needed_flags(family)]
    example = what_if_example(family)
    assert f"--what-if {example}" in " ".join(cli(*args, "--help").out.split())
    result = cli(*args, "--what-if", example)
    assert result.code == 0, result.err
    assert result.out.splitlines()[3].startswith(example.split("=")[0] + " ")
