"""Hugging Face model folders for docs/families.md and tests/test_inspect_folders.py, saved by
transformers' own ``save_pretrained`` (safetensors; one file, or shards with their index)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

# torch and transformers are imported inside each maker: listing the makers must not import them.


def tiny_mamba(tie: bool = True) -> Any:
    """A small transformers MambaForCausalLM with random weights."""
    import warnings

    import torch
    import transformers

    torch.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        config = transformers.MambaConfig(hidden_size=64, num_hidden_layers=2, vocab_size=100,
                                          tie_word_embeddings=tie)
        return transformers.MambaForCausalLM(config)


def tiny_mamba2() -> Any:
    """A small transformers Mamba2ForCausalLM: 2 groups of 8 states (the tensors hold only the
    product, 16)."""
    import warnings

    import torch
    import transformers

    torch.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        config = transformers.Mamba2Config(hidden_size=32, num_heads=4, head_dim=16, n_groups=2,
                                           state_size=8, num_hidden_layers=2, vocab_size=50)
        return transformers.Mamba2ForCausalLM(config)


def save(model: Any, folder: Path, **options: Any) -> None:
    """``model.save_pretrained(folder)``, its progress bars silenced."""
    import contextlib
    import io
    import warnings

    with warnings.catch_warnings(), contextlib.redirect_stderr(io.StringIO()):
        warnings.simplefilter("ignore")
        model.save_pretrained(folder, **options)


def make_mamba_folder(directory: Path) -> None:
    """``mamba-tiny/``: config.json and model.safetensors."""
    save(tiny_mamba(), directory / "mamba-tiny")


def make_mamba_sharded(directory: Path) -> None:
    """``mamba-sharded/``: config.json, five shards and model.safetensors.index.json."""
    save(tiny_mamba(), directory / "mamba-sharded", max_shard_size="100KB")


def make_mamba2_folder(directory: Path) -> None:
    """``mamba2-tiny/``: config.json and model.safetensors of a Mamba-2 with 2 groups."""
    save(tiny_mamba2(), directory / "mamba2-tiny")


FILES = {
    "mamba-tiny": (("torch", "transformers", "safetensors"), make_mamba_folder),
    "mamba-sharded": (("torch", "transformers", "safetensors"), make_mamba_sharded),
    "mamba2-tiny": (("torch", "transformers", "safetensors"), make_mamba2_folder),
}
