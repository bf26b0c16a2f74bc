"""`PointSet`: a growing set of distinct integer points with stable slots."""
from __future__ import annotations

import numpy as np


class PointSet:
    """Distinct points of `ndim` int64 coordinates; each point keeps the slot
    (0, 1, 2, ...) it got when it was added. `cols[d][slot]` is coordinate d
    of a point. With ndim == 0 there is exactly one point, (), in slot 0.

    Lookup ranks each coordinate among the values present and folds the ranks
    dimension by dimension into the rank of the prefix among the prefixes
    present, so codes stay below size**2 for any coordinate range.
    """

    def __init__(self, ndim: int):
        self.ndim = ndim
        self.cols = [np.empty(0, np.int64) for _ in range(ndim)]
        self.size = 1 if ndim == 0 else 0
        self._levels = []           # per dim: (sorted values, sorted prefix codes)
        self._slot_of_rank = np.zeros(self.size, np.int64)

    def lookup(self, cols, n: int) -> np.ndarray:
        """Slots of the n given points (1-D coordinate arrays), -1 where absent."""
        if self.ndim == 0:
            return np.zeros(n, np.int64)
        if self.size == 0:
            return np.full(n, -1, np.int64)
        code = np.zeros(n, np.int64)
        found = np.ones(n, bool)
        for (values, prefixes), c in zip(self._levels, cols):
            r = np.minimum(np.searchsorted(values, c), len(values) - 1)
            found &= values[r] == c
            comb = code * len(values) + r
            j = np.minimum(np.searchsorted(prefixes, comb), len(prefixes) - 1)
            found &= prefixes[j] == comb
            code = j
        return np.where(found, self._slot_of_rank[code], -1)

    def add(self, cols, n: int) -> tuple[np.ndarray, int]:
        """Add the n given points that are absent; return (slots of all given
        points, number of points added). New points get the next slots."""
        slots = self.lookup(cols, n)
        missing = np.flatnonzero(slots < 0)
        if len(missing) == 0:
            return slots, 0
        new, inverse = np.unique(np.stack([c[missing] for c in cols], axis=1),
                                 axis=0, return_inverse=True)
        slots[missing] = self.size + inverse.reshape(-1)
        self.cols = [np.concatenate([old, new[:, d]]) for d, old in enumerate(self.cols)]
        self.size += len(new)
        self._build()
        return slots, len(new)

    def _build(self):
        code = np.zeros(self.size, np.int64)
        self._levels = []
        for c in self.cols:
            values = np.unique(c)
            comb = code * len(values) + np.searchsorted(values, c)
            prefixes, code = np.unique(comb, return_inverse=True)
            self._levels.append((values, prefixes))
        self._slot_of_rank = np.empty(self.size, np.int64)
        self._slot_of_rank[code.reshape(-1)] = np.arange(self.size)
