"""The memory order NumPy gives the result of an element-wise operation, so
that a float sum of it adds its elements in NumPy's order (sum_order.py).

A ufunc's output is allocated in the order its iterator visits the operands
(order='K'): numpy/_core/src/multiarray/nditer_constr.c,
npyiter_find_best_axis_ordering. That is a stable insertion sort of the
axes, innermost first, by the operands' |strides|: two axes are swapped when
the first operand with a nonzero stride on both says so and no later one
says otherwise (a conflict keeps C order); a broadcast or size-1 axis has
stride 0 and does not vote. So `f * 2` of a Fortran-ordered f is Fortran-
ordered, `f + c` of a Fortran- and a C-ordered array is C-ordered, and
`f - row` (a broadcast row) is Fortran-ordered."""
from __future__ import annotations

from .arrayexpr import RESULT_ORDER, size_is


def result_order(operands, ndim: int):
    """The result's axes, outermost in memory first, of an element-wise
    operation on `operands` (ArrayExprs, broadcast to ndim axes); None for
    C order."""
    from .sum_order import memory_order
    strides = []
    for o in operands:
        order, _ = memory_order(o)
        off = ndim - o.ndim          # broadcasting adds axes on the left
        s = [0] * ndim
        for pos, k in enumerate(order):
            if not size_is(o.shape[k], 1):
                s[k + off] = o.ndim - pos    # a rank: larger is further out in memory
        strides.append(s)
    perm = list(reversed(range(ndim)))       # innermost first, as NumPy's axis data
    for i0 in range(1, ndim):
        j0, ipos = perm[i0], i0
        for i1 in range(i0 - 1, -1, -1):
            j1 = perm[i1]
            ambiguous, swap = True, False
            for s in strides:
                if s[j0] and s[j1]:
                    if s[j1] <= s[j0]:
                        swap = False
                    elif ambiguous:
                        swap = True
                    ambiguous = False
            if not ambiguous:
                if not swap:
                    break
                ipos = i1
        perm.insert(ipos, perm.pop(i0))
    order = tuple(reversed(perm))
    return None if order == tuple(range(ndim)) else order


RESULT_ORDER["fn"] = result_order
