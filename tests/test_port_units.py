"""Common layers in a port (Linear/Dense, Embedding, Conv, batch and layer norms)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paramcount.engine.spec import Framework
from paramcount.porting.execute import evaluate
from paramcount.porting.units import (
    LEAVES,
    Kind,
    Unit,
    file_name,
    plan_rows,
    recognise,
    target_unit,
)
from tests.conftest import CLI

np = pytest.importorskip("numpy")

PORTABLE = (Framework.TORCH, Framework.KERAS, Framework.FLAX_LINEN, Framework.ONNX)


def torch_unit(kind: Kind, sizes: tuple[int, ...], bias: bool = True) -> Unit:
    """A layer of ``kind`` in torch's names under ``layer.``, from torch-order sizes."""
    source = Unit(kind, Framework.TORCH, "layer.", ())
    if kind is Kind.LINEAR:
        weight = (sizes[1], sizes[0])
    elif kind is Kind.CONV:
        weight = (sizes[1], sizes[0], *sizes[2:])
    else:
        weight = sizes
    tensors = [("weight", "layer.weight", weight)]
    if bias and kind is not Kind.EMBEDDING:
        tensors.append(("bias", "layer.bias", (weight[0],)))
    if kind is Kind.BATCHNORM:
        tensors += [("running_mean", "layer.running_mean", weight),
                    ("running_var", "layer.running_var", weight),
                    ("num_batches_tracked", "layer.num_batches_tracked", ())]
    return Unit(kind, source.framework, source.prefix, tuple(tensors))


def arrays_of(unit: Unit, seed: int) -> dict[str, Any]:
    """Random values for every tensor of ``unit`` (an int64 counter for torch's batch count)."""
    rng = np.random.default_rng(seed)
    return {name: np.array(7, dtype=np.int64) if role == "num_batches_tracked" else
            rng.standard_normal(shape).astype(np.float32) for role, name, shape in unit.tensors}


def ported(source: Unit, arrays: dict[str, Any], framework: Framework
           ) -> tuple[Unit, dict[str, Any]]:
    """``source`` planned and evaluated into ``framework``'s convention."""
    target = target_unit(source, framework, "moved/")
    assert target is not None
    made = {name: evaluate(expr, arrays.__getitem__, np.float32)
            for name, _, expr in plan_rows(source, target)}
    return target, made


CASES = [
    pytest.param(Kind.LINEAR, (6, 4), id="linear"),
    pytest.param(Kind.EMBEDDING, (9, 5), id="embedding"),
    pytest.param(Kind.CONV, (3, 5, 2), id="conv1d"),
    pytest.param(Kind.CONV, (3, 5, 2, 4), id="conv2d"),
    pytest.param(Kind.CONV, (2, 3, 2, 3, 1), id="conv3d"),
    pytest.param(Kind.BATCHNORM, (7,), id="batchnorm"),
    pytest.param(Kind.NORM, (7,), id="layernorm"),
]


@pytest.mark.parametrize("framework", [pytest.param(f, id=f.value) for f in PORTABLE[1:]])
@pytest.mark.parametrize(("kind", "sizes"), CASES)
def test_round_trip_is_bit_exact(kind: Kind, sizes: tuple[int, ...],
                                 framework: Framework) -> None:
    """torch → another convention → torch gives back every tensor bit for bit."""
    source = torch_unit(kind, sizes)
    arrays = arrays_of(source, 0)
    there, made = ported(source, arrays, framework)
    found, unread = recognise({name: shape for _, name, shape in there.tensors}, framework)
    assert unread == [] and len(found) == 1
    assert kind in (found[0].kind, *found[0].alternatives)  # torch's and ONNX's (n, d) weight
    back, again = ported(replace(found[0], kind=kind), made, Framework.TORCH)
    for (role, name, _), (_, original, _) in zip(back.tensors, source.tensors, strict=False):
        if role == "num_batches_tracked":  # a training counter: kept by torch only
            assert framework is Framework.TORCH or again[name] == 0
            continue
        assert again[name].tobytes() == arrays[original].tobytes(), name


@pytest.mark.parametrize(("kind", "sizes"), CASES)
def test_layouts_are_the_frameworks(kind: Kind, sizes: tuple[int, ...]) -> None:
    """Keras and Flax hold a Dense kernel (in, out) and a conv kernel (k…, in, out)."""
    source = torch_unit(kind, sizes)
    target, made = ported(source, arrays_of(source, 1), Framework.KERAS)
    weight = made[target.tensors[0][1]]
    original = arrays_of(source, 1)["layer.weight"]
    if kind is Kind.LINEAR:
        np.testing.assert_array_equal(weight, original.T)
    elif kind is Kind.CONV:
        rank = len(sizes) - 2
        np.testing.assert_array_equal(weight, original.transpose(*range(2, rank + 2), 1, 0))
    else:
        np.testing.assert_array_equal(weight, original)


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(PORTABLE), st.sampled_from(PORTABLE), st.integers(1, 3),
       st.lists(st.integers(1, 4), min_size=2, max_size=5))
def test_any_conv_moves_between_any_two_conventions(a: Framework, b: Framework, rank: int,
                                                    sizes: list[int]) -> None:
    """A convolution of any rank goes a → b → a unchanged, whatever the two conventions."""
    sizes = (sizes + [2] * 5)[:rank + 2]
    source, arrays = ported(torch_unit(Kind.CONV, tuple(sizes)),
                            arrays_of(torch_unit(Kind.CONV, tuple(sizes)), 2), a)
    there, made = ported(source, arrays, b)
    _, again = ported(there, made, a)
    assert {n: v.tobytes() for n, v in again.items()} == {n: arrays[n].tobytes() for n in again}


@pytest.mark.parametrize(("framework", "names", "kind"), [
    pytest.param(Framework.KERAS, {"d/kernel": (3, 2), "d/bias": (2,)}, Kind.LINEAR,
                 id="keras-dense"),
    pytest.param(Framework.KERAS, {"e/embeddings": (9, 4)}, Kind.EMBEDDING, id="keras-embedding"),
    pytest.param(Framework.KERAS, {"n/gamma": (4,), "n/beta": (4,), "n/moving_mean": (4,),
                                   "n/moving_variance": (4,)}, Kind.BATCHNORM, id="keras-bn"),
    pytest.param(Framework.FLAX_LINEN, {"params/Conv_0/kernel": (3, 2, 5),
                                        "params/Conv_0/bias": (5,)}, Kind.CONV,
                 id="flax-conv"),
    pytest.param(Framework.FLAX_LINEN, {"params/B/scale": (4,), "params/B/bias": (4,),
                                        "batch_stats/B/mean": (4,), "batch_stats/B/var": (4,)},
                 Kind.BATCHNORM, id="flax-bn"),
    pytest.param(Framework.TORCH, {"ln.weight": (4,), "ln.bias": (4,)}, Kind.NORM,
                 id="torch-layernorm"),
    pytest.param(Framework.ONNX, {"head.weight": (5, 16), "head.bias": (5,)}, Kind.LINEAR,
                 id="onnx-exported-names"),
    pytest.param(Framework.ONNX, {"bn/weight": (4,), "bn/bias": (4,), "bn/running_mean": (4,),
                                  "bn/running_var": (4,)}, Kind.BATCHNORM, id="onnx-ports-names"),
])
def test_recognised_by_names_and_shapes(framework: Framework, names: dict[str, Any],
                                        kind: Kind) -> None:
    """Each convention's names and shapes are read as the layer they belong to."""
    found, unread = recognise(names, framework)
    assert unread == [] and [u.kind for u in found] == [kind]


def test_a_weight_without_a_bias_is_two_kinds_in_torch() -> None:
    """torch's (n, d) weight alone is a Linear without bias or an Embedding: both are kept."""
    found, _ = recognise({"proj.weight": (5, 3)}, Framework.TORCH)
    assert (found[0].kind, found[0].alternatives) == (Kind.LINEAR, (Kind.EMBEDDING,))


def test_every_role_has_a_leaf_in_every_portable_convention() -> None:
    """Each kind's weight has a name in every convention port writes common layers to."""
    for framework in PORTABLE:
        for kind in Kind:
            assert "weight" in LEAVES[framework][kind], (framework, kind)
    assert file_name(Framework.FLAX_LINEN, "bn/", "batch_stats/mean") == "batch_stats/bn/mean"


# ------------------------------------------------------------------------------- the CLI

torch = pytest.importorskip("torch")


def _save(path: Path, state: dict[str, Any]) -> Path:
    torch.save(state, path)
    return path


def test_a_tensor_nothing_maps_is_named_and_nothing_written(cli: CLI, tmp_path: Path) -> None:
    """A tensor no layer holds refuses the port (exit 2), names it, and writes nothing."""
    model = torch.nn.ModuleDict({"head": torch.nn.Linear(4, 2)})
    state = dict(model.state_dict()) | {"temperature": torch.ones(3, 2, 2, 2, 2, 2)}
    path = _save(tmp_path / "m.pt", state)
    out = tmp_path / "m.npz"
    result = cli("port", str(path), "--to", "keras", "--out", str(out))
    assert result.code == 2
    assert result.err == (f"Error: nothing in Keras maps 1 tensor of {path}: temperature "
                          "(3, 2, 2, 2, 2, 2); --allow-unmapped leaves them out\n")
    assert not out.exists()
    allowed = cli("port", str(path), "--to", "keras", "--out", str(out), "--allow-unmapped")
    assert allowed.code == 0, allowed.err
    assert "left out (--allow-unmapped): temperature (3, 2, 2, 2, 2, 2)" in allowed.out
    assert sorted(np.load(out).files) == ["head/bias", "head/kernel"]


def test_an_ambiguous_weight_is_refused_with_its_readings(cli: CLI, tmp_path: Path) -> None:
    """A torch weight (n, d) alone, not named as an embedding, is refused naming both readings."""
    path = _save(tmp_path / "m.pt", {"proj.weight": torch.ones(5, 3)})
    result = cli("port", str(path), "--to", "keras")
    assert result.code == 2
    assert result.err == ("Error: proj.weight (5, 3) could be a linear or embedding layer, "
                          "which port moves differently; give --model (your target model) to "
                          "tell\n")
    named = _save(tmp_path / "e.pt", {"word_embeddings.weight": torch.ones(5, 3)})
    result = cli("port", str(named), "--to", "keras")
    assert result.code == 0, result.err
    assert "word_embeddings: nn.Embedding(5, 3) → Embedding(5, 3)" in result.out


def test_norm_settings_are_stated_when_they_differ(cli: CLI, tmp_path: Path) -> None:
    """A batch norm's epsilon and momentum are said when the target's defaults differ."""
    path = _save(tmp_path / "bn.pt", torch.nn.ModuleDict(
        {"bn": torch.nn.BatchNorm1d(4)}).state_dict())
    result = cli("port", str(path), "--to", "keras")
    assert result.code == 0, result.err
    text = " ".join(result.out.split())
    assert "bn: epsilon 1e-05 in the source (PyTorch's default: the file does not store " \
        "it), 0.001 in Keras (the default): build it with epsilon=1e-05" in text
    assert "bn: momentum=0.1 in the source is momentum=0.9 in Keras" in text
    assert "bn.num_batches_tracked: Keras keeps no count of training batches; left out" in text


def test_a_bias_alone_is_no_layer() -> None:
    """A bias whose weight has no name (torch.onnx.export's MatMul) is left for the refusal."""
    assert recognise({"head.bias": (5,)}, Framework.ONNX) == ([], ["head.bias"])
