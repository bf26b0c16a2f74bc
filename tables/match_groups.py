"""The dependency graph between tuple elements, its subgraphs, and the
groupings tried when matching them one by one fails (CGO 2017, Section 4.3).

Element i depends on element j when the update of i reads x_j. The subgraph
of i is everything reachable from i; an operator for the subgraph is an
operator for those elements alone. The first partition matches each maximal
subgraph by itself. When one fails, groupings of subgraphs are tried: every
set partition of the subgraphs (a Bell number of them) whose blocks join
only subgraphs that are related (share an element or an x-free
subexpression), smallest blocks first, skipping partitions that contain a
block already known to fail and blocks larger than any table entry.
"""
from __future__ import annotations


def reachable(deps: dict) -> dict:
    """element -> frozenset of the elements reachable from it (itself included)."""
    out = {}
    for start in deps:
        seen, stack = {start}, [start]
        while stack:
            for j in deps[stack.pop()]:
                if j not in seen:
                    seen.add(j)
                    stack.append(j)
        out[start] = frozenset(seen)
    return out


def maximal_subgraphs(reach: dict) -> list:
    """The distinct subgraphs not strictly inside another, in element order."""
    subs = sorted(set(reach.values()), key=lambda s: (min(s), len(s)))
    return [s for s in subs if not any(s < other for other in subs)]


def set_partitions(items: list):
    """Every partition of `items` into blocks (lists), in a canonical order."""
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for part in set_partitions(rest):
        yield [[first]] + part
        for i in range(len(part)):
            yield part[:i] + [[first] + part[i]] + part[i + 1:]


def groupings(subgraphs: list, related, max_size: int, limit: int = 4096):
    """Partitions of `subgraphs` (as lists of element sets, one frozenset per
    block) other than the first one, where every block of several subgraphs
    is connected under `related(a, b)` and has at most `max_size` elements.
    At most `limit` partitions."""
    n = 0
    for part in set_partitions(list(range(len(subgraphs)))):
        if all(len(b) == 1 for b in part):
            continue
        blocks = []
        ok = True
        for b in part:
            elems = frozenset().union(*(subgraphs[i] for i in b))
            if len(elems) > max_size or not _connected(b, subgraphs, related):
                ok = False
                break
            blocks.append(elems)
        if not ok:
            continue
        yield blocks
        n += 1
        if n >= limit:
            return


def _connected(block: list, subgraphs: list, related) -> bool:
    if len(block) == 1:
        return True
    seen, stack = {block[0]}, [block[0]]
    while stack:
        a = stack.pop()
        for b in block:
            if b not in seen and related(subgraphs[a], subgraphs[b]):
                seen.add(b)
                stack.append(b)
    return len(seen) == len(block)
