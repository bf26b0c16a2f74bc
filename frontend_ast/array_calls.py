"""Where array code plugs into calls and attributes: tables of handlers for
NumPy functions, array methods and array attributes, filled by the modules
that implement them (array_ufuncs, array_reduce, array_create, array_index)
and consulted by calls.py and exprs.py.

A function handler is `handler(b, fn, node)`: b the exprs.Expressions
evaluating the call, fn the NumPy function object, node the ast.Call; it
returns the call's value. A method handler is `handler(b, obj, name, node)` (obj the
array value: an Arr or arrayexpr.ArrayExpr); an attribute handler
`handler(b, obj, name, node)` (node the ast.Attribute). A function handler
takes every call of its function, with array or scalar arguments.

HOOKS holds the handlers of the syntax of array code:
  "subscript"  (b, base, node) -> value: a subscript of an array value that
               is not an element read (slices, None, ..., integer or boolean
               arrays as indices), or any subscript of an ArrayExpr
  "store"      (builder, target, value, stmt): `target = value` where target
               is a subscript of an array that is not an element write (a
               slice, a mask, an array value stored)
  "augstore"   (builder, stmt): `target op= value` where the target is an
               array or a subscript that is not an element
  "matmul"     (b, x, y, node) -> value: `x @ y`
  "tuple_array" (b, tuple, node) -> ArrayExpr: a tuple operand of an array
               operator, as the array NumPy makes of it"""
from __future__ import annotations

FUNCTIONS = {}     # NumPy function object -> handler(b, fn, node)
HOOKS = {}         # syntax name (above) -> handler
METHODS = {}       # method name -> handler(b, obj, name, node)
ATTRIBUTES = {}    # attribute name -> handler(b, obj, name, node)


def function(*fns):
    """Decorator: the handler of NumPy functions fns."""
    def reg(handler):
        for f in fns:
            FUNCTIONS[f] = handler
        return handler
    return reg


def method(*names):
    """Decorator: the handler of array methods `names`."""
    def reg(handler):
        for n in names:
            METHODS[n] = handler
        return handler
    return reg


def attribute(*names):
    """Decorator: the handler of array attributes `names`."""
    def reg(handler):
        for n in names:
            ATTRIBUTES[n] = handler
        return handler
    return reg
