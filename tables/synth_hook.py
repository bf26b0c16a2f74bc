"""Where the matcher (tables/matcher.py) turns to synthesis: after every
table match and grouping failed.

    synthesized(search, subgraphs, changed, consistent) -> list of Blocks | None
    source(blocks) -> "table" | "polynomial" | "synthesized"

First each maximal subgraph of the update is matched in the tables or
synthesized on its own; failing that, every changed element together forms
one operator (a 2x2 matrix product's rows are two subgraphs whose inputs
are shared). The time limit (synth.budget()) holds for all of it.
"""
from __future__ import annotations

import time

from pyhalide import ir

SOURCES = ("synthesized", "polynomial")     # synth.SYNTHESIZED, synth.POLYNOMIAL


def _block(search, elements: list, seconds: float):
    from . import synth
    from .matcher import Block, op_vars
    r = synth.synthesize([search.cores[g] for g in elements],
                         [search.types[g] for g in elements],
                         [f"x{g}" for g in elements], seconds)
    search.synth_seconds += r.seconds
    if not r:
        if not search.synth_refusal:
            search.synth_refusal = f"no operator was synthesized for it either: {r.reason}"
        return None
    xs, ys = op_vars(search.types)
    sub = {f"x{j}": xs[g] for j, g in enumerate(elements)}
    sub.update({f"y{j}": ys[g] for j, g in enumerate(elements)})
    return Block(tuple(elements), None,
                 {g: ir.substitute(r.ops[j], sub) for j, g in enumerate(elements)},
                 {g: r.identities[j] for j, g in enumerate(elements)},
                 {g: r.ys[j] for j, g in enumerate(elements)},
                 r.commutative, r.identity_side, r.source)


def synthesized(search, subgraphs, changed, consistent):
    from .synth import budget
    seconds = budget()
    if seconds <= 0:
        return None
    end = time.process_time() + seconds
    out = []
    for s in subgraphs:
        b = search.match_block(s) or _block(search, sorted(s), end - time.process_time())
        if b is None:
            break
        out.append(b)
    else:
        if consistent(out) is None:
            return out
    elements = sorted(el.index for el in changed)
    if len(subgraphs) > 1 and time.process_time() < end:
        b = _block(search, elements, end - time.process_time())
        if b is not None:
            return [b]
    return None


def source(blocks) -> str:
    kinds = {b.source for b in blocks}
    for kind in SOURCES:
        if kind in kinds:
            return kind
    return "table"
