"""Random pipelines for the schedule fuzzer, generated as Python source.

`random_program(rng)` returns a `Program`: the source of a small pipeline
written against API.md (stencils, pointwise chains, casts to narrow types,
floats, reductions with pure Vars, scans, scatters, histograms,
zero-dimensional totals, inline reductions, Tuples, RDom predicates) plus, for
each Func, what the schedule generator needs to know: its stages and their
loops (innermost first, as Halide lists them), which RVars may run in
parallel, which updates are associative and commutative, and who consumes
it. Because a Program is source text, any failing case prints as a
standalone reproducer.

Inputs are read either at an offset of PAD (the input arrays are padded by
PAD on each side, so tail strategies that widen a producer's region stay
inside them) or through clamped coordinates.
"""
from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field
from typing import Optional

PAD = 48                     # margin of the input arrays on each side
MAX_SIZE = {1: 40, 2: 18}    # largest realized extent per dimension, by dimensionality


@dataclass
class Loop:
    """One loop of a stage, as the schedule generator tracks it."""
    name: str                 # the loop's name in the schedule
    expr: str                 # Python source naming it (x, r1.x, ph.Var("xo3"))
    is_rvar: bool
    extent: Optional[int]     # constant extent, or None
    parallel_ok: bool = True  # iterations may run concurrently (pure, or race-free RVar)
    guarded_outer: bool = False   # the outer loop of a split whose tail is GuardWithIf
    original: bool = True     # an original Var/RVar (not made by split or fuse)
    from_inner: bool = False  # descends from the inner loop of a split (Halide's rule
                              # forbids RoundUp on these in update definitions)


@dataclass
class StageInfo:
    ref: str                  # Python source of the stage (f3, f3.update(0))
    loops: list               # [Loop], innermost first
    is_update: bool = False
    assoc: bool = False       # update proven-able associative and commutative
    kind: str = "pure"


@dataclass
class FuncInfo:
    var: str                  # Python variable holding the Func
    dims: int
    kind: str
    stages: list = field(default_factory=list)
    values: int = 1           # Tuple size
    float_valued: bool = False
    consumers: dict = field(default_factory=dict)   # consumer var -> set of stage indices
    is_output: bool = False
    value_type: str = "ph.Int(32)"

    @property
    def has_updates(self) -> bool:
        return len(self.stages) > 1


@dataclass
class Program:
    seed: int
    dims: int
    header: list              # import lines, Vars, inputs
    algo: list                # definition lines
    funcs: list               # [FuncInfo], producers first
    outputs: list             # [var]
    features: Counter
    float_output: bool = False

    def func(self, var: str) -> FuncInfo:
        return next(f for f in self.funcs if f.var == var)

    def source(self) -> str:
        return "\n".join(self.header + self.algo) + "\n"


# -------------------------------------------------------------------------------------
class _Gen:
    def __init__(self, rng: random.Random, seed: int, dims: int):
        self.rng = rng
        self.seed = seed
        self.dims = dims
        self.vars = ["x", "y"][:dims]
        self.header = [
            "import numpy as np",
            "import pyhalide as ph",
            'x, y = ph.Var("x"), ph.Var("y")',
        ]
        self.algo = []
        self.funcs = []
        self.features = Counter()
        self.inputs = []          # (name, dtype)
        self.unused = []          # Func vars not yet consumed
        self.n_rdom = 0
        self.extent = MAX_SIZE[dims] + 2 * PAD

    # -- inputs -------------------------------------------------------------------------
    def add_input(self, dtype: str, lo: int, hi: int) -> str:
        name = f"in{len(self.inputs)}"
        shape = tuple([self.extent] * self.dims)
        s = self.rng.randrange(1 << 30)
        self.header.append(
            f"{name} = ph.Buffer(np.random.default_rng({s}).integers({lo}, {hi}, "
            f"size={shape}).astype(np.{dtype}), {name!r})")
        self.inputs.append((name, dtype))
        return name

    # -- reads --------------------------------------------------------------------------
    def coords(self, offsets) -> str:
        return ", ".join(_plus(v, o) for v, o in zip(self.vars, offsets))

    def read_input(self, name: str, offsets, dtype="int32") -> str:
        if self.rng.random() < 0.3:
            self.features["input_clamped"] += 1
            hi = self.extent - 1
            idx = ", ".join(f"ph.clamp({_plus(v, o)}, 0, {hi})" for v, o in zip(self.vars, offsets))
        else:
            idx = ", ".join(_plus(v, o + PAD) for v, o in zip(self.vars, offsets))
        e = f"{name}[{idx}]"
        return e if dtype == "int32" else f"ph.i32({e})"

    def read(self, src, offsets) -> str:
        """A read of source `src` (an input name or a FuncInfo) at the
        current point plus `offsets`, as an int32 (or float) Expr."""
        if isinstance(src, str):
            dtype = dict(self.inputs)[src]
            return self.read_input(src, offsets, dtype)
        f: FuncInfo = src
        if f.dims == 0:
            e = f"{f.var}[()]"
        elif f.dims == self.dims:
            e = f"{f.var}[{self.coords(offsets)}]"
        else:       # a 1-D Func (histogram) read from a 2-D pipeline
            e = f"{f.var}[{_plus(self.vars[0], offsets[0])}]"
        if f.values > 1:
            e = f"{e}[{self.rng.randrange(f.values)}]"
            e = f"ph.i32({e})"
        elif _needs_cast(f):
            e = f"ph.i32({e})"
        return e

    def offsets(self, radius=2):
        return [self.rng.randint(-radius, radius) for _ in self.vars]

    def pick_source(self, allow_input=True):
        """A Func not yet consumed if any (so every Func reaches the output),
        else any Func or input."""
        rng = self.rng
        if self.unused and rng.random() < 0.8:
            return self.func_by_var(rng.choice(self.unused))
        pool = [f for f in self.funcs if f.dims in (0, self.dims) or f.kind == "hist"]
        if allow_input or not pool:
            pool = pool + [n for n, _ in self.inputs]
        return rng.choice(pool)

    def func_by_var(self, var):
        return next(f for f in self.funcs if f.var == var)

    def consume(self, consumer: FuncInfo, stage: int, *sources):
        for s in sources:
            if isinstance(s, FuncInfo):
                s.consumers.setdefault(consumer.var, set()).add(stage)
                if s.var in self.unused:
                    self.unused.remove(s.var)

    def new_func(self, kind: str, dims=None, values=1) -> FuncInfo:
        f = FuncInfo(f"f{len(self.funcs)}", self.dims if dims is None else dims, kind,
                     values=values)
        self.algo.append(f"{f.var} = ph.Func({f.var!r})")
        self.features[kind] += 1
        return f

    def pure_stage(self, f: FuncInfo):
        loops = [Loop(v, v, False, None) for v in ["x", "y"][:f.dims]]
        f.stages.append(StageInfo(f.var, loops))

    def finish(self, f: FuncInfo):
        self.funcs.append(f)
        self.unused.append(f.var)

    def lhs(self, f: FuncInfo) -> str:
        return ", ".join(["x", "y"][:f.dims]) if f.dims else "()"

    # -- value expressions -----------------------------------------------------------------
    def combine(self, a: str, b: str) -> str:
        rng = self.rng
        forms = [
            "{a} + {b}", "{a} - {b} * 3", "ph.max({a}, {b})", "ph.min({a}, {b}) + 1",
            "ph.select({a} > {b}, {a}, {b} - 7)", "{a} / ({b} % 7 + 1)", "{a} / {b}",
            "{a} % {b}", "({a} ^ {b}) & 1023", "{a} * {b}", "({a} >> 2) + ({b} << 1)",
            "ph.clamp({a}, -20, 20) + {b}", "{a} + x * 2 - {b}", "ph.i32(ph.abs({a})) + {b}",
            "ph.select(({a} & 1) == 0, {b}, -{b})",
        ]
        if self.dims == 2:
            forms.append("{a} * 3 + {b} - y")
        return rng.choice(forms).format(a=f"({a})", b=f"({b})")

    # -- Func kinds ------------------------------------------------------------------------
    def pointwise(self):
        a, b = self.pick_source(), self.pick_source()
        f = self.new_func("pointwise")
        e = self.combine(self.read(a, [0] * self.dims), self.read(b, [0] * self.dims))
        self.algo.append(f"{f.var}[{self.lhs(f)}] = {e}")
        self.pure_stage(f)
        self.consume(f, 0, a, b)
        self.finish(f)

    def stencil(self):
        src = self.pick_source()
        f = self.new_func("stencil")
        taps = []
        for _ in range(self.rng.randint(2, 4)):
            c = self.rng.choice([1, 1, 2, 3, -1])
            r = self.read(src, self.offsets())
            taps.append(r if c == 1 else f"{c} * {r}")
        self.algo.append(f"{f.var}[{self.lhs(f)}] = {' + '.join(taps)}")
        self.pure_stage(f)
        self.consume(f, 0, src)
        self.finish(f)

    def narrow(self):
        """A pure Func of a narrow type (wrapping casts)."""
        src = self.pick_source()
        f = self.new_func("narrow")
        t = self.rng.choice(["ph.UInt(8)", "ph.Int(16)", "ph.UInt(16)", "ph.Int(8)"])
        e = f"ph.cast({t}, {self.read(src, self.offsets(1))} * 37 + 11)"
        self.algo.append(f"{f.var}[{self.lhs(f)}] = {e}")
        self.pure_stage(f)
        self.consume(f, 0, src)
        self.finish(f)

    def floating(self):
        """A float32 Func; read back through a saturating cast to int32."""
        a, b = self.pick_source(), self.pick_source()
        f = self.new_func("float")
        f.float_valued = True
        ra, rb = self.read(a, self.offsets(1)), self.read(b, [0] * self.dims)
        form = self.rng.choice([
            "ph.f32({a}) * 0.375 + ph.f32({b}) / 3.0",
            "ph.max(ph.f32({a}) * 1.5, ph.f32({b}) - 0.25)",
            "ph.floor(ph.f32({a}) / 7.0) * 2.5 + ph.f32({b})",
        ])
        self.algo.append(f"{f.var}[{self.lhs(f)}] = {form.format(a=ra, b=rb)}")
        self.pure_stage(f)
        self.consume(f, 0, a, b)
        self.finish(f)

    def tuple_func(self):
        a, b = self.pick_source(), self.pick_source()
        f = self.new_func("tuple", values=2)
        e0 = self.combine(self.read(a, self.offsets(1)), self.read(b, [0] * self.dims))
        e1 = f"ph.cast(ph.Int(16), {self.read(a, [0] * self.dims)} - {self.read(b, self.offsets(1))})"
        self.algo.append(f"{f.var}[{self.lhs(f)}] = ({e0}, {e1})")
        self.pure_stage(f)
        self.consume(f, 0, a, b)
        self.finish(f)

    def _rdom(self, ranges) -> str:
        name = f"r{self.n_rdom}"
        self.n_rdom += 1
        self.algo.append(f"{name} = ph.RDom({ranges!r}, {name!r})")
        return name

    def _rloops(self, r: str, n: int, race_free=()) -> list:
        out = []
        for i in range(n):
            c = "xyzw"[i]
            out.append(Loop(f"{r}${c}", f"{r}.{c}", True, None, parallel_ok=(i in race_free)))
        return out

    def _predicate(self, r: str, n: int, data=None, pure_x=False) -> None:
        """r.where(...): over the RVars, the pure Var x (when the update has
        it) or data read at the reduction point (`data`, source text)."""
        rng = self.rng
        forms = [f"{r}.x % 3 != 0", f"{r}.x != 1"]
        if pure_x:
            forms.append(f"({r}.x + x) % 3 != 0")
        if n == 2:
            forms.append(f"{r}.x <= {r}.y")
        if data is not None:
            forms.append(f"{data} % 4 != 1")
        self.algo.append(f"{r}.where({rng.choice(forms)})")
        self.features["predicate"] += 1

    def reduce(self):
        """f[x, y] op= g[x + r.x, y + r.y]: an update with pure Vars."""
        rng = self.rng
        src = self.pick_source()
        init = self.pick_source() if rng.random() < 0.4 else None
        n = 1 if self.dims == 1 or rng.random() < 0.5 else 2
        ranges = [(rng.randint(-1, 0), rng.randint(1, 4)) for _ in range(n)]
        f = self.new_func("reduce")
        r = self._rdom(ranges)
        offs = [f"{r}.{'xy'[i]}" for i in range(n)] + ["0"] * (self.dims - n)
        idx = ", ".join(f"{v} + {o}" for v, o in zip(self.vars, offs))
        val = self._read_at(src, idx)
        if rng.random() < 0.35:
            self._predicate(r, n, val, pure_x=True)
        lhs = self.lhs(f)
        self.algo.append(f"{f.var}[{lhs}] = " + (self.read(init, [0] * self.dims) if init else "0"))
        op = rng.choice(["+=", "max", "min", "^", "horner"])
        if op == "+=":
            self.algo.append(f"{f.var}[{lhs}] += {val}")
        elif op == "^":
            self.algo.append(f"{f.var}[{lhs}] = {f.var}[{lhs}] ^ {val}")
        elif op == "horner":
            self.algo.append(f"{f.var}[{lhs}] = {f.var}[{lhs}] * 3 + {val}")
        else:
            self.algo.append(f"{f.var}[{lhs}] = ph.{op}({f.var}[{lhs}], {val})")
        self.pure_stage(f)
        loops = self._rloops(r, n) + [Loop(v, v, False, None) for v in self.vars]
        f.stages.append(StageInfo(f"{f.var}.update(0)", loops, True, op != "horner", "reduce"))
        self.consume(f, 0, init) if init else None
        self.consume(f, 1, src)
        self.finish(f)

    def _read_at(self, src, idx) -> str:
        """A read of src at explicit index sources `idx` (int32): a list, or a
        comma-separated string of simple expressions."""
        parts = [p.strip() for p in idx.split(",")] if isinstance(idx, str) else list(idx)
        if isinstance(src, str):
            dtype = dict(self.inputs)[src]
            if self.rng.random() < 0.3:
                hi = self.extent - 1
                e = f"{src}[{', '.join(f'ph.clamp({p}, 0, {hi})' for p in parts)}]"
            else:
                e = f"{src}[{', '.join(f'{p} + {PAD}' for p in parts)}]"
            return e if dtype == "int32" else f"ph.i32({e})"
        f = src
        if f.dims == 0:     # keep the reduction point in the value: the RVars stay used
            return f"({f.var}[()] + {parts[0]})"
        elif f.dims != self.dims:
            e = f"{f.var}[{parts[0]}]"
        else:
            e = f"{f.var}[{', '.join(parts)}]"
        if f.values > 1:
            return f"ph.i32({e}[0])"
        return f"ph.i32({e})" if _needs_cast(f) else e

    def scan(self):
        """A prefix scan along x: iterations depend on each other."""
        rng = self.rng
        src = self.pick_source()
        f = self.new_func("scan")
        k = rng.randint(2, 12)
        r = self._rdom([(1, k)])
        lhs = self.lhs(f)
        self.algo.append(f"{f.var}[{lhs}] = {self.read(src, [0] * self.dims)}")
        rest = "" if self.dims == 1 else ", y"
        form = rng.choice(["{f}[{r}.x{rest}] + {f}[{r}.x - 1{rest}]",
                           "{f}[{r}.x{rest}] * 2 - {f}[{r}.x - 1{rest}] % 5"])
        self.algo.append(f"{f.var}[{r}.x{rest}] = " + form.format(f=f.var, r=r, rest=rest))
        self.pure_stage(f)
        loops = self._rloops(r, 1) + [Loop(v, v, False, None) for v in self.vars[1:]]
        f.stages.append(StageInfo(f"{f.var}.update(0)", loops, True, False, "scan"))
        self.consume(f, 0, src)
        self.finish(f)

    def scatter(self):
        """f[r.x, r.y] = f[r.x, r.y] * 2 + g[r.x, r.y]: race-free RVars."""
        rng = self.rng
        src, src2 = self.pick_source(), self.pick_source()
        f = self.new_func("scatter")
        ranges = [(rng.randint(-2, 3), rng.randint(1, 9)) for _ in self.vars]
        pure_y = self.dims == 2 and rng.random() < 0.4
        if pure_y:
            ranges = ranges[:1]
        r = self._rdom(ranges)
        idx = f"{r}.x" if self.dims == 1 else (f"{r}.x, y" if pure_y else f"{r}.x, {r}.y")
        if rng.random() < 0.3:
            self._predicate(r, len(ranges), self._read_at(src2, idx))
        lhs = self.lhs(f)
        self.algo.append(f"{f.var}[{lhs}] = {self.read(src, [0] * self.dims)}")
        self.algo.append(f"{f.var}[{idx}] = {f.var}[{idx}] * 2 + {self._read_at(src2, idx)}")
        self.pure_stage(f)
        n = len(ranges)
        loops = self._rloops(r, n, race_free=range(n)) + \
            ([Loop("y", "y", False, None)] if pure_y else [])
        f.stages.append(StageInfo(f"{f.var}.update(0)", loops, True, False, "scatter"))
        self.consume(f, 0, src)
        self.consume(f, 1, src2)
        self.finish(f)

    def hist(self):
        """A 1-D histogram with clamped (data-dependent) bucket indices."""
        rng = self.rng
        src = self.pick_source()
        f = self.new_func("hist", dims=1)
        k = rng.choice([4, 8, 16])
        n = self.dims
        r = self._rdom([(0, rng.randint(1, 10)) for _ in range(n)])
        idx = ", ".join(f"{r}.{'xy'[i]}" for i in range(n))
        val = self._read_at(src, idx)
        if rng.random() < 0.3:
            self._predicate(r, n, val)
        bucket = rng.choice([f"ph.clamp({val}, 0, {k - 1})", f"({val}) % {k}"])
        self.algo.append(f"{f.var}[x] = 0")
        self.algo.append(f"{f.var}[{bucket}] += 1" if rng.random() < 0.5 else
                         f"{f.var}[{bucket}] += {r}.x + 1")
        self.pure_stage(f)
        f.stages.append(StageInfo(f"{f.var}.update(0)", self._rloops(r, n), True, True, "hist"))
        self.consume(f, 1, src)
        self.finish(f)
        f.hist_k = k

    def total(self):
        """A zero-dimensional reduction."""
        rng = self.rng
        src = self.pick_source()
        f = self.new_func("total", dims=0)
        n = self.dims
        r = self._rdom([(0, rng.randint(1, 6)) for _ in range(n)])
        idx = ", ".join(f"{r}.{'xy'[i]}" for i in range(n))
        self.algo.append(f"{f.var}[()] = 0")
        self.algo.append(f"{f.var}[()] += {self._read_at(src, idx)} % 9")
        self.pure_stage(f)
        f.stages.append(StageInfo(f"{f.var}.update(0)", self._rloops(r, n), True, True, "total"))
        self.consume(f, 1, src)
        self.finish(f)

    def inline_reduction(self):
        """f[x, y] = ph.sum(g[x + r.x, y]) (or min/max/argmin), the
        reduction held in a named Func so it can be scheduled."""
        rng = self.rng
        src = self.pick_source()
        which = rng.choice(["sum", "maximum", "minimum", "argmin", "argmax"])
        holder = self.new_func("inline_" + ("arg" if which.startswith("arg") else "red"),
                               values=2 if which.startswith("arg") else 1)
        self.features["inline_reduction"] += 1
        r = self._rdom([(rng.randint(-1, 0), rng.randint(1, 4))])
        idx = ", ".join([f"x + {r}.x"] + self.vars[1:])
        val = f"{self._read_at(src, idx)} + {' - '.join(self.vars)}"   # uses every Var
        self.funcs.append(holder)          # consumed by f right away
        f = self.new_func("pointwise")
        if which.startswith("arg"):
            self.algo.append(f"_t = ph.{which}({val}, {holder.var})")
            e = "_t[0] * 5 + _t[1]"
        else:
            e = f"ph.{which}({val}, {holder.var}) + 1"
        self.algo.append(f"{f.var}[{self.lhs(f)}] = {e}")
        self.pure_stage(holder)
        holder.stages.append(StageInfo(f"{holder.var}.update(0)",
                                       self._rloops(r, 1) + [Loop(v, v, False, None)
                                                             for v in self.vars],
                                       True, not which.startswith("arg"), "inline"))
        self.consume(holder, 1, src)
        self.pure_stage(f)
        self.consume(f, 0, holder)
        self.finish(f)

    def gather(self):
        """f[x, y] = g[clamp(h[x, y], lo, hi), y]: a data-dependent read of a
        Func (gathers when vectorized), bounded by the clamp."""
        rng = self.rng
        src, idx_src = self.pick_source(), self.pick_source()
        f = self.new_func("gather")
        lo, hi = rng.randint(-4, 0), rng.randint(3, 24)
        idx = f"ph.clamp({self.read(idx_src, self.offsets(1))} % 32, {lo}, {hi})"
        e = self._read_at(src, [idx] + self.vars[1:])
        self.algo.append(f"{f.var}[{self.lhs(f)}] = {e} + x")
        self.pure_stage(f)
        self.consume(f, 0, src, idx_src)
        self.finish(f)

    def output(self, extra_outputs: int):
        """The output(s): combine every Func not yet consumed."""
        outs = []
        for k in range(1 + extra_outputs):
            srcs = [self.func_by_var(v) for v in self.unused] if k == 0 else []
            if not srcs:
                srcs = [self.pick_source()]
            if len(srcs) == 1 and (srcs[0].dims != self.dims if isinstance(srcs[0], FuncInfo)
                                   else False):
                srcs.append(self.pick_source())
            f = self.new_func("output")
            terms = [self.read(s, self.offsets(1) if self.rng.random() < 0.3 else [0] * self.dims)
                     for s in srcs]
            if len(terms) == 1:
                terms.append(self.rng.choice(["x", "1"]))
            e = terms[0]
            for t in terms[1:]:
                e = self.combine(e, t)
            u = self.rng.random()
            if u < 0.15:
                e = f"ph.cast(ph.UInt(8), {e})"
                self.features["narrow_output"] += 1
                f.value_type = "ph.UInt(8)"
            elif u < 0.25:     # float arithmetic must be bit-exact too (no fast-math)
                e = f"ph.f32({e}) / 3.0 + ph.f32(x) * 0.1"
                self.features["float_output"] += 1
                f.value_type = "ph.Float(32)"
            self.algo.append(f"{f.var}[{self.lhs(f)}] = {e}")
            self.pure_stage(f)
            self.consume(f, 0, *srcs)
            f.is_output = True
            self.funcs.append(f)
            outs.append(f)
        return outs

    def output_update(self, f: FuncInfo):
        """Sometimes the output itself has an update (it is computed where
        its buffer is)."""
        rng = self.rng
        r = self._rdom([(0, rng.randint(1, 3))])
        lhs = self.lhs(f)
        rx = f"{r}.x" if f.value_type == "ph.Int(32)" else f"ph.cast({f.value_type}, {r}.x)"
        self.algo.append(f"{f.var}[{lhs}] = {f.var}[{lhs}] * 2 + {rx}")
        loops = self._rloops(r, 1) + [Loop(v, v, False, None) for v in self.vars]
        f.stages.append(StageInfo(f"{f.var}.update(0)", loops, True, False, "reduce"))
        self.features["output_update"] += 1


_KINDS = [("pointwise", 4), ("stencil", 4), ("narrow", 1), ("floating", 1), ("tuple_func", 2),
          ("reduce", 3), ("scan", 1.5), ("scatter", 1.5), ("hist", 1), ("total", 1),
          ("inline_reduction", 1.5), ("gather", 1)]


# the kinds run_fuzz cycles through (one required per program), so that a
# short run still covers each
KIND_CYCLE = ("stencil", "reduce", "tuple_func", "scan", "scatter", "hist", "total",
              "inline_reduction", "narrow", "floating", "gather", "pointwise")


def random_program(rng: random.Random, seed: int = 0, max_funcs: int = 4,
                   require: Optional[str] = None, dims: Optional[int] = None) -> Program:
    """A random pipeline of 1 to max_funcs Funcs (plus the outputs), 1-D or
    2-D (random unless `dims` is given); with `require` (a name of
    KIND_CYCLE), the first Func is of that kind."""
    r = rng.random()
    dims = dims or (2 if r < 0.6 else 1)
    g = _Gen(rng, seed, dims)
    g.add_input("int32", -60, 60)
    if rng.random() < 0.4:
        g.add_input(rng.choice(["uint8", "int16"]), 0, 100)
    n = rng.randint(1, max_funcs)
    names = [k for k, _ in _KINDS]
    weights = [w for _, w in _KINDS]
    for i in range(n):
        getattr(g, require if (i == 0 and require) else rng.choices(names, weights)[0])()
    outs = g.output(1 if rng.random() < 0.12 else 0)
    if rng.random() < 0.12:
        g.output_update(outs[0])
    if len(outs) > 1:
        g.features["multi_output"] += 1
    g.algo.append(f"OUTPUTS = [{', '.join(o.var for o in outs)}]")
    prog = Program(seed, dims, g.header, g.algo, g.funcs, [o.var for o in outs], g.features)
    prog.float_output = False
    return prog


def _needs_cast(f: FuncInfo) -> bool:
    """Whether reads of f need ph.i32(...) to join int32 arithmetic."""
    return f.kind in ("narrow", "float") or f.value_type != "ph.Int(32)"


def _plus(v: str, o: int) -> str:
    if o == 0:
        return v
    return f"{v} + {o}" if o > 0 else f"{v} - {-o}"
