"""The length `stop - start` of a slice inside a loop, when it does not
change from one iteration to the next (array_windows.py: a window that
moves with the loop).

The two bounds are evaluated as Python evaluates them; the difference of
their IR nodes (without their run-time checks, which stay on the bounds
themselves), simplified and expanded into a polynomial over the variables
(exact modulo 2**64, as the nodes compute), must not mention a loop
variable, and every variable left in it must have a call-time value (an
argument, an argument's size, a value computed at call time): `x[i*s + off : i*s + off + w.shape[0]]`
and `x[2*i + 1 : k + 1 + i*2]` have the lengths `w.shape[0]` and `k`,
`x[i : 2*i]` none. The length's call-time value is the polynomial
evaluated in Python at call time, wrapped into 64 bits as its node
computes it (array_windows compares it with NumPy's count in 64 bits)."""
from __future__ import annotations

from pyhalide import checks, ir
from pyhalide.expr import cast_node as cast
from pyhalide.simplify import simplify

from . import ops
from .ranges import INT64
from .types import PY_INT
from .values import Val

_I64 = ir.Int(64)


def invariant_length(cx, start: Val, stop: Val, loop_syms) -> Val | None:
    """The Python-int Val of stop - start when it is the same in every
    iteration of the loops (symbols loop_syms) and known at call time, else
    None."""
    if start.static is not None and stop.static is not None:
        return None                     # not a window: an ordinary slice
    (a, b), _ = checks.strip([cast(_I64, ops.node_of(cx, stop)),
                              cast(_I64, ops.node_of(cx, start))])
    # a Python int's node is exact where its checks pass (the frontend
    # picks a type its range fits, or checks): its arithmetic of any width
    # is taken as exact; NumPy integers' wraps, in 64 bits as the ring
    exact = start.ty == PY_INT and stop.ty == PY_INT
    pa, pb = _poly(simplify(a), exact), _poly(simplify(b), exact)
    if pa is None or pb is None:
        return None
    diff = _add(pa, pb, -1)
    names = {x for mono in diff for x in mono}
    if names & set(loop_syms):
        return None
    env_fns = _call_time_values(cx)
    if any(x not in env_fns for x in names):
        return None
    node, types = ir.Const(_I64, 0), {}
    for n in ir.free_vars([a, b]).values():
        types[n.name] = n
    for mono, k in sorted(diff.items()):
        term = ir.Const(_I64, k)
        for x in mono:
            term = ir.Mul(term, cast(_I64, types[x]))
        node = ir.Add(node, term)

    def static(env):
        total = 0
        for mono, k in diff.items():
            for x in mono:
                k *= int(env_fns[x](env))
            total += k
        return (total + 2**63) % 2**64 - 2**63
    lo, hi = INT64
    return Val(simplify(node), PY_INT, lo, hi, static=static)


def _call_time_values(cx) -> dict:
    """Variable name -> call-time function, for the variables whose value is
    known when the function is called (symbols with a node of their own,
    static parameters)."""
    out = {}
    for sym, n in cx.sym_nodes.items():
        if isinstance(n, ir.Variable) and sym in cx.sym_static:
            out[n.name] = cx.sym_static[sym]
    for sp in cx.static_params:
        out[sp.param.node.name] = sp.fn
    return out


def _poly(n, exact):
    """Integer node n as a polynomial {sorted tuple of variable names:
    coefficient} (exact modulo 2**64, as the node's 64-bit arithmetic, or
    exact where `exact` says its arithmetic does not wrap), or None where n
    has other operations than + - * (64-bit ones unless exact), casts to a
    signed type that keep the value, constants and variables."""
    if isinstance(n, ir.Const):
        return {(): int(n.value)} if int(n.value) else {}
    if isinstance(n, ir.Variable):
        return {(n.name,): 1}
    if isinstance(n, ir.Cast):
        t, f = n.type, n.value.type
        if not (t.is_int() and f.is_integer() and
                (t.bits > f.bits or (t.bits == f.bits and f.is_int()))):
            return None
        return _poly(n.value, exact)
    if not isinstance(n, (ir.Add, ir.Sub, ir.Mul)) or (n.type.bits != 64 and not exact):
        return None             # (arithmetic in fewer bits wraps elsewhere)
    pa, pb = _poly(n.a, exact), _poly(n.b, exact)
    if pa is None or pb is None:
        return None
    if isinstance(n, ir.Add):
        return _add(pa, pb, 1)
    if isinstance(n, ir.Sub):
        return _add(pa, pb, -1)
    out = {}
    for ma, ka in pa.items():
        for mb, kb in pb.items():
            m = tuple(sorted(ma + mb))
            out[m] = out.get(m, 0) + ka * kb
    return {m: k for m, k in out.items() if k}


def _add(pa, pb, sign) -> dict:
    out = dict(pa)
    for m, k in pb.items():
        out[m] = out.get(m, 0) + sign * k
    return {m: k for m, k in out.items() if k % 2**64}
