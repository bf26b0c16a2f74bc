"""The sign of the NaN that this host's NumPy returns for an argument outside
a logarithm's domain (log, log2, log10 of x < 0 or -inf; log1p of x < -1),
so that the compiled code gives the same bits.

    invalid_nan_negative(name, bits) -> bool
    negative_nan_kept(name) -> bool

and whether its float32 `name` keeps the sign of a NaN argument.

NumPy's loops differ by CPU and build: with AVX-512F its own SIMD log
(float64 and float32) gives x86's default NaN (sign bit set); on an AVX2 host
(no AVX-512; NumPy 2.4.6, session 28) float64 log, log2 and log10 call the C
library's, which gives +NaN (0x7ff8...), float32 log10 gives +NaN
(0x7fc00000), and float32 log, log2 and log1p of either width the default
NaN. Rather than a table by CPU, the sign is measured once per process: the
function of NumPy on 32 copies of an invalid argument (its SIMD loops, not
the scalar path), each of -2 and -inf. Where those are not all one quiet NaN
of zero payload the default NaN is kept. Float32 NaN arguments come back as
NumPy's NaN 0x7fc00000, with the sign bit of a negative one where NumPy keeps
it (float32 log2 and log10 on the AVX2 host; float32 log drops it).
"""
from __future__ import annotations

import functools

import numpy as np

_INVALID = {"log": -2.0, "log2": -2.0, "log10": -2.0, "log1p": -2.0}


@functools.cache
def invalid_nan_negative(name: str, bits: int) -> bool:
    """Whether NumPy's `name` (log, log2, log10, log1p) of float`bits` (64 or
    32) returns a NaN with the sign bit set for an invalid argument (x86's
    default NaN), as measured on this host; True where not measurable."""
    dt = np.float64 if bits == 64 else np.float32
    u = np.uint64 if bits == 64 else np.uint32
    quiet = (0x7FF8 << 48) if bits == 64 else 0x7FC00000
    with np.errstate(all="ignore"):
        x = np.repeat(np.array([_INVALID[name], -np.inf], dt), 32)
        got = set(getattr(np, name)(x).view(u).tolist())
    return got != {quiet}


@functools.cache
def negative_nan_kept(name: str) -> bool:
    """Whether NumPy's float32 `name` (log, log2, log10) returns 0xffc00000
    for -NaN (else 0x7fc00000), as measured on this host."""
    with np.errstate(all="ignore"):
        x = np.repeat(np.array([-np.nan], np.float32), 32)
        got = set(getattr(np, name)(x).view(np.uint32).tolist())
    return got == {0xFFC00000}
