"""Compare a @pipeline function with its plain Python self."""
import numpy as np


def same(got, exp) -> bool:
    """Equal values and equal types: arrays by dtype, shape and bits;
    scalars by exact type (Python int/float/bool or NumPy scalar type)."""
    if isinstance(exp, tuple):
        return isinstance(got, tuple) and len(got) == len(exp) and \
            all(same(g, e) for g, e in zip(got, exp))
    if isinstance(exp, np.ndarray):
        return isinstance(got, np.ndarray) and got.dtype == exp.dtype and \
            got.shape == exp.shape and np.array_equal(got, exp, equal_nan=exp.dtype.kind == "f")
    if type(got) is not type(exp):
        return False
    if isinstance(exp, (float, np.floating)):
        return (got == exp and np.signbit(got) == np.signbit(exp)) or (got != got and exp != exp)
    return got == exp


def describe(v):
    if isinstance(v, tuple):
        return "(" + ", ".join(describe(x) for x in v) + ")"
    if isinstance(v, np.ndarray):
        return f"array({v.tolist()!r}, dtype={v.dtype})"
    return repr(v)


def run_plain(p, *args):
    with np.errstate(all="ignore"):
        import warnings
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return p.py_func(*[a.copy() if isinstance(a, np.ndarray) else a for a in args])


def check(p, *args):
    """p(*args) equals p.py_func(*args), leaves the inputs alone, and returns
    the compiled result."""
    before = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    try:
        exp = run_plain(p, *args)
    except Exception as e:       # the compiled call must raise the same exception type
        try:
            p(*args)
        except type(e):
            return None
        raise AssertionError(f"{p.__name__}: plain Python raised {type(e).__name__}: {e}; "
                             f"the compiled call did not")
    got = p(*args)
    for a, b in zip(args, before):
        if isinstance(a, np.ndarray):
            assert np.array_equal(a, b, equal_nan=True), f"{p.__name__} modified an input"
    assert same(got, exp), f"{p.__name__}: compiled {describe(got)} != plain {describe(exp)}"
    return got
