"""Candidate operators from the enumerated pools, after the random filter.

Single-element operators: every kept value expression that uses both x0 and
y0. Two-element operators {e0, e1}: pairs of kept expressions over x0, x1,
y0, y1, k0 with at most `max_leaves` leaves in total such that
- each element uses its own x_i or y_i (an element that uses neither is a
  function of the other element's inputs only, not a reduction of its own),
  and is not a bare variable (an element that only keeps the first or the
  last value is no combination either);
- the tuple does not decompose: e0 uses x1/y1 or e1 uses x0/y0 (otherwise
  {e0, e1} is two independent single-element operators);
- the tuple uses some x and some y;
- an element that reads only its own x_i, y_i (and k0) is itself associative
  on the sample triples (the tuple cannot be associative otherwise).
Candidates come out in a deterministic order: by leaf count, then by the
enumeration order of their elements.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pyhalide import ir

from . import grammar
from .bulkfilter import bulk_filter
from .enumerate import Pool
from .grammar import VALUE
from .randomtest import passes_filter
from .samples import make_samples


@dataclass(frozen=True)
class Candidate:
    ops: tuple          # ir Exprs, one per tuple element
    types: tuple
    leaves: int
    order: tuple        # enumeration order, for "simplest first" sorting


def _bits(pool: Pool, prefix: str) -> int:
    return sum(1 << j for j, n in enumerate(pool.names) if n.startswith(prefix))


def build_pool(t: ir.Type, size: int, max_leaves: int, seed: int, report=None) -> Pool:
    pool = Pool(t, size, make_samples(t, size, seed))

    def progress(n, m):
        if report:
            report(f"enumerate size {size}: {m} expressions", n, max_leaves)

    pool.build(max_leaves, progress=progress)
    return pool


def single_candidates(pool: Pool, report=None):
    """Single-element operators of the pool that pass the random filter (its
    first stage vectorized over all candidates, see bulkfilter.py)."""
    types = (pool.t,)
    variables = grammar.variables(types)
    vm = pool.vmask
    ids = np.nonzero(pool.is_value & ((vm & _bits(pool, "x")) != 0) & ((vm & _bits(pool, "y")) != 0))[0]
    if len(ids):
        if report:
            report("bulk random filter (size 1)", 0, 1)
        ids = ids[bulk_filter(pool, ids)]
    for n, i in enumerate(ids.tolist()):
        if report and n % 2000 == 0:
            report("random filter (size 1)", n, len(ids))
        ops = (pool.to_ir(i, variables),)
        if passes_filter(ops, types, pool.samples):
            yield Candidate(ops, types, int(pool.leaves[i]), (int(pool.leaves[i]), i))


class _OwnAssoc:
    """Memo: is a pool expression that reads only element `i`'s variables
    associative on its own (as an operator over x_i, y_i, k0)?"""

    def __init__(self, pool: Pool, seed: int):
        self.pool, self.memo = pool, {}
        self.single = make_samples(pool.t, 1, seed)
        self.vars2 = grammar.variables((pool.t, pool.t))
        self.vars1 = grammar.variables((pool.t,))

    def __call__(self, i: int, elem: int) -> bool:
        if i not in self.memo:
            e = self.pool.to_ir(i, self.vars2)
            rename = {f"x{elem}": self.vars1["x0"], f"y{elem}": self.vars1["y0"]}
            e = ir.substitute(e, rename)
            self.memo[i] = passes_filter((e,), (self.pool.t,), self.single)
        return self.memo[i]


def pair_candidates(pool: Pool, max_leaves: int, seed: int, report=None):
    """Two-element operators {e0, e1} of the (size-2) pool that pass the filter."""
    t = pool.t
    types = (t, t)
    variables = grammar.variables(types)
    vm = pool.vmask
    b = {n: 1 << j for j, n in enumerate(pool.names)}
    el0, el1 = b["x0"] | b["y0"], b["x1"] | b["y1"]
    xs, ys = b["x0"] | b["x1"], b["y0"] | b["y1"]
    own = _OwnAssoc(pool, seed)
    pairs = []
    for total in range(4, max_leaves + 1):
        for l0 in range(2, total - 1):
            i0, _ = pool.level(VALUE, l0)
            i1, _ = pool.level(VALUE, total - l0)
            if len(i0) == 0 or len(i1) == 0:
                continue
            a = np.repeat(i0, len(i1))
            c = np.tile(i1, len(i0))
            m0, m1 = vm[a], vm[c]
            ok = ((m0 & el0) != 0) & ((m1 & el1) != 0)
            ok &= ((m0 & el1) != 0) | ((m1 & el0) != 0)
            ok &= (((m0 | m1) & xs) != 0) & (((m0 | m1) & ys) != 0)
            pairs += [(total, int(p), int(q)) for p, q in zip(a[ok], c[ok])]
    for n, (total, p, q) in enumerate(pairs):
        if report and n % 2000 == 0:
            report("random filter (size 2)", n, len(pairs))
        if not (vm[p] & el1) and not own(p, 0):
            continue
        if not (vm[q] & el0) and not own(q, 1):
            continue
        ops = (pool.to_ir(p, variables), pool.to_ir(q, variables))
        if passes_filter(ops, types, pool.samples):
            yield Candidate(ops, types, total, (total, p, q))
