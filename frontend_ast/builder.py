"""The interpreter that turns one specialization of the decorated function
(argument dtypes and dimensions) into Funcs: it binds the inputs and
executes the statements over the objects it creates (frontend_ast/__init__.py
names them)."""
from __future__ import annotations

import ast
import functools

import numpy as np

from pyhalide import ir
from pyhalide.buffer import ImageParam, Param

from . import (  # noqa: F401  (the array_* modules register their handlers)
    array_choice,
    array_complex,
    array_create,
    array_dot,
    array_extras,
    array_reduce,
    array_scalar_sinks,
    array_scan,
    array_shape,
    array_shift,
    array_store,
    array_ufuncs,
    check_order,
    complex_loops,
    loop_bound_reach,
    math_scalars,
    ops,
    static_sinks,
)
from .analyze import Liveness, names_assigned
from .arg_views import arg_view
from .array_shape import check_at_call
from .arraycode import ArrayCode, is_whole_view
from .arrayexpr import ArrayExpr
from .arrays import ArrayAccess
from .asserts import exec_assert, exec_raise, shape_check
from .complex_values import COMPLEX_HINT, complex_param
from .context import Context
from .defs import Definitions
from .emit import Emitter
from .exprs import Expressions
from .lifted import LiftedFunc
from .loop_state import LoopState
from .loops import LoopRunner
from .ranges import INT32, INT64, Aff
from .refs import UNBOUND
from .returned_layout import reshaped_once, returned_layout
from .scope import Scope
from .types import PY_BOOL, PY_COMPLEX, PY_FLOAT, PY_INT, UnsupportedType, np_ty
from .values import (
    Arr,
    MaybeUnbound,
    TupleVal,
    UnionTypeError,
    Val,
    const_val,
    mark_cannot_raise,
    negated_facts,
)
from .zero_d_args import in_place_update, refuse_in_place_updates

_BINOPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//",
           ast.Mod: "%", ast.Pow: "**", ast.LShift: "<<", ast.RShift: ">>",
           ast.BitAnd: "&", ast.BitOr: "|", ast.BitXor: "^"}


class Builder:
    """One specialization's build: `build()` executes the function body and
    returns what it returns (a value, an Arr, a TupleVal or None).

    Fields read after the build (specialize.py, schedules.py, deftext.py):
      cx        the Context: its check_images, static_params, static_checks
      emitter   the Emitter; funcs, def_log and var_log are its logs
      defs      the Definitions (ensure_defined gives a returned array its Func)
      exprs     the Expressions: global_reads, describe_obj
      inputs    argument name -> ImageParam-backed Arr or Param
      arg_vals  scalar argument name -> the Val it is bound to
    """

    def __init__(self, pf, arg_specs):
        self.pf = pf
        self.cx = Context(pf.smap, pf.tree)
        self.tree = pf.tree
        self.live = Liveness(pf.tree)
        self.scope = Scope(self.cx)
        self.cx.alive_parts = lambda: [a for a in self.scope.alive if a is not None]
        self.state = LoopState(self.cx)
        self.cx.loop_state = self.state
        self.cx.run_check = functools.partial(shape_check, self)
        self.emitter = Emitter(self.cx, set(pf.params))
        self.defs = Definitions(self.cx, self.scope, self.state, self.emitter)
        self.arrays = ArrayAccess(self.cx, self.scope, self.state, self.defs)
        self.array_code = ArrayCode(self.cx, self.state, self.emitter, self.defs,
                                    self.arrays)
        self.exprs = Expressions(self.cx, self.scope, self.arrays, self.array_code, pf.fn,
                                 names_assigned(pf.tree.body))
        self.loop_runner = LoopRunner(self.cx, self.scope, self.state, self.emitter, self.defs,
                                      self.live, self.exprs.ev_val, self.exec_block)
        self.loop_runner.bound_sink = lambda node, v: loop_bound_reach.sink(self, node, v)
        # the emitter's logs, read by specialize.py, schedules.py and deftext.py
        self.funcs = self.emitter.funcs
        self.def_log = self.emitter.def_log
        self.var_log = self.emitter.var_log
        self.inputs = {}
        self.arg_vals = {}          # scalar argument name -> its Val (returned: the argument)
        self.result = None
        self.sinks = []             # values assigned outside loops that may raise
        self.last_expr_value = None  # the value of the last expression statement
        self._outside_loops = check_order.outside_loops(self.tree)
        self.loop_sinks = check_order.LoopSinks(self.tree)
        self._setup_inputs(arg_specs)
        if self.cx.zero_d_args:
            refuse_in_place_updates(self.cx, self.tree, list(self.cx.zero_d_args))

    # inputs -------------------------------------------------------------------------------
    def _setup_inputs(self, specs):
        for name, spec in zip(self.pf.params, specs):
            kind = spec[0]
            if kind == "array":
                dtype, ndim, ones = spec[1], spec[2], spec[3]
                ty = np_ty(dtype)
                loc = self.cx.smap.loc(self.tree)
                if ty.is_complex():
                    arr = array_complex.input_array(
                        name, ty, ndim, loc, self.pf.params,
                        lambda img: self._input_shape(name, img, ndim, ones))
                    # no Func is named like a part's image (a written argument's Funcs)
                    self.emitter.input_names.update(p.image.name() for p in arr.parts())
                else:
                    img = ImageParam(ty.ir(), ndim, name)
                    arr = Arr(name, ty, self._input_shape(name, img, ndim, ones), "input", loc)
                    arr.image = img
                    img.arg_array = arr     # flat_reads: the argument an image reads
                    arr.arg_name = name
                arr.layout = spec[4] if len(spec) > 4 else "C"    # for sum_order
                if ty.is_complex():     # a.real / a.imag: a's strides, so a's layout
                    for p in arr.parts():
                        p.layout = arr.layout
                self.inputs[name] = arr
                self.scope.env[name] = arr
            elif kind == "complex" or (kind == "np" and spec[1].kind == "c"):
                p, v = complex_param(self.cx, name, PY_COMPLEX if kind == "complex"
                                     else np_ty(spec[1]))
                self.inputs[name] = p
                self.arg_vals[name] = v
                self.scope.env[name] = v
            elif kind in ("int", "float", "bool", "np"):
                if kind == "int":
                    ty, t = PY_INT, ir.Int(64)
                elif kind == "float":
                    ty, t = PY_FLOAT, ir.Float(64)
                elif kind == "bool":
                    ty, t = PY_BOOL, ir.Bool()
                else:
                    ty = np_ty(spec[1])
                    t = ty.ir()
                p = Param(t, name)
                v = Val(p.node, ty, static=_param_fn(name))
                if ty.is_int():
                    lo, hi = (INT64 if kind == "int" else (t.min_value(), t.max_value()))
                    self.cx.syms.add(name, lo, hi)
                    self.cx.sym_nodes[name] = p.node
                    self.cx.sym_static[name] = _param_fn(name)
                    v.set_range(lo, hi, [Aff.sym(name)], [Aff.sym(name)])
                self.inputs[name] = p
                self.arg_vals[name] = v
                self.scope.env[name] = v
            elif kind == "const":
                val = spec[1]
                scalar = isinstance(val, (bool, int, float, np.generic))
                self.scope.env[name] = const_val(val) if scalar else val
            else:
                raise ValueError(f"unknown argument kind {kind}")
            if kind == "np" and spec[2:] == ("0-d",):
                self.cx.zero_d_args[name] = self.arg_vals[name]

    def _input_shape(self, name, img, ndim, ones):
        """The shape Vals of array argument `name` (bound to `img`)."""
        shape = []
        for k in range(ndim):
            if k in ones:       # specialized: NumPy broadcasting depends on it
                shape.append(const_val(1))
                continue
            sym = f"{name}.shape[{k}]"
            node = img.dim(ndim - 1 - k).extent().node
            self.cx.syms.add(sym, 0, INT32[1])
            self.cx.shape_syms.add(sym)
            self.cx.sym_nodes[sym] = node
            self.cx.sym_static[sym] = _shape_fn(name, k)
            shape.append(Val(node, PY_INT, 0, INT32[1], [Aff.sym(sym)], [Aff.sym(sym)],
                             static=_shape_fn(name, k)))
        return shape

    # statements ------------------------------------------------------------------------------
    def build(self):
        body = self.tree.body
        for s in body:
            self.cx.epoch += 1
            self.exec_stmt(s)
        return self.result

    def exec_block(self, stmts):
        for s in stmts:
            self.exec_stmt(s)

    def exec_stmt(self, s):
        self.cx.cur_node = s
        self.cx.stmt_pos = (s.lineno, s.col_offset)
        self.cx.stmt = s
        if not self.state.loops:
            self.cx.epoch += 1      # outside loops (also inside an `if`) each statement is a step
        outer_log = self.cx.scalar_log
        log = self.cx.scalar_log = array_scalar_sinks.ScalarLog(len(self.cx.assumed))
        try:
            self._exec_stmt(s)
            self.cx.scalar_log = outer_log
            # (a loop statement's log holds what a loop run in phases evaluated
            # outside exec_stmt: values of its variables, left out)
            operands = array_scalar_sinks.values(
                self.cx, log, lambda v: check_order.operand_flags(self, v)) \
                if log.used and not isinstance(s, (ast.For, ast.While)) else []
            if id(s) in self._outside_loops and not self.state.loops:
                self.sinks.extend(check_order.risky_assigned(self.cx, self.scope, s,
                                                             self.last_expr_value))
                self.sinks.extend(check_order.risky_operands(self, operands))
                static_sinks.add_checks(self, s)
            elif self.state.loops:
                self.loop_sinks.store(self, s)
                self.loop_sinks.store_operands(
                    self, s, operands + array_scalar_sinks.moved_values(log, operands))
        except UnionTypeError as e:
            raise self.cx.union_error(s, e.val) from None
        except UnsupportedType as e:     # a complex value where only real ones compile
            raise self.cx.err(s, str(e), hint=COMPLEX_HINT if "complex" in str(e) else "") from None
        finally:
            self.cx.scalar_log = outer_log

    def _exec_stmt(self, s):
        if isinstance(s, ast.Assign):
            value = self.exprs.ev(s.value)
            self.cx.cur_node = s
            for t in s.targets:
                self.assign_to(t, value, s)
        elif isinstance(s, ast.AnnAssign):
            if s.value is not None:
                self.exec_assign(s.target, s.value, s)
        elif isinstance(s, ast.AugAssign):
            self.exec_augassign(s)
        elif isinstance(s, ast.For):
            self.loop_runner.exec_for(s)
        elif isinstance(s, ast.If):
            self.exec_if(s)
        elif isinstance(s, ast.Assert):
            exec_assert(self, s)
        elif isinstance(s, ast.Raise):
            exec_raise(self, s)
        elif isinstance(s, ast.Continue):
            self.scope.alive[-1] = const_val(False)
        elif isinstance(s, ast.Return):
            self.result = self.stored(self.exprs.ev(s.value), "result", s) \
                if s.value is not None else None
        elif isinstance(s, ast.Expr) and not isinstance(s.value, ast.Constant):
            # a call for its effect (np.add.at), or a value Python computes
            # and drops (`n // k`: its checks run where it stands)
            self.last_expr_value = self.exprs.ev(s.value)
        elif isinstance(s, (ast.Pass, ast.Expr)):
            pass
        else:
            raise self.cx.err(s, f"`{type(s).__name__}` statements are not supported")

    def stored(self, value, name, node):
        """A returned value with its array values stored as arrays."""
        if isinstance(value, ArrayExpr):
            got = reshaped_once(self, value) or arg_view(self, value) or \
                returned_layout(self, value, name, node)
            if got is not None:
                return got
            value = self.array_code.materialize(value, name, node)
        if isinstance(value, Arr):      # in NumPy's memory order where it is not C's
            return returned_layout(self, value, name, node) or value
        if isinstance(value, TupleVal):
            return TupleVal([self.stored(v, f"{name}{k}", node)
                             for k, v in enumerate(value.items)])
        return value

    def exec_assign(self, target, value_node, stmt):
        value = self.exprs.ev(value_node)
        self.cx.cur_node = stmt
        self.assign_to(target, value, stmt)

    def assign_to(self, target, value, stmt):
        if isinstance(target, ast.Name):
            self.assign_name(target.id, value, target)
        elif isinstance(target, ast.Tuple):
            if isinstance(value, (Arr, ArrayExpr)):
                value = self.unpacked_array(value, len(target.elts), stmt)
            if not isinstance(value, TupleVal):
                raise self.cx.err(stmt, "only tuples can be unpacked")
            if len(value.items) != len(target.elts):
                raise self.cx.err(stmt, f"cannot unpack {len(value.items)} values into "
                                        f"{len(target.elts)} names")
            for t, v in zip(target.elts, value.items):
                self.assign_name(t.id, v, t)
        elif isinstance(target, ast.Subscript):
            arr = self.exprs.ev(target.value)
            if isinstance(arr, ArrayExpr) or isinstance(value, (Arr, ArrayExpr)) or \
                    (isinstance(arr, Arr) and not self.exprs.is_element_index(target.slice, arr)):
                self.exprs.array_hook("store", target)(self, target, value, stmt)
                return
            if not isinstance(arr, Arr):
                raise self.cx.err(target.value, f"{self.exprs.describe_obj(arr)} does not "
                                                f"support item assignment")
            idx = self.exprs.index_list(target.slice)
            if not isinstance(value, Val):
                raise self.cx.err(stmt, f"cannot store {self.exprs.describe_obj(value)} into an "
                                        f"array element", hint=self.exprs.obj_hint(value))
            self.arrays.write(arr, idx, value, target)
        else:
            raise self.cx.err(target, "unsupported assignment target")

    def unpacked_array(self, value, n, stmt) -> TupleVal:
        """`x, y = v` of a 1-D array value: its elements (Python raises
        ValueError unless v has exactly n)."""
        a = self.array_code.as_array(value, stmt)
        if a.ndim != 1:
            raise self.cx.err(stmt, "unpacking the rows of an array is not supported",
                              hint="index the rows: r0, r1 = a[0], a[1]")
        size = a.shape[0]
        if size.is_const and size.const != n:
            raise self.cx.err(stmt, f"cannot unpack {size.const} values into {n} names")
        if not size.is_const:
            f = size.static
            check_at_call(self.cx, stmt, lambda env: None if f(env) == n else (
                ValueError, f"too many values to unpack (expected {n})" if f(env) > n else
                f"not enough values to unpack (expected {n}, got {f(env)})"))
        self.cx.cur_node = stmt
        return TupleVal([a.elem([ir.index(k)]) for k in range(n)])

    def assign_name(self, name, value, node):
        cur = self.scope.env.get(name)
        if isinstance(value, ArrayExpr):
            if value.view is not None:
                value = self.array_code.materialize(value, name, node) \
                    if is_whole_view(value) else value
            else:
                value = self.array_code.materialize(value, name, node)
            if isinstance(value, ArrayExpr):       # a view keeps aliasing its array
                self.scope.env[name] = value
                return
        if isinstance(value, Arr):
            if self.state.loops and not isinstance(value.func, LiftedFunc):
                raise self.cx.err(node, "arrays can be named only outside loops",
                                  hint="create and name arrays before the loop")
            self.arrays.name_array(value, name)
            self.scope.env[name] = value
            return
        if isinstance(cur, Arr) and self.state.loops:
            raise self.cx.err(node, f"{name!r} names an array; it cannot be rebound to a scalar "
                                    f"inside a loop", hint="use another name")
        if isinstance(value, Val):
            alive = self.scope.alive[-1] if self.scope.alive else None
            if alive is not None and isinstance(cur, Val) and not self._untyped_state(name, cur):
                value = ops.select(self.cx, ops.truth(self.cx, alive), value, cur)
            self.scope.env[name] = value
            # the "?assigned" flags of the member (or of its parts: a complex one)
            for flag in [g.flag_of.get(m) for g in self.state.active_groups
                         for m in complex_loops.carried_names(name)]:
                if flag is not None:
                    old = self.scope.env.get(flag)
                    t = const_val(True)
                    if alive is not None and isinstance(old, Val):
                        t = ops.select(self.cx, ops.truth(self.cx, alive), t, old)
                    self.scope.env[flag] = t
            return
        if self.state.loops and not isinstance(value, TupleVal):
            raise self.cx.err(node, f"cannot assign {self.exprs.describe_obj(value)} inside a loop")
        self.scope.env[name] = value

    def _untyped_state(self, name, cur) -> bool:
        """Whether cur is the unassigned state of a loop member whose type the
        typing runs have not found yet (a placeholder the assignment replaces:
        the assignment gives the member its type)."""
        return isinstance(cur, MaybeUnbound) and any(
            g.tys is not None and name in g.names and g.tys[g.names.index(name)] is None
            for g in self.state.active_groups)

    def exec_augassign(self, s):
        op = _BINOPS.get(type(s.op))
        if op is None:
            raise self.cx.err(s, "unsupported augmented assignment")
        if isinstance(s.target, ast.Name):
            if isinstance(self.exprs.ev(s.target), (Arr, ArrayExpr)):
                self.exprs.array_hook("augstore", s)(self, s)
                return
            old = self.exprs.ev_val(s.target)
            rhs = self.exprs.ev_val(s.value)
            self.cx.cur_node = s
            new = ops.binary(self.cx, op, old, rhs)
            if self.cx.zero_d_results:
                new = in_place_update(self.cx, self.scope.env, s.target.id, old, new, s)
            self.assign_name(s.target.id, new, s.target)
            return
        t = s.target
        arr = self.exprs.ev(t.value)
        if isinstance(arr, ArrayExpr) or (isinstance(arr, Arr) and
                                         not self.exprs.is_element_index(t.slice, arr)):
            self.exprs.array_hook("augstore", s)(self, s)
            return
        if not isinstance(arr, Arr):
            raise self.cx.err(t.value, f"{self.exprs.describe_obj(arr)} does not support item "
                                       f"assignment")
        idx = self.exprs.index_list(t.slice)
        old = self.arrays.read(arr, idx, t)
        rhs = self.exprs.ev_val(s.value)
        self.cx.cur_node = s
        self.arrays.write(arr, idx, ops.binary(self.cx, op, old, rhs), t)

    def exec_if(self, s):
        c = ops.truth(self.cx, self.exprs.ev_val(s.test, "a condition"))
        self.cx.cur_node = s
        self._store_test_operands(s)
        if c.is_const:
            self.exec_block(s.body if c.const else s.orelse)
            return
        env0 = dict(self.scope.env)
        alive0 = self.scope.alive[-1] if self.scope.alive else None
        tested = c
        c = self.scope.if_reached(c)
        self.scope.path.append(c)
        self.scope.push_facts(tested, True)
        try:
            self.exec_block(s.body)
        finally:
            self.scope.pop_facts()
            self.scope.path.pop()
        env_t = self.scope.env
        alive_t = self.scope.alive[-1] if self.scope.alive else None
        self.scope.env = dict(env0)
        if self.scope.alive:
            self.scope.alive[-1] = alive0
        nc = Val(ir.Not(c.node), PY_BOOL, risky=c.risky, facts=negated_facts(tested.facts))
        self.scope.path.append(nc)
        self.scope.push_facts(tested, False)
        try:
            self.exec_block(s.orelse)
        finally:
            self.scope.pop_facts()
            self.scope.path.pop()
        env_e = self.scope.env
        alive_e = self.scope.alive[-1] if self.scope.alive else None
        self.cx.cur_node = s
        merged = {}
        for name in set(env_t) | set(env_e):
            vt, ve = env_t.get(name, UNBOUND), env_e.get(name, UNBOUND)
            if vt is ve:
                merged[name] = vt
            elif isinstance(vt, Val) and isinstance(ve, Val):
                merged[name] = ops.select(self.cx, c, vt, ve)
            elif vt is UNBOUND or ve is UNBOUND:
                merged[name] = UNBOUND      # an array bound on one path only
            elif isinstance(vt, (Arr, ArrayExpr)) or isinstance(ve, (Arr, ArrayExpr)):
                if not (_fresh_array(vt, env0, env_t) and _fresh_array(ve, env0, env_e)):
                    merged[name] = array_choice.choose(self.exprs, name, c, vt, ve, s)
                    continue
                merged[name] = self.array_code.merge(name, c, vt, ve, s)
            else:
                merged[name] = UNBOUND
        self.scope.env = merged
        if self.state.loops:
            self.loop_sinks.store_test(self, s, c)
        if self.scope.alive and (alive_t is not alive0 or alive_e is not alive0):
            at = alive_t if alive_t is not None else const_val(True)
            ae = alive_e if alive_e is not None else const_val(True)
            self.scope.alive[-1] = ops.select(self.cx, c, ops.truth(self.cx, at),
                                              ops.truth(self.cx, ae), lazy=False)


    def _store_test_operands(self, s):
        """The scalar operands of array code in the test of `if` s inside a
        loop (array_scalar_sinks), stored before its branches run: a branch
        that leaves the iteration (`break`, `continue`, the failing test of
        a `while`) would skip a store made after the `if`."""
        log = self.cx.scalar_log
        if not self.state.loops or log is None or not log.used:
            return
        vals = array_scalar_sinks.values(self.cx, log,
                                         lambda v: check_order.operand_flags(self, v))
        log.used = []
        self.loop_sinks.store_operands(self, s, vals)


def _fresh_array(v, env_before, env_branch) -> bool:
    """Whether a branch bound a name to an array it created and no other
    name holds (merging it into a new array then aliases nothing)."""
    if not isinstance(v, Arr) or v.kind != "local":
        return False
    if any(x is v for x in env_before.values()):
        return False
    return sum(1 for x in env_branch.values() if x is v) == 1


def _shape_fn(name, k):
    return mark_cannot_raise(lambda env: env.shapes[name][k])


def _param_fn(name):
    return mark_cannot_raise(lambda env: env.params[name])
