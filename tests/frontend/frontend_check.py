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
            # order="K": a copy keeps the layout a float sum's order depends on
            return p.py_func(*[a.copy(order="K") if isinstance(a, np.ndarray) else a
                               for a in args])


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


def ulp_key(x: np.ndarray) -> np.ndarray:
    """Floats mapped to integers in their order (adjacent floats differ by 1)."""
    it = np.int32 if x.dtype == np.float32 else np.int64
    i = x.view(it).astype(np.int64)
    return np.where(i < 0, np.iinfo(it).min - i, i)


def assert_near(got, exp, ulps=2):
    """Same type (dtype and shape for arrays); NaN where NumPy has NaN, equal
    infinities, and the other elements within `ulps` units in the last place
    (FRONTEND.md: transcendental functions are within 2 ulp of NumPy's)."""
    if not isinstance(exp, np.ndarray):
        assert type(got) is type(exp), (got, exp)
        got, exp = np.asarray(got), np.asarray(exp)
    assert isinstance(got, np.ndarray) and got.dtype == exp.dtype and got.shape == exp.shape, \
        (got, exp)
    got, exp = got.reshape(-1), exp.reshape(-1)
    nan = np.isnan(exp)
    assert np.array_equal(np.isnan(got), nan), (got, exp)
    dist = np.abs(ulp_key(got[~nan]) - ulp_key(exp[~nan]))
    assert dist.size == 0 or dist.max() <= ulps, \
        f"{dist.max()} ulp apart: {got[~nan][dist.argmax()]!r} vs {exp[~nan][dist.argmax()]!r}"


def near(p, *args, ulps=2):
    """p(*args) is plain Python's result within `ulps` (element by element for tuples)."""
    got, exp = p(*args), run_plain(p, *args)
    if isinstance(exp, tuple):
        assert isinstance(got, tuple) and len(got) == len(exp), (got, exp)
        for g, e in zip(got, exp):
            assert_near(g, e, ulps)
    else:
        assert_near(got, exp, ulps)
    return got
