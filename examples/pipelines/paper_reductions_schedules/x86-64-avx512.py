"""Schedules of examples/pipelines/paper_reductions.py for target x86-64-avx512:
partial results 8 lanes wide, as in Halide's rfactor.cpp (see _common.py)."""
import importlib.util
import os

_spec = importlib.util.spec_from_file_location(
    "_paper_reductions_schedules_common", os.path.join(os.path.dirname(__file__), "_common.py"))
_common = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_common)

LANES = 8


def max_reduction(p):
    _common.max_reduction(p, LANES)


def histogram2d(p):
    _common.histogram2d(p, LANES)


def argmin4d(p):
    _common.argmin4d(p, LANES)


def complex_mul(p):
    _common.complex_mul(p, LANES)


def dot(p):
    _common.dot(p, LANES)


def kitchen_sink(p):
    _common.kitchen_sink(p, LANES)
