"""``check(path)``: config files held to their budgets (``paramcount check``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from paramcount.api.arguments import checked
from paramcount.api.result import FileName, Result

if TYPE_CHECKING:
    from paramcount.checking.evaluate import Outcome
    from paramcount.checking.session import FileResult
    from paramcount.render.document import Document



class Checked(Result):
    """What ``paramcount check`` says of config files: each model against its budget."""

    def __init__(self, results: Sequence[FileResult], update: bool = False) -> None:
        """Wrap one result per file (``update``: the run wrote counts back)."""
        self.results = list(results)
        self.update = update

    @property
    def outcomes(self) -> list[Outcome]:
        """Every model's outcome, file after file."""
        return [o for r in self.results for o in r.outcomes]

    @property
    def failed(self) -> int:
        """How many models missed an expectation."""
        return sum(r.failed for r in self.results)

    @property
    def errors(self) -> list[str]:
        """Every error, located (``file:line:column: ...``)."""
        return [str(e) for r in self.results for e in r.errors]

    @property
    def passed(self) -> bool:
        """Whether every model met every expectation and nothing was in error."""
        return not self.failed and not self.errors

    @property
    def exit_code(self) -> int:
        """The command's exit code: 2 for an error, 1 for a missed budget, else 0."""
        return 2 if self.errors else 1 if self.failed else 0

    def to_dict(self) -> dict[str, Any]:
        """The ``paramcount.check/1`` document (with ``update``: what was written back)."""
        from paramcount.render import check as render

        data = render.data_all(self.results)
        if self.update:
            data["updated"] = [c for r in self.results if r.written for c in r.changes]
            not_updated = [c for r in self.results if not r.written for c in r.changes]
            if not_updated:
                data["not_updated"] = not_updated
        return data

    def documents(self) -> list[Document]:
        """One document: each model's line, then the summary."""
        from paramcount.render import check as render
        from paramcount.render.document import Document, Math, Section

        lines = [line for o in self.outcomes
                 for line in (render.model_line(o), *render.grew_lines(o))]
        sections = [Section("Models", (Math(tuple(lines)),))] if lines else []
        if self.errors:
            sections.append(Section("Errors", (Math(tuple(self.errors)),)))
        return [Document("paramcount check", render.summary_all(self.results),
                         tuple(sections))]


@checked
def check(*paths: FileName, verify: bool = False, update: bool = False) -> Checked:
    """Check the models of config files (TOML or JSON; none: ./pyproject.toml's
    ``[tool.paramcount]``) against their budgets; ``update`` writes counts back."""
    from paramcount.checking.session import check_file, expand
    from paramcount.errors import ConfigError

    try:
        names = expand([str(p) for p in paths])
    except ConfigError as error:
        from paramcount.checking.session import FileResult

        return Checked([FileResult(str(paths[0]) if paths else "", errors=[error])])
    return Checked([check_file(name, verify=verify, update=update) for name in names],
                   update)
