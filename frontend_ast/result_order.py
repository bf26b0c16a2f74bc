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
`f - row` (a broadcast row) is Fortran-ordered.

An array's order may be chosen when the function runs (OrderChoice): a name
bound to new arrays of two orders by an `if`, a loop-carried array whose
body gives it another order than its initial value's (NumPy's order after
the loop is the initial one for 0 iterations, the body's after). Where an
order is needed, `resolve` raises Unresolved for an open choice; the caller
computes its result for each side (`picking`) and selects by the condition
(a float sum: sum_order.float_sum; an element-wise result's order: here),
or the Unresolved, a located FrontendError, refuses the operation."""
from __future__ import annotations

import contextvars
from contextlib import contextmanager

from .errors import FrontendError


class OrderChoice:
    """NumPy's memory order `yes` (None for C order, a tuple of axes
    outermost first, or an OrderChoice) where the Val `cond` holds when the
    function runs, else `no`; `why` says where the choice was made (for
    messages), at `loc`. cond None: an order not known at all (a loop
    whose body changes it again each iteration): never resolved."""

    def __init__(self, cond, yes, no, why, loc):
        self.cond, self.yes, self.no, self.why, self.loc = cond, yes, no, why, loc

    def __eq__(self, other):
        return isinstance(other, OrderChoice) and other.cond is self.cond and \
            other.yes == self.yes and other.no == self.no

    def __hash__(self):
        return hash((id(self.cond), self.yes, self.no))


class Unresolved(FrontendError):
    """An order chosen at run time where an operation needs one order."""

    def __init__(self, choice: OrderChoice):
        self.choice = choice
        super().__init__(f"NumPy's memory order of {choice.why} is chosen when the function "
                         f"runs, and an operation on it needs that order (its float sums, "
                         f"a reshape view or copy, a returned array's strides): not "
                         f"supported here", choice.loc,
                         hint="give the array one memory order on every path (x.copy(order="
                              "'C') or a * 1.0 of the same operands)")


def chosen(cond, yes, no, why, loc):
    """The order `yes` where cond holds, else `no` (one order where they
    are equal)."""
    return yes if yes == no else OrderChoice(cond, yes, no, why, loc)


_picked = contextvars.ContextVar("picked_orders", default=None)


@contextmanager
def picking(choice: OrderChoice, side: bool):
    """Within: `choice` resolves to its `side`."""
    picked = dict(_picked.get() or {})
    picked[id(choice)] = (choice, side)
    token = _picked.set(picked)
    try:
        yield
    finally:
        _picked.reset(token)


def resolve(order):
    """`order` with the choices being picked resolved; Unresolved for any
    other choice."""
    while isinstance(order, OrderChoice):
        got = (_picked.get() or {}).get(id(order))
        if got is None or order.cond is None:
            raise Unresolved(order)
        order = order.yes if got[1] else order.no
    return order


def each_order(order, fn):
    """fn applied to each order `order` stands for, with the same choices."""
    if isinstance(order, OrderChoice):
        if order.cond is None:
            return OrderChoice(None, each_order(order.yes, fn), each_order(order.no, fn),
                               order.why, order.loc)
        return chosen(order.cond, each_order(order.yes, fn), each_order(order.no, fn),
                      order.why, order.loc)
    return fn(order)


def over_choices(fn, combine):
    """fn(), or where an order it needs is chosen at run time,
    combine(choice, fn() on its true side, fn() on its false side)."""
    try:
        return fn()
    except Unresolved as u:
        c = u.choice
        if c.cond is None:
            raise
        with picking(c, True):
            yes = over_choices(fn, combine)
        with picking(c, False):
            no = over_choices(fn, combine)
        return combine(c, yes, no)
