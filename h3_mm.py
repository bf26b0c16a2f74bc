import time, numpy as np, pyhalide as ph

@ph.pipeline
def mm(a, b):
    return a @ b

n = 256
import sys
n = int(sys.argv[1]) if len(sys.argv) > 1 else 256
rng = np.random.default_rng(0)
a, b = rng.standard_normal((n, n)), rng.standard_normal((n, n))
t = time.perf_counter(); c = mm(a, b); t1 = time.perf_counter() - t
t = time.perf_counter(); c = mm(a, b); t2 = time.perf_counter() - t
t = time.perf_counter(); e = a @ b; t3 = time.perf_counter() - t
print(f"n={n} first {t1:.3f}s second {t2:.4f}s numpy {t3:.4f}s ratio {t2/t3:.1f} maxerr {np.abs(c-e).max():.2e}")
