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
- the answer comes back as JSON (never a pickle) in a file, not a pipe;
- the child is the reaper of everything the factory starts (Linux: ``PR_SET_CHILD_SUBREAPER``),
  so a process started in a session of its own or left by forking twice, which would hold the
  CI step's pipes open, is adopted by it and killed with every other descendant when the
  factory is done or stopped; the child's process group is killed too (elsewhere, that is
  all).

:func:`run_fenced` and :func:`serve` are the two sides of the fence for any work that runs the
user's code: ``port --model`` runs its whole port behind it too.

Whether factories run at all, and for how long, is :mod:`paramcount.factories.policy`'s (kept
apart so that what only needs the policy imports none of this).
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import signal
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, NoReturn

from paramcount import quiet
from paramcount.engine.spec import Framework, LayerSpec
from paramcount.factories.factory import Built, FactoryError, Module, build_here, one_line
from paramcount.factories.policy import DEFAULT_TIMEOUT
from paramcount.record import fields

_OUTPUT_LIMIT = 1 << 16
"""How much of a factory's own output is copied to our stderr (its end, when it says more)."""


def build(target: str, kwargs: Mapping[str, Any], framework: Framework,
          folders: Sequence[str], timeout: float = DEFAULT_TIMEOUT, cwd: str | None = None,
          env: Mapping[str, str] | None = None) -> Built:
    """Build and count the factory's model in a child process (working in ``cwd``, ours when
    None, with ``env``, ours when None); FactoryError for anything else."""
    try:
        arguments = json.dumps(dict(kwargs), allow_nan=False)
    except (TypeError, ValueError) as error:
        raise FactoryError(f"kwargs cannot be passed to the factory: {error}",
                           key="kwargs") from None
    request = {"target": target, "kwargs": json.loads(arguments),
               "framework": framework.value, "folders": list(folders)}
    answer = run_fenced("paramcount.factories.fence", request, timeout, target, env, cwd)
    return _answer(answer, target)


def run_fenced(module: str, request: dict[str, Any], timeout: float | None, what: str,
               env: Mapping[str, str] | None = None, cwd: str | None = None) -> object:
    """Run ``python -m module`` (whose ``main`` calls :func:`serve`) on ``request`` behind the
    fence and return its JSON answer; FactoryError (naming ``what``) for a child that does not
    answer in time, ends without answering or leaves an unreadable answer. The child works in
    ``cwd`` (None: ours).

    ``timeout`` limits the whole child (None: no limit, the child limiting each factory call
    itself with :func:`time_limit`, from ``request["limit"]``)."""
    with tempfile.TemporaryDirectory(prefix="paramcount-factory-") as scratch:
        answer_path = os.path.join(scratch, "answer.json")
        request = {**request, "answer": answer_path, "scratch": scratch}
        with open(os.path.join(scratch, "output"), "w+b") as output:
            try:
                code = _run(module, request, output, timeout, what, env, cwd)
            finally:
                _relay(output)
        try:
            with open(answer_path, encoding="utf-8") as file:
                return json.load(file)
        except FileNotFoundError:
            running = os.path.join(scratch, "running")  # the factory running, if one was
            with contextlib.suppress(OSError), open(running, encoding="utf-8") as file:
                what = file.read() or what
            if code == -signal.SIGALRM and request.get("limit"):
                raise FactoryError(_late(what, request["limit"])) from None
            raise FactoryError(_ended(what, code)) from None
        except (OSError, ValueError):
            raise FactoryError(f"{what}(...) left an unreadable answer") from None


_GRACE = 10.0
"""Seconds the child's reaper has to end the factory and its descendants when told to stop."""


def _late(what: str, timeout: float) -> str:
    return (f"{what}(...) did not return within {timeout:g} s: stopped (a factory that takes "
            "longer needs --factory-timeout SECONDS)")


def _run(module: str, request: dict[str, Any], output: Any, timeout: float | None, what: str,
         env: Mapping[str, str] | None, cwd: str | None = None) -> int:
    """Run the child to its end (or stop it at ``timeout``); its exit code."""
    package_root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    environ = dict(os.environ if env is None else env)
    environ["PYTHONPATH"] = os.pathsep.join(
        [package_root] + ([environ["PYTHONPATH"]] if environ.get("PYTHONPATH") else []))
    process = subprocess.Popen(
        [sys.executable, "-m", module], stdin=subprocess.PIPE,
        stdout=output, start_new_session=True, env=environ, cwd=cwd)
    try:
        assert process.stdin is not None
        with contextlib.suppress(BrokenPipeError):
            process.stdin.write(json.dumps(request).encode())
            process.stdin.close()
        try:
            return process.wait(timeout)
        except subprocess.TimeoutExpired:
            assert timeout is not None
            raise FactoryError(_late(what, timeout)) from None
    finally:
        _stop(process)


def _stop(process: subprocess.Popen[bytes]) -> None:
    """End the child: its reaper ends the factory and every descendant on SIGTERM; whatever is
    still there after :data:`_GRACE` seconds (and the child's process group) is killed."""
    if process.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            process.terminate()
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(_GRACE)
    _kill_group(process)


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    """Kill the child and every process it left in its session, then reap the child."""
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


def _build_answer(request: dict[str, Any]) -> dict[str, Any]:
    """The child's work for ``check``: build the factory's model and describe it."""
    target = request["target"]
    try:
        built = build_here(target, request["kwargs"], Framework(request["framework"]),
                           request["folders"])
        return {"built": _built_data(built)}
    except FactoryError as error:
        return {"error": str(error), "key": error.key}
    except BaseException as error:  # the factory's own doing: its answer, not our crash
        return {"error": f"{target}(...) raised {one_line(error)}", "key": "factory"}


def main() -> None:
    """The child: read the request on stdin, build the model, write the answer, exit."""
    serve(_build_answer)


def serve(work: Callable[[dict[str, Any]], object]) -> NoReturn:
    """The child's side of the fence: read the request on stdin and answer it with ``work``.

    The process becomes its descendants' reaper (Linux: ``PR_SET_CHILD_SUBREAPER``, so that
    whatever the factory starts, in a session of its own or by forking twice, is adopted here
    when its parent ends) and runs ``work`` in a forked worker, whose prints go to the scratch
    output. When the worker ends, or on SIGTERM, every descendant is killed and reaped; the
    process then ends as the worker did.
    """
    quiet.install()  # a factory that imports Keras: TensorFlow's banners kept off stderr
    request = json.loads(sys.stdin.read())
    reaping = _become_reaper()
    worker_pid: list[int] = []

    def stop(signum: int, frame: object) -> None:
        for pid in worker_pid:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)

    signal.signal(signal.SIGTERM, stop)
    pid = os.fork()
    if pid == 0:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        _work(work, request)
    worker_pid.append(pid)
    while True:
        try:
            _, status = os.waitpid(pid, 0)
            break
        except ChildProcessError:
            status = 0
            break
    if reaping:
        _end_descendants()
    code = os.waitstatus_to_exitcode(status)
    if code < 0:  # end as the worker did, by its signal
        signal.signal(-code, signal.SIG_DFL)
        os.kill(os.getpid(), -code)
    os._exit(code)


def _work(work: Callable[[dict[str, Any]], object], request: dict[str, Any]) -> NoReturn:
    """The worker: prints to the scratch output, the answer written whole, then exit."""
    printed = open(os.dup(1), "w", encoding="utf-8", errors="replace", buffering=1)  # noqa: SIM115
    sys.stdout = sys.stderr = printed
    global _LIMIT, _RUNNING
    _LIMIT = request.get("limit")
    _RUNNING = os.path.join(request["scratch"], "running")
    try:
        answer = work(request)
    except BaseException as error:  # the user's code escaped the work's own handling
        answer = {"error": f"the fenced run raised {one_line(error)}", "key": "factory"}
    partial = request["answer"] + ".partial"
    with open(partial, "w", encoding="utf-8") as file:
        json.dump(answer, file)
    os.replace(partial, request["answer"])
    with contextlib.suppress(Exception):
        sys.stdout.flush()
        sys.stderr.flush()
    os._exit(0)  # the factory's atexit hooks and threads are not ours to wait for


_LIMIT: float | None = None
"""Inside a fenced worker: the seconds each factory call may take (:func:`time_limit`)."""
_RUNNING = ""
"""Inside a fenced worker: the file naming the factory running now, for the parent's message."""


@contextlib.contextmanager
def time_limit(what: str) -> Iterator[None]:
    """Within a fenced worker that was given a limit: end the worker (SIGALRM, whose default
    action no Python code can delay) if the block, the call of factory ``what``, has not
    finished within it; elsewhere, nothing. The parent reads that end as the factory's time
    running out, and an end without an answer during the block as ``what``'s doing."""
    if _LIMIT is None:
        yield
        return
    with open(_RUNNING, "w", encoding="utf-8") as file:
        file.write(what)
    previous = signal.signal(signal.SIGALRM, signal.SIG_DFL)
    signal.setitimer(signal.ITIMER_REAL, _LIMIT)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        with contextlib.suppress(OSError):
            os.unlink(_RUNNING)


_PR_SET_PDEATHSIG = 1
_PR_SET_CHILD_SUBREAPER = 36


def _become_reaper() -> bool:
    """Make this process the reaper of its orphaned descendants, and have it told (SIGTERM)
    when its parent dies; False where the system cannot (not Linux)."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
            return False
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    except (OSError, AttributeError):
        return False
    return True


def _end_descendants() -> None:
    """Kill every child of this process until none is left (each one's orphans are adopted
    here as it dies, and killed in the next round), reaping them all."""
    while True:
        for pid in _children():
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            return


def _children() -> list[int]:
    """The process ids whose parent is this process (from /proc)."""
    me = os.getpid()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as file:
                fields_after = file.read().rpartition(b")")[2].split()
        except OSError:
            continue
        if len(fields_after) > 2 and int(fields_after[1]) == me:
            found.append(int(entry))
    return found


if __name__ == "__main__":
    main()
