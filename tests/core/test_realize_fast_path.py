"""A repeated realize of an unchanged pipeline takes its recorded call
(pyhalide/realize_fast.py); every change a check depends on sends the call
back through the full path: a new Buffer or array, another shape, strides,
dtype or alignment, a min, new sizes or Param values, a Func redefined or
rescheduled, memoize, a Pipeline requirement. Each result is compared with
NumPy, and each error with the one the same program raises on a Func that
has no record."""
import threading

import numpy as np
import pytest

import pyhalide as ph
from pyhalide import realize
from pyhalide.expr import to_node


@pytest.fixture
def full_calls(monkeypatch):
    """How many realizes took the full path (Pipeline._bound)."""
    count = [0]
    bound = realize.Pipeline._bound

    def counted(self, *a):
        count[0] += 1
        return bound(self, *a)
    monkeypatch.setattr(realize.Pipeline, "_bound", counted)
    return count


def _scaled(img, k):
    """f[x, y] = img[x, y] * k + 1 (int32)."""
    x, y = ph.Var("x"), ph.Var("y")
    f = ph.Func("scaled")
    f[x, y] = img[x, y] * k + 1
    return f


def _want(arr, k):
    return (arr.astype(np.int64) * k + 1).astype(np.int32)


def _recorded(f, sizes):
    """f realized twice over `sizes` (the second call records it)."""
    f.realize(sizes)
    out = f.realize(sizes)
    assert f._solo_pipeline.__dict__["_fast"]() is not None
    return out


def _arr(h, w, seed=0):
    return np.random.default_rng(seed).integers(-1000, 1000, (h, w), dtype=np.int32)


def test_a_repeated_realize_takes_the_recorded_call(full_calls):
    a = _arr(5, 8)
    img = ph.ImageParam(ph.Int(32), 2, "img")
    img.set(a)
    k = ph.Param(ph.Int(32), "k", 3)
    f = _scaled(img, k)
    assert np.array_equal(np.asarray(_recorded(f, [8, 5])), _want(a, 3))
    n = full_calls[0]
    outs = [np.asarray(f.realize([8, 5])) for _ in range(3)]
    assert full_calls[0] == n
    for o in outs:
        assert np.array_equal(o, _want(a, 3))
    assert len({id(o) for o in outs}) == 3 and not np.shares_memory(outs[0], outs[1])
    a[2, 3] = 77                                      # new values, same array
    assert np.asarray(f.realize(8, 5))[2, 3] == 77 * 3 + 1
    assert full_calls[0] == n


def test_a_new_buffer_shape_strides_or_sizes_are_checked_again(full_calls):
    img = ph.ImageParam(ph.Int(32), 2, "img")
    img.set(_arr(5, 8))
    f = _scaled(img, 2)
    _recorded(f, [8, 5])
    n = full_calls[0]
    b = _arr(5, 8, 1)                                 # another array, same geometry
    img.set(b)
    assert np.array_equal(np.asarray(f.realize([8, 5])), _want(b, 2))
    assert full_calls[0] == n
    c = _arr(7, 9, 2)                                 # a larger one, realized over more
    img.set(c)
    assert np.array_equal(np.asarray(f.realize([9, 7])), _want(c, 2))
    assert full_calls[0] == n + 1
    d = _arr(10, 20, 3)[::2, ::2]                     # strided
    img.set(d)
    assert np.array_equal(np.asarray(f.realize([9, 5])), _want(d[:, :9], 2))
    assert full_calls[0] == n + 2
    img.set(_arr(2, 2))                               # too small: the full path's error
    with pytest.raises(ValueError, match="covers only"):
        f.realize([9, 5])


def test_a_buffer_reshaped_or_retyped_in_place():
    a = _arr(4, 6)
    f = _scaled(ph.Buffer(a), 5)
    _recorded(f, [6, 4])
    a.shape = (6, 4)                                  # the same memory, other geometry
    assert np.array_equal(np.asarray(f.realize([4, 6])), _want(a, 5))
    with pytest.raises(ValueError, match="covers only"):
        f.realize([6, 4])
    a.shape = (4, 6)
    _recorded(f, [6, 4])
    a.dtype = np.uint32                               # same item size, other dtype
    with pytest.raises(TypeError, match="dtype uint32"):
        f.realize([6, 4])


def test_a_misaligned_array_of_the_same_geometry_is_refused():
    raw = np.zeros(4 * 12 + 1, np.uint8)
    img = ph.ImageParam(ph.Int(32), 2, "img")
    img.set(raw[:48].view(np.int32).reshape(3, 4))
    f = _scaled(img, 2)
    _recorded(f, [4, 3])
    img.set(raw[1:].view(np.int32).reshape(3, 4))
    assert not np.asarray(img.get()).flags.aligned
    with pytest.raises(ValueError, match="not aligned"):
        f.realize([4, 3])


def test_an_input_min_takes_the_shifted_path():
    a = _arr(3, 10)
    buf = ph.Buffer(a)
    img = ph.ImageParam(ph.Int(32), 2, "img")
    img.set(buf)
    f = _scaled(img, 2)
    _recorded(f, [8, 3])
    buf.set_min([-2, 0])                              # img[x, y] is a[y, x + 2]
    assert np.array_equal(np.asarray(f.realize([8, 3])), _want(a[:, 2:], 2))
    buf.set_min([0, 0])
    assert np.array_equal(np.asarray(f.realize([8, 3])), _want(a[:, :8], 2))


def test_new_param_values_are_read_and_checked(full_calls):
    a = _arr(3, 4)
    k = ph.Param(ph.Int(32), "k", 2)
    f = _scaled(ph.Buffer(a), k)
    _recorded(f, [4, 3])
    n = full_calls[0]
    for v in (7, -3, np.int32(11)):
        k.set(v)
        assert np.array_equal(np.asarray(f.realize([4, 3])), _want(a, int(v)))
    assert full_calls[0] == n
    k._value = 2 ** 40                    # (past Param.set's check) the kernel's own check
    with pytest.raises(TypeError, match="does not fit"):
        f.realize([4, 3])


def test_a_redefined_or_rescheduled_func_is_compiled_again(full_calls):
    a = _arr(4, 16)
    f = _scaled(ph.Buffer(a), 3)
    _recorded(f, [16, 4])
    x, y = f.args()
    f[x, y] = f[x, y] - 1                              # an update definition
    assert np.array_equal(np.asarray(f.realize([16, 4])), _want(a, 3) - 1)
    _recorded(f, [16, 4])
    n = full_calls[0]
    f.vectorize(x, 8).parallel(y)                      # a schedule
    assert np.array_equal(np.asarray(f.realize([16, 4])), _want(a, 3) - 1)
    assert full_calls[0] == n + 1


def test_memoize_and_bounds_added_after_the_record():
    a = _arr(4, 8)
    f = _scaled(ph.Buffer(a), 3)
    _recorded(f, [8, 4])
    f.bound(f.args()[0], 0, 4)
    with pytest.raises(ph.HalideError, match="do not cover"):
        f.realize([8, 4])
    g = _scaled(ph.Buffer(a), 3)
    _recorded(g, [8, 4])
    g.memoize()
    with pytest.raises(ph.CompileError, match="memoized"):
        g.realize([8, 4])


def test_a_pipeline_requirement_is_evaluated_at_each_call():
    a = _arr(2, 4)
    k = ph.Param(ph.Int(32), "k", 1)
    f = _scaled(ph.Buffer(a), k)
    p = ph.Pipeline([f])
    p.add_requirement(k > 0, "k must be positive")
    p.realize([4, 2])
    assert np.array_equal(np.asarray(p.realize([4, 2])), _want(a, 1))
    assert p.__dict__["_fast"]() is not None
    k.set(-1)
    with pytest.raises(ph.HalideError, match="Requirement Failed"):
        p.realize([4, 2])


def test_a_pipeline_of_two_outputs(full_calls):
    a = _arr(3, 5)
    f = _scaled(ph.Buffer(a), 2)
    x, y = ph.Var("x"), ph.Var("y")
    g = ph.Func("g")
    g[x, y] = f[x, y] * 2.5
    p = ph.Pipeline([f, g])
    p.realize([5, 3])
    p.realize([5, 3])
    n = full_calls[0]
    fo, go = p.realize([5, 3])
    assert full_calls[0] == n
    assert np.array_equal(np.asarray(fo), _want(a, 2))
    assert np.array_equal(np.asarray(go), (_want(a, 2) * np.float32(2.5)).astype(np.float32))


def test_threads_realizing_one_func_at_once():
    a = _arr(16, 64)
    k = ph.Param(ph.Int(32), "k", 3)
    f = _scaled(ph.Buffer(a), k)
    _recorded(f, [64, 16])
    want = _want(a, 3)
    bad = []

    def work():
        for _ in range(200):
            if not np.array_equal(np.asarray(f.realize([64, 16])), want):
                bad.append(1)
    ts = [threading.Thread(target=work) for _ in range(3)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert not bad


def _two_stage(a):
    """g[x, y] = a * 2; f[x, y] = g[x, y] + g[x, y + 1] over a 2-D input
    (clamped), for schedule edits the recorded call must see."""
    x, y = ph.Var("x"), ph.Var("y")
    src = ph.BoundaryConditions.repeat_edge(ph.Buffer(a))
    g = ph.Func("g")
    g[x, y] = src[x, y] * 2
    f = ph.Func("f")
    f[x, y] = g[x, y] + g[x, y + 1]
    return f, g, x, y


def _two_stage_want(a):
    g = a.astype(np.int64) * 2
    below = np.concatenate([g[1:], g[-1:]])
    return (g + below).astype(np.int32)


def test_each_schedule_edit_after_the_record_takes_the_full_path(full_calls):
    # the recorded call compares each Function's schedule objects by identity
    # and the lists schedules edit in place by equality: every edit is seen
    a = _arr(6, 16)
    f, g, x, y = _two_stage(a)
    want = _two_stage_want(a)
    xo, xi = ph.Var("xo"), ph.Var("xi")
    edits = [lambda: g.compute_root(), lambda: f.split(x, xo, xi, 4),
             lambda: f.reorder(y, xo), lambda: f.vectorize(xi), lambda: f.unroll(y, 2),
             lambda: g.compute_at(f, y), lambda: g.compute_inline()]
    for edit in edits:
        _recorded(f, [16, 6])
        n = full_calls[0]
        edit()
        assert np.array_equal(np.asarray(f.realize([16, 6])), want)
        assert full_calls[0] == n + 1
        assert np.array_equal(np.asarray(f.realize([16, 6])), want)


def test_a_predicate_added_in_place_is_seen():
    a = _arr(1, 10)[0]
    r = ph.RDom([(0, 10)], "r")
    f = ph.Func("total")
    f[()] = 0
    f[()] = f[()] + ph.Buffer(a)[r.x]
    _recorded(f, [])
    upd = f._function.updates[0]
    upd.predicates.append(to_node(r.x < 5))
    assert int(np.asarray(f.realize([]))) == int(a[:5].sum())


def test_an_equal_schedule_object_put_in_place_keeps_the_record(full_calls):
    # the flat walk fails on the new object; the versions (by equality)
    # still match, so the call is reused and the walk's snapshot renewed
    import dataclasses
    a = _arr(4, 8)
    f = _scaled(ph.Buffer(a), 3)
    _recorded(f, [8, 4])
    n = full_calls[0]
    fn = f._function
    fn.schedule = dataclasses.replace(fn.schedule)
    fn.pure.schedule = dataclasses.replace(fn.pure.schedule, dims=list(fn.pure.schedule.dims))
    for _ in range(2):
        assert np.array_equal(np.asarray(f.realize([8, 4])), _want(a, 3))
    assert full_calls[0] == n


def test_sizes_as_a_tuple_and_as_numpy_integers(full_calls):
    a = _arr(4, 8)
    f = _scaled(ph.Buffer(a), 3)
    _recorded(f, [8, 4])
    n = full_calls[0]
    assert np.array_equal(np.asarray(f.realize((8, 4))), _want(a, 3))
    assert np.array_equal(np.asarray(f.realize(8, 4)), _want(a, 3))
    assert full_calls[0] == n
    assert np.array_equal(np.asarray(f.realize((np.int64(8), np.int64(4)))), _want(a, 3))
    assert full_calls[0] == n + 1


def test_sizes_as_a_list_of_numpy_integers_take_the_full_path(full_calls):
    a = _arr(4, 8)
    f = _scaled(ph.Buffer(a), 3)
    _recorded(f, [8, 4])
    n = full_calls[0]
    assert np.array_equal(np.asarray(f.realize([np.int32(8), 4])), _want(a, 3))
    assert full_calls[0] == n + 1
    with pytest.raises(ValueError, match="size"):
        f.realize([8])
