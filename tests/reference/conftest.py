"""Helpers that build `ir.Function`s by hand for the reference evaluator's tests."""
from types import SimpleNamespace

import pytest

from pyhalide import ir
from pyhalide.reference import evaluate

I32 = ir.Int(32)


def var(name, t=I32):
    return ir.Variable(t, name)


def rvar(name):
    return ir.Variable(I32, name, "rvar")


def const(value, t=I32):
    return ir.Const(t, value)


def func(name, args, values):
    """A Func with pure Vars `args` (names) and one Expr or a tuple of them."""
    values = tuple(values) if isinstance(values, (tuple, list)) else (values,)
    pure = ir.Definition(tuple(var(a) for a in args), values)
    return ir.Function(name, tuple(args), tuple(v.type for v in values), pure)


def update(f, args, values, rdom=(), where=()):
    """Append an update; rdom lists (name, min, extent), innermost first."""
    values = tuple(values) if isinstance(values, (tuple, list)) else (values,)
    rvars = [ir.ReductionVariable(n, const(m) if isinstance(m, int) else m,
                                  const(e) if isinstance(e, int) else e) for n, m, e in rdom]
    f.updates.append(ir.Definition(tuple(args), values, list(where),
                                   ir.StageSchedule(rvars=rvars)))
    return f


def call(f, args, index=0):
    return ir.Call(f.output_types[index], f.name, tuple(args), ir.FUNC, index)


def image(name, t, args):
    return ir.Call(t, name, tuple(args), ir.IMAGE)


def intrinsic(name, t, *args):
    return ir.Call(t, name, tuple(args), ir.INTRINSIC)


def run(funcs, outputs, region, inputs=None, params=None):
    funcs = funcs if isinstance(funcs, (list, tuple)) else [funcs]
    outputs = outputs if isinstance(outputs, (list, tuple)) else [outputs]
    return evaluate({f.name: f for f in funcs}, [o.name for o in outputs], region,
                    inputs or {}, params or {})


@pytest.fixture
def hb():
    """The builders above, as `hb.func(...)`, `hb.run(...)`, ..."""
    return SimpleNamespace(I32=I32, var=var, rvar=rvar, const=const, func=func,
                           update=update, call=call, image=image, intrinsic=intrinsic, run=run)
