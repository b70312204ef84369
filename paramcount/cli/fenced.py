"""``port --model`` behind the factories' fence: the whole port runs in a fenced child.

A target (``--model``) or source (``--source-model``) factory is the user's code, and the
model it returns is used all through the port (matched, written, run by ``--verify``), so the
port itself runs in ``python -m paramcount.cli.fenced``, the child of
:func:`paramcount.factories.fence.run_fenced`: what the user's code prints goes to stderr, each
factory call is stopped after ``--factory-timeout`` seconds, an exit or a signal is one
exit-2 line, and nothing it starts outlives the port. The child's answer is port's own output
and exit code, which the parent prints and returns.
"""

from __future__ import annotations

import io
import os
import sys
from typing import Any

INSIDE = False
"""Whether this process is the fenced child (where port calls factories itself)."""

_CHILD = "PARAMCOUNT_FENCED_PORT"
"""Set in the fenced child's environment: a second fence is never started from inside one."""


def inside() -> bool:
    """Whether this process runs the port behind the fence already."""
    return INSIDE or os.environ.get(_CHILD) == "1"


def port_behind_fence(arguments: list[str], timeout: float, what: str) -> int:
    """Run ``paramcount ARGUMENTS`` (a port with a factory) in the fenced child; print its
    answer and return its exit code (FactoryError when it gives none)."""
    from paramcount.cli.output import echo, on_terminal
    from paramcount.factories.fence import run_fenced

    env = {**os.environ, _CHILD: "1"}
    if on_terminal():  # the child draws for our terminal, not for its answer file
        import shutil

        env["TTY_COMPATIBLE"] = "1"
        env["COLUMNS"] = str(shutil.get_terminal_size().columns)
    answer = run_fenced("paramcount.cli.fenced", {"arguments": arguments, "limit": timeout},
                        None, what, env)
    if not isinstance(answer, dict) or not isinstance(answer.get("code"), int):
        from paramcount.factories.factory import FactoryError

        message = answer.get("error") if isinstance(answer, dict) else None
        raise FactoryError(str(message or f"{what}(...) left an unreadable answer"))
    echo(str(answer.get("stdout", "")))
    return int(answer["code"])


def _port(request: dict[str, Any]) -> dict[str, Any]:
    """The child's work: run the command line, its answer kept apart from what is printed."""
    global INSIDE
    INSIDE = True
    from paramcount.cli.main import crashed, run
    from paramcount.cli.output import answering_to

    with answering_to(io.StringIO()) as answer:
        try:
            code = run(list(request["arguments"]))
        except Exception as error:
            code = crashed(error)
        sys.stderr.flush()
        return {"code": code, "stdout": answer.getvalue()}


def main() -> None:
    """The fenced child's entry point (run as ``__main__``: the work is the package module's,
    whose :data:`INSIDE` the port command reads)."""
    from paramcount.cli import fenced
    from paramcount.factories.fence import serve

    serve(fenced._port)


if __name__ == "__main__":
    main()
