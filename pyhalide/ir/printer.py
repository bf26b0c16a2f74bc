"""The one IR printer: deterministic, Halide-like text for Exprs and Stmts."""
from __future__ import annotations

from . import nodes as N


def _const(c: N.Const) -> str:
    t = c.type
    if t.is_bool():
        return "true" if c.value else "false"
    if t.is_float():
        v = c.value
        s = repr(v) if v == v and v not in (float("inf"), float("-inf")) else \
            ("nan" if v != v else ("inf" if v > 0 else "-inf"))
        return s + ("f" if t.bits == 32 else "")
    if t.is_int() and t.bits == 32:
        return str(c.value)
    return f"({t}){c.value}"


def expr_to_str(e) -> str:
    return ExprPrinter().p(e)


class ExprPrinter:
    """Expressions as text (`p(e)`), memoized per printer; subclasses may
    override `p` to keep their memo (lowering/linear.py's atom keys)."""

    def __init__(self):
        self.memo = {}

    def p(self, e) -> str:
        if e is None:
            return "<none>"
        key = id(e)
        s = self.memo.get(key)
        if s is None:
            s = self._p(e)
            self.memo[key] = s
        return s

    def _p(self, e) -> str:
        p = self.p
        if isinstance(e, N.Const):
            return _const(e)
        if isinstance(e, N.Variable):
            return e.name
        if isinstance(e, N.Cast):
            return f"{e.type}({p(e.value)})"
        if isinstance(e, (N.Min, N.Max)):
            return f"{e.op_symbol}({p(e.a)}, {p(e.b)})"
        if isinstance(e, N.BinaryOp):
            return f"({p(e.a)} {e.op_symbol} {p(e.b)})"
        if isinstance(e, N.Not):
            return f"!{p(e.a)}"
        if isinstance(e, N.BitNot):
            return f"~{p(e.a)}"
        if isinstance(e, N.Select):
            return f"select({p(e.condition)}, {p(e.true_value)}, {p(e.false_value)})"
        if isinstance(e, N.Call):
            args = ", ".join(p(a) for a in e.args)
            name = e.name
            if e.call_type == N.FUNC and e.value_index:
                return f"{name}({args})[{e.value_index}]"
            if e.call_type == N.IMAGE and e.value_index:
                name = f"{name}.{e.value_index}"
            return f"{name}({args})"
        if isinstance(e, N.Let):
            return f"(let {e.name} = {p(e.value)} in {p(e.body)})"
        if isinstance(e, N.Load):
            return f"{e.name}[{p(e.index)}]"
        if isinstance(e, N.Ramp):
            return f"ramp({p(e.base)}, {p(e.stride)}, {e.lanes})"
        if isinstance(e, N.Broadcast):
            return f"x{e.lanes}({p(e.value)})"
        if isinstance(e, N.VectorReduce):
            return f"vector_reduce_{e.op}({p(e.value)})" + (f"x{e.lanes}" if e.lanes > 1 else "")
        raise TypeError(f"cannot print {type(e).__name__}")


def stmt_to_str(s, indent: int = 0) -> str:
    out: list = []
    ep = ExprPrinter()
    _print_stmt(s, indent, out, ep.p)
    return "".join(out)


def _print_stmt(s, ind, out, p):
    pad = "  " * ind
    if s is None:
        return
    if isinstance(s, N.Block):
        for x in s.stmts:
            _print_stmt(x, ind, out, p)
    elif isinstance(s, N.For):
        out.append(f"{pad}{s.kind} for ({s.name}, {p(s.min)}, {p(s.extent)}) {{\n"
                   if s.kind != N.ForKind.SERIAL else
                   f"{pad}for ({s.name}, {p(s.min)}, {p(s.extent)}) {{\n")
        _print_stmt(s.body, ind + 1, out, p)
        out.append(f"{pad}}}\n")
    elif isinstance(s, N.LetStmt):
        out.append(f"{pad}let {s.name} = {p(s.value)}\n")
        _print_stmt(s.body, ind, out, p)
    elif isinstance(s, N.AssertStmt):
        args = "".join(", " + p(a) for a in s.args)
        out.append(f"{pad}assert({p(s.condition)}, {s.error}: {s.message!r}{args})\n")
    elif isinstance(s, N.Provide):
        vals = ", ".join(p(v) for v in s.values)
        if len(s.values) > 1:
            vals = "{" + vals + "}"
        out.append(f"{pad}{s.name}({', '.join(p(a) for a in s.args)}) = {vals}\n")
    elif isinstance(s, N.Store):
        out.append(f"{pad}{s.name}[{p(s.index)}] = {p(s.value)}\n")
    elif isinstance(s, N.Realize):
        types = ", ".join(str(t) for t in s.types)
        bounds = ", ".join(f"[{p(r.min)}, {p(r.extent)}]" for r in s.bounds)
        out.append(f"{pad}realize {s.name}({bounds}) : {types} {{\n")
        _print_stmt(s.body, ind + 1, out, p)
        out.append(f"{pad}}}\n")
    elif isinstance(s, N.Allocate):
        ext = " * ".join(p(e) for e in s.extents) or "1"
        reuse = "" if s.reuse_if is None else f" in {s.reuse} if {p(s.reuse_if)}"
        out.append(f"{pad}allocate {s.name}[{s.type} * {ext}]{reuse}\n")
        _print_stmt(s.body, ind, out, p)
        out.append(f"{pad}free {s.name}\n")
    elif isinstance(s, N.IfThenElse):
        out.append(f"{pad}if ({p(s.condition)}) {{\n")
        _print_stmt(s.then_case, ind + 1, out, p)
        if s.else_case is not None:
            out.append(f"{pad}}} else {{\n")
            _print_stmt(s.else_case, ind + 1, out, p)
        out.append(f"{pad}}}\n")
    elif isinstance(s, N.LoopExit):
        out.append(f"{pad}exit loop {s.loop}\n")
    elif isinstance(s, N.Evaluate):
        out.append(f"{pad}{p(s.value)}\n")
    elif isinstance(s, N.ProducerConsumer):
        out.append(f"{pad}{'produce' if s.is_producer else 'consume'} {s.name} {{\n")
        _print_stmt(s.body, ind + 1, out, p)
        out.append(f"{pad}}}\n")
    else:
        raise TypeError(f"cannot print {type(s).__name__}")


def to_str(n) -> str:
    if isinstance(n, N.Stmt):
        return stmt_to_str(n)
    return expr_to_str(n)


def function_to_str(fn) -> str:
    """A Function's definitions, Halide style, with RDoms, predicates, the
    stage schedules and source lines."""
    ep = ExprPrinter()
    p = ep.p
    lines = []
    for i, d in enumerate(fn.definitions()):
        args = ", ".join(p(a) for a in d.args)
        vals = ", ".join(p(v) for v in d.values)
        if len(d.values) > 1:
            vals = "{" + vals + "}"
        head = "" if i == 0 else f"update({i - 1}): "
        text = f"{head}{fn.name}({args}) = {vals}"
        if d.schedule.rvars:
            rdom = ", ".join(f"{rv.name} in [{p(rv.min)}, {p(rv.min)} + {p(rv.extent)})"
                             for rv in d.schedule.rvars)
            text += f"  over {rdom}"
        if d.predicates:
            text += "  where " + " && ".join(p(c) for c in d.predicates)
        if d.exit is not None:
            text += f"  exit when {p(d.exit)}"
        if d.source is not None:
            text += f"    # {d.source.file}:{d.source.line}"
        lines.append(text)
        dims = ", ".join(f"{x.var}" + (f":{x.kind}" if x.kind != "serial" else "")
                         for x in d.schedule.dims)
        lines.append(f"    loops (innermost first): {dims}")
    level = fn.schedule.compute_level
    if level is not None:
        lines.append(f"    compute_at: {level}")
    return "\n".join(lines) + "\n"
