"""Scheduling directives of a stage (split, fuse, reorder, tile, parallel,
vectorize, unroll, serial), recorded as data on its `ir.StageSchedule` and
checked for legality at the call."""
from __future__ import annotations

import dataclasses

from . import ir, schedule_warnings
from .errors import CompileError
from .expr import cast_node, to_node
from .lowering.stage_races import originals, races
from .source import at, user_location


class TailStrategy:
    Auto = "Auto"
    RoundUp = "RoundUp"
    GuardWithIf = "GuardWithIf"
    ShiftInwards = "ShiftInwards"


_TAILS = (TailStrategy.Auto, TailStrategy.RoundUp, TailStrategy.GuardWithIf,
          TailStrategy.ShiftInwards)


def _name(v) -> str:
    if isinstance(v, str):
        return v
    from .var import RDom
    if isinstance(v, RDom) and v.dimensions() == 1:     # a 1-D RDom is its RVar (as in Halide)
        v = v.x
    n = getattr(v, "name", None)
    if callable(n):
        return n()
    raise TypeError(f"expected a Var or RVar, got {type(v).__name__}")


def _is_var_obj(v) -> bool:
    from .var import Var
    return isinstance(v, Var)


class Schedulable:
    """Mixin for Func (its pure stage) and Stage (an update). Subclasses
    provide `_definition()`, `_stage_name()`, `function()` (the internal
    Function) and `_is_update()`."""

    # helpers ---------------------------------------------------------------------
    def _sched(self) -> ir.StageSchedule:
        return self._definition().schedule

    def _fail(self, msg: str):
        raise CompileError(f"{self._stage_name()}: {msg}{at(user_location())}")

    def _dim_index(self, v) -> int:
        name = _name(v)
        for i, d in enumerate(self._sched().dims):
            if d.var == name:
                return i
        dims = ", ".join(d.var for d in self._sched().dims)
        self._fail(f"has no loop variable {name}; its loops are (innermost first): {dims}")

    def _inner_name(self, v, tag: str) -> str:
        """The name of the inner loop that vectorize/unroll/parallel with a factor
        split off `v`: `v$tag`, numbered when a loop of this stage already has it
        (Halide makes a fresh Var each time, so `vectorize(x, 8)` may be asked twice)."""
        base = name = f"{_name(v)}${tag}"
        used = {d.var for d in self._sched().dims}
        k = 1
        while name in used:
            k += 1
            name = f"{base}{k}"
        return name

    def _check_new_name(self, name: str, reused: str = ""):
        if name != reused and any(d.var == name for d in self._sched().dims):
            self._fail(f"the name {name} is already used by a loop of this stage")

    def _rvar_names(self) -> set:
        return {rv.name for rv in self._sched().rvars}

    def _races(self, dim: ir.Dim) -> str:
        """Why iterations of an RVar dimension may not run in parallel ('' if
        they may): see races()."""
        return races(self.function(), self._definition(), dim)

    def _originals(self, var: str) -> set:
        return originals(self._sched(), var)

    # directives ----------------------------------------------------------------------
    def split(self, old, outer, inner, factor, tail=TailStrategy.Auto):
        """Split loop `old` into `outer` and `inner` (inner runs `factor` times)."""
        if tail not in _TAILS:
            raise TypeError(f"unknown tail strategy {tail!r}")
        i = self._dim_index(old)
        dims = self._sched().dims
        old_dim = dims[i]
        o, n = _name(outer), _name(inner)
        if o == n:
            self._fail(f"split of {old_dim.var} needs two different names, got {o} twice")
        self._check_new_name(o, old_dim.var)
        self._check_new_name(n, old_dim.var)
        f = to_node(factor)
        if not f.type.is_integer():
            self._fail(f"split factor must be an integer, not {f.type}")
        f = cast_node(ir.INDEX, f)
        if isinstance(f, ir.Const) and f.value <= 0:
            self._fail(f"split factor must be positive, got {f.value}")
        if old_dim.is_rvar and tail in (TailStrategy.RoundUp, TailStrategy.ShiftInwards):
            self._fail(f"{tail} would run the reduction {old_dim.var} over extra points; "
                       f"use GuardWithIf (or Auto)")
        if self._is_update() and tail in (TailStrategy.ShiftInwards, TailStrategy.RoundUp):
            self._fail(f"{tail} would apply the update twice, or beyond its region, at some "
                       f"points; use GuardWithIf (or Auto)")
        dims[i] = ir.Dim(n, old_dim.kind if old_dim.kind != "serial" else "serial",
                         old_dim.is_rvar)
        dims.insert(i + 1, ir.Dim(o, "serial", old_dim.is_rvar))
        self._sched().splits.append(ir.Split("split", old_dim.var, o, n, f, tail))
        return self

    def fuse(self, inner, outer, fused):
        """Fuse loops `inner` and `outer` into one loop at inner's place that
        runs outer's iterations outside inner's. As in Halide, outer first
        moves directly outside inner, a reorder checked as reorder() checks it."""
        i, j = self._dim_index(inner), self._dim_index(outer)
        dims = self._sched().dims
        if i == j:
            self._fail(f"fuse needs two different loops, got {dims[i].var} twice")
        name = _name(fused)
        self._check_new_name(name)
        rvar = next((d.var for d in (dims[i], dims[j]) if d.is_rvar), None)
        if rvar is not None and _is_var_obj(fused):
            self._fail(f"fuse cannot make the Var {name} from the RVar {rvar}; name the fused "
                       f"loop with an RVar (ph.RVar({name!r})), as in Halide")
        if j != i + 1:
            order = [d for k, d in enumerate(dims) if k != j]
            order.insert(i + 1 if i < j else i, dims[j])
            self._set_order(order, f"fuse({dims[i].var}, {dims[j].var}) moves {dims[j].var} "
                                   f"directly outside {dims[i].var}: this")
            i = self._dim_index(inner)
            j = i + 1
        self._sched().splits.append(ir.Split("fuse", name, dims[j].var, dims[i].var))
        dims[i:j + 1] = [ir.Dim(name, "serial", dims[i].is_rvar or dims[j].is_rvar)]
        return self

    def reorder(self, *vars):
        """Reorder loops; the first named becomes the innermost."""
        if len(vars) == 1 and isinstance(vars[0], (list, tuple)):
            vars = tuple(vars[0])
        idx = [self._dim_index(v) for v in vars]
        if len(set(idx)) != len(idx):
            self._fail("reorder names a loop twice")
        dims = self._sched().dims
        new = list(dims)
        for slot, k in zip(sorted(idx), idx):
            new[slot] = dims[k]
        before = ", ".join(d.var for d in dims if d.is_rvar)
        return self._set_order(new, f"reordering the RVars ({before})")

    def _set_order(self, new: list, what: str):
        """Make `new` (a permutation of the loops) the loop order; RVars
        change their relative order only in an update proven associative and
        commutative."""
        dims = self._sched().dims
        before = [d.var for d in dims if d.is_rvar]
        after = [d.var for d in new if d.is_rvar]
        if before != after and not self._sched().allow_race_conditions:
            why = self._reorder_refusal()
            if why:
                self._fail(f"{what} changes the order of the reduction, which is "
                           f"allowed only for an update proven "
                           f"associative and commutative: {why}")
        dims[:] = new
        return self

    def _reorder_refusal(self) -> str:
        """'' if this update is proven associative and commutative, else why not."""
        if not self._is_update():
            return "this is a pure definition"
        try:
            from .associativity import prove_associativity
        except ImportError:
            return "the associativity prover is not available"
        op = prove_associativity(self)
        if not op.associative:
            return op.reason
        if not op.commutative:
            return "the operator is associative but not commutative"
        return ""

    def tile(self, x, y, *names):
        """tile(x, y, xo, yo, xi, yi, xf, yf) or tile(x, y, xi, yi, xf, yf),
        or Halide's vector forms tile([vars], [outers], [inners], [factors])
        and tile([vars], [inners], [factors]) (a tail strategy last)."""
        if isinstance(x, (list, tuple)):
            return self._tile_lists(x, y, *names)
        tail = TailStrategy.Auto
        if names and names[-1] in _TAILS:
            tail, names = names[-1], names[:-1]
        if len(names) == 6:
            xo, yo, xi, yi, xf, yf = names
        elif len(names) == 4:
            xi, yi, xf, yf = names
            xo, yo = x, y
        else:
            raise TypeError("tile(x, y, xo, yo, xi, yi, xf, yf) or tile(x, y, xi, yi, xf, yf)")
        self.split(x, xo, xi, xf, tail)
        self.split(y, yo, yi, yf, tail)
        return self.reorder(xi, yi, xo, yo)

    def _tile_lists(self, previous, *rest):
        tail = TailStrategy.Auto
        if rest and rest[-1] in _TAILS:
            tail, rest = rest[-1], rest[:-1]
        if len(rest) == 3:
            outers, inners, factors = rest
        elif len(rest) == 2:
            (inners, factors), outers = rest, previous
        else:
            raise TypeError("tile([vars], [outers], [inners], [factors]) or "
                            "tile([vars], [inners], [factors])")
        if not all(isinstance(v, (list, tuple)) and len(v) == len(previous)
                   for v in (outers, inners, factors)):
            raise TypeError("tile() with lists takes lists of the same length for the Vars, "
                            "the outer and inner Vars and the factors")
        for old, outer, inner, factor in zip(previous, outers, inners, factors):
            self.split(old, outer, inner, factor, tail)
        return self.reorder(*inners, *outers)

    def _mark(self, v, kind: str):
        i = self._dim_index(v)
        dim = self._sched().dims[i]
        if kind == "vectorized" and self._sched().atomic:
            self._fail(f"cannot vectorize {dim.var} of an atomic() update: pyhalide makes each "
                       f"update one scalar atomic read-modify-write (parallelize it instead)")
        if kind in ("parallel", "vectorized"):
            why = self._races(dim)
            if why:
                self._fail(f"cannot {'parallelize' if kind == 'parallel' else 'vectorize'} "
                           f"{dim.var}: {why}")
        self._sched().dims[i] = dataclasses.replace(dim, kind=kind)
        return self

    def parallel(self, v, task_size=None, tail=TailStrategy.Auto):
        """Run the iterations of `v` in parallel (in chunks of task_size)."""
        if task_size is not None:
            inner = self._inner_name(v, "par")
            self.split(v, v, inner, task_size, tail)
        return self._mark(v, "parallel")

    def vectorize(self, v, width=None, tail=TailStrategy.Auto):
        """Vectorize loop `v` (its extent must be constant), or split it by
        `width` and vectorize the inner loop."""
        if width is None:
            return self._mark(v, "vectorized")
        inner = self._inner_name(v, "vec")
        self.split(v, v, inner, width, tail)
        return self._mark(inner, "vectorized")

    def unroll(self, v, factor=None, tail=TailStrategy.Auto):
        if factor is None:
            return self._mark(v, "unrolled")
        inner = self._inner_name(v, "unr")
        self.split(v, v, inner, factor, tail)
        return self._mark(inner, "unrolled")

    def serial(self, v):
        return self._mark(v, "serial")

    def partition(self, v, policy):
        """Halide's loop-partitioning hint for loop `v` (hl.Partition). pyhalide
        partitions loops itself (lowering/partition_loops.py: a copy of a
        loop's body without the guards that hold in it); Partition.Never
        keeps `v` from being partitioned (its guards are then tested inside,
        or partitioned at inner loops); Auto and Always leave it to the
        pass. The hint never changes results."""
        from .halide_target import Partition
        if not isinstance(policy, Partition):
            raise TypeError(f"partition() takes a hl.Partition, not {policy!r}")
        i = self._dim_index(v)
        self._sched().dims[i] = dataclasses.replace(self._sched().dims[i],
                                                    partition=policy is not Partition.Never)
        schedule_warnings.mark_touched(self._definition())
        return self
