"""Written arguments computed in the caller's array (frontend_ast/
in_place_args.py, lowering/in_place.py): a C-contiguous, native, aligned
argument of at least MIN_BYTES is the kernel's output buffer itself, without
the copy in and the copy back. Every call is compared with plain Python on a
copy (the argument after the call, the result), on the general path and the
fast path (three calls of one key); other layouts take the copying path and
must equal Python too; the errors are Python's (NumPy's)."""
import functools

import numpy as np
import pytest

import pyhalide as ph
from pyhalide.frontend_ast import in_place_args


def scale(a):
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            a[i, j] *= 2.0


def normalize_rows(a):
    for i in range(a.shape[0]):
        d = a[i, i]
        for j in range(a.shape[1]):
            a[i, j] /= d
    return a


def stencil(a):
    for i in range(1, a.shape[0] - 1):
        a[i] = (a[i - 1] + a[i] + a[i + 1]) / 3.0


def scale_two(a, b):
    for i in range(a.shape[0]):
        a[i] *= 2.0
        b[i] += a[i]


def write_then_index(a, b, idx):
    # raises IndexError at the first out-of-range idx[i], after a[:i] changed
    for i in range(a.shape[0]):
        a[i] = a[i] + b[idx[i]]


def divide_by_old_sum(a):
    # the sum reads the argument as it was on entry: never in place
    s = a.sum()
    for i in range(a.shape[0]):
        a[i] /= s
    return s


@functools.cache
def _compiled(fn):
    return ph.pipeline(fn)     # one compiled function per file (CI time)


def _outcome(fn, args):
    """(result or exception type, the array arguments after the call)."""
    try:
        r = fn(*args)
    except (IndexError, ValueError, ZeroDivisionError) as e:
        r = type(e)
    return r, [a.copy() for a in args if isinstance(a, np.ndarray)]


def _same_as_python(fn, *args, calls=3):
    """The compiled fn, called `calls` times on one set of arguments (so
    the later calls take the fast path), leaves them as Python does and
    returns what it returns."""
    p = _compiled(fn)
    plain = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    for _ in range(calls):
        want, want_args = _outcome(fn, plain)
        got, got_args = _outcome(p, args)
        if isinstance(want, np.ndarray):
            assert got is args[0]
        elif isinstance(want, float):
            assert got == want
        else:
            assert got == want, (got, want)
        for g, w in zip(got_args, want_args):
            np.testing.assert_array_equal(g, w)


def _spec(fn):
    return _compiled(fn).last_specialization


def _matrix(shape, seed=0, order="C"):
    rng = np.random.default_rng(seed)
    a = rng.random(shape) + 0.5
    k = min(shape)
    a[np.arange(k), np.arange(k)] += 3.0
    return np.asarray(a, order=order)


@pytest.mark.parametrize("fn", [scale, normalize_rows])
def test_two_dimensional_in_place(fn):
    a = _matrix((100, 100), 1)          # 80 KB: in place
    assert a.nbytes >= in_place_args.MIN_BYTES
    _same_as_python(fn, a)
    spec = _spec(fn)
    assert spec.in_place_pairs and not spec.in_place_refused
    # the fast path's entry computes in the argument too
    entries = list(spec.direct.entries.values())
    assert entries and all(e.in_place for e in entries)


def test_stencil_in_place_and_small():
    a = np.random.default_rng(2).random(10_000)
    _same_as_python(stencil, a)
    spec = _spec(stencil)
    assert spec.in_place_pairs and not spec.in_place_refused
    _same_as_python(stencil, np.random.default_rng(3).random(50))     # copied (small)


@pytest.mark.parametrize("layout", ["F", "negative", "strided", "big-endian"])
def test_other_layouts_copy_as_before(layout):
    a = _matrix((100, 100), 4)
    if layout == "F":
        a = np.asfortranarray(a)
    elif layout == "negative":
        a = a[::-1]
    elif layout == "strided":
        a = _matrix((100, 200), 4)[:, ::2]
    else:
        a = a.astype(">f8")
    _same_as_python(normalize_rows, a)


def test_read_only_and_shared_arguments_raise_value_error():
    a = _matrix((120, 97), 5)
    a.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        _compiled(scale)(a)
    b = np.random.default_rng(6).random(10_000)
    _same_as_python(scale_two, b, b.copy())            # both in place
    with pytest.raises(ValueError, match="shares memory"):
        _compiled(scale_two)(b, b)
    with pytest.raises(ValueError, match="shares memory"):
        _compiled(scale_two)(b, b[::-1])


def test_raising_after_writing_keeps_pythons_partial_writes():
    rng = np.random.default_rng(7)
    a, b = rng.random(10_000), rng.random(100)
    ok = rng.integers(-100, 100, 10_000)
    _same_as_python(write_then_index, a, b, ok)
    bad = ok.copy()
    bad[5000] = 100                        # b[100]: IndexError at i = 5000
    _same_as_python(write_then_index, a, b, bad)
    bad[0] = -101                          # at i = 0, before any write
    _same_as_python(write_then_index, a, b, bad)
    # its index check runs after stores into a: the copying kernel ran
    assert _spec(write_then_index).in_place_refused


def test_reads_of_the_entry_value_are_not_in_place():
    a = np.random.default_rng(8).random(10_000)
    _same_as_python(divide_by_old_sum, a)
    spec = _spec(divide_by_old_sum)
    assert spec.in_place_refused or not spec.in_place_pairs


def test_compiled_entry_computes_in_place():
    # the hot key's compiled entry (pyhalide/dispatch.py) passes the
    # argument as the output and copies nothing; every call equals Python
    p = ph.pipeline(scale)
    a = _matrix((100, 100), 9)
    want = a.copy()
    for _ in range(12):
        assert p(a) is None
        scale(want)
        np.testing.assert_array_equal(a, want)
    assert p._entry is not None
    entries = list(p.last_specialization.direct.entries.values())
    assert entries and all(e.in_place for e in entries)
    ro = a.copy()
    ro.flags.writeable = False              # the entry's check: the general path raises
    with pytest.raises(ValueError, match="read-only"):
        p(ro)
    np.testing.assert_array_equal(ro, a)
