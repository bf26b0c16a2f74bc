"""A kernel whose top level is mostly straight-line bookkeeping (bookkeeping_body:
at least BOOKKEEPING_NODES IR nodes outside every loop) gets its `.body`
function marked `noinline optnone`, and each serial loop at that top level
outlined into a function `<entry>.loopN` of its own, optimized
(codegen_llvm._emit_outlined_loop). The threshold is lowered here so that a
small pipeline takes that path: results equal NumPy, and an error raised
inside an outlined loop reaches the caller."""
import re

import numpy as np
import pytest

import pyhalide as ph
from pyhalide.lowering import bookkeeping_body


def _chain(check_index=False):
    """Three compute_root stages (serial loops at the top level) and an output."""
    a = ph.ImageParam(ph.Float(32), 1, "a")
    b = ph.ImageParam(ph.Int(32), 1, "b")
    x = ph.Var("x")
    f0, f1, f2, out = ph.Func("f0"), ph.Func("f1"), ph.Func("f2"), ph.Func("out")
    f0[x] = a[x] * 2 + a[x + 1]
    f1[x] = f0[x] * 0.5 + f0[x + 1]
    f2[x] = f1[x] - f1[x + 1]
    value = f2[x] + 1
    if check_index:
        value = value + a[b[x]]
    out[x] = value
    for f in (f0, f1):
        f.compute_root()
    f2.compute_root().vectorize(x, 8)
    return out, a, b


def _expected(A, n):
    f0 = A[:-1] * np.float32(2) + A[1:]
    f1 = f0[:-1] * np.float32(0.5) + f0[1:]
    f2 = f1[:-1] - f1[1:]
    return (f2 + np.float32(1))[:n]


def _functions(text):
    """{function name: attribute text} of the defined functions."""
    out = {}
    for line in text.split("\n"):
        m = re.match(r'define [^@]*@"([^"]+)"\(.*\)\s*(.*)$', line)
        if m:
            out[m.group(1)] = m.group(2)
    return out


@pytest.fixture
def low_threshold(monkeypatch):
    monkeypatch.setattr(bookkeeping_body, "BOOKKEEPING_NODES", 1)


def test_body_not_optimized_loops_outlined_and_optimized(low_threshold):
    out, a, _ = _chain()
    fns = _functions(ph.Pipeline([out]).lower("llvm"))
    (entry,) = [n for n in fns if "." not in n]
    assert "optnone" in fns[f"{entry}.body"] and "noinline" in fns[f"{entry}.body"]
    loops = [n for n in fns if re.fullmatch(re.escape(entry) + r"\.loop\d+", n)]
    assert len(loops) >= 4, fns          # f0, f1, f2 and the output at least
    for n in loops:
        assert "optnone" not in fns[n] and "optnone" not in fns[f"{n}.body"]
        assert "cold" not in fns[n]
    n = 37
    A = np.random.default_rng(1).random(n + 3, dtype=np.float32)
    a.set(ph.Buffer(A))
    np.testing.assert_array_equal(np.asarray(out.realize([n])), _expected(A, n))


def test_error_inside_an_outlined_loop_reaches_the_caller(low_threshold):
    out, a, b = _chain(check_index=True)
    n = 20
    A = np.random.default_rng(2).random(n + 3, dtype=np.float32)
    a.set(ph.Buffer(A))
    B = np.arange(n, dtype=np.int32)
    b.set(ph.Buffer(B))
    got = np.asarray(out.realize([n]))
    np.testing.assert_array_equal(got, _expected(A, n) + A[B])
    B[5] = n + 100
    b.set(ph.Buffer(B))
    with pytest.raises(Exception, match="a"):
        out.realize([n])


def test_small_kernels_keep_their_body():
    out, _, _ = _chain()
    fns = _functions(ph.Pipeline([out]).lower("llvm"))
    (entry,) = [n for n in fns if "." not in n]
    assert "optnone" not in fns[f"{entry}.body"], fns
    assert not any(".loop" in n for n in fns), fns
