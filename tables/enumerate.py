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
from .grammar import BOOL, VALUE
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
        self.levels = {VALUE: {}, BOOL: {}}      # kind -> leaves -> ([ids], [values])
        self._seen = {VALUE: set(), BOOL: set()}
        self.max_level = 0
        # (node kind, child id arrays, first new id, count) per kept batch, in
        # creation order: the pool as a program that bulkfilter can re-run
        self.batches: list = []
        # per-entry attributes, one array per batch (concatenated on demand)
        self._parts = {"leaves": [], "vmask": [], "minvar": [], "is_value": [], "batch": []}
        self._arrays = None
        self._count = 0

    # ---- queries ----------------------------------------------------------
    def _k(self, kind: str) -> str:
        return VALUE if self.t.is_bool() else kind

    def _attr(self, name: str) -> np.ndarray:
        """The per-entry attribute arrays. Batches look their children up in a
        snapshot taken at the start of each stage (children always exist by
        then), so that building stays linear."""
        if self._arrays is None:
            self._arrays = {k: np.concatenate(v) if v else np.zeros(0, np.int64)
                            for k, v in self._parts.items()}
        return self._arrays[name]

    @property
    def leaves(self) -> np.ndarray:
        return self._attr("leaves")

    @property
    def vmask(self) -> np.ndarray:
        return self._attr("vmask")

    @property
    def minvar(self) -> np.ndarray:
        return self._attr("minvar")

    @property
    def is_value(self) -> np.ndarray:
        """True for expressions of the table's type, False for bool ones."""
        return self._attr("is_value")

    @property
    def batch_of(self) -> np.ndarray:
        return self._attr("batch")

    def node(self, i: int) -> tuple:
        """(node kind or leaf name, child ids) of entry `i`."""
        name, children, first, _ = self.batches[int(self.batch_of[i])]
        return name, tuple(int(c[i - first]) for c in children)

    def level(self, kind: str, n: int):
        """(ids, values) of the kept expressions of `kind` with `n` leaves."""
        store = self.levels[self._k(kind)]
        parts = store.get(n)
        if parts is None:
            return np.zeros(0, np.int64), None
        if len(parts[0]) > 1:      # batches are stored as parts, joined on use
            parts = ([np.concatenate(parts[0])], [np.concatenate(parts[1])])
            store[n] = parts
        return parts[0][0], parts[1][0]

    def canonical_key(self, i: int) -> tuple:
        return (int(self.minvar[i]), -int(self.leaves[i]), i)

    def __len__(self):
        return self._count

    # ---- building ---------------------------------------------------------
    def build(self, max_leaves: int, progress=None):
        """Extend the pool level by level up to `max_leaves` leaves. Bool
        expressions of the last level are not kept (nothing can use them)."""
        with np.errstate(all="ignore"):
            self._build(max_leaves, progress)

    def _build(self, max_leaves: int, progress):
        if self.max_level == 0:
            self._add_leaves()
        for n in range(self.max_level + 1, max_leaves + 1):
            self._top = n == max_leaves and not self.t.is_bool()
            self._snap = {k: self._attr(k) for k in ("leaves", "vmask", "minvar")}
            for op in grammar.binary_kinds(self.t):
                self._binary(op, n)
            self._select(n)
            self._snap = {k: self._attr(k) for k in ("leaves", "vmask", "minvar")}
            for op in grammar.unary_kinds(self.t):
                self._unary(op, n)
            self.max_level = n
            if progress:
                progress(n, len(self))
        self._top = False

    def _add_leaves(self):
        pts = self.samples.points
        for j, name in enumerate(self.names):
            vals = pts[name][None, :]
            self._append(name, [], VALUE, 1, np.array([1 << j]), np.array([j]))
            self._seen[VALUE].add(int(_row_hashes(vals)[0]))
            self._store(VALUE, 1, np.array([j]), vals)
        self.max_level = 1

    def _append(self, name, children, result, n, vmask, minvar) -> np.ndarray:
        """Record a batch of new entries; returns their ids."""
        count = len(vmask)
        ids = np.arange(self._count, self._count + count)
        self.batches.append((name, children, self._count, count))
        parts = self._parts
        parts["leaves"].append(np.full(count, n))
        parts["vmask"].append(np.asarray(vmask, np.int64))
        parts["minvar"].append(np.asarray(minvar, np.int64))
        parts["is_value"].append(np.full(count, result == VALUE))
        parts["batch"].append(np.full(count, len(self.batches) - 1))
        self._count += count
        self._arrays = None
        return ids

    def _store(self, result, n, ids, vals):
        ids_parts, vals_parts = self.levels[result].setdefault(n, ([], []))
        ids_parts.append(ids)
        vals_parts.append(vals)

    def _keep(self, result: str, name: str, children: list, vals: np.ndarray, n: int):
        """Add the rows of `vals` (computed by node kind `name` over the child
        id arrays `children`) that are non-constant and new."""
        result = self._k(result)
        if len(vals) == 0 or (self._top and result == BOOL):
            return
        nonconst = ~(vals == vals[:, :1]).all(axis=1)
        hashes = _row_hashes(vals)
        idx = np.nonzero(nonconst)[0]
        _, first = np.unique(hashes[idx], return_index=True)
        idx = idx[np.sort(first)]
        seen = self._seen[result]
        fresh = [i for i, h in zip(idx.tolist(), hashes[idx].tolist()) if h not in seen]
        if not fresh:
            return
        seen.update(hashes[fresh].tolist())
        fresh = np.array(fresh)
        kids = [c[fresh] for c in children]
        vm = np.bitwise_or.reduce([self._snap["vmask"][c] for c in kids])
        mv = np.minimum.reduce([self._snap["minvar"][c] for c in kids])
        ids = self._append(name, kids, result, n, vm, mv)
        self._store(result, n, ids, vals[fresh])

    def _binary(self, op, n: int):
        vmask, minvar, leaves = self._snap["vmask"], self._snap["minvar"], self._snap["leaves"]
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
        keep = self._snap["vmask"][ids] != self.k_bit
        self._keep(op.result, op.name, [ids[keep]], apply_op(op.name, [vals[keep]]), n)

    # ---- conversion -------------------------------------------------------
    def to_ir(self, i: int, variables: dict) -> ir.Expr:
        """The IR expression of entry `i` (comparisons written with the
        canonically smaller operand on the left)."""
        kind, args = self.node(i)
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
