"""The model registry: which trained models exist, by name, and where their files are.

Two places hold models in `ltlwit.neural.weights`' format (`NAME.pt` fp16 state dict beside
`NAME.json` manifest):
- bundled: `ltlwit/weights/` inside the package (read through importlib.resources);
- user: `<home>/models/`, where `<home>` is `$LTLWIT_HOME` or the platform's user data dir
  (`~/.local/share/ltlwit` on Linux); `ltlwit train` registers its models there, and keeps
  its checkpoints under `<home>/checkpoints/`.

Names are unique across both: a user model may not take a bundled model's name, so a name means
the same model on every machine with the same ltlwit. Listing reads only the JSON manifests (no
torch import); loading goes through `ltlwit.neural.weights.load_weights`, which checks the
weights' sha256 against the manifest.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

#: Manifest format family written by `ltlwit.neural.weights.save_weights`.
FORMAT_PREFIX = "ltlwit-weights/"
NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


class RegistryError(ValueError):
    """An unknown model name, a bad name, or an unreadable manifest (one-line message)."""


def home() -> Path:
    """`$LTLWIT_HOME`, else the platform's user data dir for ltlwit."""
    if os.environ.get("LTLWIT_HOME"):
        return Path(os.environ["LTLWIT_HOME"]).expanduser()
    try:
        from platformdirs import user_data_dir
    except ImportError:  # platformdirs is a dependency; this only guards a broken install
        return Path.home() / ".local" / "share" / "ltlwit"
    return Path(user_data_dir("ltlwit"))


def models_dir() -> Path:
    return home() / "models"


def checkpoints_dir() -> Path:
    return home() / "checkpoints"


@dataclass(frozen=True)
class ModelInfo:
    name: str
    source: str  # "bundled" | "user"
    manifest_path: str  # for messages and `models path`
    weights_path: str
    manifest: dict[str, Any]

    @property
    def task(self) -> str:
        return str(self.manifest.get("task", "?"))

    @property
    def arch(self) -> str:
        return str(self.manifest.get("arch", "?"))

    @property
    def parameters(self) -> int | None:
        value = self.manifest.get("parameters")
        return int(value) if isinstance(value, int) else None

    def summary(self) -> dict[str, Any]:
        """One row of `models list`."""
        training = self.manifest.get("training") or {}
        return {
            "name": self.name,
            "source": self.source,
            "task": self.task,
            "arch": self.arch,
            "parameters": self.parameters,
            "steps": training.get("steps"),
            "device": training.get("device"),
            "path": self.weights_path,
        }


def check_name(name: str) -> str:
    if not NAME_RE.match(name or ""):
        raise RegistryError(f"bad model name {name!r}: use letters, digits, '.', '_' or '-' (at most 64)")
    return name


def _read(resource: Any, shown: str) -> dict[str, Any]:
    try:
        manifest = json.loads(resource.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise RegistryError(f"{shown}: unreadable manifest ({' '.join(str(e).split())})") from None
    if not isinstance(manifest, dict) or not str(manifest.get("format", "")).startswith(FORMAT_PREFIX):
        raise RegistryError(f"{shown}: not an ltlwit model manifest")
    return manifest


def _bundled_folder() -> Any:
    return resources.files("ltlwit").joinpath("weights")


def _info(name: str, source: str, resource: Any) -> ModelInfo:
    shown = str(resource)
    manifest = _read(resource, shown)
    weights = (
        resource.with_name(manifest.get("weights") or f"{name}.pt")
        if isinstance(resource, Path)
        else _bundled_folder().joinpath(manifest.get("weights") or f"{name}.pt")
    )
    return ModelInfo(name, source, shown, str(weights), manifest)


def _entries(folder: Any) -> list[Any]:
    try:
        if not folder.is_dir():
            return []
        return sorted((p for p in folder.iterdir() if p.name.endswith(".json")), key=lambda p: p.name)
    except OSError:
        return []


def list_models() -> list[ModelInfo]:
    """Bundled models, then user models, each sorted by name; unreadable manifests skipped."""
    out = []
    for source, folder in (("bundled", _bundled_folder()), ("user", models_dir())):
        for entry in _entries(folder):
            try:
                out.append(_info(entry.name[:-5], source, entry))
            except RegistryError:
                continue
    return out


def bundled_names() -> set[str]:
    return {entry.name[:-5] for entry in _entries(_bundled_folder())}


def resolve(name: str) -> ModelInfo:
    """A registered model by name, or a model given as a path to its `.pt` or `.json` file."""
    if name.endswith((".pt", ".json")) or os.sep in name:
        path = _manifest_of(Path(name))
        if not path.exists():
            raise RegistryError(f"{path}: no such model manifest")
        return _info(path.stem, "file", path)
    bundled = _bundled_folder().joinpath(f"{name}.json")
    if bundled.is_file():
        return _info(name, "bundled", bundled)
    user = models_dir() / f"{name}.json"
    if user.is_file():
        return _info(name, "user", user)
    known = ", ".join(m.name for m in list_models()) or "none"
    raise RegistryError(f"no model named {name!r} (known: {known}; `ltlwit models list`)")


def _manifest_of(path: Path) -> Path:
    """`X.pt`, `X.json` or the stem `X` (which may hold dots: `mine.v2`) -> `X.json`."""
    stem = path.with_suffix("") if path.suffix in (".pt", ".json") else path
    return stem.with_name(stem.name + ".json")


def user_model_stem(name: str) -> Path:
    """Where `save_weights` should write a new user model `name` (`<home>/models/NAME`)."""
    check_name(name)
    if name in bundled_names():
        raise RegistryError(f"{name!r} is a bundled model; choose another name")
    return models_dir() / name


def register(weights: str | os.PathLike, name: str) -> ModelInfo:
    """Copy a saved model (`X.pt` + `X.json`) into the user models under `name`; the manifest's
    `name` and `weights` fields are rewritten to match, the tensors are copied byte for byte
    (the sha256 in the manifest stays valid)."""
    stem = user_model_stem(name)
    src_json = _manifest_of(Path(weights))
    src_pt = src_json.with_name(src_json.name[: -len(".json")] + ".pt")
    manifest = _read(src_json, str(src_json))
    if not src_pt.is_file():
        raise RegistryError(f"{src_pt}: weights file missing")
    stem.parent.mkdir(parents=True, exist_ok=True)
    dst_pt = stem.with_name(stem.name + ".pt")  # not with_suffix: a name may have dots (`mine.v2`)
    if src_pt.resolve() != dst_pt.resolve():
        tmp = dst_pt.with_name(f".{dst_pt.name}.{os.getpid()}.tmp")
        shutil.copyfile(src_pt, tmp)
        os.replace(tmp, dst_pt)
    manifest.update(name=name, weights=dst_pt.name)
    dst_json = stem.with_name(stem.name + ".json")
    tmp = dst_json.with_name(f".{dst_json.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    os.replace(tmp, dst_json)
    return _info(name, "user", dst_json)


def load(name: str, device: str = "cpu", threads: int | None = None) -> tuple[Any, dict[str, Any]]:
    """(model in eval mode, manifest) of a registered model (or a model file); imports torch.
    `threads`: the CPU threads of this process's tensor operations from here on (torch's setting
    is per process, and its own default spins against other processes on a busy machine: solve
    and eval run the models on one unless told otherwise); None leaves the setting alone."""
    from ltlwit.neural.weights import load_weights

    if threads is not None:
        import torch

        torch.set_num_threads(threads)

    info = resolve(name)
    # a real file by path (never a same-named file in the working directory); a bundled model
    # inside a zipped install by name, through importlib.resources
    target = info.manifest_path if Path(info.manifest_path).is_file() else info.name
    return load_weights(target, device=device)
