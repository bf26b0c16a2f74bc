"""Expressions: Python AST -> values (the Builder's expression half)."""
from __future__ import annotations

import ast
import builtins
import cmath
import copy
import math
import types as pytypes

import numpy as np

from pyhalide import ir

from . import array_calls, array_choice, array_scalar_sinks, ops, tuples, unions, zero_d_args
from . import complex_values as C
from .arrayexpr import ArrayExpr
from .calls import call
from .loops import LoopVarDone
from .names import (
    MISSING,
    RESOLVED_ATTR,
    SCOPE_ATTR,
    VALUE_ATTR,
    is_user_function,
    lookup_global,
    user_name,
)
from .refs import UNBOUND, BuiltinRef, InfoVal, MethodRef
from .types import PY_BOOL, UnsupportedType
from .unbound_reads import member_read
from .values import (
    NO_CONST,
    Arr,
    DtypeVal,
    MaybeUnbound,
    ModuleRef,
    TupleVal,
    UnionTypeError,
    Val,
    const_val,
    negated_facts,
)

_BINOPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//",
           ast.Mod: "%", ast.Pow: "**", ast.LShift: "<<", ast.RShift: ">>",
           ast.BitAnd: "&", ast.BitOr: "|", ast.BitXor: "^"}
_CMPOPS = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!="}


_BUILTINS = {"len", "int", "float", "bool", "complex", "abs", "min", "max", "round", "pow",
             "divmod", "range", "tuple"}

# What to write instead of a Python builtin compiled code does not take.
_BUILTIN_HINTS = {
    "sum": "compute sum(...) in a statement of its own (it compiles where its statement "
           "evaluates it once), or write np.sum(a) (NumPy's pairwise order)",
    "any": "write np.any(a) or a loop with break",
    "all": "write np.all(a) or a loop with break",
    "sorted": "sort with a loop; compiled code has no lists",
    "list": "use an array (np.array of a literal list, np.zeros, ...)",
    "map": "write the expression on whole arrays, or a loop",
    "filter": "select with a boolean mask or a loop",
    "print": "compiled code does no I/O; return the value instead",
    "isinstance": "types are fixed when the function compiles; branch outside it",
}


class Expressions:
    """Python expressions -> values (the interpreter's expression half).

    Reads names from `scope` (and pushes the facts of conditions while an
    operand that depends on them is evaluated), reads array elements
    through `arrays`, and records the globals it reads (`global_reads`:
    name -> value, what a specialization's validity depends on). Calls go
    to calls.call with this object.
    """

    def __init__(self, cx, scope, arrays, array_code, fn, assigned_names):
        self.cx, self.scope, self.arrays = cx, scope, arrays
        self.array_code = array_code          # arraycode.ArrayCode: whole-array values
        self.fn = fn                          # the decorated function (its globals)
        self.assigned_names = assigned_names  # names the function assigns somewhere
        self.global_reads = {}

    def ev(self, node):
        m = getattr(self, "_ev_" + type(node).__name__, None)
        if m is None:
            raise self.cx.err(node, f"`{type(node).__name__}` expressions are not supported")
        self.cx.cur_node = node
        try:
            out = m(node)
        except UnionTypeError as e:
            raise self.cx.union_error(node, e.val) from None
        if (self.cx.zero_d_results or self.cx.zero_d_args) and isinstance(out, Val):
            out = zero_d_args.evaluated(self.cx, out, node)
        if self.cx.scalar_log is not None:
            array_scalar_sinks.note(self.cx, node, out)
        return out

    def ev_val(self, node, what="a scalar value") -> Val:
        v = self.ev(node)
        if isinstance(v, Val):
            return v
        raise self.cx.err(node, f"expected {what}, got {self.describe_obj(v)}",
                          hint=self.obj_hint(v))

    def describe_obj(self, v) -> str:
        if isinstance(v, Arr):
            return f"the array {v.name!r}"
        if isinstance(v, ArrayExpr):
            return "an array value"
        if isinstance(v, TupleVal):
            return "a tuple"
        if isinstance(v, ModuleRef):
            return f"{v.name}"
        if isinstance(v, DtypeVal):
            return f"the dtype {v.dtype}"
        if v is None:
            return "None"
        if self.cx.is_zero_d_arg(v):
            return "a 0-d array argument (compiled code does not write it)"
        if isinstance(v, Val) and not v.union:
            return f"a {v.ty.describe()}"
        return type(v).__name__

    def obj_hint(self, v) -> str:
        if isinstance(v, (Arr, ArrayExpr)):
            return "this needs a scalar: index an element (a[i]) or reduce the array (a.sum())"
        return ""

    # constants and names ------------------------------------------------
    def _ev_Constant(self, node):
        v = node.value
        if v is None or isinstance(v, str):
            return v
        if isinstance(v, (bool, int, float)):
            return const_val(v)
        if isinstance(v, complex):
            return C.constant(self.cx, v)
        raise self.cx.err(node, f"constants of type {type(v).__name__} are not supported")

    def _ev_Name(self, node):
        name = node.id
        fixed = getattr(node, VALUE_ATTR, None)
        if fixed is not None:           # a default argument or an imported name
            return self.wrap_global(node, name, fixed[0])
        scope_fn = getattr(node, SCOPE_ATTR, None)
        if scope_fn is not None:        # a free name of an inlined function
            g = self.globals_lookup((scope_fn, name))
            if g is not MISSING:
                return self.wrap_global(node, name, g)
            if name in _BUILTINS:
                return BuiltinRef(name)
            raise self._undefined(node, name)
        if name in self.scope.env:
            v = self.scope.env[name]
            if isinstance(v, LoopVarDone) and v.array:
                raise self.cx.err(node, f"the array {name!r} computed inside a loop is read after "
                                        f"the loop", hint="store what you need into an array "
                                                          "created before the loop")
            if isinstance(v, LoopVarDone) and v.what:
                raise self.cx.err(node, v.what, hint="copy the value you need into an array "
                                                     "inside the loop")
            if isinstance(v, LoopVarDone):
                raise self.cx.err(node, f"the loop variable {user_name(name)!r} is read after "
                                        f"its loop",
                                  hint="copy the value you need into another variable inside "
                                       "the loop")
            if isinstance(v, Val) and v.union is None:
                # a loop member unassigned before its loop: checked against its flag
                read = member_read(self.cx, self.scope.env, name, v)
                if read is not None:
                    return read
            if v is UNBOUND or isinstance(v, MaybeUnbound):
                raise self.cx.err(node, f"{user_name(name)!r} may be used before it is assigned",
                                  hint="assign it on every path before this line")
            return v
        if name in self.assigned_names:
            raise self.cx.err(node, f"{user_name(name)!r} is used before it is assigned")
        g = self.globals_lookup(name)
        if g is not MISSING:
            return self.wrap_global(node, name, g)
        if name in _BUILTINS:
            return BuiltinRef(name)
        raise self._undefined(node, name)

    def _undefined(self, node, name: str):
        """The error for a name neither the function nor its globals define:
        a Python builtin outside the compiled subset is named as such."""
        if hasattr(builtins, name):
            return self.cx.err(node, f"the builtin {name}() is not supported in compiled code",
                               hint=_BUILTIN_HINTS.get(name, "write it with NumPy functions "
                                                              "or a loop"))
        return self.cx.err(node, f"name {name!r} is not defined")

    def globals_lookup(self, name):
        """The value of a global (or closure) name (or of (function, name): a
        name of an inlined function), recorded: a specialization is valid
        only while every name it read still has the value it had."""
        g = lookup_global(self.fn, name)
        self.global_reads[name] = g
        return g

    def record_inlined(self, tree):
        """Record the names whose functions the rewrite inlined (inline_calls):
        the specialization is valid while they still name those functions."""
        for scope_fn, name, obj in getattr(tree, RESOLVED_ATTR, ()):
            self.global_reads[(scope_fn, name)] = obj

    def wrap_global(self, node, name, g):
        if g is np:
            return ModuleRef("np", np)
        if g is math:
            return ModuleRef("math", math)
        if g is cmath:
            return ModuleRef("cmath", cmath)
        if isinstance(g, (complex, np.complexfloating)):
            return C.constant(self.cx, g)
        if isinstance(g, pytypes.ModuleType):
            raise self.cx.err(node, f"module {name!r} cannot be used in compiled code",
                              hint="use numpy (np) and math functions on scalars")
        if isinstance(g, tuple):
            return TupleVal([self.wrap_global(node, name, x) for x in g])
        if g is None or isinstance(g, str):
            return g
        if isinstance(g, (bool, int, float, np.generic)) and not isinstance(g, np.ndarray):
            try:
                return const_val(g)
            except UnsupportedType as e:
                raise self.cx.err(node, str(e))
        if isinstance(g, type) and issubclass(g, np.generic) or isinstance(g, np.dtype):
            return DtypeVal(g)
        if any(g is t for t in (int, float, bool, complex)):      # (`in` compares arrays)
            return BuiltinRef(g.__name__)
        if g is abs or g is min or g is max or g is len or g is round or g is pow:
            return BuiltinRef(g.__name__)
        if callable(g) and (getattr(g, "__module__", None) or "").startswith("numpy") and \
                hasattr(np, getattr(g, "__name__", "")):
            return ModuleRef(f"np.{g.__name__}", g)
        if callable(g) and getattr(g, "__module__", None) == "math" and \
                getattr(math, getattr(g, "__name__", ""), None) is g:
            return ModuleRef(f"math.{g.__name__}", g)
        if isinstance(g, np.ndarray):
            raise self.cx.err(node, f"the global array {name!r} cannot be used",
                              hint="pass arrays as arguments of the function")
        if g is self.fn or getattr(g, "py_func", None) is self.fn:
            raise self.cx.err(node, f"recursion ({name!r} calls itself) is not supported",
                              hint="write the recursion as a loop")
        if getattr(g, "__name__", None) == "<lambda>":
            raise self.cx.err(node, f"calling the lambda {name!r} is not supported",
                              hint="define it with `def`: a call of a function defined with "
                                   "`def` is compiled into the caller")
        if is_user_function(g):
            raise self.cx.err(node, f"the function {name!r} can only be called in compiled "
                                    f"code (its code is compiled into the caller at the call), "
                                    f"not used as a value",
                              hint=f"call {name}(...) where its result is needed")
        if callable(g):
            module = (getattr(g, "__module__", None) or "").split(".")[0]
            of = f" (of the library {module!r})" if module and module != "builtins" else ""
            raise self.cx.err(node, f"calling {name!r}{of} is not supported: only builtins, "
                                    f"NumPy and math functions on scalars and your own "
                                    f"functions defined with `def` can be called",
                              hint="write the computation with those")
        raise self.cx.err(node, f"{name!r} ({type(g).__name__}) cannot be used in compiled code")

    # attributes -----------------------------------------------------------
    def _ev_Attribute(self, node):
        base = self.ev(node.value)
        attr = node.attr
        if isinstance(base, ModuleRef):
            if not hasattr(base.obj, attr):
                raise self.cx.err(node, f"{base.name} has no attribute {attr!r}")
            g = getattr(base.obj, attr)
            if isinstance(g, pytypes.ModuleType):
                return ModuleRef(f"{base.name}.{attr}", g)
            if g is None:           # np.newaxis
                return None
            if isinstance(g, (bool, int, float)):
                return const_val(g)
            if isinstance(g, complex):
                return C.constant(self.cx, g)
            if isinstance(g, type) and issubclass(g, np.generic):
                return DtypeVal(g)
            if callable(g):
                return ModuleRef(f"{base.name}.{attr}", g)
            raise self.cx.err(node, f"{base.name}.{attr} cannot be used in compiled code")
        if attr not in ("item", "dtype", "shape", "ndim", "size"):
            base = self._zero_d_as_array(base, node.value)
        if isinstance(base, Val) and not base.ty.weak and not base.union and \
                attr not in _SCALAR_ATTRIBUTES and \
                (attr in array_calls.ATTRIBUTES or array_calls.is_method(attr)):
            return self._numpy_scalar_attribute(base, attr, node)
        if isinstance(base, (Arr, ArrayExpr)):
            handler = array_calls.ATTRIBUTES.get(attr)
            if handler is not None:
                return handler(self, base, attr, node)
            if array_calls.is_method(attr):
                return MethodRef(base, attr)
            if attr == "shape":
                return TupleVal(base.shape)
            if attr == "ndim":
                return const_val(base.ndim)
            if attr == "dtype":
                return DtypeVal(base.ty.dtype)
            if attr == "size":
                v = const_val(1)
                for s in base.shape:
                    v = ops.binary(self.cx, "*", v, s)
                return v
            if attr in ("copy",) and isinstance(base, Arr):
                return MethodRef(base, attr)
            raise self.cx.err(node, f"array attribute .{attr} is not supported",
                              hint="use .shape, .ndim, .size, .dtype, len(a) or element indexing")
        if isinstance(base, Val):
            if attr in ("item", "astype"):
                return MethodRef(base, attr)
            if attr in ("real", "imag", "conjugate", "conj"):
                return C.attribute(self.cx, base, attr, MethodRef)
            if attr == "dtype":
                if base.ty.weak:
                    raise self.cx.err(node, f"a {base.ty.describe()} has no dtype")
                return DtypeVal(base.ty.dtype)
            if attr in ("shape", "ndim", "size") and not base.ty.weak:   # as NumPy scalars
                return {"shape": TupleVal([]), "ndim": const_val(0), "size": const_val(1)}[attr]
            raise self.cx.err(node, f"scalar attribute .{attr} is not supported")
        if isinstance(base, InfoVal):
            if not hasattr(base.info, attr):
                raise self.cx.err(node, f"no attribute {attr!r}")
            v = getattr(base.info, attr)
            return const_val(v.item() if isinstance(v, np.generic) and
                             isinstance(base.info, np.iinfo) else v)
        if isinstance(base, DtypeVal):
            if attr == "type":
                return base
            if attr == "itemsize":
                return const_val(base.dtype.itemsize)
        raise self.cx.err(node, f"attribute .{attr} of {self.describe_obj(base)} is not supported")

    def _numpy_scalar_attribute(self, v: Val, attr: str, node):
        """x.attr of a NumPy scalar: NumPy's scalar methods run the array
        method on a 0-d array and return a 0-d result as a scalar."""
        from .calls import scalar_if_0d
        a = self._as_0d_array(v, node.value)
        handler = array_calls.ATTRIBUTES.get(attr)
        if handler is not None:
            return scalar_if_0d(self, handler(self, a, attr, node), node)
        return MethodRef(a, attr, scalar=True)

    def _zero_d_as_array(self, v, node):
        """A 0-d array argument (a scalar to arithmetic) as the 0-d array it is,
        for its methods (a.copy() is a 0-d array); any other value as it is."""
        return self._as_0d_array(v, node) if self.cx.is_zero_d_arg(v) else v

    def _as_0d_array(self, v: Val, node):
        """The 0-d array holding v. Its element is a new value: an element
        returned (a[()], a.sum()) is a NumPy scalar, not the argument v may be."""
        from .array_create import as_any_array
        return as_any_array(self, _fresh(v), node)

    # subscripts -------------------------------------------------------------
    def _ev_Subscript(self, node):
        base = self.ev(node.value)
        if isinstance(base, Val) and not base.ty.weak and not base.union:
            # NumPy scalars (0-d array arguments among them) index as 0-d arrays
            base = self._as_0d_array(base, node.value)
        if isinstance(base, TupleVal):
            if isinstance(node.slice, ast.Slice):
                return tuples.slice_of(self.ev_val, self.cx, base, node.slice)
            k = self.ev_val(node.slice)
            if not k.is_const:
                self.cx.cur_node = node
                return tuples.item_at(self.cx, base, k, node)
            if not isinstance(k.const, int):
                raise self.cx.err(node.slice, "a tuple index must be a constant")
            try:
                return base.items[k.const]
            except IndexError:
                raise self.cx.err(node.slice, "tuple index out of range") from None
        if isinstance(base, ArrayExpr) or (isinstance(base, Arr) and
                                           not self.is_element_index(node.slice, base)):
            return self.array_hook("subscript", node)(self, base, node)
        if isinstance(base, Arr):
            idx = self.index_list(node.slice)
            return self.arrays.read(base, idx, node)
        raise self.cx.err(node, f"{self.describe_obj(base)} cannot be indexed")

    def is_element_index(self, sl, arr=None) -> bool:
        """Whether a subscript's index selects single elements (no slice,
        None, ... or array among its items; with `arr`, as
        many items as it has axes: fewer select a sub-array)."""
        items = sl.elts if isinstance(sl, ast.Tuple) else [sl]
        if not all(self._element_item(it) for it in items):
            return False
        return arr is None or len(self.index_list(sl)) >= arr.ndim

    def _element_item(self, it) -> bool:
        """Whether one index item is a scalar: from its syntax where that
        tells, else by evaluating it (names, attributes and other calls have
        no side effects in compiled code)."""
        if isinstance(it, (ast.Slice, ast.Starred)):
            return False
        if isinstance(it, ast.Constant):
            return it.value is not None and it.value is not Ellipsis
        if isinstance(it, ast.UnaryOp):
            return self._element_item(it.operand)
        if isinstance(it, ast.BinOp) and not isinstance(it.op, ast.MatMult):
            return self._element_item(it.left) and self._element_item(it.right)
        if isinstance(it, ast.Subscript) and isinstance(it.value, ast.Name):
            base = self.scope.env.get(it.value.id)
            if isinstance(base, Arr):
                return self.is_element_index(it.slice)
        if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and \
                it.func.id in ("int", "min", "max", "len", "abs", "round") and \
                it.func.id not in self.scope.env:
            return it.func.id == "len" or all(self._element_item(a) for a in it.args)
        v = self.ev(it)
        if isinstance(v, (Arr, ArrayExpr)) or v is None or v is Ellipsis:
            return False
        if isinstance(v, TupleVal):
            return not any(isinstance(x, (Arr, ArrayExpr)) or x is None for x in v.items)
        return True

    def array_hook(self, name, node):
        handler = array_calls.HOOKS.get(name)
        if handler is None:
            raise self.cx.err(node, f"array {name} is not supported")
        return handler

    def index_list(self, sl):
        items = sl.elts if isinstance(sl, ast.Tuple) else [sl]
        out = []
        for it in items:
            if isinstance(it, ast.Slice):
                raise self.cx.err(it, "slicing is not supported",
                                  hint="index single elements inside a `for` loop")
            v = self.ev(it)
            if isinstance(v, TupleVal):
                out.extend(v.items)
                continue
            if v is None or v is Ellipsis:
                raise self.cx.err(it, "None/... indices are not supported")
            if not isinstance(v, Val):
                raise self.cx.err(it, f"an index must be an integer, not {self.describe_obj(v)}")
            out.append((v, it))
        return [(x if isinstance(x, tuple) else (x, sl)) for x in out]

    # operators -----------------------------------------------------------------
    def _ev_BinOp(self, node):
        if isinstance(node.op, ast.MatMult):
            x, y = self.ev(node.left), self.ev(node.right)
            self.cx.cur_node = node
            return self.array_hook("matmul", node)(self, x, y, node)
        op = _BINOPS.get(type(node.op))
        if op is None:
            raise self.cx.err(node, f"operator {type(node.op).__name__} is not supported")
        a = self.ev(node.left)
        b = self.ev(node.right)
        self.cx.cur_node = node
        a, b = self._tuples_as_arrays(a, b, node)
        if isinstance(a, TupleVal) or isinstance(b, TupleVal):
            return tuples.binary(self.cx, op, a, b, node)
        if _is_array(a) or _is_array(b):
            return self.array_code.binary(op, a, b, node)
        if op == "**" and self.cx.is_zero_d_arg(a):
            # ndarray's ** (b ** 2 is np.square: int8 for booleans; ** 0.5 is sqrt)
            from .calls import scalar_if_0d
            return scalar_if_0d(self, self.array_code.binary(
                op, self._as_0d_array(a, node.left), b, node), node)
        a = self.scalar(a, node.left, "a scalar operand")
        b = self.scalar(b, node.right, "a scalar operand")
        return ops.binary(self.cx, op, a, b)

    def _tuples_as_arrays(self, a, b, node):
        """With an array on one side of an operator, a tuple on the other is
        the array NumPy makes of it."""
        if _is_array(a) and isinstance(b, TupleVal):
            b = array_calls.HOOKS["tuple_array"](self, b, node)
        elif _is_array(b) and isinstance(a, TupleVal):
            a = array_calls.HOOKS["tuple_array"](self, a, node)
        return a, b

    def scalar(self, v, node, what="a scalar value") -> Val:
        """v, which must be a scalar value (a located error otherwise)."""
        if isinstance(v, Val):
            return v
        raise self.cx.err(node, f"expected {what}, got {self.describe_obj(v)}",
                          hint=self.obj_hint(v))

    def _ev_UnaryOp(self, node):
        v = self.ev(node.operand)
        self.cx.cur_node = node
        if _is_array(v):
            if isinstance(node.op, ast.Not):
                raise self.cx.err(node, "the truth value of an array with more than one "
                                        "element is ambiguous",
                                  hint="use np.logical_not(a), a.any() or a.all()")
            fn = {ast.USub: ops.negate, ast.Invert: ops.invert,
                  ast.UAdd: lambda cx, x: x}[type(node.op)]
            return self.array_code.unary(fn, v, node)
        v = self.scalar(v, node.operand)
        if isinstance(node.op, ast.Not):
            t = ops.truth(self.cx, v)
            out = Val(ir.Not(t.node), PY_BOOL, risky=t.risky,
                      static=(lambda env, f=t.static: not f(env)) if t.is_static else None,
                      const=(not t.const) if t.is_const else NO_CONST,
                      facts=negated_facts(v.facts))
            return out
        if isinstance(node.op, ast.USub):
            return ops.negate(self.cx, v)
        if isinstance(node.op, ast.UAdd):
            return unions.distribute(self.cx, self._positive, v)
        if isinstance(node.op, ast.Invert):
            return ops.invert(self.cx, v)
        raise self.cx.err(node, "unsupported unary operator")

    def _positive(self, x: Val) -> Val:
        """+x: a Python bool becomes an int; otherwise a new value equal to x
        (np.positive's result), not the operand itself: +a of a 0-d array
        argument is a NumPy scalar, the argument a 0-d array."""
        if x.ty.is_bool() and x.ty.weak:
            return ops.to_python_int(self.cx, x)
        return _fresh(x)

    def _ev_Compare(self, node):
        left = self.ev(node.left)
        if isinstance(left, DtypeVal) and len(node.ops) == 1 and \
                isinstance(node.ops[0], (ast.Eq, ast.NotEq)):
            right = self.ev(node.comparators[0])
            if isinstance(right, DtypeVal):
                # dtypes are known when the function is compiled: a static bool
                return const_val((left.dtype == right.dtype) == isinstance(node.ops[0], ast.Eq))
        if isinstance(left, TupleVal) and len(node.ops) == 1 and \
                isinstance(node.ops[0], (ast.Eq, ast.NotEq)):
            right = self.ev(node.comparators[0])
            if isinstance(right, TupleVal):
                return self._tuples_equal(left, right, isinstance(node.ops[0], ast.NotEq), node)
        if _is_array(left) or (len(node.ops) == 1 and _may_be_array(node.comparators[0])):
            if len(node.ops) != 1:
                raise self.cx.err(node, "a chained comparison of arrays is ambiguous in NumPy",
                                  hint="combine the comparisons with &: (a < b) & (b < c)")
            right = self.ev(node.comparators[0])
            op = _CMPOPS.get(type(node.ops[0]))
            self.cx.cur_node = node
            left, right = self._tuples_as_arrays(left, right, node)
            if op is not None and (_is_array(left) or _is_array(right)):
                return self.array_code.compare(op, left, right, node)
            if op is None:
                raise self.cx.err(node, f"comparison {type(node.ops[0]).__name__} is not "
                                        f"supported")
            return self.cx.compare(op, self.scalar(left, node.left),
                                   self.scalar(right, node.comparators[0]))
        left = self.scalar(left, node.left)
        result = None
        for op_node, right_node in zip(node.ops, node.comparators):
            op = _CMPOPS.get(type(op_node))
            if op is None:
                raise self.cx.err(node, f"comparison {type(op_node).__name__} is not supported",
                                  hint="`in`/`is` are not supported; compare values with == and <")
            if result is None:
                right = self.ev_val(right_node)
                self.cx.cur_node = node
                result = self.cx.compare(op, left, right)
            else:
                cond = result
                self.scope.push_facts(cond, True)
                self.scope.lazy += 1
                try:
                    right = self.ev_val(right_node)
                    self.cx.cur_node = node
                    nxt = self.cx.compare(op, left, right)
                finally:
                    self.scope.lazy -= 1
                    self.scope.pop_facts()
                result = self.cx.logical_and(cond, nxt)
            left = right
        return result

    def _tuples_equal(self, a: TupleVal, b: TupleVal, negate: bool, node):
        """`a == b` (`a != b`) of two tuples (e.g. shapes): Python's item by
        item equality of tuples of one length; tuples of other lengths differ."""
        if len(a.items) != len(b.items):
            return const_val(negate)
        result = const_val(True)
        for x, y in zip(a.items, b.items):
            if isinstance(x, TupleVal) and isinstance(y, TupleVal):
                eq = self._tuples_equal(x, y, False, node)
            else:
                self.cx.cur_node = node
                eq = self.cx.compare("==", self.scalar(x, node), self.scalar(y, node))
            result = eq if result.is_const and result.const else self.cx.logical_and(result, eq)
        self.cx.cur_node = node
        return unions.negate(self.cx, result) if negate else result

    def _ev_BoolOp(self, node):
        is_and = isinstance(node.op, ast.And)
        vals = [self.ev_val(node.values[0])]
        pushed = 0
        try:
            for e in node.values[1:]:
                self.scope.push_facts(vals[-1], is_and)
                pushed += 1
                self.scope.lazy += 1
                vals.append(self.ev_val(e))
        finally:
            self.scope.lazy -= pushed
            for _ in range(pushed):
                self.scope.pop_facts()
        self.cx.cur_node = node
        out = vals[-1]
        for v in reversed(vals[:-1]):
            out = self.cx.logical_and(v, out) if is_and else self.cx.logical_or(v, out)
        return out

    def _ev_IfExp(self, node):
        c = ops.truth(self.cx, self.ev_val(node.test))
        if c.is_const:
            branch = node.body if c.const else node.orelse
            v = self.ev(branch)
            if isinstance(v, (Val, Arr, ArrayExpr)):
                return v
            raise self.cx.err(branch, f"expected a scalar value or an array, got "
                                      f"{self.describe_obj(v)}", hint=self.obj_hint(v))
        self.scope.push_facts(c, True)
        self.scope.lazy += 1
        try:
            a = self.ev(node.body)
            if not isinstance(a, (Arr, ArrayExpr)):
                a = self.ev_val(node.body)
        finally:
            self.scope.lazy -= 1
            self.scope.pop_facts()
        self.scope.push_facts(c, False)
        self.scope.lazy += 1
        try:
            b = self.ev(node.orelse) if isinstance(a, (Arr, ArrayExpr)) else \
                self.ev_val(node.orelse)
        finally:
            self.scope.lazy -= 1
            self.scope.pop_facts()
        self.cx.cur_node = node
        if isinstance(a, (Arr, ArrayExpr)):     # one of two arrays (array_choice.py)
            return array_choice.choose(self, None, c, a, b, node)
        return ops.select(self.cx, c, a, b)

    def _ev_Tuple(self, node):
        return TupleVal([self.ev(e) for e in node.elts])

    # calls --------------------------------------------------------------------
    def _ev_Call(self, node):
        if node.keywords and not self._allows_keywords(node):
            raise self.cx.err(node, "keyword arguments are not supported here")
        fn = self.ev(node.func)
        return call(self, fn, node)

    def _allows_keywords(self, node):
        return True

    # errors ---------------------------------------------------------------------


# what a NumPy scalar answers itself (the array attributes' answers differ: .real
# of a 0-d array is an array, of a scalar a scalar)
_SCALAR_ATTRIBUTES = frozenset(("item", "astype", "real", "imag", "conjugate", "conj", "dtype",
                                "shape", "ndim", "size"))


def _fresh(x: Val) -> Val:
    """A new value equal to x (returned, it is not the argument x may be)."""
    if C.is_complex(x):
        return C.ComplexVal(x.cx, x.re, x.im, x.ty, x.static, x.const, x.fused)
    return copy.copy(x)


def _is_array(v) -> bool:
    return isinstance(v, (Arr, ArrayExpr))


def _may_be_array(node) -> bool:
    """Whether an expression may have an array value (anything but a
    constant, or an operator of constants)."""
    if isinstance(node, ast.Constant):
        return False
    if isinstance(node, ast.UnaryOp):
        return _may_be_array(node.operand)
    if isinstance(node, ast.BinOp):
        return _may_be_array(node.left) or _may_be_array(node.right)
    return True


def same_global(a, b) -> bool:
    """Whether a global still has the value a specialization read: the same
    object, or an equal scalar of the same type (bits compared, so -0.0 and
    NaN payloads count)."""
    if a is b:
        return True
    if type(a) is not type(b):
        return False
    if isinstance(a, (bool, int)):
        return a == b
    if isinstance(a, float):
        return np.float64(a).tobytes() == np.float64(b).tobytes()
    if isinstance(a, np.generic):
        return a.dtype == b.dtype and a.tobytes() == b.tobytes()
    return False

