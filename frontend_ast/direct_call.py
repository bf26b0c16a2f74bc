"""The call fast path of a compiled @pipeline specialization: the kernel run
straight on the argument arrays, with everything a call computes from the
argument shapes and scalar values remembered from earlier calls with the
same ones.

    DirectCall.build(spec, graph, plan, zero) -> DirectCall | None
    direct.remember(args, env, kernel, buffers, params, shapes)
    direct.call(args) -> the result, or MISS (then the general path runs)

A Specialization's general path (Specialization._run) binds every argument to
its Func graph's ImageParams and Params, runs the call-time checks, computes
the static parameters and the output shapes, asks the Pipeline for the kernel
(checking that no Function changed) and reads the inputs back from the graph.
All of that is a function of the call's *key*: each array argument's shape
and strides, and the values of the scalar arguments the call-time functions
read (StaticEnv records them: `env.params.read`; they read nothing else, and
which ones they read is decided by the values read before, so an equal key
means the same reads). A scalar value is keyed exactly: floats with their
sign, so -0.0 is not 0.0; NaN never equals itself, so its calls take the
general path. The scalar arguments the kernel takes as params are passed at
each call, whether keyed or not. Arguments the function writes into
(arg_writes.py) are checked before the kernel runs and get their final
values copied back after it, as on the general path; an entry recorded from
a call computed in place (in_place_args.py) passes those arguments as their
outputs again and copies nothing.

After a general call that succeeded, `remember` notes its key; at the second
general call with that key it records the kernel call prepared with the
geometry of its arrays and its static parameter values
(runtime.PreparedCall), the output allocation and the call's StaticEnv (for
the results computed at call time). A later call with an equal key allocates
the outputs, passes the argument arrays themselves (and the all-zero check
buffer) to the kernel and converts the results. Nothing is bound, so calls
from several threads run at once.

The key's scalars are the arguments' values of the specialization's types
(the call's `accepts` matched them exactly); arguments the specialization's
key fixes (functions, tuples, None) are not part of it. The strides decide
which kernel runs (dense or strided dimension 0) and whether the general path
would have copied the array (negative strides: such calls are not
remembered; nor are calls with unaligned arrays, which are copied too).

A specialization whose Funcs were handed out (p.funcs, p.vars, a schedule
view, p.last_specialization: `Specialization.exposed`) may have its schedule
changed between calls; its fast path first checks that every Function of the
graph is as it was (realize.function_version), else it is dropped and the general
path compiles again.
"""
from __future__ import annotations

import math

import numpy as np

from pyhalide import ir
from pyhalide.ir.forksafe import fresh_in_child
from pyhalide.ir.function import LAST_EDIT, tracked
from pyhalide.realize import function_version

from .array_complex import ComplexArr
from .values import Arr

MISS = object()

# entries kept per specialization (distinct shapes / scalar values read), the
# least recently made dropped first
_ENTRIES = 256

_SCALAR_KINDS = ("int", "bool", "float", "complex", "np")

_INT64 = 1 << 63


def _scalar_key(v):
    """v as a dict key that is equal only for the same value: a zero keeps
    its sign (0.0 == -0.0 in Python), a complex each part's sign."""
    if v:
        if type(v) is complex or isinstance(v, np.complexfloating):
            return (v, math.copysign(1.0, v.real), math.copysign(1.0, v.imag))
        return v
    if isinstance(v, (float, np.floating)):
        return (0, math.copysign(1.0, v))
    if isinstance(v, (complex, np.complexfloating)):
        return (0j, math.copysign(1.0, v.real), math.copysign(1.0, v.imag))
    return v


def _positions(objs, arg_of: dict, others: set):
    """Per object, the argument position `arg_of` gives it (by id), or -1 for
    one of `others` (ids); None when an object is neither."""
    out = []
    for obj in objs:
        if id(obj) in arg_of:
            out.append(arg_of[id(obj)])
        elif id(obj) in others:
            out.append(-1)
        else:
            return None
    return out


def _exact(key, t) -> bool:
    """Whether every argument of specialization key `key` is a value of type
    `t` that its ctypes cell takes as it is (a Python float for float64, a
    Python int for int64 (call checks the range), a NumPy scalar of t's own
    dtype; not np.bool_, which has no __index__)."""
    if key[0] == "float":
        return t == ir.Float(64)
    if key[0] == "int":
        return t == ir.Int(64)
    if key[0] == "np" and len(key) == 2:
        dtype = np.dtype(key[1])
        return dtype.kind in "iuf" and t.to_numpy() == dtype
    return False


class DirectCall:
    """The fast path of one specialization over one Func graph (see the module
    docstring)."""

    def __init__(self, spec, graph, arrays, scalars, sources, param_args, param_types,
                 versions, zero):
        self.spec = spec
        self.graph = graph            # the Func graph the kernels were compiled from
        self.arrays = arrays          # argument positions of the array arguments
        self.scalars = scalars        # argument name -> position, of the scalar arguments
        # per kernel input: argument position, (position, "real" or "imag") for
        # a part of a complex argument, or -1 (zero)
        self.sources = sources
        # per kernel param: the scalar argument's position, or -1 (a static value)
        self.param_args = param_args
        self.live = [j for j, a in enumerate(param_args) if a >= 0]
        self.live_args = [param_args[j] for j in self.live]
        # per live param: the argument is always a value of the param's own type
        self.exact = [_exact(spec.key[param_args[j]], param_types[j]) for j in self.live]
        # Python int arguments passed to the kernel: checked to fit int64
        self.int_args = [a for a in self.live_args if spec.key[a][0] == "int"]
        self.versions = versions      # [(Function, function_version)] of the graph
        self.stamp = None             # the edit stamp when they were last found equal
        self.zero = zero              # the check images' buffer
        self.read = set()             # scalar arguments the call-time functions read
        self.keyed = []               # their positions: the key's scalars
        self.entries = {}             # key -> _Entry
        self.seen = set()             # keys met once (an entry is made the second time)
        fresh_in_child(self, "lock")  # guards remember (calls read entries without it)

    @classmethod
    def build(cls, spec, graph, plan, zero):
        """The fast path of `spec`, whose kernel reads the inputs `plan.image_names`
        and params `plan.param_names` of `graph` (graph None: spec runs no
        kernel, its result is made of the arguments); None when an input is not an
        argument array nor a check image, or a param not a scalar argument
        nor a static value (a complex argument's parts)."""
        b = spec.builder
        arrays, scalars, image_arg, param_arg = [], {}, {}, {}
        for i, (name, k) in enumerate(zip(spec.pf.params, spec.key)):
            inp = b.inputs.get(name)
            if k[0] == "array":
                if isinstance(inp, ComplexArr):       # its parts: views of the argument
                    arrays.append(i)
                    image_arg[id(inp.re.image)] = (i, "real")
                    image_arg[id(inp.im.image)] = (i, "imag")
                    continue
                if not isinstance(inp, Arr):
                    return None
                arrays.append(i)
                image_arg[id(inp.image)] = i
            elif k[0] in _SCALAR_KINDS:
                if k[2:] == ("0-d",):
                    return None
                scalars[name] = i
                if inp is not None:
                    param_arg[id(inp)] = i
        if graph is None:               # no kernel: the result is made of the arguments
            return cls(spec, None, arrays, scalars, [], [], [], [], zero)
        sources = _positions([graph.images[n] for n in plan.image_names], image_arg,
                             {id(c.image) for c in b.cx.check_images})
        param_args = _positions([graph.params[n] for n in plan.param_names], param_arg,
                                {id(sp.param) for sp in b.cx.static_params})
        if sources is None or param_args is None:
            return None
        versions = [(fn, function_version(fn)) for fn in graph.env.values()]
        param_types = [graph.params[name].type() for name in plan.param_names]
        return cls(spec, graph, arrays, scalars, sources, param_args, param_types, versions,
                   zero)

    def key(self, args):
        """The call's key, or None (an unaligned array)."""
        parts = []
        for i in self.arrays:
            a = args[i]
            if not a.flags.aligned:
                return None
            parts.append(a.shape)
            parts.append(a.strides)
        for i in self.keyed:
            parts.append(_scalar_key(args[i]))
        return tuple(parts)

    def current(self) -> bool:
        """Whether the graph's Functions are as they were when this was built:
        nothing edited since they were last found so (the edit stamp of
        ir/function.py, when it covers them all), else their versions equal."""
        now = LAST_EDIT[0]
        if self.stamp == now:
            return True
        for fn, v in self.versions:
            if function_version(fn) != v:
                return False
        self.stamp = now if all(tracked(fn) for fn, _ in self.versions) else None
        return True

    def remember(self, args, env, kernel, buffers, params, shapes):
        with self.lock:
            self._remember(args, env, kernel, buffers, params, shapes)

    def _remember(self, args, env, kernel, buffers, params, shapes):
        """Record a general call that succeeded: `kernel` ran on `buffers`
        (inputs, then outputs) and `params`; `shapes` are the output slots'
        shapes; `env` recorded the scalar arguments its call-time functions
        read. The first call of a key only notes it; the second makes its
        entry. Not recorded when an input was not the argument itself
        (copied: unaligned or negative strides)."""
        read = {n for n in env.params.read if n in self.scalars} - self.read
        if read:                      # a new argument the key must hold
            self.read |= read
            self.keyed = sorted(self.scalars[n] for n in self.read)
            self.entries.clear()
            self.seen.clear()
        key = self.key(args)
        if key is None:
            return
        if key not in self.seen:
            if len(self.seen) >= 4 * _ENTRIES:
                self.seen.clear()
            self.seen.add(key)
            return
        if kernel is None:
            self.entries[key] = _Entry(None, [], [], env)
            return
        n = len(self.sources)
        for src, buf in zip(self.sources, buffers[:n]):
            if isinstance(src, tuple):         # the part's own view, not a copy
                part = getattr(args[src[0]], src[1])
                if not isinstance(buf, np.ndarray) or buf.ctypes.data != part.ctypes.data \
                        or buf.strides != part.strides:
                    return
            elif buf is not (self.zero if src < 0 else args[src]):
                return
        if len(self.entries) >= _ENTRIES:
            del self.entries[next(iter(self.entries))]
        dims = self.spec.dims
        allocs, slots = [], []
        for (_, dtypes), shape in zip(self.spec.output_layout(), shapes):
            full = (1,) * (dims - len(shape)) + shape
            allocs.extend((full, dt) for dt in dtypes)
            slots.append((len(dtypes), None if len(shape) == dims else shape))
        run = kernel.prepared(buffers, params, self.live, self.exact)
        self.entries[key] = _Entry(run, allocs, slots, env, _in_place(buffers[n:], args))

    def call(self, args):
        """The result of the call on `args` (matched by the specialization's
        `accepts`), or MISS."""
        spec = self.spec
        if spec.exposed and not self.current():
            spec.drop_direct()
            return MISS
        key = self.key(args)
        e = self.entries.get(key) if key is not None else None
        if e is None:
            return MISS
        for i in self.int_args:
            if not -_INT64 <= args[i] < _INT64:
                return MISS           # the general path raises OverflowError
        written = spec.written
        if written is not None:
            written.check(args)       # (first, as on the general path)
        if e.run is None:
            return spec.result_converter()([], args, e.env)
        zero = self.zero
        bufs = [getattr(args[s[0]], s[1]) if isinstance(s, tuple) else args[s] if s >= 0
                else zero for s in self.sources]
        outs_flat = [np.empty(full, dt) for full, dt in e.allocs]
        for flat, pos in e.in_place:        # the argument itself (in_place_args.py)
            outs_flat[flat] = args[pos]
        bufs.extend(outs_flat)
        spec.reported(e.env, e.run, bufs, [args[i] for i in self.live_args])
        if e.simple:
            outs = [outs_flat]
        else:
            outs, k = [], 0
            for count, shape in e.slots:
                mine = outs_flat[k:k + count]
                outs.append(mine if shape is None else [b.reshape(shape) for b in mine])
                k += count
        if written is not None:
            written.copy_back(args, outs, e.skip)
        return spec.result_converter()(outs, args, e.env)


def _in_place(outputs, args) -> tuple:
    """((output index, argument position), ...) of the outputs that are
    argument arrays themselves (computed in place: in_place_args.py)."""
    out = []
    for j, buf in enumerate(outputs):
        for i, a in enumerate(args):
            if buf is a:
                out.append((j, i))
                break
    return tuple(out)


class _Entry:
    __slots__ = ("run", "allocs", "slots", "env", "simple", "in_place", "skip")

    def __init__(self, run, allocs, slots, env, in_place=()):
        self.run = run                # runtime.PreparedCall: run(buffers)
        self.allocs = allocs          # [(full shape, dtype)] per output buffer
        self.slots = slots            # [(buffers, shape or None)] per output slot
        self.env = env                # the StaticEnv of the call (equal key: equal env)
        # (output buffer index, argument position) of the arguments computed
        # in place, and those positions (their copy back is skipped)
        self.in_place = in_place
        self.skip = frozenset(pos for _, pos in in_place)
        # one output slot of the full dimensions: its buffers are the outputs
        self.simple = len(slots) == 1 and slots[0][1] is None
