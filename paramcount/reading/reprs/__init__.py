"""Module trees as printed: ``generic`` finds any ``(name): Class(args…)`` tree (nesting,
folded repeats, a printer's figures beside the arguments); its dialects read what it found:
torch's ``print(model)`` as layer calls (``torch_repr``), the families' Hugging Face reprs as
their configurations (``hf_repr``); JAX pytree modules as equinox prints them (``pytree``).
"""
