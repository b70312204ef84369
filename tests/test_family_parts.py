"""The families' shared parts, and that the xLSTM, RG-LRU and minGRU conventions stay pure."""

from __future__ import annotations

import doctest
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paramcount.errors import SpecError
from paramcount.families import parts

MODULES = ["xlstm", "xlstm_lm", "rglru", "mingru", "minlm"]


def test_parts_doctests() -> None:
    """The examples in parts' docstrings hold."""
    assert doctest.testmod(parts).failed == 0


def test_family_modules_import_no_framework() -> None:
    """Importing and using the families' conventions loads no framework, click or rich."""
    code = (
        "import sys\n"
        + "".join(f"from paramcount.families import {m}\n" for m in MODULES)
        + "".join(f"{m}.formula({m}.Config()); {m}.tensors({m}.Config())\n" for m in MODULES)
        + "heavy = {'torch', 'tensorflow', 'keras', 'jax', 'flax', 'transformers', 'click', "
        "'rich', 'dataclasses'}\n"
        "print(sorted(heavy & set(sys.modules)))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True)
    assert result.stdout.strip() == "[]"


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 5000), st.integers(1, 5000), st.sampled_from([1, 2, 8, 64]))
def test_factor_for_finds_a_factor_that_rebuilds_the_width(width: int, base: int,
                                                            multiple: int) -> None:
    """A width made by int(base·f) or round_up(base·f, m) is made again by the found factor."""
    target = parts.round_up(width, multiple)
    found = parts.factor_for(target, base, lambda f: parts.round_up(base * f, multiple), 2.0)
    assert parts.round_up(base * found, multiple) == target
    found = parts.factor_for(width, base, lambda f: int(base * f), 0.5)
    assert int(base * found) == width


@pytest.mark.parametrize(
    ("check", "message"),
    [
        (lambda: parts.whole_or_zero("depth", True), "depth=True must be a whole number"),
        (lambda: parts.whole_or_zero("depth", -1), "depth=-1 must be a positive integer"),
        (lambda: parts.factor("ff_mult", float("nan")), "ff_mult=nan must be a positive number"),
        (lambda: parts.factor("ff_mult", "2"), "ff_mult='2' must be a number"),
        (lambda: parts.choice("mode", 1, ("a", "b")), "mode=1 must be one of 'a', 'b'"),
        (lambda: parts.divides("heads", 3, "width", 8, "equal heads"),
         "heads=3 must divide width=8: equal heads"),
    ],
    ids=["bool-is-not-whole", "negative", "nan", "text-factor", "choice", "divides"],
)
def test_checks_name_the_option_and_the_rule(check: object, message: str) -> None:
    """Each check raises one SpecError naming the option, the value and the rule."""
    with pytest.raises(SpecError, match=message):
        check()  # type: ignore[operator]


def test_whole_accepts_zero_where_allowed() -> None:
    """0 is let through (vocab_size=0: the bare stack)."""
    parts.whole_or_zero("vocab_size", 0)


@pytest.mark.parametrize(
    ("family", "field"),
    [("xlstm", "num_blocks"), ("xlstm_lm", "num_blocks"), ("rglru", "num_hidden_layers"),
     ("minlm", "depth")],
    ids=["xlstm", "xlstm-lm", "rglru", "minlm"],
)
def test_a_block_count_beyond_the_listing_limit_is_refused(family: str, field: str) -> None:
    """10^8 blocks is one error line, not a listing that never ends."""
    import importlib

    module = importlib.import_module(f"paramcount.families.{family}")
    with pytest.raises(SpecError, match=f"{field}=100000000 is more blocks than paramcount lists"):
        module.Config(**{field: 10**8})


@pytest.mark.parametrize("size", [10**19, 10**400], ids=["past-int64", "past-float"])
def test_recognisers_pass_over_shapes_too_large(size: int) -> None:
    """Shapes no framework could build (a hostile header) are left unrecognised, quietly."""
    from paramcount.families import mingru, minlm, rglru, xlstm, xlstm_lm

    for module, config in ((xlstm, xlstm.Config(hidden_size=64, vocab_size=10, num_blocks=1)),
                           (xlstm_lm, xlstm_lm.Config(vocab_size=10, slstm_at=(0,))),
                           (rglru, rglru.Config(hidden_size=20, vocab_size=10)),
                           (minlm, minlm.Config(dim=8, depth=1)), (mingru, mingru.Config(8))):
        shapes = {t.name: tuple(size if n > 1 else n for n in t.shape)
                  for t in module.tensors(config)}
        assert module.recognise(shapes) == []


def test_sizes_and_factors_are_bounded() -> None:
    """A size or factor past 2^63 − 1 is one error line (no float overflow later)."""
    from paramcount.families import xlstm

    with pytest.raises(SpecError, match=r"hidden_size=.* is too large"):
        xlstm.Config(hidden_size=10**400)
    with pytest.raises(SpecError, match=r"qk_dim_factor=1e.* must be a positive number, at most"):
        xlstm.Config(qk_dim_factor=1e300)


@pytest.mark.parametrize("index", ["99999999999", "10000", "²"], ids=["huge", "past-limit",
                                                                      "unicode-digit"])
def test_block_indices_past_the_limit_are_no_model(index: str) -> None:
    """A hostile block index (past 10,000, or a digit that is not ASCII) is no model, at once."""
    from paramcount.families import rglru, xlstm_lm

    for module, config in ((xlstm_lm, xlstm_lm.Config(slstm_at=(0,))),
                           (rglru, rglru.Config(hidden_size=20, vocab_size=10, num_hidden_layers=1,
                                                num_attention_heads=2))):
        shapes = {t.name: t.shape for t in module.tensors(config)}
        extra = next(name for name in shapes if ".0." in name).replace(".0.", f".{index}.", 1)
        shapes[extra] = (3,)
        assert module.recognise(shapes) == []


@settings(max_examples=150, deadline=None)
@given(st.sampled_from([*MODULES, "mamba", "mamba2", "rwkv"]), st.data())
def test_recognition_of_damaged_models_never_raises(name: str, data: st.DataObject) -> None:
    """A model with a tensor dropped, resized or renamed is never an error: either nothing is
    recognised, or what is recognised writes exactly the tensors found under its prefix."""
    import importlib

    module = importlib.import_module(f"paramcount.families.{name}")
    shapes = {t.name: t.shape for t in module.tensors(module.Config(
        **{"mingru": {"dim": 8}, "minlm": {"dim": 8, "depth": 2},
           "xlstm": {"hidden_size": 64, "vocab_size": 9, "num_blocks": 2, "num_heads": 2},
           "xlstm_lm": {"vocab_size": 9, "num_blocks": 3, "slstm_at": (1,)},
           "rglru": {"hidden_size": 16, "vocab_size": 9, "num_hidden_layers": 3,
                     "num_attention_heads": 2, "intermediate_size": 8},
           "mamba": {"hidden_size": 16, "vocab_size": 9, "num_hidden_layers": 2,
                     "state_size": 4},
           "mamba2": {"hidden_size": 16, "vocab_size": 9, "num_hidden_layers": 2,
                      "num_heads": 4, "head_dim": 8, "state_size": 4},
           "rwkv": {"hidden_size": 32, "vocab_size": 9, "num_hidden_layers": 2}}[name]))}
    target = data.draw(st.sampled_from(sorted(shapes)))
    damage = data.draw(st.sampled_from(["drop", "resize", "rename", "rank"]))
    if damage == "drop":
        del shapes[target]
    elif damage == "resize":
        shapes[target] = tuple(data.draw(st.integers(1, 10**20)) for _ in shapes[target])
    elif damage == "rename":
        shapes[target.replace(".0.", ".7.")] = shapes.pop(target)
    else:
        shapes[target] = (*shapes[target], 2)
    for found in module.recognise(shapes):
        written = {found.prefix + t.name: t.shape for t in module.tensors(found.config)}
        assert all(shapes[n] == written[n] for n in found.names) and len(written) == len(
            found.names)
