"""Printed tables paired with the code that made them by structure, never by position.

Two models whose layers are of the same classes, their code first, then their torchinfo
tables printed at test time from the real modules: every table is paired with its own model
(in whichever order the tables come), an altered count is found against the right model, and
a table that fits both models alike is compared with neither, with a note saying so.
"""

from __future__ import annotations

import contextlib
import io
import textwrap
from typing import Any

import pytest

from paramcount.reading.found import Model
from paramcount.reading.pairing import pair
from paramcount.reading.pipeline import Answer, read
from tests.conftest import have

pytestmark = [pytest.mark.torch,
              pytest.mark.skipif(not (have("torch") and have("torchinfo")),
                                 reason="needs torch and torchinfo")]

CODE = textwrap.dedent("""
    import torch.nn as nn

    class BiTagger(nn.Module):
        def __init__(self):
            super().__init__()
            self.lstm = nn.LSTM(32, 128, num_layers=2, bidirectional=True)
            self.head = nn.Linear(256, 5)

    class Tagger(nn.Module):
        def __init__(self):
            super().__init__()
            self.lstm = nn.LSTM(32, 128, num_layers=2)
            self.head = nn.Linear(128, 5)
    """)


def built(name: str, code: str = CODE) -> Any:
    """The real module the trusted code defines."""
    namespace: dict[str, Any] = {}
    exec(code, namespace)
    return namespace[name]()


def table(module: Any, **options: Any) -> str:
    """What ``print(torchinfo.summary(module, ...))`` prints."""
    import torchinfo

    with contextlib.redirect_stdout(io.StringIO()):
        return f"{torchinfo.summary(module, **options)}\n"


def total(module: Any) -> int:
    """The real module's parameter count."""
    return sum(p.numel() for p in module.parameters())


def printed_models(answer: Answer) -> list[Model]:
    """The models the answer read from tables."""
    return [m for m in answer.models if m.source == "torchinfo"]


@pytest.mark.parametrize("order", [("BiTagger", "Tagger"), ("Tagger", "BiTagger")],
                         ids=["in-order", "reversed"])
@pytest.mark.parametrize("var_names", [False, True], ids=["types", "var-names"])
def test_each_table_is_paired_with_its_own_model(order: tuple[str, str], var_names: bool
                                                 ) -> None:
    """Every printed count is true, so nothing is flagged, and each table is paired with the
    model whose code made it."""
    options = {"row_settings": ("var_names",)} if var_names else {}
    paste = CODE + "".join("\n" + table(built(name), **options) for name in order)
    answer = read(paste)
    assert not answer.disagreements
    assert not [note for note in answer.notes if "compared with none" in note]
    code = [m for m in answer.models if m.source == "code"]
    for shown, name in zip(printed_models(answer), order, strict=True):
        match, doubt = pair(shown, code)
        assert doubt is None and match is not None and match.name == name
        assert shown.printed_total == match.total == total(built(name))


def test_an_altered_count_is_found_against_the_right_model() -> None:
    """One count changed in the second table: flagged with the count of the model that table
    shows (the unidirectional one), not the first model's."""
    tagger = built("Tagger")
    lstm = total(tagger.lstm)
    second = table(tagger).replace(f"{lstm:,}", f"{lstm + 1:,}", 1)
    answer = read(CODE + "\n" + table(built("BiTagger")) + "\n" + second)
    [disagreement] = answer.disagreements
    assert (disagreement.printed, disagreement.computed) == (lstm + 1, lstm)


def test_a_table_that_fits_two_models_alike_is_compared_with_neither() -> None:
    """A table printed from a third configuration, of the same classes as both models in the
    code: no pairing is certain, nothing is flagged, and a note says why."""
    other = built("Other", "import torch.nn as nn\nclass Other(nn.Module):\n"
                           "    def __init__(self):\n        super().__init__()\n"
                           "        self.lstm = nn.LSTM(16, 64)\n"
                           "        self.head = nn.Linear(64, 3)\n")
    answer = read(CODE + "\n" + table(other))
    assert not answer.disagreements
    [note] = [note for note in answer.notes if "compared with none" in note]
    assert "BiTagger (line 4), Tagger (line 10)" in note
