"""Inline the pure Funcs that get no storage into their callers.

Works on lowering's own copies of the Functions: the user's Functions are
never modified."""
from __future__ import annotations

import dataclasses

from pyhalide import ir

from .realization_order import is_inlined


class _Inliner(ir.Mutator):
    def __init__(self, env: dict, outputs):
        super().__init__()
        self.env = env
        self.outputs = outputs

    def visit_Call(self, c):
        args = tuple(self.mutate(a) for a in c.args)
        if c.call_type == ir.FUNC:
            fn = self.env.get(c.name)
            if fn is not None and is_inlined(fn, self.outputs):
                body = self.mutate(fn.pure.values[c.value_index])
                return ir.substitute(body, dict(zip(fn.args, args)))
        if all(a is b for a, b in zip(args, c.args)):
            return c
        return dataclasses.replace(c, args=args)


def _copy_definition(d: ir.Definition, inliner: _Inliner) -> ir.Definition:
    m = inliner.mutate
    return dataclasses.replace(
        d,
        args=tuple(m(a) for a in d.args),
        values=tuple(m(v) for v in d.values),
        predicates=[m(p) for p in d.predicates])


def inline_functions(env: dict, outputs) -> dict:
    """name -> a copy of each Function with every call to an inlined Func
    replaced by its definition."""
    inliner = _Inliner(env, outputs)
    out = {}
    for name, fn in env.items():
        copy = dataclasses.replace(fn)
        copy.pure = _copy_definition(fn.pure, inliner) if fn.pure is not None else None
        copy.updates = [_copy_definition(u, inliner) for u in fn.updates]
        out[name] = copy
    return out
