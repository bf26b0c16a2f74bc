"""Lost and false IndexErrors of a loop's start value under an `if` whose
test holds a lazily checked read, and after a `break` or `continue`
(session 27). Plain Python is the oracle: the value or the exception
type, and the argument arrays as written before the exception.

- A test holding a lazily checked read (`d = x[j + 1]` under an `if` before
  d's loop): the start of c was neither guarded nor stored on fd45b8c (a
  lost IndexError of c's inner loop; also a false one of c's start).
  defs.Definitions._start_under_ifs now guards it when Python evaluates the
  test wherever c's Func is (scope.test_reached: also after a `continue`,
  where scope.if_reached evaluates the test only in the iterations that
  reach it).
- After a `break`: `d = x[j + k]; d = x[j] * 2.0` keeps the first value in
  the false branch of the running condition; start_checks.start_checked
  counted that never-taken read (ir.live_calls leaves it out), so c's value
  was not stored (lost IndexError).
- A start value after a `break` (`d = x[j + k]` before d's loop) was
  computed at the iterations past the break (a false IndexError): it is
  now guarded by the running condition as by an `if`'s.
- A value assigned under an `if` after a `continue` and assigned again
  before any read (`t = 0.0; if x[j] > 0.4: t = x[j + 1]`, then `t = ...`)
  has two types (float where the iteration does not run, float64 where it
  does): check_order.LoopSinks skipped such a union (a lost IndexError);
  it now stores each alternative that may raise where its condition holds
  (LoopSinks._store_alternatives)."""
import numpy as np

import pyhalide as ph
from tests.frontend.test_lost_errors24 import _outcome


def lazy_read_in_the_test(x, k, flag):
    n = len(x)
    y = np.zeros(n)
    for j in range(n):
        d = 0.0
        if x[j] > 0.4:
            d = x[j + 1]                # x[n] at j = n - 1, lazily
        for jj in range(j + 1):
            d += x[jj]
        c = 0.0
        if d * x[j] > flag:
            c = x[k + j]
            for jj in range(j, j + 2):
                c += x[jj]              # x[n] at j = n - 1
        for t in range(k):
            y[j] = c + t
    return y


def lazy_read_in_the_test_after_continue(x, k, flag):
    s = 0.0
    for j in range(len(x)):
        if j == 1:
            continue
        d = x[j + 1] if x[j] > 0.4 else 0.0     # lazily
        for jj in range(k):
            d += x[j + jj]
        c = 0.0
        if d * x[j] > flag:
            c = d + x[j // 2 + 1]       # x[1] at n = 1
            for jj in range(k):
                c += d * x[jj]
        for t in range(k):
            s += c + t
    return s


def after_break(x, k, flag):
    n = len(x)
    y = np.zeros(n)
    for j in range(n):
        if j == 2:
            break
        d = x[j + k]
        d = x[j] * 2.0
        c = 0.0
        if d > flag:
            c = d
            for jj in range(2):
                c += x[j + jj]          # x[n] at j = n - 1
        for t in range(k):
            y[j] = max(c, t)
    return y


def start_past_the_break(x, k, flag):
    y = np.zeros(len(x))
    for j in range(len(x)):
        if j >= 2:
            break
        d = x[j + k]                    # x[3] at j = 2 with k = 1: not run
        for jj in range(2):
            d += x[jj] * x[j]
        y[j] = d
    return y


def after_continue_in_place(x, k, flag, y):
    n = len(x)
    s = 0.0
    for j in range(n):
        if x[j] > 0.6:
            continue
        d = x[j + k]
        d = x[j] * 2.0
        y[j] = d
        c = 0.0
        if d > flag:
            c = d
            for jj in range(j, j + 2):
                c += x[jj]
        for t in range(k):
            s += c + t
    return s


def killed_after_continue_in_place(x, k, flag, y):
    for j in range(len(x)):
        if j == 1:
            continue
        t = 0.0
        if x[j] > 0.4:
            t = x[j + 1]                # x[n] at j = n - 1, assigned again below
        t = x[j] * 2.0
        y[j] = t
    return y


def _check(fn, in_place=False):
    compiled = ph.pipeline(fn)
    for n in (1, 2, 3, 4):
        for k in (0, 1, 2):
            for flag in (0.25, 2.0, -1.0):
                args = (np.linspace(0.0, 1.0, n), k, flag)
                if in_place:
                    args += (np.full(n, -1.0),)
                assert _outcome(compiled, args) == _outcome(fn, args), (n, k, flag)


def test_lazy_checked_read_in_the_test():
    _check(lazy_read_in_the_test)


def test_lazy_checked_read_in_the_test_after_continue():
    _check(lazy_read_in_the_test_after_continue)


def test_start_after_break():
    _check(after_break)


def test_start_after_continue_in_place():
    _check(after_continue_in_place, in_place=True)


def test_start_past_the_break():
    _check(start_past_the_break)


def test_killed_value_after_continue_in_place():
    _check(killed_after_continue_in_place, in_place=True)
