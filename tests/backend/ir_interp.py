"""A small interpreter of the scalar loop IR that the per-pass tests build
by hand: runs a Stmt on Python ints and logs every store, so a pass's
output can be compared with its input store by store."""
from pyhalide import ir
from pyhalide.lowering.constant_fold import euclid_div, euclid_mod

_BIN = {ir.Add: lambda a, b: a + b, ir.Sub: lambda a, b: a - b, ir.Mul: lambda a, b: a * b,
        ir.Div: euclid_div, ir.Mod: euclid_mod, ir.Min: min, ir.Max: max,
        ir.LT: lambda a, b: a < b, ir.LE: lambda a, b: a <= b, ir.GT: lambda a, b: a > b,
        ir.GE: lambda a, b: a >= b, ir.EQ: lambda a, b: a == b, ir.NE: lambda a, b: a != b,
        ir.And: lambda a, b: a and b, ir.Or: lambda a, b: a or b}


def ev(e, env, mem):
    if isinstance(e, ir.Const):
        return e.value
    if isinstance(e, ir.Variable):
        return env[e.name]
    if isinstance(e, ir.Load):
        i = ev(e.index, env, mem)
        data = mem[e.name]
        if not 0 <= i < len(data):
            raise IndexError(f"{e.name}[{i}] read outside [0, {len(data)})")
        return data[i]
    if isinstance(e, ir.Not):
        return not ev(e.a, env, mem)
    if isinstance(e, ir.Cast):
        return ev(e.value, env, mem)          # (integer casts that widen)
    if isinstance(e, ir.Select) or ir.is_lazy_select(e):
        cond, a, b = (e.condition, e.true_value, e.false_value) if isinstance(e, ir.Select) \
            else e.args
        return ev(a, env, mem) if ev(cond, env, mem) else ev(b, env, mem)
    if isinstance(e, ir.Call) and e.call_type == ir.INTRINSIC and e.name == "likely":
        return ev(e.args[0], env, mem)
    return _BIN[type(e)](ev(e.a, env, mem), ev(e.b, env, mem))


def run(s, env, mem, log):
    if isinstance(s, ir.Block):
        for x in s.stmts:
            run(x, env, mem, log)
    elif isinstance(s, ir.For):
        lo, ext = ev(s.min, env, mem), ev(s.extent, env, mem)
        for i in range(lo, lo + ext):
            run(s.body, {**env, s.name: i}, mem, log)
    elif isinstance(s, ir.IfThenElse):
        if ev(s.condition, env, mem):
            run(s.then_case, env, mem, log)
        elif s.else_case is not None:
            run(s.else_case, env, mem, log)
    elif isinstance(s, ir.LetStmt):
        run(s.body, {**env, s.name: ev(s.value, env, mem)}, mem, log)
    elif isinstance(s, ir.Store):
        log.append((s.name, ev(s.index, env, mem), ev(s.value, env, mem)))
    else:
        raise NotImplementedError(type(s).__name__)
