"""Qwen3.5's vision tower as a part: transformers' ``Qwen3_5VisionModel`` (model_type
``qwen3_5_vision``; Qwen3.5-MoE's is the same), built from a ``Qwen3_5VisionConfig``.

A 3-D convolution cuts the image (or video) into patches, a learned position embedding is added,
``depth`` pre-norm transformer blocks (LayerNorms, a fused ``qkv``, a GELU MLP, every linear with
a bias) follow, and a merger folds each ``spatial_merge_size²`` patches into one vector of the
decoder's width. The tower keeps no state between tokens. Pure: no framework import.
"""

from __future__ import annotations

from paramcount.engine.conventions.base import Tensor
from paramcount.errors import SpecError
from paramcount.families.parts import linear, norm, sizes, tensor
from paramcount.record import record


@record
class Qwen3_5VisionConfig:
    """The options of transformers' ``Qwen3_5VisionConfig`` that shape its parameters, its
    defaults."""

    depth: int = 27
    hidden_size: int = 1152
    intermediate_size: int = 4304
    num_heads: int = 16
    in_channels: int = 3
    patch_size: int = 16
    spatial_merge_size: int = 2
    temporal_patch_size: int = 2
    out_hidden_size: int = 3584
    num_position_embeddings: int = 2304

    def __post_init__(self) -> None:
        sizes(self, "depth", "hidden_size", "intermediate_size", "num_heads", "in_channels",
              "patch_size", "spatial_merge_size", "temporal_patch_size", "out_hidden_size",
              "num_position_embeddings")
        if self.num_heads > self.hidden_size:  # transformers fails to build it
            raise SpecError("{num_heads} is more than {hidden_size} (each head would be "
                            "hidden_size // num_heads = 0 wide)", hidden_size=self.hidden_size,
                            num_heads=self.num_heads)

    @property
    def block(self) -> int:
        """One block's parameters: 4H² + 2HI + 9H + I (two LayerNorms, ``qkv``, ``proj``, the
        MLP's ``linear_fc1`` and ``linear_fc2``, all with biases)."""
        h, i = self.hidden_size, self.intermediate_size
        return 4 * h * h + 2 * h * i + 9 * h + i

    @property
    def stem(self) -> int:
        """The patch embedding and the position embedding: C·T·P²·H + H + N·H."""
        h = self.hidden_size
        return (self.in_channels * self.temporal_patch_size * self.patch_size ** 2 * h + h
                + self.num_position_embeddings * h)

    @property
    def merger(self) -> int:
        """The merger: a LayerNorm (2H), then M² + M and O·M + O, M = H·S²."""
        h, o = self.hidden_size, self.out_hidden_size
        m = h * self.spatial_merge_size ** 2
        return 2 * h + m * m + m + o * m + o

    @property
    def count(self) -> int:
        """Every parameter of the tower."""
        return self.stem + self.depth * self.block + self.merger


def stem_tensors(config: Qwen3_5VisionConfig, prefix: str) -> list[Tensor]:
    """``patch_embed.proj`` (a Conv3d with a bias) and ``pos_embed`` under ``prefix``."""
    h, c = config.hidden_size, config.in_channels
    kernel = (config.temporal_patch_size, config.patch_size, config.patch_size)
    p = prefix + "patch_embed.proj."
    return [tensor(p + "weight", (h, c, *kernel), -1, c, "patch_embed.proj"),
            tensor(p + "bias", (h,), -1, c, "patch_embed.proj.bias"),
            tensor(prefix + "pos_embed.weight", (config.num_position_embeddings, h), -1,
                   config.num_position_embeddings, "pos_embed")]


def block_tensors(config: Qwen3_5VisionConfig, prefix: str, layer: int = -1) -> list[Tensor]:
    """A block under ``prefix`` (``…blocks.3.``), in ``named_parameters()`` order; ``layer``
    −1 (the default) keeps it apart from a decoder's numbered blocks, as the embeddings are."""
    h, i = config.hidden_size, config.intermediate_size
    return [*norm(prefix + "norm1.", h, layer, bias=True),
            *norm(prefix + "norm2.", h, layer, bias=True),
            *linear(prefix + "attn.qkv.", 3 * h, h, True, layer),
            *linear(prefix + "attn.proj.", h, h, True, layer),
            *linear(prefix + "mlp.linear_fc1.", i, h, True, layer),
            *linear(prefix + "mlp.linear_fc2.", h, i, True, layer)]


def merger_tensors(config: Qwen3_5VisionConfig, prefix: str) -> list[Tensor]:
    """The merger under ``prefix`` (``…merger.``): its LayerNorm reads each patch before
    the merge (``use_postshuffle_norm=False``)."""
    h = config.hidden_size
    m = h * config.spatial_merge_size ** 2
    return [*norm(prefix + "norm.", h, -1, bias=True),
            *linear(prefix + "linear_fc1.", m, m, True, -1),
            *linear(prefix + "linear_fc2.", config.out_hidden_size, m, True, -1)]


def tensors(config: Qwen3_5VisionConfig, prefix: str = "") -> list[Tensor]:
    """Every parameter of ``Qwen3_5VisionModel(config)`` under ``prefix``, in
    ``named_parameters()`` order."""
    out = stem_tensors(config, prefix)
    for i in range(config.depth):
        out += block_tensors(config, f"{prefix}blocks.{i}.")
    return out + merger_tensors(config, prefix + "merger.")
