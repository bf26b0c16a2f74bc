"""A corpus of NumPy kernels written the way people write them (whole-array
code), each a plain function with a seeded input generator; run.py
compiles each with ph.pipeline and compares it with plain Python."""
