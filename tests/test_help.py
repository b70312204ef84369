"""Help shows what a command accepts, and nothing else: every option and choice is walked.

For every command in ``paramcount.cli.commands.COMMANDS`` and every option its help lists (each
name, each ``--no-`` form, each choice), the test finds at least one valid invocation that uses it
and exits 0. An option listed for a command that then refuses it in every context ("does not
apply", "is a Keras option", ...) fails the test. A new option needs a sample value in
``SAMPLES`` (or a click.Choice type) so that the walk can use it.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import click
import pytest

from paramcount.cli.commands import COMMANDS, cli
from paramcount.cli.options import Frameworks, MergeModes
from paramcount.engine.spec import MergeMode
from tests.conftest import CLI

SIZES = ["-i", "3", "-H", "4"]
CONTEXTS = [
    [], ["--bidir"], ["-f", "keras"], ["-f", "keras", "--bidir"], ["-f", "keras", "--bidir",
                                                                    "-L", "2"],
    ["-f", "onnx"], ["-f", "tf1"], ["-T", "5"], ["--optimizer", "adam", "--dtype", "bf16"],
]
"""Extra options that make an option meaningful: --merge-mode needs --bidir, and so on."""


def bases(command: str, tmp_path: Path) -> list[list[str]]:
    """Valid invocations of ``command`` that an option is added to, tried in turn."""
    cells = ["lstm", "gru", "rnn"]
    if command in ("rnn", "lstm", "gru"):
        return [[command, *SIZES, *context] for context in CONTEXTS]
    if command == "inspect":
        pytest.importorskip("torch")
        from tests.docfiles.inspect import make_encoder

        make_encoder(tmp_path)
        return [["inspect", str(tmp_path / "encoder.pt")], ["inspect"]]
    if command == "port":
        return port_bases(tmp_path)
    if command == "read":
        paste = tmp_path / "question.txt"
        paste.write_text("lstm = nn.LSTM(32, hidden_size, 2, bidirectional=True)\n")
        return [["read", str(paste)]]
    if command in ("explain", "shapes", "trace", "compute", "memory"):
        contexts = [c for c in CONTEXTS if command in ("explain", "compute", "memory") or (
                    "onnx" not in c
                    and "tf1" not in c and "-T" not in c and "--optimizer" not in c)]
        return [[command, cell, *SIZES, *context] for cell in cells for context in contexts]
    if command == "fit":
        return [["fit", cell, "-i", "3", *budget, *context] for cell in cells
                for budget in (["--max-params", "10K"], ["--max-bytes", "40KB"])
                for context in CONTEXTS if "-H" not in context and "-T" not in context
                and "--optimizer" not in context]
    if command == "convlstm":
        return [["convlstm", "--rank", "2", "-C", "1", "-F", "2", "-k", "3", *context]
                for context in ([], ["--bidir"], ["-f", "keras"])]
    if command == "serve":  # the walk binds a free port and returns (serve_forever is a stub)
        return [["serve", "--no-browser"]]
    if command == "web":  # a group: its one command, build, is walked by tests/test_web_page.py
        return [["web", "--help"]]
    if command == "compare":
        return [["compare", "lstm -i 3 -H 4", "lstm -i 3 -H 8"], ["compare", "lstm -i 3 -H 4"]]
    if command == "check":
        config = tmp_path / "models.toml"
        config.write_text('[models.tiny]\ntotal = 144\n'
                          'layers = [{ kind = "lstm", input = 3, hidden = 4 }]\n')
        if shutil.which("git"):  # a repository with one commit, for --baseline HEAD
            import subprocess

            for git in (["init", "-q"], ["add", "models.toml"],
                        ["-c", "user.name=t", "-c", "user.email=t@example.com", "commit",
                         "-qm", "base"]):
                subprocess.run(["git", *git], cwd=tmp_path, check=True, capture_output=True)
        return [["check", str(config)]]
    if command == "mamba":
        return [["mamba", "--vocab", "10", "-L", "1", "--hidden-size", "8"]]
    if command == "mamba2":
        small = ["mamba2", "--vocab", "10", "-L", "1"]
        return [[*small, "--hidden-size", "8", "--heads", "4", "--headdim", "4"],
                [*small, "--heads", "2", "--headdim", "4"]]
    if command == "rwkv":
        return [["rwkv", "--vocab", "10", "-L", "1", "--hidden-size", "64", "--version", v]
                for v in ("4", "5", "6", "7")]
    small = {
        "xlstm": ["--vocab", "10", "-L", "1", "--hidden-size", "64", "--heads", "2"],
        "xlstm-lm": ["--embedding-dim", "32", "-L", "2", "--slstm-at", "1", "--vocab", "10"],
        "rglru": ["--vocab", "10", "-L", "3", "--hidden-size", "8", "--intermediate-size", "8",
                  "--heads", "2"],
        "mingru": ["--dim", "8"],
        "minlm": ["--vocab", "10", "--dim", "8", "-L", "1"],
    }
    if command == "inkling":  # --impl inkling2: Inkling 2's layout, from its own options
        return [[command, *HYBRID_BASES[command]], [command, *HYBRID_BASES["inkling2"]],
                [command, *HYBRID_BASES["inkling2-loop"]]]
    if command in HYBRID_BASES:
        return [[command, *HYBRID_BASES[command]]]
    if command == "xlstm-lm":  # rounding down leaves a 32-wide model's feed-forward no width
        return [[command, *small[command]], [command, *small[command], "--embedding-dim", "64"]]
    if command == "xlstm":  # --impl xlstm: the package's layout, from its own options
        return [[command, *small[command]], [command, *small["xlstm-lm"]]]
    if command in small:
        return [[command, *small[command]]]
    raise AssertionError(f"add invocations of the new command {command!r} to bases()")


TINY = ["--vocab-size", "10", "--hidden-size", "8", "--intermediate-size", "8"]
HYBRID_BASES = {
    "jamba": [*TINY, "-L", "2", "--num-attention-heads", "2", "--num-key-value-heads", "1",
              "--num-experts", "2", "--attn-layer-period", "2", "--attn-layer-offset", "1"],
    "bamba": [*TINY, "-L", "2", "--attn-layer-indices", "1", "--num-attention-heads", "2",
              "--mamba-n-heads", "4", "--mamba-d-state", "4"],
    "zamba2": [*TINY, "-L", "2", "--layers-block-type", "mamba,hybrid",
               "--num-attention-heads", "2", "--n-mamba-heads", "2", "--adapter-rank", "4"],
    "falcon-h1": [*TINY, "-L", "1", "--num-attention-heads", "2", "--mamba-d-ssm", "16",
                  "--mamba-n-heads", "4", "--mamba-d-state", "4"],
    "nemotron-h": [*TINY, "--pattern", "M*-E", "--num-attention-heads", "2", "--head-dim", "4",
                   "--mamba-num-heads", "2", "--mamba-head-dim", "4", "--ssm-state-size", "4",
                   "--n-groups", "2", "--n-routed-experts", "2", "--moe-intermediate-size", "4",
                   "--moe-shared-expert-intermediate-size", "4"],
    "lfm2": ["--vocab-size", "10", "--hidden-size", "8", "--intermediate-size", "24", "-L", "2",
             "--num-attention-heads", "2", "--num-key-value-heads", "1", "--full-attn-idxs", "1",
             "--block-multiple-of", "4"],
    "lfm2-moe": [*TINY, "-L", "2", "--layer-types", "conv,full_attention",
                 "--num-attention-heads", "2", "--num-key-value-heads", "1",
                 "--moe-intermediate-size", "4", "--num-experts", "2", "--num-dense-layers",
                 "1"],
    **{name: [*TINY[:4], *([] if name == "qwen3.5-moe" else TINY[4:]), "-L", "4",
              "--num-attention-heads", "2", "--num-key-value-heads", "1",
              "--head-dim", "4", "--linear-num-key-heads", "2", "--linear-num-value-heads",
              "2", "--linear-key-head-dim", "4", "--linear-value-head-dim", "4",
              *([] if name == "qwen3.5" else ["--num-experts", "2",
                                                "--moe-intermediate-size", "4",
                                                "--shared-expert-intermediate-size", "4"])]
       for name in ("qwen3-next", "qwen3.5", "qwen3.5-moe")},
    "granitemoehybrid": [*TINY, "-L", "2", "--layer-types", "mamba,attention",
                         "--num-attention-heads", "2", "--mamba-n-heads", "4",
                         "--mamba-d-state", "4", "--num-local-experts", "2",
                         "--shared-intermediate-size", "4"],
    "minimax": [*TINY, "-L", "2", "--num-attention-heads", "2", "--num-key-value-heads", "1",
                "--num-local-experts", "2"],
    "lfm3": [*TINY, "-L", "3", "--num-attention-heads", "2", "--num-key-value-heads", "1",
             "--head-dim", "4"],
    "olmo-hybrid": [*TINY, "-L", "2", "--num-attention-heads", "2", "--layer-types",
                    "linear_attention,full_attention"],
    "lara-mini": [*TINY[:4], "-L", "4", "--num-attention-heads", "2", "--num-key-value-heads",
                  "1", "--head-dim", "4", "--linear-num-key-heads", "2",
                  "--linear-num-value-heads", "2", "--linear-key-head-dim", "4",
                  "--linear-value-head-dim", "4", "--num-experts", "2",
                  "--moe-intermediate-size", "4", "--shared-expert-intermediate-size", "4"],
    "zamba": [*TINY, "-L", "2", "--layers-block-type", "hybrid,hybrid",
              "--num-attention-heads", "2", "--num-key-value-heads", "2"],
    "kimi-linear": [*TINY, "-L", "2", "--num-attention-heads", "2", "--kv-lora-rank", "4",
                    "--qk-rope-head-dim", "2", "--v-head-dim", "2", "--qk-nope-head-dim", "2",
                    "--num-local-experts", "2", "--linear-head-dim", "2",
                    "--linear-num-heads", "2", "--moe-intermediate-size", "4"],
    "bailing-hybrid": [*TINY, "-L", "2", "--num-attention-heads", "2", "--kv-lora-rank", "4",
                       "--qk-rope-head-dim", "2", "--v-head-dim", "2", "--qk-nope-head-dim",
                       "2", "--num-local-experts", "2", "--head-dim", "2",
                       "--layer-group-size", "2", "--moe-intermediate-size", "4"],
    "zaya": [*TINY[:4], "-L", "2", "--num-attention-heads", "2", "--num-key-value-heads", "1",
             "--head-dim", "4", "--num-experts", "2", "--router-hidden-size", "4"],
    "glm5-next": [*TINY, "-L", "2", "--num-attention-heads", "2", "--num-key-value-heads", "2",
                  "--kv-lora-rank", "4", "--q-lora-rank", "4", "--v-head-dim", "2",
                  "--qk-nope-head-dim", "2", "--n-routed-experts", "2", "--num-experts-per-tok",
                  "1", "--moe-intermediate-size", "4", "--linear-head-dim", "2",
                  "--linear-num-heads", "2", "--index-head-dim", "2", "--index-n-heads", "2",
                  "--index-topk", "4", "--index-kpool", "2", "--hc-mult", "2"],
    "qwen4-exp": [*TINY[:4], "-L", "4", "--num-attention-heads", "2", "--num-key-value-heads",
                  "1", "--head-dim", "4", "--linear-num-key-heads", "2",
                  "--linear-num-value-heads", "2", "--linear-key-head-dim", "4",
                  "--linear-value-head-dim", "4", "--num-experts", "2", "--num-experts-per-tok",
                  "1", "--moe-intermediate-size", "4", "--shared-expert-intermediate-size", "4",
                  "--hc-count", "2", "--hc-lowrank", "2", "--heads-per-ngram", "2",
                  "--indexer-n-heads", "2", "--indexer-kv-heads", "1", "--indexer-head-dim",
                  "4", "--indexer-budget", "4", "--indexer-compress-ratio", "2"],
    "inkling": [*TINY, "-L", "2", "--num-attention-heads", "2", "--num-key-value-heads", "1",
                "--head-dim", "4", "--swa-num-attention-heads", "2",
                "--swa-num-key-value-heads", "1", "--swa-head-dim", "4",
                "--sliding-window-size", "4", "--rel-extent", "4", "--d-rel", "2",
                "--moe-intermediate-size", "4", "--num-experts", "2", "--n-shared-experts",
                "1"],
    "inkling2": ["--vocab-size", "10", "--unpadded-vocab-size", "10", "--hidden-size", "8",
                 "-L", "2", "--num-attention-heads", "2", "--num-key-value-heads", "1",
                 "--head-dim", "4", "--swa-num-attention-heads", "2",
                 "--swa-num-key-value-heads", "1", "--swa-head-dim", "4",
                 "--sliding-window-size", "4", "--rel-extent", "4", "--d-rel", "2",
                 "--moe-intermediate-size", "4", "--num-experts", "2"],
}
HYBRID_BASES["inkling2-loop"] = [*HYBRID_BASES["inkling2"], "--n-layers-per-attn-res-block", "1",
                                 "--loop-layer-index-start", "1", "--loop-layer-index-end", "2"]
"""A small valid model of each hybrid family."""


def port_bases(tmp_path: Path) -> list[list[str]]:
    """Ports of .npz files named in each convention: a GRU, a 2-layer LSTM (projected where the
    convention can), a bidirectional RNN."""
    np = pytest.importorskip("numpy")
    from paramcount.engine.conventions import tensors
    from paramcount.engine.spec import Cell, Framework, LayerSpec

    out = []
    for framework in Framework:
        for cell in (Cell.GRU, Cell.LSTM, Cell.RNN):
            layers = 2 if cell is Cell.LSTM else 1
            proj = 2 if cell is Cell.LSTM and framework in (Framework.TORCH, Framework.TF1) else 0
            try:
                spec = LayerSpec(cell, 3, 4, num_layers=layers, bidirectional=cell is Cell.RNN,
                                 proj_size=proj, framework=framework)
            except ValueError:
                continue
            path = tmp_path / f"{framework.value}-{cell.value}.npz"
            rng = np.random.default_rng(0)
            np.savez(path, **{t.name: rng.standard_normal(t.shape).astype("float32")
                              for t in tensors(spec)})
            out += [["port", str(path), "--from", framework.value, "--to", target]
                    for target in ("torch", "keras", "onnx", "tf1")]
    return out


SAMPLES = {
    "input_size": "3", "hidden_size": "4", "num_layers": "2", "proj_size": "2",
    "max_params": "10K", "max_bytes": "40KB", "round_to": "2", "seed": "1", "batch": "2",
    "seq_len": "3", "lengths": "3,2", "kernel": "3", "input_channels": "2", "filters": "2",
    "rank": "2", "settings": "hidden_size=128", "factory_timeout": "30",
    "model": "tests.port_models:torch_gru", "kwargs": '{"hidden": 4}',
    "source_model": "tests.port_models:torch_gru", "source_kwargs": '{"hidden": 4}',
    "vocab_size": "10", "state_size": "2", "num_hidden_layers": "2", "expand": "2",
    "conv_kernel": "3", "time_step_rank": "2", "num_heads": "4", "head_dim": "4",
    "n_groups": "2", "version": "6", "attention_hidden_size": "64", "intermediate_size": "96",
    "head_size": "32", "mix_lora": "8", "decay_lora": "8", "aaa_lora": "8", "mv_lora": "8",
    "gate_lora": "8", "what_if": "vocab_size=20", "port": "0", "baseline": "HEAD",
    "attention_window_size": "16", "sliding_window": "16",
    "max_growth": "10%",
    "num_blocks": "2", "qk_dim_factor": "0.5", "v_dim_factor": "1.0", "ffn_proj_factor": "2.0",
    "ffn_round_up_to_multiple_of": "8", "weight_mode": "fused", "embedding_dim": "32",
    "slstm_at": "1", "mlstm_num_heads": "2", "mlstm_proj_factor": "2.0",
    "mlstm_conv1d_kernel_size": "3", "mlstm_qkv_proj_blocksize": "4",
    "mlstm_round_proj_up_to_multiple_of": "16", "slstm_num_heads": "2",
    "slstm_conv1d_kernel_size": "0", "slstm_backend": "vanilla", "feedforward_proj_factor": "1.3",
    "feedforward_round_proj_up_to_multiple_of": "16",
    "num_attention_heads": "2", "num_key_value_heads": "1", "lru_width": "8",
    "conv1d_width": "3", "block_types": "recurrent,attention", "dim": "8",
    "expansion_factor": "1.5", "num_tokens": "10", "depth": "2", "ff_mult": "2.0",
    "expansion": "1.5", "conv_kernel_size": "3", "input_shape": "5,3",
    "num_experts_per_tok": "1", "num_experts": "2", "expert_layer_period": "2",
    "expert_layer_offset": "1", "attn_layer_period": "2", "attn_layer_offset": "1",
    "mamba_d_state": "4", "mamba_d_conv": "3", "mamba_expand": "2", "mamba_dt_rank": "2",
    "attn_layer_indices": "1", "mamba_n_heads": "4", "mamba_d_head": "4", "mamba_n_groups": "2",
    "layers_block_type": "mamba,mamba", "mamba_ngroups": "2", "n_mamba_heads": "2",
    "num_mem_blocks": "2", "adapter_rank": "4", "mamba_d_ssm": "16",
    "hybrid_override_pattern": "M*-E", "ssm_state_size": "4", "mamba_num_heads": "2",
    "mamba_head_dim": "4", "n_routed_experts": "2", "moe_intermediate_size": "4",
    "moe_shared_expert_intermediate_size": "4", "moe_latent_size": "4", "conv_L_cache": "3",
    "block_multiple_of": "4", "block_ffn_dim_multiplier": "1.0", "full_attn_idxs": "1",
    "layer_types": "conv,full_attention", "num_dense_layers": "1",
    "shared_expert_intermediate_size": "4", "linear_conv_kernel_dim": "3",
    "linear_key_head_dim": "2", "linear_value_head_dim": "2", "linear_num_key_heads": "2",
    "linear_num_value_heads": "2", "decoder_sparse_step": "2", "mlp_only_layers": "0",
    "full_attention_interval": "2", "num_local_experts": "2", "shared_intermediate_size": "4",
    "attention_head_dim": "4", "n_shared_experts": "1", "kv_lora_rank": "4",
    "q_lora_rank": "4", "qk_rope_head_dim": "2", "v_head_dim": "2", "qk_nope_head_dim": "2",
    "first_k_dense_replace": "1", "mlp_layer_types": "dense,sparse", "linear_head_dim": "2",
    "linear_num_heads": "2", "context": "16", "short_conv_kernel_size": "3",
    "layer_group_size": "2", "router_hidden_size": "4", "cca_time0": "3", "cca_time1": "3",
    "hc_count": "2", "hc_lowrank": "2", "ple_layer_ids": "1", "ple_embed_dim": "4",
    "ple_conv_kernel_size": "2", "ngram_size": "3", "heads_per_ngram": "2",
    "ngram_vocab_size_base": "50", "make_ngram_vocab_size_divisible_by": "8",
    "split_ngram_parts": "2", "indexer_n_heads": "2", "indexer_kv_heads": "1",
    "indexer_head_dim": "4", "indexer_budget": "4", "indexer_compress_ratio": "2",
    "partial_rotary_factor": "0.5", "swa_num_attention_heads": "2",
    "swa_num_key_value_heads": "1", "swa_head_dim": "4", "sliding_window_size": "4",
    "d_rel": "2", "rel_extent": "4", "dense_mlp_idx": "1", "local_layer_ids": "0",
    "unpadded_vocab_size": "10", "n_layers_per_attn_res_block": "1",
    "loop_layer_index_start": "1", "loop_layer_index_end": "2", "loop_num_passes": "2",
    "loop_gate_rank": "2", "index_topk": "4", "index_head_dim": "2", "index_n_heads": "2",
    "index_kpool": "2", "hc_mult": "2", "indexer_types": "full,shared",
}
"""A valid value for each option that takes one and is not a choice."""

OWN_SAMPLES = {**{(name, "layer_types"): "linear_attention,full_attention,linear_attention,"
                  "full_attention" for name in ("qwen3-next", "qwen3.5", "qwen3.5-moe")},
               ("granitemoehybrid", "layer_types"): "attention,mamba",
               ("minimax", "layer_types"): "linear_attention,full_attention",
               ("lfm3", "layer_types"): "conv,sliding_attention,full_attention",
               ("olmo-hybrid", "layer_types"): "full_attention,linear_attention",
               ("lara-mini", "layer_types"): "linear_attention,sliding_attention,"
               "linear_attention,full_attention",
               **{(name, "layer_types"): "linear_attention,full_attention"
                  for name in ("kimi-linear", "bailing-hybrid")},
               ("zaya", "layer_types"): "hybrid,hybrid",
               ("qwen4-exp", "layer_types"): "linear_attention,indexed_attention,"
               "linear_attention,full_attention",
               ("inkling", "layer_types"): "hybrid_sliding,hybrid",
               ("inkling2", "layer_types"): "hybrid_sliding,hybrid",
               ("inkling2-loop", "layer_types"): "hybrid_sliding,hybrid",
               ("glm5-next", "layer_types"): "linear_attention,indexed_attention",
               ("glm5-next", "num_key_value_heads"): "2", ("glm5-next", "qk_rope_head_dim"): "0"}
"""A command's own valid value where the shared sample is not one (Qwen's layer types;
GLM-5-Next's key/value heads equal to its heads, its rope part 0)."""

WITH = {"input_shape": ["--model", "tests.port_models:torch_gru"],
        "max_growth": ["--baseline", "HEAD"], "baseline_factories": ["--baseline", "HEAD"]}
"""The options an option is refused without (port's --input-shape shapes --model's input,
check's --max-growth and --baseline-factories need --baseline)."""

STATED = ["--context", "16"]
"""What a family command's --batch is refused without (it counts the sequences of --context)."""

WHAT_IF = {"mingru": "dim=16", "minlm": "dim=16"}
"""--what-if for the families without a vocab_size."""


def values(option: click.Option, tmp_path: Path) -> Iterator[str]:
    """Every value the help offers for ``option`` (each choice), or one sample value."""
    kind = option.type
    if isinstance(kind, Frameworks):
        yield from kind.choices
    elif isinstance(kind, MergeModes):
        yield from (m.value for m in MergeMode)
    elif isinstance(kind, click.Choice):
        yield from (str(c) for c in kind.choices)
    elif isinstance(kind, click.IntRange) and kind.min is not None and kind.max is not None \
            and kind.max - kind.min < 5:
        yield from (str(n) for n in range(int(kind.min), int(kind.max) + 1))
    elif option.name == "plot_path":
        yield str(tmp_path / "depth.svg")
    elif option.name == "out":
        yield str(tmp_path / "ported.npz")
    elif option.name == "forget_bias":
        yield "0.5"
    elif option.name == "config_file":
        (tmp_path / "config.json").write_text("{}")
        yield str(tmp_path / "config.json")
    elif option.name == "junit_file":
        yield str(tmp_path / "report.xml")
    elif option.name == "gitlab_file":
        yield str(tmp_path / "gl-code-quality-report.json")
    elif option.name == "summary_file":
        yield str(tmp_path / "summary.md")
    elif option.name == "error_file":
        from tests.docfiles.inspect import make_load_error

        make_load_error(tmp_path)
        yield str(tmp_path / "load_error.txt")
    else:
        assert option.name in SAMPLES, f"add a sample value of {option.opts[0]} to SAMPLES"
        yield SAMPLES[option.name]


def uses(command: click.Command, tmp_path: Path) -> Iterator[list[str]]:
    """Every spelling the help lists: each name of each option, with each value it offers."""
    stated = any(p.name == "context" for p in command.params)
    for param in command.params:
        if not isinstance(param, click.Option) or param.name == "help":
            continue
        assert param.help, f"{command.name} {param.opts[0]} has no help text"
        if param.is_flag or param.count:
            yield from ([name, *WITH.get(param.name or "", [])]
                        for name in (*param.opts, *param.secondary_opts))
            continue
        for name in param.opts:
            own = OWN_SAMPLES.get((command.name or "", param.name or ""))
            for value in [own] if own else values(param, tmp_path):
                needs = STATED if stated and param.name == "batch" else WITH.get(
                    param.name or "", [])
                if param.name == "via":  # counts a config.json transformers builds
                    config = _via_config(tmp_path)
                    needs = [config] if command.name == "inspect" else ["--config", config]
                yield [name, WHAT_IF.get(command.name or "", value)
                       if param.name == "what_if" else value, *needs]


def _via_config(tmp_path: Path) -> str:
    """A tiny Mamba ``config.json`` for ``--via transformers`` to build on the meta device."""
    path = tmp_path / "via" / "config.json"
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps({"model_type": "mamba", "hidden_size": 8, "num_hidden_layers": 1,
                                "vocab_size": 10, "state_size": 4, "expand": 2,
                                "conv_kernel": 2}))
    return str(path)


def _command(name: str) -> click.Command:
    command = cli.get_command(click.Context(cli), name)
    assert command is not None
    return command


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_every_listed_option_and_choice_is_accepted(
    cli: CLI, name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each option and choice a command's help lists is accepted in some valid invocation."""
    command = _command(name)
    if name == "serve":  # bind, print the address, return: no server loop, no browser
        from paramcount.web.server import PageServer

        monkeypatch.setattr(PageServer, "serve_forever", lambda self, poll_interval=0.5: None)
        monkeypatch.setattr("webbrowser.open", lambda url: True)
    help_text = cli(name, "--help").out
    invocations = bases(name, tmp_path)
    for use in uses(command, tmp_path):
        assert use[0] in help_text, f"{name} --help does not list {use[0]}"
        errors = []
        # --via transformers counts the file as it is: the command and the file alone
        for base in ([[name]] if "--via" in use else invocations):
            base = list(base)
            if use[0] in ("--framework", "-f") and "-f" in base:
                base[base.index("-f"):base.index("-f") + 2] = []
            if name == "check":
                (tmp_path / "models.toml").write_text(
                    '[models.tiny]\ntotal = 144\n'
                    'layers = [{ kind = "lstm", input = 3, hidden = 4 }]\n')
            result = cli(*base, *use)
            if result.code == 0:
                break
            errors.append(f"{' '.join(base + use)}: {result.err.strip()}")
        else:
            raise AssertionError(f"`{name}` lists {' '.join(use)} but refuses it:\n"
                                 + "\n".join(errors[:4]))


NOT_LISTED = [
    ("gru", ["--nonlinearity", "--proj", "--peepholes"]),
    ("lstm", ["--reset-after", "--nonlinearity"]),
    ("rnn", ["--proj", "--peepholes", "--reset-after"]),
    ("shapes", ["--cell", "--peepholes", "onnx", "flax-linen", "tf1"]),
    ("trace", ["--cell", "--peepholes", "onnx", "flax-linen", "tf1"]),
    ("fit", ["|all]", "--hidden"]),
    ("convlstm", ["onnx", "torch"]),
]


@pytest.mark.parametrize(("name", "absent"), NOT_LISTED, ids=[n for n, _ in NOT_LISTED])
def test_help_omits_what_the_command_refuses(cli: CLI, name: str, absent: list[str]) -> None:
    """The options and frameworks a command refuses are not in its help."""
    text = cli(name, "--help").out
    assert [word for word in absent if word in text] == []
