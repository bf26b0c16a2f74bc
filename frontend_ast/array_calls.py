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
               operator, as the array NumPy makes of it

Modules in LAZY register their handlers when one of the names it lists is
first looked up (handler_of, method_handler, is_method): a first compile
imports only the handlers the function calls (each module imported is
source compiled when no bytecode is cached). Look handlers up through those
functions, never FUNCTIONS or METHODS directly, so the names of LAZY are
found. tests/frontend/test_first_compile_imports.py checks that LAZY lists
exactly what its modules register."""
from __future__ import annotations

import importlib

FUNCTIONS = {}     # NumPy function object -> handler(b, fn, node)
HOOKS = {}         # syntax name (above) -> handler
METHODS = {}       # method name -> handler(b, obj, name, node)
ATTRIBUTES = {}    # attribute name -> handler(b, obj, name, node)

# module (in this package) -> (its NumPy functions by name in `numpy`, its
# array methods); a name NumPy lacks is left out, as the module leaves it
LAZY = {
    "array_atleast": ("atleast_1d atleast_2d atleast_3d column_stack", ""),
    "array_average": ("average", ""),
    "array_calculus": ("gradient trapezoid trapz", ""),
    "array_convolve": ("convolve correlate", ""),
    "array_copyto": ("copyto", ""),
    "array_datasize": ("nonzero argwhere flatnonzero unique bincount extract compress",
                       "nonzero"),
    "array_diag": ("eye identity diag triu tril", ""),
    "array_einsum": ("einsum", ""),
    "array_grid": ("meshgrid", ""),
    "array_histogram": ("histogram", ""),
    "array_interp": ("interp searchsorted", ""),
    "array_nanreduce": ("nanmin nanmax nanargmin nanargmax", ""),
    "array_nanstats": ("nancumsum nancumprod nanvar nanstd nanmedian", ""),
    "array_outer": ("outer", ""),
    "array_pad": ("pad", ""),
    "array_polyval": ("polyval", ""),
    "array_quantile": ("median percentile quantile", ""),
    "array_sort": ("sort argsort", "argsort sort"),
}
_LAZY_METHODS = {m: mod for mod, (_, methods) in LAZY.items() for m in methods.split()}
_lazy_functions = None    # NumPy function -> module of LAZY, made at the first lookup


def _lazy_module_of(f):
    global _lazy_functions
    if _lazy_functions is None:
        import numpy as np
        table = {}
        for mod, (names, _) in LAZY.items():
            for name in names.split():
                fn = getattr(np, name, None)
                if fn is not None:
                    table[fn] = mod
        _lazy_functions = table
    try:
        return _lazy_functions.get(f)
    except TypeError:         # an unhashable object is no NumPy function
        return None


def _load(mod) -> bool:
    if mod is None:
        return False
    importlib.import_module(f".{mod}", __package__)
    return True


def handler_of(f):
    """The handler of NumPy function f, or None."""
    h = FUNCTIONS.get(f)
    if h is None and _load(_lazy_module_of(f)):
        h = FUNCTIONS.get(f)
    return h


def method_handler(name: str):
    """The handler of array method `name`, or None."""
    h = METHODS.get(name)
    if h is None and _load(_LAZY_METHODS.get(name)):
        h = METHODS.get(name)
    return h


def is_method(name: str) -> bool:
    """An array method has a handler (without importing its module yet)."""
    return name in METHODS or name in _LAZY_METHODS


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
