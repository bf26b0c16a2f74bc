"""Definitions: turning one iteration's pending writes and state updates into
pure and update definitions of Funcs, through the user API (Func, Var, RDom),
with loop placeholders replaced by pure Vars or RVars."""
from __future__ import annotations

from functools import partial

from pyhalide import ir
from pyhalide.checks import checked_value
from pyhalide.expr import Expr
from pyhalide.func import Func
from pyhalide.simplify import equal_after_simplify, simplify
from pyhalide.var import RDom, Var

from . import forwarded_reads, loop_trips, ops
from .lifted import LiftedFunc
from .loop_exits import RELATIVE_ATTR, UNBOUNDED_ATTR
from .ranges import INT32, Aff
from .values import Val, exact_aff


def _is_placeholder(name: str) -> bool:
    return name.startswith("%") or forwarded_reads.is_forwarded(name)


class Emitter:
    """Funcs and their definitions, made through the user API (Func, Var,
    RDom). Placeholders in the values are resolved when a definition is
    made (finalize): loop placeholders become Vars or RVars, state
    placeholders calls of their groups' Funcs.

    Fields:
      funcs        [(Python name, Func, owner Arr or Group)] in creation order
      def_log      [(Func, stage index, Loc, label)] every definition made
      var_log      [(label, Loop, Var or RVar, Func)] the loop variables of each
      input_names  the argument names (a Func never takes one)
      state_subst  state placeholder name -> the call of its group's Func
                   (defs.Definitions.bind_state)
      first_info   "first iteration" placeholder name -> FirstInfo
      tag_peel     tag placeholder name -> {state placeholder: start} of
                   peeled tagged members
      ran_info     [(ran test, final value, start value)] of members whose
                   type a loop changes
    (the last three are written by loops.LoopRunner; resolve_first reads them)
    """

    def __init__(self, cx, input_names):
        self.cx = cx
        self.funcs = []
        self.def_log = []
        self.var_log = []
        self.input_names = input_names
        self.state_subst = {}
        self.first_info = {}
        self.tag_peel = {}
        self.ran_info = []

    # Funcs ----------------------------------------------------------------------------
    def new_func(self, pyname: str, owner=None) -> Func:
        base = "".join(ch if ch.isalnum() or ch == "_" else "_" for ch in pyname) or "f"
        if base in self.input_names:
            base = base + "_"
        f = Func(base)
        self.funcs.append((pyname, f, owner))
        return f

    def new_var(self, name: str) -> Var:
        """A pure Var named `name`, or name_ (name__, ...) while an argument has
        that name: lowering identifies variables by name, so the argument's
        Param would be read as the Var. `_` and `_0`, `_1`, ... (a loop
        variable `for _ in range(k)`) are the Func API's placeholder and
        implicit Vars: those names get the prefix `loop_`."""
        if name == "_" or (name[:1] == "_" and name[1:].isdigit()):
            name = "loop_" + name
        while name in self.input_names:
            name += "_"
        return Var(name)

    def define(self, f, key, values, preds, rdom, loc, pure=False, label=None, loops=()):
        """f[key] = values (over rdom where preds); f may be a
        lifted.LiftedFunc (array code inside loops)."""
        lifted = isinstance(f, LiftedFunc)
        if lifted and rdom is not None:
            f.check_rdom(rdom)
        if lifted and preds:
            f.check(list(preds))
            preds = [f.lift(p) for p in f.gate_ranges(preds)]
        if preds:
            if rdom is None:
                raise AssertionError("predicates need an RDom")
            for p in preds:
                rdom.where(Expr.wrap(p))
        unmentioned = False
        if rdom is not None:
            used = set()
            for n in list(values) + [getattr(k, "node", None) for k in key]:
                if n is not None:
                    used |= set(ir.free_vars(n))
            rnames = {rdom[i].name() for i in range(rdom.dimensions())}
            if not used & rnames:
                # the loop variables are unused (`c += 1`): the API finds an
                # update's RDom through its uses, so it is mentioned for the
                # definition and dropped from the value afterwards (the update
                # still iterates over the RDom, and the value stays `c + 1`
                # for the associativity matcher)
                unmentioned = True
                values = list(values)
                values[0] = ir.Let(f"{rdom.name()}.used", rdom[0].node, values[0])
        vals = tuple(Expr.wrap(v) for v in values)
        f[key] = vals if len(vals) > 1 else vals[0]
        fn = f.function()
        d = fn.pure if pure else fn.updates[-1]
        if unmentioned:
            d.values = (d.values[0].body,) + tuple(d.values[1:])
        if loc is not None:
            d.source = ir.SourceLoc(loc.file, loc.line, loc.col, loc.text.strip())
        if not pure and any(getattr(getattr(loop, "node", None), UNBOUNDED_ATTR, False)
                            for loop, _ in loops):
            d.exit_required = True      # (lowering/loop_exit.py)
        f = f.base if lifted else f
        self.def_log.append((f, 0 if pure else len(fn.updates), loc, label))
        for loop, var in loops:
            self.var_log.append((label, loop, var, f))

    # placeholders ---------------------------------------------------------------------
    def finalize(self, nodes, loop_map: dict, where=""):
        """Replace state placeholders (by calls of their Funcs), then loop
        placeholders (by Vars / RVars)."""
        out = []
        for n in nodes:
            n = self.resolve_first(n)
            for _ in range(8):
                names = [k for k in ir.free_vars(n) if k in self.state_subst]
                if not names:
                    break
                n = ir.substitute(n, {k: self.state_subst[k] for k in names})
            n = ir.substitute(n, loop_map)
            left = [k for k in ir.free_vars(n) if _is_placeholder(k)]
            if any(forwarded_reads.is_forwarded(k) for k in left):
                raise self.cx.error(f"a value read from an array element written earlier in "
                                    f"this loop iteration is used in {where}, where it cannot "
                                    f"be related to the write",
                                    hint="copy the value to a local array first, or split "
                                         "the loop")
            if left:
                raise self.cx.error(f"internal error: unresolved placeholder(s) {left} in {where}")
            out.append(n)
        return out

    def resolve_first(self, n):
        """Remove the "first iteration" placeholders of members whose type
        the loop changes (read as their initial value in the first iteration,
        as the loop's type after): `select(first, f(init), f(s))` is `f(s)`
        where f(init) is f(s) with s at its start (the initial value
        converted), else `first` becomes the test of the first iteration."""
        names = [k for k in ir.free_vars(n) if k in self.first_info]
        for name in names:
            info = self.first_info[name]
            n = _PeelFirst(name, info.starts).mutate(n)
            if name in ir.free_vars(n):
                if info.expr is None:
                    member, init_ty, loop_ty = info.members[0]
                    raise self.cx.err(info.node, f"the first iteration of this loop computes "
                                                 f"with the initial value of {member!r} "
                                                 f"({init_ty}) differently from the later ones "
                                                 f"({loop_ty}), in a loop nest whose first "
                                                 f"iteration cannot be told",
                                      hint=f"start {member} with a value of type {loop_ty}")
                n = ir.substitute(n, {name: info.expr})
        for name in [k for k in ir.free_vars(n) if k in self.tag_peel]:
            n = _PeelFirst(name, self.tag_peel[name], tag=True).mutate(n)
        if self.ran_info:
            n = _PeelRan(self.ran_info).mutate(n)
        return n

    def loop_vars(self, pure_loops, rvar_loops, rdom_name, inner=()):
        """(placeholder mapping, RDom or None, predicates, [(loop, var)]);
        `inner` are (min, extent) nodes of more RDom dimensions, innermost
        (the RDom's first ones)."""
        mapping = {}
        pairs = []
        for l in pure_loops:
            mapping[l.sym] = l.pure_var.node
            pairs.append((l, l.pure_var))
        if not rvar_loops and not inner:
            return mapping, None, [], pairs
        bounds = [(Expr.wrap(lo), Expr.wrap(ext)) for lo, ext in inner]
        later = []
        for l in reversed(rvar_loops):      # RDom dims innermost first
            lo, ext, shift, pred = self.rdom_bounds(l, rvar_loops)
            bounds.append((Expr.wrap(lo), Expr.wrap(ext)))
            later.append((l, shift, pred))
        rdom = RDom(bounds, rdom_name)
        preds = []
        for k, (l, shift, pred) in enumerate(later):
            rv = rdom[len(inner) + k]
            node = shift(rv.node)
            mapping[l.sym] = node
            pairs.append((l, rv))
            if pred is not None:
                preds.append(pred(rv.node) if callable(pred) else pred)
        # a loop variable may be defined through enclosing loops' variables
        # (a loop relative to its start): substitute until none is left
        for _ in range(len(rvar_loops)):
            if not any(_is_placeholder(k) for n in mapping.values() for k in ir.free_vars(n)):
                break
            mapping = {k: ir.substitute(n, mapping) for k, n in mapping.items()}
        preds = [ir.substitute(p, mapping) for p in preds]
        return mapping, rdom, preds, pairs

    def rdom_bounds(self, l, rvar_loops):
        """(min, extent, var-from-rvar, predicate over placeholders or None)."""
        start = ops.node_of(self.cx, l.start)
        stop = ops.node_of(self.cx, l.stop)
        start, stop = ops.cast(ir.INDEX, start), ops.cast(ir.INDEX, stop)
        dependent = any(_is_placeholder(k) for k in ir.free_vars([start, stop]))
        step = l.step
        if dependent:
            relative = self.relative_rdom(l, start, stop)
            if relative is not None:
                return relative
            if step != 1 and step != -1:
                raise self.cx.err(l.node.iter, "a loop whose bounds depend on another loop "
                                               "variable must have step 1 or -1")
            lo_n, lo_a = self.hull_node(l.start if step > 0 else l.stop, upper=False,
                                        shift=0 if step > 0 else 1)
            hi_n, hi_a = self.hull_node(l.stop if step > 0 else l.start, upper=True,
                                        shift=-1 if step > 0 else 0)
            if lo_n is None or hi_n is None:
                raise self.cx.err(l.node.iter, "cannot bound this loop's range: its bounds depend "
                                               "on other loop variables in a non-affine way",
                                  hint="use bounds affine in the outer loop variables "
                                       "(e.g. range(i, n) or range(i + 1))")
            narrow = self._hull_in_int32(lo_a, hi_a)
            ext = ir.Max(ir.Add(ir.Sub(hi_n, lo_n), ir.index(1)), ir.index(0)) if narrow else \
                _wide_extent(lo_n, hi_n)
            for lo, hi in [(lo, hi) for lo in lo_a for hi in hi_a]:
                self.check_span(l, lo, hi)
            v = l.var
            if step > 0:
                pred = ir.And(ir.LE(start, v), ir.LT(v, stop))
            else:
                # (v <= max(start, stop), not v <= start: the same iterations,
                # but trim_no_ops' r >= top - max(start, stop) stays within
                # int32, as max(start, stop) >= the hull's bottom - 1, where
                # top - start wrapped for a start 2**31 below the top:
                # `range(min(lo + 3, hi), i + 1, -1)` at lo = 0, hi = -2**31 + 1
                # ran iterations)
                pred = ir.And(ir.LT(stop, v), ir.LE(v, ir.Max(start, stop)))
            if step > 0:
                return lo_n, ext, (lambda r: r), pred
            # a descending loop: r runs up, the variable down
            if narrow:
                return lo_n, ext, (lambda r, lo=lo_n, hi=hi_n: ir.Sub(ir.Add(lo, hi), r)), pred
            # (from the hull's top: lo + hi may leave int32)
            return ir.index(0), ext, (lambda r, hi=hi_n: ir.Sub(hi, r)), pred
        if step == 1:
            if l.start.is_const and l.start.const == 0:
                ext = stop if (l.stop.lo is not None and l.stop.lo >= 0) else \
                    ir.Max(stop, ir.index(0))
            elif self.cx.syms.prove_le(l.start.ubs, l.stop.lbs):
                ext = ir.Sub(stop, start)
            else:
                ext = loop_trips.extent(start, stop, l.start, l.stop, 1)
            return start, ext, (lambda r: r), None
        trip = loop_trips.extent(start, stop, l.start, l.stop, step)
        return (ir.index(0), trip, (lambda r, st=start, k=step: ir.Add(st, ir.Mul(r, ir.index(k)))),
                None)

    def hull_node(self, v: Val, upper: bool, shift: int, depth: int = 0):
        """(IR node, [Aff]) bounding v over every iteration of the enclosing
        loops, free of loop placeholders ((None, None) if not found). Where
        v's own bounds are only its type's range and v is a max (upper) or
        min (lower) of two integers (context.minmax_parts), the max/min of
        the operands' hulls, with each operand's Aff (`range(i + lo, max(i +
        lo, hi - i))`: hull lo + N - 1 and hi, which do not compare)."""
        n, aff = self._hull_aff(v, upper, shift)
        if aff is not None and abs(aff.c) < 2**30:
            return n, [aff]
        # (a call-time bound whose first bound is its type's range: its own parameter)
        own = self._static_bound(v, upper, shift) if aff is not None else None
        if own is not None:
            node = self.aff_node(own[0], ir.INDEX)
            if node is not None:
                return node, own
        found = self._minmax_hull(v.node, upper, shift, depth)
        if found is None:
            found = self._loop_hull(v, upper, shift, depth)
        if found is not None:
            return found
        return (n, None if aff is None else [aff])

    def _loop_hull(self, v: Val, upper: bool, shift: int, depth: int):
        """hull_node's case of an affine bound of v in loop variables whose
        own bounds are not affine (`hi - i` under `for i in range(min(0, lo),
        1)`: i's lower bound is a min): each loop variable replaced by the
        hull of its loop's start or stop (context.loop_bounds, hull_node of
        that bound), the max (upper) or min (lower) of every combination.
        None if a loop's bound has no hull or there are too many."""
        bounds = v.ubs if upper else v.lbs
        if not bounds or depth > 3:
            return None
        aff = bounds[0]
        syms = [s for s in aff.terms if s in self.cx.syms.loops]
        if not syms or any(s not in self.cx.loop_bounds for s in syms):
            return None
        combos = [Aff({t: c for t, c in aff.terms.items() if t not in syms}, aff.c)]
        for s in syms:
            k = aff.terms[s]
            start, stop, step = self.cx.loop_bounds[s]
            up = upper == (k > 0)       # the variable's upper (lower) hull is needed
            if up:
                bound, at = (stop, -1) if step > 0 else (start, 0)
            else:
                bound, at = (start, 0) if step > 0 else (stop, 1)
            affs = self._static_bound(bound, up, at)
            if affs is None:
                n, affs = self.hull_node(bound, upper=up, shift=at, depth=depth + 1)
                if n is None or not affs:
                    return None
            combos = [c + a.scale(k) for c in combos for a in affs]
            if len(combos) > 8:
                return None
        nodes = []
        for c in combos:
            c = c.shift(shift)
            if abs(c.c) >= 2**30 or any(t not in self.cx.sym_static for t in c.terms):
                return None
            # (no int32 form: the int64 end saturated into int32, as _hull_aff
            # does, where a truncating cast would wrap an end past int32)
            n = self.aff_node(c, ir.INDEX)
            if n is None:
                wide = self.aff_node(c)
                if wide is None:
                    return None
                n = _saturated_index(wide)
            nodes.append(n)
        node = nodes[0]
        for n in nodes[1:]:
            node = (ir.Max if upper else ir.Min)(node, n)
        return node, [c.shift(shift) for c in combos]

    def _minmax_hull(self, node, upper: bool, shift: int, depth: int = 0):
        """hull_node's max/min case: node (through its overflow guards and a
        constant offset, `min(lo - 1, i - 1) - 1` of a `while j >= lo` loop)
        is a max (upper) or min (lower) recorded with its operands; the
        max/min of their hulls with each one's Aff, or None."""
        node = _unguard(node)
        if isinstance(node, (ir.Add, ir.Sub)) and isinstance(node.b, ir.Const) and \
                node.type.is_int() and abs(node.b.value) < 2**30:
            shift += node.b.value if isinstance(node, ir.Add) else -node.b.value
            node = _unguard(node.a)
        if isinstance(node, ir.Add):
            return self._sum_hull(node, upper, shift, depth)
        if not isinstance(node, ir.Max if upper else ir.Min):
            return None
        # the operands recorded for this node (or one of the same form: remade)
        for rec, a, b in self.cx.minmax_parts.values():
            if rec is not node and not ir.equal(rec, node):
                continue
            found = [self.hull_node(p, upper, shift, depth) for p in (a, b)]
            if all(f[0] is not None for f in found):
                return (ir.Max if upper else ir.Min)(found[0][0], found[1][0]), \
                    found[0][1] + found[1][1]
        return None

    def _static_bound(self, v: Val, upper: bool, shift: int):
        """[Aff]: v's first own upper (lower) bound over argument symbols
        with a constant of int32 size, shifted (a loop bound known at call
        time is bounded by its own parameter, loop_params.index_param), or
        None."""
        for a in v.ubs if upper else v.lbs:
            if a.terms and abs(a.c) < 2**30 and all(t in self.cx.sym_static and
                                                    t not in self.cx.syms.loops for t in a.terms):
                return [a.shift(shift)]
        return None

    def _sum_hull(self, node, upper: bool, shift: int, depth: int = 0):
        """The hull of a sum of two Python ints recorded with its operands
        (context.sum_parts: a merged loop's `max(0, n - i - 1) + max(0, m)`):
        the sum of theirs, its Affs the sums of theirs (the loop bound's own
        check, loops.hull_checked_bound, keeps those within 32 bits, so the
        int32 sum of the operands' hulls is exact). None if not found."""
        for rec, a, b in self.cx.sum_parts.values():
            if rec is not node and not ir.equal(rec, node):
                continue
            (na, aa), (nb, ab) = self.hull_node(a, upper, shift, depth), \
                self.hull_node(b, upper, 0, depth)
            if na is not None and nb is not None and aa and ab:
                return ir.Add(na, nb), [x + y for x in aa for y in ab]
        return None

    def _hull_aff(self, v: Val, upper: bool, shift: int):
        """(IR node, Aff) of v's first affine bound that expands to a node
        over static symbols ((None, None) if none)."""
        cands = self.cx.syms.expand(v.ubs[0], True) if upper and v.ubs else \
            (self.cx.syms.expand(v.lbs[0], False) if not upper and v.lbs else [])
        for aff in cands:
            n = self.aff_node(aff.shift(shift), ir.INDEX) or self.aff_node(aff)
            if n is not None:
                if n.type != ir.INDEX:
                    # saturated into int32 (rdom_bounds: a wrapped end made a
                    # wrapped extent; the loop's own bounds are checked to fit)
                    n = _saturated_index(ir.Add(n, ir.Const(n.type, shift)) if shift else n)
                return n, aff.shift(shift)
        return None, None

    def relative_rdom(self, l, start, stop):
        """A loop whose bounds depend on enclosing loops but whose trip count
        has a bound E free of them: r over [0, ceil(E / |step|)), the
        variable start + r*step, and the predicate that it is before stop
        (left out where E is the exact trip count). None if no such E."""
        k = l.step
        first, last = (l.start, l.stop) if k > 0 else (l.stop, l.start)
        spans = [ub - lb for lb in first.lbs for ub in last.ubs]
        if k not in (1, -1) or getattr(l.node, RELATIVE_ATTR, False):
            # (a step of another size has no hull form, and a shifting `while`
            # loop runs from its start, left when done: bound the span over
            # the enclosing loops' ranges)
            spans += [e for a in spans for e in self.cx.syms.expand(a, True)]
        # (not a span from a type's range, |c| >= 2**30: `range(min(i, m), n)`
        # with m a Python int is bounded by n + 2**63; the hull of the
        # operands' bounds, hull_node, is the one that fits)
        spans = [a for a in spans if not any(s in self.cx.syms.loops or s not in self.cx.sym_static
                                             for s in a.terms) and abs(a.c) < 2**30]
        # the tightest kind first: provably short, then symbolic, then constant
        spans.sort(key=lambda a: (not self.cx.syms.nonneg(Aff.const(INT32[1]) - a), a.is_const()))
        for span in spans:
            span_n = self.aff_node(span)
            if span_n is None or self.cx.syms.nonneg(span.shift(-INT32[1] - 1)):
                continue        # (a span too long for every argument: a bound from a type's range)
            self.cx.require(self.cx.smap.loc(l.node).line, [span], None, INT32[1])
            s = abs(k)
            t = ir.Int(64)
            trip = span_n if s == 1 else \
                ir.Div(ir.Add(span_n, ir.Const(t, s - 1)), ir.Const(t, s))
            ext = ops.cast(ir.INDEX, ir.Max(trip, ir.Const(t, 0)))
            a, b = exact_aff(first), exact_aff(last)
            exact = s == 1 and a is not None and b is not None and span == b - a
            pred = None if exact else partial(_before_stop, self.cx, l, stop,
                                              self._may_wrap(l, span))
            return (ir.index(0), ext,
                    (lambda r, st=start, k=k: ir.Add(st, ir.Mul(r, ir.index(k)))
                     if k != 1 else ir.Add(st, r)), pred)
        return None

    def _hull_in_int32(self, lo_a, hi_a) -> bool:
        """Whether the numeric ranges prove every end of a hull (rdom_bounds)
        within int32 (the ends of loops over array sizes). Otherwise the
        ends are saturated int32 nodes (_hull_aff) and the extent is taken
        in int64 (a hull [2**31, -2**31 + 3] of `range(min(hi + i, i), lo,
        -1)` at lo = 2**31 - 1 wrapped to 4 iterations)."""
        syms = self.cx.syms
        ends = lo_a + hi_a
        return bool(ends) and all(syms.nonneg(a - Aff.const(INT32[0])) and
                                  syms.nonneg(Aff.const(INT32[1]) - a) for a in ends)

    def _may_wrap(self, l, span) -> bool:
        """Whether relative_rdom's predicate needs the int64 trip test: the
        variable start + r * step (r * |step| below span + |step|) can leave
        int32 for some argument, or an empty range's start can be 2**31 or
        more past its stop (trim_no_ops takes `start + r < stop` as `r <
        stop - start`, an int32 difference that wraps there: `range(max(i,
        len(z)), min(i + len(x), i - len(z)))` with len(z) = 2**30 + 5 ran
        len(x) iterations). No test where both are proven; none either where
        the start never passes the stop and the variable's far end is over
        array sizes only (the insertion sorts: the test costs the loop its
        state in registers): a call-time requirement keeps that end within
        int32 (OverflowError for arrays of 2**30 elements and more there)."""
        k, syms = l.step, self.cx.syms
        far = span.shift(abs(k))
        if k > 0:
            ends = [Aff.const(l.start.hi)] if l.start.hi is not None else []
            ends += [c for u in l.start.ubs for c in syms.expand(u, True)]
            cands = [e + far for e in ends]
        else:
            ends = [Aff.const(l.start.lo)] if l.start.lo is not None else []
            ends += [c for b in l.start.lbs for c in syms.expand(b, False)]
            cands = [Aff.const(0) - e + far for e in ends]
        # (cands: the variable's distance from 0 at the far end, up or down)
        limit = INT32[1] if k > 0 else -INT32[0]
        inside = any(syms.nonneg(Aff.const(limit) - c) for c in cands)
        gaps = self._empty_gaps(l)
        if any(syms.nonneg(Aff.const(INT32[1]) - g) for g in gaps):
            if inside:
                return False
            # (not an end from the start's type range: its constant is 2**31)
            shaped = [c for c in cands if c.terms and set(c.terms) <= self.cx.shape_syms
                      and abs(c.c) < 2**30]
            if shaped and any(syms.nonneg(Aff.const(0) - g) for g in gaps):
                self.cx.require(self.cx.smap.loc(l.node).line, shaped, None, limit)
                return False
        return True

    def _empty_gaps(self, l) -> list:
        """Upper bounds (Affs over argument symbols) of how far a loop's
        start can be past its stop, against the step: start - stop for a
        step > 0, stop - start for a step < 0."""
        syms = self.cx.syms
        first, second = (l.start, l.stop) if l.step > 0 else (l.stop, l.start)
        gaps = [Aff.const(first.hi - second.lo)] \
            if first.hi is not None and second.lo is not None else []
        return gaps + [c for u in first.ubs for b in second.lbs for c in syms.expand(u - b, True)]

    def range_guarded(self, tri, preds) -> list:
        """An update's predicates: the loop-range predicates `tri` of its
        RDom (which covers a hull of the loops' ranges), then each other
        predicate evaluated lazily where they hold. A condition that reads
        memory is read only at the iterations Python runs: outside them its
        reads may leave the arrays (a window `range(max(j - r, 0), min(j + r,
        n))` runs over a hull wider than every one of its ranges)."""
        if not tri:
            return list(preds)
        inside = ir.conjunction(tri)
        false = ir.Const(ir.Bool(), False)
        return list(tri) + [
            ir.lazy_select(inside, p, false)
            if any(c.call_type != ir.INTRINSIC for c in ir.find_calls(p)) else p
            for p in preds]

    def check_span(self, l, lo, hi):
        """At call time, the hull [lo, hi] of a loop's range has fewer than
        2^31 values (else OverflowError, never a wrapped extent). A hull
        that has 2^31 values or more for every argument (a bound found only
        from the type's range) is a compile-time error."""
        if self.cx.syms.nonneg((hi - lo).shift(-INT32[1])):
            raise self.cx.err(l.node.iter, "cannot bound this loop's range: its bounds depend "
                                           "on the enclosing loops in a form the compiler "
                                           "cannot bound",
                              hint="write the bound with min/max "
                                   "(e.g. range(max(j - r, 0), j + 1))")
        self.cx.require(self.cx.smap.loc(l.node).line, [hi - lo], None, INT32[1] - 1)

    def aff_node(self, aff, t=ir.Int(64)):
        """An affine form over static symbols as an IR node of type t
        (Int(64); for INDEX, None unless every symbol is at most 32 bits
        and the constants fit: bounds inference bounds such a node, where
        an int64 node narrowed to int32 is unbounded; the lowering checks at
        run time that its int32 arithmetic does not wrap)."""
        if t == ir.INDEX and not all(
                abs(x) < 2**30 for x in [aff.c] + list(aff.terms.values())):
            return None
        node = ir.Const(t, aff.c)
        for s, k in sorted(aff.terms.items()):
            sn = self.cx.sym_nodes.get(s)
            if sn is None or (t == ir.INDEX and (sn.type.bits > 32 or (
                    sn.type.is_uint() and sn.type.bits == 32))):
                return None
            term = ops.cast(t, sn)
            node = ir.Add(node, ir.Mul(ir.Const(t, k), term) if k != 1 else term)
        return node


def _saturated_index(wide):
    """An int64 hull end saturated into int32 (INDEX): a hull's upper end
    past 2**31 - 1 is 2**31 - 1, which still bounds every value of the
    (int32) loop variable; a lower end likewise."""
    wide = ir.Min(ir.Max(wide, ir.Const(wide.type, INT32[0])), ir.Const(wide.type, INT32[1]))
    return ops.cast(ir.INDEX, wide)


def _unguard(node):
    """node without the run-time guard around it (an overflow check; the
    hull is needed only where it passes)."""
    while True:
        inner = checked_value(node)
        if inner is None:
            return node
        node = inner


class FirstInfo:
    """A loop chain's "first iteration" placeholder: the state placeholders
    of the members whose type it changes, each with the start value its
    element holds before the loop; the first-iteration test (None if
    unknown); for messages, the loop and the members (name, initial type,
    loop type)."""

    def __init__(self, starts, expr, node, members):
        self.starts, self.expr, self.node, self.members = starts, expr, node, members


class _SelectPeeler(ir.Mutator):
    """Rewrites selects and lazy if_then_else calls through `_peel(e,
    condition, value if true, value if false, rebuild)`."""

    def visit_Select(self, e):
        return self._peel(e, e.condition, e.true_value, e.false_value,
                          lambda c, x, y: ir.Select(c, x, y))

    def visit_Call(self, e):
        if e.call_type == ir.INTRINSIC and e.name == "if_then_else":
            return self._peel(e, e.args[0], e.args[1], e.args[2],
                              lambda c, x, y: ir.Call(e.type, e.name, (c, x, y), e.call_type))
        return self.mutate_children(e)


class _PeelRan(_SelectPeeler):
    """select(ran, f(final), f(init)) -> f(final) where f(init) is f(final)
    with the final value replaced by its start value."""

    def __init__(self, infos):
        super().__init__()
        self.infos = infos

    def _peel(self, e, cond, if_ran, otherwise, rebuild):
        x, y = self.mutate(if_ran), self.mutate(otherwise)
        for ran, final, start in self.infos:
            if ir.equal(cond, ran) and _same(y, _replace(x, final, start)):
                return x
        if x is if_ran and y is otherwise:
            return e
        return rebuild(self.mutate(cond), x, y)


def _same(a, b) -> bool:
    """Whether two expressions are equal: structurally, or after (exact,
    IEEE-preserving) simplification."""
    return ir.equal(a, b) or equal_after_simplify(a, b)


def _known(e, var, value: bool):
    """e where the bool placeholder `var` is known to be `value` (the
    selects it decides folded away; e itself if it does not occur)."""
    if var.name not in ir.free_vars(e):
        return e
    return simplify(ir.substitute(e, {var.name: ir.Const(ir.Bool(), value)}))


def _replace(e, old, new):
    """e with every subexpression equal to old replaced by new."""
    class R(ir.Mutator):
        def mutate(self, n):
            if isinstance(n, ir.Expr) and ir.equal(n, old):
                return new
            return super().mutate(n)
    return R().mutate(e)


class _PeelFirst(_SelectPeeler):
    """select(first, f(init), f(s)) -> f(s) where f(init) is f(s) with s at
    its start; with tag=True, select(tag, f(s), f(init)) -> f(s) likewise
    (a peeled member holds its start until its tag is set)."""

    def __init__(self, first, starts, tag=False):
        super().__init__()
        self.first, self.starts, self.tag = first, starts, tag

    def _peel(self, e, cond, if_true, if_false, rebuild):
        if isinstance(cond, ir.Variable) and cond.name == self.first:
            x, y = self.mutate(if_true), self.mutate(if_false)
            # each branch knows the placeholder's value (a union nests a lazy
            # if_then_else(!first, f(s), 0) in the later-iteration branch)
            x, y = _known(x, cond, True), _known(y, cond, False)
            init_path, state_path = (y, x) if self.tag else (x, y)
            if _same(init_path, ir.substitute(state_path, self.starts)):
                return state_path
            return rebuild(cond, x, y)
        return self.mutate_children(e)


def _before_stop(cx, l, stop, may_wrap, r):
    """The predicate of a loop run relative to its start (relative_rdom) at
    RDom variable r: the loop variable is before the stop (`v < stop`, the
    form the bounds of reads are taken from), and so is iteration r in
    int64, r * |step| < |stop - start|. The variable, start + r * step in
    int32, wraps past the last iteration where the start is within the
    RDom's extent of an int32 end, and the wrapped value is again before
    the stop (`range(min(lo, hi - i), lo - 3, -1)` with lo = hi = -2**31 + 3
    ran iterations at 2**31 - 1); the int64 test, added where that can
    happen (`may_wrap`), is false there."""
    before = ir.LT(l.var, stop) if l.step > 0 else ir.GT(l.var, stop)
    if not may_wrap:
        return before
    t = ir.Int(64)
    start64, stop64 = (ops.cast(t, ops.node_of(cx, v)) for v in (l.start, l.stop))
    k = l.step
    gap = ir.Sub(stop64, start64) if k > 0 else ir.Sub(start64, stop64)
    moved = ops.cast(t, r) if abs(k) == 1 else ir.Mul(ops.cast(t, r), ir.Const(t, abs(k)))
    return ir.And(before, ir.LT(moved, gap))


def _wide_extent(lo_n, hi_n):
    """max(hi - lo + 1, 0) of two int32 hull ends, taken in int64 (it is
    below 2**31: check_span bounds the span where the hull is not empty)."""
    wide = ir.Int(64)
    span = ir.Sub(ops.cast(wide, hi_n), ops.cast(wide, lo_n))
    return ops.cast(ir.INDEX, ir.Max(ir.Add(span, ir.Const(wide, 1)), ir.Const(wide, 0)))
