"""The ``paramcount`` command line that counts a given layer: the inverse of the layer options.

>>> from paramcount.engine.spec import Cell, Framework, LayerSpec
>>> command_line(LayerSpec(Cell.LSTM, 40, 256, num_layers=3))
'paramcount lstm -i 40 -H 256 -L 3'
>>> command_line(LayerSpec(Cell.GRU, 9, 16, bidirectional=True, framework=Framework.KERAS,
...                        merge_modes=("sum",), reset_after=False))
'paramcount gru -i 9 -H 16 --bidir -f keras --merge-mode sum --no-reset-after'
"""

from __future__ import annotations

from paramcount.engine.spec import Framework, LayerSpec, MergeMode, Nonlinearity


def command_line(spec: LayerSpec, command: str | None = None) -> str:
    """``paramcount <cell> -i I -H H ...`` with every option that differs from the default."""
    words = ["paramcount", command or spec.cell.value,
             "-i", str(spec.input_size), "-H", str(spec.hidden_size)]
    if spec.num_layers != 1:
        words += ["-L", str(spec.num_layers)]
    if spec.bidirectional:
        words.append("--bidir")
    if not spec.bias:
        words.append("--no-bias")
    if spec.proj_size:
        words += ["--proj", str(spec.proj_size)]
    if spec.framework is not Framework.TORCH:
        words += ["-f", spec.framework.value]
    modes = spec.merge_modes
    if modes and any(m is not MergeMode.CONCAT for m in modes):
        shown = modes[:1] if len(set(modes)) == 1 else modes
        words += ["--merge-mode", ",".join(m.value for m in shown)]
    if spec.reset_after is False:
        words.append("--no-reset-after")
    if spec.nonlinearity is Nonlinearity.RELU:
        words += ["--nonlinearity", "relu"]
    if spec.single_cell:
        words.append("--cell")
    if spec.peepholes:
        words.append("--peepholes")
    return " ".join(words)
