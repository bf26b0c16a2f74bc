"""One specialization of a @pipeline function (argument dtypes and
dimensions): its Funcs, its outputs, and running it on NumPy arrays."""
from __future__ import annotations

import re
import types

import numpy as np

from pyhalide import checks, ir
from pyhalide.buffer import Buffer, refuse_masked, wrap_array
from pyhalide.errors import CompileError
from pyhalide.expr import Expr
from pyhalide.func import Func
from pyhalide.ir.errors import is_in_place_fallback
from pyhalide.ir.forksafe import fresh_in_child
from pyhalide.realize import Pipeline
from pyhalide.var import Var

from . import check_order, unions
from . import complex_values as C
from .arg_views import ArgView
from .arg_writes import WrittenArgs, make_writable, written_parts
from .array_complex import ComplexArr, assemble, bind_input
from .array_shape import Reshaped, replay
from .arrays import ArgumentWritten
from .asserts import assertion_error
from .builder import Builder
from .direct_call import MISS, DirectCall
from .errors import FrontendError
from .exprs import same_global
from .in_place_args import in_place_run
from .inline_calls import FIXED_ATTR, stale_inlined
from .lifted_pins import pin_unread_lifts
from .limits import int_text
from .loop_write_slots import unroll_slots
from .names import lookup_global
from .nonneg_params import PastInt32, assume_nonneg, nonneg_ints
from .returned_layout import LocalView, Transposed, forgetting, once_per_call, shared_outs
from .scan_outputs import promote_scans
from .slide_rows import slide_rows
from .source import ParsedFunction, parse_function
from .types import BOOL, FLOAT, INT, NP
from .values import Arr, TupleVal, Val, const_val
from .zero_d_args import is_zero_d


class StaticEnv:
    """What the call-time functions (fn(env)) read: `shapes` (argument name
    -> shape) and `params` (argument name -> scalar value), whose names read
    are recorded in `params.read` (direct_call.py keys on their values)."""

    def __init__(self, shapes, params):
        self.shapes = shapes
        self.params = _Params(params)


class _Params(dict):
    """A dict that records the keys read with [] (the only way call-time
    functions read it)."""

    __slots__ = ("read",)

    def __init__(self, items):
        super().__init__(items)
        self.read = set()

    def __getitem__(self, name):
        self.read.add(name)
        return dict.__getitem__(self, name)


class Out:
    """One returned leaf: an input array, a static value, or element `index`
    of output Func number `slot`."""

    def __init__(self, kind, **kw):
        self.kind = kind
        self.__dict__.update(kw)


def arg_spec(value):
    """The specialization key of one argument value (an array of the other
    byte order has the key of its native dtype: _run converts it)."""
    if type(value) is np.ndarray and value.ndim == 0:
        # a scalar to arithmetic, an array otherwise
        return ("np", value.dtype.newbyteorder("=").str, "0-d")
    if isinstance(value, np.ndarray):
        refuse_masked(value, "@pipeline")
        # the axes of size 1 decide NumPy broadcasting, which is compiled;
        # the memory layout decides the order of NumPy's float sums
        return ("array", value.dtype.newbyteorder("=").str, value.ndim,
                tuple(k for k, n in enumerate(value.shape) if n == 1), array_layout(value))
    if isinstance(value, np.generic):     # before float: np.float64 is a float subclass
        return ("np", value.dtype.str)
    if isinstance(value, bool):
        return ("bool",)
    if isinstance(value, int):
        return ("int",)
    if isinstance(value, float):
        return ("float",)
    if isinstance(value, complex):
        return ("complex",)
    if value is None:
        return ("const", None)
    if isinstance(value, tuple):
        return ("const", ("tuple", tuple(_const_item(v) for v in value)))
    if callable(value) and getattr(value, "__code__", None) is not None or \
            hasattr(value, "py_func"):
        return ("const", value)      # a function: calls of it are inlined (inline_calls)
    raise TypeError(f"@pipeline arguments must be NumPy arrays or scalars, not "
                    f"{type(value).__name__}")


def _const_item(v):
    """The key of one item of a tuple argument: the value itself, exactly
    (a tuple is compiled as a constant)."""
    if isinstance(v, tuple):
        return ("tuple", tuple(_const_item(x) for x in v))
    if isinstance(v, np.generic):
        return ("np", v.dtype.str, v.tobytes())
    if isinstance(v, float):
        return ("float", v.hex())
    if isinstance(v, (bool, int)) or v is None:
        return (type(v).__name__, v)
    raise TypeError(f"@pipeline tuple arguments must hold scalars, not {type(v).__name__}")


def _const_value(key):
    """The value a tuple argument's key stands for (see _const_item)."""
    kind = key[0]
    if kind == "tuple":
        return tuple(_const_value(k) for k in key[1])
    if kind == "np":
        return np.frombuffer(key[2], dtype=np.dtype(key[1]))[0]
    if kind == "float":
        return float.fromhex(key[1])
    return key[1]


def array_layout(v):
    """The memory layout of an array as far as NumPy's visiting order
    depends on it (sum_order.memory_order): "C", "F", or (the axes longer
    than 1 by decreasing stride, per adjacent pair whether they merge into
    one run of memory), with a third element True where the innermost of
    them has a negative stride."""
    if v.flags.c_contiguous:
        return "C"
    if v.flags.f_contiguous:
        return "F"
    big = [k for k in range(v.ndim) if v.shape[k] > 1]
    perm = tuple(sorted(big, key=lambda k: -abs(v.strides[k])))
    if not perm:
        return "C"
    # one axis with a step (a[::2]) is not "C": its ravel is a copy, as NumPy's
    merges = tuple(v.strides[o] == v.strides[i] * v.shape[i] for o, i in zip(perm, perm[1:]))
    # the innermost axis read backwards (a[:, ::-1]; the kernel reads a copy):
    # NumPy's reductions run their strided loops along it (numpy_zero_ties)
    return (perm, merges, True) if v.strides[perm[-1]] < 0 else (perm, merges)


def _layout_matcher(layout):
    if layout == "C":
        return lambda v: v.flags.c_contiguous or array_layout(v) == "C"
    return lambda v: array_layout(v) == layout


def in_native_byte_order(args):
    """`args` with each array argument of the other byte order (big-endian
    data here) replaced by a copy in the native order, of the same layout
    (`args` itself when there is none). The kernels load and store native
    values; NumPy computes on either order and gives native results."""
    out = None
    for k, v in enumerate(args):
        if isinstance(v, np.ndarray) and not v.dtype.isnative:
            if out is None:
                out = list(args)
            out[k] = v.astype(v.dtype.newbyteorder("="), order="K")
    return args if out is None else out


def _matcher(key):
    """A test that a value has argument key `key` (see arg_spec), for values
    of exactly the types arg_spec names."""
    if key[0] == "array":
        dtype, ndim, ones = np.dtype(key[1]), key[2], key[3]
        layout = key[4] if len(key) > 4 else "C"
        if layout == "C" and not ones:       # the common case, without a generator
            return lambda v: type(v) is np.ndarray and (v.dtype is dtype or v.dtype == dtype) \
                and v.ndim == ndim and 1 not in v.shape and \
                (v.flags.c_contiguous or array_layout(v) == "C")
        layout = _layout_matcher(layout)
        return lambda v: type(v) is np.ndarray and v.dtype == dtype and v.ndim == ndim and \
            tuple(k for k, n in enumerate(v.shape) if n == 1) == ones and layout(v)
    if key[0] == "np":
        dtype = np.dtype(key[1])
        if key[2:] == ("0-d",):     # never on the fast path: run() takes the scalar
            return lambda v: False
        return lambda v: isinstance(v, np.generic) and v.dtype == dtype
    if key[0] == "const":
        if isinstance(key[1], tuple):
            return lambda v: isinstance(v, tuple) and _same_key(v, key)
        return lambda v: v is key[1]
    exact = {"bool": bool, "int": int, "float": float, "complex": complex}[key[0]]
    return lambda v: type(v) is exact


_EXACT_KEYS = (int, bool, type(None), np.bool_, np.int8, np.int16, np.int32, np.int64,
               np.uint8, np.uint16, np.uint32, np.uint64)


def _static_key(shapes: dict, params: dict):
    """What the call-time checks and computed parameters of a call depend
    on (they are functions of the array shapes and scalar arguments alone),
    as a dict key; None when a scalar is not an integer, bool or None (float
    keys would equate -0.0 with 0.0 and never match NaN: recomputed)."""
    for v in params.values():
        if type(v) not in _EXACT_KEYS:
            return None
    return tuple(shapes.values()), tuple(params.values())


def _same_key(v, key) -> bool:
    try:
        return arg_spec(v) == key
    except TypeError:
        return False


def builder_spec(key):
    if key[0] == "array":
        return ("array", np.dtype(key[1]), key[2], key[3], key[4] if len(key) > 4 else "C")
    if key[0] == "np":
        return ("np", np.dtype(key[1])) + key[2:]
    if key[0] == "const" and isinstance(key[1], tuple):
        return ("const", TupleVal([_const_val(x) for x in _const_value(key[1])]))
    return key


def _const_val(v):
    if isinstance(v, tuple):
        return TupleVal([_const_val(x) for x in v])
    return v if v is None else const_val(v)


def _check_fixed(pf, key, exprs):
    """A parameter whose default function the body calls (inline_calls
    compiled that function) must be passed that function; the names of the
    functions inlined are recorded (global_reads)."""
    fixed = getattr(pf.tree, FIXED_ATTR, {})
    for name, k in zip(pf.params, key):
        if name in fixed:
            fn, call = fixed[name]
            if k[0] != "const" or getattr(k[1], "py_func", k[1]) is not fn:
                raise pf.smap.error(call, f"{name!r} is called here, so it must be its default "
                                          f"function {fn.__name__!r}: the call is compiled "
                                          f"with that function's code",
                                    hint=f"decorate a function that calls the other function "
                                         f"directly instead of passing it as {name!r}")
    exprs.record_inlined(pf.tree)


class Specialization:
    # a Dask window's (dask_window.Window): its reads outside the window are
    # its own signal (OutsideWindow), never told by the plain function
    in_window = False

    def __init__(self, pf, key, schedule=None, target=None, wide=False):
        """`wide`: the build for int arguments >= 2**30 (nonneg_params.py)."""
        self.pf = pf
        self.key = key
        self._schedule = schedule
        self._wide = None             # the wide build's Specialization, made on first use
        if stale_inlined(pf.tree):
            # a function the body calls was redefined: parsed again, so the
            # call compiles the function the name has now (as Python calls it)
            vars(pf).update(vars(parse_function(pf.fn)))
        pf.check_supported()
        b, result, written = _build(pf, key, "auto" if getattr(schedule, "automatic", False)
                                    else schedule is not None, wide)
        self.builder = b
        # globals other than modules, checked before each call (a new value
        # of a global scalar gives a new specialization)
        self.global_reads = {n: v for n, v in b.exprs.global_reads.items()
                             if not isinstance(v, types.ModuleType)}
        self.out_funcs = []           # [(Func, shape fn)] realized together
        self.result = self._outputs(result)
        for arr in b.array_code.checked:
            # computed whole as an unreturned output: its checks see every element
            self._slot(arr.versions[0], [s.static for s in arr.shape])
        for v in b.sinks:
            # a scalar that may raise, computed as an unreturned output (check_order)
            self._outputs(v)
        self.written = None           # arg_writes.WrittenArgs, if it writes arguments
        if written:
            slots = []
            for arr in written:
                parts = written_parts(arr)
                for part in parts:
                    b.defs.ensure_defined(part)
                slots.append([self._slot(p.func, [s.static for s in p.shape]) for p in parts])
            self.written = WrittenArgs(pf.params, [a.arg_name for a in written], slots)
        # written arguments computed in the caller's array (in_place_args.py):
        # the pairs, made on the first eligible call, and a refused variant
        self.in_place_pairs = False
        self.in_place_refused = False
        for func, shape_fns in check_order.unrealized_checked(b, self.out_funcs):
            self._slot(func, shape_fns)       # checks of arrays no output reads
        # a lifted value the same in every iteration: computed at one
        pin_unread_lifts([(lf.base.function(), [v.name() for v in lf.vars])
                          for lf in b.array_code.lifted if lf.base.defined()],
                         [f.function() for _, f, _ in b.funcs if f.defined()])
        promote_scans(b)              # a running value stored per iteration: in the array
        fresh_in_child(self, "lock")     # guards the Funcs' bound inputs and params
        self._pipeline = None
        self._converter = None        # result converter, output layout: built on first run
        self._layout = None
        self._matchers = [_matcher(k) for k in key]
        self._static_seen = {}        # _static_key -> _static_values of a call that passed
        self._direct = None           # direct_call.DirectCall, after a call that ran the kernel
        self._no_direct = False       # the fast path does not apply to this specialization
        self.exposed = False          # its Funcs were handed out (direct_call.py)
        self.schedule_info = None
        if schedule is not None:
            self.schedule_info = schedule(self)
        self.default_schedule()

    def accepts(self, values) -> bool:
        """Whether these argument values have this specialization's key and
        the globals the code read are unchanged: the call fast path's check,
        by exact types (anything else takes the general path through the key)."""
        for match, v in zip(self._matchers, values):
            if not match(v):
                return False
        return not self.global_reads or self.globals_current()

    def globals_current(self) -> bool:
        """Whether every global the code read still has the value it had."""
        fn = self.pf.fn
        for name, v in self.global_reads.items():
            if not same_global(lookup_global(fn, name), v):
                return False
        return True

    # outputs ------------------------------------------------------------------------------
    def _outputs(self, r):
        b = self.builder
        if r is None:
            return Out("const", value=None)
        if isinstance(r, TupleVal):
            return Out("tuple", items=[self._outputs(x) for x in r.items])
        if isinstance(r, Reshaped):     # a reshape view of a whole array: NumPy's reshape
            memo = self.__dict__.setdefault("_reshaped_outs", {})
            if id(r) not in memo:
                memo[id(r)] = (r, Out("reshape", inner=self._outputs(r.base), steps=r.steps))
            return memo[id(r)][1]
        if isinstance(r, ArgView):      # NumPy's view of the caller's array
            return Out("input_view", name=r.name, view=r)
        if isinstance(r, Transposed):   # an array in NumPy's memory order (one object)
            memo = self.__dict__.setdefault("_transposed_outs", {})
            if id(r) not in memo:
                memo[id(r)] = (r, Out("transpose", inner=self._outputs(r.base), axes=r.axes))
            return memo[id(r)][1]
        if isinstance(r, LocalView):    # NumPy's view of a returned array
            return Out("local_view", inner=self._outputs(r.base), view=r.view)
        if isinstance(r, ComplexArr) and r.kind != "input" and r.arg_name is None:
            re, im = (self._outputs(p) for p in r.parts())
            return Out("complex_array", re=re, im=im, dtype=r.ty.dtype)
        if isinstance(r, Arr) and getattr(r, "alternatives", None):
            # one of several arrays by a loop's trip count (carried_rotation.py)
            alts, r.alternatives = r.alternatives, None
            try:
                return Out("union", alts=[(None if c is None else self._scalar_out(c),
                                           self._outputs(r if a is None else a))
                                          for c, a in alts])
            finally:
                r.alternatives = alts
        if isinstance(r, Arr):
            if (r.kind == "input" or r.arg_name is not None) and getattr(r, "part_of", None):
                return Out("input_part", name=r.arg_name, attr=r.part_of)
            if r.kind == "input" or r.arg_name is not None:    # an argument, maybe written
                return Out("input", name=r.arg_name)
            b.defs.ensure_defined(r)
            slot = self._slot(r.func, [s.static for s in r.shape])
            return Out("array", slot=slot, index=0, ndim=r.ndim, name=r.name)
        if isinstance(r, Val):
            arg = next((n for n, v in b.arg_vals.items() if v is r), None)
            if arg is not None:         # the argument itself (a 0-d array stays one)
                return Out("input", name=arg)
            if is_zero_d(b.cx, r):         # np.where of scalars: a 0-d array
                return Out("zero_d", item=self._scalar_out(r), dtype=r.ty.dtype)
            if r.union:
                # the alternative whose condition holds; each is computed only
                # where its condition holds (its checks must not fire otherwise)
                alts = []
                for i, (c, v) in enumerate(r.union):
                    last = i == len(r.union) - 1
                    cond = None if last else self._scalar_out(c)
                    alts.append((cond, self._outputs(unions.lazy_alternative(c, v))))
                return Out("union", alts=alts)
            if C.is_complex(r):
                return Out("complex", re=self._scalar_out(r.re), im=self._scalar_out(r.im),
                           ty=r.ty)
            return self._scalar_out(r)
        if isinstance(r, (str,)) or r is None:
            return Out("const", value=r)
        raise FrontendError(f"cannot return {b.exprs.describe_obj(r)} from a compiled function")

    def _scalar_out(self, r: Val):
        if r.is_const:
            return Out("const", value=r.const)
        if r.is_static and (r.node is None or (not ir.find_calls(r.node) and
                                               not _has_check(r.node))):
            return Out("static", fn=r.static, ty=r.ty)
        fallback = None
        if r.origin is not None:
            g, k = r.origin
            flag = g.flag_of.get(g.names[k])
            if g.init[k] is None and flag is not None:
                # first assigned in the loop: unbound if the loop never assigned it
                fallback = (g.names.index(flag), Out("unbound", name=g.names[k]))
        slot, index = self._scalar_slot(r)
        return Out("scalar", slot=slot, index=index, ty=r.ty, fallback=fallback)

    def _slot(self, func, shape_fns):
        for i, (f, _) in enumerate(self.out_funcs):
            if f is func:
                return i
        self.out_funcs.append((func, shape_fns))
        return len(self.out_funcs) - 1

    def _scalar_slot(self, v: Val):
        n = v.node
        if isinstance(n, ir.Call) and n.call_type == ir.FUNC and not n.args and \
                n.func is not None:
            for pyname, f, owner in self.builder.funcs:
                if f.function() is n.func:
                    return self._slot(f, []), n.value_index
        f = self.builder.emitter.new_func("result")
        f[()] = Expr.wrap(n)
        return self._slot(f, []), 0

    # schedules ---------------------------------------------------------------------------
    def default_schedule(self):
        """The serial order and loop structure of the Python code: a scalar
        local to a loop nest computed inside it, at the innermost loop of its
        consumer; an array read once (_inlined, below) inlined into its
        consumer; other arrays at root in program order, but those read at
        rows of one consumer computed row by row in its loop (slide_rows)."""
        funcs = [(f, owner) for _, f, owner in self.builder.funcs if f.defined()]
        todo, local = [], {}
        for f, owner in funcs:
            sch = f.function().schedule
            if sch.compute_level is not None or sch.store_level is not None:
                continue                    # the user's schedule placed it
            todo.append(f)
            level = self._local_level(f, owner, funcs) if getattr(owner, "ctx", None) else None
            if level is not None:
                local[id(f)] = level
        outputs = {id(f.function()) for f, _ in self.out_funcs}
        outputs |= {id(f.function()) for f in todo if id(f) in local}
        targets = {level[0].name() for level in local.values()}
        # (an automatic schedule places the Funcs read at several points itself:
        # computed per tile of their consumer, not inlined as cheap)
        reads = _reads([f for f, _ in funcs])
        inline = _inlined([f for f, _ in funcs], reads,
                          outputs, targets, cheap=self.builder.cx.scheduled != "auto")
        roots = []
        owners = {id(f): owner for f, owner in funcs}
        for f in todo:
            if id(f.function()) in inline:
                f.compute_inline()
                continue
            if id(f) not in local or not _point_local(f, owners[id(f)]):
                _stride_one_inner(f)
            unroll_slots(f)
            hint = getattr(f, "default_hint", None)
            if hint is not None and hint(f):
                continue        # a helper Func's own default placed it (sum_order)
            if id(f) in local:
                try:
                    f.compute_at(*local[id(f)])
                    continue
                except Exception:      # pragma: no cover - fall back to root
                    pass
            f.compute_root()
            roots.append(f)
        if self.builder.cx.scheduled != "auto":
            slide_rows(roots, reads, inline)

    def _local_level(self, f, g, funcs):
        if g.scan:
            return None
        fn = f.function()
        consumers = []
        for c, _ in funcs:
            if c is f:
                continue
            for d in c.function().definitions():
                calls = ir.find_calls(list(d.values) + list(d.args) + list(d.predicates))
                if any(k.call_type == ir.FUNC and k.func is fn for k in calls):
                    consumers.append(c)
                    break
        if len(consumers) != 1:
            return None
        c = consumers[0]
        inner = g.ctx[-1]
        last = len(c.function().updates)
        entries = [var for label, loop, var, func in self.builder.var_log
                   if func is c and loop is inner]
        stage_of = [k for (func, k, loc, label) in self.builder.def_log if func is c]
        if not entries or not stage_of or stage_of[-1] != last:
            return None
        return c, entries[-1]

    def pipeline(self):
        if self._pipeline is None:
            funcs = [f for f, _ in self.out_funcs]
            if not funcs:
                self._pipeline = False
                return None
            dims = max(f.dimensions() for f in funcs)
            self.wrapped = []
            outs = []
            for f, shape in self.out_funcs:
                if f.dimensions() == dims:
                    outs.append(f)
                    self.wrapped.append(f)
                    continue
                w = Func(f.name() + "_out")
                vs = [Var(f"v{i}$") for i in range(dims)]     # "$": never an argument's name
                ref = f[tuple(vs[:f.dimensions()])] if f.dimensions() else f[()]
                w[tuple(vs)] = tuple(ref) if f.outputs() > 1 else ref
                w.compute_root()
                outs.append(w)
                self.wrapped.append(w)
            self.dims = dims
            self._pipeline = Pipeline(outs)
        return self._pipeline or None

    # running -------------------------------------------------------------------------------
    def bind(self, args):
        b = self.builder
        shapes, params = {}, {}
        for name, v in zip(self.pf.params, args):
            inp = b.inputs.get(name)
            if isinstance(inp, ComplexArr):
                shapes[name] = v.shape
                bind_input(inp, v, _buffer)
            elif isinstance(inp, Arr):
                shapes[name] = v.shape
                inp.image.set(_buffer(v, name))
            elif inp is not None:
                if isinstance(v, (bool, int, float, complex)) or isinstance(v, np.generic):
                    if isinstance(v, int) and not isinstance(v, bool) and \
                            not -(1 << 63) <= v < (1 << 63):
                        raise OverflowError(f"Python int argument {name}={int_text(v)} does not fit in "
                                            f"int64")
                    inp.set(v)
                params[name] = v
            else:
                params[name] = v
        env = StaticEnv(shapes, params)
        key = _static_key(shapes, params)
        seen = self._static_seen.get(key) if key is not None else None
        if seen is None:
            values = self._static_values(env)
            if key is not None:
                if len(self._static_seen) >= 64:
                    self._static_seen.clear()
                self._static_seen[key] = values, frozenset(env.params.read)
        else:
            values, read = seen
            env.params.read.update(read)      # what computing them read
        for param, val in values:
            param.set(val)
        zero = _check_buffer()
        for c in b.cx.check_images:
            c.image.set(zero)
        return env

    def _static_values(self, env) -> list:
        """Run the call-time checks on `env` (raising what they raise) and
        return [(Param, value)] of the scalar parameters computed from it."""
        b = self.builder
        checks_ = b.cx.static_checks
        for check, loc in zip(checks_, checks_.locs):
            try:
                check(env)
            except Exception as e:
                raise check_order.tag(e, loc, call_time=True)
        used = self._used_params()
        values = []
        for sp in b.cx.static_params:
            if sp.param.name() not in used:
                continue
            try:
                val = sp.fn(env)
            except Exception as e:
                raise check_order.tag(e, sp.loc, call_time=True)
            if sp.type.is_int():
                val = int(val)
                if not -(1 << 63) <= val < (1 << 63):
                    raise OverflowError(f"Python int {int_text(val)} does not fit in int64")
            values.append((sp.param, val))
        return values

    def _used_params(self):
        """Names of the scalar parameters the pipeline's definitions use."""
        if getattr(self, "_used", None) is None:
            used = set()
            seen = set()
            stack = [f.function() for f, _ in self.out_funcs]
            while stack:
                fn = stack.pop()
                if id(fn) in seen:
                    continue
                seen.add(id(fn))
                for d in fn.definitions():
                    exprs = list(d.args) + list(d.values) + list(d.predicates)
                    exprs += [x for rv in d.schedule.rvars for x in (rv.min, rv.extent)]
                    for name, v in ir.free_vars(exprs).items():
                        if v.kind == "param":
                            used.add(name)
                    for c in ir.find_calls(exprs):
                        if c.call_type == ir.FUNC and c.func is not None:
                            stack.append(c.func)
            self._used = used
        return self._used

    def output_layout(self):
        """Per output Func: its shape functions and its elements' dtypes."""
        if self._layout is None:
            self._layout = [(shape_fns, [t.to_numpy() for t in f.types()])
                            for f, shape_fns in self.out_funcs]
        return self._layout

    def run(self, args, given=None):
        """Call on argument values (`given`: the values as passed, which a
        returned argument is; default args). A call whose shapes, strides
        and call-time scalars an earlier call had runs the kernel directly
        (direct_call.py); otherwise binding the values to the Funcs' inputs
        and params and reading them back happen under the lock; the kernel
        runs outside it, so calls from several threads run at once. Of the
        checks that fail, the exception is the one Python raises first
        (check_order)."""
        try:
            direct = self._direct
            if direct is not None and given is None:
                out = direct.call(args)
                if out is not MISS:
                    return out
            return self._run(args, given)
        except PastInt32:
            # an int argument >= 2**30 of the int32 nonneg build: the wide one
            return self.wide().run(args, given)
        except Exception as e:
            if not is_in_place_fallback(e):
                self._raise(e, args, given)
        # an in-place kernel's hoisted loop checks failed (lowering/
        # in_place_checks.py), before any store: the call again, on copies
        try:
            return self._run(args, given, False)
        except Exception as e:
            self._raise(e, args, given)

    def wide(self):
        """The specialization for the same key with the nonneg build's int
        arguments int64 values (nonneg_params.py), made on first use."""
        with self.lock:
            if self._wide is None:
                self._wide = Specialization(self.pf, self.key, self._schedule, wide=True)
            return self._wide

    def _raise(self, e, args, given):
        """Raise the exception Python raises first, given the call's e."""
        if check_order.loc_of(e) is None:
            if check_order.index_wrap(e) or (
                    not self.in_window and check_order.input_bounds_untold(self, e)):
                check_order.raise_plain(self, e, args if given is None else given)
            raise e
        check_order.raise_first(self, e, args, given)

    def prefix(self, k: int):
        """The specialization of the function cut before its top-level
        statement k, for the same arguments (None if it does not compile)."""
        cache = self.__dict__.setdefault("_prefixes", {})
        if k not in cache:
            pf = ParsedFunction(self.pf.fn, check_order.prefix_tree(self.pf.tree, k),
                                self.pf.smap)
            pf.cut = k, len(self.pf.tree.body)      # (_build cuts its other parses so)
            try:
                cache[k] = Specialization(pf, self.key)
            except CompileError:
                cache[k] = None
        return cache[k]

    def _run(self, args, given, in_place_ok=True):
        call = None
        in_place = ()                 # positions of the arguments computed in place
        if self.written is not None:
            self.written.check(args)
        # arrays of the other byte order are computed on as native copies;
        # written ones get the final values back (copy_back: into `args`)
        native = in_native_byte_order(args)
        with self.lock:
            env = self.bind(native)
            pipe = self.pipeline()
            if pipe is not None:
                bufs = []
                shapes = []
                for shape_fns, dtypes in self.output_layout():
                    shape = tuple([int(fn(env)) for fn in shape_fns])
                    shapes.append(shape)
                    full = (1,) * (self.dims - len(shape)) + shape
                    bufs.extend([np.empty(full, dtype=dt) for dt in dtypes])
                if self.written is not None and native is args and in_place_ok:
                    made = in_place_run(self, env, pipe, bufs, shapes, args)
                    if made is not None:
                        call, in_place = made
                if call is None:
                    call = self.reported(env, pipe.kernel_call, bufs)
        outs = []
        if call is not None:
            kernel, buffers, params, graph, plan = call
            self.reported(env, kernel, buffers, params, True)
            k = 0
            for (_, dtypes), shape in zip(self.output_layout(), shapes):
                mine = bufs[k:k + len(dtypes)]
                outs.append(mine if len(shape) == self.dims else
                            [b.reshape(shape) for b in mine])
                k += len(dtypes)
            if self.written is not None:
                self.written.copy_back(args, outs, in_place)
        result = self.result_converter()(outs, args if given is None else given, env)
        if native is args:
            self._remember(args, env, call, shapes if call is not None else [])
        return result

    def _remember(self, args, env, call, shapes):
        """Record a call for the fast path (direct_call.py): one that ran the
        kernel, or (call None) one of a specialization without a kernel."""
        if self._no_direct:
            return
        kernel, buffers, params, graph, plan = call if call is not None else (None,) * 5
        direct = self._direct
        if direct is None or direct.graph is not graph:    # (a changed Function: a new graph)
            direct = DirectCall.build(self, graph, plan, _check_buffer().numpy())
            if direct is None:
                self._no_direct = True
                return
            self._direct = direct
        direct.remember(args, env, kernel, buffers, params, shapes)

    def drop_direct(self):
        """Forget the fast path (a Function of the graph changed)."""
        self._direct = None

    @property
    def direct(self):
        """The fast path (direct_call.DirectCall), or None (pyhalide/dispatch.py)."""
        return self._direct

    def reported(self, env, fn, *args):
        """fn(*args), with compile and kernel errors in the user's terms."""
        try:
            return fn(*args)
        except CompileError as e:
            raise self.located(e) from None
        except IndexError as e:
            raise self.translate(e, env) from None
        except ValueError as e:
            if "is read over" in str(e) and "input buffer" in str(e):
                raise IndexError(f"index out of bounds: {e}") from None
            raise

    def located(self, e: CompileError) -> CompileError:
        """A compile error of lowering, in the user's names and at the line of
        the first definition it names."""
        from .errors import Loc
        from .schedules import in_user_names
        if isinstance(e, FrontendError):
            return e
        text = str(e)
        loc = None
        for pyname, f, owner in self.builder.funcs:
            fn = f.function()
            if re.search(r"(?<![\w$.])" + re.escape(fn.name) + r"(?![\w$])", text):
                for d in list(fn.updates) + [fn.pure]:
                    src = d.source if d is not None else None
                    if src is not None:
                        lines = self.pf.smap.lines
                        line = lines[src.line - 1] if 0 < src.line <= len(lines) else src.text
                        loc = Loc(src.file, src.line, src.col, line, max(1, len(src.text)))
                        break
                if loc is not None:
                    break
        in_user_names(self, e)
        if loc is None:
            return e
        return FrontendError(str(e), loc, "")

    def translate(self, e: IndexError, env=None):
        from .schedules import in_user_names
        in_user_names(self, e)
        msg = str(e)
        for c in self.builder.cx.check_images:
            if c.index is not None and c.image.name() + " " in msg + " ":
                return check_order.tag(IndexError(_index_message(c, msg, env)), c.loc)
        m = _INPUT_OOB.search(msg)
        if m is not None:
            name, dim = m.group(1), int(m.group(3))
            arr = self.builder.inputs.get(name)
            if arr is not None and hasattr(arr, "ndim"):
                axis = arr.ndim - 1 - dim
                return IndexError(f"index out of bounds for axis {axis} of array {name!r} "
                                  f"in {self.pf.name}()")
        for c in self.builder.cx.check_images:
            if c.image.name() + " " in msg + " " and callable(c.message) and env is not None:
                # a call-time value that raises where the kernel computes it
                # (context.deferred_static): what computing it raises
                try:
                    c.message(env)
                except Exception as failure:
                    return check_order.tag(failure, c.loc)
            if c.image.name() + " " in msg + " " and isinstance(c.message, tuple):
                # an assert or raise statement: its exception with its arguments
                return check_order.tag(assertion_error(c.message, c.loc, c.exc), c.loc)
            if c.image.name() + " " in msg + " ":
                exc = {"IndexError": IndexError, "OverflowError": OverflowError,
                       "ZeroDivisionError": ZeroDivisionError, "ValueError": ValueError,
                       "NotImplementedError": NotImplementedError}[c.exc]
                where = f" ({c.loc.file}:{c.loc.line})" if c.loc is not None else ""
                return check_order.tag(exc(c.message + where), c.loc)
        return e

    def result_converter(self):
        """converter(self.result), built once."""
        if self._converter is None:
            shared = shared_outs(self.result)
            self._shared_outs = dict.fromkeys(shared)   # id -> its converter, once made
            conv = self.converter(self.result)
            self._converter = forgetting(conv) if shared else conv
        return self._converter

    def converter(self, o: Out):
        """convert(o, ...) as a function of (outs, args, env), built once per
        specialization: the common leaves (scalars, arrays, tuples of them)
        become closures, the rest calls convert."""
        shared = getattr(self, "_shared_outs", {})
        if id(o) in shared:             # used twice in the result: one object per call
            if shared[id(o)] is None:
                shared[id(o)] = False   # (being made: the plain converter below)
                shared[id(o)] = once_per_call(o, self.converter(o))
            if shared[id(o)]:
                return shared[id(o)]
        if o.kind == "tuple":
            parts = [self.converter(x) for x in o.items]
            return lambda outs, args, env: tuple([part(outs, args, env) for part in parts])
        if o.kind == "scalar" and o.fallback is None:
            slot, index = o.slot, o.index
            read = _scalar_reader(o.ty, self.output_layout()[slot][1][index])
            return lambda outs, args, env: read(outs[slot][index])
        if o.kind == "array":
            slot, index = o.slot, o.index
            return lambda outs, args, env: outs[slot][index]
        if o.kind == "reshape":
            inner, steps = self.converter(o.inner), o.steps
            return lambda outs, args, env: replay(inner(outs, args, env), steps, env)
        if o.kind == "transpose":
            inner, axes = self.converter(o.inner), o.axes
            return lambda outs, args, env: inner(outs, args, env).transpose(axes)
        if o.kind == "local_view":
            inner, build = self.converter(o.inner), o.view.build
            return lambda outs, args, env: build(inner(outs, args, env), env)
        if o.kind == "zero_d":
            item, dtype = self.converter(o.item), o.dtype
            return lambda outs, args, env: np.asarray(item(outs, args, env), dtype)
        if o.kind == "const":
            value = o.value
            return lambda outs, args, env: value
        if o.kind == "static":
            fn = o.fn
            return lambda outs, args, env: fn(env)
        if o.kind == "union":
            alts = [(None if c is None else self.converter(c), self.converter(a))
                    for c, a in o.alts]

            def union(outs, args, env):
                for cond, alt in alts:
                    if cond is None or bool(cond(outs, args, env)):
                        return alt(outs, args, env)
                return None
            return union
        return lambda outs, args, env: self.convert(o, outs, args, env)

    def convert(self, o: Out, outs, args, env):
        if o.kind == "tuple":
            return tuple(self.convert(x, outs, args, env) for x in o.items)
        if o.kind == "const":
            return o.value
        if o.kind == "zero_d":
            return np.asarray(self.convert(o.item, outs, args, env), o.dtype)
        if o.kind == "reshape":
            return replay(self.convert(o.inner, outs, args, env), o.steps, env)
        if o.kind == "transpose":
            return self.convert(o.inner, outs, args, env).transpose(o.axes)
        if o.kind == "local_view":
            return o.view.build(self.convert(o.inner, outs, args, env), env)
        if o.kind == "input":
            return args[self.pf.params.index(o.name)]
        if o.kind == "input_view":
            return o.view.build(args[self.pf.params.index(o.name)], env)
        if o.kind == "input_part":           # a.real / a.imag of a complex argument
            return getattr(args[self.pf.params.index(o.name)], o.attr)
        if o.kind == "static":
            return o.fn(env)
        if o.kind == "unbound":
            raise UnboundLocalError(f"cannot access local variable {o.name!r} where it is not "
                                    f"associated with a value (the loop never assigned it)")
        if o.kind == "union":
            for cond, alt in o.alts:
                if cond is None or bool(self.convert(cond, outs, args, env)):
                    return self.convert(alt, outs, args, env)
            return None
        if o.kind == "array":
            return outs[o.slot][o.index]
        if o.kind == "complex":
            re, im = (self.convert(x, outs, args, env) for x in (o.re, o.im))
            return o.ty.python_value(complex(re, im))
        if o.kind == "complex_array":
            re, im = (self.convert(x, outs, args, env) for x in (o.re, o.im))
            return assemble(o.dtype, re, im)
        if o.kind == "scalar":
            raw = outs[o.slot][o.index][()]
            if o.fallback is not None:
                flag, init_out = o.fallback
                if not bool(outs[o.slot][flag][()]):
                    return self.convert(init_out, outs, args, env)
            return o.ty.python_value(raw)
        raise AssertionError(o.kind)


def _build(pf, key, scheduled=False, wide=False):
    """(Builder, what the function returns, [written argument Arrs]); a
    function that does not compile is built again with its int arguments
    >= 0 (nonneg_params.py): as int32 values below 2**30 from its source
    rewritten with those arguments known to be ints (a `while` counter
    compared with one reads as the loop's position: loop_counter_index.py),
    else (or with `wide`: for a call with one >= 2**30) as int64 values, and
    its first error raised if that fails too."""
    if wide:        # (asked for after the first build failed: tried only if this fails)
        try:
            return _build_as(pf, key, scheduled, nonneg_ints(pf, key), wide=True)
        except Exception:
            pass
    try:
        return _build_with_blocks(pf, key, scheduled)
    except FrontendError as e:
        names = nonneg_ints(pf, key)
        if not names or wide:
            raise
        for source, wide_ in ((_with_int_args(pf, names), False), (pf, True)):
            if source is not None:
                try:
                    return _build_as(source, key, scheduled, names, wide_)
                except Exception:
                    pass
        raise e from None


def _build_with_blocks(pf, key, scheduled):
    """_build_as without assumptions; where a top-level loop nest reads an
    array at positions it writes that deps.py cannot relate (in-place LU,
    Cholesky), built again with that nest in phase mode (its inner loops as
    Blocks, carried_blocks.py: Python's order), and the first error raised
    if that fails too."""
    try:
        return _build_as(pf, key, scheduled, ())
    except FrontendError as e:
        if getattr(e, "loop_run_checks", False):
            # (a shape check made per iteration under an `if` of data reads
            # what the nest cannot give it: made at call time instead)
            try:
                return _build_as(pf, key, scheduled, (), loop_checks=False)
            except FrontendError:
                pass
        nest = getattr(e, "nest", None)
        if nest is None:
            raise
        try:
            return _build_as(pf, key, scheduled, (), blocks=frozenset([nest]))
        except FrontendError:
            raise e from None


def _with_int_args(pf, names):
    """pf parsed again with the int arguments `names` known to be ints (cut
    as pf is, a prefix of check_order), or None where that cut is unknown."""
    try:
        ints = parse_function(pf.fn, frozenset(names))
        ints.check_supported()
    except Exception:
        return None
    if pf.cut is not None:
        k, whole = pf.cut
        if len(ints.tree.body) != whole:
            return None
        ints = ParsedFunction(pf.fn, check_order.prefix_tree(ints.tree, k), ints.smap)
    return ints


def _build_as(pf, key, scheduled, nonneg, wide=False, blocks=frozenset(), loop_checks=True):
    """_build's result, the int arguments `nonneg` assumed >= 0 (`wide`: as
    int64 values): the function built again, with the argument writable,
    each time the build writes into an argument set up read-only
    (arg_writes.py); `blocks`: the ids of the top-level loops run in phase
    mode with Blocks (carried_arrays.block_swaps); `loop_checks`:
    Context.loop_run_checks (a refusal of a build that made such a check
    says so: its `loop_run_checks` attribute)."""
    written = []
    while True:
        b = Builder(pf, [builder_spec(k) for k in key])
        b.cx.scheduled = scheduled
        b.cx.block_nests = blocks
        b.cx.loop_run_checks = loop_checks
        if nonneg:
            assume_nonneg(b, nonneg, wide)
        _check_fixed(pf, key, b.exprs)
        arrs = [make_writable(b, name) for name in written]
        try:
            return b, b.build(), arrs
        except FrontendError as e:
            if b.cx.loop_run_checks_made:
                e.loop_run_checks = True
            raise
        except ArgumentWritten as e:
            if e.name in written:      # pragma: no cover - made writable above
                raise AssertionError(f"argument {e.name} written while writable") from None
            written.append(e.name)


def _scalar_reader(ty, dtype):
    """A reader of the value of type `ty` from a one-element output array
    of `dtype`: what ty.python_value(arr[()]) gives, without its conversions
    where the array already holds that type (NumPy's .item() is a Python
    int for integer dtypes, float for float ones, bool for bool)."""
    kinds = {INT: "iu", FLOAT: "f", BOOL: "b"}
    if ty.kind == NP and dtype == ty.dtype:
        return lambda arr: arr[()]
    if dtype.kind in kinds.get(ty.kind, ""):
        return lambda arr: arr.item()
    to_python = ty.python_value
    return lambda arr: to_python(arr[()])


def _index_message(c, msg: str, env) -> str:
    """NumPy's IndexError text for a failed index check, with the array and
    the user's line."""
    from .context import decode_bad_index
    axis, size = c.index
    m = _CHECK_POS.search(msg)
    index = decode_bad_index(int(m.group(1))) if m is not None else "?"
    n = None
    if size.static is not None and env is not None:
        try:
            n = int(size.static(env))
        except (KeyError, IndexError, TypeError, ValueError):   # not recomputable: say less
            n = None
    text = f"index {index} is out of bounds for axis {axis}"
    if n is not None:
        text += f" with size {n}"
    where = f"; {c.loc.file}:{c.loc.line}" if c.loc is not None else ""
    return f"{text} ({c.message}{where})"


_CHECK_POS = __import__("re").compile(r"is read at index (-?\d+)")

_INPUT_OOB = __import__("re").compile(
    r"input buffer (\S+) is read at index (-?\d+) in dimension (\d+)")


def _reads(funcs) -> dict:
    """id(Function) -> [(consumer Function, Definition, Call)]: every call of
    each Func in the definitions of the others."""
    out = {}
    for c in funcs:
        cf = c.function()
        for d in cf.definitions():
            for k in ir.find_calls(list(d.values) + list(d.args) + list(d.predicates)):
                if k.call_type == ir.FUNC and k.func is not None and k.func is not cf:
                    out.setdefault(id(k.func), []).append((cf, d, k))
    return out


# the largest definition (in IR nodes, counting each inlined call as the
# expression it stands for) that inlining may make: a Func read twice at one
# point (`(c - 1.5) * c`) doubles in its consumer, so a chain of such
# definitions would grow exponentially; past this it is computed at root
INLINE_LIMIT = 400

# the largest definition (in IR nodes) that the default schedule inlines
# into several NumPy-order sums (_inlinable): each computes it again
CHEAP_TWICE = 12

# the most a cheap Func read at several points (_cheap_sites) is computed
# per element of its consumers, in multiples of CHEAP_TWICE: a 3-tap sum
CHEAP_READS = 3


def _inlined(funcs, reads, kept, targets, cheap=True) -> set:
    """ids of the Functions the default schedule inlines (in program order,
    producers first): those _inlinable() allows, while the definition they
    are inlined into stays within INLINE_LIMIT nodes, and with `cheap` those
    _cheap_sites() allows (read at several points); never those in `kept`
    (ids: outputs, loop-local scalars) nor Funcs named in `targets` or in a
    schedule's compute_at/store_at (something is computed in their loops)."""
    inlined, size, targets = set(), {}, set(targets)
    parts = {id(f.function()): f.sum_part for f in funcs
             if getattr(f, "sum_part", None) is not None}
    for f in funcs:
        fn = f.function()
        size[id(fn)] = max(_tree_size(d.values) for d in fn.definitions())
        for level in (fn.schedule.compute_level, fn.schedule.store_level):
            if level is not None and level.kind == "at":
                targets.add(level.func)     # a schedule computes something in its loops
    cost = {}               # id(Function) -> _value_cost, for those inlined
    for f in funcs:
        fn = f.function()
        if id(fn) in kept or fn.name in targets or fn.schedule.compute_level is not None \
                or fn.schedule.store_level is not None:
            continue
        if not _inlinable(fn, reads, parts):
            if id(fn) in parts or any(id(c) in parts for c, _, _ in reads.get(id(fn), [])):
                continue    # (the sums' helpers: _inlinable's rules)
            if cheap and _cheap_sites(fn, reads, cost, size):
                inlined.add(id(fn))
                cost[id(fn)] = _value_cost(fn.pure.values, cost)
                for consumer, _, _ in reads[id(fn)]:
                    size[id(consumer)] += size[id(fn)] - 1
            continue
        grown = {}
        for consumer, _, _ in reads[id(fn)]:
            grown[id(consumer)] = grown.get(id(consumer), size[id(consumer)]) + size[id(fn)] - 1
        # read at one site, a Func adds its own nodes once (no repeated
        # growth): the limit is then on its own size, whatever its consumer's
        # (a consumer of arrays that broadcast at call time reads them at
        # clamped indices, thousands of nodes: gray_scott's un)
        single = len(reads[id(fn)]) == 1 and size[id(fn)] <= INLINE_LIMIT
        if single or max(grown.values()) <= INLINE_LIMIT:
            inlined.add(id(fn))
            size.update(grown)
            cost[id(fn)] = _value_cost(fn.pure.values, cost)
    return inlined


def _cheap_sites(fn, reads, cost, size) -> bool:
    """Whether Func `fn`, which _inlinable refuses (read by several
    consumers or at several points), is inlined into each of its reads as
    cheap: computing it again at every read costs less than storing and
    loading an array of it. Its definition is pure, without checks nor a
    user's schedule; its value is within CHEAP_TWICE arithmetic nodes
    (`cost`: a read of memory counts one, an inlined Func its own cost), at
    most CHEAP_READS times that over all its reads, and its tree (index
    trees included) within INLINE_LIMIT, as a Func read once (a chain of
    such Funcs is short: one that reads another at k points costs at least
    k times its cost, so the copies of index trees multiply by at most
    about CHEAP_TWICE). Every read moves with every loop of its consumer's
    definition (each element is computed once per
    read, not again for each iteration of a loop the read does not depend
    on). Chain's `d` (read by `np.sqrt(d * d + 1.0)` and `np.abs(d)`),
    gray_scott's `uvv` (read by both outputs), Harris's gradients and
    their products (read by three taps of a box sum)."""
    if fn.updates or fn.pure is None or _user_scheduled(fn.pure, fn.args):
        return False
    if any(checks.is_check_read(c) for c in ir.find_calls(list(fn.pure.values))):
        return False
    sites = reads.get(id(fn), [])
    own = _value_cost(fn.pure.values, cost)
    if not sites or own > CHEAP_TWICE or own * len(sites) > CHEAP_READS * CHEAP_TWICE or \
            size[id(fn)] > INLINE_LIMIT:
        return False
    return all(_moves_with_loops(c, d, k, ()) for c, d, k in sites)


def _value_cost(nodes, cost) -> int:
    """The arithmetic nodes of expression trees: a read of an input or a
    Func one node whatever its index (the index is address arithmetic), a
    read of a Func in `cost` (id(Function) -> cost: those inlined) its cost,
    a call of an intrinsic (a math function) CHEAP_TWICE."""
    memo = {}

    def count(n):
        k = memo.get(id(n))
        if k is None:
            if isinstance(n, ir.Call) and n.call_type == ir.FUNC:
                k = cost.get(id(n.func), 1)
            elif isinstance(n, (ir.Load, ir.Call)) and getattr(n, "call_type", ir.IMAGE) == \
                    ir.IMAGE:
                k = 1
            elif isinstance(n, ir.Call):
                # (an intrinsic, exp or sqrt, is not computed again cheaply)
                k = CHEAP_TWICE + sum(count(c) for c in ir.children(n))
            else:
                k = 1 + sum(count(c) for c in ir.children(n))
            memo[id(n)] = k
        return k
    return sum(count(n) for n in nodes)


def _tree_size(nodes) -> int:
    """The number of nodes of expression trees (shared subtrees counted at
    each use, as the lowering's passes see them)."""
    memo = {}

    def count(n):
        k = memo.get(id(n))
        if k is None:
            k = memo[id(n)] = 1 + sum(count(c) for c in ir.children(n))
        return k
    return sum(count(n) for n in nodes)


def _inlinable(fn, reads, parts=None) -> bool:
    """Whether Func `fn` (not an output) is inlined by default: a pure
    definition whose loops the user did not schedule, without run-time checks
    (an inlined Func is evaluated only where it is read, so a check of an
    element nobody reads would no longer fire), read by one definition of one
    consumer at one point (the same arguments at every call), and that point
    moving with every loop of the consumer's definition (so each element is
    computed once, not again for each iteration of a loop the point does not
    depend on: `t[:, None] * b` or a matrix product keeps t at root). The
    helper Funcs of one NumPy-order sum (`parts`: id(Function) -> (the sum,
    pure Vars of one value), set by sum_order) read disjoint elements (the
    chunks of 8, the rest): a Func read only by them, at points moving with
    every loop but those Vars, is inlined into each; read by several sums
    (`var = np.sum(dx**2); cov = np.sum(dx * dy)`), when its definition is
    within CHEAP_TWICE nodes (computing it again costs less than storing
    and loading it)."""
    if fn.updates or fn.pure is None or _user_scheduled(fn.pure, fn.args):
        return False
    if any(checks.is_check_read(c) for c in ir.find_calls(list(fn.pure.values))):
        return False
    sites = reads.get(id(fn), [])
    if not sites:
        return False
    consumer, d, first = sites[0]
    parts = parts or {}
    if all(id(c) in parts for c, _, _ in sites):
        groups = {id(parts[id(c)][0]) for c, _, _ in sites}
        if len(groups) > 1 and _tree_size(fn.pure.values) > CHEAP_TWICE:
            return False
        return all(_moves_with_loops(c, e, k, parts[id(c)][1]) for c, e, k in sites)
    if any(c is not consumer or e is not d or not all(ir.equal(x, y) for x, y in
                                                      zip(k.args, first.args))
           for c, e, k in sites[1:]):
        return False
    return _moves_with_loops(consumer, d, first, ())


def _moves_with_loops(consumer, d, call, fixed) -> bool:
    """Whether the point `call` reads moves with every loop of definition d
    of `consumer` (but its pure Vars named in `fixed`, of one value)."""
    loops = {rv.name for rv in d.schedule.rvars}
    loops |= {n for n in ir.free_vars(list(d.args)) if n in consumer.args and n not in fixed}
    return loops <= set(ir.free_vars(list(call.args)))


def _user_scheduled(d, args) -> bool:
    """Whether a schedule split, reordered or marked (parallel, vectorized,
    ...) the loops of pure definition d."""
    s = d.schedule
    return bool(s.splits) or any(x.kind != "serial" for x in s.dims) or \
        [x.var for x in s.dims if not x.is_rvar] != list(args)


def _point_local(f, owner) -> bool:
    """Whether f, computed at the innermost loop of its owner's nest (a
    scalar local to the nest), has that nest's loop variables as its first
    pure Var: each of its realizations is one point of x, where a loop of x
    inside the reduction's (_stride_one_inner) would run once per step and
    keep the accumulator in memory (covariance's dots after `data -=
    mean`: 3x slower)."""
    fn = f.function()
    loops = {getattr(lp, "name", None) for lp in getattr(owner, "ctx", ())}
    return bool(fn.args) and fn.args[0] in loops


def _stride_one_inner(f):
    """In each update of f that no schedule touched, the loop of f's first
    pure Var (x: the stride-1 axis of f) innermost, inside the reduction's
    loops, when every read that uses x uses it in its first (stride-1)
    argument: `s = a.sum(axis=0)` (s(x) += a(x, r)) then reads rows in order
    instead of walking columns, `a @ b` runs in i-k-j order. Each s(x) still
    accumulates over the RVars in their order, so results are unchanged (a
    pure Var of an update reads its Func only at x itself: FRONTEND.md).
    An update with an exit (a `break`, a `while` loop) keeps its RVars
    innermost, so that its loop is left at each point."""
    fn = f.function()
    if not fn.args:
        return
    x = fn.args[0]
    for k, d in enumerate(fn.updates):
        dims = d.schedule.dims
        names = [dim.var for dim in dims]
        if d.exit is not None or d.schedule.splits or \
                any(dim.kind != "serial" for dim in dims) or x not in names or \
                names[0] == x or not any(dim.is_rvar for dim in dims) or \
                not any(isinstance(a, ir.Variable) and a.name == x for a in d.args[:1]):
            continue
        first = other = False
        for c in ir.find_calls(list(d.values) + list(d.predicates)):
            if checks.is_check_read(c) or not c.args or ir.is_lazy_select(c):
                continue        # (a lazy select's reads are calls of their own)
            first |= x in ir.free_vars(c.args[0])
            other |= any(x in ir.free_vars(a) for a in c.args[1:])
        if first and not other:
            f.update(k).reorder(x, *[n for n in names if n != x])


def _has_check(node) -> bool:
    return any(c.call_type == ir.IMAGE for c in ir.find_calls(node))


_ZERO = None


def _check_buffer():
    global _ZERO
    if _ZERO is None:
        _ZERO = Buffer(np.zeros(1, np.uint8))
    return _ZERO


def _buffer(a: np.ndarray, name):
    """A Buffer over an input array (its dtype is the specialization's, so
    supported); unaligned arrays and negative strides are copied."""
    if not a.flags.aligned or any(s < 0 for s in a.strides):
        a = a.copy()
    return wrap_array(a, name)
