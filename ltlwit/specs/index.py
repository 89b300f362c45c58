"""A library of formulas too large to rank in one process: their fingerprints in a
nearest-neighbour index on disk, served by faiss (`ltlwit embed --index DIR`, `ltlwit similar
--index DIR`).

`similar -F` ranks a file's specs by comparing each with every other in Python, which is right
for a file of thousands and wrong for a library of millions. Here the fingerprints
(`logic.fingerprint`, `size` bits each) go into faiss's exact Hamming index (`IndexBinaryFlat`:
32 bytes a formula at the default 256 traces, a scan of a million in milliseconds), and the
formulas into a JSON Lines file read only where a neighbour is found. The ranking is the one
`similar -F` makes (the cosine of two fingerprints is 1 - 2 * hamming / size, ties in the order
the formulas were added), and every relation shown is still decided by the engine.

A directory holds `index.json` (what it is: semantics, size, the fingerprints of a few probe
formulas so that an index built with other traces is refused, the count), `fingerprints.faiss`,
`entries.jsonl` (each formula as written, printed, with its name and place) and `offsets.u64`
(where each entry's line starts). Adding to it appends; the count is written last, so that an
interrupted addition leaves the index as it was.
"""

from __future__ import annotations

import itertools
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

from ltlwit.logic.fingerprint import Fingerprints
from ltlwit.logic.formula import Formula
from ltlwit.specs.similar import Compared

FORMAT = "ltlwit-similar-index"
VERSION = 1
#: Formulas whose fingerprints pin down the traces an index was built with.
PROBES = ("a", "X b", "G F c", "a U b", "F G !d")
_META, _VECTORS, _ENTRIES, _OFFSETS = "index.json", "fingerprints.faiss", "entries.jsonl", "offsets.u64"


def _faiss() -> Any:
    try:
        import faiss
    except ImportError as exc:
        raise ValueError("an index needs faiss: pip install 'ltlwit[index]'") from exc
    return faiss


def _probes(prints: Fingerprints) -> list[str]:
    from ltlwit.logic.syntax import parse_formula

    return [format(prints.of(parse_formula(p)), "x") for p in PROBES]


@dataclass
class Index:
    """An index directory opened for lookups (`open_index`)."""

    path: Path
    semantics: str
    size: int
    count: int
    _vectors: Any
    _offsets: Any

    @property
    def fingerprints(self) -> Fingerprints:
        return Fingerprints(self.semantics, self.size)

    def nearest(self, bits: int, top: int, skip: Compared | None = None) -> list[tuple[float, Compared]]:
        """The `top` entries nearest to a fingerprint (cosine similarity, nearest first, ties in
        the order they were added), leaving out those that are `skip` (a spec of a file looked
        up in an index that holds it)."""
        import numpy as np

        if not self.count:
            return []
        query = np.frombuffer(bits.to_bytes(self.size // 8, "little"), dtype=np.uint8)[None, :]
        want = top + 1
        while True:
            k = min(want, self.count)
            distances, _ = self._vectors.search(query, k)
            # Everything as near as the k-th, so that ties are broken by order (faiss's order
            # among equal distances is not documented).
            _, found_d, found_i = self._vectors.range_search(query, int(distances[0][-1]) + 1)
            kept: list[tuple[float, Compared]] = []
            for d, i in sorted(zip(found_d.tolist(), found_i.tolist())):
                entry = self.entry(i)
                if not _same(entry, skip):
                    kept.append((1.0 - 2.0 * d / self.size, entry))
                    if len(kept) == top:
                        return kept
            if k == self.count:
                return kept
            want *= 2

    def entry(self, i: int) -> Compared:
        """Entry i, parsed from its printed form (the text as written shown)."""
        from ltlwit.logic.syntax import parse_formula

        with open(self.path / _ENTRIES, "rb") as f:
            f.seek(int(self._offsets[i]))
            row = json.loads(f.readline())
        return Compared(row["text"], parse_formula(row["formula"]), self.semantics, None, row["name"], row["where"])


def _same(entry: Compared, skip: Compared | None) -> bool:
    return skip is not None and skip.where is not None and (entry.where, entry.text) == (skip.where, skip.text)


def open_index(path: str | os.PathLike) -> Index:
    """The index at `path`; ValueError for a directory that holds none, one of another version or
    built with other fingerprint traces, or without faiss."""
    _faiss()  # first: without it nothing else can be said
    import numpy as np

    where = Path(path)
    meta = _meta(where)
    if meta is None:
        raise ValueError(f"{where}: no index here (`ltlwit embed -F FILE --index {where}` makes one)")
    prints = Fingerprints(meta["semantics"], meta["size"])
    if meta["probes"] != _probes(prints):
        raise ValueError(f"{where}: built with other fingerprint traces (another ltlwit version): build it again")
    offsets = np.fromfile(where / _OFFSETS, dtype="<u8")
    return Index(where, meta["semantics"], meta["size"], meta["count"], _read_vectors(where, meta["count"]), offsets)


def _meta(where: Path) -> dict | None:
    try:
        meta = json.loads((where / _META).read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        return None
    if meta.get("version") != VERSION:
        raise ValueError(f"{where}: an index of version {meta.get('version')}, this ltlwit reads {VERSION}")
    return meta


def refused(entry: Compared) -> str | None:
    """Why `entry` cannot go into an index, or None: a formula over data (its fingerprint is its
    skeleton's, and the index keeps no declarations to decide its relations with)."""
    if entry.formula is not None and entry.formula.data:
        return "a formula over data: an index holds formulas over propositions"
    return None


def add(
    path: str | os.PathLike,
    entries: Iterable[Compared],
    semantics: str,
    size: int,
    chunk: int = 10_000,
    jobs: int = 1,
) -> tuple[int, int]:
    """Add the fingerprints of `entries` (none `refused`) to the index at `path` (made where
    there is none), read as they come, written `chunk` at a time, computed by `jobs` processes:
    (added, count). ValueError where the index has another semantics or size, or for a `size`
    that is no multiple of 8."""

    faiss = _faiss()
    from ltlwit.logic.syntax import print_formula

    if size % 8:
        raise ValueError(f"an index holds fingerprints of a multiple of 8 traces, not {size}")
    where = Path(path)
    meta = _meta(where) if where.exists() else None
    if meta is not None and (meta["semantics"], meta["size"]) != (semantics, size):
        raise ValueError(
            f"{where}: an index of {meta['semantics']} semantics and {meta['size']} traces, not {semantics} and {size}"
        )
    prints = Fingerprints(semantics, size)
    if meta is None:
        where.mkdir(parents=True, exist_ok=True)
        meta = {"format": FORMAT, "version": VERSION, "semantics": semantics, "size": size}
        meta.update(probes=_probes(prints), count=0, bytes=0)
        vectors = faiss.IndexBinaryFlat(size)
    else:
        vectors = _read_vectors(where, meta["count"])
    for name, length in ((_ENTRIES, meta["bytes"]), (_OFFSETS, 8 * meta["count"])):
        with open(where / name, "ab") as f:  # what an interrupted addition left, dropped
            f.truncate(length)
    added = 0
    rows: list[bytes] = []
    with open(where / _ENTRIES, "ab") as lines, open(where / _OFFSETS, "ab") as offsets:
        first, second = itertools.tee(entries)
        for e, mark in zip(first, prints.many(map(_kept, second), jobs)):
            rows.append(mark.to_bytes(size // 8, "little"))
            offsets.write(lines.tell().to_bytes(8, "little"))
            row = {"text": e.text, "formula": print_formula(_kept(e)), "name": e.name, "where": e.where}
            lines.write(json.dumps(row).encode() + b"\n")
            if len(rows) == chunk:
                added += _commit(where, vectors, rows, meta, lines, offsets)
        added += _commit(where, vectors, rows, meta, lines, offsets)
    return added, meta["count"]


def _kept(entry: Compared) -> Formula:
    assert entry.formula is not None and refused(entry) is None  # (entries are formulas read and kept)
    return entry.formula


def _commit(where: Path, vectors: Any, rows: list[bytes], meta: dict, lines: Any, offsets: Any) -> int:
    """Write the fingerprints in `rows` (their entries written) and then the count that makes
    them part of the index; empties `rows`, returns how many."""
    import numpy as np

    if not rows:
        return 0
    lines.flush()
    offsets.flush()
    vectors.add(np.frombuffer(b"".join(rows), dtype=np.uint8).reshape(len(rows), -1))
    _replace(where / _VECTORS, lambda tmp: _faiss().write_index_binary(vectors, str(tmp)))
    meta.update(count=meta["count"] + len(rows), bytes=lines.tell())
    _replace(where / _META, lambda tmp: tmp.write_text(json.dumps(meta, indent=1) + "\n"))
    n = len(rows)
    rows.clear()
    return n


def _read_vectors(where: Path, count: int) -> Any:
    """The fingerprints of the `count` entries the index holds (an interrupted addition may have
    written more)."""
    import numpy as np

    vectors = _faiss().read_index_binary(str(where / _VECTORS))
    if vectors.ntotal > count:
        vectors.remove_ids(np.arange(count, vectors.ntotal, dtype=np.int64))
    return vectors


def _replace(target: Path, write: Any) -> None:
    tmp = target.with_name(target.name + ".tmp")
    write(tmp)
    os.replace(tmp, target)
