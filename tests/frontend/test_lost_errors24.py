"""IndexErrors that compiled loops lost where the value read is used only
where it does not run (session 24): plain Python raises at the read, in
every iteration, used or not. Every outcome (the exception type, the value,
and the arrays as written before the exception) equals plain Python.

- The read's index reads the array the nest writes (`t = a[i,
  int(a[i, 0])]` before `for j in range(1, m): a[i, j] = t`, m <= 1): the
  check's position reads a Func (the array's version), which LoopSinks'
  flag store left out. Now kept where deps.check_reads lets a definition
  of its own read it (check_order._reads_hold), and deps.classify proves
  that a[i, 0] is never written by `a[i, j]`, j in range(1, m).
- A running value of an inner loop read only inside a later inner loop that
  does not run (`c += x[jj]`, then `for t in range(k): y[j] = c` with k =
  0): the inner loop's Func was never computed. Now its value is stored at
  each iteration of the enclosing loop (LoopSinks._store_results)."""
import numpy as np
import pytest

import pyhalide as ph


def indirect_column(a, m):
    for i in range(a.shape[0]):
        t = a[i, int(a[i, 0])]          # a[2, 7] on a (3, 2) array: IndexError
        for j in range(1, m):
            a[i, j] = t
    return a


def indirect_column_of_other(a, b, m):
    for i in range(a.shape[0]):
        t = b[i, int(a[i, 0])]
        for j in range(1, m):
            a[i, j] = t + 1.0
    return a


def index_named_first(a, m):
    for i in range(a.shape[0]):
        k = int(a[i, 0])
        t = a[i, k]
        for j in range(1, m):
            a[i, j] = t * 2.0
    return a


def running_value_read_in_unrun_loop(x, k):
    n = len(x)
    y = np.zeros(n)
    for j in range(n):
        c = 0.0
        for jj in range(j, j + 2):      # x[n] at j = n - 1
            c += x[jj]
        for t in range(k):
            y[j] = c + t
    return y


def _outcome(fn, args):
    args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    try:
        got = ("ok", np.asarray(fn(*args)).tolist())
    except IndexError:
        got = ("IndexError", None)
    return got, [a.tolist() for a in args if isinstance(a, np.ndarray)]


_A = [np.array([[0., 1.], [1., 0.], [7., 0.]]), np.array([[0., 1.], [1., 0.]]),
      np.array([[0., 1., 2.], [1., 0., 1.], [2., 0., 1.]]),
      np.array([[0., 1.], [1., 0.], [0., 1.], [1., 1.], [1., 1.]])]


@pytest.mark.parametrize("fn", [indirect_column, indirect_column_of_other, index_named_first])
def test_index_reading_the_written_array(fn):
    compiled = ph.pipeline(fn)
    for a in _A:
        for m in (0, 1, 3):
            args = (a, a[::-1] * 0.5, m) if fn is indirect_column_of_other else (a, m)
            assert _outcome(compiled, args) == _outcome(fn, args), (a.shape, a[:, 0], m)


def test_running_value_read_only_in_a_loop_that_does_not_run():
    compiled = ph.pipeline(running_value_read_in_unrun_loop)
    for n in (1, 4):
        for k in (0, 2):
            args = (np.linspace(0.0, 1.0, n), k)
            assert _outcome(compiled, args) == _outcome(running_value_read_in_unrun_loop,
                                                        args), (n, k)


def test_read_at_a_row_the_nest_writes_later_reads_the_old_value():
    # a[i + 1, i] is written at iteration i + 1 (j in range(0, i + 1)): a
    # definition of its own would read the value after the nest (refused up
    # to session 29; it compiles since and must read the value before the
    # write, as Python: 27.0 at n = 3, where the written values give 15.0)
    def later_row(a, n):
        s = 0.0
        for i in range(n):
            s += a[i + 1, i]
            for j in range(0, i):
                a[i, j] = 5.0
        return s
    compiled = ph.pipeline(later_row)
    for n in (0, 1, 3, 4):
        args = (np.arange(16.0).reshape(4, 4), n)
        assert _outcome(compiled, args) == _outcome(later_row, args), n


# Exception order inside one statement: lowering's shared subexpressions
# (LetStmts before the statement) asserted a later operand's check first;
# access_checks now asserts a statement's check images by creation number
# (Python's order), each after the checks its condition reads.

def shared_divisor(a, b, x):
    y = int(a[0] * x)
    return (3 // y) // (int(a[int(b[0])]) % (y + 2))


def shared_operand(a, b, x):
    return (3 // int(a[0] * x)) + (int(a[int(b[0])]) % int(a[0] * x + 1))


def _raised(fn, *args):
    try:
        return "ok", fn(*args)
    except (IndexError, ZeroDivisionError, ValueError, OverflowError) as e:
        return type(e).__name__, None


@pytest.mark.parametrize("fn", [shared_divisor, shared_operand])
def test_shared_subexpressions_keep_python_order(fn):
    compiled = ph.pipeline(fn)
    a = np.array([1.0, 2.0])
    for b0 in (5.0, 0.0, np.nan):
        for x in (0.0, 1.0, np.nan):
            args = (a, np.array([b0]), x)
            assert _raised(compiled, *args) == _raised(fn, *args), (b0, x)


def overwritten_before_read(a, m):
    # the first two values of t are read nowhere (found by the session 24 fuzz)
    w = np.zeros(a.shape[0])
    for i in range(a.shape[0]):
        t = a[i, (i * 3) % 5]
        t = a[i, i // 2 + 1]            # a[1, 1], a[2, 2]: IndexError on a (3, 2) array
        t = a[i, i % 2]
        if t > 0.5:                     # a sure read, of the last value only
            w[i] = t * m
    return w


def test_value_overwritten_before_any_read():
    compiled = ph.pipeline(overwritten_before_read)
    for shape in ((2, 2), (3, 2), (2, 5)):
        for m in (0, 2):
            args = (np.ones(shape), m)
            assert _outcome(compiled, args) == _outcome(overwritten_before_read, args), (shape, m)


def running_value_of_written_array(A, b, x):
    # the inner loop reads x, which the nest writes: its running value is
    # not stored (LoopSinks' store of s would be refused); the imperative
    # nest keeps the read's check
    n = b.shape[0]
    for i in range(n):
        s = 0.0
        for j in range(i):
            s += A[i, j] * x[j]         # A[3, 3] on a (5, 3) array: IndexError
        if b[i] > 1.5:
            x[i] = b[i] - s
    return x


def test_running_value_reading_the_written_array():
    compiled = ph.pipeline(running_value_of_written_array)
    for cols in (3, 5):
        for bv in (0.0, 2.0):
            args = (np.ones((5, cols)), np.full(5, bv), np.linspace(0.0, 1.0, 5))
            assert _outcome(compiled, args) == _outcome(running_value_of_written_array,
                                                        args), (cols, bv)


def escape_count(cx, cy, maxiter):
    out = np.zeros(len(cx), np.int64)
    for p in range(len(cx)):
        x = y = 0.0
        i = 0
        while x * x + y * y < 4.0 and i < maxiter:
            t = x * x - y * y + cx[p]
            y = 2.0 * x * y + cy[p]     # cy[p] past cy's end
            x = t
            i += 1
        out[p] = i
    return out


def counted_while_unused_sum(a, b, m):
    for p in range(len(a)):
        s = 0.0
        i = 0
        while i < m:
            s += b[p]       # s read nowhere
            i += 1
        a[p] = i * 0.5      # an argument: an output
    return a


def count_read_by_a_dead_name(cx, cy, maxiter):
    out = np.zeros(len(cx), np.int64)
    for p in range(len(cx)):
        x = y = 0.0
        i = 0
        while y * y < 4.0 and i < maxiter:
            y = x * y + cy[p]
            x += cx[p]
            i += 1
        k = i  # noqa: F841 (k read nowhere: no output realizes the loop's Func)
        out[p] = 1
    return out


@pytest.mark.parametrize("fn", [escape_count, counted_while_unused_sum,
                                count_read_by_a_dead_name])
def test_while_values_read_after_the_loop(fn):
    # the running value i, stored into an output after the loop, realizes
    # the loop's Func: LoopSinks stores no exit flag and no unread running
    # value there (check_order._output_reads); read only by a dead name,
    # they are stored. The reads' IndexErrors come where Python raises them
    compiled = ph.pipeline(fn)
    for cx, cy, m in [(np.zeros(6), np.zeros(3), 4), (np.full(6, 3.0), np.zeros(3), 4),
                      (np.zeros(6), np.zeros(3), 0), (np.zeros(6), np.zeros(6), 5),
                      (np.linspace(-2.0, 0.5, 6), np.linspace(-1.0, 1.0, 6), 30)]:
        args = (cx, cy, m)
        assert _outcome(compiled, args) == _outcome(fn, args), (len(cy), m)
