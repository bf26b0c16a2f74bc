"""schedule="auto" / "auto-exact" on @pipeline functions (issue 18): results
equal the plain Python loop (integers exactly, argmin's first index
exactly), reductions with too little pure parallelism are rfactored, one
schedule per size class, the schedule printed as Python, and a step the
scheduler cannot take is undone (never a failure where the default
schedule works)."""
import numpy as np
import pytest

import pyhalide as ph
from pyhalide.ir.config import override

N = 1 << 18          # reductions of at least MIN_REDUCTION points are rfactored


def max_reduction(a):
    m = np.int32(-2 ** 31)
    for i in range(len(a)):
        m = max(m, a[i])
    return m


def histogram(img):
    hist = np.zeros(256, np.int32)
    for y in range(img.shape[0]):
        for x in range(img.shape[1]):
            hist[img[y, x]] += 1
    return hist


def argmin2d(a):
    best = np.int8(127)
    bi = bj = 0
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            if a[i, j] < best:
                best = a[i, j]
                bi, bj = i, j
    return best, bi, bj


def kitchen(a):
    s = np.int32(0)
    mn = np.int32(2 ** 31 - 1)
    amax = 0
    mx = np.int32(-2 ** 31)
    for i in range(len(a)):
        s += a[i]
        mn = min(mn, a[i])
        if a[i] > mx:
            amax = i
        mx = max(mx, a[i])
    return s, mn, amax, mx


def dot(a, b):
    s = np.float32(0)
    for i in range(len(a)):
        s += a[i] * b[i]
    return s


def _rng():
    return np.random.default_rng(7)


CASES = [
    (max_reduction, lambda r: (r.integers(-2 ** 31, 2 ** 31 - 1, N, dtype=np.int32),)),
    (histogram, lambda r: (r.integers(0, 256, (512, 512), dtype=np.uint8),)),
    # values in a small range: many ties, the first index must win
    (argmin2d, lambda r: (r.integers(-3, 3, (512, 512), dtype=np.int8),)),
    (kitchen, lambda r: (r.integers(-50, 50, N, dtype=np.int32),)),
]


@pytest.mark.parametrize("fn,make", CASES, ids=[c[0].__name__ for c in CASES])
def test_integer_reductions_are_rfactored_and_exact(fn, make):
    args = make(_rng())
    p = ph.pipeline(fn, schedule="auto")
    got = p(*args)
    with np.errstate(over="ignore"):
        expect = fn(*args)
    if isinstance(expect, tuple):
        assert tuple(map(int, got)) == tuple(map(int, expect))
    else:
        assert np.array_equal(np.asarray(got), np.asarray(expect))
    src = p.schedule_source()
    assert ".rfactor(" in src and ".parallel(" in src, src
    assert p.applied_schedule == "auto (auto)"


def test_float_sum_is_reassociated_only_under_auto():
    r = _rng()
    a, b = r.random(N, dtype=np.float32), r.random(N, dtype=np.float32)
    serial = ph.pipeline(dot, schedule="serial")(a, b)
    auto = ph.pipeline(dot, schedule="auto")
    assert abs(float(auto(a, b)) - float(np.dot(a.astype(np.float64), b))) < 1e-3 * N
    assert ".rfactor(" in auto.schedule_source()
    exact = ph.pipeline(dot, schedule="auto-exact")
    assert exact(a, b).tobytes() == serial.tobytes()
    src = exact.schedule_source()
    assert ".rfactor(" not in src and "float reassociation is off" in src


def test_float_result_does_not_depend_on_the_thread_count():
    r = _rng()
    a, b = r.random(N, dtype=np.float32), r.random(N, dtype=np.float32)
    results = []
    for threads in (1, 2, 7):
        with override(num_threads=threads):
            results.append(ph.pipeline(dot, schedule="auto")(a, b).tobytes())
    assert len(set(results)) == 1


def test_one_schedule_per_size_class():
    p = ph.pipeline(max_reduction, schedule="auto")
    r = _rng()
    a = r.integers(-100, 100, N, dtype=np.int32)
    assert p(a) == a.max()
    first = p.last_specialization
    b = r.integers(-100, 100, N + 1000, dtype=np.int32)      # same class: 2**18 <= n < 2**19
    assert p(b) == b.max()
    assert p.last_specialization is first
    c = r.integers(-100, 100, 4 * N, dtype=np.int32)
    assert p(c) == c.max()
    assert p.last_specialization is not first
    assert "chunks of 8192" in first.schedule_info.auto.source
    assert "chunks of 32768" in p.schedule_source()
    assert p(a) == a.max() and p.last_specialization is first    # the class is cached


def test_small_reduction_and_ample_pure_parallelism_are_not_rfactored():
    def column_sums(a):
        out = np.zeros(a.shape[1], np.int64)
        for i in range(a.shape[0]):
            for j in range(a.shape[1]):
                out[j] += a[i, j]
        return out

    a = _rng().integers(0, 9, (64, 4096), dtype=np.int64)
    p = ph.pipeline(column_sums, schedule="auto")
    assert np.array_equal(p(a), a.sum(axis=0))
    assert ".rfactor(" not in p.schedule_source()
    small = ph.pipeline(max_reduction, schedule="auto")
    x = np.arange(100, dtype=np.int32)
    assert small(x) == 99
    assert "kept serial" in small.schedule_source()


def test_pure_stage_parallel_and_vectorized():
    def affine(a):
        out = np.empty_like(a)
        for y in range(a.shape[0]):
            for x in range(a.shape[1]):
                out[y, x] = a[y, x] * 3 + 1
        return out

    a = _rng().integers(-1000, 1000, (1024, 512), dtype=np.int32)
    p = ph.pipeline(affine, schedule="auto")
    assert np.array_equal(p(a), a * 3 + 1)
    src = p.schedule_source()
    assert ".vectorize(" in src and ".parallel(" in src, src


def test_python_int_accumulator_keeps_its_overflow_error():
    def total(a):
        s = 0
        for i in range(len(a)):
            s += int(a[i])
        return s

    a = np.full(N, 2 ** 62, np.int64)
    a[N // 2:] = -2 ** 62      # partial sums of chunks leave int64 only in serial order
    p = ph.pipeline(total, schedule="auto")
    with pytest.raises(OverflowError):
        ph.pipeline(total, schedule="serial")(a)
    with pytest.raises(OverflowError):
        p(a)
    b = np.resize(np.array([2 ** 62, -2 ** 62], np.int64), N)
    assert p(b) == 0
    assert ".rfactor(" not in p.schedule_source()


def test_debug_says_why(capsys):
    with override(debug=1):
        ph.pipeline(histogram, schedule="auto")(np.zeros((512, 512), np.uint8))
    err = capsys.readouterr().err
    assert "autoschedule histogram: hist: 1 pure point < 8x" in err
    assert "rfactor over y in chunks of" in err


def test_side_file_may_say_auto(tmp_path):
    side = tmp_path / "generic.py"
    side.write_text('max_reduction = "auto"\n')
    p = ph.pipeline(max_reduction, schedule=str(side))
    a = _rng().integers(-100, 100, N, dtype=np.int32)
    assert p(a) == a.max()
    assert ".rfactor(" in p.schedule_source()


def test_schedule_source_is_a_schedule_that_runs():
    img = _rng().integers(0, 256, (512, 512), dtype=np.uint8)
    p = ph.pipeline(histogram, schedule="auto")
    expect = p(img)
    namespace = {}
    exec(p.schedule_source(), namespace)
    q = ph.pipeline(histogram, schedule=namespace["histogram"])
    assert np.array_equal(q(img), expect)
    assert np.array_equal(expect, np.bincount(img.ravel(), minlength=256))


def test_schedule_source_without_an_automatic_schedule_says_how():
    p = ph.pipeline(max_reduction)
    p(np.arange(4, dtype=np.int32))
    with pytest.raises(ValueError, match='schedule="auto"'):
        p.schedule_source()


def blur(img):
    H, W = img.shape
    blur_x = np.empty((H, W - 2), np.uint16)
    for y in range(H):
        for x in range(W - 2):
            blur_x[y, x] = (img[y, x] + img[y, x + 1] + img[y, x + 2]) // 3
    blur_y = np.empty((H - 2, W - 2), np.uint16)
    for y in range(H - 2):
        for x in range(W - 2):
            blur_y[y, x] = (blur_x[y, x] + blur_x[y + 1, x] + blur_x[y + 2, x]) // 3
    return blur_y


def test_stencil_chain_producer_computed_per_strip():
    img = _rng().integers(0, 2 ** 16, (1100, 1100), dtype=np.uint16)
    p = ph.pipeline(blur, schedule="auto")
    got = p(img)
    with np.errstate(over="ignore"):
        bx = (img[:, :-2] + img[:, 1:-1] + img[:, 2:]) // 3
        expect = (bx[:-2] + bx[1:-1] + bx[2:]) // 3
    assert np.array_equal(got, expect)
    src = p.schedule_source()
    assert "blur_x.compute_at(blur_y, blur_y_yo)" in src and ".parallel(blur_y_yo)" in src, src
    small = img[:7, :9]                      # fewer rows than a strip: still exact
    with np.errstate(over="ignore"):
        assert np.array_equal(p(small), blur(small))
