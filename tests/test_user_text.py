"""A user's text is a value, never a template, and is shown escaped and bounded everywhere.

Every option of every command (walked from the click group itself, so a new option is
covered the day it is added) and every config key is fed text that a format string would
evaluate (``{}``, ``{0}``, ``{x.__class__}``, ``%s``): each run answers or refuses in one
line, and nothing is evaluated. Digits are ASCII digits; keys and values shown in notes keep
to their line in every output format.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import click
import pytest

from paramcount.usertext import MOST_SHOWN, ascii_digits, shown_text, whole_number
from tests.conftest import CLI

TEMPLATES = ("{}", "{0}", "{x.__class__}", "%s", "{hidden_size}", "%(x)s")
"""Text that ``str.format`` or ``%`` would evaluate or choke on, were it a template."""

FIELD_TEMPLATES = ("{hidden_size.__class__}", "{0.__class__}")
"""Templates naming a field a message may fill."""

EVALUATED = ("<class", "Replacement index", "a bug in paramcount", "Traceback")


def _options() -> Iterator[tuple[str, str, list[str]]]:
    """(command, option, the arguments the command needs besides) for every option of every
    command that takes a value."""
    from paramcount.cli.commands import cli

    context = click.Context(cli)
    for name in cli.list_commands(context):
        command = cli.get_command(context, name)
        assert command is not None
        needs = ["lstm"] if any(p.name == "cell" for p in command.params) else []
        for param in command.params:
            if isinstance(param, click.Option) and not param.is_flag and not param.count:
                yield name, param.opts[0], needs


OPTIONS = sorted(_options())


def _calm(result_code: int, out: str, err: str, each: bool = False) -> None:
    """An answer (0, 1) or a one-line refusal (2, 3) where nothing of the user's text was
    evaluated (``each``: one line for each error, as ``check`` reports every one)."""
    assert result_code in (0, 1, 2, 3), err
    assert not any(word in out + err for word in EVALUATED), (out + err)[-2000:]
    if result_code == 2:
        lines = err.splitlines()
        assert lines and all(line.startswith("Error: ") for line in lines), err
        assert each or len(lines) == 1, err


@pytest.mark.parametrize(("command", "option", "needs"), OPTIONS,
                         ids=[f"{c} {o}" for c, o, _ in OPTIONS])
def test_every_option_takes_template_text_as_a_value(
        cli: CLI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: str, option: str,
        needs: list[str]) -> None:
    """Each option given ``{}``, ``{0}``, ``{x.__class__}``, ``%s`` ... answers or refuses in
    one line, never exits 70 nor evaluates the text."""
    monkeypatch.chdir(tmp_path)  # an option naming a file to write writes it here
    for text in TEMPLATES:
        result = cli(command, *needs, option, text)
        _calm(result.code, result.out, result.err)


FAMILIES = sorted({c for c, o, _ in OPTIONS if o == "--what-if"})


@pytest.mark.parametrize("family", FAMILIES)
def test_what_if_keys_and_values_are_values(cli: CLI, family: str) -> None:
    """``--what-if`` with a template as the field or as the value of a real field is refused
    in one line naming the text as typed (the issue's ``{hidden_size.__class__}`` printed
    ``<class 'str'>``)."""
    from paramcount.families.registry import options

    field = next(o.field for o in options(family) if o.kind == "int")
    for text in (*TEMPLATES, *FIELD_TEMPLATES):
        for pair in (f"{text}=1", f"{field}={text}"):
            result = cli(family, "--what-if", pair)
            _calm(result.code, result.out, result.err)
    result = cli(family, "--what-if", f"{field}={{0.__class__}}")
    assert result.code == 2 and "{0.__class__}" in result.err


@pytest.mark.parametrize("family", FAMILIES)
def test_config_json_keys_and_values_are_values(cli: CLI, tmp_path: Path, family: str) -> None:
    """A family's config.json whose every known key, and some unknown ones, hold templates
    (and whose unknown size keys are named in the answer) is read or refused in one line."""
    from paramcount.families.registry import options

    for text in (*TEMPLATES, *FIELD_TEMPLATES):
        for key in [o.field for o in options(family)]:
            path = tmp_path / "config.json"
            path.write_text(json.dumps({key: text, f"num_{text}_size": 3, text: 1}))
            result = cli(family, "--config", str(path))
            _calm(result.code, result.out, result.err)


CHECK = """[models."{key}"]
total = 100
"{key}" = "{key}"
layers = [{{ kind = "lstm", input = 2, hidden = 3, "{key}" = 1 }}, {{ kind = "{key}" }}]
"""


@pytest.mark.parametrize("text", TEMPLATES + FIELD_TEMPLATES)
def test_check_config_keys_and_values_are_values(cli: CLI, tmp_path: Path, text: str) -> None:
    """A budget config whose model name, keys and values are templates is refused in one
    line that names them as written."""
    path = tmp_path / "models.toml"
    path.write_text(CHECK.format(key=text.replace("\\", "\\\\")), encoding="utf-8")
    result = cli("check", str(path))
    _calm(result.code, result.out, result.err, each=True)
    assert text in result.err


@pytest.mark.parametrize(("text", "reading"), [
    ("42", True), ("²", False), ("٣", False), ("３", False), ("", False), ("4²", False)],
    ids=["ascii", "superscript", "arabic-indic", "fullwidth", "empty", "mixed"])
def test_digits_are_ascii_digits(text: str, reading: bool) -> None:
    """Only ASCII digits read as a number (``isdigit`` accepts ``²`` that ``int`` refuses,
    and ``int`` reads ``٣`` as 3)."""
    assert ascii_digits(text) is reading
    assert (whole_number(text) is not None) is reading


@pytest.mark.parametrize(("family", "option", "value"), [
    ("bamba", "--attn-layer-indices", "1,²"), ("bamba", "--attn-layer-indices", "1,٣"),
    ("bamba", "--attn-layer-indices", "1," + "9" * 5000),
    ("jamba", "--attn-layer-period", "²"), ("jamba", "--attn-layer-period", "٣"),
    ("lstm", "--input", "٣"), ("lstm", "--input", "²")],
    ids=["superscript-list", "arabic-list", "long-list", "superscript", "arabic", "lstm-arabic",
         "lstm-superscript"])
def test_unicode_digits_are_refused_in_one_line(cli: CLI, family: str, option: str,
                                                value: str) -> None:
    """A number written with a digit that is not ASCII is refused in one line, exit 2 (``²``
    in a layer list exited 70; ``٣`` was read as 3)."""
    args = [family, option, value] + (["--hidden", "4"] if family == "lstm" else [])
    result = cli(*args)
    assert result.code == 2, result.err
    assert result.err.count("\n") == 1 and len(result.err) < 400, result.err


@pytest.mark.parametrize(("value", "shown"), [
    ("plain", "plain"), ("a\u202eb", "a\\u202eb"), ("k\n| x |", "k\\n| x |"),
    ("\x1b[31m", "\\x1b[31m"), ("x" * (MOST_SHOWN + 1), "x" * MOST_SHOWN + "… (61 characters)"),
    (10**5000, "a number of 5,001 digits")],
    ids=["plain", "bidi", "newline", "escape", "long", "huge-int"])
def test_one_function_shows_a_users_text(value: object, shown: str) -> None:
    """``shown_text`` escapes control and bidirectional characters and cuts to a stated
    length."""
    assert shown_text(value) == shown


@pytest.mark.parametrize("fmt", ["markdown", "json", "table"])
def test_unknown_config_json_keys_stay_on_their_line(cli: CLI, tmp_path: Path, fmt: str
                                                     ) -> None:
    """An unknown size key of a config.json holding a line break and a right-to-left override
    is named escaped and cut in every output format: it injects no line (it added a table row
    to ``--markdown``) and no override reaches the terminal."""
    key = "num_\u202eevil\n| injected | row |" + "x" * 500 + "_size"
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"model_type": "jamba", "hidden_size": 64,
                                "num_hidden_layers": 2, key: 1}))
    result = cli("jamba", "--config", str(path), "--format", fmt)
    assert result.code == 0, result.err
    assert "\u202e" not in result.out
    assert not any(line.startswith("| injected") for line in result.out.splitlines())
    assert "x" * 200 not in result.out
    if fmt != "json":
        assert "\\u202e" in result.out


@pytest.mark.parametrize(("family", "key", "good", "bad"), [
    ("bamba", "attn_layer_indices", 1, "x{0}\u202e"),
    ("zamba2", "layers_block_type", "mamba", "bad\n"),
    ("lfm2", "layer_types", "conv", "%s"),
    ("lfm2", "full_attn_idxs", 1, 10**40)],
    ids=["indices", "block-types", "layer-types", "huge-index"])
def test_an_error_about_a_list_names_the_entry_and_the_length(
        cli: CLI, tmp_path: Path, family: str, key: str, good: object, bad: object) -> None:
    """A config list of 10^6 entries with one bad one is refused in one short line naming the
    entry's index and the list's length (it was an 8 MB "line" quoting the whole list)."""
    entries: list[object] = [good] * 10**6
    entries[500_000] = bad
    path = tmp_path / "config.json"
    path.write_text(json.dumps({key: entries, "num_hidden_layers": 4}))
    result = cli(family, "--config", str(path))
    assert result.code == 2
    assert result.err.count("\n") == 1 and len(result.err) < 400, result.err[:400]
    assert "entry 500,000 of 1,000,000" in result.err or f"{key}[500000]" in result.err
    assert "\u202e" not in result.err
