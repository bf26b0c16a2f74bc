"""The memory order NumPy gives the result of an element-wise operation
(order='K'): the rule is result_order.py's docstring; this module computes
it from the operands' memory orders (sum_order.memory_order) and registers
itself in arrayexpr.RESULT_ORDER (arrayexpr cannot import it: the sum order
reads array values)."""
from __future__ import annotations

from .arrayexpr import RESULT_ORDER, size_is
from .result_order import Unresolved, chosen, over_choices
from .sum_order import memory_order


def result_order(operands, ndim: int):
    """The result's axes, outermost in memory first, of an element-wise
    operation on `operands` (ArrayExprs, broadcast to ndim axes); None for
    C order; an OrderChoice where an operand's order is chosen at run time
    and the result's differs by it."""
    return _over_operands(_result_order, operands, ndim)


def _over_operands(fn, operands, ndim: int):
    """fn(operands, ndim) for each order the operands' orders chosen at run
    time stand for."""
    try:
        return over_choices(lambda: fn(operands, ndim),
                            lambda c, yes, no: chosen(c.cond, yes, no, c.why, c.loc))
    except Unresolved as u:
        if u.choice.cond is None:
            return u.choice         # an operand's order is not known: nor is the result's
        raise


def concatenated_order(operands, ndim: int):
    """The axes, outermost in memory first, of np.concatenate's result of
    `operands` (ndim axes each; None for C order): a port of
    PyArray_CreateMultiSortedStridePerm, which PyArray_ConcatenateArrays
    lays its result out by: from C order, an insertion sort by stride,
    largest first, an axis moving out past another only where every operand
    with both axes of size other than 1 has it strictly larger (none:
    ambiguous, skipped). It differs from the iterator's sort (result_order)
    where axes are ambiguous (np.stack's new axis)."""
    return _over_operands(_concatenated_order, operands, ndim)


def _concatenated_order(operands, ndim: int):
    # from C order, outermost first: an axis moves out past a smaller stride
    perm = _insertion_sort(_ranks(operands, ndim), list(range(ndim)),
                           lambda s, j0, j1: s[j0] <= s[j1])
    order = tuple(perm)
    return None if order == tuple(range(ndim)) else order


def _result_order(operands, ndim: int):
    # innermost first, as NumPy's axis data: an axis moves in past a larger stride
    perm = _insertion_sort(_ranks(operands, ndim), list(reversed(range(ndim))),
                           lambda s, j0, j1: s[j1] <= s[j0])
    order = tuple(reversed(perm))
    return None if order == tuple(range(ndim)) else order


def _ranks(operands, ndim: int):
    """Per operand, per axis (broadcast to ndim): a rank that orders the
    axes as the operand's strides do (larger further out), 0 for size 1."""
    strides = []
    for o in operands:
        order, _ = memory_order(o)
        off = ndim - o.ndim          # broadcasting adds axes on the left
        s = [0] * ndim
        for pos, k in enumerate(order):
            if not size_is(o.shape[k], 1):
                s[k + off] = o.ndim - pos    # a rank: larger is further out in memory
        strides.append(s)
    return strides


def _insertion_sort(strides, perm, stays):
    """NumPy's insertion sort of axes by the operands' strides: axis perm[i0]
    moves before perm[i1] (earlier in perm) unless an operand where both
    axes have size other than 1 says it `stays` (stays(s, j0, j1)); where no
    operand has both, the pair is ambiguous and skipped."""
    for i0 in range(1, len(perm)):
        j0, ipos = perm[i0], i0
        for i1 in range(i0 - 1, -1, -1):
            j1 = perm[i1]
            ambiguous, swap = True, False
            for s in strides:
                if s[j0] and s[j1]:
                    if stays(s, j0, j1):
                        swap = False
                    elif ambiguous:
                        swap = True
                    ambiguous = False
            if not ambiguous:
                if not swap:
                    break
                ipos = i1
        perm.insert(ipos, perm.pop(i0))
    return perm


RESULT_ORDER["fn"] = result_order
RESULT_ORDER["concatenate"] = concatenated_order
