"""The bounded in-memory caches of compiled code (kernels, Func graphs, loaded
objects): least recently used entries are dropped past
`config.kernel_cache_size` entries (PYHALIDE_KERNEL_CACHE_SIZE, default 128;
also per @pipeline function, its specializations), so a process that compiles many distinct pipelines keeps a bounded amount of
machine code. A dropped kernel's code is freed once nothing else holds it
(a Kernel keeps its engine alive; see lowering/jit.py).

    LRU()                       get(key) -> value | None, put(key, value) (or
                                lru[key] = value), trim(), clear(), len();
                                thread-safe
    capacity() -> int           the current bound (validated)
    set_kernel_cache_size(n)    set the bound and trim every LRU now
"""
from __future__ import annotations

import collections
import os
import threading
import weakref

from .config import config

_all: weakref.WeakSet = weakref.WeakSet()


def capacity() -> int:
    n = config.kernel_cache_size
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"the kernel cache size (how many compiled kernels stay in memory: "
                         f"PYHALIDE_KERNEL_CACHE_SIZE or pyhalide.set_kernel_cache_size) must "
                         f"be a positive integer, got {n!r}")
    return n


def set_kernel_cache_size(n: int) -> None:
    """Keep at most `n` compiled kernels (and as many graphs and loaded
    objects) in memory; the least recently used beyond that are dropped now."""
    old = config.kernel_cache_size
    config.kernel_cache_size = n
    try:
        capacity()
    except ValueError:
        config.kernel_cache_size = old
        raise
    for cache in list(_all):
        cache.trim()


class LRU:
    """A dict of at most capacity() entries, the least recently used dropped
    first."""

    def __init__(self):
        self._d: collections.OrderedDict = collections.OrderedDict()
        self._lock = threading.Lock()
        _all.add(self)

    def get(self, key):
        with self._lock:
            value = self._d.get(key)
            if value is not None:
                self._d.move_to_end(key)
            return value

    def put(self, key, value) -> None:
        n = capacity()
        with self._lock:
            self._d[key] = value
            self._d.move_to_end(key)
            while len(self._d) > n:
                self._d.popitem(last=False)

    __setitem__ = put

    def trim(self) -> None:
        n = capacity()
        with self._lock:
            while len(self._d) > n:
                self._d.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._d.clear()

    def __len__(self) -> int:
        return len(self._d)

    def __contains__(self, key) -> bool:
        return key in self._d


def _after_fork_in_child():
    """A lock another thread held at the fork would stay locked in the
    child: every LRU gets a fresh one."""
    for cache in list(_all):
        cache._lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
