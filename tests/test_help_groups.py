"""``paramcount -h`` lists the commands by job (issue 38): the classic cells first, then
explaining and comparing, the families, reading and inspecting, checking in CI, porting; each
listed command once, under its heading."""

from __future__ import annotations

import re

from paramcount.cli.commands import GROUPS, LISTED
from tests.conftest import CLI

HEADINGS = ["Count a layer", "Explain and compare", "The modern families (hybrids last)",
            "Read and inspect", "Check in CI", "Port weights", "The page"]


def listed_by_heading(help_text: str) -> dict[str, list[str]]:
    """Each heading of the help's Commands section with the commands under it, in order."""
    section = help_text.split("Commands:\n", 1)[1]
    found: dict[str, list[str]] = {}
    heading = ""
    for line in section.splitlines():
        if match := re.fullmatch(r"  (\S.*):", line):
            heading = match[1]
            found[heading] = []
        elif match := re.match(r"    (\S+)  ", line):
            found[heading].append(match[1])
    return found


def test_help_groups_the_commands_by_job(cli: CLI) -> None:
    """The headings come in the order of the jobs, rnn, lstm and gru lead, and every listed
    command appears exactly once, under the heading GROUPS gives it."""
    result = cli("-h")
    assert result.code == 0, result.err
    found = listed_by_heading(result.out)
    assert list(found) == HEADINGS
    assert found["Count a layer"][:3] == ["rnn", "lstm", "gru"]
    shown = [name for names in found.values() for name in names]
    assert sorted(shown) == sorted(LISTED)
    assert found == {title: names for title, names in GROUPS}
    assert found["The modern families (hybrids last)"][0] == "mamba"


def test_command_reference_is_grouped_as_the_help() -> None:
    """docs/commands.md's "Commands at a glance" names, under each of the help's headings,
    exactly the commands the help lists there."""
    from pathlib import Path

    text = (Path(__file__).resolve().parent.parent / "docs" / "commands.md").read_text()
    glance = text.split("## Commands at a glance\n", 1)[1].split("\nOutput formats:", 1)[0]
    found: dict[str, list[str]] = {}
    for part in glance.split("\n### ")[1:]:
        title, _, body = part.partition("\n")
        found[title] = [name for cell in re.findall(r"^\| `paramcount ([^`]+)`", body, re.M)
                        for name in cell.split("\\|")]
    assert {title: sorted(names) for title, names in found.items()} == {
        title: sorted(names) for title, names in GROUPS}
