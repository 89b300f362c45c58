"""The model registry: bundled and user models by name, LTLWIT_HOME, registering, loading."""

from __future__ import annotations

import json
import shutil

import pytest

from ltlwit.neural import registry
from ltlwit.neural.registry import RegistryError


@pytest.fixture()
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("LTLWIT_HOME", str(tmp_path / "home"))
    bundled = tmp_path / "bundled"
    bundled.mkdir()
    monkeypatch.setattr(registry, "_bundled_folder", lambda: bundled)
    return tmp_path


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """A tiny symbol-invariant model saved by the neural core's `save_weights`."""
    import torch

    from ltlwit.neural.config import preset
    from ltlwit.neural.weights import save_weights

    torch.manual_seed(0)
    model = preset("si", "ltl", "tiny").build()
    return save_weights(model, tmp_path_factory.mktemp("w") / "tiny-si", training={"steps": 3, "device": "cpu"})


def test_home_is_ltlwit_home_or_the_user_data_dir(monkeypatch, tmp_path):
    monkeypatch.setenv("LTLWIT_HOME", str(tmp_path))
    assert registry.models_dir() == tmp_path / "models"
    assert registry.checkpoints_dir() == tmp_path / "checkpoints"
    monkeypatch.delenv("LTLWIT_HOME")
    assert registry.home().name == "ltlwit"


def test_register_list_show_path_load(home, saved):
    info = registry.register(saved, "my-si")
    assert info.source == "user" and info.task == "ltl" and info.arch == "si"
    assert (home / "home" / "models" / "my-si.pt").read_bytes() == saved.read_bytes()
    assert [m.name for m in registry.list_models()] == ["my-si"]
    got = registry.resolve("my-si")
    assert got.manifest["name"] == "my-si" and got.manifest["weights"] == "my-si.pt"
    assert got.weights_path == str(home / "home" / "models" / "my-si.pt")
    assert got.summary()["steps"] == 3 and got.parameters and got.parameters > 0
    model, manifest = registry.load("my-si")
    assert manifest["sha256"] == json.loads(saved.with_suffix(".json").read_text())["sha256"]
    assert not model.training


def test_bundled_models_are_listed_first_and_their_names_reserved(home, saved):
    bundled = home / "bundled"
    shutil.copy(saved, bundled / "si-ltl.pt")
    manifest = json.loads(saved.with_suffix(".json").read_text())
    manifest.update(name="si-ltl", weights="si-ltl.pt")
    (bundled / "si-ltl.json").write_text(json.dumps(manifest))
    registry.register(saved, "a-user-model")
    assert [(m.name, m.source) for m in registry.list_models()] == [("si-ltl", "bundled"), ("a-user-model", "user")]
    assert registry.resolve("si-ltl").source == "bundled"
    with pytest.raises(RegistryError, match="bundled"):
        registry.register(saved, "si-ltl")
    assert registry.load("si-ltl")[1]["name"] == "si-ltl"


def test_unknown_and_bad_names(home, saved):
    registry.register(saved, "one")
    with pytest.raises(RegistryError, match=r"no model named 'two' \(known: one"):
        registry.resolve("two")
    for bad in ("", "../x", "a b", "-x", "x" * 65):
        with pytest.raises(RegistryError, match="bad model name"):
            registry.register(saved, bad)


def test_a_model_file_by_path(home, saved):
    info = registry.resolve(str(saved))
    assert info.source == "file" and info.name == "tiny-si"
    with pytest.raises(RegistryError, match="no such model manifest"):
        registry.resolve(str(saved.with_name("nope.pt")))


def test_a_broken_manifest_is_skipped_in_lists_and_named_when_asked_for(home, saved):
    registry.register(saved, "good")
    (home / "home" / "models" / "broken.json").write_text("{not json")
    (home / "home" / "models" / "other.json").write_text('{"format": "something-else"}')
    assert [m.name for m in registry.list_models()] == ["good"]
    with pytest.raises(RegistryError, match="broken.json: unreadable manifest"):
        registry.resolve("broken")
    with pytest.raises(RegistryError, match="not an ltlwit model manifest"):
        registry.resolve("other")


def test_listing_does_not_import_torch(home):
    import subprocess
    import sys

    code = "import sys, ltlwit.neural.registry as r; r.list_models(); print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
