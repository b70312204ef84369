"""Model files for docs/inspect.md and tests/test_inspect*.py, saved by the real torch and
safetensors: state dicts, a training checkpoint, DataParallel and tied weights, a legacy-format
file, safetensors (one file and a sharded index) and a hostile pickle."""

from __future__ import annotations

import json
import pickle
from pathlib import Path
from typing import Any

# torch is imported inside each maker: listing the makers must not import it.


class Exploit:
    """An object whose unpickling would run code (``exec``): what a hostile checkpoint holds."""

    def __init__(self, code: str) -> None:
        self.code = code

    def __reduce__(self) -> tuple[Any, ...]:
        """Unpickling calls exec(code)."""
        return (exec, (self.code,))


class SystemExploit(Exploit):
    """An object whose unpickling would run a shell command (``os.system``)."""

    def __reduce__(self) -> tuple[Any, ...]:
        """Unpickling calls os.system(code)."""
        import os

        return (os.system, (self.code,))


def _encoder() -> Any:
    import torch
    from torch import nn

    class Encoder(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.embed = nn.Embedding(1000, 40)
            self.lstm = nn.LSTM(40, 128, num_layers=2, bidirectional=True)
            self.head = nn.Linear(256, 10)

    torch.manual_seed(0)
    return Encoder()


def make_encoder(directory: Path) -> None:
    """encoder.pt: an encoder's state dict (embedding, 2-layer bidirectional LSTM, head)."""
    import torch

    torch.save(_encoder().state_dict(), directory / "encoder.pt")


def _tagger() -> Any:
    from torch import nn

    class Tagger(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.gru = nn.GRU(16, 32, batch_first=True)
            self.norm = nn.BatchNorm1d(32)
            self.out = nn.Linear(32, 5)

        def forward(self, x: Any) -> Any:
            y, _ = self.gru(x)
            return self.out(self.norm(y[:, -1]))

    return Tagger()


def make_checkpoint(directory: Path) -> None:
    """checkpoint.pt: a training checkpoint, the model's state beside Adam's moments."""
    import torch

    torch.manual_seed(0)
    model = _tagger()
    optimizer = torch.optim.Adam(model.parameters())
    model(torch.randn(4, 3, 16)).sum().backward()
    optimizer.step()
    torch.save({"epoch": 12, "model_state_dict": model.state_dict(),
                "optimizer_state_dict": optimizer.state_dict(), "loss": 0.25},
               directory / "checkpoint.pt")


def make_dataparallel(directory: Path) -> None:
    """dataparallel.pt: a state dict saved from nn.DataParallel (every key 'module.'...)."""
    import torch
    from torch import nn

    torch.manual_seed(0)
    torch.save(nn.DataParallel(nn.GRU(10, 20, num_layers=2)).state_dict(),
               directory / "dataparallel.pt")


def make_tied(directory: Path) -> None:
    """tied.pt: a language model whose decoder shares the embedding's weight, and an
    AWD-LSTM-style ``weight_hh_l0_raw`` kept beside ``weight_hh_l0``."""
    import torch
    from torch import nn

    class LanguageModel(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.encoder = nn.Embedding(50, 8)
            self.rnn = nn.LSTM(8, 8)
            raw = nn.Parameter(self.rnn.state_dict()["weight_hh_l0"].clone())
            self.rnn.register_parameter("weight_hh_l0_raw", raw)
            self.decoder = nn.Linear(8, 50)
            self.decoder.weight = self.encoder.weight

    torch.manual_seed(0)
    torch.save(LanguageModel().state_dict(), directory / "tied.pt")


def make_legacy(directory: Path) -> None:
    """legacy.pt: an RNN saved in the pre-1.6 (non-zip) format."""
    import torch
    from torch import nn

    torch.manual_seed(0)
    torch.save(nn.RNN(6, 12, bidirectional=True).state_dict(), directory / "legacy.pt",
               _use_new_zipfile_serialization=False)


def make_safetensors(directory: Path) -> None:
    """model.safetensors: a GRU cell and a projected LSTM in bfloat16, by safetensors.torch."""
    import torch
    from safetensors.torch import save_file
    from torch import nn

    torch.manual_seed(0)
    tensors = {f"cell.{k}": v for k, v in nn.GRUCell(24, 48).state_dict().items()}
    tensors |= {f"decoder.{k}": v.to(torch.bfloat16)
                for k, v in nn.LSTM(48, 96, proj_size=32).state_dict().items()}
    save_file(tensors, str(directory / "model.safetensors"), metadata={"format": "pt"})


INDEX = "model.safetensors.index.json"


def make_sharded(directory: Path) -> None:
    """model.safetensors.index.json and its two shards, as Hugging Face shards a model."""
    import torch
    from safetensors.torch import save_file

    torch.manual_seed(0)
    state = _encoder().state_dict()
    shards = {"model-00001-of-00002.safetensors": ["embed.weight", "lstm.weight_ih_l0",
                                                   "lstm.weight_hh_l0", "lstm.bias_ih_l0"],
              "model-00002-of-00002.safetensors": [k for k in state if k not in {
                  "embed.weight", "lstm.weight_ih_l0", "lstm.weight_hh_l0",
                  "lstm.bias_ih_l0"}]}
    weight_map: dict[str, str] = {}
    for shard, names in shards.items():
        save_file({n: state[n].contiguous() for n in names}, str(directory / shard))
        weight_map |= dict.fromkeys(names, shard)
    total = sum(t.numel() * t.element_size() for t in state.values())
    (directory / INDEX).write_text(json.dumps(
        {"metadata": {"total_size": total}, "weight_map": weight_map}, indent=2))


def make_load_error(directory: Path) -> None:
    """load_error.txt: what torch says loading encoder.pt's weights into a smaller encoder."""
    from torch import nn

    saved, model = _encoder(), _encoder()
    model.lstm = nn.LSTM(40, 256)
    try:
        model.load_state_dict(saved.state_dict())
    except RuntimeError as error:
        (directory / "load_error.txt").write_text(f"RuntimeError: {error}\n")
    else:
        raise AssertionError("the smaller encoder loaded the bigger one's weights")


def make_speller_onnx(directory: Path) -> None:
    """speller.onnx: a 2-layer GRU exported by torch.onnx.export."""
    import warnings

    import torch

    torch.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(torch.nn.GRU(12, 24, num_layers=2), (torch.zeros(5, 1, 12),),
                          str(directory / "speller.onnx"), dynamo=False)


def make_speller_keras(directory: Path) -> None:
    """speller.keras: a Keras model with a Bidirectional LSTM saved by model.save."""
    import warnings

    import keras

    model = keras.Sequential([
        keras.Input((7, 12)),
        keras.layers.Bidirectional(keras.layers.LSTM(24, name="lstm"), name="bidirectional"),
        keras.layers.Dense(30, name="dense")])  # named: Keras numbers unnamed layers per process
    with warnings.catch_warnings():  # numpy 2's __array__ copy warning inside Keras' saving
        warnings.simplefilter("ignore", DeprecationWarning)
        model.save(directory / "speller.keras")


def make_exploit(directory: Path) -> None:
    """exploit.pt: a pickle that would create a file named 'pwned' when unpickled."""
    (directory / "exploit.pt").write_bytes(
        pickle.dumps({"weight": Exploit("open('pwned', 'w').close()")}, protocol=2))


FILES = {
    "encoder.pt": (("torch",), make_encoder),
    "checkpoint.pt": (("torch",), make_checkpoint),
    "dataparallel.pt": (("torch",), make_dataparallel),
    "tied.pt": (("torch",), make_tied),
    "legacy.pt": (("torch",), make_legacy),
    "model.safetensors": (("torch", "safetensors"), make_safetensors),
    INDEX: (("torch", "safetensors"), make_sharded),
    "exploit.pt": ((), make_exploit),
    "load_error.txt": (("torch",), make_load_error),
    "speller.onnx": (("torch", "onnx"), make_speller_onnx),
    "speller.keras": (("keras", "tensorflow"), make_speller_keras),
}
