"""``python -m paramcount``: Ctrl-C is noted from the first line on, so that even one that
lands while the command's modules are loading exits 130 with one line."""

import signal
import sys


def _interrupted(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def _start() -> None:
    try:
        signal.signal(signal.SIGINT, _interrupted)
        from paramcount.cli.main import main

        main()
    except KeyboardInterrupt:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        sys.stderr.write("Error: aborted\n")
        sys.exit(130)


_start()
