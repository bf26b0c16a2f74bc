"""The automatic scheduler's rule for scans (pyhalide/autoschedule/plan.py
calls `scan_blocks` for each update before its reduction rule).

An update that is a scan along its one RVar (it reads f at the previous
point: `c[r] = c[r - 1] + h[r]`, a running max, a linear recurrence, the
array of `acc += x[i]; out[i] = acc`) is run as a parallel scan
(parallel_scan.py) when it dominates: at least MIN_SCAN points along the
scan, too little pure parallelism beside it (fewer than SPARE x threads
pure points: otherwise the pure rule runs those in parallel) and a form
parallel_scan accepts, and only when at least SCAN_THREADS threads run it:
its passes (the chunks' totals, then each chunk again from its offset) do
1.3-1.7x the work of the one-pass serial scan (one thread, CPU, 2^22
float64: np.cumsum 10.7 -> 13.7 ms, `s = s * 0.5 + x[i]` 14.9 -> 24.9 ms),
so 2 threads would gain at most 1.2-1.6x in wall time on an idle host for
that much more CPU time, and lose on a loaded one (2^20 np.cumsum, 2
threads, load 16: 0.85 -> 4.5 ms wall). The chunk size depends only on the
scan's extent (at most CHUNKS chunks of a power of two points, at least
MIN_CHUNK), never on the thread count, so a float scan's result depends
only on the pipeline, the size class and whether it runs in parallel (the
thread count decides that, as SPARE does for reductions); float scans are
not parallelized without float reassociation (`"auto-exact"`).
"""
from __future__ import annotations

from . import ir
from .autoschedule.plan import SPARE, Block
from .parallel_scan import refusal

MIN_SCAN = 1 << 18      # points of a scan worth running in parallel
CHUNKS = 256            # at most this many chunks
MIN_CHUNK = 1 << 12     # the fewest points of a chunk
SCAN_THREADS = 4        # the fewest threads a parallel scan is planned for


def scan_blocks(pb, f, k: int, local: str):
    """[Block] for update k of f when it is a scan (a parallel_scan, or
    why it stays serial); None when it is not a scan or has enough pure
    parallelism (the planner's other rules decide)."""
    fn = f.function()
    d = fn.updates[k]
    if len(d.schedule.rvars) != 1 or not _reads_previous(fn, d):
        return None
    rv = d.schedule.rvars[0]
    label = f"{pb.name(f)}.update({k})"
    pure = _pure_points(pb, f, d)
    if pure is not None and pure >= SPARE * pb.threads:
        return None
    n = pb.extent(rv.extent)
    if n is None or pure is None:
        return [Block(pb.name(f), f"{label}: a scan whose extents are not known: kept serial")]
    if n < MIN_SCAN:
        return [Block(pb.name(f), f"{label}: a scan of {n} points < {MIN_SCAN}: kept serial")]
    if not pb.float_reassociation and any(t.is_float() for t in fn.output_types):
        return [Block(pb.name(f), f"{label}: a float scan, and float reassociation is off: "
                                  f"kept serial")]
    if pb.threads < SCAN_THREADS:
        return [Block(pb.name(f), f"{label}: a scan, and {pb.threads} thread"
                                  f"{'s' if pb.threads != 1 else ''} < {SCAN_THREADS}: its "
                                  f"parallel passes would do 1.3-1.7x the serial scan's "
                                  f"work for little gain: kept serial")]
    chunk = max(MIN_CHUNK, _pow2_ceil(-(-n // CHUNKS)))
    if chunk >= n:
        return [Block(pb.name(f), f"{label}: a scan of one chunk: kept serial")]
    reason = refusal(f.update(k), rv.name, chunk)
    if reason is not None:
        return [Block(pb.name(f), f"{label}: a scan parallel_scan refuses ({reason}): "
                                  f"kept serial")]
    var = pb.var_source(f, rv.name)
    if var is None:
        return [Block(pb.name(f), f"{label}: its scan variable cannot be named: kept serial")]
    return [Block(pb.name(f), f"{label}: a scan of {n} points with {pure} pure point"
                              f"{'s' if pure != 1 else ''}: parallel_scan in chunks of {chunk}",
                  [f"{local}.update({k}).parallel_scan({var}, {chunk})"])]


def _reads_previous(fn, d) -> bool:
    """Whether update d of fn reads fn at the point before the one it
    writes along its RVar (seeded reads included: parallel_scan_seed.py)."""
    rname = d.schedule.rvars[0].name
    axes = [k for k, a in enumerate(d.args) if isinstance(a, ir.Variable) and a.name == rname]
    if len(axes) != 1:
        return False
    for c in ir.find_calls(list(d.values)):
        if c.call_type == ir.FUNC and c.name == fn.name and len(c.args) == len(d.args):
            a = c.args[axes[0]]
            if rname in ir.free_vars(a) and not ir.equal(a, d.args[axes[0]]):
                return True
    return False


def _pure_points(pb, f, d):
    """The points of update d's pure loops (1 when it has none), or None
    when one of their extents is not known."""
    fn = f.function()
    px = pb.pure_extents(f)
    if px is None:
        return None
    n = 1
    for dim in d.schedule.dims:
        if not dim.is_rvar:
            if dim.var not in fn.args or px[fn.args.index(dim.var)] is None:
                return None
            n *= px[fn.args.index(dim.var)]
    return n


def _pow2_ceil(n: int) -> int:
    return 1 << max(0, (n - 1).bit_length())
