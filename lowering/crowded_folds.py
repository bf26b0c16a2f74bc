"""crowded_fold: a scalar loop whose integer accumulators fill the register
file, which LLVM's runtime unrolling makes spill.

x86-64 has 15 general registers for a loop. A loop that folds a stream into
k integer accumulators needs k of them, plus its index, the stream's base
pointer and a few temporaries; LLVM's 4x runtime unrolling of a loop of
symbolic extent adds the trip count and the remainder's count, both live
across the unrolled loop. At 8 accumulators (suite 1's kitchen_sink) that is
one or two registers too many: the base pointer was reloaded from the stack
twice per unrolled iteration and the trip count compared in memory, and the
`@pipeline` loop (extent `a.extent.0`) ran 1.13-1.16x the CPU time of the Func
API's (a constant extent: no trip count, no remainder). Left as written, both
run the same code at the Func API's unrolled speed (session 21, AMD EPYC
znver5, 2^22 elements: 4.63 ms both; unrolled 5.21-5.44 ms vs 4.62 ms).

The selects or branches of an argmin are walked into (scalar_fold stops at
them): a loop with few accumulators (argmin4d's five) stays unrolled.
"""
from __future__ import annotations

from pyhalide import ir

from .codegen_ops import streaming_loop

# integer accumulators from which a scalar fold is left unrolled by LLVM
CROWDED = 7


def crowded_fold(name: str, body: ir.Stmt, memo: dict | None = None) -> bool:
    """Whether the loop `name` over `body` is an innermost scalar loop that
    stores into at least CROWDED distinct integer places that do not move
    with the loop (its accumulators), through selects or branches or not."""
    v = _IntegerStores()
    v.visit(body)
    if not v.scalar or len(v.names) < CROWDED:
        return False
    return streaming_loop(name, body, memo)


class _IntegerStores(ir.Visitor):
    """crowded_fold's walk: `names` the buffers stored with integer values;
    `scalar` False once a loop or a vector is met (the walk stops there)."""

    def __init__(self):
        super().__init__()
        self.scalar = True
        self.names: set = set()

    def visit(self, n):
        if self.scalar:
            if isinstance(n, ir.For) or (isinstance(n, ir.Expr) and n.type.lanes > 1):
                self.scalar = False
            else:
                super().visit(n)

    def visit_Store(self, s):
        if not s.value.type.is_float():
            self.names.add(s.name)
        self.visit_children(s)
