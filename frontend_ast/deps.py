"""Reads inside a loop nest of arrays that the same nest writes: allowed
only when the value read is the one Python would read (see check_reads)."""
from __future__ import annotations


def check_reads(b, nodes, target):
    return
