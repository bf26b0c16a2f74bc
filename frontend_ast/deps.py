"""Reads, inside one loop nest, of an array that the same nest writes.

Each definition runs as a whole (all its iterations) before the next one, as
in Halide; Python interleaves the statements of an iteration. A read by
another definition therefore sees the array's value after the nest. That is
what Python reads only when every write of the location read happens before
the read: at an earlier iteration of the loops both share, or earlier in the
same iteration. With writes at positions `loop variable + constant` this is
decided exactly; anything else is refused with a hint."""
from __future__ import annotations

from pyhalide import ir
from pyhalide.ir.flat_index import is_flat_index
from pyhalide.simplify import equal_after_simplify, simplify

from . import region_disjoint

BEFORE, AFTER, NEVER, UNKNOWN = "before", "after", "never", "unknown"


def unchecked(n):
    """An index without the range check arrays.ArrayAccess.to_index adds:
    `select(e < size, e, -1)` (its run-time check raises where e is out of
    range) is e wherever Python evaluates it, also inside the clamp
    `max(min(., size - 1), 0)` around it; an index promised to the lowering
    (`flat_index(e, 0, last)`, defs._promised) is e. Only those exact forms
    are taken apart (a clamp or select the user wrote stays as it is)."""
    while isinstance(n, ir.Cast) or is_flat_index(n):
        n = n.args[0] if is_flat_index(n) else n.value
    if isinstance(n, ir.Max) and ir.is_const(n.b, 0) and isinstance(n.a, ir.Min) and \
            _checked(n.a.a) is not None:
        n = n.a.a
    e = _checked(n)
    return n if e is None else e


def _checked(n):
    """e of a checked index `select(e < size, e, -1)`, else None."""
    while isinstance(n, ir.Cast):
        n = n.value
    if isinstance(n, ir.Select) and ir.is_const(n.false_value, -1) and \
            isinstance(n.condition, ir.LT) and ir.equal(n.condition.a, n.true_value):
        return n.true_value
    return None


def _decompose(n):
    """(loop symbol or None, constant offset) of `sym + c`, `c`; or None."""
    n = unchecked(n)
    if isinstance(n, ir.Const):
        return None, int(n.value)
    if isinstance(n, ir.Variable) and n.name.startswith("%"):
        return n.name, 0
    if isinstance(n, (ir.Add, ir.Sub)):
        a, b = n.a, n.b
        while isinstance(a, ir.Cast):
            a = a.value
        while isinstance(b, ir.Cast):
            b = b.value
        if isinstance(a, ir.Variable) and a.name.startswith("%") and isinstance(b, ir.Const):
            return a.name, int(b.value) if isinstance(n, ir.Add) else -int(b.value)
        if isinstance(n, ir.Add) and isinstance(b, ir.Variable) and b.name.startswith("%") and \
                isinstance(a, ir.Const):
            return b.name, int(a.value)
    return False


def classify(read_idx, read_loops, read_pos, w) -> str:
    """When the write `w` (a Cell of the nest) writes the location read,
    relative to the read."""
    read_syms = [l.sym for l in read_loops]
    w_syms = [l.sym for l in w.chain]
    steps = {l.sym: l.step for l in w.chain}
    common = []
    for a, b in zip(read_syms, w_syms):
        if a != b:
            break
        common.append(a)
    delta = {}
    for ew, er in zip(w.idx, read_idx):
        dw = _decompose(ew)
        if dw is False:
            return UNKNOWN
        w_sym, w_off = dw
        dr = _decompose(er)
        if w_sym is None:
            if dr is not False and dr[0] is None and dr[1] != w_off:
                return NEVER
            continue
        if w_sym not in common:
            if dr is not False and dr[0] not in w_syms and \
                    _outside_fixed_range(er, w_off, next((l for l in w.chain if l.sym == w_sym),
                                                         None)):
                return NEVER        # outside the range of a loop only the write is in
            continue
        if dr is False or dr[0] != w_sym:
            return UNKNOWN
        delta[w_sym] = dr[1] - w_off
    for c in common:
        if c not in delta:
            return AFTER            # written at every iteration of c
        d = delta[c] * (1 if steps.get(c, 1) > 0 else -1)
        if d > 0:
            return BEFORE if False else _later(d)
        if d < 0:
            return BEFORE
    return BEFORE if w.pos_max < read_pos else AFTER


def _later(d):
    return AFTER


def check_reads(b, nodes, target, defer=None):
    """A located error where `nodes` (the values of the definition of
    `target`) read an array the nest being emitted writes at a position
    Python reads before it is written. A call rebuilt since its read was
    recorded (simplification, unions) is matched to the recorded read of the
    same element; one that matches none cannot be related to the writes and
    is refused: a read is never left unchecked. `defer(arr, error, read
    position)`, when given, takes each error instead (the checks go on with
    the next array)."""
    if b.typing or b.nest_id is None:
        return
    own = getattr(target, "site", None)
    for c in ir.find_calls(list(nodes)):
        if c.call_type != ir.FUNC:
            continue
        entry = b.read_sites.get(id(c))
        if entry is not None and entry[0] is c:
            entries = [entry[1]]
        else:
            entries = _rebuilt_read(b, c, target)
            if entries is None:
                continue
        for arr, func, loops, pos, idx, nest, loc in entries:
            if nest != b.nest_id or idx is None:
                continue
            for w in b.nest_writes:
                if w.arr is arr and own is not None and w.site == own and \
                        loops is not None and id(c) not in getattr(b, "hoisted_ok", ()) and \
                        own_write_reached(idx, loops, w):
                    raise b.smap_error(
                        loc, f"{arr.name!r} is read here, outside the loop at line "
                             f"{w.chain[len(loops)].loc.line}, at an element that loop writes "
                             f"(line {w.loc.line}); the compiled loop would read it again at each "
                             f"iteration and see the value written there, not the one Python read",
                        hint="read the element inside the inner loop (an inner loop whose one "
                             "statement is this write, reading no element its other iterations "
                             "write, compiles as it is); for LU, write the "
                             "column element first and start the row loop after it (a[i, k] = "
                             "a[i, k] / a[k, k], then for j in range(k + 1, n): a[i, j] -= "
                             "a[i, k] * a[k, j])")
            writes = [w for w in b.nest_writes if w.arr is arr and
                      not (own is not None and w.site == own)]
            own_func = own is not None and getattr(target, "arr", None) is arr and \
                c.func is _func_of(arr)
            for w in writes:
                how = classify(idx, loops, pos, w) if loops is not None else UNKNOWN
                if own_func and w.pos_min > target.pos_max:
                    # an update of the array's Func reading that Func: a later
                    # definition's writes (a later statement's) are never seen,
                    # as Python does not see them where it writes later
                    if how in (AFTER, NEVER):
                        continue
                elif how in (BEFORE, NEVER):
                    continue
                what = "later in this loop nest" if how == AFTER else \
                    "in this loop nest at positions that cannot be related to the read"
                err = b.smap_error(loc, f"{arr.name!r} is read here but written {what} "
                                        f"(line {w.loc.line}); the compiled loops would read the "
                                        f"value after the loop nest, not the one Python reads",
                                   hint=f"copy the array before the loop ({arr.name}_old = "
                                        f"{arr.name}.copy()) and read the copy, or split the loop")
                err.nest = b.nest_id    # (specialize._build runs that nest in phase mode)
                if defer is None:
                    raise err
                defer(arr, err, pos)
                break


def own_write_reached(read_idx, read_loops, w) -> bool:
    """Whether a read made outside some of the loops around the write `w`
    (read_loops a strict prefix of w.chain), whose value w's definition uses,
    may be of an element w writes in the same iteration of read_loops: the
    definition evaluates the read at every iteration of the deeper loops, so
    it would see what earlier ones wrote there, where Python read the element
    once. False only where some axis proves the element is never written
    there."""
    read_syms = [l.sym for l in read_loops]
    if len(read_syms) >= len(w.chain) or [l.sym for l in w.chain[:len(read_syms)]] != read_syms:
        return False
    deeper = {l.sym: l for l in w.chain[len(read_syms):]}
    for ew, er in zip(w.idx, read_idx):
        dw, dr = _decompose(ew), _decompose(er)
        if dw is False:
            continue
        w_sym, w_off = dw
        if w_sym is None or w_sym in read_syms:
            if dr is not False and dr[0] == w_sym and dr[1] != w_off:
                return False        # a different element in every iteration
            continue
        if _outside_range(unchecked(er), w_off, deeper.get(w_sym)):
            return False
    loops = [(l.var, getattr(l.start, "node", None), getattr(l.stop, "node", None), l.step)
             for l in w.chain]
    if any(n is None for l in loops for n in l[1:3]):
        return True
    return not region_disjoint.never_meets([unchecked(e) for e in w.idx],
                                           [unchecked(e) for e in read_idx], loops)


def _outside_range(er, off, loop) -> bool:
    """Whether `er - off` is provably outside the range of `loop` (a loop
    deeper than the read: its start and stop may use the read's loops)."""
    if loop is None or loop.start is None or loop.stop is None:
        return False
    start, stop = getattr(loop.start, "node", None), getattr(loop.stop, "node", None)
    if start is None or stop is None:
        return False
    at = ir.Sub(_index(er), ir.Const(ir.INDEX, off)) if off else _index(er)
    below = simplify(ir.Sub(at, _index(start)))
    above = simplify(ir.Sub(at, _index(stop)))
    if loop.step > 0:
        return _const_lt(below, 0) or _const_ge(above, 0)
    return _const_gt(below, 0) or _const_le(above, 0)


def _outside_fixed_range(er, off, loop) -> bool:
    """_outside_range for a loop whose start and stop are the same at every
    iteration of the loops around it (they read only parameters): then no
    iteration of those loops writes there, whichever iteration reads."""
    if loop is None or loop.start is None or loop.stop is None:
        return False
    ends = [getattr(loop.start, "node", None), getattr(loop.stop, "node", None)]
    if any(e is None or ir.find_calls(e) or
           any(v.kind != "param" for v in ir.free_vars(e).values()) for e in ends):
        return False
    return _outside_range(er, off, loop)


def _index(e):
    return e if e.type == ir.INDEX else ir.Cast(ir.INDEX, e)


def _const_lt(e, c):
    return isinstance(e, ir.Const) and e.value < c


def _const_ge(e, c):
    return isinstance(e, ir.Const) and e.value >= c


def _const_gt(e, c):
    return isinstance(e, ir.Const) and e.value > c


def _const_le(e, c):
    return isinstance(e, ir.Const) and e.value <= c


def check_write_order(nest_writes, smap_error, defer=None, nest=None):
    """A located error where two element writes of one array in a loop nest
    (in different loops of it) are emitted as two definitions whose order
    differs from Python's for some element: the later definition runs after
    every iteration of the earlier one, so where the earlier statement writes
    an element at a later iteration than the later statement does, Python
    keeps the earlier statement's value and the compiled loops would not.
    `defer(arr, error)`, when given, takes each error instead; `nest`: the
    nest's id, kept on the error (specialize._build runs it in phase mode)."""
    # element writes (arrays.Cell); slice, mask and index-array stores are ordered
    # or refused by array_store_loops
    cells = [w for w in nest_writes if hasattr(w, "key")]
    for k, w2 in enumerate(cells):
        for w1 in cells[:k]:
            if w1.arr is not w2.arr or w1.site == w2.site:
                continue
            how = classify(w2.idx, w2.chain, w2.pos_min, w1)
            if how in (BEFORE, NEVER):
                continue
            err = smap_error(w2.loc, f"{w2.arr.name!r} is written here and at line "
                                     f"{w1.loc.line} in one loop nest, at elements where Python's "
                                     f"order of the two writes cannot be kept (the compiled "
                                     f"loops run each write for every iteration in turn)",
                             hint="split the loop nest, or write the array at one place "
                                  "per iteration")
            err.nest = nest
            if defer is None:
                raise err
            defer(w2.arr, err)


def _rebuilt_read(b, c, target):
    """The recorded reads a call without a record stands for: those of the
    same element of the same array in this nest; the own old value of a
    written cell (read where the cell is written); or, for a call of an
    array the nest writes that matches nothing, one read that cannot be
    related to the writes (None: not an array this nest writes)."""
    arrs = [w.arr for w in b.nest_writes if _func_of(w.arr) is c.func]
    if not arrs:
        return None
    arr = arrs[0]
    idx = list(reversed(c.args))
    found = [site for call, site in b.read_sites.values()
             if site[0] is arr and site[5] == b.nest_id and _same_args(call.args, c.args)]
    if found:
        return found
    cell_idx = getattr(target, "idx", None)
    if getattr(target, "arr", None) is arr and cell_idx is not None and \
            _same_args(tuple(reversed(cell_idx)), c.args):
        return [(arr, None, target.chain, target.pos_min, idx, b.nest_id, target.loc)]
    loc = getattr(target, "loc", None)
    return [(arr, None, None, None, idx, b.nest_id, loc)]


def same_args(a, b) -> bool:
    """Whether two argument lists are equal after simplification."""
    return _same_args(a, b)


def decompose(n):
    """(loop symbol or None, constant offset) of `sym + c`, `c`; or False."""
    return _decompose(n)


def _same_args(a, b) -> bool:
    return len(a) == len(b) and all(equal_after_simplify(x, y) for x, y in zip(a, b))


def _func_of(arr):
    func = getattr(arr, "func", None)
    return func.function() if func is not None else None


def reads_through(func, nodes) -> bool:
    """Whether `nodes` call another Func that reads Func `func` (a reduction
    of the array, `a.argmax()`), directly or through further Funcs."""
    fn = func.function()
    seen: set = set()
    return any(c.call_type == ir.FUNC and c.func is not fn and reads_func(c.func, fn, seen)
               for c in ir.find_calls(nodes))


def reads_func(caller: ir.Function, fn: ir.Function, seen: set) -> bool:
    """Whether Func `caller`'s definitions call `fn`, directly or through other
    Funcs (`seen`: the Funcs already found not to)."""
    if id(caller) in seen:
        return False
    seen.add(id(caller))
    for d in caller.definitions():
        for c in ir.find_calls(list(d.args) + list(d.values) + list(d.predicates)):
            if c.call_type == ir.FUNC and (c.func is fn or reads_func(c.func, fn, seen)):
                return True
    return False


class CrossRead:
    """A deferred error of an array's write reading another array the nest
    writes (defs.check_reads): raised after the nest unless both arrays
    were merged into one Func (loop_cycles.cross_reads)."""

    def __init__(self, err):
        self.err = err
