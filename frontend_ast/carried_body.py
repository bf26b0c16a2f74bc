"""The body of a loop that carries whole arrays (carried_arrays.py), run as
array values: every array the body names, writes or reads back holds, while
the body runs, its current contents as a function of the index (a node over
index placeholders, fixed when the statement that made it runs), so that a
later statement sees what Python sees there and the right side of a store
is evaluated before the store, as NumPy does. Nothing is emitted: the loop
makes one update of its state Func from the contents at the end of the body.

An array's Func is replaced by a `Contents` object while the body runs, so
that every read of the array (also through views made before the loop)
reads the current contents."""
from __future__ import annotations

import ast

from pyhalide import ir
from pyhalide.expr import cast_node as cast
from pyhalide.simplify import simplify

from . import carried_operands, ops
from . import complex_values as C
from .array_complex import ComplexArr
from .array_index import guard, parse
from .array_masks import mask_axis_size
from .array_setitem import element_value, region_value
from .array_store import augmented_operand, destination, fitted, selection_fits
from .arraycode import is_whole_view
from .arrayexpr import ArrayExpr, element_node, same_size
from .values import Arr, TupleVal, Val, fresh, with_type_range

# augmented assignment: the operator
_AUG = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//",
        ast.Mod: "%", ast.Pow: "**", ast.LShift: "<<", ast.RShift: ">>", ast.BitAnd: "&",
        ast.BitOr: "|", ast.BitXor: "^"}

HINT = "compute it before the loop, or write the loop with element assignments (a[i] = ...)"


class Contents:
    """Stands for an array's Func while the body runs: `func[args]` is the
    array's current element there (`frozen` is an ArrayExpr)."""

    def __init__(self, cx, frozen: ArrayExpr):
        self.cx, self.frozen = cx, frozen

    def __getitem__(self, args):
        args = args if isinstance(args, tuple) else (args,)
        idx = [a.node for a in reversed(args)]
        return _Ref(element_node(self.cx, self.frozen.elem(idx), self.frozen.ty))


class _Ref:
    def __init__(self, node):
        self.node = node

    def __len__(self):
        return 1


def frozen(cx, ty, shape, template, p, node) -> ArrayExpr:
    """The ArrayExpr whose element at idx is `template` with the index
    placeholders p replaced by idx."""
    names = [q.name for q in p]

    def elem(idx):
        n = ir.substitute(template, dict(zip(names, idx))) if names else template
        return with_type_range(Val(n, ty))
    return ArrayExpr(shape, ty, elem, node)


def freeze(cx, value: ArrayExpr, node) -> ArrayExpr:
    """value's elements as they are now (later writes to the arrays it
    reads do not change it)."""
    p = [ir.Variable(ir.INDEX, fresh(f"cell{k}")) for k in range(value.ndim)]
    cx.cur_node = node
    n = element_node(cx, value.elem(p), value.ty)
    return frozen(cx, value.ty, value.shape, n, p, node)


class BodyRun:
    """One symbolic run of the body. `contents` maps each array that has
    contents of this run (Arr -> frozen ArrayExpr); `written` holds the
    arrays a store changed; `bld` is the Builder."""

    def __init__(self, bld, loop_node, contents):
        self.bld, self.cx, self.b = bld, bld.cx, bld.exprs
        self.loop_node = loop_node
        self.contents = {}
        self.saved = {}             # Arr -> (func, defined) before the run
        self.written = set()
        self.operands = []          # checks of scalar operands of array code (Vals)
        for arr, value in contents.items():
            self.set(arr, value)

    # contents -----------------------------------------------------------------------------
    def set(self, arr, value: ArrayExpr):
        if arr not in self.saved:
            self.saved[arr] = (arr.func, arr.defined)
        self.contents[arr] = value
        arr.func, arr.defined = Contents(self.cx, value), True

    def restore(self):
        for arr, (func, defined) in self.saved.items():
            arr.func, arr.defined = func, defined

    def run(self, stmts):
        emitter = self.bld.emitter
        new_func = emitter.new_func

        def refused(*a, **k):
            raise self.cx.err(self.cx.cur_node, "this array operation is not supported yet "
                                                "in a loop that carries arrays from one "
                                                "iteration to the next", hint=HINT)
        emitter.new_func = refused
        try:
            for s in stmts:
                self.exec_stmt(s)
        finally:
            emitter.new_func = new_func

    # statements ---------------------------------------------------------------------------
    def exec_stmt(self, s):
        """Statement s, with the checks of its scalar operands of array
        code computed where Python computes them (carried_operands.py)."""
        carried_operands.logged(self, s, lambda: self.run_stmt(s))

    def operands_used(self, s, vals):
        """The checks of s's scalar operands of array code ([(Val, mark)]):
        kept for the step (carried_operands.step_sink)."""
        self.operands.extend(v for v, _ in vals)

    def run_stmt(self, s):
        cx = self.cx
        cx.cur_node, cx.stmt_pos, cx.stmt = s, (s.lineno, s.col_offset), s
        if isinstance(s, ast.Assign):
            value = self.b.ev(s.value)
            for t in s.targets:
                cx.cur_node = s
                self.assign(t, value, s)
        elif isinstance(s, ast.AugAssign):
            self.augassign(s)
        elif isinstance(s, ast.Pass) or (isinstance(s, ast.Expr) and
                                         isinstance(s.value, ast.Constant)):
            pass
        else:
            raise cx.err(s, "this statement is not supported yet in a loop that carries "
                            "arrays from one iteration to the next", hint=HINT)

    def assign(self, target, value, stmt):
        if isinstance(target, ast.Name):
            return self.bind(target.id, value, target)
        if isinstance(target, ast.Tuple) and isinstance(value, TupleVal) and \
                len(value.items) == len(target.elts) and \
                all(isinstance(t, ast.Name) for t in target.elts):
            for t, v in zip(target.elts, value.items):
                self.bind(t.id, v, t)
            return
        if isinstance(target, ast.Subscript):
            return self.store(target, value, stmt)
        raise self.cx.err(stmt, "this assignment is not supported yet in a loop that carries "
                                "arrays from one iteration to the next", hint=HINT)

    def bind(self, name, value, node):
        env = self.bld.scope.env
        if isinstance(value, ArrayExpr) and value.view is not None and is_whole_view(value):
            value = value.view[0]
        if isinstance(value, Arr):
            if value not in self.contents and value.kind == "local" and \
                    not isinstance(value.func, Contents) and not value.defined:
                self.set(value, self.created(value, node))     # np.zeros_like, .copy()
            env[name] = value
        elif isinstance(value, ArrayExpr) and value.view is not None:
            env[name] = value                   # a view keeps aliasing its array
        elif isinstance(value, ArrayExpr):
            if value.ty.is_complex():
                raise self.cx.err(node, "complex arrays are not supported yet in a loop that "
                                        "carries arrays from one iteration to the next")
            arr = Arr(name, value.ty, value.shape, "local", self.cx.smap.loc(node))
            if value.order is not None:
                arr.memory_order = value.order      # NumPy's order of the new array
            self.set(arr, freeze(self.cx, value, node))
            env[name] = arr
        elif isinstance(value, Val) or (isinstance(value, TupleVal) and all(
                isinstance(v, Val) for v in value.items)):
            env[name] = value
        elif isinstance(value, TupleVal) and all(
                isinstance(v, (Val, Arr)) or (isinstance(v, ArrayExpr) and v.view is not None)
                for v in value.items):
            env[name] = value       # a tuple of names' arrays (a helper's `return (H, U)`)
        else:
            raise self.cx.err(node, f"cannot assign {self.b.describe_obj(value)} in a loop that "
                                    f"carries arrays from one iteration to the next", hint=HINT)

    def created(self, arr, node) -> ArrayExpr:
        """The contents of an array created in the body (a copy or a fill)."""
        cx, defs = self.cx, self.bld.defs
        src = defs.copy_of.get(arr)
        if src is not None:
            return freeze(cx, self.bld.array_code.view_of(src, node), node)
        fill = arr.fill
        n = element_node(cx, fill, arr.ty) if fill is not None else ir.Const(arr.ty.ir(), 0)
        return frozen(cx, arr.ty, arr.shape, n, [], node)

    def store(self, target, value, stmt):
        b, bld = self.b, self.bld
        base = b.ev(target.value)
        items = parse(b, target.slice)
        self.plain(items, target)
        dest = destination(bld, base, items, target)
        if isinstance(value, (Arr, ArrayExpr)):
            v = bld.array_code.as_array(value, stmt)
            if dest.mask:
                selection_fits(bld, v.shape, dest.shape, stmt, "assigning")
            return self.write(dest, fitted(bld, v, dest.shape, stmt, False), stmt)
        if isinstance(value, TupleVal):
            raise self.cx.err(stmt, "assigning a tuple into an array is not supported yet in a "
                                    "loop that carries arrays", hint="assign an array value")
        if not isinstance(value, Val):
            raise self.cx.err(stmt, f"cannot assign {b.describe_obj(value)} into an array",
                              hint=b.obj_hint(value))
        self.cx.cur_node = stmt
        nonempty = all(s.lo is not None and s.lo >= 1 for s in dest.shape)
        value = region_value(bld, value, dest.arr.ty, stmt, not dest.injective, nonempty)
        self.write(dest, lambda p: value, stmt)

    def plain(self, items, node):
        """Refuse integer-array indices (a boolean mask is written where it
        holds: `z[m] = z[m] ** 2 + c[m]`, its masked reads element-wise,
        array_masks.py)."""
        bad = next((i for i in items if i.kind == "array"), None)
        if bad is not None:
            raise self.cx.err(bad.node, "assigning through an integer array is not supported "
                                        "yet in a loop that carries arrays from one iteration "
                                        "to the next",
                              hint="use np.where(mask, new, old) for the whole array")

    def augassign(self, s):
        b, bld, cx = self.b, self.bld, self.cx
        op = _AUG[type(s.op)]
        t = s.target
        if isinstance(t, ast.Name):
            base, items = b.ev(t), []
            if isinstance(base, Val):
                rhs = b.ev_val(s.value)
                cx.cur_node = s
                self.bind(t.id, ops.binary(cx, op, base, rhs), t)
                return
        else:
            base, items = b.ev(t.value), parse(b, t.slice)
            self.plain(items, t)
        dest = destination(bld, base, items, t)
        rhs_at = augmented_operand(bld, b.ev(s.value), dest, s)
        # `a[i, j] /= 9.0` with every axis an int index is a scalar read, the
        # operation and a store (NumPy converts the result as `a[i, j] = v`
        # does); a region's in-place operation is a ufunc with out= (a cast
        # back is NumPy's same_kind rule: not compiled here)
        element = bool(items) and all(i.kind == "int" for i in items) and \
            len(items) == getattr(base, "ndim", -1)

        def value(p):
            cx.cur_node = s
            r = rhs_at(p)
            out = ops.binary(cx, op, dest.read(p), r)
            if out.ty != dest.arr.ty and element:
                return element_value(cx, out, dest.arr.ty)
            if out.ty != dest.arr.ty:
                raise cx.err(s, "an augmented assignment that casts its result back into the "
                                "array is not supported yet in a loop that carries arrays",
                             hint="write a = (a op b).astype(a.dtype)")
            return out
        self.write(dest, value, s)

    # writes -------------------------------------------------------------------------------
    def write(self, dest, value, node):
        """The array's contents after `dest = value(p)`: the value where the
        index is in the region (the value read at the region's point there),
        its contents before elsewhere."""
        cx, bld = self.cx, self.bld
        arr = dest.arr
        if isinstance(arr, ComplexArr):
            return self.write_parts(dest, value, node)
        p = [ir.Variable(ir.INDEX, fresh(f"region{k}")) for k in range(len(dest.shape))]
        at, checks = dest.place(p)
        cx.cur_node = node
        v = guard(cx, bld.arrays.store_convert(value(p), arr.ty), checks)
        vnode = ops.node_of(cx, v)
        x = [ir.Variable(ir.INDEX, fresh(f"cell{k}")) for k in range(arr.ndim)]
        inside, at_x, nonempty = self.invert(dest, p, at, x, node)
        if dest.pred is not None:        # a mask: where it selects the element
            sel = ir.substitute(ops.node_of(cx, ops.truth(cx, dest.pred(p))), at_x)
            inside = sel if ir.is_const(inside, True) else ir.And(inside, sel)
        old = element_node(cx, bld.array_code.view_of(arr, node).elem(x), arr.ty)
        new = ir.substitute(vnode, at_x)
        if nonempty is not None:
            # an empty region's clamped point is outside it (reads there may
            # leave the arrays): its value is read only where the region has one
            new = ir.lazy_select(nonempty, new, old)
        if not ir.is_const(inside, True):
            new = ir.Select(inside, new, old)
        self.set(arr, frozen(cx, arr.ty, arr.shape, new, x, node))
        self.written.add(arr)

    def write_parts(self, dest, value, node):
        """A complex array's store: the value computed once, then each part
        (a float array, carried as a member of its own) written with its
        part of it, as array_complex.store does outside such loops."""
        cx, arr = self.cx, dest.arr
        region = [ir.Variable(ir.INDEX, fresh(f"cregion{k}")) for k in range(len(dest.shape))]
        cx.cur_node = node
        parts = C.parts(cx, ops.cast_to(cx, value(region), arr.ty), arr.ty)
        for part, v in zip(arr.parts(), parts):
            n = ops.node_of(cx, v)

            def at(p, n=n, v=v):
                return Val(ir.substitute(n, {r.name: x for r, x in zip(region, p)}), v.ty,
                           risky=v.risky)
            self.write(type(dest)(part, dest.shape, dest.place, dest.injective, dest.pred,
                                  dest.mask, None), at, node)

    def invert(self, dest, p, at, x, node):
        """(whether index x is in the region, {p name: the region point
        there, clamped into the region}, the call-time condition that the
        region is not empty or None for always) for a region whose index
        along each axis is a constant or start + step * one point coordinate."""
        cx = self.cx
        conds, at_x, sizes = [], {}, []
        names = {q.name: j for j, q in enumerate(p)}
        for k, a in enumerate(at):
            a = cast(ir.INDEX, a)
            used = [q for q in p if q.name in ir.free_vars(a)]
            if len(used) > 1:
                raise cx.err(node, "this assignment's region is not supported yet in a loop "
                                   "that carries arrays", hint=HINT)
            if not used:
                conds.append(ir.EQ(x[k], a))
                continue
            atom = used[0]
            rest = simplify(ir.substitute(a, {atom.name: ir.index(0)}))
            c = simplify(ir.Sub(ir.substitute(a, {atom.name: ir.index(1)}), rest))
            if not isinstance(c, ir.Const) or c.value == 0 or not ir.is_const(simplify(
                    ir.Sub(a, ir.Add(rest, ir.Mul(ir.index(c.value), atom)))), 0):
                raise cx.err(node, "this assignment's region is not supported yet in a loop "
                                   "that carries arrays", hint=HINT)
            c = c.value
            j = names[atom.name]
            if c == 1 and ir.is_const(rest, 0) and _whole_axis(cx, dest, j, k):
                at_x[atom.name] = x[k]          # the whole axis
                continue
            d = ir.Sub(x[k], rest)
            n = cast(ir.INDEX, ops.node_of(cx, dest.shape[j]))
            if c == 1:
                q = d
            elif c == -1:
                q = ir.Sub(ir.index(0), d)
            else:
                q = ir.Div(d, ir.index(c))
                conds.append(ir.EQ(ir.Mod(d, ir.index(abs(c))), ir.index(0)))
            conds.append(ir.LE(ir.index(0), q))
            conds.append(ir.LT(q, n))
            at_x[atom.name] = ir.Max(ir.Min(q, ir.Sub(n, ir.index(1))), ir.index(0))
            if not ir.is_const(simplify(ir.GT(n, ir.index(0))), True):
                sizes.append(ir.GT(n, ir.index(0)))
        inside = ir.Const(ir.Bool(), True)
        for c in conds:
            inside = c if isinstance(inside, ir.Const) else ir.And(inside, c)
        return inside, at_x, ir.conjunction(sizes) if sizes else None


def _whole_axis(cx, dest, j, k) -> bool:
    """Whether axis j of the region dest covers, mapped onto axis k of its
    array from index 0 with step 1, is the array's whole axis k: its size
    is the axis's, or it is the selection of a boolean mask along an axis
    of that size (the mask fits its array: checked where it is read)."""
    size = dest.shape[j]
    if same_size(cx, size, dest.arr.shape[k]):
        return True
    axis = mask_axis_size(cx, size) if dest.mask else None
    return axis is not None and same_size(cx, axis, dest.arr.shape[k])


def seen_elsewhere(bld, env, name, skip=()) -> bool:
    """Whether the array `name` holds in env is also seen through another
    name (not in skip), or by the caller (an argument, or its copy that
    the caller sees written)."""
    obj = base_of(env[name])
    others = [k for k, v in env.items() if k != name and k not in skip and
              isinstance(v, (Arr, ArrayExpr)) and base_of(v) is obj]
    return bool(others) or obj.kind != "local" or (obj in bld.defs.copy_of and bool(
        getattr(bld.defs.copy_of[obj], "arg_name", None)))


def base_of(v):
    """The array object a name holds (a view's array)."""
    return v.view[0] if isinstance(v, ArrayExpr) and v.view is not None else v
