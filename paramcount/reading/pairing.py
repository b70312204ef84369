"""Which code model a printout shows: paired by structure (names, classes, counts), never by
where the two sit in the paste.

A printout is paired with a code model when the evidence singles it out: its layer names are
the model's, or its printed tensors are the model's, or its sequence of layer classes (all of
them, else the recurrent ones) is the model's; never with a model of another framework (a
Keras summary does not show a torch model, however alike their layers). Where several code
models fit that alike, the one with which most of its counts agree is taken (so one altered
count is still found against the right model); where none or several remain, no pairing is
certain and nothing is compared (the answer says so). Pure.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from paramcount.engine import conventions
from paramcount.engine.spec import Framework
from paramcount.reading.models import Layer, Model

__all__ = ["expected_shapes", "layer_pairs", "pair"]


def expected_shapes(code: Model) -> dict[str, tuple[tuple[int, ...], Layer]]:
    """The tensors the code's recurrent layers hold, by the names a dump would print: with the
    attribute prefix (a whole model's dump), and bare for a model that is one layer."""
    expected: dict[str, tuple[tuple[int, ...], Layer]] = {}
    recurrent = [layer for layer in code.layers if layer.spec is not None]
    for layer in recurrent:
        assert layer.spec is not None
        for tensor in conventions.tensors(layer.spec):
            if layer.spec.framework is Framework.TORCH and layer.name:
                expected[f"{layer.name}.{tensor.name}"] = (tensor.shape, layer)
            if len(recurrent) == 1:
                expected.setdefault(tensor.name, (tensor.shape, layer))
    return expected


def counted(model: Model) -> list[Layer]:
    """The layers that hold (or may hold) parameters."""
    return [layer for layer in model.layers if layer.params != 0 and layer.printed != 0]


def base(kind: str) -> str:
    """``nn.LSTM`` -> ``lstm``; ``Bidirectional(LSTM)`` -> ``bidirectional``."""
    name = kind.split("(")[0].rsplit(".", 1)[-1].lower()
    return name.removeprefix("cudnn")


def _by_names(printed: Model, code: Model) -> bool:
    names = {layer.name for layer in counted(printed)}
    return bool(names) and names <= {layer.name for layer in code.layers}


def _by_tensors(printed: Model, code: Model) -> bool:
    expected = expected_shapes(code) if printed.tensors else {}
    return any(name in expected for name, _, _ in printed.tensors)


def _by_classes(printed: Model, code: Model) -> bool:
    shown = [base(layer.kind) for layer in counted(printed)]
    return bool(shown) and [base(layer.kind) for layer in counted(code)] == shown


def _by_recurrent(printed: Model, code: Model) -> bool:
    shown = [base(layer.kind) for layer in counted(printed) if layer.recurrent]
    return bool(shown) and [base(layer.kind) for layer in counted(code)
                            if layer.recurrent] == shown


_EVIDENCE: tuple[Callable[[Model, Model], bool], ...] = (
    _by_names, _by_tensors, _by_classes, _by_recurrent)


def layer_pairs(printed: Model, code: Model) -> list[tuple[Layer, Layer]]:
    """Printed layers paired with the code's: by name, else in order (only the recurrent
    ones where the other layers do not line up)."""
    names = {layer.name: layer for layer in code.layers}
    shown, built = counted(printed), counted(code)
    if shown and all(layer.name in names for layer in shown):
        return [(layer, names[layer.name]) for layer in shown]
    if [base(x.kind) for x in shown] == [base(x.kind) for x in built]:
        return list(zip(shown, built, strict=True))
    return list(zip([x for x in shown if x.recurrent], [x for x in built if x.recurrent],
                    strict=False))


def agreement(printed: Model, code: Model) -> tuple[int, int]:
    """How many of the counts the printout shows for the layers it shares with the code (and
    its total) are the code's, and how many it shows."""
    compared = [(layer.printed, built.params) for layer, built in layer_pairs(printed, code)
                if layer.printed is not None and built.params is not None]
    if printed.printed_total is not None and code.total is not None:
        compared.append((printed.printed_total, code.total))
    return sum(shown == built for shown, built in compared), len(compared)


def _same(models: Sequence[Model]) -> bool:
    """Whether the models are one model written twice (the same layers, counted alike)."""
    first = [(base(x.kind), x.params, x.spec) for x in models[0].layers]
    return all([(base(x.kind), x.params, x.spec) for x in m.layers] == first for m in models)


_KIN = {Framework.TORCH: "torch", Framework.KERAS: "tf", Framework.TF1: "tf",
        Framework.TF1_CUDNN: "tf", Framework.FLAX_LINEN: "flax", Framework.FLAX_NNX: "flax",
        Framework.ONNX: "onnx"}
"""The frameworks whose printouts may show one another's models (Keras 2's CuDNN layers are
Keras', TensorFlow 1's cells too)."""


def kin(model: Model) -> set[str]:
    """The frameworks (by :data:`_KIN`) of the layers of ``model``."""
    return {_KIN[layer.framework] for layer in model.layers if layer.framework is not None}


def _same_framework(printed: Model, code: Model) -> bool:
    """Whether ``code`` may be the model ``printed`` shows: of the same framework, or of one
    not known."""
    mine, theirs = kin(printed), kin(code)
    return not mine or not theirs or bool(mine & theirs)


def classes_of(code: Sequence[Model]) -> list[list[Model]]:
    """``code``'s models grouped where they are alike in all that pairing reads (their layers
    and total), in the order each first appears: a paste of one model printed many times is
    paired once per kind of model, not once per model (linear, not quadratic)."""
    groups: dict[object, list[Model]] = {}
    for model in code:
        key = (model.total, tuple((layer.name, layer.kind, layer.params, layer.printed,
                                   layer.spec, layer.recurrent, layer.framework)
                                  for layer in model.layers))
        groups.setdefault(key, []).append(model)
    return list(groups.values())


def pair(printed: Model, code: Sequence[Model], classes: list[list[Model]] | None = None
         ) -> tuple[Model | None, str | None]:
    """The code model ``printed`` shows, or None; and, where no pairing is certain, why.
    ``classes``: :func:`classes_of` ``code``, where the caller pairs many printouts."""
    if printed.unnamed:  # made-up names and a grouping that is only a reading: no evidence
        return None, None
    groups = [group for group in (classes_of(code) if classes is None else classes)
              if _same_framework(printed, group[0])]
    for evidence in _EVIDENCE:
        fits = [group for group in groups if evidence(printed, group[0])]
        if not fits:
            continue
        heads = [group[0] for group in fits]
        if len(heads) == 1 or _same(heads):
            return heads[0], None
        scores = [agreement(printed, model)[0] for model in heads]
        best = [model for model, score in zip(heads, scores, strict=True)
                if score == max(scores)]
        if max(scores) and (len(best) == 1 or _same(best)):
            return best[0], None
        names = ", ".join(f"{model.name} (line {model.line})" for group in fits
                          for model in group)
        where = f" at line {printed.line}" if printed.line else ""
        return None, (f"the {printed.source} printout{where} could show {names} alike (their "
                      "layers are of the same classes, and its counts agree with no one of "
                      "them more than with the others), so it is compared with none")
    return None, None
