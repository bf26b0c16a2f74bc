"""Loop nests over the rows of a 2-D array, as plain Python (the reference)
and for `@ph.pipeline`: test_specialize_rows22, test_rare_extreme_branch22,
test_select_extent_bound22."""


def argmin2d(a):
    best = a[0, 0]
    bi = bj = 0
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            if a[i, j] < best:
                best = a[i, j]
                bi, bj = i, j
    return best, bi, bj


def row_argmax(a, out):
    for i in range(a.shape[0]):
        m = a[i, 0]
        k = 0
        for j in range(a.shape[1]):
            if a[i, j] > m:
                m = a[i, j]
                k = j
        out[i] = k
    return out
