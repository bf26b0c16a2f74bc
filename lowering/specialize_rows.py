"""Row-extent specialization: a loop nest whose innermost loop chooses
between values (an argmin over rows) and runs to an input's extent gets a
copy for the extent that input had when the kernel was compiled.

A row loop `for (x, 0, a.extent.0)` whose body stores into fixed places
through a select or a branch (codegen_ops.choosing_fold) is unrolled 8x by
LLVM with a remainder loop; nested in the loops over the other dimensions,
the remainder's setup and tail run once per row. The Func API, whose
extents are constants, gets the row unrolled with no remainder (argmin4d's
rows of 128: 16x). This pass rewrites the outermost loop around such a row
loop

    for (w, ...) { ... for (x, 0, a.extent.0) { body } ... }

into

    if (a.extent.0 == E) { the nest with a.extent.0 replaced by E }
    else { the nest }

where E is a.extent.0's value at compile time (`known`: name -> value,
Pipeline._kernel), as Halide's `specialize(a.width() == E)` would. Both
copies compute the same values; the test runs once per realization. Only a
row loop inside another loop is specialized (a single row runs its
remainder once), only extents from 2 to MAX_EXTENT, and only in a nest of
at most MAX_LOOPS loops. (Rows of 8-20, which LLVM unrolls fully, ran 5-10%
slower specialized while the update was a chain of cmovs; with the update a
branch (codegen_ops.running_extreme_update) they run 25-33% faster.)

PYHALIDE_DEBUG=1 reports each nest specialized."""
from __future__ import annotations

from pyhalide import ir
from pyhalide.ir.config import debug_print

from .codegen_ops import choosing_fold

# rows longer than this run their remainder rarely enough not to matter
MAX_EXTENT = 4096
# a nest of more loops than this is not copied (its compile time would double)
MAX_LOOPS = 8


def worth(extent: int) -> bool:
    """Whether a row of this extent is specialized on."""
    return 2 <= extent <= MAX_EXTENT


def specialize_rows(stmt: ir.Stmt, known: dict | None, used: dict | None = None) -> ir.Stmt:
    """stmt with each nest of a choosing row loop of extent in `known`
    copied for that extent; `used` (when given) gets name -> value of the
    extents used."""
    if not known:
        return stmt
    nests = _Nests(known)
    out = nests.mutate(stmt)
    if used is not None:
        used.update(nests.used)
    return out


class _Nests(ir.Mutator):
    """The outermost loops (no loop around them) holding a choosing row loop
    whose extent is a name of `known`."""

    memoize = False
    stmts_only = True

    def __init__(self, known: dict):
        super().__init__()
        self.known = known
        self.used: dict = {}

    def visit_For(self, s):
        rows = _Rows(self.known)
        rows.visit(s)
        if not rows.names or rows.loops > MAX_LOOPS:
            return s
        names = sorted(rows.names)
        values = {n: ir.Const(rows.names[n].type, self.known[n]) for n in names}
        cond = ir.conjunction([ir.EQ(rows.names[n], values[n]) for n in names])
        fast = ir.substitute(s, values)
        for n in names:
            self.used[n] = self.known[n]
            debug_print(1, f"pyhalide: specialize rows: the nest of {s.name} for {n} == "
                           f"{self.known[n]}")
        return ir.IfThenElse(cond, fast, s)


class _Rows(ir.Visitor):
    """`names`: the extents (names of `known`) of the innermost serial
    choosing loops nested in at least one other loop."""

    def __init__(self, known: dict):
        super().__init__()
        self.known = known
        self.depth = 0
        self.loops = 0              # the loops met
        self.names: dict = {}       # name -> its Variable
        self.memo: dict = {}

    def visit(self, n):
        if not isinstance(n, ir.Expr):
            super().visit(n)

    def visit_For(self, s):
        self.loops += 1
        ext = s.extent
        if self.depth and s.kind == ir.ForKind.SERIAL and isinstance(ext, ir.Variable) and \
                ext.name in self.known and worth(self.known[ext.name]) and \
                choosing_fold(s.name, s.body, self.memo):
            self.names[ext.name] = ext
            return
        self.depth += 1
        self.visit(s.body)
        self.depth -= 1
