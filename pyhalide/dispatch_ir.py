"""The LLVM IR of a compiled call entry (dispatch.py): a CPython
METH_FASTCALL function `ptr pyhalide_dispatch(ptr self, ptr args, i64 nargs)`
that checks the arguments of one remembered call key, allocates the outputs,
runs the kernel and builds the result, or returns the MISS object (a new
reference) for the general path.

    entry_ir(layout) -> IR text

`layout` (dispatch.Layout) fixes the structure: per argument its kind, per
kernel buffer and param where its value comes from, the result's shape.
Every value (type and dtype objects, shapes, strides, geometry rows, the
kernel's and the C API functions' addresses, static param values) is read
from the entry's block of int64 slots, whose address `self` (a ctypes
array) holds at offset 16, so one IR text serves every call key of the same
layout (it is compiled once per process; dispatch.py keeps the engines).

Object layouts (checked by dispatch.py's probes before anything is built):
ob_type at 8; PyFloatObject's value and a NumPy scalar's value at 16;
PyArrayObject's data 16, nd 24, dimensions 32, strides 40, descr 56,
flags 64 (NPY_ARRAY_ALIGNED 0x100, NPY_ARRAY_WRITEABLE 0x400); PyListObject's ob_item 24.
"""
from __future__ import annotations

__all__ = ["entry_ir", "ENTRY"]

ENTRY = "pyhalide_dispatch"

_ALIGNED = 0x100
_WRITEABLE = 0x400
_PTR_TYPES = {1: "i8", 2: "i16", 4: "i32", 8: "i64"}


class _Emitter:
    """Lines of one function body with fresh value names."""

    def __init__(self):
        self.lines = []
        self.n = 0

    def tmp(self) -> str:
        self.n += 1
        return f"%t{self.n}"

    def __call__(self, text: str):
        self.lines.append("  " + text)

    def label(self, name: str):
        self.lines.append(f"{name}:")

    def slot_ptr(self, k: int) -> str:
        p = self.tmp()
        self(f"{p} = getelementptr i64, ptr %blk, i64 {k}")
        return p

    def slot(self, k: int, ty: str = "i64") -> str:
        p = self.slot_ptr(k)
        v = self.tmp()
        self(f"{v} = load {ty}, ptr {p}")
        return v

    def field(self, obj: str, offset: int, ty: str) -> str:
        p = self.tmp()
        self(f"{p} = getelementptr i8, ptr {obj}, i64 {offset}")
        v = self.tmp()
        self(f"{v} = load {ty}, ptr {p}")
        return v

    def check(self, cond: str):
        """Continue where `cond` holds, else go to %miss."""
        self.n += 1
        ok = f"ok{self.n}"
        self(f"br i1 {cond}, label %{ok}, label %miss")
        self.label(ok)

    def equal(self, a: str, b: str, ty: str = "i64"):
        c = self.tmp()
        self(f"{c} = icmp eq {ty} {a}, {b}")
        self.check(c)

    def call(self, fn_slot: int, ret: str, args: str) -> str:
        fn = self.slot(fn_slot, "ptr")
        if ret == "void":
            self(f"call void {fn}({args})")
            return ""
        v = self.tmp()
        self(f"{v} = call {ret} {fn}({args})")
        return v


def _arguments(e: _Emitter, layout) -> tuple[dict, dict]:
    """Check every argument; return (position -> the object, position -> the
    data pointer of an array or the value of a scalar, by its IR type)."""
    objs, values = {}, {}
    for i, arg in enumerate(layout.args):
        p = e.tmp()
        e(f"{p} = getelementptr ptr, ptr %args, i64 {i}")
        o = e.tmp()
        e(f"{o} = load ptr, ptr {p}")
        objs[i] = o
        if arg.kind == "object":                 # None, a function: that very object
            e.equal(o, e.slot(arg.slots["object"], "ptr"), "ptr")
            continue
        e.equal(e.field(o, 8, "ptr"), e.slot(arg.slots["type"], "ptr"), "ptr")
        if arg.kind == "array":
            e.equal(e.field(o, 56, "ptr"), e.slot(arg.slots["descr"], "ptr"), "ptr")
            e.equal(e.field(o, 24, "i32"), str(arg.ndim), "i32")
            dims = e.field(o, 32, "ptr")
            strides = e.field(o, 40, "ptr")
            for k in range(arg.ndim):
                for base, name in ((dims, "shape"), (strides, "strides")):
                    q = e.tmp()
                    e(f"{q} = getelementptr i64, ptr {base}, i64 {k}")
                    v = e.tmp()
                    e(f"{v} = load i64, ptr {q}")
                    e.equal(v, e.slot(arg.slots[name] + k))
            flags = e.field(o, 64, "i32")
            a = e.tmp()
            e(f"{a} = and i32 {flags}, {_ALIGNED}")
            c = e.tmp()
            e(f"{c} = icmp ne i32 {a}, 0")
            e.check(c)
            values[i] = e.field(o, 16, "ptr")
        elif arg.kind == "bool":
            if "key" in arg.slots:
                e.equal(o, e.slot(arg.slots["key"], "ptr"), "ptr")
        elif arg.kind == "int":
            cell = e.tmp()
            e(f"{cell} = alloca i32")
            e(f"store i32 0, ptr {cell}")
            v = e.call(layout.fns["PyLong_AsLongLongAndOverflow"], "i64",
                       f"ptr {o}, ptr {cell}")
            over = e.tmp()
            e(f"{over} = load i32, ptr {cell}")
            e.equal(over, "0", "i32")        # the general path raises OverflowError
            values[i] = v
            if "key" in arg.slots:
                e.equal(v, e.slot(arg.slots["key"]))
            if "lo" in arg.slots:                # a param's range (else the Python check)
                for op, bound in (("sge", "lo"), ("sle", "hi")):
                    c = e.tmp()
                    e(f"{c} = icmp {op} i64 {v}, {e.slot(arg.slots[bound])}")
                    e.check(c)
        else:                                    # a Python float or a NumPy scalar
            ty = _PTR_TYPES[arg.itemsize]
            v = e.field(o, 16, ty)
            values[i] = v
            if "key" in arg.slots:
                wide = v
                if ty != "i64":
                    wide = e.tmp()
                    e(f"{wide} = zext {ty} {v} to i64")
                e.equal(wide, e.slot(arg.slots["key"]))
    return objs, values


def _written_checks(e: _Emitter, layout, objs, values):
    """Each written argument (dispatch_written.py) is writeable and its
    bytes meet no other array argument's, else %miss."""
    for w in layout.written:
        flags = e.field(objs[w.arg], 64, "i32")
        a = e.tmp()
        e(f"{a} = and i32 {flags}, {_WRITEABLE}")
        c = e.tmp()
        e(f"{c} = icmp ne i32 {a}, 0")
        e.check(c)
        lo, hi = _span(e, values[w.arg], w.span)
        for j, span in w.others:
            lo_j, hi_j = _span(e, values[j], span)
            c1, c2, meet = e.tmp(), e.tmp(), e.tmp()
            e(f"{c1} = icmp slt i64 {lo}, {hi_j}")
            e(f"{c2} = icmp slt i64 {lo_j}, {hi}")
            e(f"{meet} = and i1 {c1}, {c2}")
            apart = e.tmp()
            e(f"{apart} = xor i1 {meet}, true")
            e.check(apart)


def _span(e: _Emitter, data: str, slot: int) -> tuple[str, str]:
    """The byte range [lo, hi) of an array whose data pointer is `data`
    and whose span around it is in slots `slot`, `slot + 1`."""
    p = e.tmp()
    e(f"{p} = ptrtoint ptr {data} to i64")
    lo, hi = e.tmp(), e.tmp()
    e(f"{lo} = add i64 {p}, {e.slot(slot)}")
    e(f"{hi} = add i64 {p}, {e.slot(slot + 1)}")
    return lo, hi


def _copy_back(e: _Emitter, layout, objs, outs):
    """The written arguments' final values into the caller's arrays; a
    failure (none is expected: same shape and dtype) releases the outputs
    and returns NULL with NumPy's exception set."""
    for w in layout.written:
        if w.in_place:
            continue
        rc = e.call(layout.fns["PyArray_CopyInto"], "i32", f"ptr {objs[w.arg]}, ptr {outs[w.output]}")
        c = e.tmp()
        e(f"{c} = icmp eq i32 {rc}, 0")
        e.n += 1
        ok, bad = f"copied{e.n}", f"notcopied{e.n}"
        e(f"br i1 {c}, label %{ok}, label %{bad}")
        e.label(bad)
        for o in outs:
            e.call(layout.fns["Py_DecRef"], "void", f"ptr {o}")
        e("ret ptr null")
        e.label(ok)


def _globals(e: _Emitter, layout):
    """Each global the code read is the object it was (PyCellObject's
    contents at offset 16; a dictionary entry, NULL when absent)."""
    for kind, slots in layout.globals:
        if kind == "cell":
            now = e.field(e.slot(slots["cell"], "ptr"), 16, "ptr")
        else:
            now = e.call(layout.fns["PyDict_GetItemWithError"], "ptr",
                         f"ptr {e.slot(slots['dict'], 'ptr')}, ptr {e.slot(slots['name'], 'ptr')}")
        e.equal(now, e.slot(slots["value"], "ptr"), "ptr")


def _outputs(e: _Emitter, layout, objs) -> list:
    """Allocate the output arrays (PyArray_Empty steals its dtype's reference:
    one is added first), or take a reference to the argument an output is
    computed in (in place); on failure release those made and return NULL."""
    outs = []
    for j, out in enumerate(layout.outputs):
        if out.arg is not None:
            e.call(layout.fns["Py_IncRef"], "void", f"ptr {objs[out.arg]}")
            outs.append(objs[out.arg])
            continue
        descr = e.slot(out.slots["descr"], "ptr")
        e.call(layout.fns["Py_IncRef"], "void", f"ptr {descr}")
        dims = e.slot_ptr(out.slots["shape"])
        o = e.call(layout.fns["PyArray_Empty"], "ptr",
                   f"i32 {out.ndim}, ptr {dims}, ptr {descr}, i32 0")
        c = e.tmp()
        e(f"{c} = icmp eq ptr {o}, null")
        e(f"br i1 {c}, label %nomem{j}, label %made{j}")
        e.label(f"nomem{j}")
        for prev in outs:
            e.call(layout.fns["Py_DecRef"], "void", f"ptr {prev}")
        e("ret ptr null")
        e.label(f"made{j}")
        outs.append(o)
    return outs


def _kernel_args(e: _Emitter, layout, values, outs) -> tuple[str, str]:
    """The kernel's argument array and error array (both on the stack)."""
    nb, np_ = len(layout.buffers), len(layout.params)
    kargs = e.tmp()
    e(f"{kargs} = alloca [{2 * nb + np_ + 1} x ptr]")

    def put(k, v):
        p = e.tmp()
        e(f"{p} = getelementptr ptr, ptr {kargs}, i64 {k}")
        e(f"store ptr {v}, ptr {p}")
    for b, buf in enumerate(layout.buffers):
        if buf.source == "arg":
            data = values[buf.index]
        elif buf.source == "part":               # .real / .imag of a complex argument
            data = e.tmp()
            e(f"{data} = getelementptr i8, ptr {values[buf.index]}, i64 {buf.offset}")
        elif buf.source == "output":
            data = e.field(outs[buf.index], 16, "ptr")
        else:                                    # the check images' zero buffer
            data = e.slot(buf.slots["data"], "ptr")
        put(2 * b, data)
        put(2 * b + 1, e.slot(buf.slots["geometry"], "ptr"))
    for j, par in enumerate(layout.params):
        if par.source == "arg":
            cell = e.tmp()
            e(f"{cell} = alloca i64")
            ty = layout.args[par.index]
            if getattr(par, "single", False):    # a Float(32) param of a Python float
                d, f = e.tmp(), e.tmp()
                e(f"{d} = bitcast i64 {values[par.index]} to double")
                e(f"{f} = fptrunc double {d} to float")
                e(f"store float {f}, ptr {cell}")
            else:
                e(f"store {_value_type(ty)} {values[par.index]}, ptr {cell}")
        else:                                    # a static value, in the block
            cell = e.slot_ptr(par.slots["value"])
        put(2 * nb + j, cell)
    err = e.tmp()
    e(f"{err} = alloca [{layout.err_slots + 2} x i64]")
    e(f"store i64 0, ptr {err}")
    forward = e.tmp()           # err[FORWARD_SLOT] (codegen_llvm: CANCEL_SLOT + 1)
    e(f"{forward} = getelementptr i64, ptr {err}, i64 {layout.err_slots + 1}")
    e(f"store i64 {e.slot(layout.slots['forward'])}, ptr {forward}")
    put(2 * nb + np_, err)
    return kargs, err


def _value_type(arg) -> str:
    if arg.kind == "int":
        return "i64"
    return _PTR_TYPES[arg.itemsize]


def _cancel_flag(e: _Emitter, layout) -> str:
    """A stack cell holding the address of the call's cancel flag: the SIGINT
    flag (cleared) for a call from the main thread while the Python handler
    is the one interrupt.py saw (else the call goes to the general path,
    which installs its handler again), or a flag nothing sets. Emitted
    before anything is allocated (a miss here releases nothing)."""
    f = layout.fns
    s = layout.slots
    cell = e.tmp()
    e(f"{cell} = alloca ptr")
    e(f"store ptr {e.slot_ptr(s['never'])}, ptr {cell}")
    tid = e.call(f["PyThread_get_thread_ident"], "i64", "")
    main = e.tmp()
    e(f"{main} = load i64, ptr {e.slot(s['main_thread'], 'ptr')}")
    c = e.tmp()
    e(f"{c} = icmp eq i64 {tid}, {main}")
    e(f"br i1 {c}, label %main, label %other")
    e.label("main")
    getsignal = e.slot(s["getsignal"], "ptr")
    sigint = e.slot_ptr(s["sigint"])
    h = e.call(f["PyObject_Vectorcall"], "ptr", f"ptr {getsignal}, ptr {sigint}, i64 1, ptr null")
    e.call(f["Py_DecRef"], "void", f"ptr {h}")      # (only compared; NULL is ignored)
    e.equal(h, e.slot(s["seen"], "ptr"), "ptr")
    flag = e.slot(s["flag"], "ptr")
    c2 = e.tmp()
    e(f"{c2} = icmp ne ptr {flag}, null")
    e(f"br i1 {c2}, label %armed, label %other")
    e.label("armed")
    e(f"store i64 0, ptr {flag}")
    e(f"store ptr {flag}, ptr {cell}")
    e("br label %other")
    e.label("other")
    return cell


def _ensure_threads(e: _Emitter, layout) -> None:
    """Call parallel_runtime.ensure_threads (slot "threads"); NULL (its
    ValueError for a thread count it refuses) is returned as the call's.
    Emitted before anything is allocated."""
    f = layout.fns
    fn = e.slot(layout.slots["threads"], "ptr")
    r = e.call(f["PyObject_Vectorcall"], "ptr", f"ptr {fn}, ptr null, i64 0, ptr null")
    c = e.tmp()
    e(f"{c} = icmp eq ptr {r}, null")
    e(f"br i1 {c}, label %threads_failed, label %threads_ok")
    e.label("threads_failed")
    e("ret ptr null")
    e.label("threads_ok")
    e.call(f["Py_DecRef"], "void", f"ptr {r}")


def _result(e: _Emitter, layout, objs, outs, node) -> str:
    """A new reference to the result `node` (dispatch.Result)."""
    f = layout.fns
    if node.kind == "tuple":
        t = e.call(f["PyTuple_New"], "ptr", f"i64 {len(node.items)}")
        for k, item in enumerate(node.items):
            v = _result(e, layout, objs, outs, item)
            e.call(f["PyTuple_SetItem"], "i32", f"ptr {t}, i64 {k}, ptr {v}")
        return t
    if node.kind == "call":
        n = len(node.items)
        cell = e.tmp()
        e(f"{cell} = alloca [{n} x ptr]")
        items = []
        for k, item in enumerate(node.items):
            v = _result(e, layout, objs, outs, item)
            p = e.tmp()
            e(f"{p} = getelementptr ptr, ptr {cell}, i64 {k}")
            e(f"store ptr {v}, ptr {p}")
            items.append(v)
        r = e.call(f["PyObject_Vectorcall"], "ptr",
                   f"ptr {e.slot(node.slot, 'ptr')}, ptr {cell}, i64 {n}, ptr null")
        for v in items:
            e.call(f["Py_DecRef"], "void", f"ptr {v}")
        return r               # NULL when it raised: the entry returns it (the whole result)
    if node.kind in ("output", "arg", "object"):
        o = outs[node.index] if node.kind == "output" else \
            objs[node.index] if node.kind == "arg" else e.slot(node.slot, "ptr")
        e.call(f["Py_IncRef"], "void", f"ptr {o}")
        return o
    if node.kind == "union":
        cell = e.tmp()
        e(f"{cell} = alloca ptr")
        e.n += 1
        end = f"u{e.n}end"
        for k, (test, alt) in enumerate(node.items):
            if test is not None:
                data = e.field(outs[test], 16, "ptr")
                v = e.tmp()
                e(f"{v} = load i8, ptr {data}")
                c = e.tmp()
                e(f"{c} = icmp ne i8 {v}, 0")
                e(f"br i1 {c}, label %u{e.n}a{k}, label %u{e.n}n{k}")
                here = e.n
                e.label(f"u{here}a{k}")
                e(f"store ptr {_result(e, layout, objs, outs, alt)}, ptr {cell}")
                e(f"br label %{end}")
                e.label(f"u{here}n{k}")
            else:
                e(f"store ptr {_result(e, layout, objs, outs, alt)}, ptr {cell}")
                e(f"br label %{end}")
                break
        e.label(end)
        r = e.tmp()
        e(f"{r} = load ptr, ptr {cell}")
        return r
    data = e.field(outs[node.index], 16, "ptr")
    if node.kind == "np":
        return e.call(f["PyArray_Scalar"], "ptr",
                      f"ptr {data}, ptr {e.slot(node.slot, 'ptr')}, ptr {outs[node.index]}")
    if node.kind == "float":
        v = e.tmp()
        e(f"{v} = load double, ptr {data}")
        return e.call(f["PyFloat_FromDouble"], "ptr", f"double {v}")
    if node.kind == "int":
        v = e.tmp()
        e(f"{v} = load i64, ptr {data}")
        return e.call(f["PyLong_FromLongLong"], "ptr", f"i64 {v}")
    assert node.kind == "bool", node.kind
    v = e.tmp()
    e(f"{v} = load i8, ptr {data}")
    c = e.tmp()
    e(f"{c} = icmp ne i8 {v}, 0")
    t, fl = e.slot(layout.slots["true"], "ptr"), e.slot(layout.slots["false"], "ptr")
    o = e.tmp()
    e(f"{o} = select i1 {c}, ptr {t}, ptr {fl}")
    e.call(f["Py_IncRef"], "void", f"ptr {o}")
    return o


def entry_ir(layout) -> str:
    """The IR text of the entry of `layout` (see the module docstring)."""
    e = _Emitter()
    f = layout.fns
    e.label("entry")
    blk_at = e.tmp()
    e(f"{blk_at} = getelementptr i8, ptr %self, i64 16")
    e(f"%blk = load ptr, ptr {blk_at}")
    e.equal("%nargs", str(len(layout.args)))
    objs, values = _arguments(e, layout)
    _written_checks(e, layout, objs, values)
    _globals(e, layout)
    if "stamp" in layout.slots:                 # the edit stamp is the object it was
        items = e.field(e.slot(layout.slots["stamp_list"], "ptr"), 24, "ptr")
        now = e.tmp()
        e(f"{now} = load ptr, ptr {items}")
        e.equal(now, e.slot(layout.slots["stamp"], "ptr"), "ptr")
    if "kernel" not in layout.slots:           # no kernel: the result of the arguments
        e(f"ret ptr {_result(e, layout, objs, [], layout.result)}")
        return _entry_text(e, layout)
    if "threads" in layout.slots:            # a parallel kernel: the pool sized first
        _ensure_threads(e, layout)
    flag = _cancel_flag(e, layout)
    outs = _outputs(e, layout, objs)
    kargs, err = _kernel_args(e, layout, values, outs)
    cancel = e.tmp()
    e(f"{cancel} = getelementptr i64, ptr {err}, i64 {layout.err_slots}")
    f_at = e.tmp()
    e(f"{f_at} = load ptr, ptr {flag}")
    e(f"store ptr {f_at}, ptr {cancel}")
    state = e.call(f["PyEval_SaveThread"], "ptr", "")
    rc = e.call(layout.slots["kernel"], "i32", f"ptr {kargs}")
    e.call(f["PyEval_RestoreThread"], "void", f"ptr {state}")
    c = e.tmp()
    e(f"{c} = icmp eq i32 {rc}, 0")
    e(f"br i1 {c}, label %done, label %failed")
    e.label("failed")                        # the general path runs it again and reports
    for o in outs:
        e.call(f["Py_DecRef"], "void", f"ptr {o}")
    sig = e.call(f["PyErr_CheckSignals"], "i32", "")
    c2 = e.tmp()
    e(f"{c2} = icmp eq i32 {sig}, 0")
    e(f"br i1 {c2}, label %miss, label %raised")
    e.label("raised")
    e("ret ptr null")
    e.label("done")
    _copy_back(e, layout, objs, outs)
    r = _result(e, layout, objs, outs, layout.result)
    for o in outs:
        e.call(f["Py_DecRef"], "void", f"ptr {o}")
    e(f"ret ptr {r}")
    return _entry_text(e, layout)


def _entry_text(e: _Emitter, layout) -> str:
    """The entry's IR text: its body and the miss block the checks jump to."""
    e.label("miss")
    miss = e.slot(layout.slots["miss"], "ptr")
    e.call(layout.fns["Py_IncRef"], "void", f"ptr {miss}")
    e(f"ret ptr {miss}")
    body = "\n".join(e.lines)
    return (f"define ptr @{ENTRY}(ptr %self, ptr %args, i64 %nargs) {{\n{body}\n}}\n")
