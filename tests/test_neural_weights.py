"""Weights I/O: fp16 state dict + manifest round trip, bundled lookup, one-line errors naming the file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch
from neural_support import one_thread  # noqa: F401 - a fixture

from ltlwit.logic.syntax import parse_formula
from ltlwit.neural.beam import beam_search
from ltlwit.neural.config import preset
from ltlwit.neural.weights import WeightsError, bundled_weights, load_weights, read_manifest, save_weights

FORMULAS = [parse_formula(t, "polish") for t in ("&Uab!Xc", "XXa", "U&ab|!c&dXe")]


@pytest.mark.parametrize("arch", ["si", "dual", "full", "renaming", "lexinv"])
def test_round_trip(tmp_path: Path, arch: str) -> None:
    torch.manual_seed(0)
    model = preset(arch, "ltl", "tiny").build().eval()
    model.logit_scale.fill_(7.25)
    pt = save_weights(model, tmp_path / "mine", training={"steps": 12, "data": "somewhere"})
    assert pt == tmp_path / "mine.pt" and (tmp_path / "mine.json").exists()
    state = torch.load(pt, weights_only=True)
    assert all(v.dtype == torch.float16 for v in state.values() if v.is_floating_point())
    loaded, manifest = load_weights("mine", directory=tmp_path)
    assert manifest["arch"] == arch and manifest["task"] == "ltl" and manifest["training"]["steps"] == 12
    assert manifest["vocabulary"][:3] == ["<pad>", "<eos>", "<start>"]
    assert manifest["max_aps"] == {"dual": 32, "full": 10, "renaming": 10}.get(arch)
    assert manifest["parameters"] == sum(p.numel() for p in model.parameters())
    assert float(loaded.logit_scale) == 7.25 and not loaded.training
    for name, value in model.state_dict().items():
        assert torch.allclose(loaded.state_dict()[name], value.half().float())
    half = preset(arch, "ltl", "tiny").build().eval()
    half.load_state_dict({k: v.half().float() for k, v in model.state_dict().items()})
    assert beam_search(loaded, FORMULAS, max_len=10) == beam_search(half, FORMULAS, max_len=10)
    assert load_weights(tmp_path / "mine.pt")[1]["sha256"] == manifest["sha256"]  # by path too


def saved(tmp_path: Path) -> Path:
    torch.manual_seed(0)
    return save_weights(preset("si", "prop", "tiny").build(), tmp_path / "m")


def test_corrupt_weights_name_the_file(tmp_path: Path) -> None:
    pt = saved(tmp_path)
    data = bytearray(pt.read_bytes())
    data[len(data) // 2] ^= 0xFF
    pt.write_bytes(bytes(data))
    with pytest.raises(WeightsError) as e:
        load_weights(pt)
    assert str(e.value).startswith(str(pt)) and "corrupt" in str(e.value) and "\n" not in str(e.value)


def test_unreadable_tensors_after_matching_checksum(tmp_path: Path) -> None:
    pt = saved(tmp_path)
    pt.write_bytes(b"not a zip archive")
    manifest = json.loads((tmp_path / "m.json").read_text())
    import hashlib

    manifest["sha256"] = hashlib.sha256(b"not a zip archive").hexdigest()
    (tmp_path / "m.json").write_text(json.dumps(manifest))
    with pytest.raises(WeightsError, match=r"m\.pt: corrupt weights"):
        load_weights(tmp_path / "m")


def test_mismatched_manifest(tmp_path: Path) -> None:
    saved(tmp_path)
    manifest = json.loads((tmp_path / "m.json").read_text())
    manifest["config"]["d_model"] = 64
    (tmp_path / "m.json").write_text(json.dumps(manifest))
    with pytest.raises(WeightsError, match=r"m\.pt: does not match its manifest") as e:
        load_weights(tmp_path / "m.json")
    assert "\n" not in str(e.value)
    manifest["vocabulary"] = ["<pad>"]
    (tmp_path / "m.json").write_text(json.dumps(manifest))
    with pytest.raises(WeightsError, match="vocabulary"):
        load_weights(tmp_path / "m.json")


def test_missing_and_bad_manifests(tmp_path: Path) -> None:
    with pytest.raises(WeightsError, match="no such model"):
        load_weights("no-such-model", directory=tmp_path)
    (tmp_path / "x.json").write_text("{not json")
    with pytest.raises(WeightsError, match=r"x\.json: unreadable manifest"):
        read_manifest(tmp_path / "x.json")
    (tmp_path / "y.json").write_text(json.dumps({"format": "something-else"}))
    with pytest.raises(WeightsError, match="not an ltlwit-weights/1 manifest"):
        read_manifest(tmp_path / "y.json")
    from ltlwit.neural.tokenizer import BASE_TOKENS

    (tmp_path / "z.json").write_text(json.dumps({"format": "ltlwit-weights/1", "vocabulary": list(BASE_TOKENS)}))
    with pytest.raises(WeightsError, match=r"z\.json: the manifest names no weights file"):
        load_weights(tmp_path / "z.json")
    assert isinstance(bundled_weights(), list)
