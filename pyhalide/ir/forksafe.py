"""Locks that a forked child gets unlocked.

    fresh_in_child(owner, attr, factory=threading.Lock) -> lock

sets `owner.attr = factory()` and, through os.register_at_fork, again in
every child forked later (while `owner` is alive). A lock another thread of
the parent held at the fork would stay locked in the child forever (that
thread does not exist there); the child gets a new one instead. `owner` is a
module or any object that takes weak references.
"""
from __future__ import annotations

import os
import threading
import weakref

__all__ = ["fresh_in_child"]

_owners: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()   # owner -> {attr: factory}


def fresh_in_child(owner, attr: str, factory=threading.Lock):
    """owner.attr = factory(), renewed in every forked child; returns it."""
    lock = factory()
    setattr(owner, attr, lock)
    _owners.setdefault(owner, {})[attr] = factory
    return lock


def _renew_in_child():
    for owner, attrs in list(_owners.items()):
        for attr, factory in attrs.items():
            setattr(owner, attr, factory())


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_renew_in_child)
