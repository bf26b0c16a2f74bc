"""Helper functions in a second module, called from @pipeline code in
test_user_calls.py (their globals resolve here, not in the caller's module)."""
import math

import numpy as np

SCALE = 3.0


def scaled(x):
    return x * SCALE


def norm2(a, b):
    return np.sqrt(a * a + b * b)


def clip_index(i, n):
    if i < 0:
        return 0
    if i >= n:
        return n - 1
    return i


def ceil_half(x):
    return math.ceil(x / 2)


def bad_index(a, i):
    return a[i] + undefined_name  # noqa: F821


def fill_row(out, i, v):
    for j in range(out.shape[1]):
        out[i, j] = v + j
