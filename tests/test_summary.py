"""``paramcount.summary(model)`` on live torch, Keras (3 and tf-keras) and Flax models: the
framework's own count, every recurrent layer's exact configuration, nothing run."""

from __future__ import annotations

import json
import math
import subprocess
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import paramcount
from paramcount.engine.conventions.recognition import RNN_NONLINEARITY
from paramcount.engine.spec import Cell, Framework, LayerSpec, Nonlinearity
from paramcount.errors import ParamcountError
from paramcount.files.inspect import Layer
from paramcount.reading.solve import same_configuration
from tests.conftest import have
from tests.printers import (
    KerasPlan,
    TorchPlan,
    build_keras,
    build_torch,
    keras_plans,
    quiet_tensorflow,
    torch_plans,
)
from tests.strategies_more import more_specs

SLOW = settings(max_examples=12, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def same(found: LayerSpec, truth: LayerSpec) -> bool:
    """The same configuration, a plain RNN's nonlinearity included (tanh is the default)."""
    tanh = Nonlinearity.TANH
    return same_configuration(found, truth) and (
        found.cell is not Cell.RNN or truth.framework is not found.framework
        or (found.nonlinearity or tanh) == (truth.nonlinearity or tanh))


def layer_named(layers: tuple[Layer, ...], name: str) -> Layer:
    """The recognised layer whose module path ends in ``name``."""
    found = [layer for layer in layers
             if layer.name == name or layer.name.endswith(("/" + name, "." + name))]
    assert len(found) == 1, (name, [layer.name for layer in layers])
    return found[0]


# -- torch -----------------------------------------------------------------------------------

torch_only = pytest.mark.skipif(not have("torch"), reason="needs torch")


@torch_only
@SLOW
@given(torch_plans())
def test_random_torch_models(plan: TorchPlan) -> None:
    """A random torch model (every cell and option, embeddings, convs, norms) is summarised
    with torch's own count and every recurrent layer's exact configuration, its forward never
    called (it raises)."""
    net, truth, _ = build_torch(plan)

    def refuse(*args: Any) -> Any:
        raise RuntimeError("summary must not run the model")

    net.forward = refuse
    result = paramcount.summary(net)
    assert result.total == sum(p.numel() for p in net.parameters()) == truth.total
    assert result.trainable == result.total and result.frozen == 0
    assert result.buffers == sum(b.numel() for b in net.buffers())
    assert len(result.recurrent) == len(truth.specs)
    for name, spec, count in zip(truth.names, truth.specs, truth.counts, strict=True):
        layer = layer_named(result.recurrent, name)
        assert same(layer.spec, spec), (layer.spec, spec)
        assert layer.params == count and layer.match
    data = json.loads(result.to_json())
    assert data["schema"] == "paramcount.summary/1" and data["total"] == truth.total


@torch_only
def test_torch_tied_frozen_and_buffers() -> None:
    """Tied weights are counted once, frozen parameters and buffers apart, each as torch
    counts them; a module used twice is one module; a model whose forward raises is read."""
    import torch
    from torch import nn

    class Tagger(nn.Module):
        """An embedding tied to the output layer, a shared encoder, a frozen norm."""

        def __init__(self) -> None:
            super().__init__()
            self.embed = nn.Embedding(50, 8)
            self.encoder = nn.GRU(8, 8, num_layers=2, bidirectional=True)
            self.again = self.encoder
            self.norm = nn.BatchNorm1d(16)
            self.norm.requires_grad_(False)
            self.out = nn.Linear(8, 50)
            self.out.weight = self.embed.weight

        def forward(self, x: Any) -> Any:
            raise NotImplementedError("never run")

    with torch.device("cpu"):
        model = Tagger()
    result = paramcount.summary(model)
    assert result.total == sum(p.numel() for p in model.parameters())
    assert result.trainable == sum(p.numel() for p in model.parameters() if p.requires_grad)
    assert result.frozen == 32
    assert result.buffers == sum(b.numel() for b in model.buffers()) == 33
    [gru] = result.recurrent
    assert gru.name == "encoder" and gru.spec == LayerSpec(Cell.GRU, 8, 8, num_layers=2,
                                                           bidirectional=True)
    tied = next(t for t in result.tensors if t.tensor.name == "embed.weight")
    assert tied.aliases == ("out.weight",)
    assert "also out.weight" in repr(result)


@torch_only
def test_torch_recognises_what_only_the_module_knows() -> None:
    """An nn.RNN's relu, which no tensor stores, is read from the module; a module whose
    tensors are not what its options give is read from the shapes, and a note says why."""
    from torch import nn

    model = nn.Sequential(nn.RNN(3, 4, nonlinearity="relu"), nn.LSTM(4, 5))
    model[1].weight_hh_l0 = nn.Parameter(model[1].weight_hh_l0.detach()[:, :4].clone())
    result = paramcount.summary(model)
    assert result.recurrent[0].spec.nonlinearity is Nonlinearity.RELU
    assert any("not the ones its options give" in note for note in result.notes)
    assert result.total == sum(p.numel() for p in model.parameters())


@torch_only
def test_lazy_modules_are_named_not_counted() -> None:
    """A lazy module's parameters, which have no size before a forward pass, are named in a
    note and left out, not guessed."""
    import torch
    from torch import nn

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch warns that lazy modules are experimental
        model = nn.Sequential(nn.LazyLinear(3), nn.LSTM(3, 2))
    result = paramcount.summary(model)
    assert result.total == sum(p.numel() for p in model[1].parameters())
    assert any("not yet initialized" in note for note in result.notes)
    del torch


@pytest.mark.skipif(not (have("torch") and have("transformers")), reason="needs transformers")
def test_hugging_face_family_model() -> None:
    """A Hugging Face Mamba model is one family block, its config read from the model."""
    import torch
    from transformers import MambaConfig, MambaForCausalLM

    config = MambaConfig(vocab_size=64, hidden_size=16, state_size=4, num_hidden_layers=2)
    with torch.device("meta"):
        model = MambaForCausalLM(config)
    result = paramcount.summary(model)
    assert result.total == sum(p.numel() for p in model.parameters())
    [mamba] = result.families
    assert mamba.family == "mamba" and mamba.match and mamba.params == result.total
    data = result.to_dict()["recurrent"][0]
    assert data["family"] == "mamba" and data["config"]["hidden_size"] == 16
    state = next(k for k in data["knobs"] if k["field"] == "state_size")
    assert state["before"] == 4 and state["delta"] > 0  # what each option adds, explained


@pytest.mark.skipif(not (have("torch") and have("transformers")), reason="needs transformers")
def test_hugging_face_model_with_transient_buffers() -> None:
    """RecurrentGemma's non-persistent buffers (rotary frequencies, the embedding normalizer)
    are buffers the state dict leaves out: counted apart, and the family still recognised from
    what a checkpoint would hold."""
    import torch
    from transformers import RecurrentGemmaConfig, RecurrentGemmaForCausalLM

    config = RecurrentGemmaConfig(vocab_size=100, hidden_size=32, intermediate_size=64,
                                  num_hidden_layers=3, num_attention_heads=2,
                                  num_key_value_heads=1, lru_width=32, head_dim=16)
    with torch.device("meta"):
        model = RecurrentGemmaForCausalLM(config)
    result = paramcount.summary(model)
    assert result.total == sum(p.numel() for p in model.parameters())
    assert result.buffers == sum(b.numel() for b in model.buffers())
    assert [(m.family, m.match) for m in result.families] == [("rglru", True)]
    unsaved = {t.tensor.name for t in result.tensors if not t.saved}
    assert unsaved and unsaved <= {n for n, _ in model.named_buffers()}
    assert unsaved.isdisjoint(model.state_dict())


# -- Keras -----------------------------------------------------------------------------------

keras_only = pytest.mark.skipif(
    not (have("keras") and have("tensorflow") and have("tf_keras")),
    reason="needs keras 3, tensorflow and tf-keras")


@pytest.fixture(scope="module")
def eras() -> Iterator[dict[int, Any]]:
    """Keras 3 and Keras 2 (tf-keras), imported once, quietly."""
    quiet_tensorflow()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        import keras
        import tf_keras
    yield {3: keras, 2: tf_keras}


@keras_only
@SLOW
@given(plan=keras_plans(), era=st.sampled_from([3, 2]))
def test_random_keras_models(eras: dict[int, Any], plan: KerasPlan, era: int) -> None:
    """A random Keras model (Sequential or an encoder–decoder, Bidirectional with every merge
    mode, either GRU) is summarised with count_params() and every recurrent layer exact (a
    model tf-keras' Sequential refuses, a last Bidirectional with two outputs, is not drawn)."""
    try:
        model, truth = build_keras(eras[era], plan)
    except ValueError as error:
        assume("single output tensor" not in str(error))
        raise
    result = paramcount.summary(model)
    assert result.total == model.count_params() == truth.total
    assert result.trainable == sum(math.prod(w.shape) for w in model.trainable_weights)
    assert result.buffers == 0
    assert len(result.recurrent) == len(truth.specs)
    for name, spec in zip(truth.names, truth.specs, strict=True):
        layer = layer_named(result.recurrent, name)
        assert layer.spec == spec and layer.match


@keras_only
def test_keras_shared_frozen_and_unbuilt(eras: dict[int, Any]) -> None:
    """A layer applied twice is counted once, a frozen layer's weights and BatchNormalization's
    moving statistics are frozen (as count_params() counts them); an unbuilt layer is named."""
    keras = eras[3]
    inputs = keras.Input((6, 3))
    shared = keras.layers.LSTM(4, return_sequences=True)
    norm = keras.layers.BatchNormalization()
    x = norm(shared(keras.layers.Dense(3)(shared(inputs))))
    model = keras.Model(inputs, keras.layers.Dense(2, trainable=False)(x))
    result = paramcount.summary(model)
    assert result.total == model.count_params()
    assert result.frozen == 2 * 4 + (4 * 2 + 2)
    assert result.recurrent[0].spec == LayerSpec(Cell.LSTM, 3, 4, framework=Framework.KERAS)
    unbuilt = paramcount.summary(keras.layers.GRU(3))
    assert unbuilt.total == 0 and "not built" in unbuilt.notes[0]


@keras_only
def test_keras_layer_without_a_config(eras: dict[int, Any]) -> None:
    """A user's LSTM whose get_config() raises is read from its weights' shapes, and a note
    says why."""
    keras = eras[3]

    class LSTM(keras.layers.LSTM):  # type: ignore[misc]
        """An LSTM that cannot serialise itself."""

        def get_config(self) -> Any:
            raise NotImplementedError("no config")

    model = keras.Sequential([keras.Input((5, 3)), LSTM(4, name="mine")], name="net")
    result = paramcount.summary(model)
    assert result.total == model.count_params()
    assert [layer.spec for layer in result.recurrent] == [
        LayerSpec(Cell.LSTM, 3, 4, framework=Framework.KERAS)]
    assert any("get_config() failed" in note for note in result.notes)


@keras_only
@pytest.mark.parametrize("era", [3, 2], ids=["keras3", "tf-keras"])
def test_bidirectional_with_another_backward_layer(eras: dict[int, Any], era: int,
                                                   tmp_path: Path) -> None:
    """``Bidirectional(LSTM(6), backward_layer=GRU(6))``: each direction as it is (264 and
    216, together count_params()' 480), never "2 × 264 = 528: exact"; the same read from the
    model's saved ``.keras`` file."""
    keras = eras[era]
    inputs = keras.Input((5, 4))
    wrapper = keras.layers.Bidirectional(
        keras.layers.LSTM(6), backward_layer=keras.layers.GRU(6, go_backwards=True))
    model = keras.Model(inputs, wrapper(inputs))
    result = paramcount.summary(model)
    assert result.total == model.count_params() == 480
    specs = [(layer.spec, layer.params, layer.match) for layer in result.recurrent]
    assert specs == [(LayerSpec(Cell.LSTM, 4, 6, framework=Framework.KERAS), 264, True),
                     (LayerSpec(Cell.GRU, 4, 6, framework=Framework.KERAS), 216, True)]
    text = repr(result)
    assert "528" not in text and "Bidirectional(LSTM(6))" not in text
    assert "backward layer is a GRU and forward one a LSTM" in text
    if era == 3:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # numpy's, raised in saving
            model.save(tmp_path / "model.keras")
        saved = paramcount.inspect(tmp_path / "model.keras")
        assert saved.total == 480
        assert [(layer.spec, layer.params) for layer in saved.recurrent] == [
            (spec, params) for spec, params, _ in specs]


@keras_only
def test_convlstm_notes_agree(eras: dict[int, Any]) -> None:
    """A ConvLSTM is described in one note and contradicted by none."""
    keras = eras[3]
    inputs = keras.Input((3, 8, 8, 2))
    model = keras.Model(inputs, keras.layers.ConvLSTM2D(4, 3)(inputs))
    result = paramcount.summary(model)
    assert result.total == model.count_params() == 880
    [note] = result.notes
    assert "ConvLSTM2D(4, kernel_size=(3, 3)) on 2 channels, 880 parameters" in note


# -- Flax ------------------------------------------------------------------------------------

flax_only = pytest.mark.skipif(not (have("jax") and have("flax")), reason="needs jax and flax")


def flax_model(spec: LayerSpec) -> tuple[Any, Any, int]:
    """The Flax stack of ``spec`` then a Dense head (linen: with its variables, shapes only),
    and the parameters it holds as Flax counts them."""
    import jax
    import jax.numpy as jnp
    from flax import linen, nnx

    cells = {Cell.LSTM: "LSTMCell", Cell.GRU: "GRUCell", Cell.RNN: "SimpleCell"}
    out = spec.directions * spec.hidden_size
    relu = spec.nonlinearity is Nonlinearity.RELU
    if spec.framework is Framework.FLAX_LINEN:
        kind = getattr(linen, cells[spec.cell])

        def cell(hidden: int) -> Any:
            return kind(hidden, **({"activation_fn": linen.relu} if relu else {}))

        layers: list[Any] = [
            linen.Bidirectional(linen.RNN(cell(spec.hidden_size)),
                                linen.RNN(cell(spec.hidden_size))) if spec.bidirectional
            else linen.RNN(cell(spec.hidden_size)) for _ in range(spec.num_layers)]
        module = linen.Sequential([*layers, linen.Dense(2)])
        variables = jax.eval_shape(lambda: module.init(jax.random.key(0),
                                                       jnp.zeros((1, 2, spec.input_size))))
        leaves = jax.tree_util.tree_leaves(variables)
        return module, variables, sum(math.prod(leaf.shape) for leaf in leaves)
    made = getattr(nnx, cells[spec.cell])

    def build() -> Any:
        rngs = nnx.Rngs(0)
        width, layers = spec.input_size, []
        options = {"activation_fn": nnx.relu} if relu else {}
        for _ in range(spec.num_layers):
            layers.append(nnx.Bidirectional(
                nnx.RNN(made(width, spec.hidden_size, rngs=rngs, **options)),
                nnx.RNN(made(width, spec.hidden_size, rngs=rngs, **options)))
                if spec.bidirectional
                else nnx.RNN(made(width, spec.hidden_size, rngs=rngs, **options)))
            width = out
        return nnx.Sequential(*layers, nnx.Linear(out, 2, rngs=rngs))

    model = nnx.eval_shape(build)
    state = nnx.state(model, nnx.Param)
    return model, None, sum(math.prod(v.shape) for _, v in nnx.to_flat_state(state))


@flax_only
@SLOW
@given(more_specs(frameworks=(Framework.FLAX_LINEN, Framework.FLAX_NNX), max_size=8))
def test_random_flax_models(spec: LayerSpec) -> None:
    """A random Flax stack (linen with its variables, NNX on its own) and a Dense head: Flax's
    own count, and the stack recognised with its configuration (a SimpleCell's activation,
    which no weight stores, read from the module)."""
    if spec.single_cell:
        spec = spec.replace(single_cell=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        model, variables, total = flax_model(spec)
        result = paramcount.summary(model, variables)
    assert result.total == total
    assert len(result.recurrent) >= 1
    stack = result.recurrent[0]
    assert RNN_NONLINEARITY not in stack.notes
    if spec.num_layers == 1:
        assert len(result.recurrent) == 1 and same(stack.spec, spec), (stack.spec, spec)
    else:  # Sequential's layers are read as one stack or one layer each: the same tensors
        assert sum(layer.params for layer in result.recurrent) == total - (
            spec.directions * spec.hidden_size * 2 + 2)


@flax_only
def test_linen_needs_its_variables() -> None:
    """A linen module holds no parameters: summary asks for the variables in one line."""
    from flax import linen

    with pytest.raises(ParamcountError, match="give the variables"):
        paramcount.summary(linen.Dense(3))


def test_not_a_model() -> None:
    """Anything but a model of a known framework is refused in one line."""
    with pytest.raises(ParamcountError, match=r"is not a model paramcount\.summary reads"):
        paramcount.summary([1, 2, 3])


@torch_only
def test_summary_imports_no_framework_of_its_own() -> None:
    """Summarising a torch model loads neither TensorFlow, Keras nor Flax, and the import of
    paramcount alone none of them."""
    code = ("import torch, sys, paramcount\n"
            "paramcount.summary(torch.nn.LSTM(3, 4))\n"
            "print(' '.join(sorted({m.split('.')[0] for m in sys.modules})))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert not set(out.stdout.split()) & {"tensorflow", "keras", "flax", "jax", "rich",
                                          "click"}


@flax_only
def test_nnx_bidirectional_sharing_one_cell() -> None:
    """An NNX Bidirectional whose two RNNs share one GRUCell: recognised, counted once (as
    NNX's own state holds it), and said."""
    import jax
    from flax import nnx

    rngs = nnx.Rngs(0)
    cell = nnx.GRUCell(4, 6, rngs=rngs)
    model = nnx.Bidirectional(nnx.RNN(cell), nnx.RNN(cell, reverse=True, keep_order=True))
    truth = sum(x.size for x in jax.tree.leaves(nnx.state(model, nnx.Param)))
    result = paramcount.summary(model)
    assert result.total == truth == 198
    [layer] = result.recurrent
    assert layer.spec == LayerSpec(Cell.GRU, 4, 6, framework=Framework.FLAX_NNX)
    assert layer.params == 198 and layer.match
    assert any("one GRUCell shared by both directions" in n for n in layer.notes)
