"""Training checkpoints on disk: one `checkpoint.pt`, or the same bytes in parts of a bounded size.

A remote GPU job may return files of at most 16 MiB, so `save(..., part_mb=16)` writes the
serialised checkpoint as `checkpoint-STEP.partNN` files beside an index, `checkpoint.parts.json`
(part names, sizes, sha256 of the whole), and `load` reassembles and verifies them. Either form
is written atomically: parts first, under names no index refers to yet, then the index (or the
single file) by rename, then the files of the form or generation it replaced are removed. So a
run killed mid-write leaves the previous checkpoint readable.

    python -m ltlwit.train.checkpoint split runs/si-ltl --part-mb 16   # checkpoint.pt -> parts
    python -m ltlwit.train.checkpoint join runs/si-ltl                 # parts -> checkpoint.pt
"""

from __future__ import annotations

import argparse
import hashlib
import io
import itertools
import json
import os
import sys
from pathlib import Path
from typing import Any, Sequence

import torch

SINGLE = "checkpoint.pt"
INDEX = "checkpoint.parts.json"
FORMAT = "ltlwit-checkpoint-parts/1"
MIB = 1 << 20
_WRITES = itertools.count()  # part names never repeat within a process


def exists(folder: str | os.PathLike) -> bool:
    folder = Path(folder)
    return (folder / INDEX).exists() or (folder / SINGLE).exists()


def save(state: dict[str, Any], folder: str | os.PathLike, part_mb: float = 0) -> list[Path]:
    """Write `state` (torch.save) to `folder` as one file, or as parts of at most `part_mb` MiB
    (0: one file). Returns the files written."""
    buf = io.BytesIO()
    torch.save(state, buf)
    return write_bytes(buf.getvalue(), folder, part_mb, tag=str(state.get("step", 0)))


def write_bytes(data: bytes, folder: str | os.PathLike, part_mb: float = 0, tag: str = "0") -> list[Path]:
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    old = _files(folder)
    if not part_mb:
        tmp = folder / f".{SINGLE}.{os.getpid()}.tmp"
        tmp.write_bytes(data)
        os.replace(tmp, folder / SINGLE)
        written = [folder / SINGLE]
    else:
        size = int(part_mb * MIB)
        if size < 1:
            raise ValueError(f"part size must be positive, got {part_mb} MiB")
        generation = f"{tag}-{os.getpid()}-{next(_WRITES)}"
        chunks = [data[lo : lo + size] for lo in range(0, max(len(data), 1), size)]
        names = [f"checkpoint-{generation}.part{i:02d}" for i in range(len(chunks))]
        for name, chunk in zip(names, chunks):
            tmp = folder / f".{name}.tmp"
            tmp.write_bytes(chunk)
            os.replace(tmp, folder / name)
        index = {
            "format": FORMAT,
            "parts": names,
            "sizes": [len(c) for c in chunks],
            "bytes": len(data),
            "sha256": hashlib.sha256(data).hexdigest(),
        }
        tmp = folder / f".{INDEX}.{os.getpid()}.tmp"
        tmp.write_text(json.dumps(index, indent=1) + "\n")
        os.replace(tmp, folder / INDEX)
        written = [folder / n for n in names] + [folder / INDEX]
    for path in old - set(written):
        path.unlink(missing_ok=True)
    return written


def _files(folder: Path) -> set[Path]:
    """The checkpoint files in `folder` now (either form, any generation)."""
    found = set(folder.glob("checkpoint-*.part[0-9]*"))
    found.update(p for p in (folder / SINGLE, folder / INDEX) if p.exists())
    return found


def read_bytes(folder: str | os.PathLike) -> bytes:
    """The serialised checkpoint in `folder` (parts preferred: they are written last when a run
    switches form); ValueError when a part is missing or the bytes differ from the index."""
    folder = Path(folder)
    index_path = folder / INDEX
    if not index_path.exists():
        return (folder / SINGLE).read_bytes()
    try:
        index = json.loads(index_path.read_text())
        names = index["parts"]
    except (ValueError, KeyError, TypeError):
        raise ValueError(f"{index_path}: not a checkpoint index") from None
    if index.get("format") != FORMAT:
        raise ValueError(f"{index_path}: not an {FORMAT} index")
    chunks = []
    for name in names:
        part = folder / name
        if os.sep in name or "/" in name or not part.exists():
            raise ValueError(f"{index_path}: part {name} is missing")
        chunks.append(part.read_bytes())
    data = b"".join(chunks)
    if len(data) != index.get("bytes") or hashlib.sha256(data).hexdigest() != index.get("sha256"):
        raise ValueError(f"{index_path}: the parts do not add up to the checkpoint (size or sha256 differs)")
    return data


def load(folder: str | os.PathLike, map_location: str | torch.device = "cpu") -> dict[str, Any]:
    """The checkpoint state in `folder`, from one file or from parts."""
    return torch.load(io.BytesIO(read_bytes(folder)), map_location=map_location, weights_only=True)


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m ltlwit.train.checkpoint",
        description="Convert a run folder's checkpoint between one file and parts.",
    )
    p.add_argument("action", choices=["split", "join"])
    p.add_argument("folder")
    p.add_argument("--part-mb", type=float, default=16.0, help="largest part, MiB (split)")
    a = p.parse_args(argv)
    try:
        data = read_bytes(a.folder)
        files = write_bytes(data, a.folder, a.part_mb if a.action == "split" else 0, tag="split")
    except (OSError, ValueError) as e:
        print(f"ltlwit checkpoint: {e}", file=sys.stderr)
        return 2
    for f in files:
        print(f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
