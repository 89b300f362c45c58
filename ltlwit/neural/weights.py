"""Model weights on disk: `NAME.pt` (fp16 state_dict) beside `NAME.json` (manifest).

The manifest says what the tensors are (architecture config, vocabulary, task), where they came
from (training data, seed, commands, versions), and their sha256, so a truncated or swapped
file is caught before `torch.load`, which runs with `weights_only=True` (no pickled code).
Bundled models live in the package (`ltlwit/weights/`, read through importlib.resources, so a
zipped install works too); retrained ones in any directory. Every failure is a `WeightsError`
whose one-line message names the file.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import platform
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

import torch

from ltlwit import __version__
from ltlwit.neural.backbone import WitnessModel
from ltlwit.neural.config import config_from_dict
from ltlwit.neural.tokenizer import BASE_TOKENS

if TYPE_CHECKING:
    from importlib.abc import Traversable  # importlib.resources.abc from Python 3.11

FORMAT = "ltlwit-weights/1"


class WeightsError(ValueError):
    """A weights file is missing, corrupt, or does not match its manifest."""


def _write_atomic(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def save_weights(model: WitnessModel, path: str | os.PathLike, training: dict[str, Any] | None = None) -> Path:
    """Write `path.pt` and `path.json` (a `.pt`/`.json` suffix on `path` is ignored); returns the .pt path."""
    stem = Path(path)
    if stem.suffix in (".pt", ".json"):
        stem = stem.with_suffix("")
    stem.parent.mkdir(parents=True, exist_ok=True)
    state = {
        k: (v.detach().to("cpu", torch.float16) if v.is_floating_point() else v.detach().cpu())
        for k, v in model.state_dict().items()
    }
    buf = io.BytesIO()
    torch.save(state, buf)
    data = buf.getvalue()
    cfg = model.cfg
    manifest = {
        "format": FORMAT,
        "name": stem.name,
        "arch": cfg.arch,
        "task": cfg.task,
        "config": cfg.to_dict(),
        "vocabulary": list(BASE_TOKENS),
        "max_aps": model.max_aps,  # None: any number
        "parameters": sum(p.numel() for p in model.parameters()),
        "logit_scale": float(model.logit_scale),
        "training": training or {},
        "versions": {"ltlwit": __version__, "torch": torch.__version__, "python": platform.python_version()},
        "weights": stem.name + ".pt",
        "sha256": hashlib.sha256(data).hexdigest(),
    }
    pt = stem.with_name(stem.name + ".pt")  # not with_suffix: a name may have dots (`mine.v2`)
    _write_atomic(pt, data)
    _write_atomic(stem.with_name(stem.name + ".json"), (json.dumps(manifest, indent=1) + "\n").encode())
    return pt


def bundled_weights() -> list[str]:
    """Names of the models shipped inside the package."""
    folder = resources.files("ltlwit").joinpath("weights")
    if not folder.is_dir():
        return []
    return sorted(p.name[:-5] for p in folder.iterdir() if p.name.endswith(".json"))


def _locate(name_or_path: str | os.PathLike, directory: str | os.PathLike | None) -> tuple[Traversable, str]:
    """(manifest resource, how to name it in messages): a path, `directory/NAME`, or bundled NAME."""
    text = str(name_or_path)
    path = Path(text)
    if path.suffix in (".pt", ".json") or os.sep in text or path.exists():
        return path.with_suffix(".json"), str(path.with_suffix(".json"))
    if directory is not None and (Path(directory) / f"{text}.json").exists():
        p = Path(directory) / f"{text}.json"
        return p, str(p)
    res = resources.files("ltlwit").joinpath("weights").joinpath(f"{text}.json")  # one name a call on 3.10
    if res.is_file():
        return res, f"ltlwit/weights/{text}.json"
    where = f"{directory} or the bundled models" if directory is not None else "the bundled models"
    raise WeightsError(f"{text}: no such model in {where} (bundled: {', '.join(bundled_weights()) or 'none'})")


def read_manifest(name_or_path: str | os.PathLike, directory: str | os.PathLike | None = None) -> dict[str, Any]:
    res, shown = _locate(name_or_path, directory)
    try:
        manifest = json.loads(res.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise WeightsError(f"{shown}: manifest not found") from None
    except (OSError, ValueError) as e:
        raise WeightsError(f"{shown}: unreadable manifest ({_one_line(e)})") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise WeightsError(f"{shown}: not an {FORMAT} manifest")
    manifest["_resource"], manifest["_shown"] = res, shown
    return manifest


def _one_line(e: BaseException, limit: int = 240) -> str:
    text = " ".join(str(e).split()) or type(e).__name__
    return text if len(text) <= limit else text[: limit - 3] + "..."


def load_weights(
    name_or_path: str | os.PathLike, directory: str | os.PathLike | None = None, device: str | torch.device = "cpu"
) -> tuple[WitnessModel, dict[str, Any]]:
    """Build the model a manifest describes and load its weights (float32, eval mode)."""
    manifest = read_manifest(name_or_path, directory)
    res, shown = manifest.pop("_resource"), manifest.pop("_shown")
    if manifest.get("vocabulary") != list(BASE_TOKENS):
        raise WeightsError(f"{shown}: vocabulary differs from this ltlwit's tokenizer")
    name = manifest.get("weights")
    if not isinstance(name, str) or not name or "/" in name or "\\" in name:
        raise WeightsError(f"{shown}: the manifest names no weights file")
    pt_res = (
        res.with_name(name) if isinstance(res, Path) else resources.files("ltlwit").joinpath("weights").joinpath(name)
    )
    pt_shown = str(Path(shown).with_name(name))
    try:
        data = pt_res.read_bytes()
    except OSError as e:
        raise WeightsError(f"{pt_shown}: cannot read weights ({_one_line(e)})") from None
    if hashlib.sha256(data).hexdigest() != manifest.get("sha256"):
        raise WeightsError(f"{pt_shown}: corrupt weights (sha256 differs from the manifest)")
    try:
        state = torch.load(io.BytesIO(data), map_location="cpu", weights_only=True)
    except Exception as e:  # noqa: BLE001 - any unpickling failure means a corrupt file
        raise WeightsError(f"{pt_shown}: corrupt weights ({_one_line(e)})") from None
    try:
        model = config_from_dict(manifest["config"]).build()
        model.load_state_dict({k: v.float() if v.is_floating_point() else v for k, v in state.items()})
    except (KeyError, TypeError, ValueError, RuntimeError) as e:
        raise WeightsError(f"{pt_shown}: does not match its manifest ({_one_line(e)})") from None
    return model.to(device).eval(), manifest
