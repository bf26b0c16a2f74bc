"""Halide's tracing: `f.trace_stores()`, `f.trace_loads()`,
`f.trace_realizations()`, printed as Halide 21's default trace handler
prints them, by the compiled code under the user's schedule (realization
events: lowering/trace_realizations.py).

While a pipeline with traced Funcs runs, each traced value is wrapped in an
intrinsic `pyhalide.trace.<event>.<value index>.<func>(value, coordinates...)`
that the compiled code evaluates where it stores (or loads) the value: it
calls back into Python (TRACE_SYMBOL, a ctypes callback) with the
coordinates and every lane of the value, and gives the value unchanged.
A Func computed inline has no stores or loads of its own (as in Halide): its
values are not wrapped. The definitions are wrapped only for the run and
restored after it (the reference evaluator and the schedule see the
algorithm as written).

Around the run: "Begin pipeline <output>.0()", one Tag per traced Func in
the order Funcs are realized (producers first) with its types and the
region it was computed over (the span of its traced coordinates), the
events in the order the code produced them (thread order for parallel
loops, as in Halide), "End pipeline <output>.0()". Lines go to stdout after
the run."""
from __future__ import annotations

import ctypes
import json
import re
import struct
import threading
import weakref

from . import ir
from .ir.function import edited
from .ir.mutator import FuncMutator

# Function -> frozenset of its traced events ("store", "load", "realization"),
# held weakly: the tracing state of a Function lives as long as the Function.
# A realize looks only at the Functions of its own pipeline (`traced`,
# `events` in realize.py's function_version), so a traced Func elsewhere in the
# process (or kept in a cache) does not take the fast path from other pipelines.
_TRACED: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()
_UNTRACED = frozenset()
_events: list = []
_spans: dict = {}          # func name -> [[lo, hi] per dimension]
_lock = threading.Lock()
_hook = []                 # the ctypes callback, kept alive
_recording = [False]       # a traced run: prints join the trace
_inside = threading.local()    # run_traced is running in this thread (its realize calls)


def active() -> bool:
    """Whether a traced Function is alive in the process (realize then looks
    at its own Functions with `traced`)."""
    return bool(_TRACED.data)


def events(fn: ir.Function) -> frozenset:
    """The traced events of `fn` (empty when it is not traced). A new
    frozenset at each `trace`: part of the Function's version, so a recorded
    fast call (pyhalide/realize_fast.py) is not reused after a trace call."""
    return _TRACED.get(fn, _UNTRACED) if _TRACED.data else _UNTRACED


def traced(functions) -> bool:
    """Whether any of `functions` is traced."""
    return bool(_TRACED.data) and any(fn in _TRACED for fn in functions)


def recording() -> bool:
    """Whether run_traced is under way in this thread (the realize calls it
    makes are inside it)."""
    return getattr(_inside, "on", False)


def trace(fn: ir.Function, event: str) -> None:
    _TRACED[fn] = events(fn) | {event}
    edited()        # (a recorded fast call compares the Functions again)
    ensure_hook()


# the hook the compiled code calls ------------------------------------------------------
_HOOK_TYPE = ctypes.CFUNCTYPE(None, ctypes.c_char_p, ctypes.c_int32, ctypes.c_int32,
                              ctypes.c_int32, ctypes.POINTER(ctypes.c_int64),
                              ctypes.POINTER(ctypes.c_int64))


def _value_text(bits: int, code: int) -> str:
    kind, width = divmod(code, 1000)
    if kind == 2:
        return "%f" % struct.unpack("<d", struct.pack("<q", bits))[0]
    if kind == 1 and width == 64:
        return str(bits & (2**64 - 1))
    return str(bits)


def _scalar_text(bits: int, type_text: str) -> str:
    t = ir.Type.from_numpy(type_text if type_text != "bool" else "?")
    if t.is_float():
        v = struct.unpack("<d", struct.pack("<q", bits))[0]
        return "%f" % v if t.bits == 32 else "%e" % v
    if t.is_bool():
        return "true" if bits else "false"
    return str(bits & (2**64 - 1)) if t.is_uint() and t.bits == 64 else str(bits)


def _print_lines(event: str, spec: str, lanes: int, cs: list) -> list:
    """hl.print/print_when: one line per lane (where the condition holds)."""
    parts = json.loads(spec)
    n = sum(kind == "v" for kind, _ in parts)
    out = []
    for lane in range(lanes):
        if event == "print_when" and not cs[n * lanes + lane]:
            continue
        vals = iter(cs[d * lanes + lane] for d in range(n))
        out.append(" ".join(text if kind == "s" else _scalar_text(next(vals), text)
                            for kind, text in parts))
    return out


# realization events (lowering/trace_realizations.py): intrinsic name -> Halide's text
_REALIZATION = {"BeginRealization": "Begin realization", "EndRealization": "End realization",
                "Produce": "Produce", "EndProduce": "End produce", "Consume": "Consume",
                "EndConsume": "End consume"}


def _on_realization(event: str, func: str, index: str, cs: list) -> None:
    """A realization event: coordinates are (min, extent) per dimension; the
    boxes make the Func's Tag span as its stores do."""
    with _lock:
        _events.append(f"{_REALIZATION[event]} {func}.{index}({', '.join(map(str, cs))})")
        if event != "BeginRealization":
            return
        boxes = [[lo, lo + extent - 1] for lo, extent in zip(cs[::2], cs[1::2])]
        span = _spans.setdefault(func, boxes)
        for d, (lo, hi) in enumerate(boxes):
            span[d][0], span[d][1] = min(span[d][0], lo), max(span[d][1], hi)


def _on_event(name, code, lanes, n, coords, vals):
    text = name.decode()
    _, _, event, index, func = text.split(".", 4)
    cs = [coords[i] for i in range(n * lanes)]
    if event in _REALIZATION:
        _on_realization(event, func, index, cs)
        return
    if event in ("print", "print_when"):
        lines = _print_lines(event, func, lanes, cs)
        with _lock:
            if _recording[0]:
                _events.extend(lines)      # in order with the trace of the run
                return
        for line in lines:
            print(line)
        return
    vs = [_value_text(vals[i], code) for i in range(lanes)]
    if lanes == 1:
        where, value = ", ".join(map(str, cs)), vs[0]
    else:
        where = ", ".join("<" + ", ".join(map(str, cs[d * lanes:(d + 1) * lanes])) + ">"
                          for d in range(n))
        value = "<" + ", ".join(vs) + ">"
    with _lock:
        _events.append(f"{event} {func}.{index}({where}) = {value}")
        span = _spans.setdefault(func, [[c, c] for c in cs[::lanes]] if lanes else [])
        for d in range(n):
            lane_cs = cs[d * lanes:(d + 1) * lanes]
            span[d][0] = min(span[d][0], *lane_cs)
            span[d][1] = max(span[d][1], *lane_cs)


def ensure_hook() -> None:
    if _hook:
        return
    from llvmlite import binding as llvm

    from .lowering.codegen_ops import TRACE_SYMBOL
    cb = _HOOK_TYPE(_on_event)
    _hook.append(cb)
    llvm.add_symbol(TRACE_SYMBOL, ctypes.cast(cb, ctypes.c_void_p).value)


# wrapping the definitions for a run ------------------------------------------------------
def intrinsic_name(event: str, index: int, func: str) -> str:
    from .lowering.codegen_ops import TRACE_PREFIX
    return f"{TRACE_PREFIX}{event}.{index}.{func}"


def _inlined(fn: ir.Function, outputs: set) -> bool:
    level = fn.schedule.compute_level
    return fn.name not in outputs and not fn.updates and (level is None or level.is_inlined())


def _wrap_stores(fn: ir.Function, saved: list) -> None:
    for d in fn.definitions():
        saved.append((d, d.values))
        d.values = tuple(ir.Call(v.type, intrinsic_name("Store", i, fn.name), (v,) + tuple(d.args),
                                 ir.INTRINSIC) for i, v in enumerate(d.values))


def _wrap_loads(consumer: ir.Function, loaded: set, saved: list) -> None:
    def visit(n):
        if isinstance(n, ir.Call) and n.call_type == ir.FUNC and n.func in loaded:
            inner = ir.Call(n.type, n.name, tuple(m.mutate(a) for a in n.args), ir.FUNC,
                            n.value_index, n.func)
            return ir.Call(n.type, intrinsic_name("Load", n.value_index, n.name), (inner,) + inner.args,
                           ir.INTRINSIC)
        return None

    m = FuncMutator(visit)
    for d in consumer.definitions():
        values = tuple(m.mutate(v) for v in d.values)
        if any(a is not b for a, b in zip(values, d.values)):
            saved.append((d, d.values))
            d.values = values


def _realization_order(env: dict, outputs: list) -> list:
    order, seen = [], set()

    def visit(name):
        if name in seen:
            return
        seen.add(name)
        for d in env[name].definitions():
            for c in ir.find_calls(list(d.values) + list(d.args)):
                if c.call_type == ir.FUNC and c.name in env:
                    visit(c.name)
        order.append(name)

    for o in outputs:
        visit(o)
    return order


_CODE = {"int": 0, "uint": 1, "float": 2, "bool": 1}


def _tag(fn: ir.Function, span) -> str:
    types = " ".join(f"{_CODE[t.code]} {t.bits} {t.lanes}" for t in fn.output_types)
    dims = " ".join(f"{lo} {hi - lo + 1}" for lo, hi in span) if span else \
        " ".join("0 0" for _ in fn.args)
    return (f'Tag {fn.name}.0() tag = "func_type_and_dim: {len(fn.output_types)} {types} '
            f'{len(fn.args)} {dims}"')


def run_traced(outputs: list, run):
    """Run `run()` (the realize of the Funcs `outputs`) with the traced Funcs
    among their producers wrapped; print the trace; restore the definitions."""
    _inside.on = True
    try:
        return _run_traced(outputs, run)
    finally:
        _inside.on = False


def _run_traced(outputs: list, run):
    from .graph import collect_graph
    env = collect_graph([f.function() for f in outputs]).env
    out_names = [f.name() for f in outputs]
    realized = {fn for fn in env.values() if not _inlined(fn, set(out_names))}
    traced = [n for n in _realization_order(env, out_names)
              if env[n] in _TRACED and env[n] in realized]
    if not traced:
        return run()
    saved: list = []
    loaded = {env[n] for n in traced if "load" in _TRACED[env[n]]}
    try:
        if loaded:
            for fn in env.values():
                if fn in realized:
                    _wrap_loads(fn, loaded, saved)
        for n in traced:
            if "store" in _TRACED[env[n]]:
                _wrap_stores(env[n], saved)
        with _lock:
            _events.clear()
            _spans.clear()
            _recording[0] = True
        result = run()
    finally:
        _recording[0] = False
        for d, values in reversed(saved):
            d.values = values
    head = re.sub(r"[^A-Za-z0-9_]", "_", out_names[0]) + ".0()"   # a C name, as Halide's
    with _lock:
        lines = [f"Begin pipeline {head}"] + [_tag(env[n], _spans.get(n)) for n in traced] + \
            _events + [f"End pipeline {head}"]
        _events.clear()
    print("\n".join(lines))
    return result
