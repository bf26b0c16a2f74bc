"""Which updates Stage.atomic() takes: `f[args] = f[args] op e` of one
integer value, op one of + - min max & | ^ (LLVM's atomicrmw add, sub,
min/max (umin/umax for unsigned), and, or, xor), e reading f nowhere. Their
result does not depend on the order of the iterations (integer + wraps, an
associative and commutative operation; `- e` is `+ (-e)`), so running them
in parallel, each one atomic read-modify-write, gives the serial result."""
from __future__ import annotations

from pyhalide import ir

OPS = (ir.Add, ir.Sub, ir.Min, ir.Max, ir.BitAnd, ir.BitOr, ir.BitXor)


def _reads(e, name: str) -> bool:
    return any(c.call_type == ir.FUNC and c.name == name for c in ir.find_calls([e]))


def split_update(value, name: str, args):
    """(op class, e) when value is `name(args) op e` (or `e op name(args)` for
    a commutative op), else None."""
    if not isinstance(value, OPS):
        return None

    def is_self(x):
        return isinstance(x, ir.Call) and x.call_type == ir.FUNC and x.name == name and \
            len(x.args) == len(args) and all(ir.equal(a, b) for a, b in zip(x.args, args))
    if is_self(value.a) and not _reads(value.b, name):
        return type(value), value.b
    if not isinstance(value, ir.Sub) and is_self(value.b) and not _reads(value.a, name):
        return type(value), value.a
    return None


def atomic_refusal(fn: ir.Function, index: int) -> str:
    """Why stage `index` of fn cannot be atomic ('' if it can)."""
    if index == 0:
        return f"the pure definition of {fn.name} is not an update"
    d = fn.definitions()[index]
    if len(d.values) != 1:
        return f"the update of the Tuple-valued {fn.name} writes several values"
    t = fn.output_types[0]
    if not t.is_integer() or t.is_bool():
        return (f"{fn.name} holds {t}: only integer updates are atomic here (a float sum "
                f"in parallel would depend on the order of the threads); use rfactor")
    if any(_reads(p, fn.name) for p in d.predicates):
        return f"the RDom predicate of the update of {fn.name} reads {fn.name}"
    if split_update(d.values[0], fn.name, d.args) is None:
        return (f"the update of {fn.name} is not {fn.name}[args] op e with op one of "
                f"+ - min max & | ^ and e not reading {fn.name}")
    return ""


ATOMIC = "pyhalide.atomic"      # the intrinsic marking the value of an atomic update


def mark(value: ir.Expr) -> ir.Expr:
    """The value of an atomic stage's Provide: codegen makes its Store one
    atomicrmw (codegen_llvm.emit_Store)."""
    return ir.Call(value.type, ATOMIC, (value,), ir.INTRINSIC)
