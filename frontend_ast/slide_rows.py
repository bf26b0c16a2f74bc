"""The default schedule's sliding rows: an array read by one consumer at
several rows of it (Harris's row sums `txx`, read by `txx[:-2] + txx[1:-1]
+ txx[2:]`) is computed row by row inside that consumer's row loop and
stored in a window of a few rows, instead of as a whole array at root.

The array (a pure Func of two or more dimensions, without run-time checks)
is stored at root and computed at its consumer's outermost loop, the last
pure Var `y` (Halide's `store_root().compute_at(consumer, y)`): bounds
inference then slides the region computed per row (each row is computed
once, at the first row of the consumer that reads it, in the same order as
at root) and folds the storage to the window of rows the consumer reads at
once, rounded up to a power of two (lowering/bounds_inference._slide), when
that window is bounded by a constant. The values are the same expressions
at the same points: results are bit-identical.

It applies when every read of the array, through consumers the default
schedule inlines, ends in one Func computed at root with pure loops in
argument order (no updates): each read's last index is the reader's last
Var plus an offset free of the reader's Vars, and no other index uses that
Var (so that the rows read move with the row loop and slide).
PYHALIDE_DEBUG=1 reports each."""
from __future__ import annotations

from pyhalide import checks, ir
from pyhalide.ir.config import debug_print
from pyhalide.simplify import simplify


def slide_rows(roots, reads, inlined) -> list:
    """Schedules each Func of `roots` (wrappers the default schedule
    computes at root, Funcs it leaves alone among them) that is read at
    rows of one consumer in `roots` as the module docstring says; `reads`:
    id(Function) -> [(consumer Function, Definition, Call)], `inlined`: ids
    of the inlined Functions. Returns the wrappers scheduled."""
    by_id = {id(f.function()): f for f in roots}
    done = []
    for f in roots:
        fn = f.function()
        if fn.updates or fn.pure is None or len(fn.args) < 2 or \
                any(checks.is_check_read(c) for c in ir.find_calls(list(fn.pure.values))):
            continue
        target = _row_consumer(fn, reads, inlined, frozenset())
        if target is None or target is fn or id(target) not in by_id or target.updates or \
                not _plain_loops(target):
            continue
        consumer = by_id[id(target)]
        f.store_root().compute_at(consumer, consumer.args()[-1])
        debug_print(1, f"default schedule: {f.name()} computed per row of {consumer.name()}")
        done.append(f)
    return done


def _plain_loops(fn) -> bool:
    """Pure loops in argument order, serial, unsplit: the last Var outermost."""
    s = fn.pure.schedule
    return not s.splits and all(d.kind == "serial" for d in s.dims) and \
        [d.var for d in s.dims if not d.is_rvar] == list(fn.args)


def _row_consumer(fn, reads, inlined, seen):
    """The Function all reads of fn end in, through inlined consumers, each
    read at rows of its reader (_row_read); None where there is none."""
    sites = reads.get(id(fn), [])
    found = None
    for c, d, call in sites:
        if d is not c.pure or c.updates or not _row_read(c, call, len(fn.args)):
            return None
        if id(c) in inlined:
            if id(c) in seen:
                return None
            c = _row_consumer(c, reads, inlined, seen | {id(c)})
        if c is None or (found is not None and c is not found):
            return None
        found = c
    return found


def _row_read(c, call, dims: int) -> bool:
    """Whether `call` (in c's pure definition) reads at c's last Var plus an
    offset free of c's Vars in its last index, and that Var nowhere else."""
    if len(call.args) != dims or len(c.args) != dims:
        return False
    y = c.args[-1]
    last = call.args[-1]
    if y not in ir.free_vars(last) or any(y in ir.free_vars(a) for a in call.args[:-1]):
        return False
    offset = simplify(ir.Sub(last, ir.Variable(last.type, y)))
    return not any(a in ir.free_vars(offset) for a in c.args)
