"""Index arithmetic that would wrap int32 is refused, never computed with a
wrapped region: a Param near the ends of int32 made bounds inference size an
intermediate from wrapped interval ends (a segfault for a scatter, a silent
wrong result for a gather through min). Results for offsets in range are
compared with NumPy; offsets that wrap raise OverflowError (or the
IndexError / ValueError of the access that would leave its buffer)."""
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import pyhalide as ph

IMG = np.array([0, 5, 200, 255, 7], np.uint8)
NEAR_MAX = 2**31 - 100
NEAR_MIN = -(2**31) + 10


def _scatter(off, output: bool):
    """A histogram of IMG shifted by `off`, into an intermediate or the output."""
    x = ph.Var("x")
    r = ph.RDom([(0, len(IMG))])
    f = ph.Func("hist_shift")
    p = ph.Param(ph.Int(32), "off", off)
    f[x] = 0
    f[ph.cast(ph.Int(32), ph.Buffer(IMG, "img")[r.x]) + p] += 1
    if output:
        return f
    g = ph.Func("hist_copy")
    g[x] = f[x]
    return g


def _histogram(off, n=300):
    want = np.zeros(n, np.int32)
    for v in IMG:
        if 0 <= int(v) + off < n:
            want[int(v) + off] += 1
    return want


@pytest.mark.parametrize("output", [False, True])
@pytest.mark.parametrize("off", [0, 3, 40])
def test_scatter_with_an_offset_in_range(off, output):
    got = np.asarray(_scatter(off, output).realize([300]))
    np.testing.assert_array_equal(got, _histogram(off))


def test_scatter_whose_index_wraps_raises_in_a_child_process():
    # (a child process: before the fix this wrote far outside the allocation)
    code = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(__file__.rsplit('/tests/', 1)[0])!r})
        from tests.core.test_index_overflow import _scatter
        for off in ({NEAR_MAX}, {NEAR_MIN}):
            try:
                _scatter(off, output=False).realize([300])
            except (OverflowError, IndexError) as e:
                print(type(e).__name__)
            else:
                print("no error")
        """)
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    lines = run.stdout.split()
    assert lines[0] == "OverflowError" and lines[1] in ("OverflowError", "IndexError"), lines


@pytest.mark.parametrize("off", [NEAR_MAX, NEAR_MIN])
def test_scatter_into_the_output_whose_index_wraps_raises(off):
    with pytest.raises((OverflowError, IndexError)):
        _scatter(off, output=True).realize([300])


def _wrap32(v):
    return ((v + 2**31) % 2**32) - 2**31


def _gather(off, f_root: bool):
    x = ph.Var("x")
    f = ph.Func("triple")
    f[x] = x * 3
    p = ph.Param(ph.Int(32), "off", off)
    g = ph.Func("gather_min")
    g[x] = f[ph.min(x + p, 5)]
    if f_root:
        f.compute_root()
    return g


@pytest.mark.parametrize("f_root", [False, True])
@pytest.mark.parametrize("off", [-20, 0, 2])
def test_gather_through_min_in_range(off, f_root):
    got = np.asarray(_gather(off, f_root).realize([300]))
    want = np.array([_wrap32(3 * min(i + off, 5)) for i in range(300)], np.int32)
    np.testing.assert_array_equal(got, want)


def test_gather_from_a_root_func_whose_index_wraps_raises():
    # before: f's region came from a wrapped end (a 0-element allocation), and g
    # read whatever lay there
    with pytest.raises(OverflowError, match="overflows int32"):
        _gather(NEAR_MAX, f_root=True).realize([300])


def test_inlined_wrapping_index_keeps_wrapping_semantics():
    # inlined, there is no region to size: x + off wraps as int32 arithmetic does
    got = np.asarray(_gather(NEAR_MAX, f_root=False).realize([300]))
    want = np.array([_wrap32(3 * min(_wrap32(i + NEAR_MAX), 5)) for i in range(300)], np.int32)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("off", [NEAR_MAX, NEAR_MIN])
def test_input_read_whose_index_wraps_raises(off):
    inp = np.arange(300, dtype=np.int32)
    x = ph.Var("x")
    g = ph.Func("read_shift")
    g[x] = ph.Buffer(inp, "inp")[ph.min(x + ph.Param(ph.Int(32), "off", off), 5)]
    with pytest.raises((OverflowError, ValueError)):
        g.realize([300])


def test_input_read_with_an_offset_in_range():
    inp = np.arange(300, dtype=np.int32)
    x = ph.Var("x")
    g = ph.Func("read_shift_ok")
    g[x] = ph.Buffer(inp, "inp")[ph.min(x + ph.Param(ph.Int(32), "off", 4), 250)]
    np.testing.assert_array_equal(np.asarray(g.realize([300])),
                                  np.minimum(np.arange(300) + 4, 250))


def test_a_select_of_ends_is_checked_through_its_branches():
    # the end of a split's region can be select(c, m + 2*x - 2, ...): its exact
    # value is a branch's, which can leave int32 although the select is int32
    from pyhalide import ir
    from pyhalide.lowering.index_overflow import overflow_asserts
    i32 = ir.Int(32)
    m, x = ir.Variable(i32, "f.r0.min"), ir.Variable(i32, "f.s0.xo")
    end = ir.Select(ir.GT(x, ir.Const(i32, 0)), ir.Sub(ir.Add(m, x), ir.Const(i32, 2)), m)
    assert len(overflow_asserts([end], "Func f")) == 1
    extent = ir.Variable(i32, "f.extent.0")
    assert overflow_asserts([ir.Sub(extent, ir.Const(i32, 1))], "Func f") == []
