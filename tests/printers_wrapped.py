"""Real printers' outputs wrapped as people post them (issue 36, one step beside it): in a
Python REPL or Jupyter transcript, quoted, with an editor's line numbers, CRLF, tabs, ANSI
colour codes, HTML-escaped, two back to back, followed by a traceback, or hard-wrapped at 80
columns. Each output is made at test time by the real tool, on a fixed model of each
framework; each wrapping is a text transform a copy makes.

Used by ``tests/test_read_wrapped.py`` and ``benchmarks/read_accuracy.py``.
"""

from __future__ import annotations

import contextlib
import functools
import html
import io
import os
import re
import warnings
from collections.abc import Callable

from paramcount.engine.spec import Cell, LayerSpec
from paramcount.reading.pipeline import Answer, NothingFound, read
from tests.conftest import have
from tests.printers import (
    KerasPlan,
    TorchPlan,
    build_torch,
    dump_text,
    keras2_old_text,
    keras_built,
    keras_text,
    torchinfo_text,
    torchsummary_text,
)

TORCH_PLAN = TorchPlan(None, 6, (("rnn", LayerSpec(Cell.GRU, 6, 8, num_layers=2)),
                                 ("linear", 5)), (True,))
"""A torch model every torch printer runs (no LSTM: torchsummary reads no tuple of
states)."""
KERAS_PLAN = KerasPlan(False, None, 4, (("rnn", (Cell.LSTM, 6, True, None, "concat")),
                                        ("dense", 3)))
"""A Keras Sequential: a bidirectional LSTM, then a Dense."""


def _torch_printers() -> dict[str, str]:
    """Every torch printer's output of :data:`TORCH_PLAN`'s model, where its tool is
    installed."""
    from tests.printers_generic import (
        count_parameters_text,
        dict_text,
        fvcore_flops,
        fvcore_parameters,
        listing_text,
        ptflops_text,
        state_text,
        tabulate_text,
        torchscan_text,
    )
    from tests.printers_more import hf_paste, lightning_text, pms_text

    net, _, example = build_torch(TORCH_PLAN)
    made: dict[str, Callable[[], str]] = {
        "print(model)": lambda: str(net) + "\n",
        "torchinfo": lambda: torchinfo_text(net, example, {
            "depth": 3, "verbose": 0, "row_settings": ("var_names",),
            "col_names": ("output_size", "num_params")}),
        "torchsummary": lambda: torchsummary_text(net, example),
        "named_parameters()": lambda: dump_text(net, "print(n, p.shape)"),
        "named_parameters() with requires_grad": lambda: listing_text(
            net, "print(n, p.shape, p.requires_grad)"),
        "state_dict() as a dict": lambda: dict_text(net),
        "fvcore parameter_count_table": lambda: fvcore_parameters(net, 99),
        "fvcore flop_count_table": lambda: fvcore_flops(net, example),
        "ptflops": lambda: ptflops_text(net, example),
        "torchscan": lambda: torchscan_text(net, example),
        "parameters() shapes": lambda: dump_text(net, "bare"),
        "state_dict() k, v.shape": lambda: state_text(net),
        "count_parameters (prettytable)": lambda: count_parameters_text(net),
        "tabulate (grid)": lambda: tabulate_text(net, "grid"),
        "rich Table": lambda: tabulate_text(net, "rich"),
        "Lightning ModelSummary": lambda: lightning_text(net, example, False, 1, True),
        "Lightning RichModelSummary": lambda: lightning_text(net, example, True, 1, True),
        "pytorch-model-summary": lambda: pms_text(net, example, "default"),
        "pytorch-model-summary (show_hierarchical)": lambda: pms_text(
            net, example, "show_hierarchical"),
        "Hugging Face repr (mamba)": lambda: hf_paste("mamba", {
            "vocab_size": 20, "hidden_size": 8, "state_size": 4, "num_hidden_layers": 2,
            "expand": 2, "conv_kernel": 3, "tie_word_embeddings": False}).text,
    }
    needs = {"torchinfo": "torchinfo", "torchsummary": "torchsummary",
             "fvcore parameter_count_table": "fvcore", "fvcore flop_count_table": "fvcore",
             "ptflops": "ptflops", "torchscan": "torchscan",
             "Lightning ModelSummary": "lightning", "Lightning RichModelSummary": "lightning",
             "count_parameters (prettytable)": "prettytable", "tabulate (grid)": "tabulate",
             "rich Table": "tabulate",
             "pytorch-model-summary": "pytorch_model_summary",
             "pytorch-model-summary (show_hierarchical)": "pytorch_model_summary",
             "Hugging Face repr (mamba)": "transformers"}
    return {name: make() for name, make in made.items() if have(needs.get(name, "torch"))}


def _keras_printers() -> dict[str, str]:
    """Keras 3's and tf-keras' ``summary()`` of :data:`KERAS_PLAN`'s model, and Keras 3's as
    a colour terminal prints it (rich's ANSI codes)."""
    found: dict[str, str] = {}
    if have("keras"):
        import keras

        built = keras_built(keras, KERAS_PLAN)
        if built is not None:
            found["Keras 3 summary()"] = keras_text(built[0], 3)
            found["Keras 3 summary() in colour"] = _coloured(lambda: keras_text(built[0], 3))
    if have("tf_keras"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            import tf_keras

        built = keras_built(tf_keras, KERAS_PLAN)
        if built is not None:
            found["Keras 2 summary()"] = keras_text(built[0], 2)
            found["Keras 2.2-2.3 summary() (cells cut)"] = keras2_old_text(
                built[0], 65, [.45, .85, 1.])
    return found


def _coloured(make: Callable[[], str]) -> str:
    """What ``make`` prints through rich with a colour terminal forced (``FORCE_COLOR``)."""
    saved = {k: os.environ.get(k) for k in ("FORCE_COLOR", "NO_COLOR", "TERM")}
    os.environ.update(FORCE_COLOR="1", TERM="xterm-256color")
    os.environ.pop("NO_COLOR", None)
    try:
        return make()
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def _jax_printers() -> dict[str, str]:
    """Flax linen's ``tabulate`` and haiku's of a small recurrent model."""
    found: dict[str, str] = {}
    if have("flax"):
        from tests.printers_more import FlaxPlan, flax_paste

        found["Flax tabulate"] = flax_paste(FlaxPlan(3, (("rnn", "GRUCell", 5),
                                                         ("dense", "", 2)), 160)).text
    if have("haiku"):
        from tests.printers_found import HaikuPlan, haiku_paste

        found["haiku tabulate"] = haiku_paste(HaikuPlan(4, 3, (("LSTM", 6),), False, 2)).text
    return found


@functools.cache
def printers() -> dict[str, str]:
    """Every printer's output, made once a session by the real tools."""
    with warnings.catch_warnings(), contextlib.redirect_stderr(io.StringIO()):
        warnings.simplefilter("ignore")
        return {**_torch_printers(), **_keras_printers(), **_jax_printers()}


PRINTERS = ("print(model)", "torchinfo", "torchsummary", "named_parameters()",
            "named_parameters() with requires_grad", "state_dict() as a dict",
            "fvcore parameter_count_table", "fvcore flop_count_table", "ptflops", "torchscan",
            "parameters() shapes", "state_dict() k, v.shape", "count_parameters (prettytable)",
            "tabulate (grid)", "rich Table", "Lightning ModelSummary",
            "Lightning RichModelSummary", "pytorch-model-summary",
            "pytorch-model-summary (show_hierarchical)", "Hugging Face repr (mamba)",
            "Keras 3 summary()", "Keras 3 summary() in colour", "Keras 2 summary()",
            "Keras 2.2-2.3 summary() (cells cut)", "Flax tabulate", "haiku tabulate")
"""Every printer :func:`printers` runs, by name."""
BARE = {"Keras 3 summary() in colour": "Keras 3 summary()"}
"""A printer whose bare paste is another's: the colour codes are a wrapping already."""


# -- the wrappings ----------------------------------------------------------------------------

_CALL = {"print(model)": "print(model)", "Keras 3 summary()": "model.summary()",
         "Keras 2 summary()": "model.summary()"}


def repl(text: str) -> str:
    """A Python REPL transcript: the call after ``>>>`` over the output, a prompt after."""
    return ">>> import torch\n>>> model = build()\n>>> print(model)\n" + text + ">>> \n"


def jupyter(text: str) -> str:
    """An IPython / Jupyter transcript: the output of ``In [3]: model`` as ``Out[3]:`` shows
    a repr of several lines (on the line after the prompt), then the next prompt."""
    return "In [3]: model\nOut[3]: \n" + text.rstrip("\n") + "\n\nIn [4]: \n"


def jupyter_inline(text: str) -> str:
    """The same output on the prompt's own line (``Out[3]: Net(``), as IPython prints a repr
    whose first line is short."""
    return "In [3]: model\nOut[3]: " + text.rstrip("\n") + "\n\nIn [4]: \n"


def quoted(text: str) -> str:
    """A Markdown quote: every line prefixed ``> ``."""
    return "".join("> " + line for line in text.splitlines(keepends=True))


def numbered_bar(text: str) -> str:
    """An editor's or a pastebin's line numbers, right-aligned before ``|``, from line 12."""
    lines = text.splitlines()
    width = len(str(11 + len(lines)))
    return "".join(f"{12 + k:>{width}} | {line}".rstrip() + "\n" for k, line in enumerate(lines))


def numbered_spaces(text: str) -> str:
    """Line numbers before two spaces, as a viewer without a gutter copies them."""
    lines = text.splitlines()
    width = len(str(len(lines)))
    return "".join(f"{1 + k:>{width}}  {line}".rstrip() + "\n" for k, line in enumerate(lines))


def crlf(text: str) -> str:
    """Windows line ends."""
    return text.replace("\n", "\r\n")


def tabs(text: str) -> str:
    """Leading spaces turned into tabs, four to a tab, as an editor set to tabs does."""
    def one(line: str) -> str:
        body = line.lstrip(" ")
        lead = len(line) - len(body)
        return "\t" * (lead // 4) + " " * (lead % 4) + body
    return "".join(one(line) for line in text.splitlines(keepends=True))


_WORD = re.compile(r"[0-9][0-9,.]*|[A-Za-z_][\w.]*")


def ansi(text: str) -> str:
    """Colour codes a terminal's highlighting puts around words and numbers (rich's
    ``\\x1b[1;36m`` ... ``\\x1b[0m``), copied with the text."""
    def paint(match: re.Match[str]) -> str:
        colour = "32" if match.group()[0].isdigit() else "1;36"
        return f"\x1b[{colour}m{match.group()}\x1b[0m"
    return "".join(_WORD.sub(paint, line) for line in text.splitlines(keepends=True))


def escaped(text: str) -> str:
    """HTML-escaped, as scraped from a web page's source (``&lt;``, ``&gt;``, ``&amp;``,
    ``&quot;``, ``&#x27;``)."""
    return html.escape(text)


def twice(text: str) -> str:
    """The printout printed twice, back to back without a blank line (the model before and
    after a step of training)."""
    return text.rstrip("\n") + "\n" + text


TRACEBACK = """Traceback (most recent call last):
  File "/home/user/train.py", line 41, in <module>
    loss = criterion(model(batch), target)
  File "/home/user/venv/lib/python3.11/site-packages/torch/nn/modules/module.py", line 1751, \
in _wrapped_call_impl
    return self._call_impl(*args, **kwargs)
RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB
"""


def traceback(text: str) -> str:
    """The printout, then the traceback the script stopped with (no blank line)."""
    return text.rstrip("\n") + "\n" + TRACEBACK


_ESCAPE = re.compile(r"\x1b\[[0-9;]*m")


def wrapped(text: str, width: int = 80) -> str:
    """Every line longer than ``width`` columns broken onto the next lines at ``width``, as a
    terminal of 80 columns that puts the breaks into the copy does (colour codes take no
    column)."""
    out = []
    for line in text.splitlines():
        piece, shown = "", 0
        for token in re.split(r"(\x1b\[[0-9;]*m)", line):
            if _ESCAPE.fullmatch(token):
                piece += token
                continue
            for character in token:
                if shown == width:
                    out.append(piece)
                    piece, shown = "", 0
                piece += character
                shown += 1
        out.append(piece)
    return "\n".join(out) + "\n"


WRAPPINGS: dict[str, Callable[[str], str]] = {
    "REPL": repl, "Jupyter Out": jupyter, "Jupyter Out inline": jupyter_inline,
    "Markdown quote": quoted, "line numbers, bar": numbered_bar,
    "line numbers, spaces": numbered_spaces,
    "CRLF": crlf, "tabs": tabs, "ANSI colour": ansi, "HTML-escaped": escaped,
    "back to back": twice, "traceback after": traceback, "broken at 80 columns": wrapped,
}
"""Each way a post wraps a printout, by name."""


# -- judging a wrapped paste against the bare one ---------------------------------------------

Signature = tuple[tuple[str, int | None, int | None, tuple[tuple[str, int | None], ...]], ...]


def signature(answer: Answer) -> Signature:
    """What an answer says of the printouts' models: each one's source, total, lower bound and
    layers' names and counts (the code read around a printout is left out)."""
    return tuple((m.source, m.total, m.at_least, tuple((layer.name, layer.params)
                                                       for layer in m.layers))
                 for m in answer.models if m.source != "code")


def judge(bare: Signature, text: str, copies: int = 1) -> tuple[str, str]:
    """How the wrapped ``text`` reads against its bare paste's signature (``copies`` times):
    ``same`` (same models, totals and layers), ``bound`` (no total but the bare one's, and a
    named lower bound that holds), ``both named`` (a total the text cannot tell from the bare
    one's, the bare one's named beside it), else ``nothing``, ``differs`` or ``wrong``, with
    why."""
    try:
        answer = read(text)
    except NothingFound as error:
        return "nothing", str(error)[:200]
    got = signature(answer)
    if got == bare * copies:
        return "same", ""
    totals = {total for _, total, _, _ in bare if total is not None}
    truth = max((total or least or 0 for _, total, least, _ in bare), default=0)
    if any(m.source == "code" and m.total for m in answer.models):
        return "wrong", "a code model counted from the wrapping"
    for source, total, least, _ in got:
        if total is not None and total not in totals and any(
                f"({t:,} each)" in note for t in totals for m in answer.models
                for note in m.notes):
            return "both named", f"{source}: {total:,}, or the bare paste's {sorted(totals)}"
        if total is not None and total not in totals:
            return "wrong", f"{source} claims {total:,}; the bare paste's {sorted(totals)}"
        if least is not None and least > truth:
            return "wrong", f"{source} claims at least {least:,}, above {truth:,}"
    if not got:
        return "nothing", "no model"
    if any(total is None for _, total, _, _ in got) and all(
            m.bound for m in answer.models if m.source != "code" and m.total is None):
        return "bound", "; ".join(m.bound for m in answer.models if m.bound)[:200]
    return "differs", f"{got} vs {bare * copies}"[:300]
