"""LLVM's runtime unrolling off for large modules (runtime_unroll.py, jit._for_size):
the loop IDs it adds, that LLVM then leaves a loop of run-time trip count
rolled, and that the kernel compiled so computes what NumPy does."""
from __future__ import annotations

import re

import llvmlite.binding as llvm
import numpy as np
import pytest

from pyhalide.ir.config import config
from pyhalide.lowering import jit
from pyhalide.lowering.jit import JitOptions, compile_pipeline, generate_text
from pyhalide.lowering.llvm_objects import llvm_lock, target_machine
from pyhalide.lowering.runtime_unroll import without_runtime_unrolling
from pyhalide.lowering.target import parse_target
from tests.backend.backend_util import saxpy

SCALAR = dict(loop_vectorization=False, slp_vectorization=False)
# blocks of the remainder loop LoopUnroll adds when it unrolls by a run-time count
_REMAINDER = re.compile(r"^\S*\.(?:epil|prol)\S*:", re.M)


@pytest.fixture(scope="module")
def saxpy_text():
    stmt, bufs, params = saxpy()
    return generate_text(stmt, "saxpy", bufs, params, stage="llvm")


def _optimized(text: str) -> str:
    with llvm_lock():
        tm = target_machine(parse_target(config.target))
        return str(jit._optimize(text, tm, JitOptions(**SCALAR)))


def test_loop_branches_get_a_runtime_unroll_disable_id(saxpy_text):
    out = without_runtime_unrolling(saxpy_text)
    branches = re.findall(r'^  br i1 .*label %"?for\.x"?, label %"?end\.x"?(.*)$', out, re.M)
    assert len(branches) == 2                  # the guard and the latch
    ids = [re.fullmatch(r", !llvm\.loop !(\d+)", b).group(1) for b in branches]
    assert len(set(ids)) == 2                  # one loop ID each
    (hint,) = re.findall(r'^!(\d+) = !\{!"llvm\.loop\.unroll\.runtime\.disable"\}$', out, re.M)
    for n in ids:
        assert f"!{n} = distinct !{{!{n}, !{hint}}}" in out
    llvm.parse_assembly(out).verify()
    assert without_runtime_unrolling(out) == out      # tagged branches are left alone


def test_llvm_keeps_the_loop_rolled(saxpy_text):
    # as generated, LLVM unrolls the scalar loop by a run-time count (a remainder
    # loop appears); with the loop IDs it does not
    assert _REMAINDER.search(_optimized(saxpy_text))
    assert not _REMAINDER.search(_optimized(without_runtime_unrolling(saxpy_text)))


def test_for_size_turns_it_off_past_the_limit(saxpy_text):
    assert jit.LOOP_VECTORIZE_MAX_LINES < jit.RUNTIME_UNROLL_MAX_LINES
    mid = saxpy_text + "\n" * (jit.LOOP_VECTORIZE_MAX_LINES + 1)
    big = saxpy_text + "\n" * (jit.RUNTIME_UNROLL_MAX_LINES + 1)
    full = JitOptions()
    assert jit._for_size(saxpy_text, full) == full
    assert jit._for_size(mid, full) == JitOptions(loop_vectorization=False)
    off = jit._for_size(big, full)
    assert off == JitOptions(loop_vectorization=False, runtime_unrolling=False)
    assert off.key() != JitOptions(loop_vectorization=False).key()
    no_unroll = JitOptions(loop_vectorization=False, loop_unrolling=False)
    assert jit._for_size(big, no_unroll) == no_unroll      # nothing left to turn off


@pytest.mark.parametrize("n", [0, 1, 2, 3, 17, 100])
def test_kernel_without_runtime_unrolling_matches_numpy(n):
    stmt, bufs, params = saxpy()
    k = compile_pipeline(stmt, "saxpy", bufs, params,
                         options=JitOptions(runtime_unrolling=False, **SCALAR))
    rng = np.random.default_rng(n)
    a = rng.standard_normal(n).astype(np.float32)
    b = rng.standard_normal(n).astype(np.float32)
    out = np.full(n, np.nan, np.float32)
    k([a, b, out], [np.float32(-1.5)])
    np.testing.assert_array_equal(out, a * np.float32(-1.5) + b)
