"""The ``paramcount`` command: the quick path or click, and every error mapped to an exit code.

The count commands' everyday command lines are answered by :mod:`paramcount.cli.quick` without
loading click; everything else goes to the click group in :mod:`paramcount.cli.commands`.
Exit codes: 0 ok, 1 a mismatch or budget exceeded, 2 bad input or config (or an answer that
cannot be written: a full disk, a closed stdout), 3 a backend missing, 130 aborted (Ctrl-C, at
any moment), 70 (``EX_SOFTWARE``) a bug in paramcount. Every error is one line on stderr; the
traceback of a bug goes to a file in the temporary directory, which that line names.
"""

from __future__ import annotations

import contextlib
import errno
import io
import sys
from collections.abc import Sequence

from paramcount.errors import ParamcountError, SpecError, printable


def _error(message: str, code: int) -> int:
    """Print ``message`` as one line on stderr and return ``code``: line breaks and other
    unprintable characters (a file name, a tensor name or a pasted value may hold them) are
    shown escaped, a value quoted whole is clipped."""
    import re

    import click

    line = printable(message.strip())  # line breaks, controls, bidirectional overrides
    line = re.sub(r"\S{121,}", lambda m: f"{m[0][:60]}… ({len(m[0]):,} characters)", line)
    click.echo(f"Error: {line}", err=True)
    return code


def run(argv: Sequence[str] | None = None, freeze: bool = False) -> int:
    """Run the CLI on ``argv`` (default: the process's arguments) and return the exit code,
    turning every error into one line.

    ``freeze`` (the console process): once the command's modules are loaded, move every object
    there is into the garbage collector's permanent generation (``gc.freeze``), so that its
    full passes, which come more often as a deep stack's tensors pile up, do not walk the
    modules' objects again each time: time stays linear in the layers
    (``benchmarks/depth_speed.py``)."""
    from paramcount.cli.quick import answer

    args = list(sys.argv[1:] if argv is None else argv)
    from paramcount.families.registry import FAMILIES

    if args[:1] == ["explain"] and args[1:2] and args[1] in FAMILIES:
        args = [args[1], *args[2:], "--explain"]  # explaining a family is its command's --explain
    try:
        code = answer(args, freeze)
    except ParamcountError as error:  # read's quick path: a paste it cannot answer
        return _refused(error)
    return _run_click(args, freeze) if code is None else code


def _refused(error: ParamcountError) -> int:
    """Show an error of paramcount's own as one line and return its exit code (a spec's in
    the command line's words)."""
    if isinstance(error, SpecError):
        from paramcount.engine.flags import cli_label

        return _error(error.render(cli_label), error.exit_code)
    return _error(str(error), error.exit_code)


def _run_click(args: list[str], freeze: bool = False) -> int:
    """Run the click group on ``args``, every error shown as one line."""
    import click

    from paramcount import quiet
    from paramcount.cli.commands import Interrupted, cli

    quiet.install()  # whichever command imports TensorFlow or Keras, or a factory does
    cli.freeze = freeze
    cli.arguments = list(args)
    streams = sys.stdout, sys.stderr
    try:
        result = cli.main(args=args, prog_name="paramcount", standalone_mode=False)
    except SystemExit:
        if sys.stdout is not streams[0]:
            # click's own answer to a broken pipe: wrap both streams and exit 1 in silence.
            # paramcount's is main()'s: one line, exit 2.
            sys.stdout, sys.stderr = streams
            raise BrokenPipeError(errno.EPIPE, "Broken pipe") from None
        raise
    except click.exceptions.NoArgsIsHelpError as error:
        click.echo(error.ctx.get_help() if error.ctx else error.format_message())
        return 0
    except click.NoSuchOption as error:
        from paramcount.cli.options import not_offered

        command = error.ctx.command.name if error.ctx and error.ctx.command.name else ""
        reason = not_offered(error.option_name, command)
        if reason is None:
            hint = f" (see '{error.ctx.command_path} --help')" if error.ctx else ""
            return _error(error.format_message() + hint, 2)
        return _error(reason, 2)
    except click.BadParameter as error:
        from paramcount.cli.options import name_option_once

        # The rule is in the message: no pointer to --help.
        text = name_option_once(error).format_message()
        if isinstance(error, click.MissingParameter):
            # click lays the choices out on lines of their own ("Choose from:\n\trnn,\n\tlstm");
            # the message holds no value of the user's, so its line breaks are click's own.
            text = text.replace("\n\t", " ")
        return _error(text, 2)
    except click.UsageError as error:
        hint = f" (see '{error.ctx.command_path} --help')" if error.ctx else ""
        return _error(error.format_message() + hint, 2)
    except click.ClickException as error:
        return _error(error.format_message(), error.exit_code)
    except (click.Abort, Interrupted):  # Ctrl-C
        return _error("aborted", ABORTED)
    except ParamcountError as error:
        return _refused(error)
    return result if isinstance(result, int) else 0


ABORTED = 130
"""The exit code of a run stopped by Ctrl-C (128 + SIGINT), whatever it was doing."""

_INTERRUPTED: list[int] = []
"""The interrupts this process received (a library that catches KeyboardInterrupt and raises
something else, as a half-done numpy import does with RecursionError, still means Ctrl-C)."""


def _interrupt(signum: int, frame: object) -> None:
    _INTERRUPTED.append(signum)
    raise KeyboardInterrupt


def trap_interrupts() -> None:
    """Note every Ctrl-C from now on before raising KeyboardInterrupt as Python does (main
    thread only: elsewhere ``signal.signal`` refuses, and Python's own handling stays; asking
    ``threading`` first would load it, a millisecond of every command's start)."""
    import signal

    with contextlib.suppress(ValueError):  # "signal only works in main thread"
        signal.signal(signal.SIGINT, _interrupt)


def aborted() -> int:
    """Say ``aborted`` in one line (further Ctrl-C ignored while saying it) and return
    :data:`ABORTED`; whatever was being written was removed on the way out."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    with contextlib.suppress(Exception):
        sys.stderr.write("Error: aborted\n")
        sys.stderr.flush()
    return ABORTED


class _ClosedStdout(io.TextIOBase):
    """Standard output when the process was started without one (``>&-``): every write is
    the OSError of a closed descriptor, shown as one line, exit 2."""

    def write(self, text: str) -> int:
        raise OSError(errno.EBADF, "standard output is closed")

    def isatty(self) -> bool:
        return False


def main() -> None:
    """Console-script entry point."""
    try:
        trap_interrupts()
        if sys.stdout is None:
            sys.stdout = _ClosedStdout()
        code = run(freeze=True)
        sys.stdout.flush()
    except KeyboardInterrupt:
        code = aborted()
    except OSError as error:
        # The answer could not be written whole (a full disk, a closed stdout, a reader that
        # went away: ``paramcount ... | head``): one line, exit 2, so that a pipeline with
        # ``pipefail`` never takes a cut answer for a whole one. Commands turn the errors of
        # files they read or write into messages of their own.
        from paramcount.cli.output import discard_stdout

        discard_stdout()
        where = f"{error.filename}: " if error.filename else "cannot write the output: "
        reason = error.strerror or str(error)
        if isinstance(error, BrokenPipeError):
            reason = "its reader closed the pipe (broken pipe); the answer was cut"
        code = 2
        with contextlib.suppress(OSError, ValueError):  # stderr may be the same pipe
            code = _error(where + reason, 2)
    except Exception as error:
        code = aborted() if _INTERRUPTED else crashed(error)
    _settled()
    sys.exit(code)


def _settled() -> None:
    """Ignore Ctrl-C once the exit code is settled: the interpreter's shutdown would otherwise
    die of it, the answer given."""
    import signal

    with contextlib.suppress(KeyboardInterrupt, ValueError):
        signal.signal(signal.SIGINT, signal.SIG_IGN)


BUG = 70
"""The exit code of a bug in paramcount: ``EX_SOFTWARE``, which no answer uses."""


def crashed(error: Exception) -> int:
    """Write ``error``'s traceback to a file in the temporary directory, say in one line that
    it is a bug and where the traceback is, and return :data:`BUG`."""
    import tempfile
    import traceback

    what = f"{type(error).__name__}: {error}".splitlines()[0][:160]
    try:
        handle, path = tempfile.mkstemp(prefix="paramcount-bug-", suffix=".txt", text=True)
        with open(handle, "w", encoding="utf-8", errors="backslashreplace") as file:
            file.write("".join(traceback.format_exception(error)))
    except OSError as failure:
        where = f"its traceback could not be written ({failure.strerror or failure})"
    else:
        where = f"the traceback is in {path}"
    return _error(f"a bug in paramcount ({what}); {where}; please report it", BUG)
