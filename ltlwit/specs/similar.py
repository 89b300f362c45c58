"""Which specs of a file say nearly the same thing: `ltlwit similar` and `ltlwit embed`.

Asked pair by pair, "which of these requirements say nearly the same thing?" costs n² engine
questions (half a million for 1,000 specs). Here each formula gets a vector (its semantic
fingerprint, `logic.fingerprint`: equivalent formulas get equal ones), each query or spec its
`top` nearest by cosine similarity, and only those pairs a relation **decided** by the engine
(`logic.relations`): a ranking is a guess, the relation the claim. Most questions are answered
by a trace of the fingerprints' set (checked); the engine proves the others.

A file is read as `check` reads it (`specs.reading`): its specs' names read together, each
with its file's semantics and declarations; a pair is related with those of the spec it is
compared with. Formulas over data are ranked by their skeleton's fingerprint (each comparison a
proposition) and related by the engine alone.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, BinaryIO, Iterable, Iterator

from ltlwit.logic.fingerprint import Fingerprints, cosine
from ltlwit.logic.formula import Formula
from ltlwit.logic.relations import Related, relate
from ltlwit.logic.theory.sorts import Declarations
from ltlwit.pipeline.options import SolveOptions
from ltlwit.specs.decider import Decider

if TYPE_CHECKING:
    from ltlwit.specs.index import Index


@dataclass(frozen=True)
class Compared:
    """A formula compared: a spec of a file (`name`, `where`: FILE:LINE) or a query (its text)."""

    text: str
    formula: Formula | None
    semantics: str
    declarations: Declarations | None = None
    name: str | None = None
    where: str | None = None

    @property
    def label(self) -> str:
        """How a line names it: `NAME (FILE:LINE)`, `FILE:LINE`, or the query's text."""
        if self.where is None:
            return self.text
        return f"{self.name} ({self.where})" if self.name else self.where


@dataclass(frozen=True)
class Neighbour:
    """One of an entry's nearest: its cosine similarity, and the relation decided."""

    entry: Compared
    similarity: float
    related: Related


@dataclass(frozen=True)
class Similar:
    """An entry's nearest (`neighbours`, nearest first), or why it has none: `error` (it did
    not parse, it cannot be read) or `note` (nothing to compare it with)."""

    entry: Compared
    neighbours: tuple[Neighbour, ...] = ()
    error: str | None = None
    note: str | None = None
    #: The parse error behind `error`, for its caret rendering.
    parse_error: ValueError | None = None


@dataclass(frozen=True)
class Embedded:
    """An entry's vector: its fingerprint's ±1 entries, or a learned model's embedding
    (`embedding`: the model's name, or "fingerprint")."""

    entry: Compared
    vector: tuple[float, ...]
    embedding: str = "fingerprint"


def entries(
    paths: Iterable[str], queries: Iterable[str], solve: SolveOptions, stdin: BinaryIO | None = None
) -> Iterator[Compared | Similar]:
    """The specs of the files at `paths` (`-`: `stdin`), read as `check` reads them, then the
    `queries` (formulas in `solve.syntax`): an `Compared` each, or a `Similar` with the error of
    one that cannot be compared."""
    from ltlwit.pipeline.parsing import parse
    from ltlwit.specs.reading import read_file

    for path in paths:
        for p in read_file(path, solve, stdin):
            spec = p.spec
            entry = Compared(
                spec.formula,
                p.formula,
                spec.semantics or solve.semantics,
                spec.declarations,
                spec.name,
                f"{spec.file}:{spec.line}",
            )
            if p.formula is None:
                why = p.problem or p.unknown or spec.error or "not read"
                yield Similar(
                    entry, error=f"parse error: {p.parse_error}" if p.parse_error else why, parse_error=p.parse_error
                )
            else:
                yield entry
    for text in queries:
        try:
            yield Compared(text, parse(text, solve.syntax), solve.semantics, solve.declarations)
        except ValueError as exc:
            yield Similar(Compared(text, None, solve.semantics), error=f"parse error: {exc}", parse_error=exc)


class _Relating:
    """The fingerprints and deciders of a run's questions, each made once."""

    def __init__(self, solve: SolveOptions, size: int) -> None:
        self.solve, self.size = solve, size
        self.sets: dict[str, Fingerprints] = {}
        self.prints: dict[Compared, int] = {}
        self.deciders: dict[tuple[str, Declarations | None], Decider] = {}

    def fingerprint(self, entry: Compared) -> int:
        if entry not in self.prints:
            assert entry.formula is not None  # (an entry is a formula read)
            prints = self.sets.setdefault(entry.semantics, Fingerprints(entry.semantics, self.size))
            self.prints[entry] = prints.of(entry.formula)
        return self.prints[entry]

    def related(self, query: Compared, ranked: list[tuple[float, Compared]]) -> Similar:
        """`query` with its `ranked` nearest, each one's relation to it (`stronger`: it implies
        the query) decided with its declarations."""
        neighbours = []
        mine = self.fingerprint(query)
        for score, other in ranked:
            assert query.formula is not None and other.formula is not None  # (entries are formulas read)
            evidence = (self.sets[query.semantics], self.fingerprint(other), mine)
            related = relate(other.formula, query.formula, self._decider(other), evidence)
            neighbours.append(Neighbour(other, score, related))
        return Similar(query, tuple(neighbours))

    def _decider(self, entry: Compared) -> Decider:
        key = (entry.semantics, entry.declarations)
        if key not in self.deciders:
            self.deciders[key] = Decider(
                replace(self.solve, semantics=entry.semantics, declarations=entry.declarations)
            )
        return self.deciders[key]


def similar(
    pool: list[Compared], queries: list[Compared] | None, solve: SolveOptions, top: int = 5, size: int = 256
) -> Iterator[Similar]:
    """For each query (each entry of `pool` against the others where `queries` is None), its `top`
    nearest entries of `pool` of its semantics, each with its relation to the query (`stronger`:
    it implies the query) decided (module docstring) with its declarations, each question
    within `solve`'s `--timeout`."""
    relating = _Relating(solve, size)
    for query in pool if queries is None else queries:
        others = [e for e in pool if e.semantics == query.semantics and e is not query]
        if not others:
            yield Similar(query, note=_nothing_to_compare(query, pool))
            continue
        mine = relating.fingerprint(query)
        ranked = sorted(
            ((cosine(mine, relating.fingerprint(e), size), -k, e) for k, e in enumerate(others)),
            key=lambda t: (t[0], t[1]),
            reverse=True,
        )[:top]
        yield relating.related(query, [(score, e) for score, _, e in ranked])


def similar_in_index(
    index_path: str,
    paths: Iterable[str],
    queries: Iterable[str],
    solve: SolveOptions,
    top: int = 5,
    stdin: BinaryIO | None = None,
) -> Iterator[Similar]:
    """Each query and each spec of the files at `paths` (read as `entries` reads them) with its
    `top` nearest formulas of the index at `index_path` (`specs.index`; a spec that the index
    holds is not its own neighbour), their relations decided as `similar` decides them. First
    each that cannot be compared, with its error. ValueError for an index that cannot be read."""
    from ltlwit.specs.index import open_index

    return _looked_up(open_index(index_path), paths, queries, solve, top, stdin)


def _looked_up(
    index: Index,
    paths: Iterable[str],
    queries: Iterable[str],
    solve: SolveOptions,
    top: int,
    stdin: BinaryIO | None,
) -> Iterator[Similar]:
    relating = _Relating(solve, index.size)
    relating.sets[index.semantics] = index.fingerprints
    asked: list[Compared] = []
    for read in entries(paths, queries, solve, stdin):
        if isinstance(read, Similar):
            yield read
        else:
            asked.append(read)
    for query in asked:
        if query.semantics != index.semantics or not index.count:
            why = f"the index holds no formula of {query.semantics} semantics"
            yield Similar(query, note=f"nothing to compare it with: {why}")
            continue
        yield relating.related(query, index.nearest(relating.fingerprint(query), top, skip=query))


def similar_files(
    paths: Iterable[str], queries: Iterable[str], solve: SolveOptions, top: int = 5, stdin: BinaryIO | None = None
) -> Iterator[Similar]:
    """`similar` over the specs of the files at `paths` and the `queries` as `entries` reads
    them: first each that cannot be compared, with its error, then each query's (each spec's)
    nearest (each spec's only where no query is given: a query that does not parse is no reason
    to compare the specs with each other)."""
    queries = list(queries)
    pool: list[Compared] = []
    asked: list[Compared] = []
    for read in entries(paths, queries, solve, stdin):
        if isinstance(read, Similar):
            yield read
        elif read.where is not None:
            pool.append(read)
        else:
            asked.append(read)
    yield from similar(pool, asked if queries else None, solve, top)


def embed(entries: Iterable[Compared], size: int = 256) -> Iterator[Embedded]:
    """Each entry's fingerprint as a ±1 vector, on the traces of its semantics."""
    from ltlwit.logic.fingerprint import vector

    sets: dict[str, Fingerprints] = {}
    for entry in entries:
        assert entry.formula is not None  # (an entry is a formula read)
        fp = sets.setdefault(entry.semantics, Fingerprints(entry.semantics, size))
        yield Embedded(entry, tuple(vector(fp.of(entry.formula), size)))


def learned(entries: list[Compared], model_name: str) -> list[Embedded | Similar]:
    """Each entry's embedding by a trained ExpEmb model (`ltlwit train --arch expemb-e`; a
    registered name or a weights file), or a `Similar` with the reason it has none (the model
    reads future-time LTL over propositions). APs are renamed into the slots the model knows
    (`a`, `b`, ...) by first appearance over all the entries, one renaming for all, so that
    `G(req -> F grant)` and `G(grant -> F req)` stay apart. ValueError for a model that is no
    embedding model, or more distinct APs than it has slots."""
    from ltlwit.logic.rename import Renaming, slot_name
    from ltlwit.neural.expemb import embeddings, load, unreadable

    model = load(model_name)
    out: list[Embedded | Similar | None] = []
    readable: list[Formula] = []
    for e in entries:
        assert e.formula is not None  # (an entry is a formula read)
        unknown = unreadable(e.formula)
        out.append(
            Similar(e, error=f"the model reads future-time LTL over propositions, not {unknown!r}") if unknown else None
        )
        if not unknown:
            readable.append(e.formula)
    names = list(dict.fromkeys(name for f in readable for name in f.aps()))
    if len(names) > model.cfg.max_slots:
        raise ValueError(f"{len(names)} distinct APs; model {model_name!r} tells apart {model.cfg.max_slots}")
    renaming = Renaming((name, slot_name(i)) for i, name in enumerate(names))
    vectors = iter(embeddings(model, [renaming.apply(f) for f in readable]))
    return [done or Embedded(e, tuple(next(vectors)), model_name) for e, done in zip(entries, out)]


def default_embedding(entries: list[Compared]) -> tuple[str | None, str | None]:
    """The bundled learned model `embed` gives the entries' vectors by (`pipeline.equivalents.
    BUNDLED`: the propositional one where no entry is temporal), or None with why the
    fingerprint gives them instead: the models need PyTorch (an extra) and learned future-time
    LTL over propositions on infinite traces, and one run's vectors must come from one
    embedding to be compared."""
    from ltlwit.neural import torch_installed

    if not torch_installed():
        return None, "the learned models need PyTorch, which is not installed here: pip install 'ltlwit[models]'"
    from ltlwit.neural.expemb import unreadable
    from ltlwit.pipeline.equivalents import BUNDLED

    for e in entries:
        assert e.formula is not None  # (an entry is a formula read)
        if e.semantics != "infinite":
            return None, f"the learned models read infinite traces, not {e.semantics} ones ({e.label})"
        unknown = unreadable(e.formula)
        if unknown is not None:
            return None, f"the learned models read future-time LTL over propositions, not {unknown!r} ({e.label})"
    name = BUNDLED["ltl" if any(e.formula is not None and e.formula.temporal for e in entries) else "prop"]
    return name, None


def embedded(
    entries: list[Compared], model: str | None = None, fingerprint: bool = False, size: int = 256
) -> tuple[list[Embedded | Similar], str | None]:
    """The entries' vectors, each an `Embedded` or a `Similar` with why it has none: by `model`
    (a learned model's name or weights file), by the fingerprint on `size` traces, or by
    default `default_embedding`'s model, else the fingerprint, with why as the second item.
    ValueError for a named model that embeds nothing or cannot tell the entries' APs apart."""
    if fingerprint:
        return list(embed(entries, size)), None
    if model is not None:
        return learned(entries, model), None
    name, why = default_embedding(entries)
    if name is not None:
        try:
            return learned(entries, name), None
        except ValueError as problem:  # more APs than its slots
            why = str(problem)
    return list(embed(entries, size)), why


def _nothing_to_compare(query: Compared, pool: list[Compared]) -> str:
    if not pool or (len(pool) == 1 and pool[0] is query):
        return "nothing to compare it with: the files have no other spec"
    return f"nothing to compare it with: no spec of {query.semantics} semantics"
