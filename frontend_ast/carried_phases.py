"""Phase mode: a loop that carries arrays and whose body makes array values
the functional recurrence (carried_arrays.py) cannot hold, such as
reductions (`w = a @ v; v = w / np.sqrt(w @ w)`).

The loop is ONE update of a tuple Func STATE(x): one element per member,
x a flat (row-major) index into the member. Members are the arrays the
body writes in place, the names it rebinds that the next iteration or
later code reads, and scratch arrays: every array value or scalar read
from the state that the body binds to a name, and every reduction it
makes. The update's RDom is (point p, phase, iteration): serial, the
iterations outermost, then one phase per array statement of the body in
Python's order, then the points of that statement's region. Phase k
writes STATE(at_k(p)) with the values of the members it writes; reads in
a value read the current STATE, so each statement sees what the previous
statements wrote, as in Python. A statement whose value reads the array
it stores into writes the value into a scratch member first, then copies
it (NumPy evaluates the right side before storing). A reduction is two
phases: its identity over the kept points, then the operator over every
point of the operand in the order of the reduction Func it replaces
(array_reduce.reduction: the last axis innermost), so a product (`@`) or
an integer sum gives the values it gives outside loops. Float sums in
NumPy's pairwise order (sum_order.py) and other operations that make
Funcs of their own are located errors here."""
from __future__ import annotations

import ast

from pyhalide import ir
from pyhalide.expr import Expr
from pyhalide.expr import cast_node as cast
from pyhalide.var import RDom

from . import carried_operands, ops
from . import complex_values as C
from .analyze import names_assigned
from .array_choice import SameSizeAtCall
from .array_complex import ComplexArr
from .array_index import guard
from .arraycode import is_whole_view
from .arrayexpr import ArrayExpr, same_size
from .call_time_reach import add_loop_gated
from .carried_blocks import (
    Block,
    TypeChange,
    first_or_later,
    guarded_value,
    is_block,
    loop_range,
    run_block,
    trip_bound,
    write_carried,
)
from .carried_body import HINT, BodyRun, base_of, freeze, seen_elsewhere
from .carried_checks import run_checked_if
from .carried_rotation import Rotation
from .carried_writes import WHAT, lazy, stored, write_complex
from .tuple_targets import is_temporary
from .types import PY_FLOAT
from .values import Arr, TupleVal, Val, exact_aff, fresh, with_type_range


class Member:
    """One element of the STATE tuple: an array of type ty and shape
    (NumPy axis order, Vals); init is its value before the loop (an
    ArrayExpr, a scalar Val for a 0-d member) or None."""

    def __init__(self, index, name, ty, shape, init):
        self.index, self.name, self.ty, self.shape, self.init = index, name, ty, shape, init


class _Ref:
    def __init__(self, node):
        self.node = node

    def __len__(self):
        return 1


class StateContents:
    """Stands for a member's Func while the body runs: `func[args]` reads
    the member's current element in STATE."""

    def __init__(self, machine, member):
        self.machine, self.member = machine, member

    def __getitem__(self, args):
        args = args if isinstance(args, tuple) else (args,)
        return _Ref(self.machine.read(self.member, [a.node for a in reversed(args)]))


class Phases:
    """The members and phases of one loop (see the module docstring).

    STATE has D dimensions, D the largest rank of a member; a member of
    rank r lives in the last r of them (the others 0), each coordinate
    clamped into the member's own size (so bounds inference knows every
    region). Reads are made with the member's own coordinates and padded
    to D when the Func is defined."""

    def __init__(self, cx, state):
        self.cx, self.state, self.fn = cx, state, state.function()
        self.members = []
        self.phases = []        # (sizes, points, member, at, {member index: node}, when)
        self.reads = set()      # indices of the members read since last cleared
        self.rank = None        # D, once define() has made the Func

    def member(self, name, ty, shape, init=None) -> Member:
        m = Member(len(self.members), name, ty, list(shape), init)
        self.members.append(m)
        return m

    def size(self, s) -> ir.Expr:
        return cast(ir.INDEX, ops.node_of(self.cx, s))

    def place(self, m, idx) -> list:
        """Member m's element idx as STATE coordinates (NumPy order)."""
        at = [ir.Max(ir.Min(cast(ir.INDEX, i), ir.Sub(self.size(s), ir.index(1))), ir.index(0))
              for i, s in zip(idx, m.shape)]
        return [ir.index(0)] * ((self.rank or len(at)) - len(at)) + at

    def call(self, m, at) -> ir.Expr:
        return ir.Call(m.ty.ir(), self.fn.name, tuple(reversed(at)), ir.FUNC, m.index, self.fn)

    def read(self, m, idx) -> ir.Expr:
        self.reads.add(m.index)
        return self.call(m, self.place(m, idx))

    def scalar_view(self, m) -> Val:
        return with_type_range(Val(self.read(m, []), m.ty))

    def view(self, m, node) -> ArrayExpr:
        return ArrayExpr(m.shape, m.ty, lambda idx: with_type_range(Val(self.read(m, idx), m.ty)),
                         node)

    def add(self, shape, body, when=None):
        """A phase over the points of `shape`: body(idx) -> (member, its
        index written, {member index: value node}); given `when`, when(idx)
        -> a condition node: the phase writes only the points where it
        holds (evaluated at every point of the RDom: what it reads outside
        STATE goes under a lazy test of idx against shape)."""
        p = [ir.Variable(ir.INDEX, fresh(f"point{k}")) for k in range(len(shape))]
        m, at, values = body(p)
        cond = when(p) if when is not None else None
        self.phases.append(([self.size(s) for s in shape], p, m, list(at), values, cond))

    # the Func ----------------------------------------------------------------------------
    def define(self, bld, node, loop, trip, label, inner=None):
        """inner: (Loop, its trip count as a node of loop's variable) of a
        loop that is the whole body of `loop` (a perfect nest: one more RVar,
        over the largest trip count, predicated by the trip count of the
        running outer iteration)."""
        cx, emitter = self.cx, bld.emitter
        loc = cx.smap.loc(node)
        D = max([len(m.shape) for m in self.members] + [1])
        pad = ir.FuncMutator(lambda n: self.padded(n, D, pad))
        xs = [bld.defs.axis_var(_Dims(D), k) for k in range(D)]
        cx.cur_node = node
        init = []
        for m in self.members:
            if m.init is None:
                init.append(ir.Const(m.ty.ir(), 0))
            elif isinstance(m.init, Val):
                init.append(stored(cx, m.init, m.ty))
            else:
                # read only at the member's own points (an empty member reads
                # nothing; the other points of STATE hold 0)
                own = xs[D - len(m.shape):]
                inside = None
                for x, s in zip(own, m.shape):
                    c = ir.LT(x.node, self.size(s))
                    inside = c if inside is None else ir.And(inside, c)
                v = stored(cx, m.init.elem([x.node for x in own]), m.ty)
                if inside is not None:
                    v = ir.Call(v.type, "if_then_else", (inside, v, ir.Const(v.type, 0)),
                                ir.INTRINSIC)
                init.append(v)
        emitter.define(self.state, tuple(reversed(xs)), tuple(init), [], None, loc, pure=True,
                       label=label)
        bld.defs.mark_emitted(init, self.state)
        leaves, blocks = _flatten(self.phases)
        P = max([len(sizes) for sizes, *_ in leaves] + [1])
        extents = [ir.index(1)] * P
        for sizes, *_ in leaves:
            for j, n in enumerate(reversed(sizes)):
                if loop.var.name in ir.free_vars(n) or any(
                        v.name in ir.free_vars(n) for v in _loop_vars(inner, blocks)):
                    raise cx.err(node, f"the size of an array statement {WHAT} changes from "
                                       f"one iteration to the next: not supported", hint=HINT)
                extents[j] = ir.Max(extents[j], n)
        first = cast(ir.INDEX, ops.node_of(cx, loop.start))
        loops = [trip]
        ranges = {loop.var.name: (first, ir.Add(first, ir.Mul(ir.index(loop.step),
                                                               ir.Sub(trip, ir.index(1)))))}
        ranges[loop.var.name] = (ir.Min(*ranges[loop.var.name]), ir.Max(*ranges[loop.var.name]))
        if inner is not None:
            # the inner trip count is monotone in the outer variable (affine
            # bounds): its largest value is at the first or the last iteration
            at_last = ir.Add(first, ir.Mul(ir.index(loop.step), ir.Sub(trip, ir.index(1))))
            most = ir.Max(ir.Max(ir.substitute(inner[1], {loop.var.name: first}),
                                 ir.substitute(inner[1], {loop.var.name: at_last})),
                          ir.index(0))
            loops = [most, trip]
            got = loop_range(cx, inner[0], inner[1], ranges)
            if got is not None:
                ranges[inner[0].var.name] = got
        # each block: (the running child, the iteration), inner to the blocks around it
        # the blocks at one depth share their two RVars (one of them runs at a time)
        dims = {}
        for b, depth in blocks:
            # (at least 1: the other entries run at its iteration 0)
            bound = ir.Max(trip_bound(cx, b.loop.node, b.trip, ranges), ir.index(1))
            got = loop_range(cx, b.loop, b.trip, ranges)
            if got is None:
                raise cx.err(b.loop.node, f"the variable of this inner loop has no bound over "
                                          f"the enclosing loops {WHAT}: not supported",
                             hint=HINT)
            ranges[b.loop.var.name] = got
            n, most = dims.get(depth, (1, ir.index(1)))
            dims[depth] = (max(n, len(b.children)), ir.Max(most, bound))
        depths = max(dims, default=0)
        block_ext = [e for d in reversed(range(1, depths + 1))
                     for e in (ir.index(dims[d][0]), dims[d][1])]
        nb = len(block_ext)
        rdom = RDom([(Expr.wrap(ir.index(0)), Expr.wrap(e)) for e in extents + block_ext] +
                    [(Expr.wrap(ir.index(0)), Expr.wrap(ir.index(len(self.phases))))] +
                    [(Expr.wrap(ir.index(0)), Expr.wrap(e)) for e in loops],
                    f"r_{self.state.name()}")
        r = [rdom[i].node for i in range(P + nb + 1 + len(loops))]
        # depth d: (the running child, the iteration)
        self.depth_dims = {d: (r[P + 2 * (depths - d)], r[P + 2 * (depths - d) + 1])
                           for d in range(1, depths + 1)}
        rk, rt = r[P + nb], r[-1]
        common = {loop.var.name: ir.Add(first, ir.Mul(ir.index(loop.step), rt))}
        running = None
        if inner is not None:
            il, rj = inner[0], r[P + nb + 1]
            istart = ir.substitute(cast(ir.INDEX, ops.node_of(cx, il.start)), common)
            common[il.var.name] = ir.Add(istart, ir.Mul(ir.index(il.step), rj))
            running = ir.LT(rj, ir.substitute(inner[1], common))
        self.D, self.P, self.r = D, P, r
        lhs, pred, guard = None, None, None
        values = [None] * len(self.members)
        writes = [None] * len(self.members)
        for k in reversed(range(len(self.phases))):
            here = ir.EQ(rk, ir.index(k))
            at, inside, vals, when = self.emit(self.phases[k], common, None, 0)
            lhs = at if lhs is None else [ir.Select(here, a, b) for a, b in zip(at, lhs)]
            pred = inside if pred is None else ir.Select(here, inside, pred)
            if when is not None:
                # (a predicate of its own: a branch inside the phase's, which
                # lowering/trim_no_ops.py trims its loops by)
                guard = ir.Select(here, when,
                                  guard if guard is not None else ir.Const(ir.Bool(), True))
            elif guard is not None:
                guard = ir.Select(here, ir.Const(ir.Bool(), True), guard)
            for i, (c, v) in vals.items():
                values[i] = v if values[i] is None else lazy(here, v, values[i])
                c = here if c is None else ir.And(here, c)
                writes[i] = c if writes[i] is None else ir.Or(c, writes[i])
        for m in self.members:
            old = self.call(m, lhs)
            values[m.index] = old if values[m.index] is None else lazy(
                writes[m.index], values[m.index], old)
        if running is not None:
            pred = ir.And(running, pred)
        values = [pad.mutate(v) for v in values]
        lhs = [pad.mutate(a) for a in lhs]
        pred = pad.mutate(pred)
        preds = [pred] if guard is None else [pred, pad.mutate(guard)]
        left = [k for n in values + lhs for k in ir.free_vars(n) if k.startswith("%")]
        if left:
            raise cx.err(node, f"this loop's body uses a value that cannot be computed {WHAT} "
                               f"yet", hint="compute it before the loop")
        bld.defs.mark_emitted(values, self.state)
        self.rank = D
        emitter.define(self.state, tuple(Expr.wrap(a) for a in reversed(lhs)), tuple(values),
                       preds, rdom, loc, label=label)
        # one copy of the body per phase: each copy's selects on the phase fold
        # away (bubble sort of 2000 elements 15 -> 11 ms)
        self.state.update(0).unroll(rdom[P + nb])
        for d in range(nb // 2):
            self.state.update(0).unroll(rdom[P + 2 * d])   # (the running child)

    def emit(self, entry, s, outside, depth):
        """(STATE coordinates written, the condition of the entry's points,
        {member index: (where written or None for everywhere, value)}, the
        phase's own condition (Phases.add's `when`) or None) of a
        phase or a Block under the substitution s of the loop variables;
        outside: the condition of the enclosing blocks' running child and
        iteration (None at the top), depth: the number of those blocks."""
        D, P, r = self.D, self.P, self.r
        if isinstance(entry, Block):
            ri, rl = self.depth_dims[depth + 1]
            b = entry.loop
            start = ir.substitute(cast(ir.INDEX, ops.node_of(self.cx, b.start)), s)
            s2 = dict(s, **{b.var.name: ir.Add(start, ir.Mul(ir.index(b.step), rl))})
            run = ir.LT(rl, ir.substitute(entry.trip, s))
            lhs, pred, vals, when = None, None, {}, None
            for c in reversed(range(len(entry.children))):
                here = ir.And(run, ir.EQ(ri, ir.index(c)))
                inner = here if outside is None else ir.And(outside, here)
                at, inside, cv, cw = self.emit(entry.children[c], s2, inner, depth + 1)
                sel = ir.EQ(ri, ir.index(c))
                lhs = at if lhs is None else [ir.Select(sel, a, x) for a, x in zip(at, lhs)]
                pred = inside if pred is None else ir.Select(sel, inside, pred)
                if cw is not None or when is not None:
                    true = ir.Const(ir.Bool(), True)
                    when = ir.Select(sel, cw if cw is not None else true,
                                     when if when is not None else true)
                for i, (w, v) in cv.items():
                    w = sel if w is None else ir.And(sel, w)
                    if i in vals:
                        w0, v0 = vals[i]
                        vals[i] = (ir.Or(w, w0), lazy(sel, v, v0))
                    else:
                        vals[i] = (w, v)
            return lhs, ir.And(run, pred), vals, when
        sizes, p, m, at, vals, when = entry
        s = dict(s, **{q.name: r[len(p) - 1 - a] for a, q in enumerate(p)})
        at = [ir.substitute(a, s) for a in self.place(m, at)]
        at = [ir.index(0)] * (D - len(at)) + at
        zero = [ir.EQ(r[j], ir.index(0)) for j in range(len(p), P)]
        for d, (ri, rl) in self.depth_dims.items():
            if d > depth:
                zero += [ir.EQ(ri, ir.index(0)), ir.EQ(rl, ir.index(0))]
        inside = _all([ir.LT(r[len(p) - 1 - a], ir.substitute(n, s))
                       for a, n in enumerate(sizes)] + zero)
        guard_ = inside if outside is None else ir.And(outside, inside)
        # computed only at the phase's own points (its `inside`, also in the
        # predicate): bounds inference bounds the phase's reads of inputs by
        # its sizes, not by the RDom's extents, which are the largest over the
        # phases (a.min(axis=1) of a 16x5 `a` does not read columns 5..15)
        return at, inside, {i: (None, lazy(guard_, ir.substitute(v, s), _zero(v.type)))
                            for i, v in vals.items()}, \
            (None if when is None else ir.substitute(when, s))

    def padded(self, n, D, pad):
        """A call of STATE with fewer than D arguments, with the leading
        (outer) coordinates 0."""
        if isinstance(n, ir.Call) and n.call_type == ir.FUNC and n.name == self.fn.name and \
                len(n.args) < D:
            args = tuple(pad.mutate(a) for a in n.args)
            return ir.Call(n.type, n.name, args + (ir.index(0),) * (D - len(n.args)),
                           ir.FUNC, n.value_index, n.func)
        return None


def _flatten(entries, depth=1):
    """(the phase tuples, the Blocks in preorder with their depths) of
    entries."""
    leaves, blocks = [], []
    for e in entries:
        if isinstance(e, Block):
            blocks.append((e, depth))
            sub_leaves, sub_blocks = _flatten(e.children, depth + 1)
            leaves += sub_leaves
            blocks += sub_blocks
        else:
            leaves.append(e)
    return leaves, blocks


def _loop_vars(inner, blocks) -> list:
    return ([inner[0].var] if inner is not None else []) + [b.loop.var for b, _ in blocks]


def _zero(ty) -> ir.Expr:
    return ir.Const(ty, 0)


def _all(conds):
    out = None
    for c in conds:
        out = c if out is None else ir.And(out, c)
    return out if out is not None else ir.Const(ir.Bool(), True)


class _Dims:
    def __init__(self, ndim):
        self.ndim = ndim


class PhaseRun(BodyRun):
    """The body run as phases of `machine` (Phases): stores, bindings and
    reductions add phases; arrays read the current STATE."""

    def __init__(self, bld, loop_node, machine):
        super().__init__(bld, loop_node, {})
        self.m = machine
        self.of = {}                # Arr -> Member
        # the Arrs of carried names whose array before the loop is also seen
        # elsewhere (an in-place write in the first iteration would change it)
        self.carried = set()
        self.conds = []             # the tests (snapshot Vals) of the enclosing `if`s
        # the indices of the members that are arrays named before the loop and
        # written in place (their memory layout is the array's: carried_sums)
        self.layout_known = set()
        self.loop_obj = None        # the CarriedLoop
        # whether the body's inner `for` loops run as Blocks (carried_blocks.py)
        self.blocks = False
        self.block_names = []       # per running Block: {carried name: its 0-d Member}
        self.promoted = {}          # member index -> the type a Block's body gives it

    def condition(self):
        """The node of the enclosing `if`s' tests, or None."""
        out = None
        for c in self.conds:
            n = ops.node_of(self.cx, c)
            out = n if out is None else ir.And(out, n)
        return out

    def phase_mark(self):
        """Where a phase added now goes (carried_operands: an operand's
        checks are computed there)."""
        return self.m.phases, len(self.m.phases)

    def operands_used(self, s, vals):
        carried_operands.phase_operands(self, vals)

    def run_stmt(self, s):
        if is_block(s) and self.blocks:
            self.cx.cur_node, self.cx.stmt_pos, self.cx.stmt = s, (s.lineno, s.col_offset), s
            return run_block(self, s)
        if not isinstance(s, ast.If):
            return super().run_stmt(s)
        cx = self.cx
        if self.blocks and run_checked_if(self, s):
            return None
        if not guarded_writes(s, self.blocks):
            raise cx.err(s, f"an `if` with an else or with other statements than element "
                            f"writes and tuple assignments is not supported yet {WHAT}",
                         hint=HINT)
        cx.cur_node, cx.stmt_pos, cx.stmt = s, (s.lineno, s.col_offset), s
        test = ops.truth(cx, self.b.ev_val(s.test, "a condition"))
        carried_operands.flush(self, s, cx.scalar_log)     # (before the branches)
        if self.conds:
            test = Val(lazy(self.condition(), ops.node_of(cx, test),
                             ir.Const(ir.Bool(), False)), test.ty)
        snap = self.scalar("if", test, s, snapshot=True)
        env = self.bld.scope.env
        before = set(env)
        # (with Blocks, an else runs under the negated snapshot: the test as
        # Python evaluated it once, before the body's writes)
        for cond, body in ((snap, s.body), (Val(ir.Not(ops.node_of(cx, snap)), snap.ty),
                                            s.orelse)):
            if not body:
                continue
            self.conds.append(cond)
            try:
                for st in body:
                    self.exec_stmt(st)
            finally:
                self.conds.pop()
        if self.blocks:
            # a name first bound under the `if` has no value where its test
            # fails, unless both branches bind it (the else's binding is
            # then the then-branch's value where the test holds: bind)
            both = {n for n in _bound_names(s.body) & _bound_names(s.orelse)
                    if not is_temporary(n)}
            for n in names_assigned(s.body + s.orelse) - before - both:
                env[n] = self.loop_obj.done(n, array=False)

    def adopt(self, arr, member):
        if arr not in self.saved:
            self.saved[arr] = (arr.func, arr.defined)
        arr.func, arr.defined = StateContents(self.m, member), True
        self.of[arr] = member

    def scratch(self, name, value: ArrayExpr, node) -> Arr:
        """value stored into a new member (a phase over its points)."""
        cx = self.cx
        if value.ty.is_complex():
            raise cx.err(node, f"complex array values are not supported yet {WHAT}", hint=HINT)
        m = self.m.member(name, value.ty, value.shape)

        def body(idx):
            cx.cur_node = node
            return m, idx, {m.index: stored(cx, value.elem(idx), m.ty)}
        self.m.add(value.shape, body)
        arr = Arr(name, value.ty, value.shape, "local", cx.smap.loc(node))
        self.adopt(arr, m)
        return arr

    def scalar(self, name, v: Val, node, snapshot=False, total=False) -> Val:
        """A scalar that reads the state, stored into a 0-d member (so that
        later writes do not change it); under an `if`, computed only where
        its test holds (a read it makes may raise only there, as in Python).
        A complex one: each part (C.ComplexVal)."""
        if isinstance(v, C.ComplexVal):
            return C.ComplexVal(self.cx, self.scalar(name, v.re, node, snapshot),
                                self.scalar(name, v.im, node, snapshot), v.ty, fused=v.fused)
        if not snapshot and not _reads_state(ops.node_of(self.cx, v), self.m.fn.name):
            return v
        if v.union:
            raise self.cx.err(node, f"a scalar whose type depends on the data is not supported "
                                    f"yet {WHAT}", hint=HINT)
        m = self.m.member(name, v.ty, [])
        # (a Python int's node may be narrower than the member's int64)
        n = stored(self.cx, v, v.ty)
        if self.conds and not total:
            n = lazy(self.condition(), n, ir.Const(n.type, 0))
        self.m.add([], lambda idx: (m, [], {m.index: n}))
        return with_type_range(Val(self.m.read(m, []), v.ty))

    # BodyRun's hooks -----------------------------------------------------------------------
    def run(self, stmts):
        hook = self.bld.array_code
        hook.phase_run = self
        try:
            super().run(stmts)
        finally:
            hook.phase_run = None

    def bind(self, name, value, node):
        env = self.bld.scope.env
        m = self.block_names[-1].get(name) if self.block_names else None
        if m is not None and isinstance(value, Val):
            # a scalar the running Block carries: its member written here
            if self.conds:
                value = guarded_value(self, name, value, node)
            env[name] = write_carried(self, name, m, value, node)
            return
        if self.conds and not is_temporary(name) and isinstance(env.get(name), Val):
            # (a total value: its snapshot is not zeroed where the tests fail)
            env[name] = self.scalar(name, guarded_value(self, name, value, node), node,
                                    total=True)
            return
        if isinstance(value, ArrayExpr) and value.view is not None and is_whole_view(value):
            value = value.view[0]
        if isinstance(value, Arr):
            if value not in self.of and value.kind == "local" and not value.defined:
                value = self.scratch(name, self.created(value, node), node)
            env[name] = value
        elif isinstance(value, ArrayExpr) and value.view is not None:
            env[name] = value                   # a view keeps aliasing its array
        elif isinstance(value, ArrayExpr):
            env[name] = self.scratch(name, value, node)
        elif isinstance(value, Val):
            carried_operands.bound_scalar(self, self.cx.stmt)
            env[name] = self.scalar(name, value, node)
        elif isinstance(value, TupleVal) and all(isinstance(v, Val) for v in value.items):
            env[name] = TupleVal([self.scalar(name, v, node) for v in value.items])
        else:
            raise self.cx.err(node, f"cannot assign {self.b.describe_obj(value)} {WHAT}",
                              hint=HINT)

    def write(self, dest, value, node):
        """`dest = value(p)` as a phase over the region; through a scratch
        member when the value reads the array it is stored into."""
        cx, bld = self.cx, self.bld
        arr = dest.arr
        if isinstance(arr, ComplexArr) and arr not in self.carried and \
                all(part in self.of for part in arr.parts()):
            return write_complex(self, dest, value, node)
        m = self.of.get(arr)
        if arr in self.carried:
            raise cx.err(node, f"this loop writes into the array {arr.name!r} names before the "
                               f"loop, which is also seen elsewhere, and binds {arr.name!r} to "
                               f"another array: not supported yet {WHAT}",
                         hint=f"copy it first ({arr.name} = {arr.name}.copy()) before the loop")
        if m is None or arr.ty.is_complex():
            raise cx.err(node, f"this loop writes into an array it cannot carry {WHAT} "
                               f"(complex, or named only inside the loop)", hint=HINT)
        p = [ir.Variable(ir.INDEX, fresh(f"region{k}")) for k in range(len(dest.shape))]
        at, checks = dest.place(p)
        self.m.reads.clear()
        cx.cur_node = node
        v = guard(cx, bld.arrays.store_convert(value(p), arr.ty), checks)
        if dest.pred is not None:       # a mask: the old element where it does not hold
            v = ops.select(cx, ops.truth(cx, dest.pred(p)), v, dest.read(p))
        vnode = stored(cx, v, arr.ty)
        names = [q.name for q in p]
        cond = self.condition()
        if m.index in self.m.reads and dest.shape:
            # (one element is stored after its value is computed)
            tmp = self.m.member(arr.name, arr.ty, dest.shape)
            tnode = vnode if cond is None else lazy(cond, vnode, ir.Const(vnode.type, 0))
            self.m.add(dest.shape, lambda idx: (tmp, idx, {tmp.index: ir.substitute(
                tnode, dict(zip(names, idx)))}))
            vnode = self.m.read(tmp, p)
        if cond is not None:
            # under an `if`: where its test fails, the element at the (clamped,
            # unchecked) position written keeps its value
            vnode = lazy(cond, vnode, self.m.read(m, at))
        self.m.add(dest.shape, lambda idx: (m, [ir.substitute(a, dict(zip(names, idx)))
                                                for a in at],
                                            {m.index: ir.substitute(vnode, dict(zip(names, idx)))}))
        self.written.add(arr)

    # reductions (array_reduce.reduction) ---------------------------------------------------
    def reduction(self, ac, operand, axes, tys, init, step, name, node, view, result):
        cx = self.cx
        if any(t.is_complex() for t in tys):
            raise cx.err(node, f"complex reductions are not supported yet {WHAT}", hint=HINT)
        kept = [k for k in range(operand.ndim) if k not in axes]
        kshape = [operand.shape[k] for k in kept]
        ms = [self.m.member(name, t, kshape) for t in tys]
        self.m.add(kshape, lambda idx: (ms[0], idx, {m.index: c for m, c in zip(ms, init)}))
        order = kept + sorted(axes)

        def body(idx):
            full = [None] * operand.ndim
            for k, i in zip(order, idx):
                full[k] = i
            at = [full[k] for k in kept]
            state = [with_type_range(Val(self.m.read(m, at), t)) for m, t in zip(ms, tys)]
            cx.cur_node = node
            x = operand.elem(full)
            cx.cur_node = node
            new = step(cx, state, x, {k: full[k] for k in axes})
            return ms[0], at, {m.index: stored(cx, v, t) for m, v, t in zip(ms, new, tys)}
        self.m.add([operand.shape[k] for k in order], body)
        arr = Arr(name, tys[0], kshape, "local", cx.smap.loc(node))
        self.adopt(arr, ms[0])
        if result is not None:
            rty, fn = result
            return ArrayExpr(kshape, rty, lambda i: fn(cx, [with_type_range(Val(
                self.m.read(m, i), t)) for m, t in zip(ms, tys)]), node)
        if view:
            return ac.view_of(arr, node)
        return ArrayExpr(kshape, arr.ty, lambda i: ac.read_element(arr, i), node)


def _reads_state(node, name) -> bool:
    return any(c.name == name for c in ir.find_calls([node]))


def run_phases(loop_obj, node, loop, env0, names, scalars, promoted=None):
    """Compile `node` (a CarriedLoop's loop) in phase mode. names: the
    names bound to arrays before the loop that the body rebinds and that
    are read later; scalars: such names bound to scalars; env0: the scope
    before the loop; promoted: {scalar name: type} of the Python floats
    the body makes NumPy floats (same bits, TypeChange from _copy_back):
    the member's type in the first iteration, that type in the later ones."""
    promoted = promoted or {}
    cx, scope, bld = loop_obj.cx, loop_obj.scope, loop_obj.bld
    label = "_".join(names or ["state"]) + "_phases"
    state = bld.emitter.new_func(label)
    machine = Phases(cx, state)
    run = PhaseRun(bld, node, machine)
    run.loop_obj, run.blocks = loop_obj, has_blocks(node, id(node) in cx.block_nests)
    carried = {}
    ac = bld.array_code
    shared = {n for n in names if seen_elsewhere(bld, env0, n)}
    for obj in _written_objects(node, env0, names):
        alias = next((n for n in shared if base_of(env0[n]) is obj), None)
        if alias is not None:
            raise cx.err(node, f"this loop writes into the array {alias!r} names before the "
                               f"loop and also binds {alias!r} to another array: not supported "
                               f"yet {WHAT}",
                         hint=f"copy it first ({alias} = {alias}.copy()) before the loop")
        bld.defs.ensure_defined(obj)
        # a complex array: a member per part (float arrays of its shape)
        for part in (obj.parts() if isinstance(obj, ComplexArr) else [obj]):
            m = machine.member(part.name, part.ty, part.shape, ac.view_of(part, node))
            run.adopt(part, m)
            run.layout_known.add(m.index)
    scope.env[loop.name] = loop.val
    for n in names:
        a = ac.as_array(env0[n], node)
        if a.ty.is_complex():
            raise cx.err(node, f"the complex array {n!r} is carried {WHAT} with reductions: "
                               f"not supported yet", hint=HINT)
        m = machine.member(n, a.ty, a.shape, a)
        arr = Arr(n, a.ty, a.shape, "local", cx.smap.loc(node))
        run.adopt(arr, m)
        carried[n] = (m, arr)
        scope.env[n] = arr
    for n in scalars:
        v = env0[n]
        if v.union:
            raise cx.err(node, f"the scalar {n!r}, whose type depends on the data, changes from "
                               f"one iteration to the next {WHAT}: not supported yet",
                         hint=f"convert {n} before the loop ({n} = float({n}))")
        m = machine.member(n, v.ty, [], v)
        carried[n] = (m, None)
        scope.env[n] = machine.scalar_view(m) if n not in promoted else first_or_later(
            cx, machine, m, promoted[n], loop.val, loop.start)
    loops = bld.array_code.state.symbolic_loops
    # (the outer loop is on Context.carried_loops (CarriedLoop.run); the inner
    # one goes there too while the body runs: the body's call-time shape
    # checks are made only where both loops run, Context.loops_run_at_call)
    pushed = 0
    try:
        inner = _inner_loop(loop_obj, node)
        loops.append(loop)
        if inner is not None:
            scope.env[inner[0].name] = inner[0].val
            loops.append(inner[0])
            cx.carried_loops.append(inner[0])
            pushed = 1
        run.run(node.body if inner is None else node.body[0].body)
        _copy_back(run, carried, node, promoted)
    finally:
        del loops[:]
        del cx.carried_loops[len(cx.carried_loops) - pushed:]
        run.restore()
    env2 = scope.env
    # the names' arrays passed from name to name (carried_rotation.py): which
    # start array each name holds after the body
    held = {id(arr): k for k, (m, arr) in carried.items() if arr is not None}
    env1 = {n: env0[held[id(env2.get(n))]] if id(env2.get(n)) in held else env2.get(n)
            for n in names}
    rot = Rotation(node, env0, env1, names, lambda n: n in shared)
    written = [n for n, (m, arr) in carried.items() if arr is not None and arr in run.written]
    rot.check(loop_obj.err, env0, names, written)
    machine.define(bld, node, loop, loop_obj.trip(loop), label, inner)
    objects = [(a, m) for a, m in run.of.items()
               if a in run.written and m.init is not None and
               a not in {x for _, x in carried.values()}]
    return machine, carried, env2, objects, (rot, written)


def _bound_names(stmts) -> set:
    """The names the statements stmts always bind (`n = v` among them)."""
    return {t.id for st in stmts if isinstance(st, ast.Assign)
            for t in st.targets if isinstance(t, ast.Name)}


def has_blocks(node, retried=False) -> bool:
    """Whether a loop's body (not a perfect nest) holds inner `for` loops,
    which phase mode runs as Blocks (carried_blocks.py); retried (a nest of
    Context.block_nests): also the body of a perfect nest's inner loop
    (nussinov's `for k` in its `for j` loop), or an `if` with an else there
    (its branches and the statements after them in Python's order)."""
    inner = sole_loop(node.body)
    if inner is not None:
        return retried and any(is_block(n) or isinstance(n, ast.If) and n.orelse
                               for s in inner.body for n in ast.walk(s))
    return any(is_block(n) for s in node.body for n in ast.walk(s))


def guarded_writes(node: ast.If, scalars=False) -> bool:
    """Whether an `if` (no else; scalars: in a body with Blocks, also with
    an else of the same kind) holds only element writes (`a[i] = v`,
    `a[i] += v`) and the temporaries of tuple assignments (tuple_targets.py:
    `a[i], a[j] = a[j], a[i]`) (scalars: any name, and inner loops), and
    `if`s of the same kind: phase mode runs each under its condition
    (carried_phases.PhaseRun)."""
    if node.orelse and not scalars:
        return False
    for s in node.body + node.orelse:
        if isinstance(s, ast.If):
            if not guarded_writes(s, scalars):
                return False
            continue
        if scalars and is_block(s):
            continue
        if isinstance(s, ast.AugAssign) and isinstance(s.target, ast.Subscript) and \
                isinstance(s.target.value, ast.Name):
            continue
        if not isinstance(s, ast.Assign) or len(s.targets) != 1:
            return False
        t = s.targets[0]
        names = t.elts if isinstance(t, ast.Tuple) else [t]
        if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name):
            continue
        if not all(isinstance(n, ast.Name) and (is_temporary(n.id) or scalars)
                   for n in names):
            return False
    return True


def sole_loop(stmts):
    """The `for ... in range()` loop (without else) that is the whole of a
    loop body `stmts` (a perfect nest), or None."""
    if len(stmts) != 1 or not isinstance(stmts[0], ast.For) or stmts[0].orelse:
        return None
    it = stmts[0].iter
    if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range" \
            and not it.keywords and 1 <= len(it.args) <= 3:
        return stmts[0]
    return None


def _inner_loop(loop_obj, node):
    """(Loop, trip count node) of the sole loop of `node`'s body (a perfect
    nest, carried_arrays.applies), or None. Its bounds must be affine in the
    outer variable (the trip count is then monotone in it), or known when
    the function is called."""
    inode = sole_loop(node.body)
    if inode is None:
        return None
    il = loop_obj.runner.make_loop(inode)
    if il.name == node.target.id:
        raise loop_obj.err("an inner loop with the outer loop's variable is not supported "
                           f"{WHAT}", at=inode.target)
    for v, where in ((il.start, "start"), (il.stop, "stop")):
        if exact_aff(v) is None and not (v.is_static or v.is_const):
            raise loop_obj.err(f"the {where} of this inner loop is not an affine expression of "
                               f"the outer loop's variable, sizes and scalar arguments: not "
                               f"supported {WHAT}", hint=HINT, at=inode.iter)
    return il, loop_obj.trip(il)


def _copy_back(run, carried, node, promoted):
    """At the end of the body, each carried name's member gets the array
    the name holds then (snapshots first, so that a swap `a, b = b, a`
    copies old values); a carried Python float the body makes a NumPy
    float raises TypeChange (run_phases runs the body again with it
    promoted)."""
    cx, env = run.cx, run.bld.scope.env
    ends = {}
    for n, (m, arr) in carried.items():
        v = env.get(n)
        if v is arr:
            continue
        if arr is None:             # a scalar
            if isinstance(v, Val) and not v.union and v.ty != m.ty and m.ty == PY_FLOAT and \
                    v.ty.is_float() and not v.ty.is_complex() and n not in promoted:
                raise TypeChange(m, v.ty)
            if not isinstance(v, Val) or v.union or v.ty != promoted.get(n, m.ty):
                raise cx.err(node, f"{n!r} is {m.ty.describe()} before this loop and "
                                   f"{run.b.describe_obj(v)} after its body: a scalar carried "
                                   f"by a loop that also carries arrays keeps its type",
                             hint=f"convert it ({n} = float({n}) before the loop, or "
                                  f"np.float64(...))")
            ends[n] = run.scalar(n, v, node)
            continue
        a = run.bld.array_code.as_array(v, node)
        if a is None:
            raise cx.err(node, f"{n!r} names an array before this loop and "
                               f"{run.b.describe_obj(v)} after its body",
                         hint="keep the name bound to an array of the same shape")
        if a.ty != m.ty:
            raise cx.err(node, f"{n!r} is {m.ty.describe()} before this loop and "
                               f"{a.ty.describe()} after its body: an array carried by a loop "
                               f"keeps its dtype", hint="convert with .astype(...)")
        if a.ndim != len(m.shape) or not all(may_equal(cx, p, q)
                                             for p, q in zip(a.shape, m.shape)):
            raise cx.err(node, f"{n!r} has another shape after this loop's body than before "
                               f"the loop", hint="keep the carried arrays' shapes")
        for p, q in zip(a.shape, m.shape):
            if not same_size(cx, p, q):     # two arguments' sizes, say
                # made only where the loops run (Python keeps the start
                # array where the loop has no iteration)
                add_loop_gated(cx, SameSizeAtCall(
                    p, q, f"{n!r} names arrays of different sizes before this loop and after "
                          f"its body in this call", cx.smap.loc(node)))
        src = v if isinstance(v, Arr) else None
        if src is None or src not in run.of or run.of[src].init is not None:
            src = run.scratch(n, freeze(cx, a, node), node)     # a snapshot
        ends[n] = run.of[src]
    for n, s in ends.items():
        m = carried[n][0]
        if isinstance(s, Val):
            node_ = stored(cx, s, m.ty)
            run.m.add([], lambda idx, m=m, v=node_: (m, [], {m.index: v}))
            continue
        run.m.add(m.shape, lambda idx, m=m, s=s: (m, idx, {m.index: run.m.read(s, idx)}))


def may_equal(cx, p, q) -> bool:
    """Whether two sizes may be equal at call time (not two different
    constants, nor affine forms a nonzero constant apart)."""
    if same_size(cx, p, q):
        return True
    if p.is_const and q.is_const:
        return False
    a, b = exact_aff(p), exact_aff(q)
    return a is None or b is None or a.terms != b.terms


def _written_objects(node, env, rebound) -> list:
    """The arrays named before the loop that its body assigns into
    (`a[...] = e`, `a[...] op= e`, `a op= e`), in order."""
    out = []
    for s in node.body:
        for n in ast.walk(s):
            t = n.targets if isinstance(n, ast.Assign) else \
                [n.target] if isinstance(n, ast.AugAssign) else []
            for x in t:
                root = x.value if isinstance(x, ast.Subscript) else \
                    x if isinstance(n, ast.AugAssign) else None
                if isinstance(root, ast.Name) and root.id not in rebound:
                    obj = base_of(env.get(root.id))
                    if isinstance(obj, Arr) and obj not in out:
                        out.append(obj)
    return out
