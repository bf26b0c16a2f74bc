"""Whether the iterations of an update's RVar loop may run at once: they
write distinct locations and read none that another iteration writes
(`races`); the RVar loops of updates proven so although they read the Func
at other coordinates (a time-stepped state read at slot `t % 2` and
written at `(t + 1) % 2`: `stepped_loops`, which the vectorizer trusts)."""
from __future__ import annotations

from pyhalide import ir


def races(fn, d, dim: ir.Dim) -> str:
    """Why iterations of RVar dimension `dim` of definition d of Function fn
    may not run in parallel ('' if they may): they must write distinct
    locations and read no location another iteration writes. A read of fn
    at other coordinates than the write is apart from it when, in some
    dimension, the two coordinates differ at every point and depend only on
    loops outside `dim` (a time-stepped state's slots: _apart)."""
    sched = d.schedule
    if not dim.is_rvar or sched.atomic:   # (atomic: one read-modify-write each)
        return ""
    rvars = {rv.name for rv in sched.rvars}
    # the loop's iterations write distinct locations when every original
    # variable it runs over (several after a fuse) is an argument on the left
    leaves = originals(sched, dim.var) & (rvars | set(fn.args))
    lhs = {a.name for a in d.args if isinstance(a, ir.Variable)}
    if not leaves <= lhs:
        return (f"iterations of {dim.var} write the same location of {fn.name}; "
                f"use rfactor to parallelize this reduction")
    fixed = _fixed_in(sched, rvars | set(fn.args), dim.var)
    for c in _other_reads(fn, d):
        if not any(_apart(x, y, fixed) for x, y in zip(c.args, d.args)):
            return (f"iterations of {dim.var} read {fn.name} where other iterations write; "
                    f"the loop must stay serial")
    return ""


def stepped_loops(fn, d) -> list:
    """The RVar loops of definition d of fn that read fn at other
    coordinates than they write, proven free of races (races()): their
    lanes may run at once although their loads and stores of fn's storage
    are not ramps the vectorizer can compare (lowering/vectorize.py)."""
    if not _other_reads(fn, d):
        return []
    return [dm.var for dm in d.schedule.dims if dm.is_rvar and not races(fn, d, dm)]


def _other_reads(fn, d) -> list:
    return [c for c in ir.find_calls(list(d.values) + list(d.predicates))
            if c.call_type == ir.FUNC and c.name == fn.name and
            not all(ir.equal(x, y) for x, y in zip(c.args, d.args))]


def originals(sched, var: str) -> set:
    """The original variables a (split/fused) loop variable comes from."""
    out = {var}
    changed = True
    while changed:
        changed = False
        for sp in sched.splits:
            if sp.kind == "split" and (sp.outer in out or sp.inner in out) and sp.old not in out:
                out.add(sp.old)
                changed = True
            if sp.kind == "fuse" and sp.old in out and not {sp.inner, sp.outer} <= out:
                out.update((sp.inner, sp.outer))
                changed = True
    return out


def _fixed_in(sched, loops: set, var: str):
    """A test of a variable: whether it has one value through all
    iterations of loop `var` (every loop made from it is outside `var`, or
    it is none of the stage's loop variables `loops`)."""
    dims = [dm.var for dm in sched.dims]
    at = dims.index(var)
    made = {v: [k for k, dm in enumerate(dims) if v in originals(sched, dm)] for v in loops}

    def fixed(name: str) -> bool:
        return name not in loops or all(k > at for k in made[name])
    return fixed


def _apart(read, write, fixed) -> bool:
    """Whether a read's and a write's coordinate in one dimension differ at
    every point where the variables `fixed` accepts have one value each and
    depend on nothing else: the time-stepped state's slots (read `t % 2`,
    write `(t + 1) % 2`), or two different constants."""
    if not all(fixed(n) for n in list(ir.free_vars(read)) + list(ir.free_vars(write))):
        return False
    if isinstance(read, ir.Const) and isinstance(write, ir.Const):
        return read.value != write.value
    if isinstance(read, ir.Mod) and isinstance(write, ir.Mod) and \
            isinstance(read.b, ir.Const) and ir.equal(read.b, write.b) and read.b.value > 0:
        # (e + c1) % m != (e + c2) % m for every integer e when c1 - c2 is no multiple of m
        (e1, c1), (e2, c2) = _offset(read.a), _offset(write.a)
        return ir.equal(e1, e2) and (c1 - c2) % read.b.value != 0
    return False


def _offset(e):
    """(rest, c) with e = rest + c for an integer constant c (0 if none)."""
    if isinstance(e, ir.Add) and isinstance(e.b, ir.Const) and e.b.type.is_int():
        return e.a, e.b.value
    if isinstance(e, ir.Sub) and isinstance(e.b, ir.Const) and e.b.type.is_int():
        return e.a, -e.b.value
    return e, 0
