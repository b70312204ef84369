"""A model paramcount does not model, counted as transformers builds it: its ``config.json``
read by the config class its ``model_type`` names, the causal LM built on the meta device (no
weights, no memory), its parameters summed module by module from the built tree.

Nothing from the hub runs: only classes transformers itself ships are used (``auto_map`` and
``trust_remote_code`` never), and nothing is downloaded. No closed form is claimed: the answer
is what the built tree holds. torch and transformers are imported only when called.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from paramcount.errors import BackendUnavailable, ConfigError
from paramcount.record import record

_INDEX = re.compile(r"\.\d+(?=\.|$)")


@record
class BuiltModule:
    """Modules alike in the built tree (one per layer, their index read as ``#``): each one's
    own parameters and how many there are."""

    name: str
    kind: str
    each: int
    times: int

    @property
    def total(self) -> int:
        """The parameters of all of them."""
        return self.each * self.times


@record
class BuiltModel:
    """A model built by transformers from a config, counted from its tree."""

    model_type: str
    model_class: str
    version: str
    modules: tuple[BuiltModule, ...]
    total: int
    notes: tuple[str, ...] = ()


def build(data: Mapping[str, object], source: str) -> BuiltModel:
    """The model transformers builds from ``data`` (a ``config.json``'s object, read from
    ``source``), on the meta device: its parameters by module, tied ones once. ConfigError when
    transformers does not know its model type or refuses the config; BackendUnavailable without
    torch or transformers."""
    try:
        import torch
        import transformers
        from transformers.models.auto.configuration_auto import CONFIG_MAPPING
    except ImportError:
        raise BackendUnavailable("transformers", "transformers",
                                 "--via transformers requires torch and transformers: "
                                 "pip install torch transformers") from None
    model_type = data.get("model_type")
    if not isinstance(model_type, str) or not model_type:
        raise ConfigError(f"{source}: names no model_type, so transformers cannot tell which "
                          "class builds it")
    if model_type not in CONFIG_MAPPING:
        raise ConfigError(f"{source}: model_type {model_type!r} is not a model transformers "
                          f"{transformers.__version__} builds (paramcount runs no code from "
                          "the hub: trust_remote_code is never set)")
    notes = []
    values = dict(data)
    if values.pop("auto_map", None) is not None:
        notes.append("its auto_map (code on the hub) ignored: built from transformers' own "
                     "classes")
    import json
    import tempfile
    import warnings

    try:
        with warnings.catch_warnings(), tempfile.TemporaryDirectory() as folder:
            warnings.simplefilter("ignore")
            # read back as AutoConfig.from_pretrained reads a folder (the same JSON rules),
            # from a copy without auto_map, never trusting remote code
            with open(f"{folder}/config.json", "w", encoding="utf-8") as file:
                json.dump(values, file)
            config = transformers.AutoConfig.from_pretrained(folder, trust_remote_code=False)
            with torch.device("meta"):
                try:
                    model = transformers.AutoModelForCausalLM.from_config(  # type: ignore[no-untyped-call]
                        config, trust_remote_code=False)
                except ValueError:  # no causal LM for this model type: its base model
                    model = transformers.AutoModel.from_config(  # type: ignore[no-untyped-call]
                        config, trust_remote_code=False)
                    notes.append("no causal LM class for it: its base model, "
                                 f"{type(model).__name__}")
    except Exception as error:  # the config class's own checks, said in one line
        text = str(error).strip().splitlines()
        raise ConfigError(f"{source}: transformers could not build it: "
                          f"{type(error).__name__}: {text[0] if text else ''}") from None
    return BuiltModel(model_type, type(model).__name__, transformers.__version__,
                      tuple(_modules(model)), sum(p.numel() for p in model.parameters()),
                      tuple(notes))


def _modules(model: object) -> list[BuiltModule]:
    """Each module of ``model`` holding parameters of its own, those alike but for a layer
    index together, in the order of the tree; a tied parameter counted where it first is."""
    seen: set[int] = set()
    groups: dict[tuple[str, str, int], int] = {}
    for name, module in model.named_modules():  # type: ignore[attr-defined]
        own = 0
        for parameter in module.parameters(recurse=False):
            if id(parameter) not in seen:
                seen.add(id(parameter))
                own += parameter.numel()
        if own:
            key = (_INDEX.sub(".#", name), type(module).__name__, own)
            groups[key] = groups.get(key, 0) + 1
    return [BuiltModule(name, kind, each, times) for (name, kind, each), times in groups.items()]
