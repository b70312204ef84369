"""``paramcount read`` on Keras code and summaries, every count checked against real Keras.

Keras is imported once for the module (it takes seconds); each snippet is trusted test code the
test runs to build the real model, after ``read`` has read it statically.
"""

from __future__ import annotations

import os
import textwrap
import warnings
from pathlib import Path
from typing import Any

import pytest

from paramcount.reading.pipeline import Model, read
from tests.conftest import have

pytestmark = [pytest.mark.keras,
              pytest.mark.skipif(not (have("keras") and have("tensorflow")),
                                 reason="needs keras and tensorflow")]

PASTES = Path(__file__).parent / "data" / "pastes"

SNIPPETS: dict[str, str] = {
    "functional-inline": """
        from keras import layers, Input, Model
        inp = Input(shape=(20, 8))
        x = layers.Dense(4)(layers.GRU(8, return_sequences=True)(
            layers.LSTM(16, return_sequences=True)(inp)))
        model = Model(inputs=inp, outputs=layers.Dense(3, activation="softmax")(x))
    """,
    "sequential-list": """
        from tensorflow import keras
        from tensorflow.keras import layers
        model = keras.Sequential([
            layers.Embedding(5000, 32),
            layers.Bidirectional(layers.LSTM(64, return_sequences=True)),
            layers.LayerNormalization(),
            layers.GRU(32, return_sequences=True),
            layers.TimeDistributed(layers.Dense(16)),
            layers.Conv1D(8, 3, padding="same"),
            layers.BatchNormalization(),
            layers.Dropout(0.2),
            layers.SimpleRNN(12, use_bias=False),
            layers.Dense(1),
        ])
        model.build((None, 20))
        """,
    "sequential-add-loop-input": """
        import keras
        from keras.layers import LSTM, GRU, Dense, Input, Bidirectional
        UNITS = 48
        model = keras.Sequential()
        model.add(Input(shape=(30, 13)))
        for _ in range(2):
            model.add(Bidirectional(LSTM(UNITS, return_sequences=True), merge_mode="sum"))
        model.add(GRU(UNITS // 2, reset_after=False))
        model.add(Dense(3, use_bias=False))
        """,
    "keras2-input-shape": """
        from keras.models import Sequential
        from keras.layers import LSTM, Dense, Dropout, TimeDistributed
        model = Sequential()
        model.add(LSTM(100, input_shape=(10, 8), return_sequences=True))
        model.add(Dropout(0.5))
        model.add(LSTM(50, return_sequences=True, use_bias=False))
        model.add(TimeDistributed(Dense(1)))
        """,
    "functional-merge-modes": """
        import keras
        from keras import layers
        inputs = keras.Input(shape=(None, 28))
        x = layers.Bidirectional(layers.LSTM(64, return_sequences=True))(inputs)
        x = layers.Bidirectional(layers.GRU(32, return_sequences=True), merge_mode="ave")(x)
        x = layers.Bidirectional(layers.SimpleRNN(16), merge_mode="mul")(x)
        outputs = layers.Dense(10)(x)
        model = keras.Model(inputs=inputs, outputs=outputs)
        """,
    "functional-convlstm": """
        import keras
        from keras import layers
        def build(filters=8):
            frames = keras.Input(shape=(5, 16, 16, 3))
            x = layers.ConvLSTM2D(filters, (3, 3), padding="same", return_sequences=True)(frames)
            x = layers.ConvLSTM2D(filters * 2, kernel_size=3, padding="same")(x)
            x = layers.Conv2D(4, 1)(x)
            return keras.Model(frames, x)
        model = build()
        """,
}


@pytest.fixture(scope="module")
def keras_module() -> Any:
    """Keras, imported once, quietly."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    return pytest.importorskip("keras")


def build(code: str) -> Any:
    """Run the trusted snippet with Keras; its ``model``."""
    namespace: dict[str, Any] = {}
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=UserWarning)
        warnings.filterwarnings("ignore", category=DeprecationWarning)
        exec(textwrap.dedent(code), namespace)
    return namespace["model"]


def summary(model: Any) -> str:
    """What ``model.summary()`` prints, captured through print_fn."""
    lines: list[str] = []
    model.summary(print_fn=lambda text, line_break=True: lines.append(text))
    return "\n".join(lines) + "\n"


def code_model(answer: Any) -> Model:
    """The one model the code builds."""
    models = [m for m in answer.models if m.source == "code"]
    assert len(models) == 1
    return models[0]


def weighted(model: Any) -> list[Any]:
    """The real model's layers that hold weights, in order."""
    return [layer for layer in model.layers if layer.count_params()]


@pytest.mark.parametrize("case", SNIPPETS, ids=list(SNIPPETS))
def test_code_counts_match_keras(keras_module: Any, case: str) -> None:
    """Every layer read statically, widths tracked through the stack, equals Keras' count; so
    does the model total."""
    answer = read(textwrap.dedent(SNIPPETS[case]))
    model = code_model(answer)
    real = build(SNIPPETS[case])
    assert model.total == real.count_params()
    counted = [layer for layer in model.layers if layer.params]
    assert [layer.params for layer in counted] == [x.count_params() for x in weighted(real)]


@pytest.mark.parametrize("case", SNIPPETS, ids=list(SNIPPETS))
def test_summary_alone_and_with_its_code(keras_module: Any, case: str) -> None:
    """Keras 3's own summary reads to the real total; each recurrent row's configuration is
    solved from its count; beside its code, nothing disagrees."""
    real = build(SNIPPETS[case])
    table = summary(real)
    alone = read(table)
    [shown] = alone.models
    assert shown.printed_total == real.count_params() == shown.total
    recurrent = [x for x in real.layers
                 if type(x).__name__ in ("LSTM", "GRU", "SimpleRNN", "Bidirectional")]
    for (_, layer), keras_layer in zip(alone.recurrent, recurrent, strict=True):
        assert layer.printed == keras_layer.count_params()
        if layer.spec is not None:
            from paramcount.engine import conventions
            assert conventions.total(layer.spec) == keras_layer.count_params()
    both = read(textwrap.dedent(SNIPPETS[case]) + "\n" + table)
    assert not both.disagreements
    assert set(both.kinds) == {"code", "keras-summary"}


def test_keras2_gru_summary_counts_the_code_with_the_old_default(keras_module: Any) -> None:
    """A Keras 2.0 summary whose GRU count only reset_after=False gives: the code (which leaves
    reset_after to the default) is counted with that default, nothing is flagged, and the
    answer says which Keras; Keras 3 builds the old default to exactly the printed count and
    its own default to the count the answer names."""
    answer = read((PASTES / "keras2-gru-sequential.txt").read_text())
    assert not answer.disagreements
    old = build("""
        import keras
        model = keras.Sequential([keras.Input((100,)), keras.layers.Embedding(5000, 64),
                                  keras.layers.GRU(32, reset_after=False),
                                  keras.layers.Dense(1)])
        """)
    new = build("""
        import keras
        model = keras.Sequential([keras.Input((100,)), keras.layers.Embedding(5000, 64),
                                  keras.layers.GRU(32), keras.layers.Dense(1)])
        """)
    printed = next(m for m in answer.models if m.source == "keras-summary")
    code = next(m for m in answer.models if m.source == "code")
    assert printed.printed_total == old.count_params() == code.total
    assert answer.title == f"GRU(32, reset_after=False) on 64 features: " \
        f"{old.layers[1].count_params():,} parameters"
    assert answer.reason.startswith("A Keras 2 summary: its gru_1 prints 9,312")
    assert f"build {new.layers[1].count_params():,} from the same code" in answer.reason
    gru = next(layer for m, layer in answer.recurrent if m.source == "keras-summary")
    assert gru.spec is not None and gru.spec.reset_after is False and gru.spec.input_size == 64


def test_keras2_wrapped_names_and_solved_widths(keras_module: Any) -> None:
    """The TF 2.x layout, long names wrapped, reads to the layers Keras 3 builds."""
    answer = read((PASTES / "keras2-bilstm-functional.txt").read_text())
    [model] = answer.models
    real = build("""
        import keras
        inputs = keras.Input(shape=(None, 28))
        x = keras.layers.Bidirectional(keras.layers.LSTM(64, return_sequences=True))(inputs)
        x = keras.layers.Bidirectional(keras.layers.LSTM(64))(x)
        model = keras.Model(inputs, keras.layers.Dense(10)(x))
        """)
    assert model.printed_total == real.count_params()
    specs = [layer.spec for _, layer in answer.recurrent]
    assert [s.input_size if s else None for s in specs] == [28, 128]
    assert [layer.name for _, layer in answer.recurrent] == ["bidirectional", "bidirectional_1"]
    assert [layer.params for _, layer in answer.recurrent] == [
        x.count_params() for x in real.layers[1:3]]


def test_flattened_function_in_a_fence_beside_its_summary(keras_module: Any) -> None:
    """A question with a fenced, indentation-lost model function, prose, and the model's Keras 3
    summary: the code is read, matched with the summary, nothing is flagged, and the answer
    leads with the stack's growth."""
    code = """
        import keras
        from keras import layers
        def build_model(vocab_size=2000, embed_dim=32):
            inputs = keras.Input(shape=(None,), dtype="int32")
            x = layers.Embedding(vocab_size, embed_dim)(inputs)
            x = layers.Bidirectional(layers.LSTM(24, return_sequences=True))(x)
            x = layers.Bidirectional(layers.LSTM(24))(x)
            outputs = layers.Dense(1, activation="sigmoid")(x)
            return keras.Model(inputs, outputs)
        model = build_model()
        """
    real = build(code)
    flat = "\n".join(line.strip() for line in textwrap.dedent(code).splitlines()
                     if not line.strip().startswith("model ="))
    paste = (f"Why is my second layer bigger than the first?\n\n```python\n{flat}\n```\n\n"
             f"{summary(real)}")
    answer = read(paste)
    assert set(answer.kinds) == {"code", "keras-summary"}
    assert not answer.disagreements
    [from_code] = [m for m in answer.models if m.source == "code"]
    assert from_code.name == "build_model"
    assert from_code.total == real.count_params()
    assert answer.reason.startswith("Naive 2 × ")
    first, second = (x.count_params() for x in real.layers if type(x).__name__ ==
                     "Bidirectional")
    assert answer.title.endswith(f": {first + second:,} parameters")


def test_details_name_each_tensor_as_keras_does(keras_module: Any) -> None:
    """--details names a Keras layer's tensors under that layer's name, exactly as the real
    model's weight paths (not the first layer's ``bidirectional/...`` for every layer)."""
    from paramcount.reading.pipeline import layer_reports

    code = """
        import keras
        from keras import layers
        inputs = keras.Input(shape=(7, 5))
        x = layers.Bidirectional(layers.LSTM(4, return_sequences=True), name="enc_1")(inputs)
        x = layers.Bidirectional(layers.GRU(3, return_sequences=True), name="enc_2")(x)
        outputs = layers.LSTM(2, name="top")(x)
        model = keras.Model(inputs, outputs)
    """
    keras_module.backend.clear_session()  # inner layers are numbered across a session
    answer = read(textwrap.dedent(code))
    reports = layer_reports(answer)
    named = [(t.name, t.shape) for layer in code_model(answer).layers
             for t in reports[id(layer)].tensors]
    real = build(code)
    assert named == [(w.path, tuple(w.shape)) for w in real.weights]
