"""The parts the 2026 hybrids add around their mixers, each a part as in
:mod:`paramcount.families.mixers`: hyper-connections (several residual streams mixed before and
after each block: Qwen4-Exp's gated residual, GLM-5-Next's manifold-constrained mHC), per-layer
n-gram embeddings (Qwen4-Exp's PLE, hashed into prime-sized tables) and attention with a token
indexer beside it (Qwen4-Exp's QSA, GLM-5-Next's DSA indexer over latent attention).

Each part is a spec with ``tensors(prefix, layer)`` (names and shapes as transformers' module
registers them), ``count`` in closed form and, where it keeps something between tokens,
``cache()``. Pure: no framework import.
"""

from __future__ import annotations

from functools import lru_cache
from math import gcd

from paramcount.engine.conventions.base import Tensor
from paramcount.families.mixers import Attention, LatentAttention
from paramcount.families.parts import depthwise_conv, linear, norm, sizes, tensor
from paramcount.families.state import Piece, convolution
from paramcount.record import record


@record
class GatedResidual:
    """Qwen4-Exp's hyper-connection (``Qwen4ExpTextGatedResidual``) over ``streams`` residual
    streams of ``width``: a grouped RMSNorm ``hc_norm`` (S·D), the low-rank input mixer
    ``input_mix_weight_down`` (r, S·D) and ``input_mix_weight_up`` (S·D, r), and with
    ``combine`` the ``block_inject_weight`` (S, S·D) that writes the block's output back into
    each stream (the model's last mixer has none); no biases."""

    width: int
    streams: int
    rank: int
    combine: bool = True

    def __post_init__(self) -> None:
        sizes(self, "width", "streams", "rank")

    def tensors(self, prefix: str, layer: int) -> list[Tensor]:
        """hc_norm, the down and up mixers, then the injection weight."""
        wide = self.streams * self.width
        out = norm(prefix + "hc_norm.", wide, layer)
        out += linear(prefix + "input_mix_weight_down.", self.rank, wide, False, layer)
        out += linear(prefix + "input_mix_weight_up.", wide, self.rank, False, layer)
        if self.combine:
            out += linear(prefix + "block_inject_weight.", self.streams, wide, False, layer)
        return out

    @property
    def count(self) -> int:
        """S·D·(1 + 2r + S·c), c = 1 with the injection weight."""
        return self.streams * self.width * (1 + 2 * self.rank + self.streams * int(self.combine))


_WITNESSES = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37)
"""Miller–Rabin witnesses that decide every number below 3.3·10²⁴ (a table's base is at most
2⁶³ − 1)."""


def _is_prime(n: int) -> bool:
    """Whether ``n`` is prime (deterministic Miller–Rabin below 3.3·10²⁴)."""
    if n < 2:
        return False
    for p in _WITNESSES:
        if n % p == 0:
            return n == p
    d, s = n - 1, 0
    while d % 2 == 0:
        d, s = d // 2, s + 1
    for a in _WITNESSES:
        x = pow(a, d, n)
        if x in (1, n - 1):
            continue
        for _ in range(s - 1):
            x = x * x % n
            if x == n - 1:
                break
        else:
            return False
    return True


@lru_cache(maxsize=8)
def primes_from(base: int, count: int) -> tuple[int, ...]:
    """The first ``count`` primes of at least ``base`` (each n-gram head's table size)."""
    return tuple(_first_primes(base, count))


def _padded(value: int, divisor: int) -> int:
    return -(-value // divisor) * divisor


def read_ngram_tables(rows: list[int], heads: int, base: int, divisor: int
                      ) -> tuple[int, int] | None:
    """The prime base and padding that give PLE tables of ``rows`` (in PLE order, ``heads``
    heads each): ``base`` and ``divisor`` (the defaults) if they do, else the smallest base
    that does with each divisor of the rows in turn (at most 64 divisors, 1,000 bases each);
    None where none is found."""
    def fits(b: int, d: int) -> bool:
        primes = primes_from(b, len(rows) * heads)
        return all(_padded(sum(primes[k * heads:(k + 1) * heads]), d) == r
                   for k, r in enumerate(rows))

    if fits(base, divisor):
        return base, divisor
    common = 0
    for r in rows:
        common = gcd(common, r)
    tried = [d for d in range(1, min(common, 4096) + 1) if common % d == 0][:64]
    for d in tried:
        lo, hi = 1, rows[0]
        while lo < hi:  # the smallest base whose first table is at least rows[0]
            mid = (lo + hi) // 2
            if _padded(sum(_first_primes(mid, heads)), d) < rows[0]:
                lo = mid + 1
            else:
                hi = mid
        for _ in range(1000):  # each base from there whose first table is rows[0]
            first = _first_primes(lo, heads)
            if _padded(sum(first), d) != rows[0]:
                break
            if fits(lo, d):
                return lo, d
            lo = first[0] + 1
    return None


def _first_primes(base: int, count: int) -> list[int]:
    """The first ``count`` primes of at least ``base``, not remembered."""
    found: list[int] = []
    n = base - 1
    while len(found) < count:
        n += 1
        if _is_prime(n):
            found.append(n)
    return found


@record
class NgramEmbedding:
    """Qwen4-Exp's per-layer embedding (``Qwen4ExpTextPLELayer``) of a layer that is the
    ``index``-th (from 0) to have one: ``heads`` hashed n-gram heads (``ngram_size`` − 1 orders
    × ``heads_per_ngram``), each a table of the next prime of at least ``base`` rows (head j of
    the model's PLE layers, counted across them, the j-th prime), stacked in one
    ``ple_embedding.ngram_embedding`` padded to a multiple of ``divisor`` rows, P / heads wide;
    ``key_proj`` (S·D, P), ``value_proj`` (D, P), three grouped RMSNorms (S·D) and a dilated
    depthwise ``conv1d`` (S·D, 1, K) over the ``streams`` residual streams; no biases."""

    width: int
    streams: int
    embed_dim: int
    heads: int
    kernel: int
    ngram_size: int
    index: int
    base: int
    divisor: int

    def __post_init__(self) -> None:
        sizes(self, "width", "streams", "embed_dim", "heads", "kernel", "ngram_size", "base",
              "divisor")

    @property
    def rows(self) -> int:
        """The table's rows: the sum of its heads' primes, padded up to the divisor."""
        primes = primes_from(self.base, (self.index + 1) * self.heads)[self.index * self.heads:]
        return _padded(sum(primes), self.divisor)

    def tensors(self, prefix: str, layer: int) -> list[Tensor]:
        """The n-gram table, key and value projections, the three norms and the conv."""
        wide, p = self.streams * self.width, self.embed_dim
        out = [tensor(prefix + "ple_embedding.ngram_embedding.weight",
                      (self.rows, p // self.heads), layer, p, "ngram_embedding")]
        out += linear(prefix + "key_proj.", wide, p, False, layer)
        out += linear(prefix + "value_proj.", self.width, p, False, layer)
        for name in ("norm_key", "norm_query", "norm_conv"):
            out += norm(f"{prefix}{name}.", wide, layer)
        return out + depthwise_conv(prefix + "conv1d.", wide, self.kernel, False, layer)

    def cache(self) -> tuple[Piece, ...]:
        """Its cache: the dilated conv's last (K − 1)·ngram_size inputs (S·D channels) and the
        last ngram_size − 1 token ids (int64), as transformers keeps them beside the layer's
        Gated DeltaNet state."""
        return (convolution(self.streams * self.width, (self.kernel - 1) * self.ngram_size),
                Piece("ngram context", fixed=self.ngram_size - 1, dtype="int64"))

    @property
    def count(self) -> int:
        """rows·P/heads + (S·D + D)·P + 3·S·D + S·D·K."""
        wide = self.streams * self.width
        return (self.rows * (self.embed_dim // self.heads) + (wide + self.width) * self.embed_dim
                + 3 * wide + wide * self.kernel)


@record
class IndexedAttention:
    """Attention with Qwen4-Exp's QSA token indexer (``indexer``) beside it: the attention's
    tensors, then ``index_qk_proj`` ((n + kv)·hd, D) and the RMSNorms ``q_layernorm`` and
    ``k_layernorm`` (hd) over an index head, no bias. With ``positions``, this layer's cache
    also keeps the indexers' shared position ids (``positions`` int64 per token)."""

    attention: Attention
    index_heads: int
    index_kv_heads: int
    index_head_dim: int
    positions: int = 0

    def __post_init__(self) -> None:
        sizes(self, "index_heads", "index_kv_heads", "index_head_dim")

    def tensors(self, prefix: str, layer: int) -> list[Tensor]:
        """The attention's tensors, then the indexer's."""
        hd, d = self.index_head_dim, self.attention.width
        out = self.attention.tensors(prefix, layer)
        at = prefix + "indexer."
        out += linear(at + "index_qk_proj.", (self.index_heads + self.index_kv_heads) * hd, d,
                      False, layer)
        return out + norm(at + "q_layernorm.", hd, layer) + norm(at + "k_layernorm.", hd, layer)

    def cache(self) -> tuple[Piece, ...]:
        """Its cache: the attention's keys and values, the indexer's keys (kv·hd per token)
        and, on the first such layer, the position ids."""
        kept = (*self.attention.cache(),
                Piece("indexer keys", per_token=self.index_kv_heads * self.index_head_dim))
        if self.positions:
            kept += (Piece("indexer positions", per_token=self.positions, dtype="int64"),)
        return kept

    @property
    def count(self) -> int:
        """[attention] + (n + kv)·hd·D + 2·hd."""
        hd = self.index_head_dim
        return (self.attention.count
                + (self.index_heads + self.index_kv_heads) * hd * self.attention.width + 2 * hd)


@record
class HyperConnection:
    """GLM-5-Next's manifold-constrained hyper-connection (``Glm5NextTextHyperConnection``) over
    ``streams`` residual streams of ``width``: ``fn`` ((2 + S)·S, S·D) that makes the pre, post
    and comb weights from the flattened streams, their biases ``base`` ((2 + S)·S) and the three
    scales ``scale`` (3); its input norm has no weight."""

    width: int
    streams: int

    def __post_init__(self) -> None:
        sizes(self, "width", "streams")

    def tensors(self, prefix: str, layer: int) -> list[Tensor]:
        """fn, base, scale."""
        rows, wide = (2 + self.streams) * self.streams, self.streams * self.width
        return [tensor(prefix + "fn", (rows, wide), layer, wide, "fn"),
                tensor(prefix + "base", (rows,), layer, wide, "base"),
                tensor(prefix + "scale", (3,), layer, wide, "scale")]

    @property
    def count(self) -> int:
        """(2 + S)·S·(S·D + 1) + 3."""
        return (2 + self.streams) * self.streams * (self.streams * self.width + 1) + 3


@record
class SparseIndexedAttention:
    """Latent attention with GLM-5-Next's DSA token indexer (``indexer``) where ``full``: the
    attention's tensors, then ``index_kpool_compress_ape`` (pool, hd),
    ``index_kpool_compress_gate`` (hd, D), ``wq_b`` (n·hd, q_lora) from the attention's
    low-rank q, ``wk`` (hd, D), the LayerNorm ``k_norm`` (hd, weight and bias) and
    ``weights_proj`` (n, D), no bias; a ``shared`` layer (``full`` False) reuses the previous
    full layer's choice and holds no indexer."""

    attention: LatentAttention
    index_heads: int
    index_head_dim: int
    pool: int
    full: bool = True

    def __post_init__(self) -> None:
        sizes(self, "index_heads", "index_head_dim", "pool")

    def tensors(self, prefix: str, layer: int) -> list[Tensor]:
        """The attention's tensors, then the indexer's where it has one."""
        out = self.attention.tensors(prefix, layer)
        if not self.full:
            return out
        hd, d, at = self.index_head_dim, self.attention.width, prefix + "indexer."
        assert self.attention.q_lora is not None
        out += [tensor(at + "index_kpool_compress_ape", (self.pool, hd), layer, hd,
                       "index_kpool_compress_ape"),
                tensor(at + "index_kpool_compress_gate", (hd, d), layer, d,
                       "index_kpool_compress_gate")]
        out += linear(at + "wq_b.", self.index_heads * hd, self.attention.q_lora, False, layer)
        out += linear(at + "wk.", hd, d, False, layer)
        out += norm(at + "k_norm.", hd, layer, bias=True)
        return out + linear(at + "weights_proj.", self.index_heads, d, False, layer)

    def cache(self) -> tuple[Piece, ...]:
        """Its cache: the attention's latent and, with an indexer, its packed keys (2·hd + 1
        per token, as transformers' ``DynamicIndexedLayer`` keeps them)."""
        kept = self.attention.cache()
        if self.full:
            kept += (Piece("indexer keys", per_token=2 * self.index_head_dim + 1),)
        return kept

    @property
    def count(self) -> int:
        """[latent attention] + (pool·hd + 2·hd·D + n·hd·q_lora + 2·hd + n·D) with an
        indexer."""
        if not self.full:
            return self.attention.count
        hd, d, n = self.index_head_dim, self.attention.width, self.index_heads
        assert self.attention.q_lora is not None
        return (self.attention.count + self.pool * hd + 2 * hd * d + n * hd * self.attention.q_lora
                + 2 * hd + n * d)
