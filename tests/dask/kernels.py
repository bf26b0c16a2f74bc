"""@pipeline kernels the Dask tests run (workers get them pickled by their definition)."""
import numpy as np

import pyhalide as ph
import tests.rfactor.test_parallel_scan_frontend as scan_loops  # their scan loops
import tests.scans.test_scan_peel as peel_loops


@ph.pipeline
def total(a):
    s = 0
    for i in range(a.shape[0]):
        s += a[i]
    return s

@ph.pipeline
def argmin(a):
    best = a[0]
    idx = 0
    for i in range(1, a.shape[0]):
        if a[i] < best:
            best = a[i]
            idx = i
    return idx

@ph.pipeline
def hist(a):
    h = np.zeros(16, np.int64)
    for i in range(a.shape[0]):
        h[a[i]] += 1
    return h

@ph.pipeline
def dot(a, b):
    s = 0
    for i in range(a.shape[0]):
        if a[i] > 0:
            s += a[i] * b[i]
    return s

@ph.pipeline
def mean(a):
    s = 0.0
    for i in range(a.shape[0]):
        s += a[i]
    return s / a.shape[0]

@ph.pipeline
def scale(a, b, k):
    out = np.empty_like(a)
    for i in range(a.shape[0]):
        out[i] = a[i] * k + b[i] + i
    return out

@ph.pipeline
def blur(a):
    n = a.shape[0]
    out = np.zeros_like(a)
    for i in range(1, n - 1):
        out[i] = a[i - 1] + a[i] + a[i + 1]
    return out

@ph.pipeline
def matprod(m):
    # 2x2 integer matrix product over a sequence of matrices m[i] = (a, b, c, d)
    a, b, c, d = 1, 0, 0, 1
    for i in range(m.shape[0]):
        a, b, c, d = (a * m[i, 0] + b * m[i, 2], a * m[i, 1] + b * m[i, 3],
                      c * m[i, 0] + d * m[i, 2], c * m[i, 1] + d * m[i, 3])
    return a, b, c, d

@ph.pipeline
def fsum(a):
    s = 0.0
    for i in range(a.shape[0]):
        s += a[i]
    return s

@ph.pipeline
def unproven(a):
    s = 0
    for i in range(a.shape[0]):
        s = s * 3 + a[i] * s
    return s


@ph.pipeline
def prefix(a):
    out = np.zeros_like(a)
    for i in range(a.shape[0]):
        out[i] = a[i]
    for i in range(1, a.shape[0]):
        out[i] += out[i - 1]
    return out


@ph.pipeline
def hist_doubled(a):
    h = np.zeros(16, np.int64)
    for i in range(a.shape[0]):
        h[a[i]] += 1
    for j in range(16):
        h[j] = h[j] * 2 + 1
    return h


@ph.pipeline
def sum_from(a, s0):
    s = s0
    for i in range(a.shape[0]):
        s += a[i]
    return s


@ph.pipeline
def last_position(a):
    pos = np.zeros(16, np.int64)
    for i in range(a.shape[0]):
        pos[a[i]] = i
    return pos


@ph.pipeline
def last_big(a):
    last = -1
    for i in range(a.shape[0]):
        if a[i] > 5:
            last = i
    return last


@ph.pipeline
def pair_sum(a, b):
    s = 0
    for i in range(a.shape[0]):
        for j in range(b.shape[0]):
            s += a[i] * b[j]
    return s


@ph.pipeline
def doubled_and_total(a):
    out = np.empty_like(a)
    s = 0
    for i in range(a.shape[0]):
        out[i] = a[i] * 2
        s += a[i]
    return out, s


@ph.pipeline
def hist2d(img):
    h = np.zeros(16, np.int64)
    for y in range(img.shape[0]):
        for x in range(img.shape[1]):
            h[img[y, x]] += 1
    return h


@ph.pipeline
def argmin2d(img):
    best = img[0, 0]
    by = 0
    bx = 0
    for y in range(img.shape[0]):
        for x in range(img.shape[1]):
            if img[y, x] < best:
                best = img[y, x]
                by = y
                bx = x
    return by, bx


def die_once(block, flag=None, at=0, block_info=None):
    """The block, after killing this worker process the first time block `at`
    runs (a worker that dies mid-computation: tests/dask/test_dask_cluster.py)."""
    import os
    if block_info[0]["chunk-location"][0] == at and not os.path.exists(flag):
        open(flag, "w").close()
        os._exit(1)
    return block


# ---- scans along the chunked axis (pyhalide/dask_scan.py) ----
@ph.pipeline
def running_sum(x):
    out = np.zeros(x.shape[0], np.int64)
    acc = np.int64(3)
    for i in range(x.shape[0]):
        acc += x[i]
        out[i] = acc
    return out


running_max = ph.pipeline(peel_loops.running_max_from_1)


segmented_sum = ph.pipeline(scan_loops.segmented_sum)


recurrence = ph.pipeline(scan_loops.recurrence)


@ph.pipeline
def float_cumsum(x):
    out = np.empty(x.shape[0], np.float64)
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i]
        out[i] = s
    return out


@ph.pipeline
def unproven_scan(x):
    out = np.empty(x.shape[0], np.int32)
    s = np.int32(1)
    for i in range(x.shape[0]):
        s = s * s + x[i]
        out[i] = s
    return out


argmax_so_far = ph.pipeline(scan_loops.argmax_so_far)


@ph.pipeline
def row_cumsum(a):
    # a scan along axis 1 of a 2-D array, one line per row
    out = np.empty_like(a)
    for i in range(a.shape[0]):
        acc = 0
        for j in range(a.shape[1]):
            acc += a[i, j]
            out[i, j] = acc
    return out


@ph.pipeline
def integral(a):
    # an integral image: a scan along each row (np.cumsum), then one along each column
    out = np.cumsum(a, axis=1)
    for i in range(1, a.shape[0]):
        for j in range(a.shape[1]):
            out[i, j] += out[i - 1, j]
    return out


@ph.pipeline
def integral_cumsum(a):
    return np.cumsum(np.cumsum(a, axis=1), axis=0)


@ph.pipeline
def integral_acc(a):
    # the row scan through a running value (the frontend reads acc one point back)
    out = np.empty_like(a)
    for i in range(a.shape[0]):
        acc = 0
        for j in range(a.shape[1]):
            acc += a[i, j]
            out[i, j] = acc
    for i in range(1, a.shape[0]):
        for j in range(a.shape[1]):
            out[i, j] = out[i - 1, j] + out[i, j]
    return out


@ph.pipeline
def cumsum3(a):
    return np.cumsum(np.cumsum(np.cumsum(a, axis=0), axis=1), axis=2)


@ph.pipeline
def cumsum_and_total(a):
    # a scan and its final carry returned together
    out = np.empty_like(a)
    acc = 0
    for i in range(a.shape[0]):
        acc += a[i]
        out[i] = acc
    return out, acc


@ph.pipeline
def running_max_and_more(a, lut):
    # the running max, its final value plus a table entry, and an element
    out = np.empty_like(a)
    best = a[0]
    for i in range(a.shape[0]):
        best = max(best, a[i])
        out[i] = best
    return out, best + lut[3], a[2]


@ph.pipeline
def cumsum_and_sum(a):
    # a scan and a sum of the whole argument: the sum is not read from the scan
    out = np.empty_like(a)
    acc = 0
    for i in range(a.shape[0]):
        acc += a[i]
        out[i] = acc
    t = 0
    for i in range(a.shape[0]):
        t += a[i] * 2
    return out, t
