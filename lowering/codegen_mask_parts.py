"""Masks of wide float compares emitted one register at a time (AVX-512).

A compare of two `<16 x double>` vectors spans two zmm registers; LLVM
legalizes its `<16 x i1>` result, and the And/Or/Not over it, as two 8-bit
halves where a `<16 x double>` select uses them, and once more as one
16-bit mask (joined by `kunpckbw`) where a 16-lane select of narrower
elements (the int32 positions of a.argmin(), frontend_ast/reduce_blocks.py)
or a `vector.reduce.or` uses the same mask: the mask logic ran twice, and
the And of two compares could not become one masked compare. In the
amax/argmin lanes (two compares and an And per zmm, twice a step) that was
~20 mask-port operations per 32 elements instead of ~9.

MaskParts emits such masks as parts of one register each: a compare of
float vectors wider than REG_BYTES as one compare per part (the operands'
parts are shuffles LLVM folds to the registers), And/Or/Not part by part;
a select whose value spans the same parts selects part by part; the whole
mask, where a narrower select needs it, is the concatenation of the parts
(one `kunpckbw`), and an any/all reduction of it reduces the Or/And of its
parts. The lanes' values are those of the whole-vector operations: only
the register each lane is computed in changes."""
from __future__ import annotations

from llvmlite import ir as ll

from pyhalide import ir

from . import codegen_ops as ops

REG_BYTES = 64      # one zmm register

_COMPARES = (ir.EQ, ir.NE, ir.LT, ir.LE, ir.GT, ir.GE)


class MaskParts:
    """`lanes(e)`: the lanes of one part where the bool vector Expr e is
    emitted by parts (a tree of And/Or/Not over compares of float vectors of
    more than REG_BYTES, all with the same part width, and broadcasts), else
    None (a variable of a LetStmt as its value; its parts are shuffles of
    the bound concatenation, which LLVM folds). `parts(e, h)`: its LLVM
    values, h lanes each; `whole(parts)`: their concatenation; `select(e)`:
    a Select by parts, or None. Any h gives the same lane values (a part
    of a mask not built by parts is a shuffle of the whole one), so a memo
    of `lanes` over a scope's variables can only cost speed."""

    __slots__ = ("em", "memo", "resolving")

    def __init__(self, em):
        self.em = em        # the _FunctionEmitter (emit, b)
        self.memo: dict = {}
        self.resolving: set = set()     # LetStmt names being looked through

    def lanes(self, e):
        if isinstance(e, ir.Variable):      # a LetStmt's mask: by its value, in this scope
            stack = self.em.let_values.get(e.name)
            if not stack or stack[-1].type != e.type or e.name in self.resolving:
                return None     # (`let m = m && ...`: the value's m is an outer one)
            self.resolving.add(e.name)
            try:
                return self.lanes(stack[-1])
            finally:
                self.resolving.discard(e.name)
        key = id(e)
        hit = self.memo.get(key)
        if hit is not None and hit[0] is e:
            return hit[1]
        h = self._lanes(e)
        self.memo[key] = (e, h)
        return h

    def _lanes(self, e):
        t = e.type
        if t.lanes <= 1 or not t.is_bool():
            return None
        if isinstance(e, _COMPARES):
            at = e.a.type
            if not at.is_float() or at.bits not in (32, 64):
                return None
            size = at.lanes * at.bits // 8
            n = size // REG_BYTES
            if size <= REG_BYTES or size % REG_BYTES or n & (n - 1):
                return None
            return REG_BYTES * 8 // at.bits
        if isinstance(e, ir.Not):
            return self.lanes(e.a)
        if isinstance(e, (ir.And, ir.Or)):
            ha, hb = self.lanes(e.a), self.lanes(e.b)
            if isinstance(e.a, ir.Broadcast):
                ha = hb
            if isinstance(e.b, ir.Broadcast):
                hb = ha
            return ha if ha is not None and ha == hb else None
        return None

    def parts(self, e, h) -> list:
        """The parts of e, memoized in the emitter's expression cache (its
        layers follow the scopes and branches, as emit's values do)."""
        em = self.em
        key = ("mask parts", id(e), h)
        for layer in reversed(em.cache[em.cache_floor:]):
            hit = layer.get(key)
            if hit is not None and hit[0] is e:
                return hit[1]
        out = self._parts(e, h)
        em.cache[-1][key] = (e, out)
        return out

    def _parts(self, e, h) -> list:
        em, b = self.em, self.em.b
        n = e.type.lanes // h
        if isinstance(e, _COMPARES):
            x, y = em.emit(e.a), em.emit(e.b)
            kind = type(e).__name__
            return [ops.compare(b, kind, _split(b, x, h, k), _split(b, y, h, k), e.a.type)
                    for k in range(n)]
        if isinstance(e, ir.Not):
            true = ll.Constant(ll.VectorType(ops.I1, h), [ll.Constant(ops.I1, 1)] * h)
            return [b.xor(p, true) for p in self.parts(e.a, h)]
        if isinstance(e, (ir.And, ir.Or)):
            pa, pb = self._side(e.a, h), self._side(e.b, h)
            op = b.and_ if isinstance(e, ir.And) else b.or_
            return [op(p, q) for p, q in zip(pa, pb)]
        full = em.emit(e)
        return [_split(b, full, h, k) for k in range(n)]

    def _side(self, e, h) -> list:
        if isinstance(e, ir.Broadcast) and e.value.type.lanes == 1:
            part = ops.splat(self.em.b, self.em.emit(e.value), h)
            return [part] * (e.type.lanes // h)
        return self.parts(e, h)

    def select(self, e):
        """Select e part by part where its condition is emitted by parts and
        a part of its value is one register; else None (a narrower value
        takes the whole mask: one join instead of a join of the results)."""
        h = self.lanes(e.condition)
        if h is None or h * e.type.bits != REG_BYTES * 8:
            return None
        em, b = self.em, self.em.b
        x, y = em.emit(e.true_value), em.emit(e.false_value)
        out = [b.select(c, _split(b, x, h, k), _split(b, y, h, k))
               for k, c in enumerate(self.parts(e.condition, h))]
        return self.whole(out)

    def whole(self, parts: list):
        """The concatenation of `parts` (a power of two of them)."""
        b = self.em.b
        while len(parts) > 1:
            h = parts[0].type.count
            parts = [b.shuffle_vector(parts[i], parts[i + 1], ops.index_vector(range(2 * h)))
                     for i in range(0, len(parts), 2)]
        return parts[0]


def _split(b, v, h: int, k: int):
    """Lanes [k*h, (k+1)*h) of the vector v."""
    return ops.shuffle(b, v, list(range(k * h, (k + 1) * h)))
