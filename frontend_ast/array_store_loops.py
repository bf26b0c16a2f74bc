"""Assignments into slices, masks and index arrays inside loops
(`out[row, :] = ...` in `for row in range(n)`): one update of the array's
Func per assignment, over an RDom of the stored region (innermost) and of
every enclosing loop (outer, in Python's order), so the stores happen in
the order Python makes them. As for element writes in loops, an array
written here must not be written elsewhere in the same loop nest, and reads
of it in the nest that the update could not order are refused
(deps.check_reads).

Several such assignments into one array in the same loops (wave's
`force[i - 1] -= f; force[i] += f`, regions of one shape) are one update
in phases: its RDom is (region point, phase, loops), the phase k writing
statement k's element with statement k's value, so each statement's
stores happen after the previous statement's in every iteration, as in
Python (the phase and the point's first axis share one RVar). A phase's value may read what the earlier phases wrote; it must
not read its own region at other points (NumPy evaluates the right side
first)."""
from __future__ import annotations

from types import SimpleNamespace

from pyhalide import ir
from pyhalide.expr import Expr
from pyhalide.expr import cast_node as cast

from . import deps, ops
from .region_disjoint import misses


def reads_elsewhere(func, dest, at, nodes, region=None) -> bool:
    """Whether `nodes` read Func `func` at other elements than `at`, the
    element the destination `dest` writes (any element if dest is not
    injective), directly or through another Func that reads it (a reduction
    of the array: `a[:] = a.sum()`): an update evaluating them would see its
    own earlier writes. With `region` ((the placeholder Variables of the
    stored region, their size nodes)), a direct read proven to miss the
    region in the same iteration (region_disjoint.misses) does not count:
    no point of the update writes what it reads (`a[i, 1:] = a[i, 0]`)."""
    fn = func.function()
    seen: set = set()
    others = []
    for c in ir.find_calls(nodes):
        if c.call_type != ir.FUNC:
            continue
        if c.func is not fn:
            if deps.reads_func(c.func, fn, seen):
                return True
        elif not (dest.injective and all(ir.equal(x, y) for x, y in zip(reversed(c.args), at))):
            others.append(tuple(reversed(c.args)))
    if not others:
        return False
    return region is None or not misses(at, region[0], region[1], others)


def define_in_loop(bld, dest, p, at, vnode, preds, node):
    """arr.func[at] = vnode where preds hold, for each point p of the region
    (placeholders) in each iteration of the active loops."""
    cx, defs, state = bld.cx, bld.defs, bld.state
    arr = dest.arr
    site = (id(arr), cx.stmt_pos, "region")
    # axes_raw None: no element write (arrays.ArrayAccess.before_write)
    record = SimpleNamespace(arr=arr, idx=list(at), chain=list(state.loops),
                             pos_min=cx.stmt_pos, pos_max=cx.stmt_pos, site=site,
                             loc=cx.smap.loc(node), axes_raw=None)
    if cx.typing:
        if state.recording:
            state.nest_writes.append(record)
        return
    sites = _sites(state.nest_writes, arr)
    if len(sites) > 1 and _phased(sites, record, dest):
        pending = bld.__dict__.setdefault("_phase_stores", {}).setdefault(
            (state.nest_id, id(arr)), {})
        pending[site] = (dest, p, at, vnode, preds, node)
        if site != sites[-1].site:
            return                       # emitted with the nest's last store into arr
        del bld._phase_stores[(state.nest_id, id(arr))]
        if set(pending) != {w.site for w in sites}:
            raise cx.err(node, f"the assignments into {arr.name!r} in this loop nest were not "
                               f"all compiled", hint="write the array once per iteration, or "
                                                     "split the loop")
        return _define_phases(bld, arr, [pending[w.site] for w in sites], sites)
    other = next((w for w in state.nest_writes if w.arr is arr and w.site != site), None)
    if other is not None:
        raise cx.err(node, f"{arr.name!r} is written at two places of one loop nest (also at "
                           f"line {other.loc.line}), one of them a slice, mask or index-array "
                           f"assignment", hint="write the array once per iteration, or split "
                                               "the loop")
    defs.ensure_defined(arr)
    # reads of elements written earlier in the iteration (forwarded_reads.py)
    res = defs.resolve_forwards([vnode] + list(preds) + list(at), arr)
    vnode, preds, at = res[0], res[1:1 + len(preds)], res[1 + len(preds):]
    sizes = [cast(ir.INDEX, ops.node_of(cx, dest.shape[j])) for j in range(len(p))]
    if reads_elsewhere(arr.func, dest, at, [vnode] + list(preds), (p, sizes)):
        raise cx.err(node, f"inside a loop, the value assigned into {arr.name!r} reads "
                           f"{arr.name!r} at other elements than the ones it writes",
                     hint=f"compute the value into another array first, or assign "
                          f"element by element ({arr.name}[i] = ...)")
    inner = [(ir.index(0), cast(ir.INDEX, ops.node_of(cx, dest.shape[j])))
             for j in reversed(range(len(p)))]
    mapping, rdom, tri, pairs = bld.emitter.loop_vars(
        [], list(state.loops), "r_" + arr.name, inner=inner)
    for i, j in enumerate(reversed(range(len(p)))):
        mapping[p[j].name] = rdom[i].node
    defs.check_reads([vnode] + list(preds) + list(at), record)
    defs.mark_emitted([vnode] + list(preds) + list(at), arr.func)
    where = f"the assignment into {arr.name}"
    vals = bld.emitter.finalize([vnode], mapping, where)
    key = bld.emitter.finalize(list(at), mapping, where)
    preds = bld.emitter.range_guarded(tri, bld.emitter.finalize(list(preds), mapping, where))
    bld.emitter.define(arr.func, tuple(Expr.wrap(k) for k in reversed(key)), vals, preds,
                       rdom, cx.smap.loc(node), label=arr.name, loops=pairs)


def unflushed(bld):
    """A located error if a phased store (define_in_loop) is still waiting
    for the nest's last store into its array (checked at the nest's end)."""
    pending = getattr(bld, "_phase_stores", None)
    if pending:
        (dest, p, at, vnode, preds, node), = list(next(iter(pending.values())).values())[:1]
        pending.clear()
        raise bld.cx.err(node, f"the assignments into {dest.arr.name!r} in this loop nest were "
                               f"not all compiled", hint="write the array once per iteration, "
                                                         "or split the loop")


def _sites(nest_writes, arr) -> list:
    """The distinct places of the nest that write arr, in program order."""
    out = {}
    for w in nest_writes:
        if w.arr is arr:
            out.setdefault(w.site, w)
    return sorted(out.values(), key=lambda w: w.pos_min)


def _phased(sites, record, dest) -> bool:
    """Whether the stores at these sites can be one update in phases: all
    slice/mask/index-array assignments in the same loops, of regions of
    one number of dimensions."""
    names = [getattr(lp, "name", None) for lp in record.chain]
    return all(isinstance(w.site, tuple) and w.site[-1:] == ("region",) and
               len(w.idx) == len(record.idx) and
               [getattr(lp, "name", None) for lp in w.chain] == names for w in sites)


def _define_phases(bld, arr, stores, sites):
    """One update of arr.func for the stores (dest, p, at, vnode, preds,
    node), phase k = store k, over the box of their regions."""
    cx, defs, state = bld.cx, bld.defs, bld.state
    node = stores[-1][5]
    defs.ensure_defined(arr)
    for dest, p, at, vnode, preds, snode in stores:
        sizes = [cast(ir.INDEX, ops.node_of(cx, dest.shape[j])) for j in range(len(p))]
        if reads_elsewhere(arr.func, dest, at, [vnode] + list(preds), (p, sizes)):
            raise cx.err(snode, f"inside a loop, the value assigned into {arr.name!r} reads "
                                f"{arr.name!r} at other elements than the ones it writes",
                         hint=f"compute the value into another array first, or assign "
                              f"element by element ({arr.name}[i] = ...)")
    npts = max(len(s[1]) for s in stores)
    ext = []
    for j in range(npts):
        sizes = [cast(ir.INDEX, ops.node_of(cx, s[0].shape[j])) for s in stores
                 if j < len(s[1])]
        e = sizes[0]
        for x in sizes[1:]:
            e = e if ir.equal(e, x) else ir.Max(e, x)
        ext.append(e)
    # RDom (innermost first): the points' inner axes, then q = phase * ext[0] +
    # the point's first axis, then the loops. A Func the values read at a
    # point is then inlined by default like one a single store reads (it is
    # evaluated per phase) rather than bounded over the loops at root.
    nph = ir.index(len(stores))
    inner = [(ir.index(0), ext[j]) for j in reversed(range(1, npts))]
    inner.append((ir.index(0), ir.Mul(ext[0], nph) if npts else nph))
    mapping, rdom, tri, pairs = bld.emitter.loop_vars(
        [], list(state.loops), "r_" + arr.name, inner=inner)
    q = rdom[max(npts - 1, 0)].node
    phase = ir.Div(q, ext[0]) if npts else q
    first = ir.Mod(q, ext[0]) if npts else None
    keys, vals, conds = None, None, None
    where = f"the assignments into {arr.name}"
    for k in reversed(range(len(stores))):
        dest, p, at, vnode, preds, snode = stores[k]
        m = dict(mapping)
        inside = []
        for j in range(len(p)):
            r = first if j == 0 else rdom[npts - 1 - j].node
            m[p[j].name] = r
            size = cast(ir.INDEX, ops.node_of(cx, dest.shape[j]))
            if not ir.equal(ext[j], size):
                # a smaller region: its points only, read clamped into it
                inside.append(ir.LT(r, size))
                m[p[j].name] = ir.Max(ir.Min(r, ir.Sub(size, ir.index(1))), ir.index(0))
        _check_reads(bld, [vnode] + list(preds) + list(at), sites)
        defs.mark_emitted([vnode] + list(preds) + list(at), arr.func)
        v = bld.emitter.finalize([vnode], m, where)[0]
        key = bld.emitter.finalize(list(at), m, where)
        c = _all(bld.emitter.finalize(list(preds), m, where) + inside)
        if keys is None:
            keys, vals, conds = key, v, c
            continue
        is_k = ir.EQ(phase, ir.index(k))
        keys = [_select(is_k, a, b) for a, b in zip(key, keys)]
        vals = _select(is_k, v, vals)
        conds = _select(is_k, c, conds)
    # an empty region's element (its start may be one past the array's end) is
    # stored nowhere (its condition fails) but bounds its Func: clamped into the array
    last = [ir.Sub(cast(ir.INDEX, ops.node_of(cx, n)), ir.index(1)) for n in arr.shape]
    keys = [ir.Max(ir.Min(x, hi), ir.index(0)) for x, hi in zip(keys, last)]
    bld.emitter.define(arr.func, tuple(Expr.wrap(x) for x in reversed(keys)), [vals],
                       bld.emitter.range_guarded(tri, [conds]), rdom, cx.smap.loc(node),
                       label=arr.name, loops=pairs)


def _check_reads(bld, nodes, sites):
    """defs.check_reads with the phased sites left out: the update orders
    their writes and the reads in its values as Python does (the reads of
    other arrays and the other writes of the nest are checked as usual)."""
    defs, state = bld.defs, bld.state
    phased = {w.site for w in sites}
    deps.check_reads(SimpleNamespace(typing=bld.cx.typing, nest_id=state.nest_id,
                                     read_sites=defs.read_sites,
                                     nest_writes=[w for w in state.nest_writes
                                                  if w.site not in phased],
                                     smap_error=bld.cx.smap_error), nodes, None)


def _select(c, a, b):
    return a if ir.equal(a, b) else ir.Select(c, a, b)


def _all(conds):
    out = ir.const(ir.Bool(), True) if not conds else conds[0]
    for c in conds[1:]:
        out = ir.And(out, c)
    return out
