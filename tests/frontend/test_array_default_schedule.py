"""The default schedule of array code: a named array read once, at one point
that moves with every loop of its consumer, is inlined (no buffer of its
own), and so is a cheap one read at several such points; anything else is
computed at root. Results equal plain Python."""
import re

import numpy as np
import pytest

import pyhalide as ph
from pyhalide.frontend_ast import specialize
from tests.frontend.frontend_check import check


def realized(p) -> set:
    """The Funcs that get a buffer in the last specialization's loop nest
    (Func names without the `$n` that tells equal names apart)."""
    return {n.split("$")[0] for n in re.findall(r"realize ([\w$]+)\(", p.lower())}


@ph.pipeline
def chain(a, b):
    c = a * 2.0 + b
    d = (c - 1.5) * c
    e = -d * 0.5 - a
    return e


def test_chain_of_named_intermediates_makes_no_buffers():
    a = np.linspace(-1, 1, 60).reshape(6, 10)
    check(chain, a, a[::-1].copy())
    assert realized(chain) == {"e"}


@ph.pipeline
def two_consumers(a):
    c = a * 3
    d = c + 1
    e = c - 1
    return d * e


@ph.pipeline
def broadcast_read(a, b):
    t = a * 2.5
    return t * b


@ph.pipeline
def two_consumers_costly(a):
    c = (a * 3 + 1) * (a - 2) * (a + 5) * (a * a - 7)
    d = c + 1
    e = c - 1
    return d * e


def test_cheap_read_by_two_consumers_is_inlined_into_both():
    """c = a * 3 is computed again by d and e (cheaper than an array of it);
    a costlier c (more than CHEAP_TWICE nodes) stays at root."""
    check(two_consumers, np.arange(12, dtype=np.int32))
    assert realized(two_consumers) == {"result"}
    check(two_consumers_costly, np.arange(12, dtype=np.int32))
    assert "c" in realized(two_consumers_costly)
    assert not {"d", "e"} & realized(two_consumers_costly)


def test_broadcast_read_is_not_recomputed_per_row():
    """t(x) read by out(x, y): inlining would compute each t once per row."""
    a = np.arange(5.0)
    check(broadcast_read, a, np.ones((4, 5)))
    assert "t" in realized(broadcast_read)


@ph.pipeline
def squares(a):
    b = a * a
    c = b * b + b
    d = c * c + c
    e = d * d + d
    f = e * e + e
    g = f * f + f
    h = g * g + g
    i = h * h + h
    j = i * i + i
    return j * 0.5


def test_repeated_reads_do_not_grow_exponentially():
    """Each level reads the previous one three times at the same point: its
    inlined expression triples per level, so inlining stops at INLINE_LIMIT
    nodes and the rest is computed at root (compiles in seconds, not hours)."""
    a = np.linspace(0, 0.01, 50, dtype=np.float32)
    check(squares, a)
    roots = realized(squares)
    assert "b" not in roots and len(roots) >= 3
    text = squares.lower()
    assert len(text) < 40 * specialize.INLINE_LIMIT * len(roots)


@ph.pipeline
def checked_gather(a, idx):
    g = np.empty(len(idx), np.float64)
    for i in range(len(idx)):
        g[i] = a[idx[i]] * 2.0
    s = 0.0
    for i in range(len(idx)):
        s += g[i]
    return s


def test_an_array_with_run_time_checks_is_not_inlined():
    """An inlined Func is evaluated only where it is read: g, whose elements
    check their indices, keeps its own loop (and its check fires)."""
    a = np.arange(4.0)
    check(checked_gather, a, np.array([1, 2, 3], np.int64))
    with pytest.raises(IndexError):
        checked_gather(a, np.array([9, 2, 3], np.int64))
    assert "g" in realized(checked_gather)


def _vectorize_c(p):
    c = p.funcs["c"]
    c.vectorize(c.args()[0], 4)


def _c_inside_e(p):
    p.funcs["c"].compute_at(p.funcs["e"], p.funcs["e"].args()[0])


def test_a_func_the_user_scheduled_is_not_inlined():
    a = np.linspace(-1, 1, 64).reshape(8, 8)
    b = a.T.copy()
    vec = ph.pipeline(chain.py_func, schedule=_vectorize_c)
    check(vec, a, b)
    assert "c" in realized(vec)
    inside = ph.pipeline(chain.py_func, schedule=_c_inside_e)
    check(inside, a, b)
    assert "c" in realized(inside) and "d" not in realized(inside)


@ph.pipeline
def column_sums(a):
    s = np.zeros(a.shape[1])
    for y in range(a.shape[0]):
        for x in range(a.shape[1]):
            s[x] += a[y, x]
    return s


@ph.pipeline
def row_sums(a):
    s = np.zeros(a.shape[0])
    for y in range(a.shape[0]):
        for x in range(a.shape[1]):
            s[y] += a[y, x]
    return s


def _loops(p):
    """The loop variables of the last specialization's loop nest, outermost
    first, without the Func's name."""
    return [line.split("(")[1].split(",")[0].split(".", 1)[1]
            for line in p.lower().splitlines() if line.strip().startswith("for (")]


def test_a_reduction_reads_rows_in_order():
    """s[x] += a[y, x]: the stride-1 loop x runs inside the loop over y (the
    default was x outside, a walk down each column); each s[x] still adds in
    y order, so the sums are bit-equal. s[y] += a[y, x] keeps x innermost."""
    a = np.random.default_rng(3).random((7, 9))
    check(column_sums, a)
    check(row_sums, a)
    assert _loops(column_sums)[-2:] == ["s1.r_y$x", "s1.x"]
    assert _loops(row_sums)[-1].startswith("s1.r_x")


@ph.pipeline
def two_consumers_sqrt(a):
    c = np.sqrt(a)
    d = c + 1
    e = c - 1
    return d * e


def test_a_math_function_read_twice_stays_at_root():
    """sqrt is not computed again for each read: c stays at root."""
    check(two_consumers_sqrt, np.linspace(0, 2, 12))
    assert "c" in realized(two_consumers_sqrt)
