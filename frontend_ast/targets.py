"""The running target (PYHALIDE_TARGET, else the host) as an architecture,
a bit width and a set of Halide feature names, and the choice of a
per-architecture schedule side file (`x86-64-avx512.py`, `x86-64-avx2.py`,
`x86-64.py`, `arm-64.py`, `generic.py`): a file matches when its
architecture and every feature in its name are in the running target; the
one naming the most features wins, `generic.py` last."""
from __future__ import annotations

import functools
import os

# Halide feature -> features it implies
_IMPLIES = {
    "sse41": (), "avx": ("sse41",), "f16c": ("avx",), "fma": ("avx",),
    "avx2": ("avx", "fma", "f16c"), "avx512": ("avx2",), "avx512_knl": ("avx512",),
    "avx512_skylake": ("avx512",), "avx512_cannonlake": ("avx512_skylake",),
    "avx512_zen4": ("avx512_cannonlake",), "avx512_sapphirerapids": ("avx512_zen4",),
    "avxvnni": ("avx2",),
    "arm_dot_prod": (), "arm_fp16": (), "sve": (), "sve2": ("sve",),
}
_OSES = {"linux", "osx", "windows", "android"}

# LLVM host features -> the Halide feature they give (all listed must be present)
_HOST = (
    ("sse41", ("sse4.1",)), ("avx", ("avx",)), ("f16c", ("f16c",)), ("fma", ("fma",)),
    ("avx2", ("avx2",)), ("avx512", ("avx512f", "avx512cd")),
    ("avx512_skylake", ("avx512vl", "avx512bw", "avx512dq")),
    ("avx512_cannonlake", ("avx512ifma", "avx512vbmi")),
    ("avx512_zen4", ("avx512vnni", "avx512bf16", "avx512vbmi2", "avx512bitalg",
                     "avx512vpopcntdq")),
    ("avx512_sapphirerapids", ("avx512fp16",)),
    ("avxvnni", ("avxvnni",)),
    ("arm_dot_prod", ("dotprod",)), ("arm_fp16", ("fullfp16",)), ("sve", ("sve",)),
    ("sve2", ("sve2",)),
)


class Target:
    def __init__(self, arch: str, bits: int, features, text: str):
        self.arch = arch
        self.bits = bits
        self.features = frozenset(features)
        self.text = text

    def __repr__(self):
        return f"<Target {self.text}: {self.arch}-{self.bits} {sorted(self.features)}>"


def closure(features) -> set:
    out = set()

    def add(f):
        if f in out:
            return
        out.add(f)
        for d in _IMPLIES.get(f, ()):
            add(d)

    for f in features:
        add(f)
    return out


@functools.lru_cache(maxsize=None)
def host_target() -> Target:
    import llvmlite.binding as llvm
    try:
        llvm.initialize_native_target()
    except Exception:       # pragma: no cover - already initialized
        pass
    triple = llvm.get_process_triple()
    arch = triple.split("-")[0]
    arch = "x86" if arch in ("x86_64", "i386", "i686") else \
        ("arm" if arch in ("aarch64", "arm64", "arm") else arch)
    have = {f[1:] for f in llvm.get_host_cpu_features().flatten().split(",")
            if f.startswith("+")}
    feats = set()
    for name, need in _HOST:
        base = _IMPLIES.get(name, ())
        if all(n in have for n in need) and all(b in feats for b in base):
            feats.add(name)
    return Target(arch, 64, closure(feats), "host")


def parse_target(text: str | None) -> Target:
    s = (text or "host").strip().lower()
    toks = [t for t in s.split("-") if t]
    if not toks or toks[0] == "host":
        h = host_target()
        extra = toks[1:] if toks else []
        return Target(h.arch, h.bits, closure(set(h.features) | set(extra)), s or "host")
    arch = toks[0]
    bits = 64
    rest = toks[1:]
    if rest and rest[0] in ("32", "64"):
        bits = int(rest[0])
        rest = rest[1:]
    rest = [t for t in rest if t not in _OSES]
    return Target(arch, bits, closure(rest), s)


def running_target() -> Target:
    return parse_target(os.environ.get("PYHALIDE_TARGET") or "host")


def describe_file(stem: str):
    """(arch, bits, features) of a side file name, 'generic', or None."""
    if stem == "generic":
        return "generic"
    toks = stem.lower().split("-")
    if len(toks) < 2 or toks[0] not in ("x86", "arm") or toks[1] not in ("32", "64"):
        return None
    return toks[0], int(toks[1]), [t for t in toks[2:] if t not in _OSES]


def rank_side_files(folder: str, target: Target) -> list:
    """Matching .py files of a side folder, best first."""
    if not os.path.isdir(folder):
        return []
    ranked = []
    for fn in sorted(os.listdir(folder)):
        if not fn.endswith(".py") or fn.startswith("_"):
            continue
        d = describe_file(fn[:-3])
        if d is None:
            continue
        path = os.path.join(folder, fn)
        if d == "generic":
            ranked.append((-1, fn, path))
            continue
        arch, bits, feats = d
        if arch != target.arch or bits != target.bits:
            continue
        if not all(f in target.features for f in feats):
            continue
        ranked.append((len(closure(feats)), fn, path))
    ranked.sort(key=lambda t: (-t[0], t[1]))
    return [p for _, _, p in ranked]
