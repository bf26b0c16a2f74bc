"""Arrays: creation, element reads and writes, NumPy indexing rules
(negative indices count from the end, anything else out of range is an
IndexError at run time), and the pending writes of one loop iteration."""
from __future__ import annotations

import ast

from pyhalide import ir
from pyhalide.expr import Expr
from pyhalide.simplify import equal_after_simplify, simplify

from . import array_complex, forwarded_reads, ops, unions
from .array_setitem import element_value
from .context import single_aff
from .ranges import Aff
from .slice_dots import REWRITE_MARK
from .values import Arr, Val, fresh, with_type_range
from .write_check_order import value_checks_first


class ArgumentWritten(Exception):
    """The function writes into argument array `name` (raised by the first
    write the build meets when the argument was set up read-only)."""

    def __init__(self, name):
        super().__init__(name)
        self.name = name


class Cell:
    """The pending write of one array location in the current iteration:
    `value` (which may refer to the location's previous value through the
    placeholder `old`) takes effect where `cond` holds."""

    def __init__(self, arr, idx, key, old, loc, pos, chain, axes_raw):
        self.arr = arr
        self.idx = idx            # [int32 index node] NumPy axis order
        self.key = key
        self.old = old            # ir.Variable standing for the previous value
        self.value = None         # Val
        self.cond = None          # bool Val (None: always)
        self.last = None          # (condition parts, value) of the last write, or None
        self.loc = loc
        self.pos_min = self.pos_max = pos
        self.chain = chain        # active loops at the write
        self.axes_raw = axes_raw  # the index Vals before normalization
        self.site = (id(arr), pos)  # the same in the typing pre-pass and the real pass


class ArrayAccess:
    """Array creation, element reads and writes with NumPy's indexing rules.

    An index is proven in range, checked at call time, or checked at run
    time (then clamped into the array by `_clamped`, which reads and writes
    share, so a read finds the pending write of the same element). A write
    becomes a pending Cell of the innermost frame (`state.frames`); the
    frame's cells become definitions when it is flushed (defs).

    Reads `scope` (the condition of the current statement), `state` (the
    active loops and frames); adds call-time checks to `cx`; gives local
    arrays their definitions and versions through `defs`.
    """

    def __init__(self, cx, scope, state, defs):
        self.cx, self.scope, self.state, self.defs = cx, scope, state, defs

    # creation ------------------------------------------------------------------
    def create_array(self, ty, shape, fill, node) -> Arr:
        if ty.is_complex():
            return array_complex.create(self, ty, shape, fill, node)
        if self.state.loops:
            raise self.cx.err(node, "arrays must be created outside loops",
                              hint="create the array before the loop and write its elements "
                                   "inside")
        arr = Arr("array", ty, shape, "local", self.cx.smap.loc(node))
        arr.fill = fill
        for k, s in enumerate(shape):
            f = s.static
            self.cx.static_checks.append(_negative_dim_check(f))
        return arr

    def copy_array(self, src, node) -> Arr:
        if not isinstance(src, Arr):
            raise self.cx.err(node, "copy() needs an array")
        if isinstance(src, array_complex.ComplexArr):
            return array_complex.copy(self, src, node)
        if self.state.loops:
            raise self.cx.err(node, "arrays must be created outside loops")
        arr = Arr("array", src.ty, list(src.shape), "local", self.cx.smap.loc(node))
        self.defs.copy_of[arr] = src
        return arr

    def name_array(self, arr: Arr, name: str):
        if arr.kind == "local" and arr.func is None and arr.name == "array":
            arr.name = name
            arr.py_names = {name}
        arr.py_names.add(name)

    # indexing ------------------------------------------------------------------
    def index_values(self, arr: Arr, idx, node):
        if len(idx) != arr.ndim:
            if len(idx) < arr.ndim:
                raise self.cx.err(node, f"{arr.name!r} has {arr.ndim} dimensions but is indexed "
                                        f"with {len(idx)}: that is a slice",
                                  hint="index every dimension (a[i, j]); slices are not supported")
            raise self.cx.err(node, f"too many indices for array {arr.name!r}: it has {arr.ndim} "
                                    f"dimensions, {len(idx)} were given")
        out = []
        for axis, (v, where) in enumerate(idx):
            if v.union and all(t.is_int() and not t.is_bool() for t in v.types()):
                v = ops.to_python_int(self.cx, v)      # an index means the same in any type
            elif v.ty.is_int() and not v.ty.is_bool() and v.ty.ir().is_uint() and \
                    v.ty.ir().bits == 64:
                # NumPy converts a uint64 index to intp: OverflowError past int64
                v = ops.to_python_int(self.cx, v)
            if not (v.ty.is_int()) or v.ty.is_bool():
                if v.ty.is_bool():
                    raise self.cx.err(where, "boolean indices are masks in NumPy; they are not "
                                             "supported", hint="use an integer index")
                raise self.cx.err(where, f"array indices must be integers, not "
                                         f"{v.ty.describe()}", hint="convert with int(...)")
            out.append(self.to_index(v, arr.shape[axis], axis, arr.name))
        return out

    def to_index(self, v: Val, n: Val, axis=0, name=""):
        """(int32 index node, mode): mode "plain" (always in range), "clamp"
        (in range whenever Python evaluates it; clamped so that evaluating it
        anyway is harmless), "unfollowed" (checked at call time over the
        loops that run, constant along some enclosing loop: an input read with
        it is checked where it happens, so a loop that runs zero times checks
        nothing), or ("check", condition) (checked at run time)."""
        n_node = ops.node_of(self.cx, n)
        if n_node.type != ir.INDEX:
            n_node = ops.cast(ir.INDEX, n_node)
        x = ops.node_of(self.cx, v)
        zero = ir.index(0)
        last = ir.Sub(n_node, ir.index(1))

        def proofs(refined):
            lo = (v.lo is not None and v.lo >= 0) or \
                self.cx.syms.prove_le([Aff.const(0)], v.lbs, refined)
            hi = (v.hi is not None and n.lo is not None and v.hi <= n.lo - 1) or \
                self.cx.syms.prove_le(v.ubs, [l.shift(-1) for l in n.lbs], refined)
            return lo, hi

        lower_ok, upper_ok = proofs(False)
        if lower_ok and upper_ok:
            xi = ops.cast(ir.INDEX, x)
            if _product_of_variables(xi) and not self.cx.typing:
                promised_indices(self.cx)[id(xi)] = (xi, last)
            return xi, "plain"
        if self.scope.unconditional() and not self.cx.typing and \
                self.static_index_check(v, n, axis, name):
            xi = ops.cast(ir.INDEX, x)
            if not lower_ok:
                xi = ir.Max(ir.Min(ir.Select(ir.LT(xi, zero), ir.Add(xi, n_node), xi), last), zero)
            aff = single_aff(v)
            if any(l.sym not in aff.terms for l in self.state.loops):
                # checked at call time over the loops that run; read inside a
                # loop it does not follow (`a[5]`), it must also not be checked
                # statically over loops that run zero times: the compiled
                # read is checked where it happens
                return xi, "unfollowed"
            return xi, "plain"
        if self.scope.unconditional() and self.cx.typing and single_aff(v) is not None:
            return ops.cast(ir.INDEX, x), "plain"
        lo_f, hi_f = proofs(True)
        if lo_f and hi_f:
            xi = ops.cast(ir.INDEX, x)
            return ir.Max(ir.Min(xi, last), zero), "clamp"
        wide = ir.Int(64) if (x.type.bits > 32 or x.type.is_uint() and x.type.bits == 32) \
            else ir.INDEX
        xv = ops.cast(wide, x)
        nv = ops.cast(wide, n_node)
        wzero = ir.Const(wide, 0)
        if lo_f:
            ok = ir.LT(xv, nv)
            norm = xv
        else:
            ok = ir.And(ir.LE(ir.Sub(wzero, nv), xv), ir.LT(xv, nv))
            norm = ir.Select(ir.LT(xv, wzero), ir.Add(xv, nv), xv)
        idx = ops.cast(ir.INDEX, ir.Select(ok, norm, ir.Const(wide, -1)))
        return idx, ("check", ok, xv)

    def static_index_check(self, v, n, axis, name) -> bool:
        aff = single_aff(v)
        if aff is None or not n.is_static:
            return False
        loops = list(self.state.loops)
        if any(l.start.static is None or l.stop.static is None for l in loops):
            return False
        # the carried-array loops (phase mode's) with call-time bounds gate
        # the check too: a loop of no iteration reads nothing, as in Python
        carried = [l for l in self.cx.carried_loops if l not in loops and
                   l.start.static is not None and l.stop.static is not None]
        loop_syms = {l.sym for l in loops}
        if not loops and _runs_every_iteration(self.cx.stmt, self.cx.carried_loops):
            # an index following the loop run in phases, read by a statement of
            # its body that every iteration runs: checked over the loop's range
            loop_syms |= {l.sym for l in carried}
        for s in aff.terms:
            if s not in loop_syms and s not in self.cx.sym_static:
                return False
        loops += carried
        self.cx.static_checks.append(StaticIndexCheck(aff, loops, n, axis, name, self.cx.sym_static,
                                                      self.cx.smap.loc(self.cx.cur_node)))
        return True

    def index_key(self, idx_nodes) -> str:
        """The key of a location by its simplified index: `a[i - i + j]` is
        the location `a[j]` names (a read of it after `a[j] = v` in the
        same iteration reads v)."""
        return "|".join(ir.expr_to_str(simplify(n)) for n in idx_nodes)

    # reads ----------------------------------------------------------------------
    def read(self, arr: Arr, idx, node) -> Val:
        if isinstance(arr, array_complex.ComplexArr):
            return array_complex.read(self, arr, idx, node)
        self.cx.cur_node = node
        items = self.index_values(arr, idx, node)
        nodes = [i for i, _ in items]
        at = self._clamped(arr, items)      # the position a write would record
        risky = any(isinstance(m, tuple) for _, m in items)
        if arr.kind == "input":
            out = self._unless_empty(self.defs.element_call(arr, at, risky=risky), arr, items)
            return self._checked(self._data_range(out), arr, items, "")
        cell = self.find_cell(arr, at)
        if cell is not None:
            return self.cell_value(cell)
        if self.cx.typing:
            v = Val(ir.Variable(arr.ty.ir(), fresh("read")), arr.ty, risky=risky)
            return self._data_range(v)
        self.defs.ensure_defined(arr)
        before = self.before_write(arr, [v for v, _ in idx])
        if before is not None:
            out = Val(_call(before, at), arr.ty)
            return self._checked(self._data_range(out), arr, items, "")
        out = self.defs.element_call(arr, at)
        self.defs.note_read(arr, out.node, nodes)
        return self._checked(self._data_range(self.aliased(arr, at, out)), arr, items, "")

    def before_write(self, arr: Arr, raw):
        """The Func holding arr's value before the running loop nest, when
        this read (at index Vals `raw`) is of a location the nest writes
        only later in the same iteration: every write of arr in the nest is
        at exactly this index, in exactly the running loops, after this
        statement. Each location is then written by its own iteration alone,
        after this read, so Python reads the value from before the nest.
        The nest's writes then go to a new version of arr (made once per
        nest, before the nest reads arr anywhere else), the read to the old
        one. None otherwise."""
        st = self.state
        if arr.kind != "local" or st.nest_id is None or not st.loops:
            return None
        key = (st.nest_id, id(arr))
        if key not in st.snapshots:
            writes = [w for w in st.nest_writes if w.arr is arr]
            syms = [l.sym for l in st.loops]
            if any(ep == self.cx.epoch for ep, _ in self.defs.reads.get(arr, [])):
                return None         # the nest already read the Func its writes update
            # (a complex store writes its parts after reading both: a part
            # read by the store's own value is read before the write too)
            part = getattr(arr, "complex_part", False)
            if not writes or not all([l.sym for l in w.chain] == syms and
                                     (w.pos_min > self.cx.stmt_pos or
                                      (part and w.pos_min == self.cx.stmt_pos)) and
                                     _same_index(w.axes_raw, raw)
                                     for w in writes):
                return None
            if not _one_location_per_iteration(raw, syms):
                return None         # iterations share a location: they read each other's writes
            st.snapshots[key] = (self.defs.new_version(arr), list(raw))
        func, first = st.snapshots[key]
        return func if _same_index(first, raw) else None

    def _clamped(self, arr, items):
        """The index nodes, those checked at run time clamped into the array
        (the check raises before a clamped position could matter)."""
        out = []
        for k, (i, m) in enumerate(items):
            if isinstance(m, tuple):
                n = ops.cast(ir.INDEX, ops.node_of(self.cx, arr.shape[k]))
                out.append(ir.Max(ir.Min(i, ir.Sub(n, ir.index(1))), ir.index(0)))
            elif m == "unfollowed" and arr.kind == "input":
                out.append(ir.Call(ir.INDEX, "likely", (i,), ir.INTRINSIC))
            else:
                out.append(i)
        return out

    def _unless_empty(self, v: Val, arr, items) -> Val:
        """An input read with indices checked at run time, evaluated only
        where each checked axis has an element (lazily; 0 elsewhere): the
        clamped index of an empty axis is outside the array, and its check
        fails wherever Python evaluates the read (`a[mid]` of a binary
        search over an empty `a` is evaluated nowhere). The condition names
        only the array's shape, so bounds inference needs the read from the
        input only where it holds (bounds_inference._StageBounds.parts)."""
        axes = [k for k, (_, m) in enumerate(items) if isinstance(m, tuple)]
        if not self.scope.unconditional():
            # an index in range by the `if`'s facts (`if i < n: a[i]`) is unchecked, but
            # the bounds query sees the read where the `if` does not hold too
            # (mode "clamp" only: a "plain" index is in range by the loops' facts alone,
            # so the loop that reads it runs only where the axis has elements)
            axes += [k for k, (_, m) in enumerate(items) if m == "clamp" and
                     not _positive(arr.shape[k])]
        if not axes or self.cx.typing:
            return v
        conds = [ir.LT(ir.index(0), ops.cast(ir.INDEX, ops.node_of(self.cx, arr.shape[k])))
                 for k in axes]
        zero = ir.Const(v.node.type, False if v.node.type.is_bool() else 0)
        node = ir.lazy_select(ir.conjunction(conds), v.node, zero)
        return Val(node, v.ty, risky=v.risky)

    def _checked(self, v: Val, arr, items, what: str) -> Val:
        """v, raising NumPy's IndexError (index, axis, size) where an index
        checked at run time is out of range, axes in NumPy's order."""
        for axis in reversed(range(len(items))):
            m = items[axis][1]
            if isinstance(m, tuple):
                v = self.cx.guard(v, m[1], "IndexError", f"array {arr.name!r}{what}",
                                  index=(axis, arr.shape[axis], m[2]))
        return v

    def _data_range(self, v: Val) -> Val:
        return with_type_range(v)

    # writes ------------------------------------------------------------------------
    def write(self, arr: Arr, idx, value: Val, node):
        if isinstance(arr, array_complex.ComplexArr):
            return array_complex.write(self, arr, idx, value, node)
        if arr.kind == "input" or arr.writes_refused:
            self.input_written(arr, node)
        self.cx.cur_node = node
        items = self.index_values(arr, idx, node)
        value = element_value(self.cx, value, arr.ty)
        nodes = self._clamped(arr, items)
        plain = value.node
        value = self._checked(value, arr, items, ", assignment")
        if not self.cx.typing:
            value = value_checks_first(value, plain)
            self.defs.version_for_element_write(arr, [ops.node_of(self.cx, value)] + nodes)
        cond = self.scope.current_condition()
        self.record_write(arr, nodes, value, cond, node, [v for v, _ in idx])

    def input_written(self, arr: Arr, node):
        """A write into argument array `arr`, which the build set up read-only:
        ArgumentWritten, on which the specialization is built again with the
        argument a local array copied from it on entry (specialize.py); a
        write into an array that refuses writes, its located error."""
        if arr.writes_refused:
            raise self.cx.err(node, arr.writes_refused[0], hint=arr.writes_refused[1])
        if arr.arg_name is None:
            raise self.cx.err(node, f"{arr.name!r} cannot be written",
                              hint=f"copy it first: out = {arr.name}.copy(), then write into out")
        raise ArgumentWritten(arr.arg_name)

    def store_convert(self, v: Val, ty) -> Val:
        """The value NumPy stores when v is assigned into an array of type ty."""
        if v.union:
            return unions.distribute(self.cx, lambda x: self.store_convert(x, ty), v)
        if v.ty == ty:
            return v
        if v.ty.weak and v.ty.kind == "int" and ty.is_int():
            return ops.convert(self.cx, v, ty, " (assignment into an array)")
        return ops.cast_to(self.cx, v, ty)

    def frame_for_write(self):
        return self.state.frames[-1]

    def record_write(self, arr, nodes, value: Val, cond, node, raw):
        frame = self.frame_for_write()
        key = (id(arr), self.index_key(nodes))
        cell = frame.cells.get(key)
        pos = self.cx.stmt_pos
        if cell is None:
            other = next((c for c in frame.cells.values() if c.arr is arr and c.key != key and
                          not _disjoint(c.idx, nodes)), None)
            if other is not None:
                more = _swap_context(self.state.loops, cond)
                err = self.cx.err(node, f"{arr.name!r} is written at two different positions in "
                                        f"one loop body (also at line {other.loc.line}){more}",
                                  hint="write each array at one index expression per loop "
                                       "iteration, or split the loop")
                err.nest = self.state.nest_id      # (specialize._build: phase mode)
                raise err
            old = ir.Variable(arr.ty.ir(), fresh(f"old:{arr.name}"))
            cell = Cell(arr, nodes, key, old, self.cx.smap.loc(node), pos, list(self.state.loops),
                        raw)
            frame.cells[key] = cell
            frame.order.append(key)
            prev = Val(old, arr.ty)
            cell.cond = cond
        else:
            prev = cell.value
            cell.pos_max = pos
            cell.cond = None if (cond is None or cell.cond is None) else \
                self.cx.logical_or(cell.cond, cond)
        cell.value = value if cond is None else ops.select(self.cx, cond, value, prev)
        cell.last = (self.scope.condition_parts(), value)
        if frame.top:
            self.defs.flush_frame(frame)

    def aliased(self, arr, at, v: Val) -> Val:
        """v (arr's element at index nodes `at` as it was before this
        iteration's writes), or, where a location of arr written earlier in
        this iteration under another index expression may be the same one
        at run time (`a[j] = ...; a[k]`), the value written there when the
        indices are equal (Python's order: the read sees the write)."""
        if self.cx.typing or not self.state.loops:
            return v
        for frame in self.state.frames:
            for key in frame.order:
                c = frame.cells.get(key)
                if c is None or c.arr is not arr or c.idx is None or len(c.idx) != len(at) \
                        or _never_equal(c.idx, at):
                    continue
                w = self.cell_value(c)
                if w.union or v.union or w.ty != v.ty:
                    continue
                same = ir.conjunction([ir.EQ(ops.cast(ir.INDEX, a), ops.cast(ir.INDEX, b))
                                       for a, b in zip(c.idx, at)])
                v = Val(ir.lazy_select(same, w.node, v.node), v.ty, risky=v.risky or w.risky)
        return v

    def find_cell(self, arr, nodes):
        key = (id(arr), self.index_key(nodes))
        for frame in reversed(self.state.frames):
            c = frame.cells.get(key)
            if c is not None:
                return c
        return None

    def cell_value(self, cell) -> Val:
        """The value of a location written earlier in this iteration. Where
        the conditions of the last write hold at the read too, that write's
        value (the read's value only matters where the read's condition
        holds: every effect of a statement is predicated on it)."""
        v = cell.value
        if cell.last is not None:
            parts, written = cell.last
            now = self.scope.condition_parts()
            if all(any(p is q for q in now) for p in parts):
                v = written
        if not self._mentions(v.node, cell.old.name):
            return self._forwarded(cell, v)
        before = None if self.cx.typing else \
            self.state.snapshots.get((self.state.nest_id, id(cell.arr)))
        if self.cx.typing:
            prev = Val(ir.Variable(cell.arr.ty.ir(), fresh("read")), cell.arr.ty)
        elif before is not None:
            # the location's value before this iteration's first write: the
            # value before the nest (before_write)
            prev = Val(_call(before[0], cell.idx), cell.arr.ty)
        else:
            self.defs.ensure_defined(cell.arr)
            prev = self.defs.element_call(cell.arr, cell.idx)
            self.defs.note_read(cell.arr, prev.node, cell.idx)
        out = Val(ir.substitute(v.node, {cell.old.name: prev.node}), v.ty, risky=v.risky)
        return self._forwarded(cell, self._data_range(out))

    def _forwarded(self, cell, v: Val) -> Val:
        """v, or, where it reads an array the nest writes, a placeholder
        resolved per definition (forwarded_reads.py) with its read of the
        cell recorded here."""
        st = self.state
        if self.cx.typing or st.nest_id is None or \
                not forwarded_reads.reads_written(v.node, st.nest_writes):
            return v
        self.defs.ensure_defined(cell.arr)
        call = self.defs.element_call(cell.arr, cell.idx).node
        self.defs.note_read(cell.arr, call, cell.idx)
        name = forwarded_reads.new_name(cell.arr.name)
        self.defs.forwards[name] = (cell.arr, call, v.node)
        return Val(ir.Variable(v.node.type, name), v.ty, risky=v.risky)

    def _mentions(self, node, name) -> bool:
        return name in ir.free_vars(node)


def promised_indices(cx) -> dict:
    """The indices to_index proved in [0, last] that multiply two variables
    (the sieve's `i * i + k * i`), which the lowering cannot bound: id ->
    (node, last). An element write at one is emitted at flat_index(node,
    0, last) (defs.emit_cell), which promises that range to bounds
    inference: no run-time check of the access."""
    out = getattr(cx, "promised_indices", None)
    if out is None:
        out = cx.promised_indices = {}
    return out


def promised_last(cx, node):
    """The last position index `node` is promised to be within, where it
    is a promised index (promised_indices), else None."""
    hit = getattr(cx, "promised_indices", {}).get(id(node))
    return None if hit is None or hit[0] is not node else hit[1]


def _product_of_variables(e) -> bool:
    todo = [e]
    while todo:
        n = todo.pop()
        if isinstance(n, ir.Mul) and ir.free_vars(n.a) and ir.free_vars(n.b):
            return True
        todo.extend(ir.children(n))
    return False


def _same_index(a, b) -> bool:
    """Two index tuples (Vals as written, before normalization) that are
    the same integers: equal nodes or equal constants (None: a region
    store's, the same as none)."""
    if a is None or b is None or len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if x.is_const and y.is_const:
            if x.const != y.const:
                return False
        elif x.node is None or y.node is None or not equal_after_simplify(x.node, y.node):
            return False
    return True


def _one_location_per_iteration(raw, syms) -> bool:
    """Whether the index (Vals as written) names a different location in
    each iteration of the loops `syms`: every loop's symbol, alone or plus a
    constant, is the index of its own axis."""
    axes = set()
    for sym in syms:
        k = next((k for k, v in enumerate(raw) if _sym_plus_const(v, sym)), None)
        if k is None or k in axes:
            return False
        axes.add(k)
    return True


def _sym_plus_const(v: Val, sym) -> bool:
    aff = single_aff(v)
    return aff is not None and aff.terms == {sym: 1}


def _call(func, idx_nodes) -> ir.Expr:
    """func[idx] (NumPy axis order) as an IR call."""
    args = tuple(Expr.wrap(n) for n in reversed(idx_nodes))
    ref = func[args] if args else func[()]
    return ref.node if len(ref) == 1 else ref[0].node


def _never_equal(a, b) -> bool:
    """Two index tuples that differ in some axis by a nonzero constant
    (or are the same location: found by key)."""
    for x, y in zip(a, b):
        d = simplify(ir.Sub(ops.cast(ir.INDEX, x), ops.cast(ir.INDEX, y)))
        if isinstance(d, ir.Const):
            if d.value != 0:
                return True
    return False


def _disjoint(a, b) -> bool:
    """Two index tuples that can never name the same element (a constant
    index differing in some axis)."""
    for x, y in zip(a, b):
        if isinstance(x, ir.Const) and isinstance(y, ir.Const) and x.value != y.value:
            return True
    return False


class StaticIndexCheck:
    """At call time: every index an unconditional, affine read or write makes
    over the (non-empty) loop box lies in [-n, n - 1] (NumPy's IndexError)."""

    def __init__(self, aff, loops, size, axis, name, sym_static, loc=None):
        self.aff, self.loops, self.size = aff, loops, size
        self.axis, self.name, self.sym_static = axis, name, sym_static
        self.loc = loc

    def __call__(self, env):
        box = {}
        for l in self.loops:
            r = range(l.start.static(env), l.stop.static(env), l.step)
            if len(r) == 0:
                return
            box[l.sym] = (min(r[0], r[-1]), max(r[0], r[-1]))
        lo = hi = self.aff.c
        for s, k in self.aff.terms.items():
            if s in box:
                a, b = box[s]
            else:
                a = b = self.sym_static[s](env)
            lo += k * (a if k > 0 else b)
            hi += k * (b if k > 0 else a)
        n = self.size.static(env)
        for idx in (lo, hi):
            if not -n <= idx < n:
                where = f"; {self.loc.file}:{self.loc.line}" if self.loc is not None else ""
                raise IndexError(f"index {idx} is out of bounds for axis {self.axis} with size "
                                 f"{n} (array {self.name!r}{where})")


def _negative_dim_check(f):
    def check(env):
        if f(env) < 0:
            raise ValueError("negative dimensions are not allowed")
    return check


def _swap_context(loops, cond) -> str:
    """Why a loop writing one array at two positions per iteration did not
    run in phase mode (carried_arrays.applies: a top-level loop, or a loop
    whose whole body is one inner loop, its `if`s without else holding
    element writes and tuple assignments only), as the end of the refusal."""
    body = loops[-1].node.body if loops else []
    nested = any(isinstance(n, (ast.For, ast.While)) for st in body for n in ast.walk(st))
    perfect = len(loops) == 2 and len(loops[0].node.body) == 1 and \
        loops[0].node.body[0] is loops[1].node
    why = [w for w, c in (("it is inside a loop that holds other statements",
                           len(loops) > 1 and not perfect),
                          ("the loop holds another loop and other statements", nested))
           if c]
    if not why and cond is not None:
        why = ["the `if` around the writes holds other statements or an else"]
    if not why:
        return ""
    return (f": element swaps (writes at several positions per iteration) compile in a loop, "
            f"or a loop whose whole body is one inner loop, under `if`s (without else) holding "
            f"only element writes and tuple assignments; here {' and '.join(why)} (not "
            f"supported yet)")


def _positive(size: Val) -> bool:
    """Whether an axis size is known to be at least 1."""
    return size.lo is not None and size.lo >= 1


def _runs_every_iteration(stmt, carried) -> bool:
    """Whether stmt is a statement of the body of the one loop run in
    phases (not under an `if` or an inner loop; the guard `if` of a slice
    rewrite, known when the function is compiled, is entered), in a body
    that no `break`, `continue`, `return` or `try` leaves early. A `raise`
    ends the call: a call-time check failing for a later iteration leaves
    the choice of the error to the plain function (check_order)."""
    if len(carried) != 1 or stmt is None:
        return False
    body = getattr(carried[0].node, "body", None) or []
    if not any(st is stmt for st in _every_iteration(body)):
        return False
    return not any(_exits(st) for st in body)


def _every_iteration(stmts):
    """stmts, and those of the branches of the slice rewrites' guards."""
    for st in stmts:
        yield st
        if isinstance(st, ast.If) and getattr(st, REWRITE_MARK, False):
            yield from _every_iteration(st.body + st.orelse)


def _exits(node, inner=False) -> bool:
    """Whether node holds what leaves the loop's iteration early without
    an exception (`break` and `continue` of an inner loop, `inner`, excepted)."""
    if isinstance(node, (ast.Return, ast.Try)) or \
            isinstance(node, (ast.Break, ast.Continue)) and not inner:
        return True
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
        return False
    loop = isinstance(node, (ast.For, ast.While))
    return any(_exits(c, inner or loop) for c in ast.iter_child_nodes(node))
