"""Real printers' outputs wrapped as people post them (a REPL or Jupyter transcript, a quote,
line numbers, CRLF, tabs, colour codes, HTML escapes, two back to back, a traceback after,
lines broken at 80 columns) read as the bare output is: the same models, totals and layers,
or, where the wrapping hides what the bare paste shows, a named bound (a metamorphic test
over every printer × wrapping)."""

from __future__ import annotations

import pytest

from paramcount.reading.pipeline import NothingFound, read
from paramcount.reading.wrappers import rejoined, unwrapped_lines, unwrapped_text
from tests.printers_wrapped import BARE, PRINTERS, WRAPPINGS, judge, printers, signature

NOT_UNDONE = {("parameters() shapes", "back to back"): "both named"}
"""The wrapping no reader can undo, and what the answer is instead: bare shapes printed twice
are also one model whose layers repeat (both totals named)."""

CASES = [(p, w) for p in PRINTERS for w in WRAPPINGS if not (p in BARE and w == "ANSI colour")]


@pytest.mark.parametrize(("printer", "wrapping"), CASES, ids=[f"{p}|{w}" for p, w in CASES])
def test_wrapped_printout_reads_as_bare(printer: str, wrapping: str) -> None:
    """The wrapped output's answer is the bare output's (twice, for two back to back), or,
    for the few wrappings that cannot be undone, the named bound or readings listed above."""
    made = printers()
    if printer not in made:
        pytest.skip(f"{printer}'s tool is not installed")
    bare = signature(read(made[BARE.get(printer, printer)]))
    assert bare, printer
    text = WRAPPINGS[wrapping](made[printer])
    outcome, why = judge(bare, text, 2 if wrapping == "back to back" else 1)
    assert outcome == NOT_UNDONE.get((printer, wrapping), "same"), (outcome, why, text)


NUMBERED = {
    "bar, right-aligned": (" 9 | Net(\n10 |   (fc): Linear(3, 4)\n11 | )\n",
                           ["Net(", "  (fc): Linear(3, 4)", ")"]),
    "two spaces": ("1  a\n2    b\n3  c\n", ["a", "  b", "c"]),
    "cat -n tab": ("     1\ta\n     2\t  b\n     3\tc\n", ["a", "  b", "c"]),
    "a list of two is left": ("1. first\n2. second\n", ["1. first", "2. second"]),
    "not consecutive": ("1  a\n3  b\n4  c\n", ["1  a", "3  b", "4  c"]),
    "after prose, no blank line": ("rows:\n1  a\n2  b\n3  c\n", ["rows:", "1  a", "2  b",
                                                                 "3  c"]),
    "a DataFrame's index under its header": (
        "   name  params\n0  lstm     100\n1    fc      20\n2   out       5\n",
        ["   name  params", "0  lstm     100", "1    fc      20", "2   out       5"]),
    "one line numbered whole": ("1  {'a.weight': torch.Size([2, 2])}\n",
                                ["{'a.weight': torch.Size([2, 2])}"]),
    "one line of prose": ("3 LSTM layers of 128\n", ["3 LSTM layers of 128"]),
    "IPython prompts": ("In [3]: model = Net(\n   ...:     4)\nOut[3]: Net(\n",
                        ["model = Net(", "    4)", "Net("]),
}


@pytest.mark.parametrize("case", list(NUMBERED))
def test_line_numbers_and_prompts_taken_off(case: str) -> None:
    """An editor's line numbers (a run of at least three, numbered one after another, at the
    paste's start or after a blank line, behind a gutter) and IPython's prompts are taken off;
    a numbered list, numbers out of order, a DataFrame's index and prose keep theirs."""
    text, expected = NUMBERED[case]
    assert unwrapped_lines(text.rstrip("\n").split("\n")) == expected


ESCAPED = {
    "colour": ("\x1b[1;36mlstm\x1b[0m \x1b[32m1,234\x1b[0m", "lstm 1,234"),
    "hyperlink": ("\x1b]8;;https://x.org\x1b\\link\x1b]8;;\x1b\\", "link"),
    "entities": ("&lt;tf.Variable &#x27;k:0&#x27; shape=(2, 2)&gt; &amp;", "<tf.Variable 'k:0' "
                 "shape=(2, 2)> &"),
    "a bare ampersand": ("a & b &c", "a & b &c"),
}


@pytest.mark.parametrize("case", list(ESCAPED))
def test_escapes_and_entities_taken_off(case: str) -> None:
    """A terminal's escape codes are dropped and HTML character references read as their
    characters; text with neither is left as it is."""
    text, expected = ESCAPED[case]
    assert unwrapped_text(text) == expected


_DICT = ("{'a.weight': torch.Size([24, 6]), 'b.weight': torch.Size([2]), 'c.bias': "
         "torch.Size([3]), 'd.bias': torch.Size([4]), 'e.bias': torch.Size([5])}")
BROKEN = {
    "a rule cut at 40": (["+" + "-" * 39, "-----+", "| a" + " " * 37, "  |"],
                         ["+" + "-" * 44 + "+", "| a" + " " * 39 + "|"]),
    "two whole rules back to back": (["-" * 50, "-" * 50, "x"], ["-" * 50, "-" * 50, "x"]),
    "no rule": (["x" * 50, "yy"], ["x" * 50, "yy"]),
    "a longer line than the rule": (["=" * 45, "==", "z" * 60], ["=" * 45, "==", "z" * 60]),
    "a dict cut once": (["{'a.weight': torch.Size([24, 6]), 'b.weight': t", "orch.Size([2])}"],
                         ["{'a.weight': torch.Size([24, 6]), 'b.weight': torch.Size([2])}"]),
    "a dict cut three times": ([_DICT[:45], _DICT[45:90], _DICT[90:135], _DICT[135:]],
                               [_DICT]),
    "code going on after a comma": (
        ["self.lstm = nn.LSTM(input_size=embedding_dim, hidden_size=hidden,",
         "                    num_layers=2)"],
        ["self.lstm = nn.LSTM(input_size=embedding_dim, hidden_size=hidden,",
         "                    num_layers=2)"]),
    "a bracket the shorter line does not close": (
        ["model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8,", "2), nn.ReLU(),"],
        ["model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8,", "2), nn.ReLU(),"]),
}


@pytest.mark.parametrize("case", list(BROKEN))
def test_lines_broken_at_a_terminals_width_are_joined(case: str) -> None:
    """Lines are joined only where a table's rule shows the width a terminal broke them at (a
    rule of the widest lines' length carried on at the start of a shorter line), or where
    lines of the widest length leave a bracket open that the shorter line after them closes
    (but for one line that goes on on an indented line, as code and pprint go on)."""
    lines, expected = BROKEN[case]
    found, note = rejoined(lines)
    assert found == expected
    assert bool(note) == (found != lines)


def test_breaks_joined_are_bounded() -> None:
    """A hostile paste of a cut rule over 100,000 lines as wide as it joins at most 2,001
    lines into one (the rest left as they are), and reading it still ends."""
    lines = ["+" + "-" * 49, "---+", *(["x" * 50] * 100_000), "y"]
    found, note = rejoined(lines)
    assert note and max(len(line) for line in found) <= 2_001 * 50
    assert "".join(found) == "".join(lines)
    with pytest.raises(NothingFound):  # nothing countable in it, said as one line
        read("\n".join(lines) + "\n")
