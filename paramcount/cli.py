"""The ``paramcount`` command: a lazy group of thin commands, and errors mapped to exit codes.

Exit codes: 0 ok, 1 a mismatch or budget exceeded, 2 bad input or config, 3 a backend missing.
Every error is one line on stderr; a traceback means a bug.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Sequence

import click

from paramcount import __version__
from paramcount.errors import ParamcountError, SpecError

# name -> "module:attribute"; modules load only when their command runs.
COMMANDS = {
    "rnn": "paramcount.commands.count:rnn",
    "lstm": "paramcount.commands.count:lstm",
    "gru": "paramcount.commands.count:gru",
    "convlstm": "paramcount.commands.convlstm:convlstm",
    "explain": "paramcount.commands.explain:explain",
    "compare": "paramcount.commands.compare:compare",
    "shapes": "paramcount.commands.shapes:shapes",
    "trace": "paramcount.commands.trace:trace",
    "fit": "paramcount.commands.fit:fit_command",
    "compute": "paramcount.commands.workload:compute_command",
    "memory": "paramcount.commands.workload:memory_command",
    "check": "paramcount.commands.check:check",
    "inspect": "paramcount.commands.inspect:inspect",
    "read": "paramcount.commands.read:read_command",
    "port": "paramcount.commands.port:port",
}


class LazyGroup(click.Group):
    """A group that imports a command's module only when that command is used."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        """Every command, sorted."""
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        """Import and return the command, or None if there is no such command."""
        if cmd_name not in COMMANDS:
            return None
        module_name, attribute = COMMANDS[cmd_name].split(":")
        command: click.Command = getattr(importlib.import_module(module_name), attribute)
        return command

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        """Like click's, with a "did you mean" for unknown commands."""
        name = args[0]
        if name not in COMMANDS and not name.startswith("-"):
            import difflib

            close = difflib.get_close_matches(name.lower(), COMMANDS, n=1)
            hint = f" Did you mean '{close[0]}'?" if close else ""
            raise click.UsageError(
                f"no such command {name!r}; commands: {', '.join(sorted(COMMANDS))}.{hint}",
                ctx,
            )
        return super().resolve_command(ctx, args)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="paramcount")
def cli() -> None:
    """Exact parameter counts of RNN / LSTM / GRU layers, explained tensor by tensor."""


def _error(message: str, code: int) -> int:
    """Print ``message`` as one line on stderr and return ``code``: line breaks (a file name or
    a pasted value may hold them) are shown escaped, a value quoted whole is clipped."""
    import re

    line = message.strip().replace("\r", "\\r").replace("\n", "\\n")
    line = re.sub(r"\S{121,}", lambda m: f"{m[0][:60]}… ({len(m[0]):,} characters)", line)
    click.echo(f"Error: {line}", err=True)
    return code


def run(argv: Sequence[str] | None = None) -> int:
    """Run the CLI on ``argv`` and return the exit code, turning every error into one line."""
    from paramcount.options import cli_label

    try:
        result = cli.main(args=argv, prog_name="paramcount", standalone_mode=False)
    except click.exceptions.NoArgsIsHelpError as error:
        click.echo(error.ctx.get_help() if error.ctx else error.format_message())
        return 0
    except click.NoSuchOption as error:
        from paramcount.options import not_offered

        command = error.ctx.command.name if error.ctx and error.ctx.command.name else ""
        reason = not_offered(error.option_name, command)
        if reason is None:
            hint = f" (see '{error.ctx.command_path} --help')" if error.ctx else ""
            return _error(error.format_message() + hint, 2)
        return _error(reason, 2)
    except click.BadParameter as error:
        from paramcount.options import name_option_once

        # The rule is in the message: no pointer to --help.
        return _error(name_option_once(error).format_message(), 2)
    except click.UsageError as error:
        hint = f" (see '{error.ctx.command_path} --help')" if error.ctx else ""
        return _error(error.format_message() + hint, 2)
    except click.ClickException as error:
        return _error(error.format_message(), error.exit_code)
    except click.Abort:
        return _error("aborted", 1)
    except SpecError as error:
        return _error(error.render(cli_label), error.exit_code)
    except ParamcountError as error:
        return _error(str(error), error.exit_code)
    return result if isinstance(result, int) else 0


def main() -> None:
    """Console-script entry point."""
    try:
        code = run()
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader went away (``paramcount ... | head``): not an error of ours.
        sys.stderr.close()
        code = 0
    sys.exit(code)
