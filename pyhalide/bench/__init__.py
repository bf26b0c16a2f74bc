"""`pyhalide bench`: the benchmark suites of PERFORMANCE.md, side by side with
NumPy, Numba and Halide 21, under the protocol of protocol.py.

    suite1   the six rfactor benchmarks (CGO 2017)
    suite2   image pipelines (blur, histogram equalization, separable convolution)

Benchmarks print tables; they are not timed tests.
"""
from .protocol import render, run_suite  # noqa: F401
