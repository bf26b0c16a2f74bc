"""The int64 keys of numpy_zero_ties.py: among the zero elements of a
float max/min reduction the element of greatest key is NumPy's (its low
bit, added there, the element's sign bit). One function per NumPy loop:
the contiguous reduce (contiguous_key), the scalar 8-unroll of a strided
reduce (strided_key), the binary fmax/fmin loop over lines of an outer
axis reduction (line_key). The keys are those of NumPy's AVX-512 loops or of its
AVX2 loops (X86_V3), whichever this NumPy runs (ISA: numpy_isa(); the
vector lanes, the lane preference of the horizontal reduce and the binary
loop's tail differ; the loops' structure is the same source)."""
from __future__ import annotations

from pyhalide import ir

from . import ops

POS = ir.Int(64)
NONE = -2**62        # the key of no zero (below every element's)
_TAIL = 2**40        # max/min: the tail above every lane's key
_LANE = 2**35        # a lane's preference above its elements' vector index


_AVX512 = ("X86_V4", "AVX512_SKX", "AVX512_ICL", "AVX512_SPR")
_AVX2 = ("X86_V3", "AVX2")


def numpy_isa():
    """"avx512" or "avx2": the max/min loops this NumPy runs (its CPU
    features at run time and the dispatch targets it was built with; the
    best one both allow), else None (another CPU or build,
    NPY_DISABLE_CPU_FEATURES: not modelled)."""
    try:
        from numpy._core import _multiarray_umath as um
    except ImportError:
        return None
    feats = getattr(um, "__cpu_features__", {})
    built = set(getattr(um, "__cpu_dispatch__", ())) | set(getattr(um, "__cpu_baseline__", ()))
    if feats.get("AVX512_SKX") and any(t in built for t in _AVX512):
        return "avx512"
    if feats.get("AVX2") and feats.get("FMA3") and any(t in built for t in _AVX2):
        return "avx2"
    return None


ISA = numpy_isa()


def vector_lanes(itemsize: int) -> int:
    """The lanes of NumPy's vectors of float64 (itemsize 8) or float32
    elements under ISA."""
    width = 64 if ISA == "avx512" else 32
    return width // itemsize


def const(v):
    """An int64 constant node."""
    return ir.Const(POS, v)


def _prio(lanes: int) -> list[int]:
    """The preference of each lane in the horizontal reduce (higher wins a
    tie). AVX-512 (GCC's _mm512_reduce_max/min): float64 (8 lanes): bit 0
    set wins, then bit 1 clear, then bit 2 clear; float32 (16): bit 0 set,
    bit 1 set, bit 2 clear, bit 3 clear. AVX2 (NumPy's npyv_reduce_max:
    the upper half against the lower, then the odd lane against the even,
    the second operand winning a tie): bit 0 set, then bit 1 set (float32:
    then bit 2 set); measured on NumPy 2.4 (docs/numpy_zero_ties28.md)."""
    bits = lanes.bit_length() - 1
    flip = 0 if ISA != "avx512" else 0b110 if lanes == 8 else 0b1100  # bits where clear wins
    out = []
    for lane in range(lanes):
        q = lane ^ flip
        out.append(sum(((q >> i) & 1) << (bits - 1 - i) for i in range(bits)))
    return out


def contiguous_key(p, n, lanes, fm, lane=_LANE, tail_from=_TAIL):
    """int64 key of flat position p (int64 node, 0 <= p < n) among n
    elements of a contiguous block (numpy_zero_ties.py's docstring); fm:
    the tail keeps the earlier element. lane, tail_from: the key's scale (a
    lane's preference times `lane`, the tail's keys from `tail_from` on),
    larger than n / lanes and than p."""
    prio = _prio(lanes)
    tail_start = ir.Add(ir.BitAnd(ir.Sub(n, const(1)), const(-lanes)), const(1))
    tail = ir.Sub(const(0), p) if fm else ir.Add(const(tail_from), p)
    return _ranked(p, lanes, prio, const(max(prio) * lane - 1), tail_start, tail, lane=lane)


BUFFER = 8192           # NumPy's reduction iterator's buffer (elements)
MAX_CHUNK = 2**21       # chunked_key's chunks at most this long
_CHUNK_LANE = 2**21     # contiguous_key's scale within a chunk
_CHUNK_TAIL = 2**26
_CHUNK = 2**28          # above every key within a chunk (+ _CHUNK // 2)


def buffer_size(row):
    """The elements of NumPy's buffer of whole rows of `row` elements:
    BUFFER // row of them; a row longer than BUFFER alone (not buffered)."""
    row = ir.Max(row, const(1))
    return ir.Mul(ir.Max(ir.Div(const(BUFFER), row), const(1)), row)


def chunked_key(p, n, size, lanes, fm):
    """int64 key of flat position p among n elements (memory order) that
    NumPy reduces in chunks of `size` (<= MAX_CHUNK) elements, each a
    contiguous reduce (simd_reduce_c) whose x[0] is the result so far (the
    first chunk's: the array's x[0]): a view's buffers of whole rows
    (buffer_size), or the rows of a reduction whose reduced axes are not
    all inside the kept ones (one row per inner loop). A chunk's zero
    replaces the result so far where its key in the chunk is above that
    x[0]'s (the top lane's, or max/min's tail); where none does, the first
    chunk holding a zero gave it. Measured against NumPy 2.4
    (docs/numpy_zero_ties25.md)."""
    size = ir.Max(size, const(1))
    c = ir.Div(p, size)
    local = ir.Sub(p, ir.Mul(c, size))
    length = ir.Min(size, ir.Sub(n, ir.Mul(c, size)))
    first = ir.EQ(c, const(0))
    # (after the first chunk the result so far is the reduce's x[0])
    q = ir.Select(first, local, ir.Add(local, const(1)))
    m = ir.Select(first, length, ir.Add(length, const(1)))
    k = contiguous_key(q, m, lanes, fm, _CHUNK_LANE, _CHUNK_TAIL)
    top = max(_prio(lanes)) * _CHUNK_LANE - 1        # x[0]'s key
    k = ir.Add(k, const(_CHUNK // 2))
    later = ir.Add(const(2**61), ir.Add(ir.Mul(c, const(_CHUNK)), k))
    earlier = ir.Sub(k, ir.Mul(c, const(_CHUNK)))
    return ir.Select(ir.GT(k, const(top + _CHUNK // 2)), later, earlier)


def strided_key(p, n, fm):
    """int64 key of position p among n elements of a 1-D strided max/min
    (fm: fmax/fmin) (NumPy's scalar loop for a non-contiguous reduce: with
    n >= 9, m0..m7 take x[1..8], then each block of 8 after them element by
    element, a tie to the later (fm: the earlier, as GCC compiled that
    loop; measured); then op(op(op(m0, m1), op(m2, m3)), op(op(m4, m5),
    op(m6, m7))), the later lane of a tie; op(x[0], that); then the rest
    serially, the later of a tie; n < 9: all serially). x[0] lowest."""
    blocks = ir.Add(ir.Mul(ir.Div(ir.Sub(n, const(9)), const(8)), const(8)), const(9))
    tail_start = ir.Select(ir.LT(n, const(9)), const(1), blocks)
    return _ranked(p, 8, list(range(8)), const(-1), tail_start, ir.Add(const(_TAIL), p),
                   earlier=fm)


def strided_rows_key(p, row, fm):
    """int64 key of flat position p of a reduction of every axis whose rows
    of `row` elements NumPy reduces one by one with the strided reduce
    (rows with a step longer than BUFFER, unbuffered; measured on NumPy
    2.4's AVX2 build): the first row's strided_key, each later row's that
    of the row after the result so far (its x[0], below every element), a
    later row above an earlier one."""
    row = ir.Max(row, const(1))
    c = ir.Div(p, row)
    local = ir.Sub(p, ir.Mul(c, row))
    k = ir.Select(ir.EQ(c, const(0)), strided_key(local, row, fm),
                  strided_key(ir.Add(local, const(1)), ir.Add(row, const(1)), fm))
    return ir.Add(ir.Mul(c, const(2**42)), ir.Add(k, const(1)))


def _ranked(p, lanes, prio, first, tail_start, tail, earlier=False, lane=_LANE):
    """The key of p: `first` for p = 0, `tail` from tail_start on, else
    its lane's preference (lane (p - 1) % lanes), then the later element
    (earlier: the earlier one)."""
    pm = ir.Sub(p, const(1))
    # the preferences packed 4 bits a lane into one constant (lanes <= 16)
    packed = sum(v << (4 * ln) for ln, v in enumerate(prio))
    packed -= 2**64 if packed >= 2**63 else 0       # as an int64 constant
    shift = ir.Shl(ir.BitAnd(pm, const(lanes - 1)), const(2))
    pr = ir.BitAnd(ir.Shr(const(packed), shift), const(15))
    block = ir.Shr(pm, const(lanes.bit_length() - 1))
    if earlier:
        block = ir.Sub(const(lane - 1), block)
    body = ir.Add(ir.Mul(pr, const(lane)), block)
    return ir.Select(ir.EQ(p, const(0)), first, ir.Select(ir.GE(p, tail_start), tail, body))


# The tail positions t (0 <= t < lanes) where the binary loop's tail keeps
# the later element of a tie, by (ISA, lanes, lines with a step); None: all.
_LATER_TAIL = {
    ("avx512", 8, False): (3, 6), ("avx512", 16, False): range(1, 16),
    ("avx512", 8, True): range(1, 8), ("avx512", 16, True): None,
    ("avx2", 4, False): (2,), ("avx2", 8, False): (4, 5, 6),
    ("avx2", 4, True): (2,), ("avx2", 8, True): None,
}


def line_key(j, idx, sizes, lines, lanes, strided=False):
    """int64 key of element j along the reduced axes (flat, memory order)
    for fmax/fmin's binary loop (numpy_zero_ties._inner_lines) at line
    position q of m: its SIMD body, q < m - m % lanes, keeps the later
    element of a tie; of the tail positions t = q - (m - m % lanes) some
    keep the later, the others the earlier one (GCC's code for the tail,
    measured on NumPy 2.4 for every tail length; docs/numpy_zero_ties25.md,
    28.md: _LATER_TAIL): contiguous lines (simd_binary_ccc), lines with a
    step (`strided`: simd_binary with loadn)."""
    q, m = None, const(1)
    for k in lines:
        s = ops.cast(POS, sizes[k])
        m = ir.Mul(m, s)
        i = ops.cast(POS, idx[k])
        q = i if q is None else ir.Add(ir.Mul(q, s), i)
    t = ir.Sub(q, ir.BitAnd(m, const(-lanes)))
    tails = _LATER_TAIL[(ISA, lanes, strided)]
    if tails is None:
        return j
    later = ir.LT(t, const(0))
    for v in _runs(tails):
        later = ir.Or(later, v(t))
    return ir.Select(later, j, ir.Sub(const(0), j))


def _runs(tails):
    """Tests of t, one per run of consecutive values of `tails`."""
    vals = sorted(tails)
    out, start = [], 0
    for k in range(1, len(vals) + 1):
        if k == len(vals) or vals[k] != vals[k - 1] + 1:
            lo, hi = vals[start], vals[k - 1]
            out.append(lambda t, lo=lo, hi=hi: ir.EQ(t, const(lo)) if lo == hi else
                       ir.And(ir.GE(t, const(lo)), ir.LE(t, const(hi))))
            start = k
    return out
