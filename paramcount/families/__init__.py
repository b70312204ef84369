"""The modern recurrent families (Mamba, Mamba-2, RWKV, xLSTM, RG-LRU, minGRU / minLM) and the
hybrids that mix them with attention, MLPs and experts (Jamba, Bamba, Zamba2, Falcon-H1,
Nemotron-H, LFM2, LFM2-MoE, Qwen3-Next, Qwen3.5, Granite 4.0-H, MiniMax, LFM3, OLMo Hybrid, Lara
Mini, Zamba, Kimi Linear, Ling 3, ZAYA, Inkling, Inkling 2, Inkling 2 Loop).

``registry`` names each family's convention module (``mamba``, ``mamba2``, ``rwkv``, ``xlstm``,
``xlstm_lm``, ``rglru``, ``mingru``, ``minlm``, and ``jamba``, ``bamba``, ``zamba2``,
``falcon_h1``, ``nemotron_h``, ``lfm2``, ``lfm2_moe``, ``qwen3_next``, ``qwen3_5``,
``qwen3_5_moe``, ``granitemoehybrid``, ``minimax``, ``lfm3``, ``olmo_hybrid``, ``lara_mini``,
``zamba``, ``kimi_linear``, ``bailing_hybrid``, ``zaya``, ``inkling``,
``inkling2``, ``inkling2_loop``: config → tensors, formula,
``config.json``, recognition); ``family`` and ``parts`` are what they share, ``mixers`` the
hybrids' parts (attention, MLPs, experts, Mamba mixers, short convolutions, CCA attention),
``linear_mixers`` the linear-attention ones (Gated DeltaNet,
Kimi Delta Attention, lightning attention) and ``hybrid`` their frame and shares; ``unmodelled``
the transformers model types with such a mixer that are refused by name, and why; ``loader``
reads a ``config.json``'s values as the class that loads it does, ``config_json`` reads the
file; ``report`` and ``explain`` a family model's parts and what each option adds; ``command``
which family a command line means (``paramcount xlstm --impl xlstm``) and the command that
counts a model.

May import: ``paramcount.engine`` and the top-level shared modules.
"""
