"""Recurrent and ConvLSTM layers in a few words, and the ``paramcount`` command explaining each."""

from __future__ import annotations

from paramcount.engine.spec import LayerSpec


def short(spec: LayerSpec) -> str:
    """``LSTM(128, 320, 3 layers, bidirectional)``: a recurrent stack in a few words."""
    name = spec.cell.name + ("Cell" if spec.single_cell else "")
    parts = [str(spec.input_size), str(spec.hidden_size)]
    if spec.num_layers > 1:
        parts.append(f"{spec.num_layers} layers")
    if spec.bidirectional:
        parts.append("bidirectional")
    if spec.proj_size:
        parts.append(f"proj {spec.proj_size}")
    if not spec.bias:
        parts.append("no bias")
    return f"{name}({', '.join(parts)})"


def explain_command(spec: LayerSpec) -> str:
    """The ``paramcount explain ...`` command that explains ``spec``'s count, step by step."""
    args = ["paramcount", "explain", spec.cell.value, "-i", str(spec.input_size), "-H",
            str(spec.hidden_size)]
    if spec.single_cell:
        args.append("--cell")
    elif spec.num_layers > 1:
        args += ["-L", str(spec.num_layers)]
    if spec.bidirectional:
        args.append("--bidir")
    if spec.proj_size:
        args += ["--proj", str(spec.proj_size)]
    if not spec.bias:
        args.append("--no-bias")
    if spec.peepholes:
        args.append("--peepholes")
    if spec.nonlinearity is not None and spec.nonlinearity.value != "tanh":
        args += ["--nonlinearity", spec.nonlinearity.value]
    if spec.framework.value != "torch":
        args += ["-f", spec.framework.value]
    modes = {m.value for m in spec.merge_modes or ()}
    if spec.bidirectional and modes and modes != {"concat"}:
        args += ["--merge-mode", ",".join(m.value for m in spec.merge_modes or ())]
    if spec.reset_after is False and spec.framework.value == "keras":
        args.append("--no-reset-after")
    return " ".join(args)


def convlstm_command(options: dict[str, object], channels: int, framework: str) -> str:
    """The ``paramcount convlstm ...`` command for a hand-written convlstm layer's count."""
    kernel = options["kernel"]
    assert isinstance(kernel, tuple)
    args = ["paramcount", "convlstm", "--rank", str(options["rank"]), "-C", str(channels),
            "-F", str(options["filters"]), "-k", "x".join(map(str, kernel))]
    if options["layers"] != 1:
        args += ["-L", str(options["layers"])]
    if options["bidirectional"]:
        args.append("--bidir")
    if not options["bias"]:
        args.append("--no-bias")
    if framework != "keras":
        args += ["-f", framework]
    return " ".join(args)
