"""TensorFlow's and absl's log lines kept off stderr, whoever imports TensorFlow or Keras.

TensorFlow's C++ core writes to the process's stderr (file descriptor 2) while it loads:
``WARNING: All log messages before absl::InitializeLog() is called are written to STDERR``,
``I0000 … cudart_stub.cc … Could not find cuda drivers``, oneDNN and CPU-feature banners, and
on a machine with a GPU build ``E0000 … Unable to register cuDNN factory``. The environment
(``TF_CPP_MIN_LOG_LEVEL``) quiets what it logs later (``E0000 … failed call to cuInit`` at the
first operation) but not those: they come before absl's logging starts. So :func:`install`
sets the environment and puts a finder first on ``sys.meta_path`` that runs the import of
``tensorflow``, ``keras`` or ``tf_keras`` (by paramcount or by a user's factory) with descriptor
2 pointed at the null device; Python's ``sys.stderr`` object is untouched, and a user's own
setting of those variables wins. Nothing here imports a framework.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator, Sequence
from types import ModuleType
from typing import Any

QUIET_ENVIRONMENT = {"TF_CPP_MIN_LOG_LEVEL": "3", "TF_ENABLE_ONEDNN_OPTS": "0",
                     "GRPC_VERBOSITY": "ERROR", "GLOG_minloglevel": "3"}
"""Set (where unset) before TensorFlow loads: its C++ logging, oneDNN's banner, gRPC's."""

LOUD = frozenset({"tensorflow", "keras", "tf_keras"})
"""The top-level packages whose import writes to descriptor 2."""


@contextlib.contextmanager
def native_stderr_silenced() -> Iterator[None]:
    """Point file descriptor 2 at the null device for the duration (Python's own ``sys.stderr``
    object is untouched, so exceptions raised are unaffected)."""
    try:
        sys.stderr.flush()
        saved = os.dup(2)
    except (OSError, ValueError, AttributeError):  # no descriptor 2 to silence
        yield
        return
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(null)


def quiet_loggers() -> None:
    """Python-side loggers of TensorFlow, absl and Keras: errors only."""
    import logging

    for name in ("tensorflow", "absl", "keras"):
        logging.getLogger(name).setLevel(logging.ERROR)


class _QuietLoader:
    """A loader that runs another's ``exec_module`` with descriptor 2 silenced."""

    def __init__(self, loader: Any) -> None:
        self.loader = loader

    def create_module(self, spec: Any) -> ModuleType | None:
        """The wrapped loader's module (None: the default)."""
        created: ModuleType | None = self.loader.create_module(spec)
        return created

    def exec_module(self, module: ModuleType) -> None:
        """Run the module's code quietly, then quiet its Python loggers."""
        spec = module.__spec__
        if spec is not None:
            spec.loader = self.loader  # importlib.resources and the like see the real one
        module.__loader__ = self.loader
        with native_stderr_silenced():
            self.loader.exec_module(module)
        quiet_loggers()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.loader, name)


class QuietFinder:
    """A ``sys.meta_path`` finder that hands the loud packages' imports to :class:`_QuietLoader`
    and leaves every other import to the finders after it."""

    def find_spec(self, name: str, path: Sequence[str] | None, target: Any = None) -> Any:
        """The spec the other finders give a loud package, its loader wrapped; else None."""
        if name not in LOUD:
            return None
        for finder in sys.meta_path:
            find = getattr(finder, "find_spec", None)
            if finder is self or isinstance(finder, QuietFinder) or find is None:
                continue
            spec = find(name, path, target)
            if spec is not None:
                if spec.loader is not None and hasattr(spec.loader, "exec_module"):
                    spec.loader = _QuietLoader(spec.loader)
                return spec
        return None


def install() -> None:
    """Set the quiet environment and, once per process, put :class:`QuietFinder` first on
    ``sys.meta_path`` (a package already imported stays as it is)."""
    for name, value in QUIET_ENVIRONMENT.items():
        os.environ.setdefault(name, value)
    if not any(isinstance(finder, QuietFinder) for finder in sys.meta_path):
        sys.meta_path.insert(0, QuietFinder())
