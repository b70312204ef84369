"""Module trees as printed: torch's ``print(model)`` (``torch_repr``) and the families' Hugging
Face reprs (``hf_repr``).
"""
