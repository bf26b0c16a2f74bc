"""`pyhalide bench`: the benchmark suites of PERFORMANCE.md, side by side with
NumPy, Numba and Halide 21, under the protocol of protocol.py.

    suite1   the six rfactor benchmarks (CGO 2017)
    suite2   image pipelines (blur, histogram equalization, separable convolution)
    suite3   runtime (call overhead, parallel dispatch and scaling, warm start)
    suite4   NumPy-style code under @pipeline (element-wise chains, slice
             stencils, reductions, a @ b) against NumPy and Numba

Benchmarks print tables; they are not timed tests.
"""
from .protocol import render, run_suite  # noqa: F401
