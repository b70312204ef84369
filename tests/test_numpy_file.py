"""numpy .npz/.npy files written by numpy itself: read from headers, loose recurrent names."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paramcount.engine.spec import Cell
from paramcount.errors import ParamcountError
from paramcount.files import numpy_file
from paramcount.files.dispatch import read_file
from tests.conftest import CLI
from tests.docfiles.inspect import Exploit

np = pytest.importorskip("numpy")


def g2p(path: Path, hidden: int = 32, embed: int = 16) -> dict[str, Any]:
    """A grapheme-to-phoneme GRU encoder–decoder in torch's layout under its own names, saved
    by np.savez as such packages ship it; the arrays, by name."""
    rng = np.random.default_rng(0)
    arrays = {}
    for side in ("enc", "dec"):
        arrays[f"{side}_emb"] = rng.standard_normal((30, embed)).astype(np.float32)
        arrays[f"{side}_w_ih"] = rng.standard_normal((3 * hidden, embed)).astype(np.float32)
        arrays[f"{side}_w_hh"] = rng.standard_normal((3 * hidden, hidden)).astype(np.float32)
        arrays[f"{side}_b_ih"] = rng.standard_normal(3 * hidden).astype(np.float32)
        arrays[f"{side}_b_hh"] = rng.standard_normal(3 * hidden).astype(np.float32)
    arrays["fc_w"] = rng.standard_normal((40, hidden)).astype(np.float32)
    arrays["fc_b"] = rng.standard_normal(40).astype(np.float32)
    np.savez(path, **arrays)
    return arrays


def inspected(cli: CLI, path: Path) -> dict[str, Any]:
    """``paramcount inspect PATH --json``, parsed."""
    result = cli("inspect", str(path), "--json")
    assert result.code == 0, result
    data: dict[str, Any] = json.loads(result.out)
    return data


def test_npz_is_counted_from_headers_with_its_grus_recognised(cli: CLI, tmp_path: Path) -> None:
    """The g2p archive: every array counted as numpy sizes it, both GRUs found by their
    shapes (96 = 3·32 rows), the names taken for each tensor said."""
    arrays = g2p(tmp_path / "g2p.npz")
    report = inspected(cli, tmp_path / "g2p.npz")
    assert report["format"] == "npz"
    assert report["total"] == sum(a.size for a in arrays.values())
    assert {t["name"]: tuple(t["shape"]) for t in report["tensors"]} == {
        name: a.shape for name, a in arrays.items()}
    layers = {r["name"]: r for r in report["recurrent"]}
    assert set(layers) == {"enc", "dec"}
    for side, layer in layers.items():
        assert (layer["framework"], layer["cell"], layer["input"], layer["hidden"]) == (
            "torch", "gru", 16, 32)
        assert layer["match"] and layer["stored"] == layer["params"]
        assert (f"{side}_w_ih as weight_ih_l0, {side}_w_hh as weight_hh_l0, "
                f"{side}_b_ih as bias_ih_l0, {side}_b_hh as bias_hh_l0") in layer["notes"][0]


@pytest.mark.torch
def test_the_recognised_gru_is_the_one_torch_builds(cli: CLI, tmp_path: Path) -> None:
    """The layer inspect names, built by torch, takes the archive's arrays under the names it
    said it took, and counts what inspect counts."""
    torch = pytest.importorskip("torch")
    arrays = g2p(tmp_path / "g2p.npz")
    layer = next(r for r in inspected(cli, tmp_path / "g2p.npz")["recurrent"]
                 if r["name"] == "enc")
    gru = torch.nn.GRU(layer["input"], layer["hidden"], num_layers=layer["layers"])
    gru.load_state_dict({f"{role}_l0": torch.from_numpy(arrays[f"enc_{short}"])
                         for role, short in (("weight_ih", "w_ih"), ("weight_hh", "w_hh"),
                                             ("bias_ih", "b_ih"), ("bias_hh", "b_hh"))})
    assert sum(p.numel() for p in gru.parameters()) == layer["params"]


@pytest.mark.parametrize(("names", "shapes", "expected"), [
    (("dec.W", "dec.U", "dec.b"), ((8, 40), (10, 40), (40,)), ("keras", "lstm", 8, 10, None)),
    (("rnn_kernel", "rnn_recurrent_kernel", "rnn_bias"), ((8, 30), (10, 30), (2, 30)),
     ("keras", "gru", 8, 10, True)),
    (("rnn_kernel", "rnn_recurrent_kernel", "rnn_bias"), ((8, 30), (10, 30), (30,)),
     ("keras", "gru", 8, 10, False)),
    (("W_ih", "W_hh"), ((12, 6), (12, 3)), ("torch", "lstm", 6, 3, None)),
], ids=["keras1-W-U-b-lstm", "kernel-gru-reset-after", "kernel-gru-reset-before",
        "bare-torch-no-bias"])
def test_loose_spellings(cli: CLI, tmp_path: Path, names: tuple[str, ...],
                         shapes: tuple[tuple[int, ...], ...],
                         expected: tuple[object, ...]) -> None:
    """Each loose spelling is read in its layout; the cell comes from G·H over H."""
    np.savez(tmp_path / "m.npz", **{n: np.zeros(s, np.float32) for n, s in zip(names, shapes,
                                                                              strict=True)})
    (layer,) = inspected(cli, tmp_path / "m.npz")["recurrent"]
    assert (layer["framework"], layer["cell"], layer["input"], layer["hidden"],
            layer["reset_after"]) == expected
    assert layer["match"]


def test_shapes_that_fit_no_layer_are_not_claimed(cli: CLI, tmp_path: Path) -> None:
    """w_ih of 3·H rows beside a w_hh of another width is no layer: nothing is recognised."""
    np.savez(tmp_path / "m.npz", w_ih=np.zeros((96, 16)), w_hh=np.zeros((64, 16)))
    assert inspected(cli, tmp_path / "m.npz")["recurrent"] == []


def test_a_single_npy_file(tmp_path: Path) -> None:
    """np.save's .npy is read the same way, named after the file."""
    np.save(tmp_path / "weights.npy", np.zeros((3, 4), np.float16))
    listing = read_file(tmp_path / "weights.npy")
    assert (listing.format, [(t.name, t.shape, t.dtype) for t in listing.tensors]) == (
        "npy", [("weights", (3, 4), "float16")])


def test_compressed_and_fortran_arrays(tmp_path: Path) -> None:
    """np.savez_compressed and Fortran-ordered arrays: shapes as numpy reports them."""
    np.savez_compressed(tmp_path / "c.npz", a=np.asfortranarray(np.zeros((5, 7))),
                        b=np.zeros((2,), np.int8))
    listing = read_file(tmp_path / "c.npz")
    assert [(t.name, t.shape, t.dtype) for t in listing.tensors] == [
        ("a", (5, 7), "float64"), ("b", (2,), "int8")]


def test_object_arrays_are_never_unpickled(cli: CLI, tmp_path: Path) -> None:
    """An object array (a pickle that would run code) is named, not counted, and not run."""
    marker = tmp_path / "ran"
    payload = np.empty(1, dtype=object)
    payload[0] = Exploit(f"open({str(marker)!r}, 'w').close()")
    np.savez(tmp_path / "m.npz", w=np.zeros((2, 3), np.float32), evil=payload)
    report = inspected(cli, tmp_path / "m.npz")
    assert report["total"] == 6 and not marker.exists()
    assert any("1 array of Python objects" in n and "evil" in n for n in report["notes"])


def _header_patched(path: Path, old: bytes, new: bytes) -> None:
    """Replace ``old`` by ``new`` in a .npy header written by numpy, keeping its length."""
    data = path.read_bytes()
    assert old in data[:200]
    padded = new + b" " * (len(old) - len(new)) if len(new) < len(old) else new
    data = data.replace(old, padded, 1)
    if len(new) > len(old):  # grow the header: rewrite its length field (version 1.0)
        start = data.index(b"{")
        end = data.index(b"\n", start) + 1
        header = data[start:end]
        version = b"\x93NUMPY\x02\x00" + len(header).to_bytes(4, "little")
        data = version + header + data[end:]
    path.write_bytes(data)


@pytest.mark.parametrize(("old", "new", "words"), [
    (b"(3, 4)", b"(3, " + b"9" * 5000 + b")", "2^63"),
    (b"(3, 4)", b"(3, " + b"9" * 4000 + b")", "2^63"),
    (b"(3, 4)", b"(3, 5)", "needs 60 bytes of data"),
    (b"'<f4'", b"'<f3'", "not a numeric numpy dtype"),
    (b"'shape'", b"'shope'", "not a dict of descr"),
    (b"(3, 4)", b"__import__('os').system('true')", "not a dict of descr"),
], ids=["dim-5000-digits", "dim-4000-digits", "forged-shape", "bad-dtype", "no-shape",
        "code-in-header"])
def test_hostile_headers_exit_2_in_one_line(cli: CLI, tmp_path: Path, old: bytes, new: bytes,
                                            words: str) -> None:
    """A .npy written by numpy, its header then forged: one error line, exit 2."""
    path = tmp_path / "m.npy"
    np.save(path, np.zeros((3, 4), np.float32))
    _header_patched(path, old, new)
    result = cli("inspect", str(path))
    assert result.code == 2 and result.out == ""
    assert result.err.count("\n") == 1 and words in result.err and len(result.err) < 200


def test_a_zip_of_other_things_is_not_called_a_torch_checkpoint(tmp_path: Path) -> None:
    """A .npz holding something beside .npy members is refused as not np.savez's."""
    import zipfile

    with zipfile.ZipFile(tmp_path / "m.npz", "w") as archive:
        archive.writestr("a.npy", b"")
        archive.writestr("readme.txt", b"hello")
    with pytest.raises(ParamcountError, match=r"not a numpy \.npz archive"):
        numpy_file.read(tmp_path / "m.npz")


def test_one_gate_block_under_w_u_b_names_its_doubt(cli: CLI, tmp_path: Path) -> None:
    """W (8, 10), U (10, 10), b (10,) read as a SimpleRNN say they could be any W·x + U·h + b
    (an attention score): the names alone do not make it a recurrent layer."""
    np.savez(tmp_path / "m.npz", **{"attn.W": np.zeros((8, 10)), "attn.U": np.zeros((10, 10)),
                                    "attn.b": np.zeros(10)})
    (layer,) = inspected(cli, tmp_path / "m.npz")["recurrent"]
    assert layer["cell"] == "rnn" and any("attention score" in n for n in layer["notes"])


@settings(max_examples=150, deadline=None)
@given(cell=st.sampled_from(list(Cell)), inputs=st.integers(1, 40), hidden=st.integers(1, 40),
       bias=st.booleans(), prefix=st.sampled_from(["", "enc_", "decoder.rnn.", "m/rnn-"]),
       keras_layout=st.booleans(), reset_after=st.booleans())
def test_loose_names_round_trip(cell: Cell, inputs: int, hidden: int, bias: bool, prefix: str,
                                keras_layout: bool, reset_after: bool) -> None:
    """Any cell written under a loose spelling in its layout is recognised as that cell, with
    its input and hidden size and bias, every tensor claimed."""
    from paramcount.files import loose_names

    rows = cell.gates * hidden
    if keras_layout:
        shapes = {f"{prefix}kernel": (inputs, rows), f"{prefix}recurrent_kernel": (hidden, rows)}
        if bias:
            two = cell is Cell.GRU and reset_after
            shapes[f"{prefix}bias"] = (2, rows) if two else (rows,)
    else:
        shapes = {f"{prefix}w_ih": (rows, inputs), f"{prefix}w_hh": (rows, hidden)}
        if bias:
            shapes |= {f"{prefix}b_ih": (rows,), f"{prefix}b_hh": (rows,)}
    (found,) = loose_names.recognise(shapes)
    spec = found.spec
    assert (spec.cell, spec.input_size, spec.hidden_size, spec.bias) == (cell, inputs, hidden,
                                                                         bias)
    assert set(found.names) == set(shapes) and found.prefix == prefix
