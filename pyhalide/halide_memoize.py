"""Halide 21's memoization names: EvictionKey and memoize_tag.

pyhalide's Func.memoize keeps no cache (the Func is computed at every
realization, func_halide.py), so an eviction key has nothing to evict and
memoize_tag(t, *keys), whose value is t in Halide, is t.
"""
from __future__ import annotations

from .expr import Expr, to_node

__all__ = ["EvictionKey", "memoize_tag"]


class EvictionKey:
    """Halide's EvictionKey(e): accepted by Func.memoize; no cache to evict."""

    def __init__(self, e):
        self.expr = Expr.wrap(to_node(e))


def memoize_tag(t, *cache_key_values) -> Expr:
    """t (Halide adds the keys to a memoized Func's cache key; pyhalide keeps
    no cache)."""
    for k in cache_key_values:
        to_node(k)                       # checked as Halide's Exprs
    return Expr.wrap(to_node(t))
