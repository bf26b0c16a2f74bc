"""Float sums of new arrays (the results of element-wise operations, and the
deviations inside var/std) add in the memory order NumPy allocates them in:
a ufunc's result follows its operands' layout (order='K'), so `(m * m).sum()`
of a Fortran-ordered m adds in Fortran order (session 15: the compiled sum
added in C order, 1 ulp and more from NumPy; frontend_ast/result_order.py)."""
import numpy as np
import pytest

import pyhalide as ph
from frontend_ast.ufunc_order import result_order
from tests.frontend.frontend_check import check


@ph.pipeline
def sums_of_products(m):
    return (m * m).sum(), (m * 2.0).sum(axis=0), np.sqrt(np.abs(m)).sum(axis=-1)


@ph.pipeline
def variances(m):
    return m.var(), m.std(axis=0), m.var(axis=-1)


@ph.pipeline
def sum_of_difference(m, c):
    return (m - c).sum(), ((m - c) ** 2).sum(axis=0)


def _layouts(f, kinds):
    """f laid out as C, F, reversed along its first axis (a negative stride)
    and, for 3-D, with its axes in the order (1, 2, 0) in memory."""
    made = {"C": lambda: np.ascontiguousarray(f), "F": lambda: np.asfortranarray(f),
            "reversed": lambda: f[::-1],
            "permuted": lambda: np.ascontiguousarray(f.transpose(1, 2, 0)).transpose(2, 0, 1)}
    for k in kinds:
        yield made[k]()


# Each layout compiles its own kernels (2-D: ~3 s CPU a layout; 3-D: ~4.5 s),
# the other shapes of a dimension reuse them. The default run has the first
# case (tests/slow_cases.py): the F 2-D layout, whose order differs from C's;
# the rest (the reversed layout, a negative stride, included) is in the slow run.
ALL_2D = ("C", "F", "reversed")
SHAPES = [((20, 30), ("F",)), ((20, 30), ("reversed",)), ((3, 4), ALL_2D), ((20, 30), ("C",)),
          ((200, 3), ALL_2D),
          ((3, 20, 17), ("C", "permuted")),
          pytest.param((3, 20, 17), ("F", "reversed"), marks=pytest.mark.slow)]


@pytest.mark.parametrize("shape, kinds", SHAPES)
def test_sums_of_new_arrays_follow_the_operands_layout(shape, kinds):
    """(the first case leaves the C operand that wins a conflict, a kernel of
    its own, to the other cases, all in the slow run)"""
    first = (shape, kinds) == SHAPES[0]
    rng = np.random.default_rng(15)
    # magnitudes over six decades: another order changes the last bits
    f = rng.standard_normal(shape) * 10.0 ** rng.integers(-3, 3, shape)
    for m in _layouts(f, kinds):
        check(sums_of_products, m)
        check(variances, m)
        check(sum_of_difference, m, rng.standard_normal(shape[-1]))     # a broadcast row
        if not first:
            check(sum_of_difference, m, np.ascontiguousarray(f))        # C wins a conflict


def test_result_order_is_numpys():
    """The order result_order gives is the one NumPy allocates (the strides of
    NumPy's result sorted), for the cases its docstring names."""
    class Operand:      # what result_order reads of an ArrayExpr: a layout and a shape
        def __init__(self, shape, order):
            from frontend_ast.values import const_val
            self.shape = [const_val(n) for n in shape]
            self.ndim, self.view, self.order = len(shape), None, order

    def numpys(*arrays):
        r = np.add(*arrays) if len(arrays) == 2 else arrays[0] * 2
        return tuple(int(k) for k in np.argsort([-abs(s) for s in r.strides], kind="stable"))
    c, f = np.zeros((3, 4)), np.zeros((3, 4), order="F")
    row = np.zeros(4)
    cases = [((c,), [Operand((3, 4), None)]),
             ((f,), [Operand((3, 4), (1, 0))]),
             ((f, c), [Operand((3, 4), (1, 0)), Operand((3, 4), None)]),
             ((c, f), [Operand((3, 4), None), Operand((3, 4), (1, 0))]),
             ((f, row), [Operand((3, 4), (1, 0)), Operand((4,), None)])]
    for arrays, operands in cases:
        got = result_order(operands, 2) or (0, 1)
        assert got == numpys(*arrays), (arrays, got)
