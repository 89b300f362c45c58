"""How well an embedding keeps equivalent formulas together: the fifth paper's score_k.

For a query q of class c among the formulas of the unseen classes (`data equiv`'s test split:
the paper's UnseenEqClass), N_k(q) are the k formulas nearest to q by cosine similarity (q
itself left out) and score_k(q) = |N_k(q) ∩ c| / min(k, |c| - 1), c's other members being what
can be found; the score is its mean over every query, in percent. Ties at the k-th place are
broken by the formulas' order, so a constant embedding scores what chance does.

Two embeddings need no training and are the bar a learned one is measured against:
`bag_of_tokens` (each Polish token's count: what the syntax alone says) and the semantic
fingerprint (`logic.fingerprint`: equal for equivalent formulas by construction, so only
inequivalent formulas that share a fingerprint cost it points).
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Callable, Sequence

from ltlwit.logic.formula import Formula

Vector = Sequence[float]


def score_k(vectors: Sequence[Vector], classes: Sequence[int], k: int = 5) -> float:
    """The mean score_k in percent (module docstring) of `vectors`, `classes[i]` the class of
    vector i; queries whose class has no other member are left out."""
    import torch

    units = torch.nn.functional.normalize(torch.tensor(vectors, dtype=torch.float64), dim=1)
    similarity = units @ units.T
    similarity.fill_diagonal_(-math.inf)  # q itself is no neighbour
    n = len(classes)
    # ties broken by order: a tiny decreasing offset per column, far below any real difference
    similarity -= torch.arange(n, dtype=torch.float64) * 1e-12
    nearest = similarity.topk(min(k, n - 1), dim=1).indices
    label = torch.tensor(classes)
    same = (label[nearest] == label[:, None]).sum(1).double()
    others = (label[None, :] == label[:, None]).sum(1) - 1
    asked = others > 0
    if not asked.any():
        return 0.0
    return float(100.0 * (same[asked] / others[asked].clamp(max=k).double()).mean())


def bag_of_tokens(formulas: Sequence[Formula]) -> list[list[float]]:
    """Each formula's count of each token (operators, constants, propositions) in a shared
    vocabulary: the syntax-only baseline."""
    counts = [Counter(_tokens(f)) for f in formulas]
    vocabulary = sorted({t for c in counts for t in c})
    return [[float(c[t]) for t in vocabulary] for c in counts]


def _tokens(formula: Formula) -> list[str]:
    """Every occurrence's token (shared subformulas counted where they occur)."""
    out, stack = [], [formula]
    while stack:
        node = stack.pop()
        out.append(node.name or node.op)
        stack.extend(node.children)
    return out


def fingerprints(formulas: Sequence[Formula], semantics: str = "infinite", size: int = 256) -> list[list[float]]:
    """Each formula's semantic fingerprint as its ±1 vector."""
    from ltlwit.logic.fingerprint import Fingerprints, vector

    fp = Fingerprints(semantics, size)
    return [[float(x) for x in vector(fp.of(f), size)] for f in formulas]


#: The embeddings that need no training, by name.
BASELINES: dict[str, Callable[[Sequence[Formula], str], list[list[float]]]] = {
    "bag of tokens": lambda formulas, semantics: bag_of_tokens(formulas),
    "fingerprint": lambda formulas, semantics: fingerprints(formulas, semantics),
}


def learned(model_name: str) -> Callable[[Sequence[Formula], str], list[list[float]]]:
    """A trained ExpEmb model's embedding (`ltlwit train --arch expemb-e|expemb-a`; a
    registered name or weights file) as an embedding like the baselines, for formulas over
    its slot names (a, b, ...: `data equiv`'s classes are)."""
    from ltlwit.neural.expemb import embeddings, load

    model = load(model_name)
    return lambda formulas, semantics: embeddings(model, formulas)


def rewriting_accuracy(
    model_name: str, formulas: Sequence[Formula], beam: int, semantics: str = "infinite", seconds: float = 1.0
) -> tuple[float, float]:
    """The paper's Table 2 for one beam width: the share (percent) of `formulas` for which some
    output of the beam is right, and the share of the beam's outputs that are no formula. Right
    for ExpEmb-E: a formula the engine proves equivalent to the input that is not the input
    (every output of the beam is checked, as the paper does: an output can be verified); for
    ExpEmb-A: the input itself. Undecided within `seconds` counts as wrong."""
    from ltlwit.logic import ltl
    from ltlwit.logic.budget import Budget
    from ltlwit.neural.beam import beam_hypotheses
    from ltlwit.neural.expemb import load
    from ltlwit.neural.tokenizer import DecodeError, decode_formula

    model = load(model_name)
    same = model.cfg.pairs == "same"

    def right(f: Formula, g: Formula) -> bool:
        if same or g == f:
            return same and g == f
        return ltl.equivalent(f, g, Budget(seconds=seconds), engine="builtin", semantics=semantics) is True

    hits = outputs = malformed = 0
    for f, hyps in zip(
        formulas, beam_hypotheses(model, formulas, beam=beam, max_len=4 * max(f.size for f in formulas))
    ):
        written = [decode_formula(list(seq)) for _, seq in hyps[:beam]]
        outputs += len(written)
        malformed += sum(isinstance(g, DecodeError) for g in written)
        hits += any(not isinstance(g, DecodeError) and right(f, g) for g in written)
    return 100.0 * hits / max(len(formulas), 1), 100.0 * malformed / max(outputs, 1)


def nearest(vectors: Sequence[Vector], query: Vector, k: int, leave_out: Sequence[int] = ()) -> list[int]:
    """The indices of the `k` vectors nearest to `query` by cosine similarity, nearest first
    (ties by order), those at `leave_out` left out: the paper's Table 3, and analogies' answers."""
    import torch

    units = torch.nn.functional.normalize(torch.tensor(vectors, dtype=torch.float64), dim=1)
    q = torch.nn.functional.normalize(torch.tensor(query, dtype=torch.float64), dim=0)
    similarity = units @ q - torch.arange(len(vectors), dtype=torch.float64) * 1e-12
    similarity[list(leave_out)] = -math.inf
    return similarity.topk(min(k, len(vectors) - len(set(leave_out)))).indices.tolist()


#: Analogies (the paper's Table 4) over the classes' names: a is to b as c is to d.
ANALOGIES: dict[str, list[tuple[str, str, str, str]]] = {
    "ltl": [
        ("G a", "F a", "G b", "F b"),
        ("X a", "X X a", "X b", "X X b"),
        ("a U b", "a R b", "b U c", "b R c"),
        ("G F a", "F G a", "G F b", "F G b"),
        ("G a", "G !a", "G b", "G !b"),
        ("a U b", "F b", "c U a", "F a"),
        ("a & b", "a | b", "b & c", "b | c"),
        ("X G a", "G X a", "X F b", "F X b"),
    ],
    "prop": [
        ("a", "!a", "b", "!b"),
        ("a & b", "a | b", "c & d", "c | d"),
        ("a -> b", "b -> a", "c -> d", "d -> c"),
        ("a & !b", "!a & b", "c & !d", "!c & d"),
        ("a & b & c", "a | b | c", "c & d & e", "c | d | e"),
        ("a <-> b", "a & b", "c <-> d", "c & d"),
    ],
}


def analogies(
    embed: Callable[[Sequence[Formula], str], list[list[float]]],
    pool: Sequence[Formula],
    quads: Sequence[tuple[Formula, Formula, Formula, Formula]],
    semantics: str = "infinite",
) -> list[tuple[Formula, bool]]:
    """Each analogy a : b :: c : d answered by the formula nearest to b - a + c among `pool` and
    the analogies' formulas (d among them), a, b and c left out, and whether the engine proves it
    equivalent to d."""
    from ltlwit.logic import ltl
    from ltlwit.logic.budget import Budget

    candidates = list(dict.fromkeys([*pool, *(f for quad in quads for f in quad)]))
    vectors = embed(candidates, semantics)  # once: a learned embedding of a formula is its own
    at = {f: i for i, f in enumerate(candidates)}
    out = []
    for a, b, c, d in quads:
        target = [vb - va + vc for va, vb, vc in zip(vectors[at[a]], vectors[at[b]], vectors[at[c]])]
        (best,) = nearest(vectors, target, 1, leave_out=[at[a], at[b], at[c]])
        found = candidates[best]
        out.append((found, ltl.equivalent(found, d, Budget(seconds=2.0), semantics=semantics) is True))
    return out
