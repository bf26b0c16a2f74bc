"""Whether this NumPy runs its AVX-512 max/min reduction loops, whose rule
for ties of 0.0 and -0.0 frontend_ast/numpy_zero_ties.py reproduces (NumPy's
AVX2 or baseline loops keep other elements of a tie). On other hosts the
signed-zero checks cannot apply and are skipped with this reason."""
from numpy._core import _multiarray_umath as _umath

_AVX512 = ("X86_V4", "AVX512_SKX", "AVX512_ICL", "AVX512_SPR")
_features = getattr(_umath, "__cpu_features__", {})
_built = set(getattr(_umath, "__cpu_dispatch__", [])) | set(getattr(_umath, "__cpu_baseline__", []))

NUMPY_AVX512_MINMAX = bool(_features.get("AVX512_SKX")) and any(t in _built for t in _AVX512)
REASON = "NumPy does not run its AVX-512 max/min loops here: another rule for ±0 ties"
