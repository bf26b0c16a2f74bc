"""Func, FuncRef and Stage: thin wrappers that edit an `ir.Function`."""
from __future__ import annotations

import operator

from . import bounds_query, ir, schedule_warnings, shifted_inputs, tracing, wrappers
from .bounds_query import repeat_unchecked
from .errors import CompileError
from .expr import Expr, cast_node, is_python_number, number_as, python_const, to_node
from .func_halide import (
    HalideFuncMethods,
    check_bound_region,
    check_not_memoized,
    check_output_types,
)
from .halide_random import lower_random
from .halide_undef import resolve_undef
from .ir.errors import counted
from .ir.recursion import deep_entry
from .realize_fast import realize_again
from .schedule import Schedulable
from .shifted_outputs import realize_shifted, shifted_outputs
from .source import at, user_location
from .var import Var, expand_placeholder, implicit_count, placeholder_position, unique_name


def _key_items(key) -> tuple:
    if isinstance(key, tuple):
        return key
    if isinstance(key, list):
        return tuple(key)
    return (key,)


class FuncRef(Expr):
    """`f[x, y]`: a call to f (an Expr when f has one value), the target of an
    (augmented) definition, or `f[x][i]` for a Tuple-valued f."""

    __slots__ = ("_func", "_args")

    def __init__(self, func: "Func", args: tuple):
        self._func = func
        self._args = args

    @property
    def node(self) -> ir.Expr:
        return self._call(0, single=True)

    def _call(self, index: int, single: bool = False) -> ir.Expr:
        fn = self._func._function
        if fn.pure is None:
            raise CompileError(f"Error: Can't call Func \"{fn.name}\" because it has not yet "
                               f"been defined.{at(user_location())}")
        if single and len(fn.output_types) != 1:
            raise CompileError(f"Func {fn.name} has {counted(len(fn.output_types), 'value')}; "
                               f"select one with {fn.name}[...][i]")
        if not 0 <= index < len(fn.output_types):
            raise CompileError(f"Func {fn.name} has {counted(len(fn.output_types), 'value')}, no value {index}")
        if len(self._args) != len(fn.args):
            raise CompileError(f"Func {fn.name} has {counted(len(fn.args), 'dimension')} but is called "
                               f"with {counted(len(self._args), 'argument')}")
        args = tuple(_arg_node(a, fn.name) for a in self._args)
        return ir.Call(fn.output_types[index], fn.name, args, ir.FUNC, index, fn)

    def __getitem__(self, i) -> "FuncTupleElementRef":
        e = object.__new__(FuncTupleElementRef)
        e.node = self._call(int(i))
        return e

    def logical_not(self) -> Expr:
        from .expr import logical_not
        return logical_not(self)

    def __len__(self):
        return len(self._func._function.output_types)

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def _pending(self, op, e):
        """`self op= e`: the Expr `self op e` while the Func is defined, else
        an unevaluated reference (Halide's) that only `f[args] = ` takes."""
        if self._func.defined():
            return _Augmented(self, op, e)
        return _UnevaluatedFuncRefExpr(self, op, e)

    def __iadd__(self, e): return self._pending(ir.Add, e)
    def __isub__(self, e): return self._pending(ir.Sub, e)
    def __imul__(self, e): return self._pending(ir.Mul, e)
    def __itruediv__(self, e): return self._pending(ir.Div, e)
    def __iand__(self, e): return self._pending(ir.BitAnd, e)
    def __ior__(self, e): return self._pending(ir.BitOr, e)
    def __ixor__(self, e): return self._pending(ir.BitXor, e)

    # `f[args] op e` of an undefined f is unevaluated too (as in Halide; `e op f[args]` is not)
    def __add__(self, e):
        return Expr.__add__(self, e) if self._func.defined() else self._pending(ir.Add, e)

    def __sub__(self, e):
        return Expr.__sub__(self, e) if self._func.defined() else self._pending(ir.Sub, e)

    def __mul__(self, e):
        return Expr.__mul__(self, e) if self._func.defined() else self._pending(ir.Mul, e)

    def __truediv__(self, e):
        return Expr.__truediv__(self, e) if self._func.defined() else self._pending(ir.Div, e)

    def __repr__(self):
        return f"<pyhalide.FuncRef {self._func.name()}[{', '.join(map(str, self._args))}]>"

    __hash__ = Expr.__hash__


class FuncTupleElementRef(Expr):
    """`f[x][i]`: a call to value i of a Tuple-valued Func."""

    __slots__ = ()


class _Augmented(Expr):
    """The value of `f[args] op= e` for a defined f: the Expr `f[args] op e`,
    which Func.__setitem__ at the same f[args] makes an update (with the
    type rules of an update)."""

    __slots__ = ("ref", "op", "value")

    def __init__(self, ref: FuncRef, op, value):
        self.ref, self.op, self.value = ref, op, value

    @property
    def node(self) -> ir.Expr:
        return to_node(_AUGMENTED[self.op](self.ref, self.value))


class _UnevaluatedFuncRefExpr:
    """`f[args] op e` or `op= e` while f is undefined (Halide's
    _UnevaluatedFuncRefExpr): not an Expr; `f[args] = it`, at the same f and
    args, defines f as the operator's identity and the update
    `f[args] = f[args] op e`."""

    __slots__ = ("ref", "op", "value")

    def __init__(self, ref: FuncRef, op, value):
        self.ref, self.op, self.value = ref, op, value


# Python names a type in "unsupported operand type(s)" TypeErrors by its
# __name__: Halide 21's text names the bindings' class (basics.py checks it).
_UnevaluatedFuncRefExpr.__name__ = "halide.halide_._UnevaluatedFuncRefExpr"

_IDENTITY = {ir.Add: 0, ir.Sub: 0, ir.Mul: 1, ir.Div: 1}
_AUGMENTED = {ir.Add: operator.add, ir.Sub: operator.sub, ir.Mul: operator.mul,
              ir.Div: operator.truediv, ir.BitAnd: operator.and_, ir.BitOr: operator.or_,
              ir.BitXor: operator.xor}
_AUGMENTED_SYMBOL = {ir.Add: "+=", ir.Sub: "-=", ir.Mul: "*=", ir.Div: "/=",
                     ir.BitAnd: "&=", ir.BitOr: "|=", ir.BitXor: "^="}


def _same_args(a, b) -> bool:
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if isinstance(x, Var) or isinstance(y, Var):
            if not (isinstance(x, Var) and isinstance(y, Var) and x.name() == y.name()):
                return False
        elif x is not y and not ir.equal(to_node(x), to_node(y)):
            return False
    return True


def _required(types, rest) -> tuple:
    """Func(types, dimensions, name)'s requirements: (types tuple, dimensions)."""
    ts = (types,) if isinstance(types, ir.Type) else tuple(types)
    if not ts or not all(isinstance(t, ir.Type) for t in ts) or not rest or \
            not isinstance(rest[0], int) or isinstance(rest[0], bool):
        raise TypeError("Func(type or [types], dimensions, name) takes types, an int and a name")
    return ts, rest[0]


def _check_required(f: "Func", nargs: int, got: tuple, loc) -> None:
    """Halide's errors for a typed Func defined with other dimensions or types."""
    req = f.__dict__.get("_required")
    if req is None:
        return
    name = f.name()
    types, dims = req
    if nargs != dims:
        raise CompileError(f"Func \"{name}\" is constrained to have exactly {dims} "
                           f"dimensions, but is defined with {nargs} dimensions{at(loc)}")
    if got != types:
        def shown(ts):
            return str(ts[0]) if len(ts) == 1 else "(" + ", ".join(map(str, ts)) + ")"
        raise CompileError(f"Func \"{name}\" is constrained to only hold values of type "
                           f"{shown(types)} but is defined with values of type "
                           f"{shown(got)}{at(loc)}")


def _check_float_arg(a, i: int, fname: str) -> None:
    """Halide's error for a float coordinate (raised where the call is written)."""
    if isinstance(a, FuncRef):
        types = a._func._function.output_types
        t = types[0] if len(types) == 1 else None
    elif isinstance(a, Expr) and not isinstance(a, Var):
        t = a.node.type
    else:
        t = ir.Float(64) if isinstance(a, float) else None
    if t is not None and t.is_float():
        raise CompileError(f"Implicit cast from {t} to int in argument {i + 1} in call to "
                           f"\"{fname}\" is not allowed. Use an explicit cast{at(user_location())}")


def _arg_node(a, fname: str) -> ir.Expr:
    n = to_node(a)
    if not (n.type.is_integer() or n.type.is_bool()):
        raise CompileError(f"argument of {fname} must be an integer, not {n.type}")
    return cast_node(ir.INDEX, n)


class Func(HalideFuncMethods, Schedulable):
    """A function over an integer domain, defined by a pure definition and any
    number of update definitions. Scheduling methods on a Func apply to its
    pure stage; `f.update(i)` schedules an update."""

    def __init__(self, name=None, *rest):
        required = None
        if isinstance(name, (ir.Type, list, tuple)):     # Halide's Func(types, dimensions, name)
            required = _required(name, rest)
            name = rest[1] if len(rest) > 1 else None
        if isinstance(name, (Expr,)) or is_python_number(name):
            value, name = name, None
        else:
            value = None
        if name is not None and not isinstance(name, str):
            raise TypeError(f"Func name must be a string, not {type(name).__name__}")
        self._function = ir.Function(name=_unique_func_name(name or "f"))
        self._function.source = user_location()
        wrappers.register(self._function)
        self._vars: list = []
        self._required = required       # (types, dimensions) of a typed Func, or None
        if value is not None:
            self[()] = value

    # identity ---------------------------------------------------------------
    def name(self) -> str:
        return self._function.name

    def function(self) -> ir.Function:
        return self._function

    def defined(self) -> bool:
        return self._function.pure is not None

    def args(self) -> list:
        return list(self._vars)

    def dimensions(self) -> int:
        if not self.defined():
            return self._requirement("dimensions", 1)
        return len(self._function.args)

    def outputs(self) -> int:
        if not self.defined():
            return len(self._requirement("outputs", 0))
        return len(self._function.output_types)

    def types(self) -> list:
        if not self.defined():
            return list(self._requirement("types", 0))
        return list(self._function.output_types)

    def type(self) -> ir.Type:
        ts = self._function.output_types if self.defined() else self._requirement("type", 0)
        if len(ts) != 1:
            raise CompileError(f"Can't call Func::type on Func \"{self.name()}\" because it "
                               f"returns a Tuple")
        return ts[0]

    def _requirement(self, method: str, which: int):
        """An undefined Func's declared types (which=0) or dimensions (1)."""
        req = self.__dict__.get("_required")
        if req is None:
            what = "dimension" if which else "type"
            raise CompileError(f"Can't call Func::{method} on Func \"{self.name()}\" because "
                               f"it is undefined or has no {what} requirements")
        return req[which]

    def num_update_definitions(self) -> int:
        return len(self._function.updates)

    def __repr__(self):
        return f"<halide.Func '{self.name()}'>"

    # definitions ------------------------------------------------------------
    def __getitem__(self, key) -> FuncRef:
        items = _key_items(key)      # `_` stands for the dimensions not named
        for i, a in enumerate(items):
            _check_float_arg(a, i, self.name())
        if not (self.defined() or self._required):
            return FuncRef(self, tuple(items))      # (only an unevaluated reference can use it)
        return FuncRef(self, expand_placeholder(items, self.dimensions() - len(items) + 1))

    @deep_entry
    def __setitem__(self, key, value):
        items = _key_items(key)
        loc = user_location()
        if isinstance(value, _UnevaluatedFuncRefExpr):
            self._check_unevaluated(value, items, loc)
        if isinstance(value, (_Augmented, _UnevaluatedFuncRefExpr)) and \
                value.ref._func is self and _same_args(value.ref._args, items):
            items = self._implicit_lhs(items, (value.value,), loc)
            self._define_augmented(items, value, loc)
            wrappers.redirect_to_global_wrappers(self._function)
            return
        if isinstance(value, list) or (not isinstance(value, (Expr, tuple)) and
                                       hasattr(value, "__len__") and hasattr(value, "__getitem__")):
            value = tuple(value[i] for i in range(len(value)))   # a sequence is a Tuple
        values = value if isinstance(value, tuple) else (value,)
        if isinstance(value, FuncRef) and len(value) > 1:
            values = tuple(value)
        items = self._implicit_lhs(items, values, loc)
        values = resolve_undef(self, items, values, loc)
        if self._function.pure is None:
            self._define_pure(items, values, loc)
        else:
            self._define_update(items, values, loc)
        wrappers.redirect_to_global_wrappers(self._function)

    def _check_unevaluated(self, value, items, loc) -> None:
        name = value.ref._func.name()
        if value.ref._func is not self or not _same_args(value.ref._args, items):
            raise CompileError(f"Cannot use an unevaluated reference to '{name}' to define an "
                               f"update at a different location.{at(loc)}")
        if self.defined():
            raise CompileError(f"Cannot use an unevaluated reference to '{name}' to define an "
                               f"update when a pure definition already exists.{at(loc)}")

    def _implicit_lhs(self, items, values, loc) -> tuple:
        """The left side with `_` replaced as Halide does: in a pure definition
        by as many implicit variables _0, _1, ... as the right side uses, in an
        update by those of the dimensions not named."""
        fn = self._function
        used = implicit_count(_value_node(v) for v in values if isinstance(v, Expr))
        pos = placeholder_position(items)
        if pos >= 0 and fn.pure is not None:
            n = len(fn.args) - len(items) + 1
            if used > n:
                raise CompileError(f"the update of {fn.name} uses {counted(used, 'implicit variable')} "
                                   f"(_0, _1, ...), but `_` on its left side stands for "
                                   f"{counted(n, 'dimension')}{at(loc)}")
        items = expand_placeholder(items, used if fn.pure is None else len(fn.args) - len(items) + 1)
        names = {a.name() for a in items if isinstance(a, Var)}
        missing = [f"_{i}" for i in range(used) if f"_{i}" not in names]
        if missing:
            raise CompileError(f"the right side of the definition of {fn.name} uses the implicit "
                               f"variable {missing[0]}, but the left side has no `_` to stand for "
                               f"it: write {fn.name}[..., _] (as in Halide){at(loc)}")
        return items

    def _define_pure(self, items, values, loc):
        fn = self._function
        if not all(isinstance(a, Var) for a in items):
            bad = next(a for a in items if not isinstance(a, Var))
            raise CompileError(
                f"the pure definition of {fn.name} must have distinct Vars as arguments, "
                f"got {bad!r}; an update (with RVars or expressions on the left) needs a "
                f"pure definition first{at(loc)}")
        names = [a.name() for a in items]
        if len(set(names)) != len(names):
            raise CompileError(f"the pure definition of {fn.name} repeats a Var: {names}{at(loc)}")
        if not values:
            raise CompileError(f"empty Tuple in the definition of {fn.name}{at(loc)}")
        nodes = tuple(_value_node(v) for v in values)
        lets = _LetNames()
        for n in nodes:
            lets.visit(n)
        for n in nodes:
            for vname, v in ir.free_vars(n).items():
                if vname in lets.names:
                    continue
                if v.kind == "rvar":
                    raise CompileError(
                        f"the pure definition of {fn.name} uses RVar {vname}; reductions need "
                        f"an update definition (f[x] = 0; f[x] += ...) or an inline "
                        f"reduction (ph.sum(...)){at(loc)}")
                if v.kind == "" and vname not in names:
                    raise CompileError(f"undefined variable {vname} in the definition of "
                                       f"{fn.name}({', '.join(names)}){at(loc)}")
        _check_required(self, len(names), tuple(n.type for n in nodes), loc)
        nodes = lower_random(nodes, [a.node for a in items])
        fn.args = tuple(names)
        fn.output_types = tuple(n.type for n in nodes)
        sched = ir.StageSchedule(dims=ir.EditedList(ir.Dim(nm) for nm in names))
        fn.pure = ir.Definition(tuple(a.node for a in items), nodes, ir.EditedList(), sched, loc)
        self._vars = list(items)

    def _define_augmented(self, items, aug: _Augmented, loc):
        fn = self._function
        if fn.pure is None:
            init = _IDENTITY.get(aug.op)
            if init is None:
                raise CompileError(f"Func {fn.name} must be defined before an update with "
                                   f"{aug.op.__name__}{at(loc)}")
            rhs = to_node(aug.value)
            pure_vars = [a if isinstance(a, Var) else Var(unique_name("_i")) for a in items]
            if len({v.name() for v in pure_vars}) != len(pure_vars):
                pure_vars = [Var(unique_name("_i")) for _ in items]
            self._define_pure(pure_vars, (Expr.wrap(ir.const(rhs.type, init)),), loc)
        if len(fn.output_types) != 1:
            raise CompileError(f"augmented assignment to the Tuple-valued Func {fn.name}{at(loc)}")
        t = fn.output_types[0]
        if t.is_bool() and aug.op in (ir.Add, ir.Sub, ir.Mul, ir.Div):
            raise CompileError(f"arithmetic update of the bool Func {fn.name}{at(loc)}")
        # the operator's own coercion (Halide's): a Python number takes the
        # Func's type when it fits, anything else must not change that type
        value = _AUGMENTED[aug.op](FuncRef(self, items), aug.value)
        if value.type() != t:
            symbol = _AUGMENTED_SYMBOL[aug.op]
            rhs = python_const(aug.value) if is_python_number(aug.value) else to_node(aug.value)
            raise CompileError(
                f"{fn.name}[...] {symbol} <{rhs.type} value> gives {value.type()}, but {fn.name} "
                f"holds {t}: an update must keep the type of the pure definition (as in "
                f"Halide); cast the right side (ph.cast({t}, ...)){at(loc)}")
        self._define_update(items, (value,), loc)

    def _define_update(self, items, values, loc):
        fn = self._function
        if len(items) != len(fn.args):
            raise CompileError(f"Func {fn.name} has {counted(len(fn.args), 'dimension')} but the update "
                               f"has {counted(len(items), 'argument')}{at(loc)}")
        if len(values) != len(fn.output_types):
            n = len(fn.output_types)
            raise CompileError(f"Func {fn.name} holds {counted(n, 'value')} but the "
                               f"update gives {len(values)}: an update gives as many values as "
                               f"the pure definition (as in Halide){at(loc)}")
        args = tuple(_arg_node(a, fn.name) for a in items)
        nodes = []
        for i, (v, t) in enumerate(zip(values, fn.output_types)):
            if is_python_number(v):
                n = number_as(t, v, f" (value {i} of {fn.name})")
                n = n if n is not None else python_const(v)
            else:
                n = to_node(v)
            if n.type != t:
                raise CompileError(
                    f"the update of {fn.name} gives value {i} the type {n.type}, but {fn.name} "
                    f"holds {t}; cast it (ph.cast({t}, ...)){at(loc)}")
            nodes.append(n)
        pure = [a.node.name for a in items if isinstance(a, Var)]
        if len(set(pure)) != len(pure):
            raise CompileError(f"the update of {fn.name} repeats a pure Var on the left{at(loc)}")
        for i, a in enumerate(items):
            if isinstance(a, Var) and a.node.name in fn.args and fn.args[i] != a.node.name:
                raise CompileError(
                    f"the update of {fn.name} has its pure Var {a.node.name} at position {i} "
                    f"of the left side, but {a.node.name} is dimension "
                    f"{fn.args.index(a.node.name)} of {fn.name}: a pure Var of an update "
                    f"must stay in its own position (as in Halide){at(loc)}")
        rdom = _check_update_vars(fn, args, nodes, pure, loc)
        free = [a.node for a in items if isinstance(a, Var)] + \
            ([v.node for v in rdom._vars] if rdom is not None else [])
        n_args = len(args)
        lowered = lower_random(args + tuple(nodes), free)
        args, nodes = lowered[:n_args], list(lowered[n_args:])
        predicates = rdom.predicates() if rdom is not None else []
        rvars = rdom.reduction_variables() if rdom is not None else []
        dims = [ir.Dim(rv.name, is_rvar=True) for rv in rvars] + [ir.Dim(p) for p in pure]
        sched = ir.StageSchedule(dims=ir.EditedList(dims), rvars=ir.EditedList(rvars))
        fn.updates.append(ir.Definition(args, tuple(nodes), ir.EditedList(predicates), sched, loc,
                                        rdom.name() if rdom is not None else ""))

    # stages -----------------------------------------------------------------
    def update(self, i: int = 0) -> "Stage":
        n = len(self._function.updates)
        if not 0 <= i < n:
            raise CompileError(f"Func {self.name()} has {n} update definitions; "
                               f"update({i}) does not exist")
        return Stage(self, i + 1)

    # running ----------------------------------------------------------------
    def realize(self, sizes=None, *more, **kw):
        pipe = self.__dict__.get("_solo_pipeline")
        if pipe is not None and not kw and "_fast" in pipe.__dict__ \
                and not self.__dict__.get("_memoized") \
                and not (bounds_query.EVER_SET[0] and
                         not repeat_unchecked([self], pipe.__dict__["_fast"]())):
            # the last call over these sizes or on Buffers of this geometry, nothing
            # changed (pyhalide/realize_fast.py)
            out = realize_again(pipe, sizes, more)
            if out is not None:
                return out

        def run():
            graph = shifted_inputs.shifted_graph([self])     # inputs whose min is not 0
            if graph is not None:
                return shifted_inputs.run_shifted(graph, lambda: self._realize(sizes, *more, **kw))
            return self._realize(sizes, *more, **kw)

        if tracing.active():                 # Halide's trace output around the run
            return tracing.run_traced([self], run)
        return run()

    def _realize(self, sizes=None, *more, **kw):
        check_not_memoized(self)
        check_output_types(self, sizes)
        if schedule_warnings.bounds_of(self._function):
            check_bound_region(self, sizes, more)
        shifted = shifted_outputs(sizes)
        if shifted:
            return realize_shifted([self], shifted)
        pipe = self.__dict__.get("_solo_pipeline")
        if pipe is None:
            from .realize import Pipeline
            pipe = Pipeline([self])          # (raises while the Func is undefined)
            self._solo_pipeline = pipe
        return pipe.realize(sizes, *more, **kw)

    def compile_jit(self, *args, **kw):
        from .realize import Pipeline
        Pipeline([self]).compile_jit(*args, **kw)
        return self

    # function-level schedule ----------------------------------------------------
    def compute_root(self):
        self._function.schedule.compute_level = ir.LoopLevel.root()
        if self._function.schedule.store_level is None or \
                self._function.schedule.store_level.is_inlined():
            self._function.schedule.store_level = ir.LoopLevel.root()
        return self

    def compute_inline(self):
        if self._function.updates:
            raise CompileError(f"Func {self.name()} has update definitions and cannot be inlined")
        self._function.schedule.compute_level = ir.LoopLevel.inlined()
        self._function.schedule.store_level = ir.LoopLevel.inlined()
        return self

    def store_root(self):
        self._function.schedule.store_level = ir.LoopLevel.root()
        return self

    def compute_at(self, g: "Func", v=None):
        """Compute this Func inside loop `v` of g's last stage (as needed by
        each iteration); one argument: a LoopLevel (halide_loop_level.py)."""
        if v is None:
            from .halide_loop_level import apply_loop_level
            return apply_loop_level(self, g, "compute_at")
        level = _loop_level(self, g, v, "compute_at")
        self._function.schedule.compute_level = level
        sl = self._function.schedule.store_level
        if sl is None or sl.is_inlined():
            self._function.schedule.store_level = level
        return self

    def set_estimates(self, estimates):
        """The region [(min, extent), ...] the automatic scheduler plans for."""
        from .autoschedule.funcapi import set_estimates
        set_estimates(self, self._function, estimates)
        return self

    def store_at(self, g: "Func", v=None):
        """Allocate this Func's storage at loop `v` of g's last stage
        (Var.outermost(): outside all of g's loops, which is root here); one
        argument: a LoopLevel (halide_loop_level.py)."""
        if v is None:
            from .halide_loop_level import apply_loop_level
            return apply_loop_level(self, g, "store_at")
        name = v if isinstance(v, str) else v.name()
        if name == "__outermost":
            self._function.schedule.store_level = ir.LoopLevel.root()
            return self
        self._function.schedule.store_level = _loop_level(self, g, v, "store_at")
        return self

    # Schedulable hooks: a Func schedules its pure stage
    def _definition(self) -> ir.Definition:
        if self._function.pure is None:
            raise CompileError(f"Func {self.name()} must be defined before it is scheduled")
        return self._function.pure

    def _stage_name(self) -> str:
        return f"Func {self.name()}"

    def _is_update(self) -> bool:
        return False


def set_pure_vars(f: Func, pure_vars: list) -> None:
    """Record the Vars of a pure definition built directly on f.function()
    (rfactor's intermediate and merge Funcs): what f.args() returns."""
    f._vars = list(pure_vars)


def _value_node(v) -> ir.Expr:
    if isinstance(v, FuncRef):
        return v.node
    return to_node(v)


class _LetNames(ir.Visitor):
    """The names bound by the Lets of expressions (not Vars of the update)."""

    def __init__(self):
        super().__init__()
        self.names = set()

    def visit_Let(self, e):
        self.names.add(e.name)
        self.visit_children(e)


def _check_update_vars(fn: ir.Function, args, values, pure: list, loc):
    """Every free Var must be a pure Var of the LHS; RVars must come from one
    RDom; self-references must use each pure Var at its own position.
    Returns the update's RDom (or None)."""
    rdoms = {}
    lets = _LetNames()
    for n in list(args) + list(values):
        lets.visit(n)
    for n in list(args) + list(values):
        for name, v in ir.free_vars(n).items():
            if v.kind == "rvar":
                rdoms.setdefault(id(v.param), v.param)
            elif v.kind == "" and name not in pure and name not in lets.names:
                raise CompileError(f"undefined variable {name} in the update of {fn.name}: "
                                   f"a Var in an update must appear alone as an argument on "
                                   f"the left{at(loc)}")
    if len(rdoms) > 1:
        names = sorted(r.name() for r in rdoms.values())
        raise CompileError(f"the update of {fn.name} uses RVars of several RDoms {names}; "
                           f"use one multi-dimensional RDom{at(loc)}")
    rdom = next(iter(rdoms.values()), None)
    if rdom is not None:
        for p in rdom.predicates():
            for name, v in ir.free_vars(p).items():
                if v.kind == "" and name not in pure:
                    raise CompileError(f"the RDom {rdom.name()} predicate uses {name}, which is "
                                       f"not a pure Var of the update of {fn.name}{at(loc)}")
    for c in ir.find_calls(list(values)):
        if c.call_type == ir.FUNC and c.func is fn:
            for d, (lhs, rhs) in enumerate(zip(args, c.args)):
                lhs_pure = isinstance(lhs, ir.Variable) and lhs.kind == "" and lhs.name in pure
                if lhs_pure and not ir.equal(lhs, rhs):
                    raise CompileError(
                        f"the update of {fn.name} reads {fn.name} at {ir.expr_to_str(rhs)} in "
                        f"dimension {d}, where it writes at the pure Var {lhs.name}: pure Vars "
                        f"of an update must be used at their own position{at(loc)}")
    return rdom


def _loop_level(f: Func, g, v, what: str) -> ir.LoopLevel:
    if not isinstance(g, Func):
        raise TypeError(f"{what} needs a Func and a Var, got {type(g).__name__}")
    if g is f:
        raise CompileError(f"Func {f.name()} cannot be computed inside its own loops")
    from .var import RDom
    if isinstance(v, RDom):           # a one-dimensional RDom is its RVar (as in Halide)
        if v.dimensions() != 1:
            raise CompileError(f"{what}({g.name()}, {v.name()}): the RDom has {v.dimensions()} "
                               f"dimensions; name one of its RVars ({v.name()}.x, ...)")
        v = v.x
    name = v if isinstance(v, str) else v.name()
    return ir.LoopLevel("at", g.name(), name)


class Stage(Schedulable):
    """One definition of a Func: `f` is its pure stage, `f.update(i)` the
    i-th update (stage index i + 1)."""

    def __init__(self, func: Func, index: int):
        self._func = func
        self._index = index

    def func(self) -> Func:
        return self._func

    def function(self) -> ir.Function:
        """The internal Function this stage is a definition of (as
        Func.function(): what rfactor and the associativity prover edit)."""
        return self._func._function

    def index(self) -> int:
        """0 for the pure definition, i + 1 for `update(i)`."""
        return self._index

    def definition(self) -> ir.Definition:
        fn = self._func._function
        return fn.pure if self._index == 0 else fn.updates[self._index - 1]

    def name(self) -> str:
        if self._index == 0:
            return self._func.name()
        return f"{self._func.name()}.update({self._index - 1})"

    def _definition(self) -> ir.Definition:
        return self.definition()

    def _stage_name(self) -> str:
        return f"Func {self.name()}"

    def _is_update(self) -> bool:
        return self._index > 0

    def atomic(self, override_associativity_test: bool = False) -> "Stage":
        """Halide's atomic(): the update `f[args] = f[args] op e` is one atomic
        read-modify-write, so a parallel loop whose iterations write the same
        element gives the serial result. pyhalide does this for integer
        `+ - min max & | ^` (an order-independent result, one LLVM atomicrmw
        per update); other updates are refused here."""
        from .lowering.atomic_updates import atomic_refusal
        why = atomic_refusal(self._func._function, self._index)
        if why:
            self._fail(f"atomic(): {why}")
        self._sched().atomic = True
        return self

    def rfactor(self, preserved, var=None) -> Func:
        """Factor this update into an intermediate Func over the preserved
        RVars (turned into the Vars given) and a merge stage (CGO 2017).
        `rfactor([(r.y, u), ...])`, `rfactor(r.y, u)` or `rfactor([])`."""
        from .rfactor import rfactor
        if var is not None:
            preserved = [(preserved, var)]
        intermediate = rfactor(self, list(preserved))
        schedule_warnings.mark_touched(self.definition())   # (as Halide: scheduled)
        return intermediate

    def unscheduled(self) -> "Stage":
        """Leave this update unscheduled on purpose: silences Halide's warning
        about an update not scheduled while other stages were."""
        fn = self._func._function
        if schedule_warnings.touched(fn, self.definition(), self._index == 0):
            raise CompileError(f"unscheduled() called on {self.name()}, which has a schedule"
                               f"{at(user_location())}")
        schedule_warnings.mark_touched(self.definition())
        return self

    def parallel_scan(self, rvar, chunk_size, variant="rescan") -> "Stage":
        """Turn this update, a scan along `rvar` (it reads its own value at
        `rvar - 1`), into chunks of `chunk_size` points scanned in parallel,
        a serial scan of the chunks' totals with the proven operator, and
        the chunks completed from those in parallel (parallel_scan.py;
        `variant` "rescan" or "apply")."""
        from .parallel_scan import parallel_scan
        return parallel_scan(self, rvar, chunk_size, variant)

    def __repr__(self):
        return f"<pyhalide.Stage {self.name()}>"


_used_names: dict = {}


def _unique_func_name(name: str) -> str:
    """Func names are unique in a process (Calls refer to Funcs by name)."""
    n = _used_names.get(name, 0)
    _used_names[name] = n + 1
    return name if n == 0 else f"{name}${n}"
