"""np.gradient, np.trapezoid and np.unravel_index of one index
(frontend_ast/array_calculus.py, index_tuples.py), against plain Python
bit for bit, with NumPy's errors; and the message for an unsupported NumPy
function called with keywords."""
import numpy as np
import pytest

import pyhalide as ph
from tests.frontend.frontend_check import check

rng = np.random.default_rng(5)


@ph.pipeline
def grad(a):
    return np.gradient(a)


@ph.pipeline
def grad_h(a, h):
    return np.gradient(a, h, edge_order=2)


@ph.pipeline
def grad_axes(a):
    return np.gradient(a, 0.5, axis=(1, 0))


@ph.pipeline(schedule="auto")
def grad_auto(a):
    return np.gradient(a, axis=0)


@ph.pipeline
def trap(y):
    return np.trapezoid(y, dx=0.1)


@ph.pipeline
def trap_x(y, x):
    return np.trapezoid(y, x)


@ph.pipeline
def argmax_at(a):
    i, j = np.unravel_index(np.argmax(a), a.shape)
    return i, j, a[i, j]


@ph.pipeline
def unravel(k, n):
    return np.unravel_index(k, (3, n))


@pytest.mark.parametrize("a", [rng.random(7), np.arange(6), rng.random(2).astype(np.float32),
                               rng.random((3, 4, 5))], ids=["f64", "int", "f32-2", "3d"])
def test_gradient(a):
    check(grad, a)


@pytest.mark.parametrize("h", [0.3, np.float64(0.3), 2])
def test_gradient_spacing_edge_order_2(h):
    check(grad_h, rng.random((3, 5)).astype(np.float32), h)


def test_gradient_axes():
    check(grad_axes, rng.random((5, 3)))
    check(grad_auto, rng.random((6, 4)))


@pytest.mark.parametrize("f,a", [(grad, np.ones(1)), (grad_h, np.ones(2))])
def test_gradient_too_short(f, a):
    args = (a,) if f is grad else (a, 1.0)
    with pytest.raises(ValueError, match="too small to calculate a numerical gradient"):
        f.py_func(*args)
    with pytest.raises(ValueError, match="too small to calculate a numerical gradient"):
        f(*args)


@pytest.mark.parametrize("n", [0, 1, 9, 1000])
def test_trapezoid(n):
    check(trap, rng.random(n))
    check(trap, rng.random(n).astype(np.float32))


def test_trapezoid_x():
    check(trap_x, rng.random(500), np.linspace(0, 1, 500))
    check(trap_x, rng.random(9), np.sort(rng.random(9)))
    with pytest.raises(ValueError, match="could not be broadcast"):
        trap_x(np.ones(5), np.ones(4))


def test_unravel_index():
    check(argmax_at, rng.random((5, 7)))
    check(unravel, 7, 4)
    check(unravel, np.int32(11), 4)
    for k in (12, -1):
        with pytest.raises(ValueError):
            unravel.py_func(k, 4)
        with pytest.raises(ValueError, match="out of bounds"):
            unravel(k, 4)


def test_unsupported_function_with_keywords_is_named():
    @ph.pipeline
    def crossed(a):
        return np.cross(a, a, axis=0)
    with pytest.raises(ph.CompileError, match=r"np.cross\(\) is not supported"):
        crossed(np.ones(3))
