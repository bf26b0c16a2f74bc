"""The schedule fuzzer: random legal schedules for the random pipelines of
fuzz_pipelines.py, each realized and compared bit-exactly with the default
(serial) schedule and with the schedule-free reference evaluator; plus
deliberately illegal requests, each of which must raise ph.CompileError.

    report = run_fuzz(seed, programs=12, schedules=4)
    report.failures      # [Failure]: each has a standalone reproducer (.source)
    report.summary()     # the seed, the directive/tail histogram, refusals, timings

A schedule is generated as Python source lines over the Program's Funcs. The
generator mirrors each stage's loop list (innermost first, as Halide) through
split/fuse/reorder/tile and the splitting forms of parallel/vectorize/unroll,
so it knows which names exist, which extents are constant and which RVar
loops may run in parallel; its rules come from API.md ("Scheduling") and
Halide, not from pyhalide's implementation.

Known limitations are "legal but refused": the CompileError is matched against
LIMITATIONS and counted, not reported. Known bugs (KNOWN_BUGS) are steered
around unless `avoid` says otherwise; each has an xfail test in
test_schedule_regressions.py. Coverage boosting (`min_each`) makes directives
and tails below their minimum count more likely, so that short runs still draw
every one of them. Each schedule may use at most `max_guards` partitioning
splits (GuardWithIf tails): every one doubles the code below it, and compile
time with it.
"""
from __future__ import annotations

import math
import random
import re
import sys
import time
import traceback
from collections import Counter
from dataclasses import dataclass, field

import numpy as np

import pyhalide as ph
from pyhalide.ir.config import override
from tests.schedules.fuzz_pipelines import KIND_CYCLE, MAX_SIZE, Loop, Program, random_program

TAILS = ("Auto", "RoundUp", "GuardWithIf", "ShiftInwards")

# Every directive and tail strategy the fuzzer draws; run_fuzz's callers
# assert a minimum count for each.
DIRECTIVES = ("split", "fuse", "reorder", "tile", "parallel", "parallel_task", "vectorize",
              "vectorize_width", "unroll", "unroll_factor", "serial", "compute_root",
              "compute_at", "store_root", "store_at", "compute_inline")
TAIL_KEYS = tuple(f"tail:{t}" for t in TAILS)

# requests pyhalide refuses at realize() that the generator may draw: (key, regex of
# the CompileError). Storage shared by the iterations of a parallel or vectorized
# loop is a race, refused as in Halide.
LIMITATIONS = [
    ("shared_storage_race", r"would share the storage"),
]

# Known bugs the generator steers around by default (each has an xfail test in
# test_schedule_regressions.py; drop the entry when that test starts passing).
KNOWN_BUGS: dict = {}

# illegal requests: category -> regex the CompileError must match
ILLEGAL = {
    "parallel_race": r"cannot parallelize",
    "vectorize_race": r"cannot vectorize",
    "reorder_rvars": r"reordering the RVars",
    "tail_rvar": r"would run the reduction",
    "shift_update": r"ShiftInwards would apply the update",
    "fuse_mixed": r"fuse cannot make the Var pf from the RVar",
    "bad_factor": r"factor must be positive",
    "unknown_loop": r"has no loop variable",
    "name_reuse": r"already used",
    "self_compute_at": r"cannot be computed inside its own loops",
    "inline_update": r"cannot be inlined",
    "missing_loop": r"no loop",
    "vectorize_nonconst": r"not a constant",
    "use_outside_level": r"uses it outside that loop|also uses it",
    "roundup_inner_update": r"RoundUp",
    "store_inside_compute": r"store level must contain the compute level|stored at .* computed at",
    "store_outside_parallel": r"would share the storage",
}
# categories that may be refused at realize() rather than at the call
# (the loop they name may only appear later in the schedule, as in Halide)
AT_REALIZE_OK = {"missing_loop", "vectorize_nonconst", "use_outside_level",
                 "store_inside_compute", "store_outside_parallel"}


# -------------------------------------------------------------------------------------
@dataclass
class Line:
    code: str
    refusable: str = ""      # regex of an acceptable CompileError (then the line is skipped)
    refuse_key: str = ""     # stats key when refused
    bad_if_accepted: str = ""   # failure message if the line is accepted


@dataclass
class Schedule:
    lines: list = field(default_factory=list)          # [Line]
    drawn: Counter = field(default_factory=Counter)
    parallel: bool = False
    nested: bool = False

    def source(self) -> str:
        return "\n".join(l.code for l in self.lines)


@dataclass
class Failure:
    kind: str
    message: str
    source: str
    program: str = ""        # for minimize(): the algorithm's source,
    lines: list = None       # the schedule lines applied,
    sizes: list = None       # and the realized sizes

    def __str__(self):
        return f"[{self.kind}] {self.message}\n--- reproducer ---\n{self.source}"


@dataclass
class Report:
    seed: int
    programs: int = 0
    schedules: int = 0
    realizations: int = 0
    drawn: Counter = field(default_factory=Counter)
    features: Counter = field(default_factory=Counter)
    refused: Counter = field(default_factory=Counter)
    illegal: Counter = field(default_factory=Counter)
    illegal_at_realize: Counter = field(default_factory=Counter)
    failures: list = field(default_factory=list)
    seconds: float = 0.0
    compile_seconds: float = 0.0
    slowest: list = field(default_factory=list)     # [(seconds, program seed, schedule)]
    avoided: list = field(default_factory=list)     # KNOWN_BUGS steered around

    def summary(self) -> str:
        def fmt(c, keys=None):
            keys = keys or sorted(c)
            return ", ".join(f"{k}={c.get(k, 0)}" for k in keys) or "-"
        lines = [
            f"schedule fuzz: seed={self.seed} programs={self.programs} schedules={self.schedules} "
            f"realizations={self.realizations} failures={len(self.failures)} "
            f"time={self.seconds:.1f}s (compile+run {self.compile_seconds:.1f}s)",
            f"  directives: {fmt(self.drawn, DIRECTIVES)}",
            f"  tails:      {fmt(self.drawn, TAIL_KEYS)}",
            f"  other:      {fmt(Counter({k: v for k, v in self.drawn.items() if k not in DIRECTIVES and k not in TAIL_KEYS}))}",
            f"  pipelines:  {fmt(self.features)}",
            f"  refused (legal, known limitations): {fmt(self.refused)}",
            f"  illegal requests refused: {fmt(self.illegal)}",
            f"  ... of which at realize() rather than at the call: {fmt(self.illegal_at_realize)}",
            f"  known bugs avoided: {', '.join(self.avoided) or '-'}",
            "  slowest schedules: " + ", ".join(f"{t:.1f}s (program {s})" for t, s, _ in self.slowest),
        ]
        return "\n".join(lines)

    def merge(self, other: "Report"):
        self.programs += other.programs
        self.schedules += other.schedules
        self.realizations += other.realizations
        for a in ("drawn", "features", "refused", "illegal", "illegal_at_realize"):
            getattr(self, a).update(getattr(other, a))
        self.failures += other.failures
        self.seconds += other.seconds
        self.compile_seconds += other.compile_seconds


# -------------------------------------------------------------------------------------
def _mk(name: str, is_rvar: bool) -> str:
    return f'ph.{"RVar" if is_rvar else "Var"}("{name}")'


class _StageGen:
    """Random directives on one stage, mirroring its loops."""

    def __init__(self, sg: "_ScheduleGen", func, stage, is_output: bool):
        self.sg = sg
        self.func = func
        self.rng = sg.rng
        self.ref = stage.ref
        self.stage = stage
        self.loops = [Loop(**vars(l)) for l in stage.loops]
        self.names = {l.name for l in self.loops}
        self.is_output = is_output
        self.done = False          # a possibly-refused line ends the stage's directives
        self.tiled = False

    def fresh(self, base: str, tag: str) -> str:
        self.sg.counter += 1
        base = re.sub(r"[^A-Za-z0-9]", "", base)[:6]
        n = f"{base}{tag}{self.sg.counter}"
        self.names.add(n)
        return n

    def emit(self, code: str, key: str, **kw):
        self.sg.sched.lines.append(Line(f"{self.ref}.{code}", **kw))
        if key:
            self.sg.sched.drawn[key] += 1

    def legal_tails(self, lp: Loop) -> list:
        if lp.is_rvar:
            return ["Auto", "GuardWithIf"]
        if self.stage.is_update:        # RoundUp and ShiftInwards are refused in updates
            return ["Auto", "GuardWithIf"]
        return list(TAILS)

    def pick_tail(self, tails: list) -> str:
        wanted = [t for t in tails if self.sg.want(f"tail:{t}")]
        return self.rng.choice(wanted if wanted and self.rng.random() < 0.7 else tails)

    def is_guard(self, lp: Loop, tail: str) -> bool:
        """Whether the split partitions the loop nest (a guarded and an
        unguarded copy of the body)."""
        t = self._effective_tail(lp, tail)
        return t in ("GuardWithIf", "ShiftInwards")

    def budget_tail(self, lp: Loop, tail: str):
        """`tail`, or another legal tail (or None: skip the directive) when
        the schedule has used up its partitioning splits: each doubles the
        code below it, so compile time grows exponentially with them."""
        if not self.is_guard(lp, tail):
            return tail
        if self.sg.guards < self.sg.max_guards:
            self.sg.guards += 1
            return tail
        other = [t for t in self.tails_for(lp) if not self.is_guard(lp, t)]
        return self.rng.choice(other) if other else None

    def tails_for(self, lp: Loop) -> list:
        return self.legal_tails(lp)

    def tail_arg(self, tail: str, keyword=False) -> str:
        self.sg.sched.drawn[f"tail:{tail}"] += 1
        if tail == "Auto" and self.rng.random() < 0.5:
            return ""
        t = f"ph.TailStrategy.{tail}"
        return f", tail={t}" if keyword else f", {t}"

    # -- mirror operations -----------------------------------------------------------------
    def _effective_tail(self, lp: Loop, tail: str) -> str:
        if tail == "Auto":
            tail = "ShiftInwards" if not (self.stage.is_update or lp.is_rvar) else "GuardWithIf"
        if tail == "RoundUp" and (self.is_output or not lp.original):
            tail = "GuardWithIf"
        return tail

    def _split(self, i: int, outer: str, inner: str, factor: int, tail: str = "Auto"):
        lp = self.loops[i]
        ext = None if lp.extent is None else -(-lp.extent // factor)
        self.loops[i] = Loop(inner, _mk(inner, lp.is_rvar) if inner != lp.name else lp.expr,
                             lp.is_rvar, factor, lp.parallel_ok, original=False, from_inner=True)
        self.loops.insert(i + 1, Loop(
            outer, _mk(outer, lp.is_rvar) if outer != lp.name else lp.expr, lp.is_rvar, ext,
            lp.parallel_ok, self._effective_tail(lp, tail) == "GuardWithIf", original=False,
            from_inner=lp.from_inner))

    def avoid(self, bug: str) -> bool:
        return bug in self.sg.avoid

    def resplit_ok(self, lp: Loop) -> bool:
        """May lp be split keeping its name as the outer loop? (A hook for
        known bugs; none at the moment.)"""
        return True

    def _index(self, name: str) -> int:
        return next(i for i, l in enumerate(self.loops) if l.name == name)

    def _reorder(self, order: list):
        """order: loop indices, innermost first; they take the sorted slots."""
        new = list(self.loops)
        for slot, k in zip(sorted(order), order):
            new[slot] = self.loops[k]
        self.loops = new

    # -- directives ------------------------------------------------------------------------
    def split(self):
        rng = self.rng
        i = rng.randrange(len(self.loops))
        lp = self.loops[i]
        factor = rng.choice([1, 2, 3, 4, 4, 5, 8, 8, 16])
        tail = self.budget_tail(lp, self.pick_tail(self.tails_for(lp)))
        if tail is None:
            return
        o, n = self.fresh(lp.name, "o"), self.fresh(lp.name, "i")
        self.emit(f"split({lp.expr}, {_mk(o, lp.is_rvar)}, {_mk(n, lp.is_rvar)}, {factor}"
                  f"{self.tail_arg(tail)})", "split")
        self._split(i, o, n, factor, tail)

    def fuse(self):
        # adjacent loops of one kind, or two pure loops anywhere in either
        # order (fuse first moves the outer one directly outside the inner one)
        pure = [i for i, l in enumerate(self.loops) if not l.is_rvar]
        pairs = [(i, i + 1) for i in range(len(self.loops) - 1)
                 if self.loops[i].is_rvar == self.loops[i + 1].is_rvar]
        pairs += [(i, j) for i in pure for j in pure if abs(i - j) > 1 or j < i]
        if not pairs:
            return self.split()
        i, j = self.rng.choice(pairs)
        a, b = self.loops[i], self.loops[j]
        name = self.fresh(a.name + b.name, "f")
        self.emit(f"fuse({a.expr}, {b.expr}, {_mk(name, a.is_rvar)})", "fuse")
        ext = a.extent * b.extent if a.extent is not None and b.extent is not None else None
        fused = Loop(name, _mk(name, a.is_rvar), a.is_rvar, ext,
                     a.parallel_ok and b.parallel_ok, original=False,
                     from_inner=a.from_inner or b.from_inner)
        self.loops = [fused if k == i else lp for k, lp in enumerate(self.loops) if k != j]

    def reorder(self):
        rng = self.rng
        if len(self.loops) < 2:
            return self.split()
        k = rng.randint(2, len(self.loops))
        chosen = rng.sample(range(len(self.loops)), k)
        # keep the RVars' relative order: RVar positions get the RVars sorted
        rpos = [j for j, idx in enumerate(chosen) if self.loops[idx].is_rvar]
        rsorted = sorted(chosen[j] for j in rpos)
        for j, idx in zip(rpos, rsorted):
            chosen[j] = idx
        before = [lp.name for lp in self.loops if lp.is_rvar]
        self._reorder(chosen)
        code = f"reorder({', '.join(self.loops[slot].expr for slot in sorted(chosen))})"
        if [lp.name for lp in self.loops if lp.is_rvar] == before:
            self.emit(code, "reorder")
            return
        # the chosen loops take the chosen slots, so a chosen RVar can move past
        # one not chosen (loops [r.xi, r.xo, y$vec, y], reorder(y, r.xi) gives
        # [y, r.xo, y$vec, r.xi]): that changes the RVars' order, as Halide's
        # check sees it, so it is refused unless the update is associative
        self.emit(code, "reorder_rvars", refusable=ILLEGAL["reorder_rvars"],
                  refuse_key="reorder_rvars", bad_if_accepted="" if self.stage.assoc else
                  "a reorder moving an RVar past another of a non-associative update "
                  "was accepted")
        self.done = True

    def reorder_rvars(self):
        """A reorder that changes the RVars' order: refused unless the update
        is proven associative and commutative."""
        rv = [i for i, l in enumerate(self.loops) if l.is_rvar]
        if len(rv) < 2:
            return self.reorder()
        order = list(reversed(rv))
        regex = ILLEGAL["reorder_rvars"]
        bad = "" if self.stage.assoc else \
            "a reorder of the RVars of a non-associative update was accepted"
        self.emit(f"reorder({', '.join(self.loops[j].expr for j in order)})", "reorder_rvars",
                  refusable=regex, refuse_key="reorder_rvars", bad_if_accepted=bad)
        self._reorder(order)
        self.done = True

    def tile(self):
        rng = self.rng
        pure = [i for i, l in enumerate(self.loops) if not l.is_rvar]
        if len(pure) < 2 or self.tiled:
            return self.split()
        self.tiled = True
        i, j = rng.sample(pure, 2)
        a, b = self.loops[i], self.loops[j]
        fa, fb = rng.choice([2, 3, 4, 8]), rng.choice([1, 2, 4, 5])
        tail = self.pick_tail([t for t in self.tails_for(a) if t in self.tails_for(b)])
        if self.is_guard(a, tail):
            if self.sg.guards + 2 > self.sg.max_guards:
                return
            self.sg.guards += 2
        ai, bi = self.fresh(a.name, "i"), self.fresh(b.name, "i")
        if rng.random() < 0.3 and self.resplit_ok(a) and self.resplit_ok(b):
            # tile(x, y, xi, yi, xf, yf): the outer loops keep the names x and y
            ao, bo = a.name, b.name
            names = f"{_mk(ai, False)}, {_mk(bi, False)}"
            self.sg.sched.drawn["tile4"] += 1
        else:
            ao, bo = self.fresh(a.name, "o"), self.fresh(b.name, "o")
            names = f"{_mk(ao, False)}, {_mk(bo, False)}, {_mk(ai, False)}, {_mk(bi, False)}"
        self.emit(f"tile({a.expr}, {b.expr}, {names}, {fa}, {fb}{self.tail_arg(tail)})", "tile")
        self._split(self._index(a.name), ao, ai, fa, tail)
        self._split(self._index(b.name), bo, bi, fb, tail)
        self._reorder([self._index(n) for n in (ai, bi, ao, bo)])

    def _markable(self):
        return [i for i, l in enumerate(self.loops) if l.parallel_ok]

    def _name_free(self, name: str) -> bool:
        return name not in self.names

    def parallel(self):
        rng = self.rng
        ok = self._markable()
        if not ok:
            return self.split()
        i = rng.choice(ok)
        lp = self.loops[i]
        self.sg.sched.parallel = True
        p_task = 0.9 if self.sg.want("parallel_task") and not self.sg.want("parallel") else 0.4
        if rng.random() < p_task and self._name_free(f"{lp.name}$par") and self.resplit_ok(lp):
            task = rng.choice([1, 2, 3, 4, 8])
            tail = self.budget_tail(lp, rng.choice(self.tails_for(lp))
                                    if rng.random() < 0.3 else "Auto")
            if tail is None:
                return
            self.emit(f"parallel({lp.expr}, {task}{self.tail_arg(tail)})", "parallel_task")
            self.names.add(f"{lp.name}$par")
            self._split(i, lp.name, f"{lp.name}$par", task, tail)
        else:
            self.emit(f"parallel({lp.expr})", "parallel")

    def _mark_split(self, what: str, suffix: str, key_plain: str, key_width: str, max_const: int):
        rng = self.rng
        ok = self._markable()
        if not ok:
            return self.split()
        # mostly the innermost markable loop
        i = ok[0] if rng.random() < 0.7 else rng.choice(ok)
        const = [j for j in ok if self.loops[j].extent is not None
                 and self.loops[j].extent <= max_const]
        want_plain = self.sg.want(key_plain) and not self.sg.want(key_width)
        if want_plain and not const:         # make a constant-extent loop first
            self.split()
            ok = self._markable()
            const = [j for j in ok if self.loops[j].extent is not None
                     and self.loops[j].extent <= max_const]
            if not ok:
                return
            i = ok[0]
        if want_plain and const:
            i = rng.choice(const)
        lp = self.loops[i]
        if lp.extent is not None and lp.extent <= max_const and \
                (want_plain or rng.random() < 0.5):
            self.emit(f"{what}({lp.expr})", key_plain)
        elif self._name_free(f"{lp.name}${suffix}") and self.resplit_ok(lp):
            w = rng.choice([2, 3, 4, 8, 8, 16] if what == "vectorize" else [2, 3, 4])
            tail = self.budget_tail(lp, rng.choice(self.tails_for(lp))
                                    if rng.random() < 0.3 else "Auto")
            if tail is None:
                return
            self.emit(f"{what}({lp.expr}, {w}{self.tail_arg(tail)})", key_width)
            self.names.add(f"{lp.name}${suffix}")
            self._split(i, lp.name, f"{lp.name}${suffix}", w, tail)
        else:
            return self.split()

    def vectorize(self):
        self._mark_split("vectorize", "vec", "vectorize", "vectorize_width", 32)

    def unroll(self):
        self._mark_split("unroll", "unr", "unroll", "unroll_factor", 16)

    def serial(self):
        lp = self.rng.choice(self.loops)
        self.emit(f"serial({lp.expr})", "serial")

    def run(self):
        rng = self.rng
        # few directives per stage: every GuardWithIf split partitions the loop
        # body in two, so compile time grows exponentially with their number
        n = rng.choice([0, 1, 1, 2, 2, 3])
        if self.sg.wanting():
            n = max(n, 2)
        ops = [self.split, self.fuse, self.reorder, self.tile, self.parallel, self.vectorize,
               self.unroll, self.serial]
        weights = [3, 1.2, 1.5, 1.5, 2, 2.5, 1.2, 0.5]
        keys = [("split",), ("fuse",), ("reorder",), ("tile",), ("parallel", "parallel_task"),
                ("vectorize", "vectorize_width"), ("unroll", "unroll_factor"), ("serial",)]
        weights = [w * (25 if any(self.sg.want(k) for k in ks) else 1)
                   for w, ks in zip(weights, keys)]
        if self.stage.is_update and sum(l.is_rvar for l in self.loops) >= 1:
            ops.append(self.reorder_rvars)
            weights.append(0.3)
        for _ in range(n):
            if self.done or not self.loops:
                break
            rng.choices(ops, weights)[0]()
        return self.loops


class _ScheduleGen:
    def __init__(self, prog: Program, rng: random.Random, avoid=frozenset(KNOWN_BUGS),
                 max_guards: int = 3, coverage=None):
        self.prog = prog
        self.rng = rng
        self.avoid = set(avoid)
        self.coverage = coverage       # (Counter of draws so far, minimum per key) or None
        self.guards = 0
        self.max_guards = max_guards
        self.sched = Schedule()
        self.counter = 0
        self.final_loops = {}     # func var -> loops of its last stage, innermost first
        self.level = {}           # func var -> "inline" | "root" | ("at", consumer)

    def run(self) -> Schedule:
        rng = self.rng
        for f in reversed(self.prog.funcs):           # consumers first
            self.func_level(f)
            if self.level[f.var] == "inline":
                continue
            for stage in f.stages:
                loops = _StageGen(self, f, stage, f.is_output).run() if rng.random() < 0.8 \
                    else stage.loops
                self.final_loops[f.var] = loops
        return self.sched

    def want(self, key: str) -> bool:
        """Whether `key` is still below its minimum count (coverage boosting)."""
        if self.coverage is None:
            return False
        drawn, minimum = self.coverage
        return drawn[key] + self.sched.drawn[key] < minimum

    def wanting(self) -> bool:
        return any(self.want(k) for k in DIRECTIVES + TAIL_KEYS)

    def func_level(self, f):
        rng = self.rng
        s = self.sched
        if f.is_output:
            self.level[f.var] = "root"
            return
        options = ["root"]
        if not f.has_updates:
            options += ["inline"]
        consumer = None
        if len(f.consumers) == 1:
            (cvar, stages), = f.consumers.items()
            c = self.prog.func(cvar)
            if stages == {len(c.stages) - 1} and self.level.get(cvar) != "inline":
                consumer = c
                options += ["at", "at"]
        if self.want("compute_inline") and "inline" in options:
            options += ["inline"] * 3
        if (self.want("compute_at") or self.want("store_at")) and "at" in options:
            options += ["at"] * 4
        choice = rng.choice(options)
        if choice == "inline":
            self.level[f.var] = "inline"
            if rng.random() < (0.9 if self.want("compute_inline") else 0.4):
                s.lines.append(Line(f"{f.var}.compute_inline()"))
                s.drawn["compute_inline"] += 1
            return
        if choice == "root":
            self.level[f.var] = "root"
            s.lines.append(Line(f"{f.var}.compute_root()"))
            s.drawn["compute_root"] += 1
            if rng.random() < (0.8 if self.want("store_root") else 0.2):
                s.lines.append(Line(f"{f.var}.store_root()"))
                s.drawn["store_root"] += 1
            return
        self.level[f.var] = ("at", consumer.var)
        loops = self.final_loops[consumer.var]
        k = rng.randrange(len(loops)) if loops else None
        if k is None:               # a zero-dimensional consumer with no loops: root
            self.level[f.var] = "root"
            s.lines.append(Line(f"{f.var}.compute_root()"))
            s.drawn["compute_root"] += 1
            return
        nested = isinstance(self.level.get(consumer.var), tuple)
        s.nested = s.nested or nested
        s.lines.append(Line(f"{f.var}.compute_at({consumer.var}, {loops[k].expr})"))
        s.drawn["compute_at"] += 1
        if nested:
            s.drawn["compute_at_nested"] += 1
        u = rng.random()
        if self.want("store_at"):
            u = 0.3
        elif self.want("store_root"):
            u = 0.1
        if u < 0.2:
            s.lines.append(Line(f"{f.var}.store_root()"))
            s.drawn["store_root"] += 1
        elif u < 0.4:
            j = rng.randrange(k, len(loops))
            s.lines.append(Line(f"{f.var}.store_at({consumer.var}, {loops[j].expr})"))
            s.drawn["store_at"] += 1


def random_schedule(prog: Program, rng: random.Random, avoid=frozenset(KNOWN_BUGS),
                    max_guards: int = 3, coverage=None) -> Schedule:
    """A random legal schedule of `prog`, as source lines. `coverage`
    (drawn so far, minimum) makes directives and tails below their minimum
    more likely."""
    return _ScheduleGen(prog, rng, avoid, max_guards, coverage).run()


# -------------------------------------------------------------------------------------
@dataclass
class Probe:
    category: str
    setup: list          # legal lines first
    line: str            # the illegal request

    def source(self, prog: Program) -> str:
        return prog.source() + "\n".join(self.setup + [self.line]) + "\n"


def illegal_probes(prog: Program, rng: random.Random, avoid=frozenset(KNOWN_BUGS)) -> list:
    """Every kind of illegal request this Program offers (the caller samples)."""
    out = []
    funcs = [f for f in prog.funcs]
    for f in funcs:
        f.stages[0]
        if f.dims >= 1:
            out.append(Probe("bad_factor", [], f"{f.var}.split(x, ph.Var('pa'), ph.Var('pb'), "
                                               f"{rng.choice([0, -2])})"))
            out.append(Probe("unknown_loop", [], f"{f.var}.split(ph.Var('nope'), ph.Var('pa'), "
                                                 f"ph.Var('pb'), 4)"))
            out.append(Probe("self_compute_at", [], f"{f.var}.compute_at({f.var}, x)"))
            if f.is_output:     # (an intermediate's region may well be constant)
                out.append(Probe("vectorize_nonconst", [], f"{f.var}.vectorize(x)"))
        if f.dims == 2:
            out.append(Probe("name_reuse", [], f"{f.var}.split(x, y, ph.Var('pb'), 4)"))
        if f.has_updates:
            out.append(Probe("inline_update", [], f"{f.var}.compute_inline()"))
        for st in f.stages[1:]:
            rv = [l for l in st.loops if l.is_rvar]
            pv = [l for l in st.loops if not l.is_rvar]
            for l in rv:
                if not l.parallel_ok:
                    out.append(Probe("parallel_race", [], f"{st.ref}.parallel({l.expr})"))
                    w = rng.choice(["", ", 4"])
                    out.append(Probe("vectorize_race", [], f"{st.ref}.vectorize({l.expr}{w})"))
                t = rng.choice(["RoundUp", "ShiftInwards"])
                out.append(Probe("tail_rvar", [], f"{st.ref}.split({l.expr}, ph.RVar('pa'), "
                                                  f"ph.RVar('pb'), 3, ph.TailStrategy.{t})"))
            if not st.assoc and rv:
                if len(rv) >= 2:
                    out.append(Probe("reorder_rvars", [], f"{st.ref}.reorder({rv[1].expr}, {rv[0].expr})"))
                else:
                    out.append(Probe("reorder_rvars",
                                     [f"{st.ref}.split({rv[0].expr}, ph.RVar('pro'), ph.RVar('pri'), 2)"],
                                     f"{st.ref}.reorder(ph.RVar('pro'), ph.RVar('pri'))"))
            for l in pv:
                out.append(Probe("shift_update", [], f"{st.ref}.split({l.expr}, ph.Var('pa'), "
                                                     f"ph.Var('pb'), 3, ph.TailStrategy.ShiftInwards)"))
                # Halide refuses RoundUp on a loop descending from an inner loop in
                # an update (pyhalide refuses RoundUp in updates altogether)
                out.append(Probe("roundup_inner_update",
                                 [f"{st.ref}.split({l.expr}, ph.Var('po'), ph.Var('pi'), 4)"],
                                 f"{st.ref}.split(ph.Var('pi'), ph.Var('pio'), ph.Var('pii'), "
                                 f"3, ph.TailStrategy.RoundUp)"))
            if rv and pv:
                # dims are [rvars..., pure...]: the last RVar sits directly inside the first pure Var
                out.append(Probe("fuse_mixed", [], f"{st.ref}.fuse({rv[-1].expr}, {pv[0].expr}, "
                                                   f"ph.Var('pf'))"))
        if not f.is_output and f.dims >= 1:
            consumers = [prog.func(c) for c in f.consumers]
            if consumers and consumers[0].dims >= 1:
                c = consumers[0]
                out.append(Probe("missing_loop", [f"{f.var}.compute_root()"] if f.has_updates else [],
                                 f"{f.var}.compute_at({c.var}, ph.Var('nope'))"))
            if len(consumers) == 1 and len(consumers[0].stages[-1].loops) >= 2 and \
                    set(f.consumers[consumers[0].var]) == {len(consumers[0].stages) - 1}:
                c = consumers[0]
                loops = c.stages[-1].loops          # innermost first
                setup = [] if c.is_output else [f"{c.var}.compute_root()"]
                setup += [f"{f.var}.compute_at({c.var}, {loops[-1].expr})"]
                out.append(Probe("store_inside_compute", setup,
                                 f"{f.var}.store_at({c.var}, {loops[0].expr})"))
                if loops[-1].parallel_ok:
                    setup = ([] if c.is_output else [f"{c.var}.compute_root()"]) + [
                        f"{c.stages[-1].ref}.parallel({loops[-1].expr})",
                        f"{f.var}.compute_at({c.var}, {loops[0].expr})"]
                    out.append(Probe("store_outside_parallel", setup, f"{f.var}.store_root()"))
            if len(consumers) >= 2 and all(c.dims >= 1 for c in consumers):
                c = consumers[0]
                setup = [f"{o.var}.compute_root()" for o in consumers if not o.is_output]
                out.append(Probe("use_outside_level", setup,
                                 f"{f.var}.compute_at({c.var}, {c.stages[-1].loops[0].expr})"))
    return out


def run_probe(prog: Program, probe: Probe, report: Report):
    regex = ILLEGAL[probe.category]
    ns = {}
    exec(prog.source(), ns)
    for line in probe.setup:
        exec(line, ns)
    where = "call"
    try:
        exec(probe.line, ns)
        where = "realize"
        ph.Pipeline(ns["OUTPUTS"]).realize(_sizes_all(prog, 2))
    except ph.CompileError as e:
        if not re.search(regex, str(e)):
            report.failures.append(Failure(
                "illegal-wrong-error", f"{probe.category}: expected a CompileError matching "
                f"{regex!r} at the {where}, got: {e}", probe.source(prog)))
            return
        if where == "realize":
            if probe.category not in AT_REALIZE_OK:
                report.failures.append(Failure(
                    "illegal-late", f"{probe.category}: refused at realize(), not at the call: {e}",
                    probe.source(prog)))
                return
            report.illegal_at_realize[probe.category] += 1
        report.illegal[probe.category] += 1
        return
    except Exception as e:     # noqa: BLE001 - anything else is a failure
        report.failures.append(Failure(
            "illegal-wrong-exception", f"{probe.category}: expected CompileError, got "
            f"{type(e).__name__}: {e}", probe.source(prog)))
        return
    report.failures.append(Failure("illegal-accepted", f"{probe.category}: no CompileError",
                                   probe.source(prog)))


# -------------------------------------------------------------------------------------
def _sizes_all(prog: Program, s: int) -> list:
    return [s] * len(prog_dims(prog))


def prog_dims(prog: Program) -> list:
    return ["x", "y"][:prog.func(prog.outputs[0]).dims]


def _flat(res) -> list:
    if isinstance(res, (list, tuple)):
        return [np.array(b) for b in res]
    return [np.array(res)]


def _realize(ns, sizes):
    return _flat(ph.Pipeline(ns["OUTPUTS"]).realize(list(sizes)))


def _reference(ns, sizes):
    from pyhalide.graph import collect_graph
    from pyhalide.reference import evaluate
    outs = ns["OUTPUTS"]
    graph = collect_graph([f.function() for f in outs])
    inputs = {n: graph.input_array(n) for n in graph.image_names()}
    params = {n: graph.param_value(n) for n in graph.param_names()}
    return evaluate(graph.env, [f.name() for f in outs], [(0, s) for s in sizes], inputs, params)


def _same(a: list, b: list) -> str:
    """'' if bit-identical, else a description of the first difference."""
    if len(a) != len(b):
        return f"{len(a)} outputs vs {len(b)}"
    for k, (u, v) in enumerate(zip(a, b)):
        if u.dtype != v.dtype or u.shape != v.shape:
            return f"output {k}: {u.dtype}{u.shape} vs {v.dtype}{v.shape}"
        if u.tobytes() != v.tobytes():
            bad = np.argwhere(u != v) if u.ndim else [()]
            if len(bad) == 0:   # NaN payloads / signed zeros
                return f"output {k}: same values, different bits"
            p = tuple(bad[0])
            return (f"output {k}: {len(bad)} of {u.size} values differ; first at "
                    f"(numpy index) {p}: {u[p]!r} vs {v[p]!r}")
    return ""


def _repro(prog: Program, sched_src: str, sizes, note: str) -> str:
    return (prog.source() + "# schedule\n" + sched_src + "\n"
            f"got = ph.Pipeline(OUTPUTS).realize({list(sizes)})\n# {note}\n")


def _size_sets(prog: Program, rng: random.Random) -> list:
    d = len(prog_dims(prog))
    m = MAX_SIZE[prog.dims]
    main = [rng.randint(1, m) for _ in range(d)]
    edge = [rng.choice([0, 1, 1, 2, 3, 5]) if rng.random() < 0.7 else rng.randint(1, m)
            for _ in range(d)]
    return [main, edge] if d else [[]]


def run_program(prog: Program, rng: random.Random, n_schedules: int, report: Report,
                probes_per_schedule: int = 2, expired=lambda: False,
                avoid=frozenset(KNOWN_BUGS), trace=None, max_guards: int = 3, min_each: int = 0):
    report.programs += 1
    report.features.update(prog.features)
    t0 = time.perf_counter()
    sizes_sets = _size_sets(prog, rng)
    base = {}
    ns = {}
    try:
        exec(prog.source(), ns)
        for sizes in sizes_sets:
            serial = _realize(ns, sizes)
            ref = _reference(ns, sizes)
            diff = _same(serial, ref)
            if diff:
                report.failures.append(Failure("serial-vs-reference", diff,
                                               _repro(prog, "", sizes, "vs reference: " + diff)))
            base[tuple(sizes)] = serial
            report.realizations += 1
    except Exception as e:  # noqa: BLE001
        report.failures.append(Failure("serial-error", f"{type(e).__name__}: {e}",
                                       _repro(prog, "", sizes_sets[0], traceback.format_exc(limit=3))))
        return
    report.compile_seconds += time.perf_counter() - t0
    probes = illegal_probes(prog, rng, avoid)
    for _ in range(n_schedules):
        if expired():
            break
        sched = random_schedule(prog, rng, avoid, max_guards, (report.drawn, min_each))
        report.schedules += 1
        report.drawn.update(sched.drawn)
        t1 = time.perf_counter()
        if trace is not None:       # written first, so a crash of the process leaves it
            trace(prog, sched, sizes_sets)
        run_schedule(prog, sched, sizes_sets, base, report)
        dt = time.perf_counter() - t1
        report.compile_seconds += dt
        report.slowest.append((dt, prog.seed, sched.source()))
        report.slowest = sorted(report.slowest, key=lambda t: -t[0])[:3]
        for p in rng.sample(probes, min(probes_per_schedule, len(probes))):
            run_probe(prog, p, report)


def run_schedule(prog, sched: Schedule, sizes_sets, base, report: Report):
    ns = {}
    exec(prog.source(), ns)
    applied = []

    def fail(kind, msg, sizes, lines, note=None):
        report.failures.append(Failure(kind, msg, _repro(prog, "\n".join(lines), sizes,
                                                         note or msg),
                                       prog.source(), list(lines), list(sizes)))

    for line in sched.lines:
        try:
            exec(line.code, ns)
        except ph.CompileError as e:
            if line.refusable and re.search(line.refusable, str(e)):
                report.refused[line.refuse_key] += 1
                continue
            return fail("refused-at-call", f"{line.code}: {e}", sizes_sets[0],
                        applied + [line.code], str(e))
        except Exception as e:  # noqa: BLE001
            return fail("directive-crash", f"{line.code}: {type(e).__name__}: {e}",
                        sizes_sets[0], applied + [line.code])
        if line.bad_if_accepted:
            return fail("illegal-accepted", line.bad_if_accepted, sizes_sets[0],
                        applied + [line.code])
        applied.append(line.code)
    for sizes in sizes_sets:
        try:
            got = _realize(ns, sizes)
        except ph.CompileError as e:
            for key, regex in LIMITATIONS:
                if re.search(regex, str(e)):
                    report.refused[key] += 1
                    return
            return fail("legal-refused", str(e), sizes, applied)
        except Exception as e:  # noqa: BLE001
            return fail(f"error-{type(e).__name__}", str(e), sizes, applied,
                        f"{type(e).__name__}: {e}")
        report.realizations += 1
        diff = _same(got, base[tuple(sizes)])
        if diff:
            return fail("mismatch", diff, sizes, applied, "vs serial: " + diff)
        if sched.parallel:
            outs = []
            for n in (1, 2):
                with override(num_threads=n):
                    outs.append(_realize(ns, sizes))
            diff = _same(outs[0], outs[1])
            if diff:
                return fail("thread-count", diff, sizes, applied, "num_threads=1 vs 2: " + diff)


def _signature(msg: str) -> str:
    """A failure message without numbers and Func-name suffixes."""
    first = msg.strip().splitlines()[0] if msg.strip() else ""
    if "IR verification failed" in msg:
        first = msg.strip().splitlines()[1] if len(msg.strip().splitlines()) > 1 else first
    return re.sub(r"\$\d+|\d+", "#", first)[:120]


def check_case(source: str, lines: list, sizes: list, threads: bool = False):
    """Run one case from scratch: (kind, message) of its failure, or None."""
    ns0, ns = {}, {}
    exec(source, ns0)
    exec(source, ns)
    for code in lines:
        try:
            exec(code, ns)
        except ph.CompileError as e:
            return "refused-at-call", str(e)
    try:
        base = _realize(ns0, sizes)
        got = _realize(ns, sizes)
    except ph.CompileError as e:
        return "legal-refused", str(e)
    except Exception as e:  # noqa: BLE001
        return f"error-{type(e).__name__}", str(e)
    diff = _same(got, base)
    if diff:
        return "mismatch", diff
    if threads:
        outs = []
        for n in (1, 2):
            with override(num_threads=n):
                outs.append(_realize(ns, sizes))
        diff = _same(outs[0], outs[1])
        if diff:
            return "thread-count", diff
    return None


def minimize(source: str, lines: list, sizes: list, kind: str, message: str) -> list:
    """Greedily drop schedule lines while the same failure reproduces."""
    sig = _signature(message)
    threads = kind == "thread-count"

    def same(ls):
        r = check_case(source, ls, sizes, threads)
        return r is not None and r[0] == kind and (kind in ("mismatch", "thread-count")
                                                  or _signature(r[1]) == sig)
    lines = list(lines)
    changed = True
    while changed:
        changed = False
        for i in reversed(range(len(lines))):
            trial = lines[:i] + lines[i + 1:]
            if same(trial):
                lines = trial
                changed = True
    return lines


def run_fuzz(seed: int, programs: int = 12, schedules: int = 4, time_budget: float = math.inf,
             max_funcs: int = 4, log=None, avoid=frozenset(KNOWN_BUGS), trace=None,
             max_guards: int = 3, min_each: int = 3) -> Report:
    """Run `programs` random pipelines x `schedules` random schedules from
    `seed`, stopping early when `time_budget` seconds have passed -- but not
    before every directive and tail strategy was drawn at least once (or twice
    the budget has passed)."""
    report = Report(seed, avoided=sorted(avoid))
    t0 = time.perf_counter()

    def expired() -> bool:
        now = time.perf_counter() - t0
        covered = all(report.drawn[k] >= 1 for k in DIRECTIVES + TAIL_KEYS)
        return now > 2 * time_budget or (now > time_budget and covered)

    for k in range(programs):
        if expired():
            break
        pseed = seed * 100003 + k
        rng = random.Random(pseed)
        prog = random_program(rng, pseed, max_funcs=max_funcs,
                              require=KIND_CYCLE[(seed + k) % len(KIND_CYCLE)],
                              dims=1 if k % 3 == 1 else 2)
        before = len(report.failures)
        run_program(prog, rng, schedules, report, expired=expired, avoid=avoid, trace=trace,
                    max_guards=max_guards, min_each=min_each)
        if log is not None and len(report.failures) > before:
            for f in report.failures[before:]:
                log(f"program seed {pseed}: {f.kind}: {f.message.splitlines()[0][:200]}")
    report.seconds = time.perf_counter() - t0
    return report


def minimized_reports(failures: list) -> list:
    """One minimized reproducer per distinct (kind, signature) of failure."""
    seen, out = set(), []
    for f in failures:
        key = (f.kind, _signature(f.message) if f.kind not in ("mismatch", "thread-count") else "")
        if key in seen:
            continue
        seen.add(key)
        if f.lines is None:
            out.append(str(f))
            continue
        try:
            lines = minimize(f.program, f.lines, f.sizes, f.kind, f.message)
        except Exception:  # noqa: BLE001
            lines = f.lines
        out.append(f"[{f.kind}] {f.message}\n--- minimized schedule ---\n{f.program}"
                   + "\n".join(lines) + f"\ngot = ph.Pipeline(OUTPUTS).realize({f.sizes})\n")
    return out


def main(argv=None):
    """python fuzz_schedules.py [SEED [PROGRAMS [SCHEDULES [minimize]]]]"""
    argv = sys.argv[1:] if argv is None else argv
    seed = int(argv[0]) if argv else random.randrange(1 << 31)
    programs = int(argv[1]) if len(argv) > 1 else 20
    schedules = int(argv[2]) if len(argv) > 2 else 4
    print(f"schedule fuzz seed {seed}", flush=True)
    rep = run_fuzz(seed, programs, schedules, log=lambda s: print(s, flush=True))
    print(rep.summary())
    if len(argv) > 3:
        for text in minimized_reports(rep.failures):
            print(text, "\n")
    else:
        for f in rep.failures:
            print(f, "\n")
    return 1 if rep.failures else 0


if __name__ == "__main__":
    sys.exit(main())
