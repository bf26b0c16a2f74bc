"""Names the interpreter evaluates to that are not values: builtin
functions, bound methods, np.iinfo/np.finfo results (what a call applies
to; see calls.py)."""
from __future__ import annotations


class BuiltinRef:
    """A Python builtin function (min, max, len, ...)."""

    def __init__(self, name):
        self.name = name


class MethodRef:
    """`obj.name` of a method call (a.copy(), v.item(), v.astype(t)); `scalar`:
    a NumPy scalar's method, run on the 0-d array `obj` (a 0-d result is a scalar)."""

    def __init__(self, obj, name, scalar=False):
        self.obj, self.name, self.scalar = obj, name, scalar


class InfoVal:
    """np.iinfo(t) / np.finfo(t)."""

    def __init__(self, info):
        self.info = info


class _Unbound:
    def __repr__(self):
        return "<unbound>"


# a name bound on one path of an `if` only (reading it is an error)
UNBOUND = _Unbound()
