"""Halide's small helpers, with Halide 21's Python names and semantics:
vars, funcs, lambda_func, lerp, mux, evaluate, StmtOutputFormat."""
from __future__ import annotations

import enum
import html

from . import ir
from .errors import CompileError
from .expr import Expr, cast, is_python_number, match, select, to_node
from .func import Func
from .source import at, user_location
from .var import Var, unique_name


def vars(names: str) -> tuple:
    """hl.vars("x y c"): one Var per whitespace-separated name."""
    return tuple(Var(n) for n in names.split())


def funcs(names: str) -> tuple:
    """hl.funcs("f g"): one undefined Func per whitespace-separated name."""
    return tuple(Func(n) for n in names.split())


def lambda_func(*args) -> Func:
    """hl.lambda_func(x, y, e): a Func f with f[x, y] = e (e may be a Tuple)."""
    if not args:
        raise TypeError("lambda_func needs the Vars and the value: lambda_func(x, y, e)")
    *vs, value = args
    bad = [v for v in vs if not isinstance(v, Var)]
    if bad:
        raise TypeError(f"lambda_func's arguments before the value must be Vars, got {bad[0]!r}")
    f = Func(unique_name("lambda_"))
    f[tuple(vs)] = value
    return f


def mux(index, values):
    """The element of `values` selected by `index`; an index out of range
    selects the last one (as in Halide). A list of Tuples gives a Tuple."""
    values = list(values)
    if not values:
        raise CompileError(f"mux() needs a non-empty list of values{at(user_location())}")
    if isinstance(values[0], tuple):
        return tuple(mux(index, [v[i] for v in values]) for i in range(len(values[0])))
    if len(values) == 1:
        return values[0] if isinstance(values[0], Expr) else Expr(values[0])
    idx = to_node(index)
    if not idx.type.is_integer():
        raise TypeError(f"mux() index must be an integer, not {idx.type}")
    exprs = [v for v in values if not is_python_number(v)]
    t = to_node(exprs[0]).type if exprs else None
    nodes = [match(v, exprs[0])[0] if t is not None else to_node(v) for v in values]
    if len({n.type for n in nodes}) != 1:
        raise CompileError(f"mux() needs values of one type, got "
                           f"{sorted({str(n.type) for n in nodes})}{at(user_location())}")
    out = Expr.wrap(nodes[-1])
    for i in range(len(nodes) - 2, -1, -1):
        out = select(Expr.wrap(idx) == i, Expr.wrap(nodes[i]), out)
    return out


def _lerp_weight(weight: Expr, ct: ir.Type):
    """(typed_weight, inverse) in the computation type, as Halide's lower_lerp."""
    wt = weight.type()
    if wt.is_float():
        if not ct.is_uint():
            return weight, Expr(ir.Const(ct, 1.0)) - weight
        if ct.bits == 32:
            w = cast(ct, cast(ir.Float(64), 65535.0) * cast(ir.Float(64), 65537.0)
                     * cast(ir.Float(64), weight))
        else:
            w = cast(ct, Expr(ir.Const(ct, ct.max_value())) * weight)
        return w, Expr(ir.Const(ct, ct.max_value())) - w
    if ct.is_float():
        w = cast(ct, weight) / Expr(ir.Const(ct, float(2 ** wt.bits - 1)))
        return w, Expr(ir.Const(ct, 1.0)) - w
    diff = wt.bits - ct.bits
    if diff == 0:
        w = weight
    else:
        left, shift, scale = abs(diff), min(ct.bits, wt.bits), 1
        while left:
            scale += scale << shift
            left -= shift
            shift *= 2
        if diff < 0:
            w = cast(ct, weight) * Expr(ir.Const(ct, scale))
        else:
            w = cast(ct, weight // Expr(ir.Const(wt, scale)))
    return w, cast(ct, Expr(ir.Const(ct, ct.max_value())) - w)


def lerp(zero_val, one_val, weight) -> Expr:
    """Halide's lerp: zero_val*(1-w) + one_val*w; an unsigned weight is a
    fraction of its type's maximum; integer results rounded as Halide does."""
    loc = user_location()
    if isinstance(zero_val, int) and not isinstance(one_val, int):
        zero_val = cast(to_node(one_val).type, zero_val)
    if isinstance(one_val, int) and not isinstance(zero_val, int):
        one_val = cast(to_node(zero_val).type, one_val)
    z, o, w = Expr(zero_val), Expr(one_val), Expr(weight)
    t = z.type()
    if o.type() != t:
        raise CompileError(f"cannot lerp between values of types {t} and {o.type()}{at(loc)}")
    if not (w.type().is_uint() or w.type().is_float()):
        raise CompileError(f"a lerp weight must be an unsigned integer or a float, not "
                           f"{w.type()}{at(loc)}")
    if not t.is_float() and t.bits > 32:
        raise CompileError(f"lerp between 64-bit integers is not supported (as in Halide){at(loc)}")
    if not t.is_float() and isinstance(w.node, ir.Const) and w.type().is_float() \
            and not 0.0 <= w.node.value <= 1.0:
        raise CompileError(f"float weight {w.node.value} for a lerp of integers is not in "
                           f"[0, 1]{at(loc)}")
    if t.is_bool():
        half = 0.5 if w.type().is_float() else w.type().max_value() // 2
        return select(w > half, o, z)
    ct, bias = t, None
    if t.is_int():
        ct = ir.UInt(t.bits)
        bias = Expr(ir.Const(ct, ct.wrap(t.min_value())))
        z, o = cast(ct, z) - bias, cast(ct, o) - bias
    tw, inv = _lerp_weight(w, ct)
    if ct.is_float():
        result = z * inv + o * tw
    else:
        wide = ir.UInt(2 * ct.bits)
        prod = cast(wide, z) * cast(wide, inv) + cast(wide, o) * cast(wide, tw)
        divisor = Expr(ir.Const(wide, ct.max_value()))
        result = (prod + Expr(ir.Const(wide, ct.max_value() // 2))) / divisor
        if w.type().is_float():
            result = cast(ct, result)
    if bias is not None:
        result = cast(t, result + bias)
    return result if result.type() == t else cast(t, result)


def evaluate(e):
    """The value of an Expr (or Tuple) without free variables, computed by
    the JIT: a Python number (a tuple of them for a Tuple)."""
    f = Func(unique_name("evaluate_"))
    f[()] = tuple(e) if isinstance(e, (tuple, list)) else e
    out = f.realize([])
    if isinstance(out, (tuple, list)):
        return tuple(b[()].item() for b in out)
    return out[()].item()


evaluate_may_gpu = evaluate     # no GPU here: the same as evaluate


class StmtOutputFormat(enum.Enum):
    Text = 0
    HTML = 1


def write_lowered_stmt(outputs: list, path, fmt) -> None:
    """compile_to_lowered_stmt's file: the pipeline's lowered code."""
    from .realize import Pipeline
    text = Pipeline(outputs).lower()
    if fmt == StmtOutputFormat.HTML:
        name = ", ".join(f.name() for f in outputs)
        text = (f"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{html.escape(name)}"
                f"</title></head>\n<body><pre>{html.escape(text)}</pre></body></html>\n")
    with open(path, "w") as f:
        f.write(text)

