"""Saved xLSTM, RecurrentGemma, xlstm-package and minLM models for tests/test_inspect_families_b.py
and docs/families.md: written by the references themselves (transformers' ``save_pretrained``,
safetensors' ``save_file`` of the model's own state dict)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.docfiles.families import save

# torch, transformers, xlstm and minGRU_pytorch are imported inside each maker.


def tiny_xlstm() -> Any:
    """A small transformers xLSTMForCausalLM (64 wide, 2 blocks, 2 heads)."""
    import warnings

    import torch
    import transformers

    torch.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        config = transformers.xLSTMConfig(vocab_size=100, hidden_size=64, embedding_dim=64,
                                          num_hidden_layers=2, num_blocks=2, num_heads=2)
        return transformers.xLSTMForCausalLM(config)


def tiny_gemma() -> Any:
    """A small transformers RecurrentGemmaForCausalLM (recurrent, recurrent, attention)."""
    import warnings

    import torch
    import transformers

    torch.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        config = transformers.RecurrentGemmaConfig(
            vocab_size=100, hidden_size=32, intermediate_size=48, num_attention_heads=2,
            num_key_value_heads=1, num_hidden_layers=3, attention_window_size=16)
        return transformers.RecurrentGemmaForCausalLM(config)


def tiny_xlstm_stack() -> Any:
    """The xlstm package's xLSTMLMModel: 3 blocks, an sLSTM at 1 (vanilla backend), 32 wide."""
    import torch
    from xlstm import (
        mLSTMBlockConfig,
        sLSTMBlockConfig,
        sLSTMLayerConfig,
        xLSTMLMModel,
        xLSTMLMModelConfig,
    )

    torch.manual_seed(0)
    config = xLSTMLMModelConfig(
        mlstm_block=mLSTMBlockConfig(), slstm_at=[1], num_blocks=3, embedding_dim=32,
        slstm_block=sLSTMBlockConfig(slstm=sLSTMLayerConfig(backend="vanilla")),
        context_length=16, vocab_size=50)
    return xLSTMLMModel(config)


def tiny_minlm() -> Any:
    """mingru-pytorch's minLM: 2 minLSTM layers with the conv, 16 wide."""
    import torch
    from minGRU_pytorch.minLM import minLM

    torch.manual_seed(0)
    return minLM(num_tokens=40, dim=16, depth=2, use_lstm=True, enable_conv=True)


def save_state(model: Any, path: Path) -> None:
    """The model's own state dict, written by safetensors."""
    from safetensors.torch import save_file

    save_file({name: tensor.contiguous() for name, tensor in model.state_dict().items()},
              str(path))


FILES = {
    "xlstm-tiny": (("torch", "transformers", "safetensors"),
                   lambda directory: save(tiny_xlstm(), directory / "xlstm-tiny")),
    "rglru-tiny": (("torch", "transformers", "safetensors"),
                   lambda directory: save(tiny_gemma(), directory / "rglru-tiny")),
    "xlstm-stack.safetensors": (("torch", "xlstm", "safetensors"), lambda directory: save_state(
        tiny_xlstm_stack(), directory / "xlstm-stack.safetensors")),
    "minlm.safetensors": (("torch", "minGRU_pytorch", "safetensors"), lambda directory: save_state(
        tiny_minlm(), directory / "minlm.safetensors")),
}
