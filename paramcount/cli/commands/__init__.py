"""The click group of every command, with one module per command, each loaded lazily.

:func:`paramcount.cli.main.run` comes here for every command line that the quick path
(:mod:`paramcount.cli.quick`) leaves to click.
"""

from __future__ import annotations

import importlib

import click

from paramcount._version import __version__
from paramcount.families.command import HIDDEN
from paramcount.families.registry import FAMILIES

# name -> "module:attribute"; modules load only when their command runs.
COMMANDS = {
    "rnn": "paramcount.cli.commands.count:rnn",
    "lstm": "paramcount.cli.commands.count:lstm",
    "gru": "paramcount.cli.commands.count:gru",
    "convlstm": "paramcount.cli.commands.convlstm:convlstm",
    "explain": "paramcount.cli.commands.explain:explain",
    "compare": "paramcount.cli.commands.compare:compare",
    "shapes": "paramcount.cli.commands.shapes:shapes",
    "trace": "paramcount.cli.commands.trace:trace",
    "fit": "paramcount.cli.commands.fit:fit_command",
    "compute": "paramcount.cli.commands.workload:compute_command",
    "memory": "paramcount.cli.commands.workload:memory_command",
    "check": "paramcount.cli.commands.check:check",
    "inspect": "paramcount.cli.commands.inspect:inspect",
    "read": "paramcount.cli.commands.read:read_command",
    "port": "paramcount.cli.commands.port:port",
    "serve": "paramcount.cli.commands.serve:serve",
    "web": "paramcount.cli.commands.serve:web",
    **{name: f"paramcount.cli.commands.family:{name}" for name in FAMILIES},
}

LISTED = [name for name in COMMANDS if name not in HIDDEN]
"""The commands ``--help`` lists: all but the old names kept as aliases (``xlstm-lm``)."""

_RECURRENT_FAMILIES = ("mamba", "mamba2", "rwkv", "xlstm", "rglru", "mingru")

GROUPS: list[tuple[str, list[str]]] = [
    ("Count a layer", ["rnn", "lstm", "gru", "convlstm"]),
    ("Explain and compare", ["explain", "compare", "fit", "compute", "memory", "shapes",
                             "trace"]),
    ("The modern families (hybrids last)",
     sorted((name for name in FAMILIES if name not in HIDDEN),
            key=lambda name: (name not in _RECURRENT_FAMILIES, name))),
    ("Read and inspect", ["read", "inspect"]),
    ("Check in CI", ["check"]),
    ("Port weights", ["port"]),
    ("The page", ["serve", "web"]),
]
"""How ``--help`` lists the commands: by job, the classic cells first; a command no group
names is listed under "Other"."""


def grouped(listed: list[str]) -> list[tuple[str, list[str]]]:
    """``listed`` in :data:`GROUPS`' order and headings, any command left over under Other."""
    placed = {name for _, names in GROUPS for name in names}
    groups = [(title, [n for n in names if n in listed]) for title, names in GROUPS]
    rest = [name for name in listed if name not in placed]
    return [(title, names) for title, names in (*groups, ("Other", rest)) if names]


class Interrupted(Exception):
    """Ctrl-C while a command ran, carried past click (which would print a blank line first)
    to the one line paramcount says for it."""


class LazyGroup(click.Group):
    """A group that imports a command's module only when that command is used."""

    def invoke(self, ctx: click.Context) -> object:
        """Run the command; Ctrl-C goes past click as :class:`Interrupted`."""
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            raise Interrupted from None

    freeze = False
    """Whether to ``gc.freeze()`` once the command's module is loaded (see
    :func:`paramcount.cli.main.run`)."""
    arguments: list[str] = []  # noqa: RUF012
    """The command line being run (``port --model`` hands it to its fenced child)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        """Every command but the hidden old names, sorted."""
        return sorted(LISTED)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The commands under one heading per job (:data:`GROUPS`), each with its short
        help, rather than click's one alphabetical run."""
        listed = self.list_commands(ctx)
        width = max(map(len, listed))
        limit = formatter.width - 8 - width
        with formatter.section("Commands"):
            for title, names in grouped(listed):
                rows = []
                for name in names:
                    command = self.get_command(ctx, name)
                    if command is not None and not command.hidden:  # aligned across groups
                        rows.append((name.ljust(width), command.get_short_help_str(limit)))
                with formatter.section(title):
                    formatter.write_dl(rows)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        """Import and return the command, or None if there is no such command."""
        if cmd_name not in COMMANDS:
            return None
        module_name, attribute = COMMANDS[cmd_name].split(":")
        command: click.Command = getattr(importlib.import_module(module_name), attribute)
        if self.freeze:
            import gc

            gc.freeze()
        return command

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        """Like click's, with a "did you mean" for unknown commands."""
        name = args[0]
        if name not in COMMANDS and not name.startswith("-"):
            import difflib

            close = difflib.get_close_matches(name.lower(), LISTED, n=1)
            listed = (f"Did you mean '{close[0]}'?" if close  # the list is long: the guess alone
                      else f"commands: {', '.join(sorted(LISTED))}.")
            raise click.UsageError(f"no such command {name[:40]!r}; {listed}", ctx)
        return super().resolve_command(ctx, args)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="paramcount")
def cli() -> None:
    """Exact parameter counts of RNN / LSTM / GRU layers, explained tensor by tensor."""
