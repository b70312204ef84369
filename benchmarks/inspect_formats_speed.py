"""Are the ONNX and Keras readers header-only? Big files read in about the time of tiny ones.

Makes, in a temporary folder, with the real libraries: a tiny and a large ONNX model
(``onnx.save``; the large one a bidirectional LSTM node whose initializers hold about 1 GB of
``raw_data`` in the file), and a tiny and a large Keras model saved as ``.keras`` and legacy
``.h5`` (the large one an LSTM of about 340 MB). Each file is read in a fresh process by
paramcount's reader and, side by side, by the usual way of getting its shapes:
``onnx.load`` (which parses every byte of the protobuf) and h5py reading every dataset. Prints
the median time of the read itself (imports excluded), the ratio of big to tiny, and the growth
of peak RSS during the read. The files are deleted afterwards.

    python benchmarks/inspect_formats_speed.py [--runs 3] [--skip-keras]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from pathlib import Path

from probe import probe

READERS = {
    "paramcount onnx": ("from paramcount.files import onnx_file",
                        "listing = onnx_file.read(path)\nassert listing.total > 0"),
    "onnx.load": ("import onnx",
                  "model = onnx.load(path)\n"
                  "shapes = {t.name: tuple(t.dims) for t in model.graph.initializer}"),
    "paramcount keras": ("from paramcount.files import keras_file\nimport h5py",
                         "listing = keras_file.read(path)\nassert listing.total > 0"),
    "h5py, every dataset": (
        "import h5py, io, zipfile",
        "source = zipfile.ZipFile(path).open('model.weights.h5') if path.endswith('.keras') "
        "else open(path, 'rb')\n"
        "data = io.BytesIO(source.read())\n"
        "arrays = []\n"
        "h5py.File(data, 'r').visititems(lambda n, o: arrays.append(o[()]) "
        "if isinstance(o, h5py.Dataset) else None)",
    ),
}


def make_onnx(directory: Path) -> dict[str, Path]:
    """A tiny and a ~1 GB ONNX model with one bidirectional LSTM node, by onnx.save."""
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    out = {}
    for label, hidden, width in (("tiny", 8, 4), ("big", 4096, 4096)):
        inits = [
            numpy_helper.from_array(np.zeros((2, 4 * hidden, width), np.float32), "W"),
            numpy_helper.from_array(np.zeros((2, 4 * hidden, hidden), np.float32), "R"),
            numpy_helper.from_array(np.zeros((2, 8 * hidden), np.float32), "B"),
        ]
        graph = helper.make_graph(
            [helper.make_node("LSTM", ["x", "W", "R", "B"], ["y"], hidden_size=hidden,
                              direction="bidirectional")],
            "lstm", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [5, 1, width])],
            [helper.make_tensor_value_info("y", TensorProto.FLOAT, [5, 2, 1, hidden])], inits)
        path = directory / f"{label}.onnx"
        onnx.save(helper.make_model(graph), str(path))
        del graph, inits
        out[label] = path
    return out


def make_keras(directory: Path) -> dict[str, Path]:
    """A tiny and a ~340 MB Keras LSTM saved as .keras and legacy .h5."""
    import warnings

    import keras

    out = {}
    for label, width, hidden in (("tiny", 4, 8), ("big", 1024, 4096)):
        keras.backend.clear_session()
        model = keras.Sequential([keras.Input((None, width)), keras.layers.LSTM(hidden)])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for suffix in ("keras", "h5"):
                path = directory / f"{label}.{suffix}"
                model.save(path)
                out[f"{label}.{suffix}"] = path
        del model
    return out


def measure(reader: str, path: Path, runs: int) -> tuple[float, int]:
    """Median seconds of the read and the largest peak-RSS growth (KiB) over ``runs``."""
    times, growth = [], 0
    for _ in range(runs):
        seconds, before, after = probe(*READERS[reader], path)
        times.append(seconds)
        growth = max(growth, after - before)
    return statistics.median(times), growth


def report(title: str, readers: list[str], tiny: Path, big: Path, runs: int) -> None:
    """One table: each reader on the tiny and the big file, with the ratio."""
    print(f"\n{title}: tiny {tiny.stat().st_size:,} bytes, big {big.stat().st_size:,} bytes")
    print(f"  {'reader':<22} {'tiny s':>9} {'big s':>9} {'big/tiny':>9} {'peak +MiB':>10}")
    for reader in readers:
        small, _ = measure(reader, tiny, runs)
        large, growth = measure(reader, big, runs)
        print(f"  {reader:<22} {small:9.4f} {large:9.4f} {large / small:9.1f} "
              f"{growth / 1024:10.1f}")


def main() -> None:
    """Make the files, measure every reader, print the tables."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--skip-keras", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="paramcount-bench-") as folder:
        directory = Path(folder)
        onnx_files = make_onnx(directory)
        report("ONNX", ["paramcount onnx", "onnx.load"], onnx_files["tiny"], onnx_files["big"],
               args.runs)
        for path in onnx_files.values():
            path.unlink()
        if not args.skip_keras:
            keras_files = make_keras(directory)
            for suffix in ("keras", "h5"):
                report(f"Keras .{suffix}", ["paramcount keras", "h5py, every dataset"],
                       keras_files[f"tiny.{suffix}"], keras_files[f"big.{suffix}"], args.runs)


if __name__ == "__main__":
    main()
