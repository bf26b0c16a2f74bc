"""Loops that carry whole arrays from one iteration to the next (time
stepping: `u[1:-1] = u[1:-1] + k*(u[:-2] - 2*u[1:-1] + u[2:])`,
`x = x + dt*v`, `a, b = b, a`) as a functional recurrence.

The carried arrays ("members": arrays the body writes, and names the body
rebinds that are read in the next iteration or after the loop; v1: all of
one shape) form one tuple Func STATE(x..., slot). Its pure definition is
the members' values before the loop; one update over an RDom of (the
array's points, the iterations) writes slot (t + 1) % 2 from the values the
body computes reading slot t % 2 (carried_body.py runs the body as array
values), so folding the iterations into two slots is exact: an iteration
reads only the slot the previous one wrote. After the loop a member is
STATE(x..., T % 2): a rebound name becomes a new array of it, a written
array is assigned it whole (an argument array is then seen written by the
caller, as in Python). Cost O(T x N), like NumPy's."""
from __future__ import annotations

import ast
from types import SimpleNamespace

from pyhalide import ir
from pyhalide.expr import Expr
from pyhalide.expr import cast_node as cast
from pyhalide.var import RDom

from . import carried_phases, ops
from .analyze import carried, names_assigned
from .array_store import builder_of, destination, write
from .arrayexpr import ArrayExpr, element_node, k_order, same_size
from .carried_blocks import TypeChange, after_loop
from .carried_body import BodyRun, base_of, freeze, seen_elsewhere
from .carried_phases import guarded_writes, has_blocks, may_equal, sole_loop
from .carried_region import region_step
from .carried_rotation import Rotation
from .carried_sizes import check_kept_size
from .carried_vector import vectorize_step
from .errors import FrontendError
from .loop_params import index_param
from .result_order import OrderChoice, chosen
from .types import PY_BOOL
from .values import Arr, Val, fresh, with_type_range

_LOOP_STMTS = (ast.For, ast.While, ast.If, ast.Break, ast.Continue, ast.Return, ast.With,
               ast.Try)


def applies(runner, node) -> bool:
    """Whether a top-level `for` loop carries whole arrays: it rebinds a name
    bound to an array that the next iteration or later code reads, or it
    assigns into a region (not a single element) of an array that the loop
    also reads, at a region that does not depend on the loop variable."""
    if runner.state.loops or runner.cx.typing or node.orelse:
        return False
    env = runner.scope.env
    inner = [n for s in node.body for n in ast.walk(s) if isinstance(n, _LOOP_STMTS)]
    if inner and block_swaps(node, env, runner.cx):
        return True
    if inner:
        # element swaps under `if`s of element writes alone run in phase mode,
        # also in a loop whose whole body is one such loop (bubble sort)
        nested = sole_loop(node.body)
        if nested is not None:
            inner = [n for s in nested.body for n in ast.walk(s) if isinstance(n, _LOOP_STMTS)]
        if nested is not None and not inner:
            # a perfect nest whose inner body writes a region of an array it
            # reads (cma_pt's `wxy[k] += ...`): phase mode over both loops
            if _region_writes(runner, nested):
                return True
        return all(isinstance(n, ast.If) and guarded_writes(n) for n in inner) and \
            element_swaps(node, env)
    if any(isinstance(env.get(n), (Arr, ArrayExpr)) for n in carried(node, runner.live)):
        return True
    if element_swaps(node, env):
        return True
    return _region_writes(runner, node)


def block_swaps(node, env, cx) -> bool:
    """Whether a loop body holding inner `for` loops (not a perfect nest)
    swaps elements, in one of them (LU's row swap after its pivot search)
    or itself (selection sort's swap after its search loop), or is a nest
    whose reads deps.py could not relate to its writes in a first build
    (cx.block_nests, specialize._build_with_blocks: in-place Doolittle LU):
    phase mode runs the inner loops as Blocks (carried_blocks.py). Its
    other statements are assignments, `for` loops and `if`s without else
    (in a nest of cx.block_nests also the `raise`s and the `if`s with else
    of moving_slices.py and slice_dots.py: carried_checks.py)."""
    retried = id(node) in cx.block_nests
    if not has_blocks(node, retried):
        return False
    kinds = (ast.Assign, ast.AugAssign, ast.If, ast.For, ast.Pass) + \
        ((ast.Raise,) if retried else ())
    for n in (x for s in node.body for x in ast.walk(s)):
        if isinstance(n, ast.stmt) and not isinstance(n, kinds):
            return False
        if isinstance(n, ast.For if retried else (ast.If, ast.For)) and n.orelse:
            return False
    if retried:
        return True
    return element_swaps(node, env) or _row_copies(node, env) or any(
        isinstance(n, ast.For) and element_swaps(n, env) for s in node.body for n in ast.walk(s))


def _row_copies(node, env) -> bool:
    """Whether the body (outside its inner loops) assigns a region of an
    array (a slice or a list of indices in the target) a value that reads
    the same array: `a[k, :] = a[p, :]`, `a[[k, p]] = a[[p, k]]`."""
    for s in node.body:
        if not isinstance(s, ast.Assign) or len(s.targets) != 1:
            continue
        t = s.targets[0]
        if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and \
                isinstance(env.get(t.value.id), Arr) and \
                any(isinstance(x, (ast.Slice, ast.List)) for x in ast.walk(t.slice)) and \
                _mentions(s.value, t.value.id):
            return True
    return False


def _region_writes(runner, loop) -> bool:
    """Whether the body of `loop` assigns into a region (not a single
    element) of an array that it also reads, at a region that does not
    depend on the loop variable or the names the body assigns (or through a
    mask the body makes), or writes a whole array in place (`u += e`)."""
    env = runner.scope.env
    body = loop.body
    changing = names_assigned(body) | {loop.target.id}
    reads = {}
    for s in body:
        for n in ast.walk(s):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
                reads.setdefault(n.id, []).append(n)
    found = False
    for s in body:
        t = s.targets[0] if isinstance(s, ast.Assign) and len(s.targets) == 1 else \
            (s.target if isinstance(s, ast.AugAssign) else None)
        if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name):
            root = t.value
            mask = _body_mask(t.slice, loop)
            if not isinstance(env.get(root.id), (Arr, ArrayExpr)) or \
                    (any(_mentions(t.slice, n) for n in changing) and not mask):
                continue
            if not mask and _element_index(runner, t.slice, env.get(root.id)):
                continue            # element writes alone: the scalar loop machinery
            if isinstance(s, ast.AugAssign) or any(r is not root for r in reads.get(root.id, [])):
                found = True
        elif isinstance(t, ast.Name) and isinstance(env.get(t.id), (Arr, ArrayExpr)):
            found = True            # `u += e` writes u in place
    return found


_MASK_FUNCS = {"less", "less_equal", "greater", "greater_equal", "equal", "not_equal", "isnan",
               "isfinite", "isinf", "logical_and", "logical_or", "logical_not", "logical_xor"}


def element_swaps(loop, env) -> bool:
    """Whether the loop's body writes single elements of one array at two
    different index expressions (`a[i], a[n - 1 - i] = a[n - 1 - i], a[i]`,
    after tuple_targets.py): the scalar loop machinery writes an array at
    one index per iteration, phase mode (carried_phases.py) writes each
    element in Python's order."""
    seen = {}
    for s in _flat_body(loop.body):
        if not isinstance(s, ast.Assign) or len(s.targets) != 1:
            continue
        t = s.targets[0]
        if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and \
                isinstance(env.get(t.value.id), Arr) and not isinstance(t.slice, ast.Slice) and \
                not any(isinstance(x, ast.Slice) for x in ast.walk(t.slice)):
            const = all(isinstance(x, (ast.Constant, ast.Tuple, ast.UnaryOp, ast.USub, ast.Load))
                        for x in ast.walk(t.slice))
            seen.setdefault(t.value.id, {})[ast.dump(t.slice)] = const
    # (constant indices alone are disjoint cells of the scalar loop machinery)
    return any(len(v) > 1 and not all(v.values()) for v in seen.values())


def _flat_body(stmts) -> list:
    """The statements of a loop body, those of its `if`s' bodies and of a
    loop that is the whole body (sole_loop) included."""
    nested = sole_loop(stmts)
    if nested is not None:
        return _flat_body(nested.body)
    out = []
    for s in stmts:
        out.extend(_flat_body(s.body) if isinstance(s, ast.If) else [s])
    return out


def _body_mask(index, loop) -> bool:
    """Whether an assignment's index is a name the body binds only to
    comparisons (a boolean mask made each iteration: `I = np.abs(z) < 2`,
    `I = np.less(...)`), which the body's run writes through element-wise."""
    if not isinstance(index, ast.Name) or index.id == loop.target.id:
        return False
    values = [s.value for s in loop.body if isinstance(s, ast.Assign) and
              any(isinstance(t, ast.Name) and t.id == index.id for t in s.targets)]
    stored = [n for s in loop.body for n in ast.walk(s) if isinstance(n, ast.Name) and
              n.id == index.id and not isinstance(n.ctx, ast.Load)]
    return bool(values) and len(stored) == len(values) and all(
        isinstance(v, ast.Compare) or (isinstance(v, ast.Call) and isinstance(
            v.func, ast.Attribute) and v.func.attr in _MASK_FUNCS) for v in values)


def _element_index(runner, index, arr) -> bool:
    """Whether `arr[index]` is one element of a named array; where the index
    names what is not bound yet (an outer loop's variable, while the nest's
    form is examined) by its form alone: as many items as axes, none a
    slice, an Ellipsis or None."""
    if not isinstance(arr, Arr):
        return False
    names = {n.id for n in ast.walk(index) if isinstance(n, ast.Name)}
    if names <= set(runner.scope.env):
        return runner.ev_val.__self__.is_element_index(index, arr)
    items = index.elts if isinstance(index, ast.Tuple) else [index]
    return len(items) == arr.ndim and not any(
        isinstance(x, ast.Slice) or (isinstance(x, ast.Constant) and x.value in (None, Ellipsis))
        for x in items)


def _mentions(node, name) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(node))


class CarriedLoop:
    """One loop carrying arrays (see the module docstring)."""

    def __init__(self, runner, node, done):
        self.runner, self.node, self.done = runner, node, done
        self.cx, self.scope = runner.cx, runner.scope
        self.bld = builder_of(runner.ev_val.__self__)

    def err(self, msg, hint="", at=None):
        return self.cx.err(at or self.node, msg, hint=hint)

    def run(self):
        """Compile the loop; False (nothing done) where its body does not
        compile as a recurrence and no name carries an array. While its body
        runs the loop is on Context.carried_loops."""
        loop = self.runner.make_loop(self.node)
        self.cx.carried_loops.append(loop)
        try:
            return self._run(loop)
        finally:
            self.cx.carried_loops.pop()

    def _run(self, loop):
        LoopVarDone = self.done
        cx, scope, node = self.cx, self.scope, self.node
        env0 = dict(scope.env)
        self.scalars = []
        names = self.slot_names(env0)
        entry = _entry_objects(env0)
        for obj in entry.values():
            self.bld.defs.ensure_defined(obj)
        if self.scalars or element_swaps(node, env0) or block_swaps(node, env0, cx):
            return self.run_phases(env0, names, loop)
        # a run of the body over the arrays as they are: which arrays it writes
        scope.env[loop.name] = loop.val
        first = BodyRun(self.bld, node, {})
        try:
            first.run(node.body)
            refused = False
        except FrontendError:
            refused = True
        finally:
            first.restore()
        if refused:
            # (after the restore: a `finally` around this call restored the
            # arrays the first run wrote after phase mode had written their
            # results: `out[0] += 1.0; out += a.min(axis=1)` returned `out`
            # as before the loop)
            scope.env = dict(env0)
            return self.run_phases(env0, names, loop)
        env1, scope.env = scope.env, dict(env0)
        # `u += e` keeps u bound to its array: not a rebound name
        names = [n for n in names if env1.get(n) is not env0[n]]
        slot_objs = {id(base_of(env0[n])): n for n in names}
        written = {id(a) for a in first.written}     # (in env0's order: a set's order
        objects = [a for k, a in entry.items()       # would name the state per process)
                   if k in written and k not in slot_objs]
        written_names = [n for n in names if base_of(env0[n]) in first.written]
        rot = Rotation(node, env0, env1, names,
                       lambda n: seen_elsewhere(self.bld, env0, n, names))
        rot.check(self.err, env0, names, written_names)
        self.rot = rot
        self.check_aliases(env0, env1, names, objects)
        members = self.members(env0, names, objects)
        state, key_vars, it = self.define_init(members, env0)
        # the real run: every member reads the slot of the current iteration
        start = {}
        scope.env[loop.name] = loop.val
        # NumPy's memory order of each local member: its initial value's (order='K'),
        # which the body's value keeps when its operands are laid out alike (a float
        # sum of a member follows it: sum_order.py); names of arguments keep their memory
        own = {m.name for m in members if m.obj is None and (
            m.init.view is None or getattr(m.init.view[0], "kind", None) == "local")}
        orders = {m.name: k_order(m.init) if m.name in own else None for m in members}
        # the order the first iteration gives it (the run above), which the
        # later ones keep where the body gives the same order again
        firsts = {n: k_order(self.bld.array_code.as_array(env1[n], node)) for n in own}
        starts = {n: chosen(Val(ir.GT(it, ir.index(0)), PY_BOOL), firsts[n], orders[n],
                            f"{n!r} in the loop", cx.smap.loc(node)) for n in own}
        for m in members:
            value = _member_view(cx, state, m, node, it, order=starts.get(m.name))
            if m.obj is not None:
                start[m.obj] = value
            else:
                v = Arr(m.name, m.ty, m.shape, "local", cx.smap.loc(node))
                if orders[m.name] is not None:
                    v.memory_order = orders[m.name]
                start[v] = value
                scope.env[m.name] = v
        body = BodyRun(self.bld, node, start)
        try:
            body.run(node.body)
            ends = [self.end_value(body, m, loop) for m in members]
        finally:
            body.restore()
        T = self.trip(loop)
        for m, e in zip(members, ends):
            if m.name not in own:
                orders[m.name] = None   # (a name rotating through arguments: their memory)
            elif e.order == firsts[m.name]:
                # NumPy's order after the loop: the initial one for 0 iterations, the
                # body's after
                orders[m.name] = chosen(Val(ir.GT(T, ir.index(0)), PY_BOOL), e.order,
                                        orders[m.name], f"{m.name!r} after the loop (by its "
                                        f"number of iterations)", cx.smap.loc(node))
            else:
                # the body gives it another order again: not known
                orders[m.name] = OrderChoice(None, e.order, orders[m.name], f"{m.name!r} "
                                             f"after the loop (it changes with the iteration)",
                                             cx.smap.loc(node))
        env2 = scope.env
        self.define_step(state, members, ends, it, loop)
        # after the loop
        scope.env = dict(env0)
        for name, v in env2.items():
            if name not in env0 or (env0[name] is not v and name not in names):
                scope.env[name] = LoopVarDone(name, array=isinstance(v, (Arr, ArrayExpr)))
        cx.epoch += 1
        views = {m.name: _member_view(cx, state, m, node, None, ir.Mod(T, ir.index(2)),
                                      order=orders[m.name])
                 for m in members}
        for n in rot.write_backs(written_names):
            final = rot.final(n, views, T)
            write(self.bld, destination(self.bld, env0[n], [], node),
                  lambda p, f=final: f.elem(p), node)
        for m in members:
            final = views[m.name]
            if m.obj is not None:
                write(self.bld, destination(self.bld, m.obj, [], node),
                      lambda p, f=final: f.elem(p), node)
            else:
                arr = self.bld.array_code.materialize(final, m.name, node)
                self.bld.arrays.name_array(arr, m.name)
                if rot.may_hold_exposed(m.name):
                    rot.refuse_writes(arr, m.name, names, env0)
                    rot.alternatives(arr, m.name, env0, T)
                scope.env[m.name] = arr
        scope.env[loop.name] = LoopVarDone(loop.name)

    def run_phases(self, env0, names, loop):
        """The loop in phase mode (carried_phases.py), where the body makes
        array values the recurrence cannot hold (a reduction); where that
        fails too and no name carries an array, False: the loop's stores
        may compile as updates over the region and the loop
        (array_store_loops.py)."""
        cx, scope, node = self.cx, self.scope, self.node
        rebound = [n for n in names if n in _rebound(node)]
        promoted = {}
        try:
            while True:
                try:
                    machine, carried, env2, objects, (rot, written) = carried_phases.run_phases(
                        self, node, loop, env0, rebound, self.scalars, promoted)
                    break
                except TypeChange as e:
                    # a Python float the body makes a NumPy float (same bits):
                    # again with it of that type after the first iteration
                    scope.env = dict(env0)
                    if e.member.name in promoted or e.member.name not in self.scalars:
                        raise
                    promoted[e.member.name] = e.ty
        except FrontendError:
            scope.env = env0
            if names or self.scalars or has_blocks(node, id(node) in cx.block_nests):
                raise
            return False
        scope.env = dict(env0)
        for name, v in env2.items():
            if name not in env0 or (env0[name] is not v and name not in carried):
                scope.env[name] = self.done(name, array=isinstance(v, (Arr, ArrayExpr)))
        cx.epoch += 1
        for arr, m in objects:
            final = machine.view(m, node)
            write(self.bld, destination(self.bld, arr, [], node),
                  lambda p, f=final: f.elem(p), node)
        T = self.trip(loop)
        views = {name: machine.view(m, node) for name, (m, a) in carried.items()
                 if a is not None}
        for n in rot.write_backs(written):
            write(self.bld, destination(self.bld, env0[n], [], node),
                  lambda p, f=rot.final(n, views, T): f.elem(p), node)
        for name, (m, _) in carried.items():
            if not m.shape and name in self.scalars:
                scope.env[name] = machine.scalar_view(m) if name not in promoted else \
                    after_loop(cx, machine, m, promoted[name], T)
                continue
            arr = self.bld.array_code.materialize(machine.view(m, node), name, node)
            self.bld.arrays.name_array(arr, name)
            if rot.may_hold_exposed(name):
                rot.refuse_writes(arr, name, rebound, env0)
                rot.alternatives(arr, name, env0, T)
            scope.env[name] = arr
        scope.env[loop.name] = self.done(loop.name)
        return None

    # members ------------------------------------------------------------------------------
    def slot_names(self, env0):
        out = []
        for n in carried(self.node, self.runner.live):
            if n == self.node.target.id:
                continue
            cur = env0.get(n)
            if isinstance(cur, (Arr, ArrayExpr)):
                out.append(n)
                continue
            if cur is None or not isinstance(cur, Val):
                raise self.err(f"{n!r} is first given a value in this loop, which carries "
                               f"arrays from one iteration to the next, and read in a later "
                               f"iteration or after the loop",
                               hint=f"give {n} an array value before the loop")
            self.scalars.append(n)      # carried by phase mode (carried_phases.py)
        return out

    def check_aliases(self, env0, env1, names, objects):
        ends = {}
        for n in names:
            v = env1.get(n)
            if not isinstance(v, (Arr, ArrayExpr)):
                raise self.err(f"{n!r} names an array before this loop and "
                               f"{self.bld.exprs.describe_obj(v)} after its body",
                               hint="keep the name bound to an array of the same shape")
            obj = base_of(v)
            if obj in objects or id(obj) in ends:
                other = ends.get(id(obj))
                raise self.err(f"after this loop's body, {n!r} names the same array as "
                               f"{other!r}" if other else
                               f"after this loop's body, {n!r} names an array the loop writes",
                               hint=f"bind {n} to a copy ({n} = x.copy())")
            ends[id(obj)] = n

    def members(self, env0, names, objects):
        out = []
        ac = self.bld.array_code
        for obj in objects:
            if obj.ty.is_complex():
                raise self.err(f"the complex array {obj.name!r} is carried from one iteration "
                               f"to the next: not supported yet")
            out.append(SimpleNamespace(obj=obj, name=obj.name, ty=obj.ty, shape=obj.shape,
                                       init=ac.view_of(obj, self.node)))
        for n in names:
            a = ac.as_array(env0[n], self.node)
            if a.ty.is_complex():
                raise self.err(f"the complex array {n!r} is carried from one iteration to the "
                               f"next: not supported yet")
            out.append(SimpleNamespace(obj=None, name=n, ty=a.ty, shape=self.rot.shape(
                self.cx, n, a.shape, out, self.node), init=a))
        nd = len(out[0].shape)
        if any(len(m.shape) != nd for m in out):
            raise self.err(f"the arrays this loop carries ({', '.join(x.name for x in out)}) "
                           f"do not all have the same number of dimensions: not supported yet",
                           hint="carry arrays of one shape")
        # the state's box: the largest size along each axis; an axis whose
        # sizes are not provably equal reads each member clamped into its own
        self.box, self.ragged = [], []
        for k in range(nd):
            sizes = [m.shape[k] for m in out]
            size = index_param(self.cx, sizes[0], f"{self.cx.smap.loc(self.node)}: the size of "
                                                  f"an array this loop carries", checked=False)
            n = cast(ir.INDEX, ops.node_of(self.cx, size))
            if all(same_size(self.cx, sizes[0], q) for q in sizes[1:]):
                self.box.append(n)
                continue
            for q in sizes[1:]:
                n = ir.Max(n, cast(ir.INDEX, ops.node_of(self.cx, q)))
            self.box.append(n)
            self.ragged.append(k)
        for k, m in enumerate(out):
            m.index = k
        return out

    # the state Func ----------------------------------------------------------------------
    def define_init(self, members, env0):
        cx, emitter = self.cx, self.bld.emitter
        nd = len(members[0].shape)
        label = "_".join(m.name for m in members) + "_steps"
        state = emitter.new_func(label)
        dummy = SimpleNamespace(ndim=nd + 1)
        vars_ = [self.bld.defs.axis_var(dummy, k) for k in range(nd + 1)]
        idx = [v.node for v in vars_[1:]]
        cx.cur_node = self.node
        values = [element_node(cx, m.init.elem(self.clamped(m, idx)), m.ty) for m in members]
        emitter.define(state, tuple(reversed(vars_)), tuple(values), [], None,
                       cx.smap.loc(self.node), pure=True, label=label)
        self.bld.defs.mark_emitted(values, state)
        it = ir.Variable(ir.INDEX, fresh("iteration"))
        return state, vars_, it

    def end_value(self, body, m, loop):
        """The member's value at the end of the body (an ArrayExpr, in the
        memory order NumPy gives it)."""
        cx = self.cx
        if m.obj is not None:
            return body.contents[m.obj]
        v = self.bld.array_code.as_array(self.scope.env[m.name], self.node)
        if v.ty != m.ty:
            raise self.err(f"{m.name!r} is {m.ty.describe()} before this loop and "
                           f"{v.ty.describe()} after its body: an array carried by a loop keeps "
                           f"its dtype", hint="convert with .astype(...)")
        if len(v.shape) != len(m.shape) or not all(
                same_size(cx, p, q) or may_equal(cx, p, q) and
                check_kept_size(cx, loop, m.name, p, q, self.node)
                for p, q in zip(v.shape, m.shape)):
            raise self.err(f"{m.name!r} has another shape after this loop's body than before "
                           f"the loop", hint="keep the carried arrays' shapes")
        out = freeze(cx, v, self.node)
        out.order = k_order(v)
        return out

    def define_step(self, state, members, ends, it, loop):
        cx = self.cx
        nd = len(members[0].shape)
        T = self.trip(loop)
        bounds = [(ir.index(0), self.box[k]) for k in reversed(range(nd))] + [(ir.index(0), T)]
        rdom = RDom([(Expr.wrap(lo), Expr.wrap(ext)) for lo, ext in bounds],
                    f"r_{state.name()}")
        r = [rdom[i].node for i in range(nd + 1)]
        idx = list(reversed(r[:nd]))
        t = r[nd]
        cx.cur_node = self.node
        subst = {it.name: t, loop.var.name: ir.Add(cast(ir.INDEX, ops.node_of(cx, loop.start)),
                                                  ir.Mul(ir.index(loop.step), t))}
        values = [ir.substitute(element_node(cx, e.elem(self.clamped(m, idx)), m.ty), subst)
                  for m, e in zip(members, ends)]
        left = [k for n in values for k in ir.free_vars(n) if k.startswith("%")]
        if left:
            raise self.err("this loop's body uses a value this form of loop cannot compute yet",
                           hint="compute it before the loop")
        if not self.ragged:
            # the members keep their values outside one region: the step runs over it
            # (carried_region.py)
            step = region_step(values, members, state.name(), r[:nd], t,
                               ir.Mod(t, ir.index(2)))
            if step is not None:
                region, values = step
                box = [(ir.index(0), self.box[k]) for k in reversed(range(nd))]
                bounds = [(lo, ext) if b is None else _within(lo, ext, b)
                          for (lo, ext), b in zip(box, region)] + [(ir.index(0), T)]
                rdom = RDom([(Expr.wrap(lo), Expr.wrap(ext)) for lo, ext in bounds],
                            f"r_{state.name()}")
                values = [ir.substitute(v, {p.name: rdom[k].node for k, p in enumerate(r)})
                          for v in values]
                r = [rdom[i].node for i in range(nd + 1)]
                t = r[nd]
        key = tuple(Expr.wrap(n) for n in r[:nd]) + \
            (Expr.wrap(ir.Mod(ir.Add(t, ir.index(1)), ir.index(2))),)
        self.bld.defs.mark_emitted(values, state)
        self.bld.emitter.define(state, key, tuple(values), [], rdom, cx.smap.loc(self.node),
                                label=state.name())
        if cx.scheduled is False and nd:
            vectorize_step(state.update(len(state.function().updates) - 1), r[0].name, values,
                           state.name(), t, [v.type for v in values])

    def clamped(self, m, idx):
        """idx clamped into member m's own shape along the axes where the
        members' sizes may differ."""
        out = list(idx)
        for k in self.ragged:
            n = cast(ir.INDEX, ops.node_of(self.cx, m.shape[k]))
            out[k] = ir.Max(ir.Min(out[k], ir.Sub(n, ir.index(1))), ir.index(0))
        return out

    def trip(self, loop):
        cx = self.cx
        start = cast(ir.INDEX, ops.node_of(cx, loop.start))
        stop = cast(ir.INDEX, ops.node_of(cx, loop.stop))
        k = loop.step
        span = ir.Sub(stop, start) if k > 0 else ir.Sub(start, stop)
        return ir.Max(ir.Div(ir.Add(span, ir.index(abs(k) - 1)), ir.index(abs(k))),
                      ir.index(0))


def _within(lo, ext, bound):
    """(min, extent) of the part of [lo, lo + ext) within bound = (low or
    None, high (exclusive) or None)."""
    a, b = bound
    new_lo = lo if a is None else ir.Max(lo, a)
    hi = ir.Add(lo, ext) if b is None else ir.Min(ir.Add(lo, ext), b)
    return new_lo, ir.Max(ir.Sub(hi, new_lo), ir.index(0))


def _entry_objects(env) -> dict:
    out = {}
    for v in env.values():
        b = base_of(v)
        if isinstance(b, Arr):
            out[id(b)] = b
            for part in getattr(b, "parts", lambda: ())():
                out[id(part)] = part    # a complex array is carried as its two parts
    return out


def _member_view(cx, state, m, node, it, slot=None, order=None) -> ArrayExpr:
    """Member m of STATE at the slot of iteration `it` (or at `slot`), in
    NumPy's memory order `order` (None: C)."""
    s = slot if slot is not None else ir.Mod(it, ir.index(2))

    def elem(idx):
        ref = state[tuple(Expr.wrap(n) for n in reversed(idx)) + (Expr.wrap(s),)]
        node = ref[m.index].node if len(ref) > 1 else ref.node
        return with_type_range(Val(node, m.ty))
    return ArrayExpr(m.shape, m.ty, elem, node, order=order)



def _rebound(loop) -> set:
    """The names the loop's body binds (`x = ...`, `a, b = ...`)."""
    out = set()
    for s in loop.body:
        for n in ast.walk(s):
            if isinstance(n, ast.Assign):
                for t in n.targets:
                    for x in ast.walk(t):
                        if isinstance(x, ast.Name) and isinstance(x.ctx, ast.Store):
                            out.add(x.id)
    return out
