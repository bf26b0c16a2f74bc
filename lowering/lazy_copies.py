"""Leave out the cold copies the call being compiled for does not run: the
kernel compiles them when a call needs them (lazy_kernel.py).

    lazy_copies(stmt, probe) -> Stmt

A ShiftInwards split's `if (f.rD.extent >= k) {whole chunks} else {copy}`
outside every loop of its function (cold_copies.cold_copies) runs its copy
only for regions smaller than one chunk. `probe` maps the kernel's input
symbols (`b.min.d`, `b.extent.d`, `b.stride.d` of each buffer, the integer
params) to their values at the call the kernel is compiled for; walking
the statement's lets outside every serial loop, each such test whose value
comes out true there gets, as its else branch, a failed check of error
LAZY_ERROR instead of the copy. The rest of lowering, codegen and LLVM then
work on the kernel without those copies (the apps: a third to a half of
the code). A later call that reaches one fails with LAZY_ERROR; the
runtime then compiles the whole kernel, as lowering without a probe
builds it, and runs the call again through it (lazy_kernel.py), which is
exact only where running a call again gives what one run gives:
rerun_safe says where (no trace or print callback into Python, no output
written in place of an input).

A value the walk cannot work out (a Load, a float, a loop variable, an
int32 result out of range) is unknown, and an unknown test keeps its copy:
the probe only decides what is compiled now, never what a call computes.
"""
from __future__ import annotations

from pyhalide import ir
from pyhalide.ir.mutator import Mutator, children

from .codegen_llvm import LAZY_ERROR
from .codegen_ops import TRACE_PREFIX
from .cold_copies import cold_copies
from .constant_fold import cast_value, fold_binary

__all__ = ["lazy_copies", "rerun_safe", "LAZY_ERROR"]

LAZY_MESSAGE = "a copy for regions smaller than one chunk was compiled lazily"


def lazy_copies(stmt: ir.Stmt, probe: dict) -> ir.Stmt:
    """stmt with the cold copies a call with the symbol values `probe` does
    not run replaced by a failed check of LAZY_ERROR (see the module
    docstring); stmt itself where none is, or where a rerun is unsafe."""
    cold = cold_copies(stmt)
    if not cold or not rerun_safe(stmt):
        return stmt
    skip = {}
    _Walk(probe, cold, skip).stmt(stmt)
    if not skip:
        return stmt
    return _Cut(skip).mutate(stmt)


def rerun_safe(stmt: ir.Stmt) -> bool:
    """Whether running the kernel of stmt again after a partial run gives
    what one run gives: no trace or print (callbacks into Python, seen by
    the user) anywhere in it."""
    seen = set()
    stack = [stmt]
    while stack:
        n = stack.pop()
        if id(n) in seen:
            continue
        seen.add(id(n))
        if isinstance(n, ir.Call) and n.call_type == ir.INTRINSIC and \
                n.name.startswith(TRACE_PREFIX):
            return False
        stack.extend(c for c in children(n) if isinstance(c, ir.IRNode))
    return True


class _Unknown(Exception):
    pass


_ABSENT = object()


class _Walk:
    """The lets outside every serial loop, evaluated with the probe's values
    where a cold copy's test needs them (each value once); each test that
    holds goes into `skip` (id -> if)."""

    def __init__(self, probe: dict, cold: dict, skip: dict):
        self.probe = probe
        self.lets: dict = {}        # name -> the value bound in scope (None: unknown)
        self.done: dict = {}        # id(let value) -> its value (None: unknown)
        self.cold = cold
        self.skip = skip

    def stmt(self, s):
        stack = [s]
        lets = self.lets
        while stack:
            s = stack.pop()
            if isinstance(s, tuple):            # (name, the value bound before)
                name, old = s
                if old is _ABSENT:
                    lets.pop(name, None)
                else:
                    lets[name] = old
                continue
            if isinstance(s, ir.For):
                if s.kind == ir.ForKind.PARALLEL:      # a function of its own
                    stack.append((s.name, lets.get(s.name, _ABSENT)))
                    lets[s.name] = None
                    stack.append(s.body)
                continue
            if isinstance(s, ir.LetStmt):
                stack.append((s.name, lets.get(s.name, _ABSENT)))
                lets[s.name] = s.value
                stack.append(s.body)
                continue
            if isinstance(s, ir.IfThenElse) and id(s) in self.cold:
                if self._value(s.condition) is True:
                    self.skip[id(s)] = s
                stack.append(s.then_case)
                continue
            stack.extend(reversed([c for c in children(s) if isinstance(c, ir.Stmt)]))

    def _value(self, e):
        try:
            return self._eval(e)
        except (_Unknown, RecursionError):      # (a chain of lets too long: unknown)
            return None

    def _eval(self, e):
        """The Python value of scalar integer or bool expression e; _Unknown
        where it is not worked out exactly."""
        t = e.type
        if t.lanes != 1 or t.is_float():
            raise _Unknown
        if isinstance(e, ir.Const):
            return e.value
        if isinstance(e, ir.Variable):
            value = self.lets.get(e.name, _ABSENT)
            if value is _ABSENT:
                v = self.probe.get(e.name)
            elif value is None:
                raise _Unknown
            else:
                key = id(value)
                if key not in self.done:
                    self.done[key] = None
                    self.done[key] = self._value(value)
                v = self.done[key]
            if v is None:
                raise _Unknown
            return v
        if isinstance(e, ir.Cast):
            if e.value.type.is_float():
                raise _Unknown
            return cast_value(t, e.value.type, self._eval(e.value))
        if isinstance(e, ir.Not):
            return not self._eval(e.a)
        if isinstance(e, ir.Select):
            c = self._eval(e.condition)
            return self._eval(e.true_value if c else e.false_value)
        if isinstance(e, ir.Let):
            old = self.lets.get(e.name, _ABSENT)
            self.lets[e.name] = e.value
            try:
                return self._eval(e.body)
            finally:
                if old is _ABSENT:
                    self.lets.pop(e.name, None)
                else:
                    self.lets[e.name] = old
        a, b = getattr(e, "a", None), getattr(e, "b", None)
        if not (isinstance(a, ir.Expr) and isinstance(b, ir.Expr)) or a.type.is_float():
            raise _Unknown
        va, vb = self._eval(a), self._eval(b)
        if a.type.is_int() and a.type.bits == 32 and isinstance(e, (ir.Add, ir.Sub, ir.Mul)):
            exact = va + vb if isinstance(e, ir.Add) else va - vb if isinstance(e, ir.Sub) \
                else va * vb
            if not -(1 << 31) <= exact < (1 << 31):
                raise _Unknown          # (the kernel may compute it in 64 bits)
        r = fold_binary(type(e), ir.Const(a.type, va), ir.Const(b.type, vb))
        if r is None:
            raise _Unknown
        return r.value


class _Cut(Mutator):
    """The ifs of `skip` with a failed LAZY_ERROR check as their else branch."""

    def __init__(self, skip: dict):
        super().__init__()
        self.skip = skip

    def visit_IfThenElse(self, s):
        if id(s) in self.skip:
            fail = ir.AssertStmt(ir.Const(ir.Bool(), False), LAZY_ERROR, LAZY_MESSAGE)
            return ir.IfThenElse(s.condition, self.mutate(s.then_case), fail)
        return self.mutate_children(s)
