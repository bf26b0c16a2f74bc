"""The copy a ShiftInwards split makes for regions smaller than one chunk
(`if (f.rD.extent >= k) {...} else {copy}`, loop_synthesis) is compiled as a
cold function of its own, which LLVM does not optimize (codegen_llvm
_emit_cold: optnone), when the test is outside every loop of its function;
the copies tested inside a loop (a Func computed per tile) stay in their
function. Results equal NumPy on both sides of every factor, and an error
raised inside the cold copy reaches the caller."""
import re

import numpy as np
import pytest

import pyhalide as ph


def _tiled(check_index=False):
    a = ph.ImageParam(ph.Float(32), 2, "a")
    b = ph.ImageParam(ph.Int(32), 2, "b")
    x, y, yo, yi = ph.Var("x"), ph.Var("y"), ph.Var("yo"), ph.Var("yi")
    g, f = ph.Func("g"), ph.Func("f")
    g[x, y] = a[x, y] * 2 + a[x + 1, y]
    value = g[x, y] + g[x, y + 1]
    if check_index:
        value = value + a[b[x, y], y]
    f[x, y] = value
    f.split(y, yo, yi, 8).parallel(yo).vectorize(x, 16)
    g.compute_at(f, yo).vectorize(x, 16)
    return f, a, b


def _functions(text):
    """{function name: attribute text} of the defined functions."""
    out = {}
    for line in text.split("\n"):
        m = re.match(r'define [^@]*@"([^"]+)"\(.*\)\s*(.*)$', line)
        if m:
            out[m.group(1)] = m.group(2)
    return out


def _entry(fns):
    (entry,) = [n for n in fns if "." not in n]
    return entry


def _expected(A):
    g = A[:, :-1] * np.float32(2) + A[:, 1:]
    return g[:-1] + g[1:]


def test_small_extent_copy_is_a_cold_function():
    f, _, _ = _tiled()
    fns = _functions(ph.Pipeline([f]).lower("llvm"))
    cold = {n for n, attrs in fns.items() if "optnone" in attrs}
    hot = set(fns) - cold
    # the copy for fewer than 8 rows, and the parallel loop inside it
    assert any(".cold" in n for n in cold), fns
    assert any(".par" in n for n in cold), fns
    # the entry, its body and the whole-tile parallel loop are optimized
    entry = _entry(fns)
    assert entry in hot and f"{entry}.body" in hot
    assert any(".par" in n for n in hot), fns
    for n in cold:
        assert "noinline" in fns[n] and "cold" in fns[n]


@pytest.mark.parametrize("h", [1, 7, 8, 9, 23])
@pytest.mark.parametrize("w", [1, 15, 16, 37])
def test_results_on_both_sides_of_the_factors(w, h):
    f, a, _ = _tiled()
    A = np.random.default_rng(w * 100 + h).random((h + 1, w + 1), dtype=np.float32)
    a.set(ph.Buffer(A))
    got = np.asarray(f.realize([w, h]))
    np.testing.assert_array_equal(got, _expected(A))


@pytest.mark.parametrize("h", [3, 20])
def test_errors_inside_the_cold_copy_reach_the_caller(h):
    f, a, b = _tiled(check_index=True)
    w = 20
    A = np.random.default_rng(h).random((h + 1, w + 1), dtype=np.float32)
    B = np.zeros((h, w), np.int32)
    a.set(ph.Buffer(A))
    b.set(ph.Buffer(B))
    got = np.asarray(f.realize([w, h]))
    np.testing.assert_array_equal(got, _expected(A) + A[:h, :1])
    B[h - 1, 3] = 50
    b.set(ph.Buffer(B))
    with pytest.raises(IndexError, match="read at index 50"):
        f.realize([w, h])


def test_copies_inside_loops_stay_in_their_function():
    """g's own small-extent copy is tested per tile (inside f's loop): it is
    not outlined, so the only cold functions are f's copy and its task."""
    f, _, _ = _tiled()
    fns = _functions(ph.Pipeline([f]).lower("llvm"))
    cold = {n for n, attrs in fns.items() if "optnone" in attrs}
    entry = _entry(fns)
    assert cold == {f"{entry}.{part}" for part in ("cold1", "cold1.body", "par2", "par2.body")}
