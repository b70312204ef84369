"""The engine: what a recurrent layer is and what it holds, without any framework.

``spec`` (the validated ``LayerSpec``), ``conventions/`` (one module per framework: spec →
named, shaped tensors → formula, and tensors → spec), ``report`` (subtotals, the bidirectional
growth, the depth table), ``layers`` (non-recurrent layers' exact counts), ``counts`` and
``flags`` (counts and options as people write them), ``commandline`` (the command that
reproduces a spec). May import: ``paramcount.errors``, ``paramcount.record``; nothing else of
paramcount, and never click, rich or a framework.
"""
