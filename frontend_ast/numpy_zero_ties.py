"""Which of two equal elements NumPy 2.4's whole-array float max/min returns
(only visible for ±0: equal numbers otherwise have the same bits), for a
contiguous array on x86-64 with AVX-512 (numpy/_core/src/umath/
loops_minmax.dispatch.c.src, simd_reduce_c):

the result starts as x[0] in all V lanes (V = 8 float64, 16 float32); the
elements 1 .. 1 + F*V - 1 (F = (n - 1) // V whole vectors) go to lane
(p - 1) % V, each update `maxpd(acc, x)`, which keeps the later element of
a tie; the lanes are reduced by GCC's _mm512_reduce_max_{pd,ps} (halves
`max(hi, lo)` down to 128 bits, then `max(lo, shuffled)`), a fixed
preference among lanes (`_PRIO`); the elements after them (the tail) go
through `maxsd(r, x)`, the later one of a tie again. So among the elements
equal to the extreme: the last one in the tail; else, in the preferred
lane holding one, the last; x[0] is in every lane before the others, so
where it ties the extreme the lanes all hold one, and the preferred lane
of all (`_TOP`) decides (x[0] where that lane holds no other).

`rank(p)`: an int64 order on positions p >= 1 (a tie goes to the greater
rank) with x[0] (and the initial state's -1) lowest; `fixup` then puts
x[0] back where it ties the extreme and the winner is in a lane other than
_TOP. tests/frontend/test_numpy_zero_ties.py compares with NumPy."""
from __future__ import annotations

from pyhalide import ir

from . import ops

POS = ir.Int(64)


def _prio(lanes: int) -> list[int]:
    """The preference of each lane in GCC's reduce (higher wins a tie):
    the last match decides first. float64 (8 lanes): bit 0 set wins, then
    bit 1 clear, then bit 2 clear; float32 (16): bit 0 set, bit 1 set,
    bit 2 clear, bit 3 clear."""
    bits = lanes.bit_length() - 1
    flip = 0b110 if lanes == 8 else 0b1100     # bits where clear wins
    out = []
    for lane in range(lanes):
        q = lane ^ flip
        out.append(sum(((q >> i) & 1) << (bits - 1 - i) for i in range(bits)))
    return out


def lanes_of(ty) -> int:
    """NumPy's AVX-512 lanes for the element type (a Ty)."""
    return 8 if ty.dtype.itemsize == 8 else 16


def _c(v):
    return ir.Const(POS, v)


def rank(p, count, lanes):
    """int64 rank of position p (int64 node) among count elements."""
    prio = _prio(lanes)
    n = ops.cast(POS, count)
    tail = ir.Add(ir.Mul(ir.Div(ir.Sub(n, _c(1)), _c(lanes)), _c(lanes)), _c(1))
    pm = ir.Sub(p, _c(1))
    lane, k = ir.Mod(pm, _c(lanes)), ir.Div(pm, _c(lanes))
    pr = _c(prio[lanes - 1])
    for ln in reversed(range(lanes - 1)):
        pr = ir.Select(ir.EQ(lane, _c(ln)), _c(prio[ln]), pr)
    body = ir.Add(ir.Mul(pr, _c(2**35)), k)
    return ir.Select(ir.LE(p, _c(0)), _c(-1),
                     ir.Select(ir.GE(p, tail), ir.Add(_c(2**40), p), body))


def fixup(v, p, x0, count, lanes):
    """Whether NumPy returns x[0] (x0) instead of the winner (v, p)."""
    top = _prio(lanes).index(max(_prio(lanes)))
    n = ops.cast(POS, count)
    tail = ir.Add(ir.Mul(ir.Div(ir.Sub(n, _c(1)), _c(lanes)), _c(lanes)), _c(1))
    in_lanes = ir.And(ir.GE(p, _c(1)), ir.LT(p, tail))
    other = ir.NE(ir.Mod(ir.Sub(p, _c(1)), _c(lanes)), _c(top))
    return ir.And(ir.EQ(v, x0), ir.And(in_lanes, other))
