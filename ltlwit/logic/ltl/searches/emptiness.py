"""On-the-fly emptiness of generalized Büchi automata (Couvreur's SCC algorithm), stopping at
the first accepting SCC, and the shortest paths a witness is read from.

The automaton is given by `successors(state) -> [(label, dst, marks), ...]`, already ordered
(the translator puts edges with the fewest pending obligations first, so the search dives
towards the empty obligation set, whose self-loop accepts everything). States are expanded
only when the search reaches them; a `Budget` bounds states and time.
"""

from __future__ import annotations

from collections import deque
from typing import Any, Callable, Hashable, Sequence

from ltlwit.logic.budget import Limit

Successors = Callable[[Any], Sequence[tuple[Any, Any, int]]]


def accepting_scc(
    initial: Hashable, successors: Successors, all_marks: int, limit: Limit | None = None
) -> tuple[set | None, dict]:
    """Couvreur's algorithm, iterative. Returns (states of the first accepting SCC or None,
    the explored states' DFS numbers). An SCC is accepting when its internal edges carry
    every mark of `all_marks` (any cycle, when there are no marks)."""
    index: dict[Any, int] = {initial: 1}  # 0 = in a finished (non-accepting) SCC
    live = [initial]
    roots: list[list[int]] = [[1, 0]]  # [DFS number of the root, marks inside the SCC]
    arcs: list[int] = []  # marks of the tree edge entering each root but the first
    todo: list[tuple[Any, Sequence, int]] = [(initial, successors(initial), 0)]
    if limit is not None:
        limit.tick()
    while todo:
        s, succ, k = todo[-1]
        if k == len(succ):
            todo.pop()
            if roots[-1][0] == index[s]:
                roots.pop()
                if arcs:
                    arcs.pop()
                while True:
                    u = live.pop()
                    index[u] = 0
                    if u == s:
                        break
            continue
        todo[-1] = (s, succ, k + 1)
        _, t, marks = succ[k]
        n = index.get(t)
        if n is None:
            if limit is not None:
                limit.tick()
            n = len(index) + 1
            index[t] = n
            live.append(t)
            roots.append([n, 0])
            arcs.append(marks)
            todo.append((t, successors(t), 0))
            continue
        if n == 0:
            continue
        low = merge(roots, arcs, n, marks, all_marks)
        if low is not None:
            return {u for u in live if index[u] >= low}, index
    return None, index


def merge(roots: list[list[int]], arcs: list[int], n: int, marks: int, all_marks: int) -> int | None:
    """Couvreur's step for an edge (carrying `marks`) back to the live state numbered n: the
    roots above n join its SCC with their marks; the SCC's root number when it now carries every
    mark of `all_marks`, else None."""
    acc = marks
    while n < roots[-1][0]:
        acc |= roots.pop()[1] | arcs.pop()
    roots[-1][1] |= acc
    return roots[-1][0] if roots[-1][1] & all_marks == all_marks else None


def shortest_path(
    sources: Any,
    targets: Callable[[Any], bool],
    successors: Successors,
    allowed: Callable[[Any], bool],
    nonempty: bool = False,
    limit: Limit | None = None,
) -> list[tuple[Any, Any, int]]:
    """BFS over `allowed` states from `sources`; the edges (src, edge) of a shortest path to a
    state satisfying `targets` (with at least one edge when `nonempty`). `limit`: its deadline
    is checked every `CHECK_EVERY` edges scanned."""
    parent: dict[Any, tuple[Any, Any] | None] = {}
    queue: deque = deque()
    parent[sources] = None
    queue.append(sources)
    if not nonempty and targets(sources):
        return []
    while queue:
        s = queue.popleft()
        succ = successors(s)
        if limit is not None:
            limit.spend(len(succ) + 1)
        for edge in succ:
            t = edge[1]
            if not allowed(t):
                continue
            if targets(t):
                path = [(s, edge)]
                back = parent[s]
                while back is not None:
                    path.append(back)
                    s = back[0]
                    back = parent[s]
                path.reverse()
                return [e for _, e in path]
            if t not in parent:
                parent[t] = (s, edge)
                queue.append(t)
    raise AssertionError("no path inside an explored, strongly connected region")


def accepting_cycle(
    entry: Any, scc: set, successors: Successors, all_marks: int, limit: Limit | None = None
) -> list[tuple[Any, Any, int]]:
    """A cycle from `entry` inside `scc` whose edges carry every mark: walk to the nearest
    edge with a missing mark until none is missing, then back to `entry` (Spot's method)."""
    inside = scc.__contains__
    cycle: list[tuple[Any, Any, int]] = []
    need = all_marks
    here = entry
    while need:
        hop = _path_to_mark(here, need, scc, successors, limit)
        for edge in hop:
            need &= ~edge[2]
        cycle.extend(hop)
        here = hop[-1][1]
    if here != entry or not cycle:
        cycle.extend(shortest_path(here, lambda s: s == entry, successors, inside, nonempty=not cycle, limit=limit))
    return cycle


def _path_to_mark(start: Any, need: int, scc: set, successors: Successors, limit: Limit | None = None) -> list:
    """Shortest path from start ending with an edge (inside scc) carrying a mark of `need`."""
    parent: dict[Any, Any] = {start: None}
    queue = deque([start])
    while queue:
        s = queue.popleft()
        succ = successors(s)
        if limit is not None:
            limit.spend(len(succ) + 1)
        best = None
        for edge in succ:
            if edge[1] in scc and edge[2] & need:
                if best is None or (edge[2] & need).bit_count() > (best[2] & need).bit_count():
                    best = edge
        if best is not None:
            path = [best]
            while parent[s] is not None:
                s, e = parent[s]
                path.append(e)
            path.reverse()
            return path
        for edge in succ:
            t = edge[1]
            if t in scc and t not in parent:
                parent[t] = (s, edge)
                queue.append(t)
    raise AssertionError("an accepting SCC lacks a mark")
