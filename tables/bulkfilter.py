"""A vectorized first stage of the random filter for single-element operators.

Testing f(f(a,b),c) == f(a,f(b,c)) one candidate at a time costs a few dozen
NumPy calls per candidate. Here one triple (a, b, c, k) tests all candidates
at once: f(a,b) is read off each candidate's fingerprint (the fingerprint
points start with the triples' (a, b) and (b, c) points, see samples.py);
candidates that share the value v = f(a,b) share the point (x=v, y=c, k), so
the pool — replayed as a program, batch by batch — is evaluated once on the
distinct values, and each candidate picks its own column. The same for
f(a, w) with w = f(b,c). Only candidates that fail on a triple are rejected,
and the evaluation is exact (integers wrap as in npeval; floats use Python
ints), so the per-candidate filter, which tests the same triples, would have
rejected them too: the result of the generation does not change.
"""
from __future__ import annotations

import numpy as np

from .enumerate import Pool
from .grammar import VALUE
from .npeval import apply_op

N_TESTS = 8            # triples tried (the smallest-valued ones first)
COLUMNS = 256          # distinct values evaluated per replay
MAX_COLUMNS = 4096     # values beyond the most frequent ones are not tested


def _test_triples(pool: Pool) -> list:
    """Indices of the fingerprint triples with the smallest magnitudes."""
    s = pool.samples
    mag = sum(np.abs(np.asarray(v, dtype=float)) for v in (s.a[0], s.b[0], s.c[0], s.k))
    return list(np.argsort(mag, kind="stable")[:N_TESTS])


class _Replay:
    """The values of pool entries below `upto` at a set of points."""

    def __init__(self, pool: Pool, upto: int, points: dict, exact: bool):
        self.pool, self.upto = pool, upto
        n = len(next(iter(points.values())))
        is_value = pool.is_value[:upto]
        self.row = np.zeros(upto, np.int64)
        self.row[is_value] = np.arange(is_value.sum())
        self.row[~is_value] = np.arange((~is_value).sum())
        dt = object if exact else pool.samples.points["x0"].dtype
        self.mats = {True: np.empty((int(is_value.sum()), n), dt),
                     False: np.empty((int((~is_value).sum()), n), bool)}
        for name, children, first, count in pool.batches:
            if first >= upto:
                break
            if not children:
                out = np.asarray(points[name], dt)[None, :]
            else:
                out = apply_op(name, [self.get(c) for c in children])
            ids = np.arange(first, first + count)
            self.mats[bool(pool.is_value[first])][self.row[ids]] = out

    def get(self, ids: np.ndarray, cols=None):
        """Rows of `ids` (all columns), or one column per id."""
        mat = self.mats[bool(self.pool.is_value[ids[0]])]
        return mat[self.row[ids]] if cols is None else mat[self.row[ids], cols]


def _dtype(pool: Pool, i: int, exact: bool):
    if not pool.is_value[i]:
        return np.dtype(bool)
    return np.dtype(object) if exact else pool.samples.points["x0"].dtype


def _values_at(pool: Pool, replay: _Replay, ids: np.ndarray, cols: np.ndarray, exact: bool):
    """Each entry `ids[j]` (all of one kind) evaluated at column `cols[j]`."""
    low = ids < replay.upto
    out = np.empty(len(ids), dtype=_dtype(pool, ids[0], exact))
    if low.any():
        out[low] = replay.get(ids[low], cols[low])
    high = np.nonzero(~low)[0]
    if len(high):
        batch = pool.batch_of[ids[high]]
        for b in np.unique(batch):
            sel = high[batch == b]
            name, children, first, _ = pool.batches[b]
            kids = [c[ids[sel] - first] for c in children]
            out[sel] = apply_op(name, [_values_at(pool, replay, k, cols[sel], exact) for k in kids])
    return out


def _side(pool, ids, values, fixed_x, fixed_y, k, upto, exact):
    """f at (x=values, y=fixed_y) or (x=fixed_x, y=values): per candidate, or
    None where the candidate's value was not among the evaluated columns."""
    uniq, inverse, counts = np.unique(values, return_inverse=True, return_counts=True)
    order = np.argsort(-counts, kind="stable")[:MAX_COLUMNS]
    col_of = np.full(len(uniq), -1)
    col_of[order] = np.arange(len(order))
    cols = col_of[inverse]
    out = np.empty(len(ids), dtype=object)
    tested = cols >= 0
    for start in range(0, len(order), COLUMNS):
        chunk = uniq[order[start:start + COLUMNS]]
        n = len(chunk)
        xs = chunk if fixed_x is None else np.full(n, fixed_x, dtype=chunk.dtype)
        ys = chunk if fixed_y is None else np.full(n, fixed_y, dtype=chunk.dtype)
        replay = _Replay(pool, upto, {"x0": xs, "y0": ys, "k0": np.full(n, k, dtype=chunk.dtype)},
                         exact)
        m = np.nonzero((cols >= start) & (cols < start + n))[0]
        if len(m):
            out[m] = _values_at(pool, replay, ids[m], cols[m] - start, exact)
    return out, tested


def _fingerprint(pool: Pool, ids: np.ndarray, col: int) -> np.ndarray:
    """Fingerprint column `col` of the value entries `ids`."""
    leaves = pool.leaves[ids]
    out = np.empty(len(ids), pool.samples.points["x0"].dtype)
    for lv in np.unique(leaves):
        level_ids, vals = pool.level(VALUE, int(lv))
        m = leaves == lv
        out[m] = vals[np.searchsorted(level_ids, ids[m]), col]
    return out


def bulk_filter(pool: Pool, ids: np.ndarray) -> np.ndarray:
    """A mask over `ids` (single-element candidates of `pool`): False where a
    candidate is certainly not associative."""
    assert pool.size == 1
    exact = pool.t.is_float()
    top = pool.max_level
    upto = int(np.argmax(pool.leaves == top)) if (pool.leaves == top).any() else len(pool)
    s = pool.samples
    keep = np.ones(len(ids), bool)
    with np.errstate(all="ignore"):
        for t in _test_triples(pool):
            alive = np.nonzero(keep)[0]
            cand = ids[alive]
            a, _b, c, k = s.a[0][t], s.b[0][t], s.c[0][t], s.k[t]
            fab = _fingerprint(pool, cand, t)
            fbc = _fingerprint(pool, cand, s.n_triples + t)
            lhs, ok1 = _side(pool, cand, fab, None, c, k, upto, exact)
            rhs, ok2 = _side(pool, cand, fbc, a, None, k, upto, exact)
            both = ok1 & ok2
            differ = np.zeros(len(cand), bool)
            differ[both] = np.asarray(lhs[both] != rhs[both], bool)
            keep[alive[differ]] = False
    return keep
