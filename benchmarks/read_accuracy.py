"""How ``paramcount read`` fares on what the real printers print: the table in ``docs/read.md``.

    python benchmarks/read_accuracy.py [--torch 200] [--keras 60] [--more 120] [--flax 25]
                                       [--hf 60] [--posts 200] [--generic 40] [--wrapped 40]
                                       [--quick] [--update]

Random models (``tests/printers.py``: every recurrent cell and option, with embedding, linear,
conv and norm layers; Keras Sequential stacks and functional encoder–decoders) are built with
torch, Keras 3 and tf-keras, printed by each printer (torchinfo with random columns, depth,
verbosity and row settings; Keras summaries at random widths, half with the Trainable column)
and read back; so are Lightning's ModelSummary and RichModelSummary, pytorch-model-summary's
three styles (``tests/printers_more.py``), Flax linen's ``tabulate`` of random linen models,
Hugging Face ``print(model)`` of random small Mamba, Mamba-2, RWKV, RecurrentGemma and xLSTM
models, and posts composed from the real printouts of one model or of two (any of the above
printers, from ``tests.printers_more.MAKERS``, code beside the printout of the model it builds
too), with prose, fences, crops, CRLF, tabs, indentation lost, spacing squeezed, prefixes
(indented, quoted, commented) and no-break spaces. Every recurrent layer (a family model
counts as one) is scored exact, ambiguous (the truth among the configurations listed), unsized
(no configuration claimed, with a note saying why), partial (a layer a crop cut away, the crop
named, or of lines the answer names as not read) or wrong;
a wrong total or a disagreement claimed between true counts is scored wrong too. The draws are
seeded, so a run is reproducible.
The printers paramcount has no dialect of (fvcore's two tables, ptflops' per-layer print,
``named_parameters()`` with a ``requires_grad`` column, a state dict printed as a dict:
``tests/printers_generic.py``; haiku's ``tabulate`` and the printers found after them,
``tests/printers_found.py``, on a quarter as many models) are scored in a table of their own
(``--generic``); every torch printer's paste wrapped as people post it (a REPL or Jupyter
transcript, quoted, line numbers, CRLF, tabs, colour codes, HTML escapes, two back to back, a
traceback after, lines broken at 80 columns: ``tests/printers_wrapped.py``) in a third
(``--wrapped``), a row per wrapping. ``--update``
rewrites the tables between the markers in ``docs/read.md`` (only the generic one where every
other count is 0).
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
START, END = "<!-- accuracy:start -->", "<!-- accuracy:end -->"
GENERIC_START, GENERIC_END = "<!-- generic:start -->", "<!-- generic:end -->"
WRAPPED_START, WRAPPED_END = "<!-- wrapped:start -->", "<!-- wrapped:end -->"


def _settings(examples: int) -> Any:
    """Hypothesis' settings of a seeded run of ``examples`` draws (a run of 0 is never called:
    its settings are 1), generation only, no health checks."""
    from hypothesis import HealthCheck, Phase, settings

    return settings(max_examples=max(examples, 1), deadline=None, database=None,
                    phases=[Phase.generate], suppress_health_check=list(HealthCheck))


def measure(torch_models: int, keras_models: int, more: int = 0, flax: int = 0, hf: int = 0,
            posts: int = 0) -> tuple[dict[str, int], object]:
    """Read every printer's paste of the random models; the pastes per printer and the score."""
    from hypothesis import given, seed
    from hypothesis import strategies as st

    from tests.printers import (
        Paste,
        Score,
        build_keras,
        check,
        keras2_old_text,
        keras_plans,
        keras_text,
        quiet_tensorflow,
        torch_pastes,
        torch_plans,
    )

    score = Score()
    pastes: dict[str, int] = {}

    quick = _settings

    def tally(paste: Paste) -> None:
        pastes[paste.printer] = pastes.get(paste.printer, 0) + 1
        try:
            check(paste, score)
        except AssertionError as error:  # a wrong total or a claimed disagreement
            score.add(paste.printer, "wrong", str(error)[:300])

    @seed(19)
    @quick(torch_models)
    @given(torch_plans(), st.data())
    def torch_run(plan: object, data: st.DataObject) -> None:
        for paste in torch_pastes(plan, data.draw):  # type: ignore[arg-type]
            tally(paste)

    quiet_tensorflow()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import keras
        import tf_keras

        @seed(19)
        @quick(keras_models)
        @given(keras_plans(), st.one_of(st.none(), st.integers(50, 140)), st.booleans())
        def keras_run(plan: object, width: int | None, trainable: bool) -> None:
            for era, module in ((3, keras), (2, tf_keras)):
                try:
                    model, truth = build_keras(module, plan)  # type: ignore[arg-type]
                except ValueError:  # tf-keras' Sequential refuses a two-output layer
                    continue
                text = keras_text(model, era, width, trainable)
                tally(Paste(f"Keras {era} summary()", text, truth))
                if era == 2:  # as TF 1.x to 2.3 printed it: cells cut at the column's edge
                    functional = getattr(plan, "functional", False)
                    positions = [.33, .55, .67, 1.] if functional else [.45, .85, 1.]
                    old = keras2_old_text(model, width or (98 if functional else 65),
                                          positions)
                    tally(Paste("Keras 2.2–2.3 summary() (cells cut)", old, truth))

        if torch_models:
            torch_run()
        if keras_models:
            keras_run()
    measure_more(more, flax, hf, posts, score, pastes, quick, tally)
    return pastes, score


def measure_generic(models: int) -> tuple[dict[str, int], object]:
    """Read the generic forms' pastes of random torch models; the pastes per form and the
    score."""
    from hypothesis import given, seed
    from hypothesis import strategies as st

    from tests.printers import Paste, Score, check, torch_plans
    from tests.printers_generic import torch_generic_pastes

    score = Score()
    pastes: dict[str, int] = {}
    if not models:
        return pastes, score

    @seed(29)
    @_settings(models)
    @given(torch_plans(), st.data())
    def run(plan: object, data: st.DataObject) -> None:
        for paste in torch_generic_pastes(plan, data.draw):  # type: ignore[arg-type]
            assert isinstance(paste, Paste)
            pastes[paste.printer] = pastes.get(paste.printer, 0) + 1
            try:
                check(paste, score)
            except AssertionError as error:
                score.add(paste.printer, "wrong", str(error)[:300])

    from tests.printers_found import found_pastes

    @seed(31)
    @_settings(models // 4)
    @given(st.data())
    def found(data: st.DataObject) -> None:
        for paste in found_pastes(data.draw):
            pastes[paste.printer] = pastes.get(paste.printer, 0) + 1
            try:
                check(paste, score)
            except AssertionError as error:
                score.add(paste.printer, "wrong", str(error)[:300])

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        run()
        found()
    return pastes, score


def measure_wrapped(models: int) -> tuple[dict[str, int], object]:
    """Every torch printer's paste of random models (``tests/printers.py``,
    ``tests/printers_generic.py``), and both Keras eras' summaries of a quarter as many random
    Keras models, wrapped as people post them (``tests/printers_wrapped.py``:
    a REPL or Jupyter transcript, quoted, line numbers, CRLF, tabs, colour codes, HTML
    escapes, a traceback after, lines broken at 80 columns), each read and scored as the bare
    paste is; two back to back must read as two models alike to the bare paste's, then scored
    as it (bare ``parameters()`` shapes twice are also one model whose layers repeat: not
    scored)."""
    from hypothesis import given, seed
    from hypothesis import strategies as st

    from paramcount.reading.pipeline import read
    from tests import printers
    from tests.printers import Paste, Score, check
    from tests.printers_generic import torch_generic_pastes
    from tests.printers_wrapped import WRAPPINGS, judge, signature

    score = Score()
    pastes: dict[str, int] = {}
    if not models:
        return pastes, score

    def wrapped(made: list[Paste], data: st.DataObject) -> None:
        for paste in made:
            assert isinstance(paste, Paste)
            wrapping = data.draw(st.sampled_from(sorted(WRAPPINGS)))
            if wrapping == "back to back" and paste.printer == "parameters() shapes":
                continue
            label = f"wrapped: {wrapping}"
            pastes[label] = pastes.get(label, 0) + 1
            text = WRAPPINGS[wrapping](paste.text)
            try:
                if wrapping == "back to back":
                    outcome, why = judge(signature(read(paste.text)), text, 2)
                    assert outcome == "same", (outcome, why, text)
                    text = paste.text  # the same models, layers and totals: scored as it
                check(Paste(label, text, paste.truth, paste.total_printed), score)
            except AssertionError as error:
                score.add(label, "wrong", f"{paste.printer}: {str(error)[:300]}")

    @seed(37)
    @_settings(models)
    @given(printers.torch_plans(), st.data())
    def run(plan: object, data: st.DataObject) -> None:
        wrapped([*printers.torch_pastes(plan, data.draw),  # type: ignore[arg-type]
                 *torch_generic_pastes(plan, data.draw)], data)  # type: ignore[arg-type]

    printers.quiet_tensorflow()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import keras
        import tf_keras

        @seed(41)
        @_settings(max(1, models // 4))
        @given(printers.keras_plans(), st.data())
        def keras_run(plan: object, data: st.DataObject) -> None:
            for era, module in ((3, keras), (2, tf_keras)):
                built = printers.keras_built(module, plan)  # type: ignore[arg-type]
                if built is not None:
                    wrapped([Paste(f"Keras {era} summary()",
                                   printers.keras_text(built[0], era), built[1])], data)

        run()
        keras_run()
    return pastes, score


def measure_more(more: int, flax: int, hf: int, posts: int, score: object,
                 pastes: dict[str, int], quick: Callable[[int], Any],
                 tally: Callable[[Any], None]) -> None:
    """The printers of ``tests/printers_more.py`` and composed posts, into ``score``."""
    from hypothesis import given, seed
    from hypothesis import strategies as st

    from tests.printers import Paste, Score, torch_plans
    from tests.printers_more import (
        Post,
        check_post,
        flax_paste,
        flax_plans,
        hf_configs,
        hf_paste,
        score_family,
        torch_more_pastes,
    )
    from tests.printers_more import posts as composed

    assert isinstance(score, Score)
    settings_of, count = quick, tally

    @seed(23)
    @settings_of(more)
    @given(torch_plans(), st.data())
    def more_run(plan: object, data: st.DataObject) -> None:
        for paste in torch_more_pastes(plan, data.draw):  # type: ignore[arg-type]
            count(paste)

    @seed(23)
    @settings_of(flax)
    @given(flax_plans())
    def flax_run(plan: object) -> None:
        count(flax_paste(plan))  # type: ignore[arg-type]

    @seed(23)
    @settings_of(hf)
    @given(hf_configs())
    def hf_run(case: tuple[str, dict[str, object]]) -> None:
        paste: Paste = hf_paste(*case)
        pastes[paste.printer] = pastes.get(paste.printer, 0) + 1
        try:
            score_family(paste, score)
        except AssertionError as error:
            score.add(paste.printer, "wrong", str(error)[:300])

    @seed(23)
    @settings_of(posts)
    @given(composed())
    def posts_run(post: Post) -> None:
        label = "composed posts" if len(set(post.models)) < 2 else "composed posts, two models"
        pastes[label] = pastes.get(label, 0) + 1
        try:
            check_post(post, score, label)
        except AssertionError as error:
            score.add(label, "wrong", str(error)[:300])

    for run, examples in ((more_run, more), (flax_run, flax), (hf_run, hf), (posts_run, posts)):
        if examples:
            run()


def table(pastes: dict[str, int], score: object) -> str:
    """The Markdown table: per printer, how many layers were read exact, ambiguous, ..."""
    from tests.printers import OUTCOMES, Score

    assert isinstance(score, Score)
    lines = ["| printer | pastes | recurrent layers | exact | ambiguous | unsized "
             "| partial, named | wrong |",
             "| :--- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for printer in sorted(pastes):
        counts = [score.counts[printer, outcome] for outcome in OUTCOMES]
        total = sum(counts)
        cells = [f"{n:,} ({100 * n / total:.0f} %)" if total else "0" for n in counts]
        lines.append(f"| {printer} | {pastes[printer]:,} | {total:,} | " + " | ".join(cells)
                     + " |")
    return "\n".join(lines)


def main() -> None:
    """Measure, print the table, and with ``--update`` write it into docs/read.md."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--torch", type=int, default=200, help="random torch models")
    parser.add_argument("--keras", type=int, default=60, help="random Keras models")
    parser.add_argument("--more", type=int, default=120,
                        help="random torch models for Lightning and pytorch-model-summary")
    parser.add_argument("--flax", type=int, default=25, help="random flax linen models")
    parser.add_argument("--hf", type=int, default=60, help="random Hugging Face family models")
    parser.add_argument("--posts", type=int, default=200, help="composed posts")
    parser.add_argument("--generic", type=int, default=40,
                        help="random torch models for the generic forms (fvcore, ptflops, "
                             "listings)")
    parser.add_argument("--wrapped", type=int, default=40,
                        help="random torch models whose pastes are wrapped as posted (a REPL "
                             "transcript, line numbers, colour codes ...)")
    parser.add_argument("--quick", action="store_true",
                        help="a small run (5 torch, 5 Keras, 5 more, 1 Flax, 5 HF models, "
                             "40 posts), for a check, not the table")
    parser.add_argument("--update", action="store_true", help="rewrite docs/read.md's table")
    args = parser.parse_args()
    if args.quick:
        if args.update:
            parser.error("--quick makes a small run: the table is not rewritten from it")
        args.torch, args.keras, args.more, args.flax, args.hf, args.posts = 5, 5, 5, 1, 5, 40
        args.generic = args.wrapped = 5
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    main_run = any((args.torch, args.keras, args.more, args.flax, args.hf, args.posts))
    path = ROOT / "docs" / "read.md"
    for markers, (pastes, score) in (
            ((START, END), measure(args.torch, args.keras, args.more, args.flax, args.hf,
                                   args.posts) if main_run else ({}, None)),
            ((GENERIC_START, GENERIC_END), measure_generic(args.generic)),
            ((WRAPPED_START, WRAPPED_END), measure_wrapped(args.wrapped))):
        if score is None or not pastes:
            continue
        text = table(pastes, score)
        layers = sum(getattr(score, "counts", {}).values())
        print(text)
        print(f"\n{layers:,} layers scored")
        for reason in getattr(score, "wrong", [])[:5]:
            print("\nwrong:", reason)
        if args.update:
            doc = path.read_text()
            head, rest = doc.split(markers[0], 1)
            _, tail = rest.split(markers[1], 1)
            path.write_text(f"{head}{markers[0]}\n{text}\n{markers[1]}{tail}")


if __name__ == "__main__":
    main()
