"""Every knob of pyhalide, read from the environment once and overridable in
tests (`config.override(debug=2)`).

PYHALIDE_DEBUG        0 silent; 1 list passes; 2 IR after each pass; 3 + LLVM IR; 4 + assembly
PYHALIDE_TIME_PASSES  1 prints the time of each pass
PYHALIDE_NUM_THREADS  threads of parallel loops, 1..1024 (default: all cores; checked
                      when the first parallel loop runs)
PYHALIDE_TARGET       Halide-style target string ("host", "x86-64-avx2", ...)
PYHALIDE_CACHE_DIR    the on-disk object cache ("" or "0" disables it; a relative
                      path is resolved against the working directory at import)
PYHALIDE_VERIFY       1 runs the IR verifier after every lowering pass
PYHALIDE_KERNEL_CACHE_SIZE  compiled kernels kept in memory (default 128; see ir/lru.py)
PYHALIDE_LLVM_PIPELINE  LLVM's optimization of a kernel: "full" (default: level 2 with
                      LLVM's loop and SLP vectorizers and unrolling), "lean" (level 1,
                      none of those) or "lean-vec" (level 1 with the loop vectorizer
                      only; see lowering/llvm_objects.default_options)
"""
from __future__ import annotations

import contextlib
import os
import sys
from dataclasses import dataclass, fields


def _threads_env():
    """PYHALIDE_NUM_THREADS as an int, or as the text given when it is not
    one (parallel_runtime refuses it then); unset or empty: every core."""
    raw = os.environ.get("PYHALIDE_NUM_THREADS", "").strip()
    if not raw:
        return os.cpu_count() or 1
    try:
        return int(raw)
    except ValueError:
        return raw


def _int_env(name: str, default: int) -> int:
    try:
        return int(os.environ.get(name, default))
    except ValueError:
        return default


def _strict_int_env(name: str, default: int):
    """The variable as an int, or its text when it is not one (the knob's
    user reports that as an error)."""
    text = os.environ.get(name, "").strip()
    if not text:
        return default
    try:
        return int(text)
    except ValueError:
        return text


@dataclass
class Config:
    debug: int = 0
    time_passes: bool = False
    num_threads: int = 0
    target: str = "host"
    cache_dir: str = ""
    verify: bool = False
    kernel_cache_size: object = 128     # an int >= 1 (checked where it is used: ir/lru.py)
    llvm_pipeline: str = "full"         # "full", "lean", "lean-vec" (checked where used)

    @staticmethod
    def from_env() -> "Config":
        cache = os.environ.get("PYHALIDE_CACHE_DIR")
        if cache is None:
            cache = os.path.join(os.path.expanduser("~"), ".cache", "pyhalide")
        elif cache in ("0",):
            cache = ""
        elif cache:                     # a relative path names one folder for the process
            cache = os.path.abspath(os.path.expanduser(cache))
        return Config(
            debug=_int_env("PYHALIDE_DEBUG", 0),
            time_passes=bool(_int_env("PYHALIDE_TIME_PASSES", 0)),
            num_threads=_threads_env(),
            target=os.environ.get("PYHALIDE_TARGET", "host") or "host",
            cache_dir=cache,
            verify=bool(_int_env("PYHALIDE_VERIFY", 0)),
            kernel_cache_size=_strict_int_env("PYHALIDE_KERNEL_CACHE_SIZE", 128),
            llvm_pipeline=os.environ.get("PYHALIDE_LLVM_PIPELINE", "").strip().lower() or "full",
        )


config = Config.from_env()


@contextlib.contextmanager
def override(**kw):
    """Temporarily set knobs: `with override(debug=2): ...`."""
    old = {f.name: getattr(config, f.name) for f in fields(config)}
    for k, v in kw.items():
        if k not in old:
            raise KeyError(f"unknown knob {k!r}")
        setattr(config, k, v)
    try:
        yield config
    finally:
        for k, v in old.items():
            setattr(config, k, v)


def debug_print(level: int, *args):
    """Print to stderr when PYHALIDE_DEBUG >= level."""
    if config.debug >= level:
        print(*args, file=sys.stderr)
