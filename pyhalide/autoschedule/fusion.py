"""Stencil chains: a pure producer read by one pure consumer (at several
points, so the default schedule computes it at root) is computed per strip
of the consumer's rows instead: the consumer split into strips of ROWS-ish
rows that run in parallel, the producer computed at each strip (its rows
plus the halo the stencil reads, from bounds inference) and both vectorized
along their innermost dimension. The strip's slice of the producer stays in
the cache between being written and read. A two-dimensional consumer wide
enough is cut into tiles instead (TILE_ROWS rows, as many columns as keep
the producer's slice within TILE_BYTES), the producer computed per tile."""
from __future__ import annotations

from .. import ir
from .plan import Block, lanes_for, pow2_floor

CACHE_BYTES = 1 << 18     # the producer's slice of one strip should fit in this
MIN_ROWS, MAX_ROWS = 4, 64
TILE_BYTES = 1 << 14      # ... and of one tile of a two-dimensional consumer in this (L1)
TILE_ROWS = 32            # rows of a tile (1-thread CPU, blur and conv5x5 at 4096^2, AVX-512:
                          # 256x32 and 128x32 tiles 10% faster than 32-row strips)


def fusable(pb, funcs: list) -> dict:
    """id(producer Function) -> consumer Func, for each pure producer of at
    least two dimensions read only by one pure consumer (of the same
    dimensions, extents known, no updates) of the problem."""
    readers = {}
    for g in funcs:
        gfn = g.function()
        for d in gfn.definitions():
            for c in ir.find_calls(list(d.values) + list(d.args) + list(d.predicates)):
                if c.call_type == ir.FUNC and c.func is not None and c.func is not gfn:
                    readers.setdefault(id(c.func), set()).add(id(gfn))
    by_id = {id(g.function()): g for g in funcs}
    out = {}
    for f in funcs:
        fn = f.function()
        who = readers.get(id(fn), set())
        if fn.updates or len(fn.args) < 2 or len(who) != 1:
            continue
        c = by_id.get(next(iter(who)))
        if c is None or c.function().updates or len(c.function().args) != len(fn.args):
            continue
        px, cx = pb.pure_extents(f), pb.pure_extents(c)
        if not px or not cx or None in px or None in cx:
            continue
        out[id(fn)] = c
    return out


def strip_blocks(pb, c, c_local: str, producers: list) -> list:
    """Blocks for consumer c (its Python name c_local) and its fused
    producers [(Func, local name, head line)]."""
    cfn = c.function()
    cx = pb.pure_extents(c)
    x, y = cfn.args[0], cfn.args[-1]
    width = 1
    for e in cx[:-1]:
        width *= max(1, e)
    elem = max(sum(t.bits // 8 for t in p.function().output_types) for p, _, _ in producers)
    rows = max(MIN_ROWS, min(MAX_ROWS, pow2_floor(max(1, CACHE_BYTES // (width * elem)))))
    shift = pb.knobs.rows_shift
    rows = rows << shift if shift >= 0 else rows >> -shift
    rows = max(1, min(rows, cx[-1] // (2 * pb.threads)))
    if rows < 2 or width * cx[-1] < pb.parallel_min():
        return []
    lanes = lanes_for(cfn.output_types, pb.vector_bits)
    vec = f".vectorize(ph.Var({x!r}), {lanes})" if cx[0] >= lanes else ""
    label = pb.name(c)
    yo, yi = f"{c_local}_yo", f"{c_local}_yi"
    tile_rows = TILE_ROWS << shift if shift >= 0 else TILE_ROWS >> -shift
    tile_rows = max(2, min(tile_rows, cx[-1] // (2 * pb.threads)))
    cols = pow2_floor(max(1, TILE_BYTES // (tile_rows * elem)))
    if len(cfn.args) == 2 and cx[0] >= 2 * cols and cols >= 4 * lanes:
        # tiles: a producer's slice of TILE_ROWS rows of a wide image would leave L1
        rows = tile_rows
        xo, xi = f"{c_local}_xo", f"{c_local}_xi"
        out = [Block(label, f"{label}: tiles of {cols}x{rows} ({x} by {y}), their rows in "
                            f"parallel, vectorized {lanes} wide over {x}",
                     [f"{xo}, {yo}, {xi}, {yi} = ph.Var({xo!r}), ph.Var({yo!r}), "
                      f"ph.Var({xi!r}), ph.Var({yi!r})",
                      f"{c_local}.tile(ph.Var({x!r}), ph.Var({y!r}), {xo}, {yo}, {xi}, {yi}, "
                      f"{cols}, {rows}).parallel({yo})"
                      + (f".vectorize({xi}, {lanes})" if vec else "")])]
        at, where = xo, "tile"
    else:
        out = [Block(label, f"{label}: strips of {rows} rows of {y} in parallel, vectorized "
                            f"{lanes} wide over {x}",
                     [f"{yo}, {yi} = ph.Var({yo!r}), ph.Var({yi!r})",
                      f"{c_local}.split(ph.Var({y!r}), {yo}, {yi}, {rows}).parallel({yo})"
                      + vec])]
        at, where = yo, "strip"
    for p, local, head in producers:
        pfn = p.function()
        plan_lanes = lanes_for(pfn.output_types, pb.vector_bits)
        pvec = f".vectorize(ph.Var({pfn.args[0]!r}), {plan_lanes})" \
            if pb.pure_extents(p)[0] >= plan_lanes else ""
        out.append(Block(pb.name(p), f"{pb.name(p)}: read by {label} only, as a stencil: "
                                     f"computed per {where} of {label} (with its halo)",
                         [head, f"{local}.compute_at({c_local}, {at})"
                                f".store_at({c_local}, {at}){pvec}"], needs=out[0]))
    return out
