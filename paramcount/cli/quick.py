"""The quick path of ``paramcount rnn|lstm|gru``, the families and ``read``: the everyday command
lines, read without click.

Loading click takes longer than counting a layer, and the count commands are what people run
most, in loops and in CI (start-up is measured by ``benchmarks/cli_speed.py``; ``read``'s by
``benchmarks/read_speed.py``). So :func:`paramcount.cli.main.run` offers the command line here
first. This module answers only what it is sure of: a count command, options that command
offers (spelled as in :mod:`paramcount.engine.flags`, each given once, as ``--name value`` or
``--name=value``), valid values and a layer the spec accepts; ``read`` with a file and its
output options. For anything else (help, a mistake, ``--verify``, training memory or compute,
``read --set``, other commands) it answers None and click reads the command line, so that every
message comes from one place. ``tests/test_quick.py`` checks that both paths print the same
bytes and exit codes for generated command lines, and offer the same options.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from paramcount.engine import flags
from paramcount.engine.counts import CountError, parse_int
from paramcount.engine.spec import Cell, DType, Framework
from paramcount.errors import ParamcountError
from paramcount.families.registry import FAMILIES

_COMMANDS = frozenset(cell.value for cell in Cell)

_FORMAT: dict[str, str] = dict.fromkeys(flags.FORMAT, "output_format")
_DTYPE: dict[str, str] = dict.fromkeys(flags.DTYPE, "dtype")
_FORMAT_SWITCHES: dict[str, tuple[str, bool]] = {
    **dict.fromkeys(flags.JSON, ("as_json", True)),
    **dict.fromkeys(flags.MARKDOWN, ("as_markdown", True)),
}
"""The output options, spelled once for the count, family and read paths."""

_COMMON: dict[str, str] = {
    **dict.fromkeys(flags.INPUT, "input_size"),
    **dict.fromkeys(flags.HIDDEN, "hidden_size"),
    **dict.fromkeys(flags.LAYERS, "num_layers"),
    **dict.fromkeys(flags.FRAMEWORK, "framework"),
    **dict.fromkeys(flags.MERGE_MODE, "merge_modes"),
    **_DTYPE,
    **_FORMAT,
}
"""Options that take a value, on every count command: name -> destination."""

_BY_CELL: dict[Cell, dict[str, str]] = {
    Cell.LSTM: dict.fromkeys(flags.PROJ, "proj_size"),
    Cell.GRU: {},
    Cell.RNN: dict.fromkeys(flags.NONLINEARITY, "nonlinearity"),
}
"""Options that take a value, on one count command only."""


def _switches(pairs: tuple[tuple[str, str], ...], destination: str) -> dict[str, tuple[str, bool]]:
    return {name: (destination, on) for pair in pairs for name, on in zip(pair, (True, False),
                                                                          strict=True)}


_COMMON_FLAGS: dict[str, tuple[str, bool]] = {
    **_switches(flags.BIDIRECTIONAL, "bidirectional"),
    **_switches(flags.BIAS, "bias"),
    **dict.fromkeys(flags.SINGLE_CELL, ("single_cell", True)),
    **_FORMAT_SWITCHES,
}
"""Options that take no value, on every count command: name -> (destination, value)."""

_FLAGS_BY_CELL: dict[Cell, dict[str, tuple[str, bool]]] = {
    Cell.LSTM: dict.fromkeys(flags.PEEPHOLES, ("peepholes", True)),
    Cell.GRU: _switches(flags.RESET_AFTER, "reset_after"),
    Cell.RNN: {},
}

_DEFAULTS: dict[str, Any] = {
    "num_layers": 1, "bidirectional": False, "bias": True, "proj_size": 0,
    "framework": (Framework.TORCH,), "merge_modes": None, "reset_after": None,
    "nonlinearity": None, "single_cell": False, "peepholes": False, "dtype": DType.FP32.value,
    "output_format": None, "as_json": False, "as_markdown": False,
}


def offered(cell: Cell) -> tuple[set[str], set[str]]:
    """The option names the quick path reads for ``cell``'s command: (with a value, without)."""
    return set(_COMMON) | set(_BY_CELL[cell]), set(_COMMON_FLAGS) | set(_FLAGS_BY_CELL[cell])


def answer(argv: Sequence[str], freeze: bool = False) -> int | None:
    """Print the answer to ``argv`` and return the exit code, or None for click to handle
    (``freeze``: as :func:`paramcount.cli.main.run` says)."""
    if not argv or "_PARAMCOUNT_COMPLETE" in os.environ:
        return None
    if argv[0] in FAMILIES:
        return _family(argv[0], argv[1:])
    if argv[0] == "read":
        return _read_paste(argv[1:], freeze)
    if argv[0] == "inspect":
        return _inspect(argv[1:], freeze)
    if argv[0] == "check":
        return _check(argv[1:], freeze)
    if argv[0] not in _COMMANDS:
        return None
    cell = Cell(argv[0])
    options = _read(cell, argv[1:])
    if options is None:
        return None
    output_format = _format(options)
    if output_format is None:
        return None
    from paramcount.engine.report import build_report

    if freeze:
        import gc

        gc.freeze()
    try:
        reports = [build_report(spec, DType(options["dtype"]))
                   for spec in flags.layer_specs(cell, options, options["framework"])]
    except ParamcountError:
        return None  # click says why, in the words the click path uses
    from paramcount.cli.output import show_reports

    show_reports(reports, output_format)
    return 0


def _inspect(args: Sequence[str], freeze: bool = False) -> int | None:
    """``inspect PATH`` with its output options only (one path: several are separated by
    click's blank line), answered as the click command answers it (``freeze``: the console
    process, whose collector passes come seldom, as :func:`_seldom_collect` says)."""
    given = _scan(args, {**dict.fromkeys(flags.JSON, ("as_json", True)),
                         **dict.fromkeys(flags.MARKDOWN, ("as_markdown", True))},
                  dict.fromkeys(flags.FORMAT, "output_format"),
                  lambda target, text: (str(target), text), positional="path")
    if given is None or given.get("path") in (None, "", "-"):
        return None
    given = {"output_format": None, "as_json": False, "as_markdown": False, **given}
    if given["output_format"] not in (None, *flags.FORMATS):
        return None
    output_format = _format(given)
    if output_format is None:
        return None
    if freeze:
        _seldom_collect()
    from pathlib import Path

    from paramcount.cli.output import show, show_json
    from paramcount.files.dispatch import read_file
    from paramcount.files.inspect import inspect

    report = inspect(read_file(Path(given["path"])))
    if output_format == "json":
        from paramcount.render.data import dumps
        from paramcount.render.inspect import data

        show_json(dumps(data(report)))
        return 0
    from paramcount.render.inspect import document

    show(document(report), output_format)
    return 0


def _check(args: Sequence[str], freeze: bool = False) -> int | None:
    """``check FILE --json`` (one file, no other option, not under GitHub Actions), answered
    as the click command answers it: the JSON on stdout, each error on stderr (``freeze``: the
    console process, as :func:`_seldom_collect` says)."""
    given = _scan(args, dict.fromkeys(flags.JSON, ("as_json", True)),
                  dict.fromkeys(flags.FORMAT, "output_format"),
                  lambda target, text: (str(target), text), positional="file")
    if (given is None or given.get("file") in (None, "", "-")
            or os.environ.get("GITHUB_ACTIONS") == "true"
            or flags.formats_asked(given.get("output_format"), given.get("as_json", False),
                                   False) != ["json"]):
        return None
    import gc
    import sys

    if freeze:
        _seldom_collect()
    from paramcount.checking.session import check_file, expand
    from paramcount.errors import ConfigError
    from paramcount.factories.policy import policy_from
    from paramcount.render import check as render
    from paramcount.render.data import dumps

    try:
        factories = policy_from(False, None)
        names = expand((given["file"],))
    except (ValueError, ConfigError):
        return None  # click says why
    thaw = gc.get_freeze_count() == 0  # as the click command: see paramcount.cli.commands.check
    try:
        results = []
        for name in names:
            results.append(check_file(name, verify=False, update=False, factories=factories))
            gc.freeze()
        for result in results:
            for problem in result.errors:
                sys.stderr.write(f"Error: {problem}\n")
        sys.stdout.write(dumps(render.data_all(results)))
    finally:
        if thaw:
            gc.unfreeze()
    if any(r.errors for r in results):
        return 2
    return 0 if all(r.failed == 0 for r in results) else 1


def _read(cell: Cell, args: Sequence[str]) -> dict[str, Any] | None:
    """The options in ``args``, converted, or None if any is not one this path is sure of."""
    given = _scan(args, {**_COMMON_FLAGS, **_FLAGS_BY_CELL[cell]},
                  {**_COMMON, **_BY_CELL[cell]}, _converted)
    if given is None:
        return None
    if "input_size" not in given or "hidden_size" not in given:
        return None
    return {**_DEFAULTS, **given}


Convert = Callable[[Any, str], "tuple[str, Any] | None"]
"""An option's target and its text -> (destination, value), or None if not certainly valid."""


def _scan(args: Sequence[str], switches: Mapping[str, tuple[str, Any]],
          valued: Mapping[str, Any], convert: Convert, positional: str = ""
          ) -> dict[str, Any] | None:
    """The options in ``args`` as {destination: value}: ``switches`` take no value, ``valued``
    one (``--name=V`` or ``--name V``) converted by ``convert``, and a bare word is the value of
    ``positional`` where the command takes one. None where anything is unsure: an option not
    known, given twice, or a value missing, starting with ``-`` or not valid."""
    given: dict[str, Any] = {}
    position = 0
    while position < len(args):
        token = args[position]
        name, equals, attached = token.partition("=") if token.startswith("--") else (token, "",
                                                                                      "")
        found: tuple[str, Any] | None
        if name in switches and not equals:
            found = switches[name]
        elif name in valued:
            if not equals:
                position += 1
                if position == len(args):
                    return None
                attached = args[position]
            found = None if attached.startswith("-") else convert(valued[name], attached)
        elif positional and (token == "-" or not token.startswith("-")):
            found = positional, token
        else:
            return None
        if found is None or found[0] in given:
            return None
        given[found[0]] = found[1]
        position += 1
    return given


def _converted(destination: str, text: str) -> tuple[str, Any] | None:
    """A cell or read option's value, as :data:`Convert` wants it."""
    value = _value(destination, text)
    return None if value is None else (destination, value)


def _value(destination: str, text: str) -> Any:
    """``text`` converted for ``destination``, or None if it is not certainly valid."""
    if destination in _AS_GIVEN:
        return text
    if destination in ("input_size", "hidden_size", "num_layers", "proj_size"):
        try:
            return parse_int(text)
        except CountError:
            return None
    if destination == "framework":
        named = flags.frameworks_named(text)
        return None if isinstance(named, str) else named
    if destination == "merge_modes":
        modes = tuple(flags.merge_mode_named(part) for part in text.split(","))
        return None if None in modes else modes
    choices = {"dtype": [d.value for d in DType], "output_format": flags.FORMATS,
               "nonlinearity": flags.NONLINEARITIES}[destination]
    return text if text in choices else None


_AS_GIVEN = frozenset({"config_file", "impl", "path"})
"""Destinations whose text is the value (a file is read by the command; --impl's choice checked
against its command)."""


def _format(options: Mapping[str, Any]) -> str | None:
    """The one output format asked for, or None if two were (click names them)."""
    asked = flags.formats_asked(options.get("output_format"), options.get("as_json", False),
                                options.get("as_markdown", False))
    if len(asked) > 1:
        return None
    return asked[0] if asked else "table"


_READ_SWITCHES: dict[str, tuple[str, bool]] = {**_FORMAT_SWITCHES, "--details": ("details", True)}
"""The options of ``paramcount read`` that take no value: name -> (destination, value)."""


_READ_GC_THRESHOLD = 100_000
"""Allocations between the garbage collector's youngest passes while ``read`` answers (the
console process only; ``benchmarks/read_speed.py``)."""


def _seldom_collect() -> None:
    """In the console process, a collector pass every :data:`_READ_GC_THRESHOLD` allocations:
    loading a command's modules and building a large model's tensors allocate tens of
    thousands of objects and free few until the end (``inspect`` and ``check`` of a config
    with a thousand tensors passed 40 times, ~3 ms)."""
    import gc

    gc.set_threshold(_READ_GC_THRESHOLD, *gc.get_threshold()[1:])


def _read_paste(args: Sequence[str], freeze: bool) -> int | None:
    """``read FILE|-`` with ``--json``, ``--markdown``, ``--format F`` or ``--details``, each
    given once: the answer printed, and 0 (a paste with nothing countable, or a file that
    cannot be read, raises the error click's command raises). None for click: ``--set``,
    help, anything unsure."""
    given = _scan(args, _READ_SWITCHES, _FORMAT, _converted, positional="path")
    if given is None:
        return None
    output_format = _format(given)
    if "path" not in given or output_format is None:
        return None
    import gc

    if freeze:
        # Loading the readers and reading a large paste allocate hundreds of thousands of
        # objects (modules, then the paste's ast, rows, calls) and free few until the end: at
        # the default pass every 700 allocations the collector walks them again and again (a
        # tenth of reading a 5,000-line source). The process ends with the answer; a pass
        # every 100,000 still bounds any garbage cycle.
        gc.set_threshold(_READ_GC_THRESHOLD, *gc.get_threshold()[1:])
    from paramcount.cli.paste import answer_paste

    if freeze:
        gc.freeze()
    answer_paste(given["path"], {}, output_format, given.get("details", False))
    return 0


_FAMILY_COMMON: dict[str, str] = {**_DTYPE, **_FORMAT, "--config": "config_file"}
"""Options that take a value on every family command, beside the family's own."""


def family_options(name: str, family: str) -> tuple[dict[str, Any], dict[str, tuple[str, bool]]]:
    """The options the quick path reads for ``paramcount NAME`` counting ``family``: (with a
    value: name -> destination or the family's Option, without: name -> (destination, value))."""
    from paramcount.families.command import IMPL, VARIANTS
    from paramcount.families.registry import has_base, options

    valued: dict[str, Any] = {**_FAMILY_COMMON, **({IMPL: "impl"} if name in VARIANTS else {})}
    switches = dict(_FORMAT_SWITCHES)
    if has_base(family):
        switches["--base"] = ("base", True)
    for option in options(family):
        if option.kind == "bool":
            switches.update(_switches(tuple((n, f"--no-{n.removeprefix('--')}")
                                            for n in option.names), option.field))
        else:
            valued.update(dict.fromkeys(option.names, option))
    return valued, switches


def _family(name: str, args: Sequence[str]) -> int | None:
    """A family command's answer, or None for click (help, a mistake, anything unsure).

    A command with several implementations (``xlstm``) reads the line with the options of the
    one :func:`paramcount.families.command.chosen` chooses, as its click command does."""
    from paramcount.families.command import VARIANTS, check_config, chosen
    from paramcount.families.registry import Option, build_reading, value_of

    family = chosen(name, args)
    valued, switches = family_options(name, family)

    def convert(target: Option | str, text: str) -> tuple[str, Any] | None:
        if isinstance(target, str):
            return _converted(target, text)
        try:
            return target.field, value_of(target, text)
        except ParamcountError:
            return None

    given = _scan(args, switches, valued, convert)
    if given is None or given.get("impl") not in (None, *VARIANTS.get(name, ())):
        return None
    output_format = _format(given)
    if output_format is None:
        return None
    settings = {key: given.pop(key, None) for key in (
        "dtype", "output_format", "as_json", "as_markdown", "config_file", "impl", "base")}
    try:
        check_config(family, settings["config_file"])
        reading = build_reading(family, given, settings["config_file"])
    except ParamcountError:
        return None
    from paramcount.cli.output import show_family
    from paramcount.families.report import build_family_report

    show_family(build_family_report(family, reading.config,
                                    DType(settings["dtype"] or DType.FP32.value), reading.notes,
                                    bool(settings["base"]) or reading.base),
                output_format)
    return 0
