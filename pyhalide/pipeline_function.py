"""`@ph.pipeline`: compile a plain Python function with loops into Funcs
(frontend_ast), specialized lazily per argument dtypes and dimensions, with
schedules from a decorator, an argument or per-architecture side files."""
from __future__ import annotations

import functools
import inspect

import numpy as np

from .dispatch import MISS, compiled_entry
from .errors import CompileError
from .ir.forksafe import fresh_in_child
from .ir.lru import LRU
from .ir.recursion import deep_entry

__all__ = ["pipeline", "PipelineFunction"]

# calls of one specialization before a compiled entry is built for the key of
# the call (dispatch.py): it costs 0.2 ms (2 ms more for the first entry of its
# layout in the process), a general call 50 us and more, one on the fast path
# 5 us, one through the entry 0.3 us
_HOT = 2
_MAX_WAIT = 64


class PipelineFunction:
    """The object `@ph.pipeline` returns."""

    def __init__(self, fn, schedule=None):
        self.py_func = fn
        self.__name__ = fn.__name__
        self.__qualname__ = getattr(fn, "__qualname__", fn.__name__)
        self.__doc__ = fn.__doc__
        self.__wrapped__ = fn
        self._schedule_arg = schedule
        self._registered = None
        self._specs = LRU()       # argument key -> the specialization in use (bounded:
                                  # one dropped is built again when next called for)
        self._variants = {}       # argument key -> specializations for other values of
                                  # the globals the code reads (most recent first)
        self._last = None
        self._entry = None        # dispatch.compiled_entry of _entry_spec's hot key
        self._entry_spec = None
        self._hits = 0            # calls of the last specialization on the fast path
        self._next_try = _HOT     # ... when the next compiled entry is tried
        fresh_in_child(self, "_lock")     # guards building specializations
        self._parsed = None
        self._signature = inspect.signature(fn)
        # calls with exactly this many positional arguments bind without inspect
        plain = all(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
                    for p in self._signature.parameters.values())
        self._plain_arity = len(self._signature.parameters) if plain else -1

    def __repr__(self):
        return f"<pyhalide.pipeline {self.__name__}>"

    # schedules -----------------------------------------------------------------------
    def schedule(self, fn):
        """Register a schedule function (used as a decorator); returns it."""
        self._registered = fn
        self._specs.clear()
        self._variants.clear()
        self._last = None
        self._entry = None
        self._hits, self._next_try = 0, _HOT
        return fn

    # what the frontend reads (frontend_ast.schedules, frontend_ast.deftext) ---------------
    @property
    def registered_schedule(self):
        """The schedule function `@p.schedule` registered, or None."""
        return self._registered

    @property
    def schedule_argument(self):
        """The `schedule=` argument: None, "serial", a callable or a path."""
        return self._schedule_arg

    def parsed(self):
        """The function's source, parsed once (frontend_ast.source.ParsedFunction)."""
        if self._parsed is None:
            from .frontend_ast.source import parse_function
            self._parsed = parse_function(self.py_func)
        return self._parsed

    @property
    def last_specialization(self):
        """The specialization the last call (or compile) used, or None."""
        if self._last is not None:
            self._hand_out(self._last)
        return self._last

    def specialization_for(self, key):
        """The specialization for an argument key (frontend_ast.specialize.arg_spec
        of each argument), built when missing; the last one stays as it is.
        An automatic schedule is planned without sizes (every extent unknown)."""
        from .frontend_ast.schedules import schedule_mode
        cache_key = (key, None) if schedule_mode(self) else key
        spec = self._specs.get(cache_key)
        if spec is None:
            spec = self._new_specialization(key)
            spec.cache_key = cache_key
        self._specs[cache_key] = spec
        self._hand_out(spec)
        return spec

    # compilation ------------------------------------------------------------------------
    def _new_specialization(self, key, sizes=None, safe=False):
        """A specialization for argument key `key`; with an automatic schedule,
        planned for size class `sizes` (safe: with the default schedule instead)."""
        from .frontend_ast.schedules import resolve_schedule, schedule_mode
        from .frontend_ast.specialize import Specialization
        mode = None if safe else schedule_mode(self)
        if mode:
            from .autoschedule_frontend import auto_applier
            schedule = auto_applier(mode, sizes)
        else:
            schedule = None if safe else resolve_schedule(self)
        spec = Specialization(self.parsed(), key, schedule=schedule)
        spec.size_class = sizes
        return spec

    def _safe_after(self, spec, e: CompileError):
        """The specialization with the default schedule that replaces `spec`,
        whose automatic schedule did not compile (e): the automatic scheduler
        never fails where the default schedule works."""
        from .ir.config import debug_print
        debug_print(1, f"autoschedule {self.__name__}: the automatic schedule did not compile "
                       f"({str(e).splitlines()[0]}); using the default schedule")
        safe = self._new_specialization(spec.key, spec.size_class, safe=True)
        safe.cache_key = spec.cache_key
        from .frontend_ast.schedules import Applied
        safe.schedule_info = Applied("auto (the default schedule: the automatic one did not "
                                     "compile)")
        self._specs[spec.cache_key] = safe
        self._last = safe
        return safe

    @staticmethod
    def _is_auto(spec) -> bool:
        info = spec.schedule_info
        return info is not None and getattr(info, "auto", None) is not None \
            and bool(info.auto.blocks)

    def _bind(self, args, kwargs):
        """The argument values in parameter order."""
        if not kwargs and len(args) == self._plain_arity:
            values = list(args)
        else:
            try:
                ba = self._signature.bind(*args, **kwargs)
            except TypeError as e:
                raise TypeError(f"{self.__name__}(): {e}") from None
            ba.apply_defaults()
            values = list(ba.arguments.values())
        return values

    @staticmethod
    def _as_scalars(values):
        """A 0-d array argument is computed with as the NumPy scalar it holds
        (NumPy's arithmetic on it gives scalars); returned, it is the array."""
        return [v[()] if type(v) is np.ndarray and v.ndim == 0 else v for v in values]

    def _specialization(self, values, given):
        """The specialization for argument values `values` (`given`: as passed,
        whose 0-d arrays the key tells from NumPy scalars)."""
        from .frontend_ast.schedules import schedule_mode, size_class
        from .frontend_ast.specialize import arg_spec
        args_key = key = tuple(arg_spec(v) for v in given)
        sizes = None
        if schedule_mode(self):
            sizes = size_class(values)
            key = (key, sizes)       # one automatic schedule per size class
        spec = self._specs.get(key)
        if spec is None or not spec.globals_current():
            with self._lock:
                spec = self._specs.get(key)
                if spec is not None and not spec.globals_current():
                    # a global the code read has a new value: a specialization
                    # compiled for the current values, or a new one
                    spec = next((v for v in self._variants.get(key, ())
                                 if v.globals_current()), None)
                if spec is None:
                    spec = self._new_specialization(args_key, sizes)
                    spec.cache_key = key
                    if sizes is not None:
                        from .autoschedule_frontend import auto_specialization
                        spec = auto_specialization(self, spec, values, given)
                    if spec.global_reads:
                        variants = self._variants.setdefault(key, [])
                        variants.insert(0, spec)
                        del variants[8:]
                self._specs[key] = spec
        self._last = spec
        return spec

    def __call__(self, *args, **kwargs):
        """The compiled entry of the hot key (dispatch.py), else the last
        specialization's fast path when the arguments match it, else the
        general path (_call)."""
        if not kwargs and len(args) < self._plain_arity:
            # the defaults Python binds (the same objects), then the fast paths
            d = self.py_func.__defaults__
            if d and len(args) >= self._plain_arity - len(d):
                args = args + d[len(args) - self._plain_arity + len(d):]
        entry = self._entry
        if entry is not None and not kwargs:
            out = entry(*args)
            if out is not MISS:
                return out
        last = self._last
        if last is not None and not kwargs and len(args) == self._plain_arity \
                and last.accepts(args):
            sizes = getattr(last, "size_class", None)
            if sizes is None or _size_class(args) == sizes:
                out = last.run(args)
                self._hits = hits = self._hits + 1
                if hits >= self._next_try:
                    self._compile_entry(last, args)
                return out
        return self._call(args, kwargs)

    def _compile_entry(self, spec, args):
        """Replace the compiled entry with one for the key of `args`, a call
        the fast path just ran (kept when there is none). Tried again at the
        next call while the key is not remembered yet, else after as many
        calls again, at most _MAX_WAIT (one made or refused costs 0.2 ms:
        calls alternating between keys rebuild it rarely)."""
        entry = compiled_entry(spec, args)
        if entry is MISS:
            self._next_try = max(_HOT, self._hits + 1)
            return
        self._next_try = self._hits + min(max(_HOT, self._hits), _MAX_WAIT)
        if entry is not None:
            self._entry, self._entry_spec = entry, spec

    @deep_entry
    def _call(self, args, kwargs):
        """A call off the fast path: binding, and building and compiling a
        specialization when needed."""
        self.parsed()
        given = self._bind(args, kwargs)
        values = self._as_scalars(given)
        spec = self._specialization(values, given)
        if self._is_auto(spec):
            try:
                return spec.run(values, given)
            except CompileError as e:
                spec = self._safe_after(spec, e)
        return spec.run(values, given)

    @deep_entry
    def compile(self, *args, **kwargs):
        """Compile for these example arguments ahead of the first call."""
        self.parsed()
        given = self._bind(args, kwargs)
        values = self._as_scalars(given)
        spec = self._specialization(values, given)
        try:
            self._compile_spec(spec, values)
        except CompileError as e:
            if not self._is_auto(spec):
                raise spec.located(e) from None
            safe = self._safe_after(spec, e)
            try:
                self._compile_spec(safe, values)
            except CompileError as e2:
                raise safe.located(e2) from None
        return self

    @staticmethod
    def _compile_spec(spec, values):
        """Compile the build that runs `values`: spec's, or for an int
        argument >= 2**30 of its int32 nonneg build, its wide one."""
        from .frontend_ast.nonneg_params import PastInt32
        pipe = spec.pipeline()
        if pipe is not None:
            try:
                spec.bind(values)
            except PastInt32:
                PipelineFunction._compile_spec(spec.wide(), values)
                return
            pipe.compile_jit()

    # introspection ----------------------------------------------------------------------
    def _current(self):
        if self._last is None:
            raise RuntimeError(f"{self.__name__} has not been compiled yet: call it, or "
                               f"p.compile(*example_args), first")
        return self._last

    def _hand_out(self, spec):
        """`spec`'s Funcs are handed out: they may be rescheduled between calls
        (direct_call.py checks them; its compiled entry is dropped)."""
        spec.exposed = True
        spec.handed_out = True
        if self._entry_spec is spec:
            self._entry = None

    @property
    def funcs(self):
        from .frontend_ast.schedules import FuncTable
        spec = self._current()
        self._hand_out(spec)
        return FuncTable(spec)

    @property
    def vars(self):
        from .frontend_ast.schedules import VarTable
        spec = self._current()
        self._hand_out(spec)
        return VarTable(spec)

    @property
    def applied_schedule(self):
        """Where the last specialization's schedule came from (a side file's
        path, a function name, or None for the serial default)."""
        info = self._current().schedule_info
        return None if info is None else info.source

    def schedule_source(self) -> str:
        """The automatic schedule of the last call, as a Python module defining
        the schedule function (what `pyhalide schedule` prints)."""
        info = self._current().schedule_info
        auto = getattr(info, "auto", None)
        if auto is None:
            raise ValueError(f"{self.__name__} has no automatic schedule (its schedule: "
                             f"{self.applied_schedule or 'the default'}); decorate it with "
                             f"@ph.pipeline(schedule=\"auto\") to get one")
        return auto.source

    # Dask (pyhalide.dask) ------------------------------------------------------------------
    def dask(self, *args, float_reassociation=False, split_every=None, **kwargs):
        """Dask collections computing what this function returns on dask.array
        arguments (docs/dask.md); float sums and products across blocks need
        float_reassociation=True."""
        from .dask import to_dask
        return to_dask(self, args, kwargs, float_reassociation=float_reassociation,
                       split_every=split_every)

    def __reduce__(self):
        from .dask_pickle import pipeline_state, restore_pipeline
        return (restore_pipeline, (pipeline_state(self),))

    @deep_entry
    def lower(self, stage: str = "loops", arg_specs=None):
        from .frontend_ast.deftext import lower_text
        return lower_text(self, stage, arg_specs)


def _size_class(args):
    from .frontend_ast.schedules import size_class
    return size_class(args)


def pipeline(fn=None, *, schedule=None):
    """Decorate a function of NumPy arrays and scalars written with plain
    loops: `@ph.pipeline`, `@ph.pipeline(schedule=...)` or
    `ph.pipeline(fn, schedule=...)`."""
    if fn is None:
        return functools.partial(pipeline, schedule=schedule)
    if isinstance(fn, PipelineFunction):
        fn = fn.py_func
    return PipelineFunction(fn, schedule=schedule)
