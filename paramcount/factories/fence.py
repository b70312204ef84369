"""The fence around the user's factory: it runs in a child process, with a time limit, its
output kept off ours, and whatever it does comes back as an answer or a located error.

A factory is the user's code: it may print ("loading config... done"), loop forever, call
``os._exit(0)``, raise ``KeyboardInterrupt``, close ``sys.stdout`` or start a process of its own.
None of that may reach ``check``'s own output or exit code, so each factory runs in a fresh
``python -m paramcount.factories.fence`` (:func:`main`), in a session of its own:

- what it prints (``sys.stdout`` and ``sys.stderr``) goes to a scratch file, copied to our
  stderr when it is done, so ``check --json`` stays one JSON document (what a framework's C++
  core writes to the process's stderr goes straight to ours, as it always did);
- past ``timeout`` seconds it is killed, with anything it started, and the model gets a
  located error; so does a process that ends without an answer or is killed by a signal;
- the answer comes back as JSON (never a pickle) in a file, not a pipe, so a process the
  factory leaves behind cannot hold ``check`` open; that process group is killed when the
  factory is done.

``PARAMCOUNT_NO_FACTORIES=1`` (or ``check --no-factories``) refuses every factory before
anything is imported, for configs from untrusted pull requests.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from collections.abc import Mapping, Sequence
from typing import Any

from paramcount.engine.spec import Framework, LayerSpec
from paramcount.factories.factory import Built, FactoryError, Module, build_here, one_line
from paramcount.record import fields, record

TYPE_CHECKING = False
if TYPE_CHECKING:
    import subprocess

DEFAULT_TIMEOUT = 120.0
"""Seconds a factory may take (importing torch or Keras included) unless told otherwise."""

TIMEOUT_VARIABLE = "PARAMCOUNT_FACTORY_TIMEOUT"
REFUSE_VARIABLE = "PARAMCOUNT_NO_FACTORIES"

_OUTPUT_LIMIT = 1 << 16
"""How much of a factory's own output is copied to our stderr (its end, when it says more)."""


@record
class FactoryPolicy:
    """Whether factories may run, and for how long each."""

    allowed: bool = True
    timeout: float = DEFAULT_TIMEOUT
    refused_by: str = ""
    """What refused them, as the error names it: ``--no-factories``."""


RUN_FACTORIES = FactoryPolicy()
"""The default: factories run, each within :data:`DEFAULT_TIMEOUT`."""


def policy_from(no_factories: bool, timeout: float | None,
                environ: Mapping[str, str] = os.environ) -> FactoryPolicy:
    """The policy of a run: the options, else the environment variables, else the defaults."""
    refused_by = "--no-factories" if no_factories else ""
    if not refused_by and environ.get(REFUSE_VARIABLE, "").strip().lower() not in (
            "", "0", "false", "no", "off"):
        refused_by = f"{REFUSE_VARIABLE}={environ[REFUSE_VARIABLE]}"
    if timeout is None:
        text = environ.get(TIMEOUT_VARIABLE, "").strip()
        timeout = parse_timeout(text, TIMEOUT_VARIABLE) if text else DEFAULT_TIMEOUT
    return FactoryPolicy(not refused_by, timeout, refused_by)


def parse_timeout(text: str, name: str) -> float:
    """A positive number of seconds, or a ValueError naming ``name``."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0 < value < 1e9:  # also refuses nan and inf
        raise ValueError(f"{name}={text!r} is not a time limit: give a positive number of "
                         "seconds, e.g. 120")
    return value


def refusal(policy: FactoryPolicy) -> str:
    """The located error's message for a factory that is not run."""
    return (f"not run: {policy.refused_by} refuses every factory, so no code named by the "
            "config is imported (layers and file models are still checked)")


def build(target: str, kwargs: Mapping[str, Any], framework: Framework,
          folders: Sequence[str], timeout: float = DEFAULT_TIMEOUT) -> Built:
    """Build and count the factory's model in a child process; FactoryError for anything else."""
    try:
        arguments = json.dumps(dict(kwargs), allow_nan=False)
    except (TypeError, ValueError) as error:
        raise FactoryError(f"kwargs cannot be passed to the factory: {error}",
                           key="kwargs") from None
    import tempfile  # (with subprocess and signal: only when a factory runs)

    with tempfile.TemporaryDirectory(prefix="paramcount-factory-") as scratch:
        answer_path = os.path.join(scratch, "answer.json")
        request = {"target": target, "kwargs": json.loads(arguments),
                   "framework": framework.value, "folders": list(folders),
                   "answer": answer_path}
        with open(os.path.join(scratch, "output"), "w+b") as output:
            code = _run(request, output, timeout, target)
            _relay(output)
        try:
            with open(answer_path, encoding="utf-8") as file:
                answer = json.load(file)
        except FileNotFoundError:
            raise FactoryError(_ended(target, code)) from None
        except (OSError, ValueError):
            raise FactoryError(f"{target}(...) left an unreadable answer") from None
    return _answer(answer, target)


def _run(request: dict[str, Any], output: Any, timeout: float, target: str) -> int:
    """Run the child to its end (or kill it at ``timeout``); its exit code."""
    import subprocess

    package_root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [package_root] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    process = subprocess.Popen(
        [sys.executable, "-m", "paramcount.factories.fence"], stdin=subprocess.PIPE,
        stdout=output, start_new_session=True, env=env)
    try:
        assert process.stdin is not None
        with contextlib.suppress(BrokenPipeError):
            process.stdin.write(json.dumps(request).encode())
            process.stdin.close()
        try:
            return process.wait(timeout)
        except subprocess.TimeoutExpired:
            raise FactoryError(
                f"{target}(...) did not return within {timeout:g} s: stopped (a factory that "
                "takes longer needs --factory-timeout SECONDS)") from None
    finally:
        _kill_group(process)


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    """Kill the child and every process it left in its session, then reap the child."""
    import signal

    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    with contextlib.suppress(ProcessLookupError):
        process.kill()
    process.wait()


def _relay(output: Any) -> None:
    """Copy what the factory printed to our stderr (its end, past the limit)."""
    size = output.seek(0, os.SEEK_END)
    if not size:
        return
    output.seek(max(0, size - _OUTPUT_LIMIT))
    text = output.read().decode("utf-8", "replace")
    if size > _OUTPUT_LIMIT:
        text = f"[... the first {size - _OUTPUT_LIMIT:,} bytes of the factory's output ...]\n" \
               + text
    sys.stderr.write(text if text.endswith("\n") else text + "\n")
    sys.stderr.flush()


def _ended(target: str, code: int) -> str:
    import signal

    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"{target}(...) was killed by {name} before returning a model"
    return (f"{target}(...) ended its process (exit code {code}) before returning a model: "
            "a factory must return the model, not exit")


def _answer(answer: object, target: str) -> Built:
    """The child's JSON answer: the model built, or its error."""
    try:
        assert isinstance(answer, dict)
        if "error" in answer:
            raise FactoryError(str(answer["error"]), str(answer.get("key", "factory")))
        built = answer["built"]
        modules = tuple(
            Module(m["name"], m["type"], int(m["params"]), int(m["non_trainable"]),
                   int(m["buffers"]), m["output"],
                   None if m["spec"] is None else LayerSpec(**m["spec"]))
            for m in built["modules"])
        return Built(Framework(built["framework"]), built["type"], modules, int(built["total"]),
                     int(built["non_trainable"]), int(built["buffers"]))
    except (AssertionError, KeyError, TypeError, ValueError):
        raise FactoryError(f"{target}(...) left an unreadable answer") from None


def _spec_data(spec: LayerSpec | None) -> dict[str, Any] | None:
    if spec is None:
        return None
    data: dict[str, Any] = {}
    for name in fields(spec):
        value = getattr(spec, name)
        data[name] = list(value) if isinstance(value, tuple) else value
    return data


def _built_data(built: Built) -> dict[str, Any]:
    return {"framework": built.framework.value, "type": built.type, "total": built.total,
            "non_trainable": built.non_trainable, "buffers": built.buffers,
            "modules": [{"name": m.name, "type": m.type, "params": m.params,
                         "non_trainable": m.non_trainable, "buffers": m.buffers,
                         "output": m.output, "spec": _spec_data(m.spec)}
                        for m in built.modules]}


def main() -> None:
    """The child: read the request on stdin, build the model, write the answer, exit."""
    request = json.loads(sys.stdin.read())
    target = request["target"]
    printed = open(os.dup(1), "w", encoding="utf-8", errors="replace", buffering=1)  # noqa: SIM115
    sys.stdout = sys.stderr = printed
    try:
        built = build_here(target, request["kwargs"], Framework(request["framework"]),
                           request["folders"])
        answer: dict[str, Any] = {"built": _built_data(built)}
    except FactoryError as error:
        answer = {"error": str(error), "key": error.key}
    except BaseException as error:  # the factory's own doing: its answer, not our crash
        answer = {"error": f"{target}(...) raised {one_line(error)}", "key": "factory"}
    partial = request["answer"] + ".partial"
    with open(partial, "w", encoding="utf-8") as file:
        json.dump(answer, file)
    os.replace(partial, request["answer"])
    with contextlib.suppress(Exception):
        sys.stdout.flush()
        sys.stderr.flush()
    os._exit(0)  # the factory's atexit hooks and threads are not ours to wait for


if __name__ == "__main__":
    main()
