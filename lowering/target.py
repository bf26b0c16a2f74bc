"""Halide-style target strings -> an LLVM triple, CPU name and feature string.

    parse_target(text: str) -> Target
    host_target() -> Target
    check_runs_on_host(target: Target) -> None      (raises RuntimeError)

A target string is "host" or "<arch>-<bits>[-<os>][-<feature>...]", e.g.
"x86-64", "x86-64-avx2", "x86-64-linux-avx512_skylake", "arm-64-linux".
"generic" is the host's architecture with no optional feature ("x86-64" on
x86, "arm-64" on ARM): what the side files' `generic.py` is for.
"host" may also be followed by features ("host-avx2" adds nothing new on a
host that already has AVX2). Features imply their predecessors as in Halide
(avx512 implies avx2, fma, f16c, avx, sse41). The CPU name follows Halide's
CodeGen_X86::mcpu_target choice (avx2 -> haswell, avx512_skylake ->
skylake-avx512, ...), and the feature string lists every feature explicitly.

`check_runs_on_host` refuses to JIT code whose instructions the host CPU
lacks (it would die with SIGILL): the target's architecture must be the
host's and every feature the target enables, including those implied by its
CPU name, must be reported by the host.
"""
from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass

import llvmlite.binding as llvm

# Halide feature -> (features it implies, LLVM features it enables).
_X86_FEATURES = {
    "sse41": ((), ("sse4.1", "ssse3", "sse3")),
    "avx": (("sse41",), ("avx", "sse4.2", "popcnt")),
    "f16c": (("avx",), ("f16c",)),
    "fma": (("avx",), ("fma",)),
    "avx2": (("avx", "fma", "f16c"), ("avx2", "bmi", "bmi2", "lzcnt", "movbe")),
    "avx512": (("avx2",), ("avx512f", "avx512cd")),
    "avx512_knl": (("avx512",), ("avx512pf", "avx512er")),
    "avx512_skylake": (("avx512",), ("avx512vl", "avx512bw", "avx512dq")),
    "avx512_cannonlake": (("avx512_skylake",), ("avx512ifma", "avx512vbmi")),
    "avx512_zen4": (("avx512_cannonlake",), ("avx512vnni", "avx512bf16", "avx512vbmi2",
                                             "avx512bitalg", "avx512vpopcntdq", "gfni")),
    "avx512_sapphirerapids": (("avx512_zen4",), ("avx512fp16", "amx-tile")),
    "avxvnni": (("avx2",), ("avxvnni",)),
}

# Halide's mcpu choice, most specific first.
_X86_CPUS = (
    ("avx512_sapphirerapids", "sapphirerapids"),
    ("avx512_zen4", "znver4"),
    ("avx512_cannonlake", "cannonlake"),
    ("avx512_skylake", "skylake-avx512"),
    ("avx512_knl", "knl"),
    ("avx2", "haswell"),
    ("avx", "corei7-avx"),
    ("sse41", "penryn"),
)

# LLVM features a CPU name turns on by itself (the subset that matters for
# generated code); checked against the host before running JIT code.
_CPU_IMPLIES = {
    "x86-64": ("sse2",),
    "penryn": ("sse2", "sse3", "ssse3", "sse4.1"),
    "corei7-avx": ("sse4.2", "popcnt", "avx"),
    "haswell": ("avx2", "fma", "f16c", "bmi", "bmi2", "lzcnt", "movbe", "popcnt"),
    "knl": ("avx512f", "avx512cd", "avx512er", "avx512pf", "bmi2", "lzcnt", "movbe"),
    "skylake-avx512": ("avx512f", "avx512cd", "avx512vl", "avx512bw", "avx512dq",
                       "bmi2", "lzcnt", "movbe", "fma", "f16c"),
    "cannonlake": ("avx512f", "avx512cd", "avx512vl", "avx512bw", "avx512dq",
                   "avx512ifma", "avx512vbmi", "bmi2", "lzcnt", "movbe"),
    "znver4": ("avx512f", "avx512cd", "avx512vl", "avx512bw", "avx512dq",
               "avx512ifma", "avx512vbmi", "avx512vnni", "avx512bf16", "bmi2"),
    "sapphirerapids": ("avx512f", "avx512cd", "avx512vl", "avx512bw", "avx512dq",
                       "avx512fp16", "avx512bf16", "amx-tile", "bmi2"),
    "generic": (),
}

_ARM_FEATURES = {
    "arm_dot_prod": ((), ("dotprod",)),
    "arm_fp16": ((), ("fullfp16",)),
    "sve": ((), ("sve",)),
    "sve2": (("sve",), ("sve2",)),
}

_OSES = {"linux": "unknown-linux-gnu", "osx": "apple-macosx", "windows": "pc-windows-msvc",
         "android": "unknown-linux-android"}


@dataclass(frozen=True)
class Target:
    """A parsed target: what LLVM needs, plus what the string said."""

    text: str           # the string it was parsed from
    triple: str
    cpu: str
    features: str       # "+a,+b,..." as LLVM's TargetMachine wants it
    arch: str           # "x86" or "arm"
    bits: int
    is_host: bool

    def key(self) -> str:
        """What identifies generated code for this target (for caches)."""
        return f"{self.triple}|{self.cpu}|{self.features}"


_initialized = False

# LLVM's register coalescer shrinks the live interval of a value each time it
# rematerializes one of its copies, unless the value has at least this many
# copy uses: then it updates the interval once, after the work list
# (`-late-remat-update-threshold`, 100 by default). On pyhalide's large
# kernels (one function of 6,000-16,000 lines) the repeated updates made the
# coalescer a quarter to a third of LLVM's time: test_complex_sums'
# rows_and_views and test_array_numpy_more's nan variances, 1.1-1.4 s of
# coalescing in all, 0.14-0.17 s with 10; their first calls 5.3-5.6 -> 4.4-4.9
# and 3.6-3.7 -> 2.8-3.0 s CPU. The object code of those two and of 28 other
# kernels (np.average, insertion sorts, complex stacks, suite 4's harris and
# gray_scott) was byte-identical (session 24, docs/test_time.md).
# Process-wide: it applies to other LLVM users of the process (numba) too, and
# changes only when intervals are updated.
LATE_REMAT_UPDATE_THRESHOLD = 10


def init_llvm():
    """Initialize LLVM's native target once (llvm.initialize() raises on
    recent llvmlite; the native target and asm printer are all we need)
    and set the coalescer's threshold above."""
    global _initialized
    if not _initialized:
        llvm.initialize_native_target()
        llvm.initialize_native_asmprinter()
        llvm.set_option("", f"-late-remat-update-threshold={LATE_REMAT_UPDATE_THRESHOLD}")
        _initialized = True


def _host_arch() -> str:
    arch = llvm.get_process_triple().split("-")[0]
    if arch in ("x86_64", "i386", "i686"):
        return "x86"
    if arch in ("aarch64", "arm64", "arm"):
        return "arm"
    return arch


@functools.lru_cache(maxsize=None)
def host_target() -> Target:
    init_llvm()
    feats = llvm.get_host_cpu_features()
    return Target("host", llvm.get_process_triple(), llvm.get_host_cpu_name(),
                  feats.flatten(), _host_arch(), 64, True)


def _closure(names, table) -> list:
    """Halide features plus everything they imply, in a deterministic order."""
    out: list = []

    def add(n):
        if n in out:
            return
        for dep in table[n][0]:
            add(dep)
        out.append(n)

    for n in names:
        add(n)
    return out


def _llvm_features(halide_feats, table) -> list:
    llvm_feats: list = []
    for f in halide_feats:
        for lf in table[f][1]:
            if lf not in llvm_feats:
                llvm_feats.append(lf)
    return llvm_feats


@functools.lru_cache(maxsize=None)
def parse_target(text: str) -> Target:
    """Parse a Halide-style target string (see the module docstring)."""
    s = (text or "host").strip().lower()
    toks = [t for t in s.split("-") if t]
    if not toks:
        raise ValueError(f"empty target string {text!r}")
    if toks[0] == "host":
        host = host_target()
        extra = toks[1:]
        table = _X86_FEATURES if host.arch == "x86" else _ARM_FEATURES
        bad = [t for t in extra if t not in table]
        if bad:
            raise ValueError(f"unknown target feature(s) {bad} in {text!r}")
        added = ["+" + f for f in _llvm_features(_closure(extra, table), table)]
        feats = ",".join([host.features] + added) if added else host.features
        return Target(text, host.triple, host.cpu, feats, host.arch, 64, not added)
    if toks[0] == "generic":
        if len(toks) > 1:
            raise ValueError(f"target {text!r}: 'generic' takes no features (name an "
                             f"architecture, e.g. 'x86-64-avx2', to add some)")
        base = parse_target(f"{_host_arch()}-64")
        return dataclasses.replace(base, text=text)

    arch = toks[0]
    if arch not in ("x86", "arm"):
        raise ValueError(f"unknown architecture {arch!r} in target {text!r} "
                         "(expected 'host', 'x86' or 'arm')")
    if len(toks) < 2 or toks[1] not in ("32", "64"):
        raise ValueError(f"target {text!r}: the architecture must be followed by 32 or 64")
    bits = int(toks[1])
    rest = toks[2:]
    os_name = None
    if rest and rest[0] in _OSES:
        os_name = rest.pop(0)
    if os_name is None:
        host_os = llvm.get_process_triple().split("-")
        os_name = "linux" if "linux" in host_os else ("osx" if any(
            p.startswith(("darwin", "macos")) for p in host_os) else "windows")
    table = _X86_FEATURES if arch == "x86" else _ARM_FEATURES
    bad = [t for t in rest if t not in table]
    if bad:
        raise ValueError(f"unknown target feature(s) {bad} in {text!r}; known: "
                         f"{', '.join(sorted(table))}")
    feats = _closure(rest, table)
    llvm_feats = _llvm_features(feats, table)
    vendor_os = _OSES[os_name]
    if arch == "x86":
        cpu_arch = "x86_64" if bits == 64 else "i686"
        cpu = "x86-64" if bits == 64 else "generic"
        for feat, name in _X86_CPUS:
            if feat in feats:
                cpu = name
                break
        base = ["sse2"] if bits == 64 else []
        llvm_feats = base + [f for f in llvm_feats if f not in base]
    else:
        cpu_arch = "aarch64" if bits == 64 else "armv7"
        cpu = "generic"
        llvm_feats = ["neon"] + llvm_feats
    triple = f"{cpu_arch}-{vendor_os}"
    host = host_target()
    return Target(text, triple, cpu, ",".join("+" + f for f in llvm_feats), arch, bits,
                  triple == host.triple and cpu == host.cpu and
                  ",".join("+" + f for f in llvm_feats) == host.features)


def check_runs_on_host(target: Target) -> None:
    """Raise RuntimeError when code for `target` cannot execute on this machine."""
    if target.is_host:
        return
    host = host_target()
    if target.arch != host.arch or target.bits != 64 or \
            target.triple.split("-")[0] != host.triple.split("-")[0]:
        raise RuntimeError(f"target {target.text!r} ({target.triple}) cannot run on this "
                           f"host ({host.triple}); JIT compilation needs a host-compatible target")
    have = {f[1:] for f in host.features.split(",") if f.startswith("+")}
    need = [f[1:] for f in target.features.split(",") if f.startswith("+")]
    need += list(_CPU_IMPLIES.get(target.cpu, ()))
    missing = sorted({f for f in need if f not in have})
    if missing:
        raise RuntimeError(f"target {target.text!r} needs CPU features this host lacks: "
                           f"{', '.join(missing)}")
