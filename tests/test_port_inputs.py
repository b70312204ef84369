"""``port --verify --model`` on models whose input is not [N, T, features]: each model gets the
test input in its own layout, sized by what the models declare and ``--input-shape``.

The models are real: a torch CRNN (Conv2d on [N, C, H, W]) and its Keras twin (channels last),
and a Keras model of a fixed sequence length with its torch twin (tests/port_models.py).
"""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from paramcount.porting.inputs import (
    Example,
    InputError,
    Layout,
    parse_shape,
    plan,
    random_batch,
    what_to_pass,
)
from tests import port_models
from tests.conftest import CLI, have

MODELS = "tests.port_models"


@pytest.fixture(scope="module")
def crnn(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The torch CRNN's checkpoint, with random weights and running statistics."""
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    model = port_models.torch_crnn()
    with torch.no_grad():
        for parameter in model.parameters():
            parameter.normal_(0, 0.4)
        model.bn.running_mean.normal_()
        model.bn.running_var.uniform_(0.5, 2.0)
    path = tmp_path_factory.mktemp("crnn") / "crnn.pt"
    torch.save(model.state_dict(), path)
    return path


@pytest.fixture(scope="module")
def fixed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A Keras model of a fixed sequence length (10 steps), saved by Keras."""
    if not have("keras"):
        pytest.skip("needs keras")
    path = tmp_path_factory.mktemp("fixed") / "fixed.keras"
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "__array__ implementation", DeprecationWarning)
        port_models.keras_fixed().save(str(path))
    return path


pytestmark = [pytest.mark.torch, pytest.mark.keras,
              pytest.mark.skipif(not (have("torch") and have("keras")),
                                 reason="needs torch and keras")]


def test_a_torch_crnn_into_keras_is_verified(cli: CLI, crnn: Path, tmp_path: Path) -> None:
    """The torch CRNN reads [3, 1, 8, 7] and its Keras twin [3, 8, 7, 1] (the height its Input
    declares, channels last): equal, and written (this exited 70)."""
    out = tmp_path / "crnn.weights.h5"
    result = cli("port", str(crnn), "--to", "keras", "--model", f"{MODELS}:keras_crnn",
                 "--source-model", f"{MODELS}:torch_crnn", "--verify", "--out", str(out))
    assert result.code == 0, result.err
    assert "Whole model\n  equal: torch " in result.out
    twin = port_models.keras_crnn()
    twin.load_weights(str(out))
    saved = tmp_path / "crnn.keras"
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "__array__ implementation", DeprecationWarning)
        twin.save(str(saved))
    result = cli("port", str(saved), "--to", "torch", "--model", f"{MODELS}:torch_crnn",
                 "--verify", "--out", str(tmp_path / "back.pt"))
    assert result.code == 0, result.err
    assert "Whole model\n  equal: keras " in result.out


def test_outputs_channels_first_and_last_are_compared_alike() -> None:
    """A model ending in a convolution gives [N, C, T] in torch and [N, T, C] in Keras: the
    same values, compared as such; other shapes that differ are refused."""
    np = pytest.importorskip("numpy")
    from paramcount.porting.model import ModelError
    from paramcount.porting.whole import Runner, compare_models

    weight = np.arange(6, dtype=np.float32).reshape(2, 3)
    torch_like = Runner(lambda x: np.einsum("oc,nct->not", weight, x), "torch",
                        Layout("torch", True))
    keras_like = Runner(lambda x: np.einsum("oc,ntc->nto", weight, x), "keras",
                        Layout("keras", False))
    example = Example(False, 3, (5,))
    comparison = compare_models(torch_like, keras_like, example, 0, torch_like.layout)
    assert comparison.ok and comparison.difference == 0.0
    flat = Runner(lambda x: x.reshape(len(x), -1), "keras", Layout("keras", False))
    with pytest.raises(ModelError, match="do not compute the same function"):
        compare_models(torch_like, flat, example, 0, torch_like.layout)


def test_a_fixed_length_keras_model_into_torch_is_verified(cli: CLI, fixed: Path,
                                                           tmp_path: Path) -> None:
    """A Keras model declaring 10 steps is run on 10 steps, and so is its torch twin (this
    exited 70: both were given 7)."""
    out = tmp_path / "fixed.pt"
    result = cli("port", str(fixed), "--to", "torch", "--model", f"{MODELS}:torch_fixed",
                 "--verify", "--out", str(out))
    assert result.code == 0, result.err
    assert "Whole model\n  equal: keras " in result.out


def test_sizes_no_model_declares_are_asked_for(cli: CLI, crnn: Path) -> None:
    """Where neither model declares the height, the model that cannot run on a free size is
    named in one line with the --input-shape to give; given, the port is verified."""
    args = ["port", str(crnn), "--to", "keras", "--model", f"{MODELS}:keras_crnn",
            "--kwargs", '{"height": null}', "--source-model", f"{MODELS}:torch_crnn",
            "--verify"]
    result = cli(*args)
    assert result.code == 2
    assert result.err.count("\n") == 1, result.err
    assert result.err.startswith("Error: the source model (torch ")
    assert "on the test input (3, 1, 7, 7) port built for it" in result.err
    assert result.err.rstrip().endswith(
        "give --input-shape 1,H,W (one example without the batch axis, as the source model "
        "reads it)")
    result = cli(*args, "--input-shape", "1,8,5")
    assert result.code == 0, result.err
    assert "Whole model\n  equal: torch " in result.out


@pytest.mark.parametrize(("extra", "message"), [
    pytest.param(["--input-shape", "1,9,5"], "--input-shape gives the sizes (9, 5) and the "
                 "keras model's declared input (8, None): they disagree", id="disagrees"),
    pytest.param(["--input-shape", "3,8,5"], "--input-shape (3, 8, 5) does not start with the 1 "
                 "channels the source's first layer reads (torch puts channels first)",
                 id="channels"),
    pytest.param(["--input-shape", "1,eight"], "--input-shape 1,eight: expected sizes such as "
                 "1,32,100", id="not-numbers"),
    pytest.param(["--input-shape", "0,8"], "--input-shape 0,8: expected sizes", id="zero"),
])
def test_input_shapes_that_cannot_be_are_refused(cli: CLI, crnn: Path, extra: list[str],
                                                 message: str) -> None:
    """An --input-shape that contradicts a model or is not sizes: one line, exit 2."""
    result = cli("port", str(crnn), "--to", "keras", "--model", f"{MODELS}:keras_crnn",
                 "--source-model", f"{MODELS}:torch_crnn", "--verify", *extra)
    assert result.code == 2
    assert result.err.count("\n") == 1 and message in result.err, result.err


def test_input_shape_needs_a_model(cli: CLI, crnn: Path) -> None:
    """--input-shape without --model has nothing to shape: refused, exit 2."""
    result = cli("port", str(crnn), "--to", "keras", "--input-shape", "1,8,5")
    assert (result.code, result.err) == (2, "Error: --input-shape shapes the whole models' "
                                            "test input: give it with --model (and --verify)\n")


@pytest.mark.parametrize(("example", "layout", "shape"), [
    pytest.param(Example(False, 1, (None, None)), Layout("torch", True), "1,H,W", id="torch-2d"),
    pytest.param(Example(False, 1, (None, None)), Layout("keras", False), "H,W,1", id="keras-2d"),
    pytest.param(Example(False, 4, (None,)), Layout("torch", False), "T,4", id="sequence"),
    pytest.param(Example(True, None, (None,), 20), Layout("torch", False), "T", id="tokens"),
])
def test_what_to_pass_is_in_the_source_layout(example: Example, layout: Layout,
                                              shape: str) -> None:
    """The --input-shape a refusal names puts the channels where the source model reads them."""
    assert what_to_pass(example, layout) == shape


def test_one_example_is_laid_out_for_each_model() -> None:
    """The same values reach both models: channels last for Keras, first for torch."""
    np = pytest.importorskip("numpy")
    example = plan(Example(False, 2, (None, None)),
                   [Layout("torch", True), Layout("keras", False, (5, None, 2))], None,
                   Layout("torch", True))
    assert example.sizes == (5, 7)
    batch = random_batch(example, 0)
    torch_x, keras_x = Layout("torch", True).arrange(batch), Layout("keras", False).arrange(batch)
    assert torch_x.shape == (3, 2, 5, 7) and keras_x.shape == (3, 5, 7, 2)
    assert np.array_equal(np.moveaxis(torch_x, 1, -1), keras_x)


def test_declared_shapes_must_agree() -> None:
    """Two models declaring different lengths read different inputs: InputError."""
    with pytest.raises(InputError, match=r"gives the sizes \(10,\) and the keras model's "
                                         r"declared input \(12,\): they disagree"):
        plan(Example(False, 4, (None,)), [Layout("keras", False, (10, 4)),
                                          Layout("keras", False, (12, 4))], None,
             Layout("keras", False))


def test_parse_shape_reads_commas_and_times() -> None:
    """1,32,100 and 1x32x100 are the same sizes."""
    assert parse_shape("1,32,100") == parse_shape("1x32x100") == (1, 32, 100)

