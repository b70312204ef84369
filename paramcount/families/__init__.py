"""The modern recurrent families (Mamba, Mamba-2, RWKV, xLSTM, RG-LRU, minGRU / minLM).

``registry`` names each family's convention module (``mamba``, ``mamba2``, ``rwkv``, ``xlstm``,
``xlstm_lm``, ``rglru``, ``mingru``, ``minlm``: config → tensors, formula, ``config.json``,
recognition); ``family`` and ``parts`` are what they share, ``loader`` reads a
``config.json``'s values as the class that loads it does, ``config_json`` reads the file;
``report`` and ``explain`` a family model's parts and what each option adds.
May import: ``paramcount.engine`` and the top-level shared modules.
"""
