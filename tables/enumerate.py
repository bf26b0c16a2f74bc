"""Bottom-up enumeration of canonical expressions, pruned by observational
equivalence.

Expressions are built by leaf count. Each new expression is evaluated on the
fingerprint points of `samples` (vectorized over all new expressions of one
node kind and one split of the leaves); it is kept only if no earlier
expression has the same fingerprint, so each function (as far as the
fingerprint points can tell) is represented once, by the first expression that
computes it. Canonical-form rules applied while building:

- operands of commutative kinds are ordered by `canonical_key` (x before y,
  lower index first, the constant last, larger subtree first on ties);
- no subtree is built from the constant alone (`k0 + k0` is just a constant);
- expressions whose fingerprint is constant are dropped (`x0 - x0`), and so
  are `min(e, e)`-like forms (they equal an earlier, smaller expression);
- `Sub` and `Select` never get the same expression twice as operands.
"""
from __future__ import annotations

import numpy as np

from pyhalide import ir
from . import grammar
from .grammar import VALUE, BOOL
from .npeval import apply_op
from .samples import Samples

_CHUNK = 1 << 16          # expressions evaluated per vectorized batch
_HASH_R1 = np.uint64(0x9E3779B97F4A7C15)
_HASH_R2 = np.uint64(0xBF58476D1CE4E5B9)


def _row_hashes(vals: np.ndarray) -> np.ndarray:
    """A 64-bit hash of each row (the fingerprint) of `vals`."""
    m = len(vals)
    raw = np.ascontiguousarray(vals).view(np.uint8).reshape(m, -1)
    pad = (-raw.shape[1]) % 8
    if pad:
        raw = np.concatenate([raw, np.zeros((m, pad), np.uint8)], axis=1)
    words = raw.view(np.uint64)
    weights = (np.arange(1, words.shape[1] + 1, dtype=np.uint64) * _HASH_R1) | np.uint64(1)
    with np.errstate(all="ignore"):
        w = (words ^ (words >> np.uint64(31))) * _HASH_R2
        return (w * weights).sum(axis=1, dtype=np.uint64)


class Pool:
    """All kept expressions of one scalar type over the leaves of one tuple size.

    Entry `i` has `kind[i]` (a leaf name or an IR class name), `args[i]`
    (child entry ids), `leaves[i]`, `vmask[i]` (bit j set if leaf j of
    `grammar.leaf_names(size)` occurs) and `result[i]` (VALUE or BOOL).
    """

    def __init__(self, t: ir.Type, size: int, samples: Samples):
        self.t, self.size, self.samples = t, size, samples
        self.names = grammar.leaf_names(size)
        self.k_bit = 1 << self.names.index("k0")
        self.kind: list = []
        self.args: list = []
        self.leaves: list = []
        self.vmask: list = []
        self.minvar: list = []
        self.result: list = []
        self.levels = {VALUE: {}, BOOL: {}}      # kind -> leaves -> (ids, values)
        self._seen = {VALUE: set(), BOOL: set()}
        self.max_level = 0

    # ---- queries ----------------------------------------------------------
    def _k(self, kind: str) -> str:
        return VALUE if self.t.is_bool() else kind

    def level(self, kind: str, n: int):
        """(ids, values) of the kept expressions of `kind` with `n` leaves."""
        return self.levels[self._k(kind)].get(n, (np.zeros(0, np.int64), None))

    def canonical_key(self, i: int) -> tuple:
        return (self.minvar[i], -self.leaves[i], i)

    def __len__(self):
        return len(self.kind)

    # ---- building ---------------------------------------------------------
    def build(self, max_leaves: int, progress=None):
        """Extend the pool level by level up to `max_leaves` leaves."""
        with np.errstate(all="ignore"):
            self._build(max_leaves, progress)

    def _build(self, max_leaves: int, progress):
        if self.max_level == 0:
            self._add_leaves()
        for n in range(self.max_level + 1, max_leaves + 1):
            self._snapshot()
            for op in grammar.binary_kinds(self.t):
                self._binary(op, n)
            self._select(n)
            self._snapshot()
            for op in grammar.unary_kinds(self.t):
                self._unary(op, n)
            self.max_level = n
            if progress:
                progress(n, len(self))

    def _snapshot(self):
        """Array copies of the per-entry attributes that batches look up."""
        self._vm = np.asarray(self.vmask)
        self._mv = np.asarray(self.minvar)
        self._lv = np.asarray(self.leaves)

    def _add_leaves(self):
        pts = self.samples.points
        ids, vals = [], []
        for j, name in enumerate(self.names):
            ids.append(self._new(name, (), 1, 1 << j, j, VALUE))
            vals.append(pts[name])
        self.levels[VALUE][1] = (np.array(ids), np.stack(vals))
        self._seen[VALUE].update(int(h) for h in _row_hashes(np.stack(vals)))
        self.max_level = 1

    def _new(self, kind, args, leaves, vmask, minvar, result) -> int:
        self.kind.append(kind)
        self.args.append(args)
        self.leaves.append(leaves)
        self.vmask.append(vmask)
        self.minvar.append(minvar)
        self.result.append(result)
        return len(self.kind) - 1

    def _keep(self, result: str, name: str, children: list, vals: np.ndarray, n: int):
        """Add the rows of `vals` (computed by node kind `name` over the child
        id arrays `children`) that are non-constant and new."""
        if len(vals) == 0:
            return
        result = self._k(result)
        nonconst = ~(vals == vals[:, :1]).all(axis=1)
        hashes = _row_hashes(vals)
        idx = np.nonzero(nonconst)[0]
        _, first = np.unique(hashes[idx], return_index=True)
        idx = idx[np.sort(first)]
        seen = self._seen[result]
        fresh = [i for i in idx.tolist() if int(hashes[i]) not in seen]
        if not fresh:
            return
        fresh = np.array(fresh)
        vm = np.bitwise_or.reduce([self._vm[c[fresh]] for c in children])
        mv = np.minimum.reduce([self._mv[c[fresh]] for c in children])
        new_ids = []
        for r, i in enumerate(fresh.tolist()):
            seen.add(int(hashes[i]))
            new_ids.append(self._new(name, tuple(int(c[i]) for c in children), n,
                                     int(vm[r]), int(mv[r]), result))
        store = self.levels[result]
        old_ids, old_vals = store.get(n, (np.zeros(0, np.int64), None))
        new_vals = vals[fresh]
        store[n] = (np.concatenate([old_ids, new_ids]),
                    new_vals if old_vals is None else np.concatenate([old_vals, new_vals]))

    def _binary(self, op, n: int):
        vmask, minvar, leaves = self._vm, self._mv, self._lv
        for l1 in range(n - 1, 0, -1):
            ids_l, v_l = self.level(op.operand, l1)
            ids_r, v_r = self.level(op.operand, n - l1)
            if len(ids_l) == 0 or len(ids_r) == 0:
                continue
            step = max(1, _CHUNK // len(ids_r))
            for s in range(0, len(ids_l), step):
                li = np.repeat(np.arange(s, min(s + step, len(ids_l))), len(ids_r))
                ri = np.tile(np.arange(len(ids_r)), len(li) // len(ids_r))
                a, b = ids_l[li], ids_r[ri]
                ok = (vmask[a] | vmask[b]) != self.k_bit
                if op.commutative:
                    ka = np.stack([minvar[a], -leaves[a], a])
                    kb = np.stack([minvar[b], -leaves[b], b])
                    ok &= _lex_le(ka, kb)
                else:
                    ok &= a != b
                li, ri = li[ok], ri[ok]
                vals = apply_op(op.name, [v_l[li], v_r[ri]])
                self._keep(op.result, op.name, [ids_l[li], ids_r[ri]], vals, n)

    def _select(self, n: int):
        for lc in range(1, n - 1):
            ids_c, v_c = self.level(BOOL, lc)
            if len(ids_c) == 0:
                continue
            for la in range(n - lc - 1, 0, -1):
                ids_a, v_a = self.level(VALUE, la)
                ids_b, v_b = self.level(VALUE, n - lc - la)
                if len(ids_a) == 0 or len(ids_b) == 0:
                    continue
                ab = len(ids_a) * len(ids_b)
                ai = np.repeat(np.arange(len(ids_a)), len(ids_b))
                bi = np.tile(np.arange(len(ids_b)), len(ids_a))
                step = max(1, _CHUNK // ab)
                for s in range(0, len(ids_c), step):
                    ci = np.repeat(np.arange(s, min(s + step, len(ids_c))), ab)
                    reps = len(ci) // ab
                    a, b = np.tile(ai, reps), np.tile(bi, reps)
                    ok = ids_a[a] != ids_b[b]
                    ci, a, b = ci[ok], a[ok], b[ok]
                    vals = apply_op("Select", [v_c[ci], v_a[a], v_b[b]])
                    self._keep(VALUE, "Select", [ids_c[ci], ids_a[a], ids_b[b]], vals, n)

    def _unary(self, op, n: int):
        ids, vals = self.level(op.operand, n)
        if len(ids) == 0:
            return
        keep = self._vm[ids] != self.k_bit
        self._keep(op.result, op.name, [ids[keep]], apply_op(op.name, [vals[keep]]), n)

    # ---- conversion -------------------------------------------------------
    def to_ir(self, i: int, variables: dict) -> ir.Expr:
        """The IR expression of entry `i` (comparisons written with the
        canonically smaller operand on the left)."""
        kind, args = self.kind[i], self.args[i]
        if not args:
            return variables[kind]
        sub = [self.to_ir(a, variables) for a in args]
        if kind in ("LT", "LE") and self.canonical_key(args[0]) > self.canonical_key(args[1]):
            return getattr(ir, "GT" if kind == "LT" else "GE")(sub[1], sub[0])
        return getattr(ir, kind)(*sub)


def _lex_le(ka: np.ndarray, kb: np.ndarray) -> np.ndarray:
    """Column-wise lexicographic ka <= kb for stacked key rows."""
    out = np.ones(ka.shape[1], bool)
    undecided = np.ones(ka.shape[1], bool)
    for r in range(ka.shape[0]):
        lt, gt = ka[r] < kb[r], ka[r] > kb[r]
        out = np.where(undecided & gt, False, out)
        undecided &= ~(lt | gt)
    return out
