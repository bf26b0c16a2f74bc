"""Allocations with a symbolic size but a constant upper bound (the storage
of a Func computed per tile) go on the stack: allocation_bounds finds the
bound, codegen allocas it once per function and falls back to the heap
when the size at run time exceeds it."""
import numpy as np
import pytest

from pyhalide import ir
from pyhalide.lowering import codegen_llvm
from pyhalide.lowering.allocation_bounds import allocation_bounds
from pyhalide.lowering.jit import generate_text
from pyhalide.lowering.runtime import BufferArg
from tests.backend.backend_util import allocates, compile_kernel, geom, heap_in_use, i32, run, var

I32 = ir.Int(32)
TILE = 64


def tiled_scratch(extent_of=None):
    """out[x] = inp[x] + 1 through per-tile scratch: for each tile t of
    TILE points (ShiftInwards: the last tile is shifted inside), the
    scratch holds the tile's points, lo..hi, with the tile's extent
    hi - lo + 1 computed as bounds inference writes it."""
    e, t, i = geom("out", "extent"), var("t"), var("i")
    start = ir.Min(ir.Mul(t, i32(TILE)), ir.Max(ir.Sub(e, i32(TILE)), i32(0)))
    lo, hi, ext = var("lo"), var("hi"), var("ext")
    fill = ir.For("i", i32(0), ext, "serial",
                  ir.Store("tmp", ir.Add(ir.Load(I32, "inp", ir.Add(lo, i)), i32(1)), i))
    copy = ir.For("i", i32(0), ext, "serial",
                  ir.Store("out", ir.Load(I32, "tmp", i), ir.Add(lo, i)))
    alloc = ir.Allocate("tmp", I32, (ext if extent_of is None else extent_of(ext),),
                        ir.block(fill, copy))
    body = ir.LetStmt("lo", ir.Max(start, i32(0)), ir.LetStmt(
        "hi", ir.Min(ir.Add(start, i32(TILE - 1)), ir.Sub(e, i32(1))), ir.LetStmt(
            "ext", ir.Max(ir.Add(ir.Sub(hi, lo), i32(1)), i32(0)), alloc)))
    n_tiles = ir.Div(ir.Add(e, i32(TILE - 1)), i32(TILE))
    return ir.For("t", i32(0), n_tiles, "serial", body)


def test_tile_extent_is_bounded_by_the_tile_size():
    s = tiled_scratch()
    (alloc,) = allocates(s)
    assert allocation_bounds(s) == {id(alloc): TILE}


def test_unbounded_and_shadowed_extents_have_no_bound():
    n = ir.Variable(I32, "n", "param")
    assert allocation_bounds(tiled_scratch(lambda ext: ir.Add(ext, n))) == {}
    # the lets are looked through only while their names are bound once
    s = tiled_scratch()
    assert allocation_bounds(ir.LetStmt("lo", i32(0), s)) == {}
    # two dimensions multiply; a constant extent bounds itself
    s = tiled_scratch(lambda ext: ext)
    alloc = allocates(s)[0]
    two = ir.Allocate("tmp", I32, (alloc.extents[0], i32(3)), alloc.body)
    s2 = ir.For("t", s.min, s.extent, "serial",
                ir.LetStmt("lo", s.body.value, ir.LetStmt("hi", s.body.body.value, ir.LetStmt(
                    "ext", s.body.body.body.value, two))))
    assert allocation_bounds(s2) == {id(two): 3 * TILE}


def _run_without_leak(kernel, bufs):
    """Call the kernel 200 times; the heap must not grow by the 50 KB that
    one unfreed tile per call would leak."""
    arrays = [a for _, a, _ in bufs]
    kernel(arrays)
    before = heap_in_use()
    for _ in range(200):
        kernel(arrays)
    if before is not None:
        assert heap_in_use() - before < 16384


def _bufs(n):
    inp = np.arange(n, dtype=np.int32) * 3
    return inp, [("inp", inp, False), ("out", np.zeros(n, np.int32), True)]


@pytest.mark.parametrize("n", [0, 1, TILE - 1, TILE, 5 * TILE + 7])
def test_bounded_allocation_is_on_the_stack(n):
    inp, bufs = _bufs(n)
    compile_kernel(tiled_scratch(), bufs)([a for _, a, _ in bufs])
    np.testing.assert_array_equal(bufs[1][1], inp + 1)
    text = generate_text(tiled_scratch(), "k", [BufferArg(nm, I32, 1, o) for nm, _, o in bufs],
                         [], stage="llvm")
    assert f"alloca i32, i64 {TILE}" in text and "heap.tmp" in text


@pytest.mark.parametrize("n", [TILE - 1, 5 * TILE + 7])
def test_size_beyond_the_bound_takes_the_heap(monkeypatch, n):
    # A bound that does not hold (here made too small on purpose) costs a
    # heap allocation, never a write past the stack storage.
    def too_small(stmt):
        return {k: 5 for k in allocation_bounds(stmt)}
    monkeypatch.setattr(codegen_llvm, "allocation_bounds", too_small)
    inp, bufs = _bufs(n)
    _run_without_leak(compile_kernel(tiled_scratch(), bufs, name="k_small_bound"), bufs)
    np.testing.assert_array_equal(bufs[1][1], inp + 1)


def test_stack_budget_sends_the_rest_to_the_heap():
    # Six sequential scratch arrays of 60 KB: the budget of one function
    # holds four of them; the others are heap allocations.
    n = 60 * 1024 // 4
    out = np.zeros(1, np.int32)
    parts = []
    for k in range(6):
        name = f"s{k}"
        body = ir.block(ir.Store(name, i32(k), i32(n - 1)),
                        ir.Store("out", ir.Add(ir.Load(I32, "out", i32(0)),
                                               ir.Load(I32, name, i32(n - 1))), i32(0)))
        parts.append(ir.Allocate(name, I32, (i32(n),), body))
    s = ir.block(*parts)
    run(s, [("out", out, True)])
    assert out[0] == sum(range(6))
    text = generate_text(s, "k", [BufferArg("out", I32, 1, True)], [], stage="llvm")
    assert text.count(f"alloca i32, i64 {n}") == 4 and "aligned_alloc" in text
