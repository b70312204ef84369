"""Frameworks' error messages: ``load_error`` (a state dict that does not load) and
``runtime_error`` (shape mismatches at run time).
"""
