"""The compiled entry of a repeated realize (pyhalide/realize_entry.py): a
recorded call without params runs as one native call, and every case it
does not handle (another array geometry, a min, an edited Func, a kernel
error, Buffers given, tracing) falls back to the Python paths with the same
result or error. Results are compared with NumPy, errors with those of the
same program on a Func that has no record."""
import re
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import pyhalide as ph
from pyhalide import realize_fast
from pyhalide.dispatch import available

pytestmark = pytest.mark.skipif(not available(), reason="no compiled entries in this process")


def _record(f):
    return f._solo_pipeline.__dict__["_fast"]()


@pytest.fixture
def python_calls(monkeypatch):
    """How many recorded calls ran through the Python PreparedCall (the
    entry missed or was not built), counted on every record made."""
    count = [0]
    made = realize_fast._Record.__init__

    def init(self, *a, **k):
        made(self, *a, **k)
        call = self.call

        def counted(*args):
            count[0] += 1
            return call(*args)
        self.call = counted
    monkeypatch.setattr(realize_fast._Record, "__init__", init)
    return count


def _scaled(src, k=3):
    x, y = ph.Var("x"), ph.Var("y")
    f = ph.Func("scaled")
    f[x, y] = src[x, y] * k + 1
    return f, x, y


def _want(a, k=3):
    return (a.astype(np.int64) * k + 1).astype(np.int32)


def _arr(h, w, seed=0):
    return np.random.default_rng(seed).integers(-1000, 1000, (h, w), dtype=np.int32)


def _thrice(f, sizes):
    """f realized three times (the second call records it, the third builds
    the entry)."""
    f.realize(sizes)
    f.realize(sizes)
    out = f.realize(sizes)
    assert _record(f).native
    return out


def test_the_native_call_sees_the_input_s_contents(python_calls):
    a = _arr(6, 9)
    f, _, _ = _scaled(ph.Buffer(a))
    assert np.array_equal(np.asarray(_thrice(f, [9, 6])), _want(a))
    n = python_calls[0]
    for seed in range(3):
        a[...] = _arr(6, 9, seed + 1)               # edited in place between calls
        out = f.realize([9, 6])
        assert type(out) is ph.Buffer and np.array_equal(np.asarray(out), _want(a))
    assert python_calls[0] == n                     # all three ran natively


def test_an_image_param_set_to_other_arrays(python_calls):
    img = ph.ImageParam(ph.Int(32), 2, "img")
    a = _arr(4, 7)
    img.set(a)
    f, _, _ = _scaled(img, 2)
    _thrice(f, [7, 4])
    n = python_calls[0]
    b = _arr(4, 7, 5)
    img.set(ph.Buffer(b))                            # same geometry: native
    assert np.array_equal(np.asarray(f.realize([7, 4])), _want(b, 2))
    assert python_calls[0] == n
    c = np.asfortranarray(_arr(4, 7, 6))             # other strides: the Python path
    img.set(c)
    assert np.array_equal(np.asarray(f.realize([7, 4])), _want(c, 2))
    d = _arr(5, 7, 7)                                # other shape
    img.set(d)
    assert np.array_equal(np.asarray(f.realize([7, 4])), _want(d[:4], 2))
    e = _arr(4, 7, 8).astype(np.int16)               # other dtype: the full path's error
    img.set(e)
    with pytest.raises(TypeError):
        f.realize([7, 4])


def test_a_shifted_input_and_a_misaligned_one():
    a = _arr(3, 10)
    buf = ph.Buffer(a)
    f, _, _ = _scaled(buf, 2)
    _thrice(f, [8, 3])
    buf.set_min([-2, 0])
    assert np.array_equal(np.asarray(f.realize([8, 3])), _want(a[:, 2:], 2))
    buf.set_min([0, 0])
    assert np.array_equal(np.asarray(f.realize([8, 3])), _want(a[:, :8], 2))
    raw = np.zeros(4 * 12 + 1, np.uint8)
    img = ph.ImageParam(ph.Int(32), 2, "img")
    img.set(raw[:48].view(np.int32).reshape(3, 4))
    g, _, _ = _scaled(img, 2)
    _thrice(g, [4, 3])
    img.set(raw[1:].view(np.int32).reshape(3, 4))
    with pytest.raises(ValueError, match="not aligned"):
        g.realize([4, 3])


def test_edits_between_native_calls_are_seen():
    a = _arr(8, 16)
    f, x, y = _scaled(ph.Buffer(a))
    _thrice(f, [16, 8])
    f.vectorize(x, 8).parallel(y)                    # rescheduled: compiled again
    assert np.array_equal(np.asarray(_thrice(f, [16, 8])), _want(a))
    f[x, y] = f[x, y] + x                            # an update added
    want = _want(a) + np.arange(16, dtype=np.int32)
    for _ in range(4):                               # full, record, build, native
        assert np.array_equal(np.asarray(f.realize([16, 8])), want)
    assert _record(f).native


def test_a_kernel_error_on_the_native_path_is_the_python_path_s():
    def build(buf):
        x = ph.Var("x")
        f = ph.Func("checked")
        f[x] = ph.require(buf[x] >= 0, buf[x] * 2, "negative input")
        return f
    a = np.arange(12, dtype=np.int32)
    f = build(ph.Buffer(a))
    assert np.array_equal(np.asarray(_thrice(f, [12])), a * 2)
    a[5] = -3
    with pytest.raises(RuntimeError) as got:
        f.realize([12])
    with pytest.raises(RuntimeError) as fresh:
        build(ph.Buffer(a.copy())).realize([12])
    assert str(got.value) == str(fresh.value)
    a[5] = 4
    assert np.array_equal(np.asarray(f.realize([12])), a * 2)


def test_buffers_given_and_several_outputs():
    a = _arr(3, 5)
    f, x, y = _scaled(ph.Buffer(a), 2)
    _thrice(f, [5, 3])
    out = ph.Buffer(ph.Int(32), [5, 3])
    f.realize(out)
    assert np.array_equal(np.asarray(out), _want(a, 2))
    g = ph.Func("g")
    g[x, y] = f[x, y] * 2.5
    p = ph.Pipeline([f, g])
    for _ in range(3):
        fo, go = p.realize([5, 3])
        assert np.array_equal(np.asarray(fo), _want(a, 2))
        assert np.array_equal(np.asarray(go), (_want(a, 2) * np.float32(2.5)))
    assert p.__dict__["_fast"]().native
    t = ph.Func("pair")
    t[x, y] = (f[x, y], f[x, y] - 1)
    for _ in range(3):
        r0, r1 = t.realize([5, 3])
        assert np.array_equal(np.asarray(r0), _want(a, 2))
        assert np.array_equal(np.asarray(r1), _want(a, 2) - 1)
    assert _record(t).native


def test_a_traced_func_prints_as_a_fresh_one(capsys):
    a = np.arange(4, dtype=np.int32)
    x = ph.Var("x")

    def build():
        f = ph.Func("traced")
        f[x] = ph.Buffer(a)[x] + 1
        return f
    f = build()
    _thrice(f, [4])
    capsys.readouterr()
    f.trace_stores()
    assert np.array_equal(np.asarray(f.realize([4])), a + 1)
    got = capsys.readouterr().out
    g = build()
    g.trace_stores()
    g.realize([4])
    fresh = re.sub(r"traced[_$]\d+", "traced", capsys.readouterr().out)   # (a unique name)
    assert "Store traced.0(3) = 4" in got and got == fresh


def test_threads_calling_the_native_entry_at_once():
    a = _arr(32, 64)
    f, x, y = _scaled(ph.Buffer(a))
    f.parallel(y)
    _thrice(f, [64, 32])
    with ThreadPoolExecutor(3) as pool:
        outs = list(pool.map(lambda _: np.asarray(f.realize([64, 32])), range(300)))
    want = _want(a)
    assert all(np.array_equal(o, want) for o in outs)


def test_params_are_passed_natively_and_checked(python_calls):
    a = _arr(4, 6)
    k = ph.Param(ph.Int(32), "k", 3)
    s = ph.Param(ph.Float(32), "s", 0.1)
    u = ph.Param(ph.UInt(8), "u", 7)
    x, y = ph.Var("x"), ph.Var("y")
    f = ph.Func("mixed")
    f[x, y] = ph.f32(ph.Buffer(a)[x, y] * k + ph.i32(u)) * s

    def want():
        i = (a.astype(np.int64) * k.get() + u.get()).astype(np.int32)
        with np.errstate(over="ignore"):                # (1e39 rounds to inf)
            return i.astype(np.float32) * np.float32(s.get())
    _thrice(f, [6, 4])
    n = python_calls[0]
    for kv, sv, uv in ((5, 0.3, 255), (-2147483648, 1e-3, 0), (2147483647, 1e39, 1)):
        k.set(kv)
        s.set(sv)
        u.set(uv)
        assert np.array_equal(np.asarray(f.realize([6, 4])), want())
    assert python_calls[0] == n                     # all ran natively
    for bad in (2147483648, -2147483649):           # out of range: the Python path's error
        k._value = bad
        with pytest.raises(TypeError, match="does not fit"):
            f.realize([6, 4])
    k._value = True                                 # a bool: the Python path
    assert np.array_equal(np.asarray(f.realize([6, 4])), want())
    k.set(4)
    s._value = 2                                    # an int for a float param
    assert np.array_equal(np.asarray(f.realize([6, 4])), want())
    s.set(0.7)
    assert np.array_equal(np.asarray(f.realize([6, 4])), want())


def test_the_entry_is_built_from_the_main_thread_only():
    a = _arr(2, 3)
    f, _, _ = _scaled(ph.Buffer(a))
    f.realize([3, 2])
    f.realize([3, 2])
    with ThreadPoolExecutor(1) as pool:               # a first reuse in another thread
        out = pool.submit(lambda: np.asarray(f.realize([3, 2]))).result()
    assert np.array_equal(out, _want(a)) and _record(f).native is False
    assert np.array_equal(np.asarray(f.realize([3, 2])), _want(a))
    assert _record(f).native
    a[0, 0] = 77
    assert np.array_equal(np.asarray(f.realize([3, 2])), _want(a))
