"""Run a scan written with the Func API with and without `parallel_scan` and
compare.

`check_scan(build, make_inputs, sizes, ...)`: `build(chunk)` returns (the
output Func, its ImageParams) with the scan scheduled by
`scan(stage, r, chunk)` (chunk: a size, or (size, variant)), or left
serial for `chunk=None`. The scheduled
pipeline is compiled once and run on inputs of every size and at 1, 2 and 3
threads; each result must equal the reference evaluator on the serial
algorithm (bit for bit, or within `rtol` for float scans the schedule
reassociates), and the plain Python `expected(*arrays)` when given."""
from __future__ import annotations

import numpy as np

import pyhalide as ph
from pyhalide.ir.config import override
from tests.rfactor.rfactor_util import reference

THREADS = (1, 2, 3)


def scan(stage, rvar, chunk):
    """stage.parallel_scan(rvar, chunk), or with a variant: chunk = (size,
    variant)."""
    size, variant = chunk if isinstance(chunk, tuple) else (chunk, "rescan")
    return stage.parallel_scan(rvar, size, variant)


def _as_list(out):
    return [np.asarray(b) for b in (out if isinstance(out, (list, tuple)) else [out])]


def _compare(got, want, rtol, what):
    assert len(got) == len(want), what
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape, (what, g.dtype, w.dtype, g.shape)
        if rtol is None:
            np.testing.assert_array_equal(g, w, err_msg=what)
        else:
            np.testing.assert_allclose(g, w, rtol=rtol, err_msg=what)


def check_scan(build, make_inputs, sizes_list, chunk, rtol=None, expected=None):
    out, params = build(chunk)
    serial, serial_params = build(None)
    for sizes in sizes_list:
        arrays = make_inputs(sizes)
        for p, sp, a in zip(params, serial_params, arrays):
            p.set(ph.Buffer(a))
            sp.set(ph.Buffer(a))
        extent = list(reversed(arrays[0].shape))
        want = reference(serial, extent)
        if expected is not None:
            _compare(want, _as_list(expected(*arrays)), rtol, f"reference vs Python {sizes}")
        for n in THREADS:
            with override(num_threads=n):
                got = _as_list(out.realize(extent))
            _compare(got, want, rtol, f"parallel_scan, chunk {chunk}, {n} threads, {sizes}")
