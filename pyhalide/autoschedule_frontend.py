"""The automatic scheduler for @pipeline specializations: the applier
`schedule="auto"` / `"auto-exact"` (or a side file saying so) gets, and the
view of one specialization pyhalide.autoschedule plans from (its Funcs, how
a schedule function names them, the loop extents of the call's size class).
It sits beside pipeline_function.py: it reads the frontend's specializations
(frontend_ast.specialize, frontend_ast.schedules), which import nothing of it."""
from __future__ import annotations

import types

from .frontend_ast.schedules import Applied, ScheduleView, rename, user_names
from .ir.config import debug_print


def auto_applier(mode, sizes, knobs=None):
    """The callable(spec) applying the automatic schedule planned for the
    size class `sizes` (frontend_ast.schedules.size_class; None: every
    extent unknown). `mode`: "auto", "auto-exact" or an AutoschedulerParams
    (`schedule=ph.AutoschedulerParams(...)`); `knobs`: a tuning candidate's."""
    from .autoschedule import AutoschedulerParams
    params = mode if isinstance(mode, AutoschedulerParams) else None
    text = params.mode if params is not None else mode

    def apply(spec):
        from . import autoschedule
        auto = autoschedule.schedule_specialization(AutoView(spec, sizes), text, params, knobs)
        return Applied(f"auto ({text})", None, auto)
    apply.source = text
    apply.automatic = True      # (frontend_ast/array_scan.py: no user parallel_scan to keep)
    return apply


def auto_specialization(pf, spec, values, given):
    """The specialization to call for an automatically scheduled `spec`:
    the fastest candidate for its size class when pf's schedule is an
    AutoschedulerParams asking for tuning (autoschedule/tune.py), timed on
    these argument values (`given`: as passed); wrapped in SerialRerun when
    its Python-int sums were split (autoschedule/pyint.py)."""
    spec = _tuned(pf, spec, values, given)
    return SerialRerun(pf, spec) if getattr(spec, "rerun_serially", False) else spec


class SerialRerun:
    """A specialization whose Python-int sums the automatic schedule split
    (autoschedule/pyint.py), standing for it: a run that raises — the
    guard's check of a sum that may have left int64, or any other error,
    whose order among parallel parts may differ from the serial loop's —
    runs again on the default schedule, which raises exactly what the serial
    loop raises, or returns its value."""

    def __init__(self, pf, spec):
        self.spec = spec
        self._pf = pf
        self._serial = None

    def __getattr__(self, name):
        return getattr(self.spec, name)

    def run(self, args, given=None):
        try:
            return self.spec.run(args, given)
        except Exception as e:          # noqa: BLE001 - decided by the serial run
            debug_print(1, f"autoschedule {self._pf.__name__}: the run with split Python-int "
                           f"sums raised {type(e).__name__}: run again serially to decide")
        if self._serial is None:
            from .frontend_ast.specialize import Specialization
            self._serial = Specialization(self._pf.parsed(), self.spec.key)
        return self._serial.run(args, given)


def _tuned(pf, spec, values, given):
    from .autoschedule import AutoschedulerParams
    from .frontend_ast.schedules import schedule_mode
    params = schedule_mode(pf)
    if not isinstance(params, AutoschedulerParams) or not params.tune:
        return spec

    def build(knobs):
        from .frontend_ast.specialize import Specialization
        cand = Specialization(pf.parsed(), spec.key,
                              schedule=auto_applier(params, spec.size_class, knobs))
        cand.size_class = spec.size_class
        cand.cache_key = spec.cache_key
        return cand
    from .autoschedule.tune import tune
    return tune(pf, spec, values, given, params, build)


def representative(c):
    """The smallest value of a bit-length class."""
    return 0 if c == 0 else 1 << (c - 1)


class AutoView:
    """What the automatic scheduler needs of a specialization: its Funcs,
    how the schedule source names them, and the loop extents of the
    size class."""

    def __init__(self, spec, sizes):
        self.spec = spec
        exposed = spec.exposed
        self.view = ScheduleView(spec)
        # the planner's view is not handed to the user: the specialization's
        # fast path need not check its Functions' versions on every call
        # (direct_call.py; a 26-Func pipeline paid ~100 us a call for it)
        spec.exposed = exposed
        self.name = spec.pf.name
        self.sizes = sizes
        self._names = user_names(spec)
        self._funcs = None
        b = spec.builder
        shapes, params = {}, {}
        for name, c in zip(spec.pf.params, sizes or ()):
            if isinstance(c, tuple):
                shapes[name] = tuple(representative(k) for k in c)
            elif c is not None:
                params[name] = representative(c)
        self.env = types.SimpleNamespace(shapes=shapes, params=params)   # a StaticEnv
        self.values = {}
        for name, arr in b.inputs.items():
            if name in shapes and hasattr(arr, "ndim"):
                shape = shapes[name]
                for k in range(len(shape)):
                    self.values[f"{name}.extent.{k}"] = shape[len(shape) - 1 - k]
                    self.values[f"{name}.min.{k}"] = 0
            elif name in params:
                self.values[name] = params[name]
        for sp in b.cx.static_params:
            try:
                self.values[sp.param.name()] = int(sp.fn(self.env))
            except Exception:       # noqa: BLE001 - not computable from sizes alone: unknown
                pass

    def header(self, mode) -> str:
        return (f"Automatic schedule ({mode}) of {self.name} for the size class "
                f"{self.sizes} on target {self.view.target.text}.")

    def funcs(self) -> list:
        """The Funcs to schedule, producers first: each defined Func the
        default schedule computes at root (not inlined, not local to a loop),
        but those whose default schedule is their own (`default_hint`:
        NumPy's float sum order, blocked matrix products), already tuned.
        The default schedule is applied first (so every Func has its place
        and its default loop order; the specialization's own call of it then
        finds them placed)."""
        if self._funcs is None:
            self.spec.default_schedule()
            self._funcs, seen = [], set()
            for _, f, _ in self.spec.builder.funcs:
                fn = f.function()
                level = fn.schedule.compute_level if f.defined() else None
                if level is None or level.kind != "root" or id(fn) in seen:
                    continue
                if getattr(f, "default_hint", None) is not None:
                    continue    # NumPy's sum order, a blocked matrix product: kept as it is
                seen.add(id(fn))
                self._funcs.append(f)
        return self._funcs

    def split_python_int_sums(self, worth) -> list:
        """Split each Python-int sum of the Funcs (autoschedule/pyint.py)
        for which worth(f, k) holds and whose int64 sum the tables then
        prove: the guard total becomes an output of the specialization (so
        its check runs), which then re-runs serially when a run raises
        (SerialRerun). Returns [(the sum's Func, its guard's Func)]."""
        from .associativity import prove_associativity
        from .autoschedule import pyint
        from .autoschedule.funcapi import func_of
        overflow = {c.image.name() for c in self.spec.builder.cx.check_images
                    if c.exc == "OverflowError"}
        out = []
        for f in self.funcs():
            fn = f.function()
            for k in range(len(fn.updates)):
                split = pyint.checked_sum(fn, k, overflow)
                if split is None or not worth(f, k):
                    continue
                old = fn.updates[k]
                guard, total = pyint.split_sum(fn, k, split)
                if not prove_associativity(f.update(k)).associative:
                    fn.updates[k] = old
                    continue
                g = func_of(guard)
                g.compute_root()
                self.spec.out_funcs.append((func_of(total), []))
                self.spec.rerun_serially = True
                out.append((f, g))
        return out

    def pure_extents(self, f):
        """Per pure dimension of f (dimension 0 first), its extent, or None."""
        fn = f.function()
        shape = next((s for g, s in self.spec.out_funcs if g.function() is fn), None)
        if shape is None:
            owner = next((o for _, g, o in self.spec.builder.funcs if g.function() is fn), None)
            arr = getattr(owner, "shape", None)
            shape = [s.static for s in arr] if isinstance(arr, list) else None
        if shape is None or len(shape) != len(fn.args):
            return None
        out = []
        for sfn in reversed(shape):
            try:
                out.append(int(sfn(self.env)) if sfn is not None else None)
            except Exception:       # noqa: BLE001 - not computable from sizes alone: unknown
                out.append(None)
        return out

    def label(self, f) -> str:
        """f's name in the user's terms (reasons)."""
        return rename(f.name(), self._names)

    def func_source(self, f):
        try:
            return f"p.funcs[{self.view.funcs.key_of(f)!r}]"
        except StopIteration:
            return None

    def var_source(self, f, name):
        """p.vars[...] naming loop variable `name` of f, else its name."""
        try:
            key = self.view.funcs.key_of(f)
        except StopIteration:
            return repr(name)
        for k, v in self.view.vars.items():
            if isinstance(k, tuple) and k[0] == key and v.name() == name:
                short = k[1]
                plain = self.view.vars.get(short)
                return f"p.vars[{short!r}]" if plain is v else f"p.vars[{k!r}]"
        return repr(name)
