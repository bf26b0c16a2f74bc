"""The Func methods of Halide's API beyond definitions and the core
schedule (pyhalide/func.py): tracing, wrappers and clones, Func.bound,
storage and scheduling hints (checked, with no effect on results), estimates
for the automatic scheduler, print_loop_nest / compile_to_lowered_stmt, and
the features that do not apply here (named NotImplementedError)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from . import ir, schedule_warnings, tracing, wrappers
from .errors import CompileError
from .expr import cast_node, to_node
from .source import at, user_location

if TYPE_CHECKING:
    from .func import Func


def _index(v, fname: str) -> ir.Expr:
    n = to_node(v)
    if not (n.type.is_integer() or n.type.is_bool()):
        raise CompileError(f"bound() of {fname} takes integers, not {n.type}{at(user_location())}")
    return cast_node(ir.INDEX, n)


def _modulus(v, fname: str) -> ir.Expr:
    m = _index(v, fname)
    if isinstance(m, ir.Const) and m.value <= 0:
        raise CompileError(f"the alignment modulus of {fname} must be positive, not {m.value}"
                           f"{at(user_location())}")
    return m


class HalideFuncMethods:
    """Mixed into Func: uses its `_function`, `name()` and `args()`."""

    # tracing (pyhalide/tracing.py, lowering/trace_realizations.py) ---------------
    def trace_stores(self) -> "Func":
        """Print every value this Func stores, where the compiled code stores it."""
        tracing.trace(self._function, "store")
        return self

    def trace_loads(self) -> "Func":
        """Print every value other Funcs load from this one."""
        tracing.trace(self._function, "load")
        return self

    # wrappers (pyhalide/wrappers.py) --------------------------------------------
    def in_(self, consumers=None) -> "Func":
        """A Func wrapping this one for `consumers` (a Func or a list), or
        for every consumer without an argument, to schedule apart."""
        return wrappers.wrapper(self, consumers)

    def clone_in(self, consumers) -> "Func":
        """A copy of this Func (definitions and schedule) for `consumers`."""
        return wrappers.clone_in(self, consumers)

    def print_loop_nest(self):
        """The loop nest of this Func's pipeline, on stderr (where Halide prints it)."""
        import sys

        from .realize import Pipeline
        print(Pipeline([self]).lower(stage="loops"), file=sys.stderr)

    def compile_to_lowered_stmt(self, path, args=(), fmt=None, target=None):
        """Write the lowered code of this Func's pipeline to `path`: text, or
        with fmt=StmtOutputFormat.HTML the same text as an HTML page."""
        from .halide_helpers import write_lowered_stmt
        write_lowered_stmt([self], path, fmt)

    # Halide features that do not apply here (API.md): named NotImplementedError
    def _not_here(self, what: str, why: str):
        raise NotImplementedError(f"Func.{what} (Func {self.name()}): {why}")

    def _aot(name):
        def method(self, *args, **kw):
            self._not_here(name, "ahead-of-time compilation is not done by pyhalide; "
                                 "realize() and compile_jit() compile for this process")
        method.__name__ = name
        return method

    def _gpu(name):
        def method(self, *args, **kw):
            # (as Halide: the schedule is accepted; compiling it for a target
            # without the device is refused, lowering/pipeline.py)
            self._function.schedule.device = name
            return self
        method.__name__ = name
        method.__doc__ = (f"Halide's {name} (a GPU or DSP schedule): recorded; realizing or "
                          f"compiling the pipeline raises NotImplementedError (CPU only)")
        return method

    compile_to_c = _aot("compile_to_c")
    compile_to_header = _aot("compile_to_header")
    compile_to_object = _aot("compile_to_object")
    compile_to_bitcode = _aot("compile_to_bitcode")
    compile_to_assembly = _aot("compile_to_assembly")
    compile_to_file = _aot("compile_to_file")
    compile_to_static_library = _aot("compile_to_static_library")
    compile_to_multitarget_static_library = _aot("compile_to_multitarget_static_library")
    gpu_tile = _gpu("gpu_tile")
    gpu_threads = _gpu("gpu_threads")
    gpu_blocks = _gpu("gpu_blocks")
    gpu_single_thread = _gpu("gpu_single_thread")
    gpu = _gpu("gpu")
    hexagon = _gpu("hexagon")
    del _aot, _gpu

    def _bound_var(self, v, what: str) -> str:
        name = v if isinstance(v, str) else v.name()
        if name not in self._function.args:
            raise CompileError(f"{what}() of {self.name()}: {name} is not a pure Var of "
                               f"{self.name()} ({', '.join(self._function.args)})"
                               f"{at(user_location())}")
        return name

    def bound(self, v, lo, extent):
        """Halide's bound: this Func's dimension `v` is computed over
        [lo, lo + extent); a consumer needing more is a ValueError at run time."""
        name = self._bound_var(v, "bound")
        schedule_warnings.add_bound(self._function, ir.FuncBound(
            name, _index(lo, self.name()), _index(extent, self.name())))
        return self

    def bound_extent(self, v, extent):
        """Halide's bound_extent: dimension `v` is computed over `extent`
        points from the least one needed (a constant extent a Func computed
        per tile can be unrolled or vectorized over)."""
        name = self._bound_var(v, "bound_extent")
        schedule_warnings.add_bound(self._function, ir.FuncBound(
            name, extent=_index(extent, self.name())))
        return self

    def align_bounds(self, v, modulus, remainder=0):
        """Halide's align_bounds: the region computed in `v` grows so that its
        min is `remainder` modulo `modulus` and its extent a multiple of it."""
        name = self._bound_var(v, "align_bounds")
        m = _modulus(modulus, self.name())
        r = ir.Mod(_index(remainder, self.name()), m)    # (reduced, as Halide does)
        schedule_warnings.add_bound(self._function, ir.FuncBound(name, modulus=m, remainder=r))
        return self

    def align_extent(self, v, modulus):
        """Halide's align_extent: the region computed in `v` grows (at its
        max) to an extent that is a multiple of `modulus`."""
        name = self._bound_var(v, "align_extent")
        schedule_warnings.add_bound(self._function, ir.FuncBound(
            name, modulus=_modulus(modulus, self.name())))
        return self

    def infer_input_bounds(self, dst, target=None) -> None:
        """Halide's bounds query: bind each unbound input ImageParam to a Buffer
        of the region computing `dst` (sizes, or output Buffers: a bounds-query
        Buffer takes the output's constrained geometry) needs (bounds_query.py)."""
        from .bounds_query import infer_input_bounds
        infer_input_bounds([self], dst)

    def output_buffer(self):
        """This Func's output buffer (its dimensions take estimates)."""
        from .output_buffer import OutputBuffer
        return OutputBuffer(self)

    def fold_storage(self, v, factor, fold_forward: bool = True):
        """Halide's storage-folding hint (a circular buffer of `factor` rows
        along `v`). pyhalide allocates the whole region a Func is stored
        over; the hint is checked and has no effect on results."""
        name = v if isinstance(v, str) else v.name()
        if name not in self._function.args or not isinstance(factor, int) or factor < 1:
            raise CompileError(f"fold_storage of {self.name()} takes a pure Var of "
                               f"{self.name()} ({', '.join(self._function.args)}) and a positive "
                               f"integer factor, got {name}, {factor!r}{at(user_location())}")
        return self

    def reorder_storage(self, *vars):
        """Halide's storage-order hint (the first Var named is stored
        innermost). pyhalide lays out a Func's buffers itself (dimension 0
        innermost); the hint is checked and has no effect on results."""
        if len(vars) == 1 and isinstance(vars[0], (list, tuple)):
            vars = tuple(vars[0])
        names = [v if isinstance(v, str) else v.name() for v in vars]
        args = self._function.args
        if len(set(names)) != len(names) or any(n not in args for n in names):
            raise CompileError(f"reorder_storage of {self.name()} takes distinct pure Vars of "
                               f"{self.name()} ({', '.join(args)}), got {', '.join(names)}"
                               f"{at(user_location())}")
        return self

    def set_estimate(self, v, lo, extent):
        """The automatic scheduler's estimate of dimension `v` (no effect on results)."""
        name = v if isinstance(v, str) else v.name()
        est = self.__dict__.setdefault("_dim_estimates", {})
        est[name] = (lo, extent)
        if all(a in est for a in self._function.args):
            self.set_estimates([est[a] for a in self._function.args])
        return self

    def hoist_storage(self, g: "Func", v):
        """Halide's hoist_storage: the allocation at loop `v` of g (as store_at;
        pyhalide has no separate hoisting)."""
        return self.store_at(g, v)

    def hoist_storage_root(self):
        return self.store_root()

    def async_(self):
        """Halide's async: the producer runs on a thread of its own. pyhalide
        computes it in program order: the hint has no effect on results."""
        return self

    def ring_buffer(self, extent):
        """Halide's ring_buffer (copies of a hoisted allocation): a memory
        hint; checked, no effect on results."""
        if not isinstance(extent, int) or extent < 1:
            raise CompileError(f"ring_buffer of {self.name()} takes a positive integer, "
                               f"got {extent!r}{at(user_location())}")
        return self

    def specialize(self, condition):
        """Halide's specialize: a copy of the schedule used where `condition`
        holds. A condition that is the constant true always holds: the Func
        itself is returned (its schedule is the one used). Other conditions:
        NotImplementedError (pyhalide compiles one schedule per Func)."""
        node = to_node(condition)
        if isinstance(node, ir.Const) and node.type.is_bool() and node.value:
            return self
        raise NotImplementedError(
            f"Func.specialize({condition!r}) of {self.name()}: pyhalide compiles one schedule "
            f"per Func, not variants selected by a run-time condition; schedule it once"
            f"{at(user_location())}")

    def specialize_fail(self, message: str):
        raise NotImplementedError(
            f"Func.specialize_fail of {self.name()}: pyhalide has no specializations"
            f"{at(user_location())}")

    def memoize(self, eviction_key=None) -> "Func":
        """Halide's memoize: Halide keeps the Func's values between
        realizations and reuses them while its inputs are the same. pyhalide
        keeps no such cache: the Func is computed at every realization (the
        values are the same). A memoized output is refused, as in Halide."""
        self.__dict__["_memoized"] = True
        return self

    def trace_realizations(self) -> "Func":
        """Print this Func's realizations (Begin/End realization, Produce,
        Consume, with their boxes) where the compiled code makes them."""
        self._function.schedule.trace_realizations = True
        tracing.trace(self._function, "realization")
        return self


def check_not_memoized(f) -> None:
    if f.__dict__.get("_memoized"):
        raise CompileError(f"Can't compile Pipeline with memoized output Func: {f.name()}. "
                           f"Memoization is valid only on intermediate Funcs because it takes "
                           f"control of buffer allocation{at(user_location())}")


def check_output_types(f, sizes) -> None:
    """Halide's error for an output Buffer of another type."""
    from .buffer import Buffer
    from .errors import BufferTypeError
    bufs = [sizes] if isinstance(sizes, Buffer) else sizes if isinstance(sizes, list) else []
    if not bufs or not all(isinstance(b, Buffer) for b in bufs):
        return
    for b, t in zip(bufs, f.types()):
        if b.type() != t:
            raise BufferTypeError(f"Error: Output buffer {f.name()} has type {t} but type of the "
                                  f"buffer passed in is {b.type()}{at(user_location())}")


def check_bound_region(f, sizes, more) -> None:
    from .buffer import Buffer
    first = sizes[0] if isinstance(sizes, list) and sizes else sizes
    if isinstance(first, Buffer):
        mins, extents = first.mins(), [first.dim(i).extent() for i in range(first.dimensions())]
    elif isinstance(sizes, (list, tuple)) and all(isinstance(s, int) for s in sizes):
        mins, extents = [0] * len(sizes), list(sizes)
    elif isinstance(sizes, int):
        extents = [sizes, *more]
        mins = [0] * len(extents)
    else:
        return
    if len(extents) == f.dimensions():
        schedule_warnings.check_output_region(f.function(), mins, extents)
