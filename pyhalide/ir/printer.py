"""The one IR printer: deterministic, Halide-like text for Exprs and Stmts."""
from __future__ import annotations

from . import nodes as N
from .mutator import children
from .types import Float

_FLOAT32 = Float(32)


def _const(c: N.Const) -> str:
    t = c.type
    if t.is_bool():
        return "true" if c.value else "false"
    if t.is_float():
        v = c.value
        if v != v or v in (float("inf"), float("-inf")):
            s = "nan" if v != v else ("inf" if v > 0 else "-inf")
        else:
            s = _shortest_float32(v) if t.bits == 32 else repr(v)
        return s + ("f" if t.bits == 32 else "")
    if t.is_int() and t.bits == 32:
        return str(c.value)
    return f"({t}){c.value}"


def _shortest_float32(v: float) -> str:
    """The shortest decimal text that reads back as the float32 value v."""
    for digits in range(1, 10):
        shorter = float(f"{v:.{digits}g}")
        if N.round_to_float(_FLOAT32, shorter) == v:
            return repr(shorter)
    return repr(v)


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


# A subexpression used more than once in one printed line and larger than this
# many nodes is printed once, as `let _sharedN = ...` before the line: lowered
# code shares subtrees (a DAG), and printing them as a tree can take
# exponential space.
_SHARED_NODES = 100


class _LinePrinter(ExprPrinter):
    """An ExprPrinter for the expressions of one line: the large subtrees they
    share are named (`lets`, in definition order), each printed once."""

    def __init__(self, exprs):
        super().__init__()
        self.shared = _large_shared(exprs)
        self.lets = []

    def p(self, e) -> str:
        if e is None or id(e) not in self.shared:
            return super().p(e)
        name = self.memo.get(id(e))
        if name is None:
            text = self._p(e)
            name = f"_shared{len(self.lets)}"
            self.lets.append((name, text))
            self.memo[id(e)] = name
        return name


def _large_shared(exprs) -> set:
    """Ids of the nodes reached more than once from `exprs` whose tree has
    more than _SHARED_NODES nodes."""
    uses, size = {}, {}
    for root in exprs:
        if root is None:
            continue
        uses[id(root)] = uses.get(id(root), 0) + 1
        if id(root) in size:
            continue
        stack = [(root, False)]
        while stack:                    # post-order: children before parents
            e, done = stack.pop()
            if done:
                size[id(e)] = min(1 + sum(size[id(c)] for c in children(e)), 1 << 40)
                continue
            if id(e) in size:
                continue
            size[id(e)] = 0             # on the stack (a DAG has no cycles)
            stack.append((e, True))
            for c in children(e):
                uses[id(c)] = uses.get(id(c), 0) + 1
                if id(c) not in size:
                    stack.append((c, False))
    return {k for k, n in uses.items() if n > 1 and size[k] > _SHARED_NODES}


def _line(out, pad, exprs, text_of):
    """Append the line `text_of(p)` (p printing `exprs`' nodes), preceded by
    the shared subtrees it names."""
    lp = _LinePrinter(exprs)
    text = text_of(lp.p)
    out.extend(f"{pad}let {name} = {body}\n" for name, body in lp.lets)
    out.append(text)


def stmt_to_str(s, indent: int = 0) -> str:
    out: list = []
    _print_stmt(s, indent, out)
    return "".join(out)


def _print_stmt(s, ind, out):
    pad = "  " * ind
    if s is None:
        return
    if isinstance(s, N.Block):
        for x in s.stmts:
            _print_stmt(x, ind, out)
    elif isinstance(s, N.For):
        head = f"{pad}{s.kind} for" if s.kind != N.ForKind.SERIAL else f"{pad}for"
        _line(out, pad, [s.min, s.extent],
              lambda p: f"{head} ({s.name}, {p(s.min)}, {p(s.extent)}) {{\n")
        _print_stmt(s.body, ind + 1, out)
        out.append(f"{pad}}}\n")
    elif isinstance(s, N.LetStmt):
        _line(out, pad, [s.value], lambda p: f"{pad}let {s.name} = {p(s.value)}\n")
        _print_stmt(s.body, ind, out)
    elif isinstance(s, N.AssertStmt):
        _line(out, pad, [s.condition, *s.args], lambda p: (
            f"{pad}assert({p(s.condition)}, {s.error}: {s.message!r}"
            f"{''.join(', ' + p(a) for a in s.args)})\n"))
    elif isinstance(s, N.Provide):
        def provide(p):
            vals = ", ".join(p(v) for v in s.values)
            if len(s.values) > 1:
                vals = "{" + vals + "}"
            return f"{pad}{s.name}({', '.join(p(a) for a in s.args)}) = {vals}\n"
        _line(out, pad, [*s.values, *s.args], provide)
    elif isinstance(s, N.Store):
        _line(out, pad, [s.index, s.value],
              lambda p: f"{pad}{s.name}[{p(s.index)}] = {p(s.value)}\n")
    elif isinstance(s, N.Realize):
        types = ", ".join(str(t) for t in s.types)
        exprs = [x for r in s.bounds for x in (r.min, r.extent)]
        _line(out, pad, exprs, lambda p: (
            f"{pad}realize {s.name}("
            f"{', '.join(f'[{p(r.min)}, {p(r.extent)}]' for r in s.bounds)}) : {types} {{\n"))
        _print_stmt(s.body, ind + 1, out)
        out.append(f"{pad}}}\n")
    elif isinstance(s, N.Allocate):
        def allocate(p):
            ext = " * ".join(p(e) for e in s.extents) or "1"
            reuse = "" if s.reuse_if is None else f" in {s.reuse} if {p(s.reuse_if)}"
            return f"{pad}allocate {s.name}[{s.type} * {ext}]{reuse}\n"
        _line(out, pad, [*s.extents, s.reuse_if], allocate)
        _print_stmt(s.body, ind, out)
        out.append(f"{pad}free {s.name}\n")
    elif isinstance(s, N.IfThenElse):
        _line(out, pad, [s.condition], lambda p: f"{pad}if ({p(s.condition)}) {{\n")
        _print_stmt(s.then_case, ind + 1, out)
        if s.else_case is not None:
            out.append(f"{pad}}} else {{\n")
            _print_stmt(s.else_case, ind + 1, out)
        out.append(f"{pad}}}\n")
    elif isinstance(s, N.LoopExit):
        out.append(f"{pad}exit loop {s.loop}\n")
    elif isinstance(s, N.Evaluate):
        _line(out, pad, [s.value], lambda p: f"{pad}{p(s.value)}\n")
    elif isinstance(s, N.ProducerConsumer):
        out.append(f"{pad}{'produce' if s.is_producer else 'consume'} {s.name} {{\n")
        _print_stmt(s.body, ind + 1, out)
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
    lines = []
    for i, d in enumerate(fn.definitions()):
        rvars = d.schedule.rvars
        lp = _LinePrinter([*d.args, *d.values, *d.predicates, d.exit,
                           *(x for rv in rvars for x in (rv.min, rv.extent))])
        p = lp.p
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
        lines.extend(f"  let {name} = {body}" for name, body in lp.lets)
        lines.append(text)
        dims = ", ".join(f"{x.var}" + (f":{x.kind}" if x.kind != "serial" else "")
                         for x in d.schedule.dims)
        lines.append(f"    loops (innermost first): {dims}")
    level = fn.schedule.compute_level
    if level is not None:
        lines.append(f"    compute_at: {level}")
    return "\n".join(lines) + "\n"
