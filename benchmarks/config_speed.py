"""Counting a model from its ``config.json`` alone: every paramcount route against building the
model with transformers on the meta device, as ratios measured in the same run.

    python benchmarks/config_speed.py [--runs 5] [--only mamba,xlstm]

For each published layout (Mamba's ``-hf`` conversion, Falcon-Mamba, Mamba-2, RWKV-4, xLSTM,
RecurrentGemma, and the hybrids: Jamba, Bamba, Zamba2, Falcon-H1, Nemotron-H, LFM2; and
Qwen4-Exp's, GLM-5-Next's, Ling 3's, ZAYA's, the three Inklings' and Qwen3.5's two
vision-language models' defaults, none being published) a folder holding only its
``config.json`` is counted by

- ``paramcount inspect DIR``,
- ``paramcount check`` of a ``paramcount.toml`` whose model is ``file = "DIR"``,
- ``paramcount FAMILY --config DIR/config.json``,

and, as the baseline, by a fresh interpreter that imports torch and transformers, reads the
config with ``AutoConfig.from_pretrained``, builds ``AutoModelForCausalLM.from_config`` on the
meta device and sums ``parameters()``. Every run is a whole process; the CPU time (user +
system, from the children's resource usage) is the measure, as the machine is shared, with the
wall time beside it. paramcount runs as a regular install would: ``python -S`` with the
repository and the site-packages directory on ``PYTHONPATH``, so that no ``.pth`` file (an
editable install's import hook) is loaded, its bytecode cached (in a temporary
``PYTHONPYCACHEPREFIX``, written by a first run that is not counted). Each answer is checked:
paramcount's total must be the baseline's. Goal (issues 31 and 37): every route at least 50×
faster than the baseline.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
HF = REPO / "examples" / "hf"

CONFIGS: dict[str, tuple[str, dict[str, object]]] = {
    "mamba-2.8b-hf": ("mamba", {
        "architectures": ["MambaForCausalLM"], "model_type": "mamba", "d_model": 2560,
        "n_layer": 64, "hidden_size": 2560, "num_hidden_layers": 64, "intermediate_size": 5120,
        "state_size": 16, "expand": 2, "conv_kernel": 4, "time_step_rank": 160,
        "vocab_size": 50280, "pad_vocab_size_multiple": 8, "rms_norm": True,
        "residual_in_fp32": True, "fused_add_norm": True, "use_bias": False,
        "use_conv_bias": True}),
    "falcon-mamba-7b": ("mamba", {
        "architectures": ["FalconMambaForCausalLM"], "model_type": "falcon_mamba",
        "hidden_size": 4096, "num_hidden_layers": 64, "intermediate_size": 8192,
        "expand": 16, "state_size": 16, "conv_kernel": 4, "time_step_rank": 256,
        "vocab_size": 65024, "tie_word_embeddings": False, "mixer_rms_eps": 1e-6}),
    "mamba2-codestral-like": ("mamba2", {
        "architectures": ["Mamba2ForCausalLM"], "model_type": "mamba2", "num_heads": 128,
        "head_dim": 64, "hidden_size": 4096, "expand": 2, "n_groups": 8, "state_size": 128,
        "num_hidden_layers": 64, "vocab_size": 32768, "tie_word_embeddings": False}),
    "rwkv-4-169m-pile": ("rwkv", {
        "architectures": ["RwkvForCausalLM"], "model_type": "rwkv", "vocab_size": 50277,
        "hidden_size": 768, "num_hidden_layers": 12, "attention_hidden_size": 768,
        "intermediate_size": 3072, "context_length": 1024, "tie_word_embeddings": False}),
    "xlstm-7b": ("xlstm", {
        **json.loads((HF / "xlstm-7b" / "config.json").read_text()),
        "chunkwise_kernel": "chunkwise--native_autograd"}),
    "recurrentgemma-2b": ("rglru", json.loads(
        (HF / "recurrentgemma-2b" / "config.json").read_text())),
    "qwen4-exp-defaults": ("qwen4-exp", {  # docs/families.md's row: none is published
        "architectures": ["Qwen4ExpForCausalLM"], "model_type": "qwen4_exp_text",
        "indexer_n_heads": 16, "indexer_kv_heads": 1, "indexer_head_dim": 256,
        "indexer_budget": 2048, "indexer_compress_ratio": 64, "ple_layer_ids": [1],
        "eos_token_id": 1}),
    "glm5-next-defaults": ("glm5-next", {  # docs/families.md's row: none is published
        "architectures": ["Glm5NextTextModel"], "model_type": "glm5_next_text"}),
    # the class defaults of the model types with no published config.json (docs/families.md)
    "ling-3-defaults": ("bailing-hybrid", {
        "architectures": ["BailingHybridForCausalLM"], "model_type": "bailing_hybrid"}),
    "zaya-defaults": ("zaya", {"architectures": ["ZayaForCausalLM"], "model_type": "zaya"}),
    "inkling-defaults": ("inkling", {
        "architectures": ["InklingForCausalLM"], "model_type": "inkling_text"}),
    "inkling2-defaults": ("inkling", {
        "architectures": ["Inkling2ForCausalLM"], "model_type": "inkling2_text"}),
    "inkling2-loop-defaults": ("inkling", {
        "architectures": ["Inkling2LoopForCausalLM"], "model_type": "inkling2_loop_text"}),
    # Qwen3.5's vision-language models: the class defaults (no published vision_config here)
    "qwen3.5-vl-defaults": ("qwen3.5", {
        "architectures": ["Qwen3_5ForConditionalGeneration"], "model_type": "qwen3_5"}),
    "qwen3.5-moe-vl-defaults": ("qwen3.5-moe", {
        "architectures": ["Qwen3_5MoeForConditionalGeneration"], "model_type": "qwen3_5_moe"}),
}
CONFIGS.update({name: (family, json.loads((HF / name / "config.json").read_text()))
                for name, family in (("jamba-1.5-mini", "jamba"), ("bamba-9b", "bamba"),
                                     ("zamba2-1.2b", "zamba2"), ("falcon-h1-7b", "falcon-h1"),
                                     ("nemotron-h-8b", "nemotron-h"),
                                     ("nemotron-3-super", "nemotron-h"),
                                     ("lfm2-1.2b", "lfm2"))})
"""Each model's family command and its config.json (the xLSTM's Triton kernel swapped for the
native one, which builds the same tensors, so that transformers can build it here; the hybrids'
files are those of examples/hf)."""

BASELINE = """
import sys, warnings
warnings.simplefilter("ignore")
import torch, transformers
config = transformers.AutoConfig.from_pretrained(sys.argv[1])
auto = transformers.AutoModelForCausalLM  # the base model where there is no causal LM
if hasattr(config, "vision_config"):  # a vision-language model whole, not its decoder's LM
    auto = transformers.AutoModelForImageTextToText
elif type(config) not in auto._model_mapping:
    auto = transformers.AutoModel
with torch.device("meta"):
    model = auto.from_config(config)
print(sum(p.numel() for p in model.parameters()))
"""


def run(command: list[str], env: dict[str, str] | None, cwd: Path) -> tuple[float, float, str]:
    """CPU seconds (user + system), wall seconds and stdout of one whole process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, env=env, cwd=cwd)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed ({done.returncode}): {done.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall, done.stdout


def main() -> None:
    """Time every route of every config, print medians, ratios and whether the goal is met."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--only", default="", help="comma-separated config names")
    args = parser.parse_args()
    chosen = [n for n in CONFIGS if not args.only or n in args.only.split(",")]
    site = sysconfig.get_paths()["purelib"]
    with tempfile.TemporaryDirectory() as cache:
        env = {**{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"},
               "PYTHONPATH": f"{REPO}{os.pathsep}{site}", "PYTHONPYCACHEPREFIX": cache}
        measure(args, chosen, env)


def measure(args: argparse.Namespace, chosen: list[str], env: dict[str, str]) -> None:
    """Time each route of each chosen config (``env``: paramcount's environment)."""
    ours = [sys.executable, "-S", "-m", "paramcount"]
    met = True
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        print(f"{args.runs} interleaved runs each, medians of CPU time (wall time beside)")
        for name in chosen:
            family, data = CONFIGS[name]
            folder = root / name
            folder.mkdir()
            (folder / "config.json").write_text(json.dumps(data))
            (root / f"{name}.toml").write_text(f'[models.m]\nfile = "{name}"\n')
            routes = {
                "transformers, meta device": ([sys.executable, "-c", BASELINE, str(folder)],
                                              None),
                "inspect DIR --json": ([*ours, "inspect", str(folder), "--json"], env),
                "check (file = DIR) --json": ([*ours, "check", str(root / f"{name}.toml"),
                                               "--json"], env),
                f"{family} --config --json": ([*ours, family, "--config",
                                               str(folder / "config.json"), "--json"], env),
            }
            for command, route_env in list(routes.values())[1:]:
                run(command, route_env, root)  # bytecode written, not counted
            cpu: dict[str, list[float]] = {route: [] for route in routes}
            wall: dict[str, list[float]] = {route: [] for route in routes}
            totals: dict[str, set[int]] = {route: set() for route in routes}
            for _ in range(args.runs):
                for route, (command, route_env) in routes.items():
                    seconds, elapsed, out = run(command, route_env, root)
                    cpu[route].append(seconds)
                    wall[route].append(elapsed)
                    totals[route].add(_total(route, out))
            reference = totals["transformers, meta device"]
            base = statistics.median(cpu["transformers, meta device"])
            print(f"{name} ({family}, {min(reference):,} parameters)")
            for route in routes:
                seconds = statistics.median(cpu[route])
                ratio = base / seconds if seconds else float("inf")
                same = totals[route] == reference
                line = (f"  {route:28s} {seconds * 1000:8.1f} ms CPU "
                        f"({statistics.median(wall[route]) * 1000:7.1f} ms wall)")
                if route != "transformers, meta device":
                    goal = ratio >= 50 and same
                    met = met and goal
                    line += f"  {ratio:6.1f}× faster  {'met' if goal else 'NOT met'}"
                    if not same:
                        line += f"  (total {sorted(totals[route])} ≠ {sorted(reference)})"
                print(line)
    print("goal: every route ≥ 50× faster than transformers on the meta device:",
          "met" if met else "NOT met")


def _total(route: str, out: str) -> int:
    """The total a route printed."""
    if route.startswith("transformers"):
        return int(out.strip())
    data = json.loads(out)
    if "models" in data:
        (model,) = data["models"]
        return int(model["total"])
    return int(data["total"])


if __name__ == "__main__":
    main()
