"""The values of a kernel's input symbols at one call, for lazy_copies.py.

    call_probe(buffer_names, arrays, param_names, values) -> {symbol: value} | None

`b.min.d` (0), `b.extent.d` and `b.stride.d` (in elements) of each buffer
named `b` (its NumPy array's axis ndim-1-d, as runtime.write_geometry
writes them), and each integer or bool param's value; a param of another
kind is left out (unknown to lazy_copies). None (every copy compiled at
once) where the on-disk cache is on (config.cache_dir), unless
WITH_DISK_CACHE: a lazy kernel is not stored there (kernel_cache.py), and
a process that finds the whole kernel there does no compile at all."""
from __future__ import annotations

import numpy as np

from pyhalide.ir.config import config

WITH_DISK_CACHE = False     # (the tests of lazy kernels set it)


def call_probe(buffer_names, arrays, param_names, values):
    if config.cache_dir and not WITH_DISK_CACHE:
        return None
    out = {}
    for name, arr in zip(buffer_names, arrays):
        if not isinstance(arr, np.ndarray) or not arr.itemsize:
            continue
        nd = arr.ndim
        for d in range(nd):
            axis = nd - 1 - d
            out[f"{name}.min.{d}"] = 0
            out[f"{name}.extent.{d}"] = int(arr.shape[axis])
            out[f"{name}.stride.{d}"] = int(arr.strides[axis]) // arr.itemsize
    for name, v in zip(param_names, values):
        if isinstance(v, (bool, np.bool_)):
            out[name] = bool(v)
        elif isinstance(v, (int, np.integer)):
            out[name] = int(v)
    return out
