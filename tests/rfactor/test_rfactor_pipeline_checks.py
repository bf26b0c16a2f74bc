"""rfactor of @pipeline scatters whose index Python checks (issue 11 items 2
and 8): the index checks do not block the associativity match (they are on
the index, not the operator), the rfactored pipeline returns what Python
returns, and raises IndexError wherever Python raises, under every schedule
reachable through p.funcs."""
import os
import random

import numpy as np
import pytest

import pyhalide as ph


def hist100(img):
    hist = np.zeros(100, np.int32)
    for y in range(img.shape[0]):
        for x in range(img.shape[1]):
            hist[img[y, x]] += 1
    return hist


def hist_clamped(img):
    hist = np.zeros(100, np.int32)
    for y in range(img.shape[0]):
        for x in range(img.shape[1]):
            hist[min(max(img[y, x], 0), 99)] += 1
    return hist


def weighted(a, w):
    h = np.zeros(50, np.int64)
    for i in range(a.shape[0]):
        h[a[i]] += w[i]
    return h


def count_and_last(img):
    cnt = np.zeros(40, np.int32)
    last = np.zeros(40, np.int32)
    for y in range(img.shape[0]):
        for x in range(img.shape[1]):
            k = img[y, x]
            cnt[k] += 1
            last[k] = max(last[k], x)
    return cnt, last


def guarded_gather(a, idx):
    b = np.zeros(a.shape[0], np.int64)
    for j in range(a.shape[0]):
        b[j] = a[j] * 2
    h = np.zeros(4, np.int64)
    for i in range(idx.shape[0]):
        h[i % 4] += a[idx[i]] + b[idx[i]] if idx[i] < a.shape[0] else 0
    return h


def scaled(a):
    h = np.zeros(50, np.int32)
    for i in range(a.shape[0]):
        h[a[i]] = h[a[i]] * 3 + 1
    return h


# ---- schedules ----------------------------------------------------------------------
def by_rows(p):
    u = ph.Var("u")
    p.funcs["hist"].update(0).rfactor(p.vars["y"], u).compute_root().update(0).parallel(u)


def by_rows_vectorized(p):
    u = ph.Var("u")
    intm = p.funcs["hist"].update(0).rfactor(p.vars["y"], u)
    intm.compute_root().vectorize(u, 4)


def twice(p):
    u, v = ph.Var("u"), ph.Var("v")
    intm = p.funcs["hist"].update(0).rfactor(p.vars["y"], u)
    intm.update(0).rfactor(p.vars["x"], v)


def by_blocks(name, var="i"):
    def schedule(p):
        f = p.funcs[name]
        io, ii = ph.RVar("io"), ph.RVar("ii")
        f.update(0).split(p.vars[var], io, ii, 8)
        f.update(0).rfactor(io, ph.Var("u")).compute_root().update(0).parallel(ph.Var("u"))
    return schedule


def both_by_rows(p):
    p.funcs["cnt"].update(0).rfactor(p.vars["cnt", "y"], ph.Var("u"))
    p.funcs["last"].update(0).rfactor(p.vars["last", "y"], ph.Var("v"))


def _same_as_python(p, fn, *args):
    try:
        want = fn(*[a.copy() for a in args])
    except IndexError:
        with pytest.raises(IndexError):
            p(*args)
        return False
    got = p(*args)
    if isinstance(want, tuple):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w)
    else:
        np.testing.assert_array_equal(got, want)
    return True


@pytest.mark.parametrize("schedule", [by_rows, by_rows_vectorized, twice],
                         ids=lambda s: s.__name__)
@pytest.mark.parametrize("dtype", [np.uint8, np.int32])
def test_histogram_with_fewer_bins_than_the_data_range(schedule, dtype):
    p = ph.pipeline(hist100, schedule=schedule)
    rng = np.random.default_rng(21)
    img = rng.integers(0, 100, (9, 13)).astype(dtype)
    assert _same_as_python(p, hist100, img)
    img[4, 7] = 217
    assert not _same_as_python(p, hist100, img)
    if dtype == np.int32:
        img[4, 7] = -3                           # Python counts it in bin 97
        assert _same_as_python(p, hist100, img)
        img[4, 7] = -101
        assert not _same_as_python(p, hist100, img)


def test_clamped_int32_histogram():
    # the case: 100 bins over int32 values clamped to [0, 99]
    p = ph.pipeline(hist_clamped, schedule=by_rows)
    img = np.random.default_rng(22).integers(-50, 150, (11, 7)).astype(np.int32)
    assert _same_as_python(p, hist_clamped, img)


def test_negative_indices_and_weights():
    p = ph.pipeline(weighted, schedule=by_blocks("h"))
    rng = np.random.default_rng(23)
    a = rng.integers(-50, 50, 200).astype(np.int32)
    w = rng.integers(-9, 9, 200).astype(np.int64)
    assert _same_as_python(p, weighted, a, w)
    for value in (50, -51, 2 ** 31 - 1):
        bad = a.copy()
        bad[123] = value
        assert not _same_as_python(p, weighted, bad, w)


def test_two_scatters_one_with_python_max():
    # `max(last[k], x)` reads last[k] under a check in both of its branches
    p = ph.pipeline(count_and_last, schedule=both_by_rows)
    img = np.random.default_rng(24).integers(0, 40, (8, 11)).astype(np.uint8)
    assert _same_as_python(p, count_and_last, img)
    img[7, 10] = 40
    assert not _same_as_python(p, count_and_last, img)


def test_a_check_in_a_branch_python_skips_stays_there():
    # the reads of a and b at idx[i] are checked only where idx[i] < len(a)
    p = ph.pipeline(guarded_gather, schedule=by_blocks("h"))
    a = np.arange(10, dtype=np.int64) * 3
    idx = np.random.default_rng(25).integers(0, 10, 50).astype(np.int32)
    idx[::7] = 1000                              # never read: the branch is not taken
    assert _same_as_python(p, guarded_gather, a, idx)
    idx[3] = -11
    assert not _same_as_python(p, guarded_gather, a, idx)


def test_refusal_names_the_update_and_no_internal_names():
    p = ph.pipeline(scaled, schedule=by_blocks("h"))
    with pytest.raises(ph.CompileError) as e:
        p(np.arange(30, dtype=np.int32))
    msg = str(e.value)
    assert "__pyhalide" not in msg and "likely" not in msg
    assert "not provably associative" in msg
    assert "h[a[i]] = h[a[i]] * 3 + 1" in msg and "the update is at" in msg


def test_random_data_with_and_without_out_of_range_indices():
    """The seed is printed (PYHALIDE_TEST_SEED repeats it)."""
    seed = int(os.environ.get("PYHALIDE_TEST_SEED", random.randrange(1 << 30)))
    print(f"test_random_data_with_and_without_out_of_range_indices: PYHALIDE_TEST_SEED={seed}")
    rng = np.random.default_rng(seed)
    serial, factored = ph.pipeline(weighted), ph.pipeline(weighted, schedule=by_blocks("h"))
    for round_ in range(20):
        n = int(rng.integers(1, 100))
        a = rng.integers(-50, 50, n).astype(np.int32)
        w = rng.integers(-9, 9, n).astype(np.int64)
        if rng.random() < 0.5:
            a[rng.integers(0, n)] = rng.choice([50, -51, int(rng.integers(51, 1 << 20))])
        what = f"seed {seed}, round {round_}"
        try:
            want = weighted(a, w)
        except IndexError:
            for p in (serial, factored):
                with pytest.raises(IndexError):
                    p(a, w)
            continue
        for p in (serial, factored):
            np.testing.assert_array_equal(p(a, w), want, err_msg=what)


def test_strip_sets_aside_eager_checks_and_keeps_lazy_ones():
    from pyhalide import checks, ir
    i32 = ir.Int(32)
    x, k = ir.Variable(i32, "x"), ir.Variable(i32, "k")

    def read(n):
        img = ph.ImageParam(ph.UInt(8), 1, checks.image_name(n))
        idx = ir.Call(ir.INDEX, "likely", (ir.Select(ir.LT(k, ir.const(i32, n)), ir.index(0),
                                                     ir.index(1)),), ir.INTRINSIC)
        return img[ph.Expr.wrap(idx)].node

    a, b = read(50), read(60)
    eager = checks.guarded(a, ir.Add(x, ir.const(i32, 1)))
    # b's check is only in a lazy branch; a's is eager and repeated in the other branch
    lazy = ir.lazy_select(ir.LT(k, x), checks.guarded(b, x), checks.guarded(a, k))
    (v0, v1), found = checks.strip([eager, lazy])
    assert len(found) == 1 and ir.equal(found[0], ir.NE(a, ir.Const(a.type, 0)))
    assert ir.equal(v0, ir.Add(x, ir.const(i32, 1)))
    assert ir.is_lazy_select(v1) and ir.equal(v1.args[1], checks.guarded(b, x))
    assert ir.equal(v1.args[2], k)
    # without a check left in its branches, the lazy select evaluates like a select
    stripped, _ = checks.strip([eager, ir.lazy_select(ir.LT(k, x), x, checks.guarded(a, k))])
    assert isinstance(stripped[1], ir.Select) and ir.equal(stripped[1].false_value, k)
    assert ir.equal(checks.apply(found, v0), eager)


def doubled_where(a, idx):
    b = np.zeros(a.shape[0], np.int64)
    for j in range(a.shape[0]):
        b[j] = a[j] + 1
    h = np.zeros(4, np.int64)
    for i in range(idx.shape[0]):
        h[i % 4] = h[i % 4] * 2 + a[idx[i]] + b[idx[i]] if idx[i] < 5 else h[i % 4]
    return h


def test_refusal_shows_lazy_checks_in_user_terms():
    p = ph.pipeline(doubled_where, schedule=by_blocks("h"))
    with pytest.raises(ph.CompileError) as e:
        p(np.arange(10, dtype=np.int64), np.arange(30, dtype=np.int32) % 7)
    msg = str(e.value)
    assert "not provably associative" in msg and "the update is at" in msg
    assert "__pyhalide" not in msg and "likely" not in msg, msg
