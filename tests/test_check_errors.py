"""Invalid configs: each one exit 2, one located line on stderr, and the file left untouched."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import CLI

NEW_KINDS = ("conv1d, conv2d, conv3d, convlstm, batch_norm, max_pool, avg_pool, "
             "global_max_pool, global_avg_pool, flatten, reshape, upsampling, repeat_vector, "
             "params")

LSTM = '{ kind = "lstm", hidden = 64 }'

# (id, file name, text, the whole error line after "Error: <file>:")
BROKEN = [
    ("malformed-toml", "m.toml", "[models.a\nlayers = []\n",
     "1:10: invalid TOML: expected ']' at the end of a table declaration"),
    ("malformed-json", "m.json", '{"models": {"a": [}}',
     "1:19: invalid JSON: expecting value"),
    ("empty-toml", "m.toml", "",
     "1:1: (top level): no models: add a [models.NAME] table with a 'layers' list or a "
     "'factory'"),
    ("empty-json", "m.json", "\n",
     "1:1: (top level): no models: add a [models.NAME] table with a 'layers' list or a "
     "'factory'"),
    ("comments-only", "m.toml", "# nothing yet\n",
     "1:1: (top level): no models: add a [models.NAME] table with a 'layers' list or a "
     "'factory'"),
    ("empty-models", "m.toml", "[models]\n",
     "1:1: models: no models: add a [models.NAME] table with a 'layers' list or a "
     "'factory'"),
    ("models-not-table", "m.toml", "models = 3\n",
     "1:10: models: expected a table of named models ([models.NAME]), got integer 3"),
    ("missing-layers", "m.toml", "[models.a]\ninput = 3\n",
     "1:1: models.a: missing key 'layers' (an array of layer tables), "
     "'factory' (\"package.module:function\") or 'file'"),
    ("empty-layers", "m.toml", "[models.a]\ninput = 3\nlayers = []\n",
     "3:10: models.a.layers: expected at least one layer, got an empty array"),
    ("layers-not-array", "m.toml", '[models.a]\ninput = 3\nlayers = "lstm"\n',
     "3:10: models.a.layers: expected an array of layer tables, got string 'lstm'"),
    ("layer-not-table", "m.toml", "[models.a]\ninput = 3\nlayers = [3]\n",
     "3:11: models.a.layers[0]: expected a layer table, got integer 3"),
    ("input-string", "m.toml", f'[models.a]\ninput = "32"\nlayers = [{LSTM}]\n',
     "2:9: models.a.input: expected the input width, a positive whole number (or a sample's "
     "shape, e.g. [28, 28, 1]), got string '32'"),
    ("hidden-float", "m.json",
     '{"models": {"a": {"input": 3, "layers": [{"kind": "gru", "hidden": 4.5}]}}}',
     "1:68: models.a.layers[0].hidden: expected the hidden size, a positive whole number, got "
     "float 4.5"),
    ("bool-as-size", "m.toml", f'[models.a]\ninput = true\nlayers = [{LSTM}]\n',
     "2:9: models.a.input: expected the input width, a positive whole number (or a sample's "
     "shape, e.g. [28, 28, 1]), got boolean true"),
    ("zero-hidden", "m.toml", '[models.a]\ninput = 32\nlayers = [{ kind = "lstm", hidden = 0 }]\n',
     "3:37: models.a.layers[0].hidden: expected the hidden size, a positive whole number, got 0"),
    ("negative-layers", "m.toml",
     '[models.a]\ninput = 32\nlayers = [{ kind = "lstm", hidden = 8, layers = -2 }]\n',
     "3:49: models.a.layers[0].layers: expected a positive whole number of layers, got -2"),
    ("negative-vocab", "m.toml",
     '[models.a]\nlayers = [{ kind = "embedding", vocab = -5, dim = 3 }]\n',
     "2:41: models.a.layers[0].vocab: expected the vocabulary size, a positive whole number, "
     "got -5"),
    ("zero-out", "m.toml", '[models.a]\ninput = 4\nlayers = [{ kind = "linear", out = 0 }]\n',
     "3:36: models.a.layers[0].out: expected the output width, a positive whole number, got 0"),
    ("widths-do-not-chain", "m.toml",
     f'[models.a]\ninput = 32\nlayers = [\n  {LSTM},\n  {{ kind = "linear", input = 128, '
     'out = 3 },\n]\n',
     "5:30: models.a.layers[1].input: widths do not chain: this linear reads 128, but the "
     "layer before it outputs 64"),
    ("no-input-width", "m.toml", f"[models.a]\nlayers = [{LSTM}]\n",
     "2:11: models.a.layers[0]: the lstm layer's input width is unknown: set 'input' on the "
     "model (or on its first layer), or start with an embedding"),
    ("duplicate-model-toml", "m.toml",
     f"[models.a]\ninput = 3\nlayers = [{LSTM}]\n[models.a]\ninput = 4\n",
     "4:1: models.a: declared twice (a model name or key must be unique)"),
    ("duplicate-key", "m.toml", '[models.a]\ninput = 3\ninput = 4\nlayers = [{ kind = "relu" }]\n',
     "3:1: models.a.input: declared twice (a model name or key must be unique)"),
    ("duplicate-model-json", "m.json",
     '{"models": {"a": {"input": 3, "layers": [{"kind": "gru", "hidden": 4}]},\n'
     ' "a": {"input": 3}}}',
     "2:2: models.a: declared twice (a model name or key must be unique)"),
    ("duplicate-model-case", "m.toml",
     f"[models.a]\ninput = 3\nlayers = [{LSTM}]\n[models.A]\ninput = 3\nlayers = [{LSTM}]\n",
     "4:1: models.A: duplicate model name: 'A' and 'a' differ only in case or spaces"),
    ("duplicate-layer-name", "m.toml",
     '[models.a]\ninput = 3\nlayers = [{ kind = "tanh", name = "x" }, '
     '{ kind = "relu", name = "x" }]\n',
     "3:66: models.a.layers[1].name: duplicate layer name 'x' (also layers[0])"),
    ("unknown-kind", "m.toml",
     '[models.a]\ninput = 32\nlayers = [{ kind = "lstmm", hidden = 64 }]\n',
     "3:20: models.a.layers[0].kind: unknown layer kind 'lstmm'; expected one of: lstm, gru, "
     "rnn, embedding, linear, dense, time_distributed, layer_norm, dropout, activation, relu, "
     "tanh, sigmoid, gelu, softmax, elu, leaky_relu, silu, pool, attention, "
     + NEW_KINDS + ". Did you mean "
     "'lstm'?"),
    ("missing-kind", "m.toml", '[models.a]\ninput = 32\nlayers = [{ hidden = 64 }]\n',
     "3:11: models.a.layers[0]: missing key 'kind'; expected one of: lstm, gru, rnn, embedding, "
     "linear, dense, time_distributed, layer_norm, dropout, activation, relu, tanh, sigmoid, "
     "gelu, softmax, elu, leaky_relu, silu, pool, attention, " + NEW_KINDS + ""),
    ("unknown-layer-key", "m.toml",
     '[models.a]\ninput = 32\nlayers = [{ kind = "lstm", hiden = 64 }]\n',
     "3:28: models.a.layers[0].hiden: unknown key in layer 0; expected one of: kind, name, "
     "from, params, hidden, units, layers, bidirectional, bias, proj, merge_mode, reset_after, "
     "nonlinearity, cell, input, return_sequences. Did you mean 'hidden'?"),
    ("unknown-model-key", "m.toml", f"[models.a]\ninput = 32\ntotl = 5\nlayers = [{LSTM}]\n",
     "3:1: models.a.totl: unknown key in model 'a'; expected one of: framework, input, layers, "
     "factory, kwargs, file, family, config, total, max_params, max_bytes, dtype, description, "
     "modules. Did you mean 'total'?"),
    ("unknown-top-key", "m.toml", f"modles = 1\n[models.a]\ninput = 3\nlayers = [{LSTM}]\n",
     "1:1: modles: unknown key in the config's top level; expected one of: models, framework, "
     "dtype. Did you mean 'models'?"),
    ("unknown-framework", "m.toml",
     f'[models.a]\nframework = "pytorch"\ninput = 3\nlayers = [{LSTM}]\n',
     "2:13: models.a.framework: 'pytorch' is not one of: torch, keras, onnx, flax-linen, "
     "flax-nnx, tf1, tf1-cudnn. Did you mean 'torch'?"),
    ("unknown-pool-mode", "m.toml",
     '[models.a]\ninput = 32\nlayers = [{ kind = "pool", mode = ["last", "maxx"] }]\n',
     "3:44: models.a.layers[0].mode[1]: expected one of last, first, max, mean, got string "
     "'maxx'. Did you mean 'max'?"),
    ("total-not-a-number", "m.toml", f'[models.a]\ninput = 32\ntotal = "12k"\nlayers = [{LSTM}]\n',
     "3:9: models.a.total: expected a whole number of parameters (the exact total expected), "
     "got string '12k'"),
    ("total-float", "m.toml", f"[models.a]\ninput = 32\ntotal = 1.5e6\nlayers = [{LSTM}]\n",
     "3:9: models.a.total: expected a whole number of parameters (the exact total expected), "
     "got float 1500000.0"),
    ("max-params-negative", "m.toml",
     f"[models.a]\ninput = 32\nmax_params = -1\nlayers = [{LSTM}]\n",
     "3:14: models.a.max_params: expected a budget, a positive whole number of parameters, "
     "got -1"),
    ("layer-params-bool", "m.json",
     '{"models": {"a": {"input": 3, "layers": [{"kind": "gru", "hidden": 4, "params": false}]}}}',
     "1:81: models.a.layers[0].params: expected a whole number of parameters (the layer's exact "
     "count), got boolean false"),
    ("bad-dtype", "m.toml", f'[models.a]\ninput = 3\ndtype = "float32"\nlayers = [{LSTM}]\n',
     "3:9: models.a.dtype: 'float32' is not one of: fp16, bf16, fp32, fp64, int8."),
    ("proj-too-big", "m.toml",
     '[models.a]\ninput = 32\nlayers = [{ kind = "lstm", hidden = 64, proj = 64 }]\n',
     "3:48: models.a.layers[0].proj: proj = 64 must be smaller than hidden = 64 (torch "
     "requires proj_size < hidden_size)"),
    ("keras-option-in-torch", "m.toml",
     '[models.a]\ninput = 3\nlayers = [{ kind = "gru", hidden = 4, reset_after = false }]\n',
     "3:53: models.a.layers[0].reset_after: reset_after = false is a Keras GRU option: nn.GRU "
     "always applies the reset gate after the recurrent matmul (two biases)"),
    ("return-sequences-off", "m.toml",
     '[models.a]\nframework = "keras"\ninput = 3\nlayers = [{ kind = "lstm", units = 4, '
     'return_sequences = false }, { kind = "lstm", units = 3 }]\n',
     "4:58: models.a.layers[0].return_sequences: a later layer (lstm) reads a sequence: "
     "return_sequences must be true"),
    ("embedding-not-first", "m.toml",
     '[models.a]\ninput = 3\nlayers = [{ kind = "relu" }, { kind = "embedding", vocab = 5, '
     'dim = 2 }]\n',
     "3:39: models.a.layers[1].kind: an embedding reads token ids, so it must be the first "
     "layer of a model"),
    ("padding-idx-out-of-range", "m.toml",
     '[models.a]\nlayers = [{ kind = "embedding", vocab = 5, dim = 2, padding_idx = 5 }]\n',
     "2:67: models.a.layers[0].padding_idx: expected an index from -5 to 4 (torch: padding_idx "
     "must be within num_embeddings), got 5"),
    ("from-unknown", "m.toml",
     '[models.a]\ninput = 3\nlayers = [{ kind = "tanh", name = "enc" }, '
     '{ kind = "linear", from = "encc", out = 2 }]\n',
     "3:70: models.a.layers[1].from: no earlier layer is named 'encc'; earlier names: 'enc'. "
     "Did you mean 'enc'?"),
    ("attention-scorer-width", "m.toml",
     '[models.a]\ninput = 3\nlayers = [{ kind = "attention", layers = '
     '[{ kind = "linear", out = 2 }] }]\n',
     "3:43: models.a.layers[0].layers[0]: the attention scorer must end in width 1 (one score "
     "per time step), got 2"),
    ("time-distributed-in-torch", "m.toml",
     '[models.a]\ninput = 3\nlayers = [{ kind = "time_distributed", out = 2 }]\n',
     "3:20: models.a.layers[0].kind: time_distributed is a Keras wrapper; a torch nn.Linear "
     "already applies to every time step (use kind = \"linear\")"),
    ("toml-nested-too-deeply", "m.toml", "models = " + "[" * 500 + "]" * 500 + "\n",
     "1:1: invalid TOML: nested too deeply"),
    ("json-nested-too-deeply", "m.json", '{"models": ' + "[" * 100_000 + "]" * 100_000 + "}",
     "1:1: invalid JSON: nested too deeply"),
    ("recurrent-after-pool", "m.toml",
     '[models.a]\ninput = 3\nlayers = [{ kind = "lstm", hidden = 4 }, '
     '{ kind = "pool", mode = "last" }, { kind = "gru", hidden = 3 }]\n',
     "3:85: models.a.layers[2].kind: this gru layer reads a sequence, but its input has no time "
     "axis any more: layers[1] (pool) pools over time"),
    ("pool-after-pool-through-linear", "m.toml",
     '[models.a]\ninput = 3\nlayers = [{ kind = "pool", mode = "last" }, '
     '{ kind = "linear", out = 2 }, { kind = "pool", mode = "max" }]\n',
     "3:84: models.a.layers[2].kind: this pool layer reads a sequence, but its input has no time "
     "axis any more: layers[0] (pool) pools over time"),
    ("attention-after-attention", "m.toml",
     '[models.a]\ninput = 3\nlayers = [{ kind = "attention", layers = [{ kind = "linear", '
     'out = 1 }] }, { kind = "attention", layers = [{ kind = "linear", out = 1 }] }]\n',
     "3:85: models.a.layers[1].kind: this attention layer reads a sequence, but its input has "
     "no time axis any more: layers[0] (attention) pools over time"),
    ("time-distributed-from-pooled", "m.toml",
     '[models.a]\nframework = "keras"\ninput = 3\nlayers = [{ kind = "lstm", units = 4, '
     'name = "enc" }, { kind = "pool", mode = "max", name = "p" }, { kind = "dense", units = 2 }, '
     '{ kind = "time_distributed", units = 2, from = "p" }]\n',
     "4:140: models.a.layers[3].kind: this time_distributed layer reads a sequence, but its "
     "input has no time axis any more: layers[1] (p) pools over time"),
    ("attention-scorer-pools", "m.toml",
     '[models.a]\ninput = 3\nlayers = [{ kind = "attention", layers = [{ kind = "linear", '
     'out = 1 }, { kind = "pool", mode = "max" }] }]\n',
     "3:73: models.a.layers[0].layers[1]: the attention scorer must keep the time axis (one "
     "score per time step), but layers[1] (pool) pools over time"),
    ("activation-on-torch-linear", "m.toml",
     '[models.a]\ninput = 3\nlayers = [{ kind = "linear", out = 2, activation = "relu" }]\n',
     "3:52: models.a.layers[0].activation: activation is a Keras option: a torch nn.Linear has "
     "none (add a layer after it, e.g. { kind = \"relu\" })"),
    ("unknown-dense-activation", "m.toml",
     '[models.a]\nframework = "keras"\ninput = 3\nlayers = [{ kind = "dense", units = 2, '
     'activation = "rleu" }]\n',
     "4:53: models.a.layers[0].activation: 'rleu' is not one of: relu, tanh, sigmoid, gelu, "
     "softmax, elu, leaky_relu, silu, linear. Did you mean 'relu'?"),
    ("model-name-control-character", "m.toml",
     f'[models."a\\u0007b"]\ninput = 3\nlayers = [{LSTM}]\n',
     '1:1: models."a\\u0007b": a model name must be printable, got "a\\u0007b"'),
    ("layer-name-newline", "m.json",
     '{"models": {"a": {"input": 3, "layers": [{"kind": "gru", "hidden": 4, '
     '"name": "x\\ny"}]}}}',
     '1:79: models.a.layers[0].name: a layer name must be printable, got "x\\ny"'),
    ("activation-function-case", "m.toml",
     '[models.a]\ninput = 3\nlayers = [{ kind = "activation", function = "Relu" }]\n',
     "3:45: models.a.layers[0].function: 'Relu' is not one of: relu, tanh, sigmoid, gelu, "
     "softmax, elu, leaky_relu, silu, linear. Did you mean 'relu'?"),
    ("kind-case", "m.toml", '[models.a]\ninput = 3\nlayers = [{ kind = "LSTM", hidden = 4 }]\n',
     "3:20: models.a.layers[0].kind: unknown layer kind 'LSTM'; expected one of: lstm, gru, rnn, "
     "embedding, linear, dense, time_distributed, layer_norm, dropout, activation, relu, tanh, "
     "sigmoid, gelu, softmax, elu, leaky_relu, silu, pool, attention, "
     + NEW_KINDS + ". Did you mean "
     "'lstm'?"),
    ("wrong-extension", "m.yaml", "models: {}\n", None),
]


@pytest.mark.parametrize(("name", "text", "message"), [b[1:] for b in BROKEN],
                         ids=[b[0] for b in BROKEN])
def test_broken_config(cli: CLI, tmp_path: Path, name: str, text: str,
                       message: str | None) -> None:
    """The config is rejected with exit 2 and one located line, and the file is unchanged."""
    path = tmp_path / name
    path.write_bytes(text.encode())
    expected = (f"Error: {path}: expected a .toml or .json config file" if message is None
                else f"Error: {path}:{message}")
    for args in ([], ["--update"], ["--json"]):
        result = cli("check", str(path), *args)
        assert result.code == 2, result.out
        if args == ["--json"]:
            (error,) = json.loads(result.out)["errors"]
            assert "Error: " + error["text"] == expected
            assert error["line"] == (None if message is None else int(message.split(":")[0]))
        else:
            assert result.out == ""
        lines = result.err.splitlines()
        assert len(lines) == 1
        assert lines[0] == expected
        assert path.read_bytes() == text.encode()


def test_missing_file(cli: CLI, tmp_path: Path) -> None:
    """A file that does not exist is exit 2 with its name."""
    result = cli("check", str(tmp_path / "nope.toml"))
    assert (result.code, result.err) == (2, f"Error: {tmp_path / 'nope.toml'}: no such file\n")


def test_not_utf8(cli: CLI, tmp_path: Path) -> None:
    """Bytes that are not UTF-8 are located, not a traceback."""
    path = tmp_path / "m.toml"
    path.write_bytes(b"[models.a]\ninput = \xff\n")
    result = cli("check", str(path))
    assert (result.code, result.err) == (2, f"Error: {path}:2:9: not UTF-8 text\n")


def test_budgets_as_people_write_them(cli: CLI, tmp_path: Path) -> None:
    """max_params and max_bytes take counts and sizes written as on the command line
    ("1.5M", "1e6", "16MB", "4MiB"), as fit's --max-params and --max-bytes do."""
    path = tmp_path / "models.toml"
    path.write_text('[models.m]\ninput = 32\nmax_params = "1.5M"\nmax_bytes = "4MiB"\n'
                    'layers = [{ kind = "lstm", hidden = 128 }]\n'
                    '[models.n]\ninput = 32\nmax_params = "1e4"\nmax_bytes = "16MB"\n'
                    'layers = [{ kind = "lstm", hidden = 128 }]\n')
    result = cli("check", str(path), "--json")
    assert result.code == 1, result.err
    models = {m["name"]: m for m in json.loads(result.out)["models"]}
    assert models["m"]["expected"]["max_params"] == 1_500_000
    assert models["m"]["expected"]["max_bytes"] == 4 * 1024 * 1024
    assert models["m"]["passed"] and not models["n"]["passed"]
    assert models["n"]["expected"]["max_params"] == 10_000


def test_unreadable_budget_strings_are_located(cli: CLI, tmp_path: Path) -> None:
    """A budget string that is not a count is one located line, as any other bad value."""
    path = tmp_path / "models.toml"
    path.write_text('[models.m]\ninput = 32\nmax_params = "lots"\nmax_bytes = "1.5B"\n'
                    'layers = [{ kind = "lstm", hidden = 128 }]\n')
    result = cli("check", str(path))
    assert result.code == 2
    lines = result.err.splitlines()
    assert len(lines) == 2
    assert lines[0].startswith(f"Error: {path}:3:14: models.m.max_params: ")
    assert lines[1].startswith(f"Error: {path}:4:13: models.m.max_bytes: ")
    assert "'1.5B'" in lines[1]


def test_long_strings_are_quoted_briefly(cli: CLI, tmp_path: Path) -> None:
    """A 5,000-character framework, kind or layer name is quoted in a few dozen characters
    with its length, as the command line's errors quote long values."""
    path = tmp_path / "long.toml"
    path.write_text(f'[models.m]\nframework = "{"x" * 5000}"\ninput = 3\n'
                    f'layers = [{{ kind = "{"y" * 5000}" }}]\n')
    result = cli("check", str(path))
    assert result.code == 2
    lines = result.err.splitlines()
    assert len(lines) == 2
    assert "x" * 30 not in result.err and "y" * 30 not in result.err
    assert all(len(line) < 600 for line in lines), [len(line) for line in lines]
    assert all("(5,000 characters)" in line for line in lines)


def test_long_names_in_a_path_are_shortened(cli: CLI, tmp_path: Path) -> None:
    """A 5,000-character model name or key is shortened in the error's path, so the line
    stays short (the file:line:column still points at it)."""
    path = tmp_path / "long.toml"
    path.write_text(f'[models.{"n" * 5000}]\n{"k" * 5000} = 1\ninput = 3\n'
                    f'layers = [{{ kind = "lstm", hidden = 4 }}]\n')
    result = cli("check", str(path))
    assert result.code == 2
    (line,) = result.err.splitlines()
    assert len(line) < 600, len(line)
    assert f"{path}:2:1: models." in line and "(5,000 characters)" in line
