"""np.dot, np.matmul, `@` and a.dot(b) of 1-D and 2-D arrays against plain
Python: integers exactly (NumPy's wrapping dtypes), floats within the
bound stated in frontend_ast/array_dot.py, ValueError on a size mismatch."""
import numpy as np
import pytest

import pyhalide as ph
from pyhalide.errors import CompileError
from tests.frontend.frontend_check import check, run_plain


@ph.pipeline
def products(a, b, v, w):
    return a @ b, np.dot(a, v), w.dot(b), np.matmul(v, w), v @ v


@ph.pipeline
def matmul_only(a, b):
    return a @ b


@ph.pipeline
def dot_scalar(a, k):
    return np.dot(a, k), np.dot(3, a)


def _args(dt, n=4, k=5, m=3, seed=0):
    rng = np.random.default_rng(seed)
    if np.dtype(dt).kind == "f":
        mk = lambda *s: rng.standard_normal(s).astype(dt)       # noqa: E731
    elif np.dtype(dt).kind == "b":
        mk = lambda *s: rng.integers(0, 2, s).astype(dt)        # noqa: E731
    else:
        mk = lambda *s: rng.integers(0, 100, s).astype(dt)      # noqa: E731
    return mk(n, k), mk(k, m), mk(k), mk(k)


def within_bound(got, exp, a, b):
    """|got - exp| <= 2·n·eps·(|a| @ |b|) element-wise (n the k extent)."""
    n = a.shape[-1]
    eps = np.finfo(exp.dtype).eps
    bound = 2 * n * eps * (np.abs(a).astype(np.float64) @ np.abs(b).astype(np.float64))
    assert np.asarray(got).dtype == np.asarray(exp).dtype
    assert np.all(np.abs(np.float64(got) - np.float64(exp)) <= bound + 1e-300)


@pytest.mark.parametrize("dt", [np.bool_, np.uint8, np.int8, np.int16, np.int32, np.int64,
                                np.uint64])
def test_integer_products_exact(dt):
    check(products, *_args(dt))
    a, b, v, w = _args(dt, 0, 0, 0)         # empty k: zeros; empty n, m: empty results
    check(products, a, b, v, w)


@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("n,k,m", [(4, 5, 3), (17, 300, 9), (1, 1, 1)])
def test_float_products_within_bound(dt, n, k, m):
    a, b, v, w = _args(dt, n, k, m, 1)
    got = products(a, b, v, w)
    exp = run_plain(products, a, b, v, w)
    for g, e, (x, y) in zip(got, exp, [(a, b), (a, v), (w, b), (v, w), (v, v)]):
        assert type(g) is type(e) and np.shape(g) == np.shape(e)
        within_bound(g, e, x, y)


def test_mixed_dtypes_promote_as_numpy():
    a, b, v, w = _args(np.int8)
    check(products, a, b.astype(np.float32), v.astype(np.uint16), w)
    check(dot_scalar, a, 2)
    check(dot_scalar, a.astype(np.float32), 0.5)


@pytest.mark.parametrize("sa,sb", [((2, 3), (4, 5)), ((3,), (4,)), ((2, 3), (2,)),
                                   ((3,), (2, 3))])
def test_size_mismatch_raises_value_error(sa, sb):
    a, b = np.ones(sa), np.ones(sb)
    with pytest.raises(ValueError, match="mismatch in its core dimension"):
        matmul_only(a, b)
    check(matmul_only, a, b)


@ph.pipeline
def dot_3d(a, b):
    return np.dot(a, b)


@ph.pipeline
def matmul_scalar(a):
    return a @ 2


def test_unsupported_products_are_located_errors():
    with pytest.raises(CompileError, match="more than 2 dimensions"):
        dot_3d(np.ones((2, 2, 2)), np.ones((2, 2)))
    with pytest.raises(CompileError, match="does not have enough dimensions"):
        matmul_scalar(np.ones(3))


def _named_product(a, b):
    c = a @ b
    return c


def test_rfactor_schedule_on_matmul():
    def sched(p):
        f = p.funcs["c"]
        ko, ki = ph.RVar("ko"), ph.RVar("ki")
        u = ph.Var("u")
        f.update(0).split(p.vars["c", "axis1"], ko, ki, 4)
        f.update(0).rfactor(ko, u).compute_root()

    a, b, _, _ = _args(np.int32, 6, 37, 5, 2)
    check(ph.pipeline(_named_product, schedule=sched), a, b)


def test_default_order_of_a_2d_product_is_i_k_j():
    seen = []

    def sched(p):
        dims = p.funcs["c"].update(0).definition().schedule.dims
        seen.append([(d.var, d.is_rvar) for d in dims])

    a, b, _, _ = _args(np.float64, 3, 4, 5, 3)
    within_bound(ph.pipeline(_named_product, schedule=sched)(a, b), a @ b, a, b)
    # innermost first: the column Var x, the RVar over k, the row Var y
    (j, jr), (k, kr), (i, ir) = seen[0]
    assert (j, i) == ("x", "y") and (jr, kr, ir) == (False, True, False)
    assert k.startswith("r_matmul")
