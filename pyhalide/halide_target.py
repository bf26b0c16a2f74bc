"""Halide's Target API over pyhalide's targets (lowering/target.py):
hl.get_jit_target_from_environment(), hl.get_host_target(), hl.Target(str),
hl.TargetFeature, hl.TargetOS, hl.host_supports_target_device; hl.Partition
(loop-partitioning hints). A GPU feature can be added to a Target (Halide's
tutorials do, then ask host_supports_target_device, which is False here)."""
from __future__ import annotations

import enum
import os
import sys

from . import ir

_GPU = ("CUDA", "OpenCL", "Metal", "Vulkan", "D3D12Compute", "WebGPU", "HVX")
# TargetFeature -> the Halide feature name of lowering/target.py it tests
_CPU = {"SSE41": "sse41", "AVX": "avx", "AVX2": "avx2", "FMA": "fma", "F16C": "f16c",
        "AVX512": "avx512", "AVX512_Skylake": "avx512_skylake",
        "AVX512_Cannonlake": "avx512_cannonlake", "AVX512_Zen4": "avx512_zen4",
        "AVX512_SapphireRapids": "avx512_sapphirerapids", "AVXVNNI": "avxvnni",
        "ARMDotProd": "arm_dot_prod", "ARMFp16": "arm_fp16", "SVE": "sve", "SVE2": "sve2"}
# LLVM feature that shows the Halide feature on a host target
_LLVM = {"sse41": "sse4.1", "avx": "avx", "avx2": "avx2", "fma": "fma", "f16c": "f16c",
         "avx512": "avx512f", "avx512_skylake": "avx512bw", "avx512_cannonlake": "avx512vbmi",
         "avx512_zen4": "avx512bf16", "avx512_sapphirerapids": "avx512fp16",
         "avxvnni": "avxvnni", "arm_dot_prod": "dotprod", "arm_fp16": "fullfp16",
         "sve": "sve", "sve2": "sve2"}

TargetFeature = enum.Enum("TargetFeature", [*_CPU, *_GPU, "JIT", "Debug", "NoAsserts",
                                            "NoBoundsQuery", "LargeBuffers", "StrictFloat",
                                            "SSE"])
# Halide's name of each feature in target strings (SSE, pyhalide's "any x86", has none)
_NAME = {**{k: v for k, v in _CPU.items()}, **{g: g.lower() for g in _GPU},
         "JIT": "jit", "Debug": "debug", "NoAsserts": "no_asserts",
         "NoBoundsQuery": "no_bounds_query", "LargeBuffers": "large_buffers",
         "StrictFloat": "strict_float"}
_BY_NAME = {v: k for k, v in _NAME.items()}


TargetOS = enum.Enum("TargetOS", ["OSUnknown", "Linux", "Windows", "OSX", "Android", "IOS",
                                   "QuRT", "NoOS", "Fuchsia", "wasmrt"])
TargetArch = enum.Enum("TargetArch", ["ArchUnknown", "X86", "ARM", "Hexagon", "POWERPC",
                                      "RISCV", "WebAssembly"])
_OS_NAME = {TargetOS.OSUnknown: "os_unknown", TargetOS.Linux: "linux",
            TargetOS.Windows: "windows", TargetOS.OSX: "osx", TargetOS.Android: "android",
            TargetOS.IOS: "ios", TargetOS.QuRT: "qurt", TargetOS.NoOS: "noos",
            TargetOS.Fuchsia: "fuchsia", TargetOS.wasmrt: "wasmrt"}
_ARCH_NAME = {TargetArch.ArchUnknown: "arch_unknown", TargetArch.X86: "x86",
              TargetArch.ARM: "arm", TargetArch.POWERPC: "powerpc",
              TargetArch.Hexagon: "hexagon", TargetArch.WebAssembly: "wasm",
              TargetArch.RISCV: "riscv"}
_OS_BY_NAME = {v: k for k, v in _OS_NAME.items()}
_ARCH_BY_NAME = {v: k for k, v in _ARCH_NAME.items()}

DeviceAPI = enum.Enum("DeviceAPI", ["None_", "Host", "Default_GPU", "CUDA", "Vulkan",
                                    "OpenCL", "Metal", "Hexagon"])


class Partition(enum.Enum):
    """Loop-partitioning hints (f.partition(x, hl.Partition.Never)). pyhalide
    partitions loops itself; Never keeps a loop from being partitioned
    (lowering/partition_loops.py), Auto and Always leave it to the pass. A
    hint never changes results."""
    Auto = 0
    Never = 1
    Always = 2


def _feature_name(feature) -> str:
    name = feature.name if isinstance(feature, TargetFeature) else str(feature)
    if name not in TargetFeature.__members__:
        raise ValueError(f"unknown target feature {feature!r}")
    return name


def _host():
    """(os, arch, bits, feature names) of this machine, the CPU features read
    from LLVM's host features (lowering/target.py)."""
    from .lowering.target import host_target
    t = host_target()
    feats = {f.lstrip("+") for f in t.features.split(",") if f.startswith("+")}
    os_ = {"linux": TargetOS.Linux, "win32": TargetOS.Windows,
           "darwin": TargetOS.OSX}.get(sys.platform, TargetOS.OSUnknown)
    arch = TargetArch.X86 if t.arch == "x86" else TargetArch.ARM
    names = {n for n, h in _CPU.items() if _LLVM[h] in feats}
    if not t.cpu.startswith("znver"):
        names.discard("AVX512_Zen4")   # Halide's host detection sets it on AMD Zen 4 only
    return os_, arch, t.bits, names


def _parse(text: str):
    """Halide's merge_string: (os, arch, bits, features) of a target string,
    None where it is not one ("host" only first; each of arch, bits and os at
    most once; every other token a feature). "generic" stands for the host's
    arch, bits and os without features (pyhalide's spelling)."""
    os_, arch, bits, feats = TargetOS.OSUnknown, TargetArch.ArchUnknown, 0, set()
    seen = set()
    for i, tok in enumerate(text.split("-")):
        if tok in ("host", "generic"):
            if i > 0:
                return None
            os_, arch, bits, feats = _host()
            if tok == "generic":
                feats = set()
        elif tok in ("32", "64", "0"):
            if "bits" in seen:
                return None
            seen.add("bits")
            bits = int(tok)
        elif tok in _ARCH_BY_NAME:
            if "arch" in seen:
                return None
            seen.add("arch")
            arch = _ARCH_BY_NAME[tok]
        elif tok in _OS_BY_NAME:
            if "os" in seen:
                return None
            seen.add("os")
            os_ = _OS_BY_NAME[tok]
        elif tok in _BY_NAME:
            feats.add(_BY_NAME[tok])
        else:
            return None
    return os_, arch, bits, feats


class Target:
    """Halide's Target: os, arch, bits and a set of features.
    hl.Target() is the unknown target, hl.Target("") the host,
    hl.Target("x86-64-linux-avx2") a target string (a missing os is the host's,
    as pyhalide's PYHALIDE_TARGET strings allow), hl.Target(os, arch, bits,
    [features]). pyhalide compiles for PYHALIDE_TARGET (lowering/target.py);
    a Target here answers Halide's questions about one (to_string,
    has_feature, natural_vector_size, ...)."""

    def __init__(self, *args):
        if not args:
            self.os, self.arch, self.bits, feats = (TargetOS.OSUnknown,
                                                    TargetArch.ArchUnknown, 0, set())
        elif len(args) == 1 and isinstance(args[0], str):
            text = args[0].strip().lower() or "host"
            parsed = _parse(text)
            if parsed is not None and parsed[0] is TargetOS.OSUnknown and \
                    parsed[1] is not TargetArch.ArchUnknown:
                parsed = (_host()[0],) + parsed[1:]
            if parsed is None or self._unknown(*parsed[:3]):
                raise ValueError(f"Did not understand Halide target {args[0]!r}: expected "
                                 f"arch-bits-os-feature1-feature2... or host-feature1-...")
            self.os, self.arch, self.bits, feats = parsed
        elif 3 <= len(args) <= 4:
            self.os, self.arch, self.bits = args[0], args[1], int(args[2])
            listed = list(args[3]) if len(args) == 4 else []
            if not all(isinstance(f, TargetFeature) for f in listed):
                raise TypeError("Target(os, arch, bits, features): incompatible constructor "
                                "arguments: features must be a list of hl.TargetFeature")
            feats = {f.name for f in listed}
        else:
            raise TypeError("Target(), Target(str) or Target(os, arch, bits[, features])")
        self._features = set(feats)

    @staticmethod
    def _unknown(os_, arch, bits) -> bool:
        return os_ is TargetOS.OSUnknown or arch is TargetArch.ArchUnknown or bits == 0

    @staticmethod
    def validate_target_string(text: str) -> bool:
        parsed = _parse(text)
        return parsed is not None and not Target._unknown(*parsed[:3])

    def supported(self) -> bool:
        """Whether pyhalide can compile for it (x86 and ARM CPUs)."""
        return self.arch in (TargetArch.X86, TargetArch.ARM) and not self.has_gpu_feature()

    def has_unknowns(self) -> bool:
        return self._unknown(self.os, self.arch, self.bits)

    def _copy(self, features) -> "Target":
        out = Target(self.os, self.arch, self.bits)
        out._features = set(features)
        return out

    def set_feature(self, feature, value: bool = True) -> None:
        name = _feature_name(feature)
        (self._features.add if value else self._features.discard)(name)

    def set_features(self, features, value: bool = True) -> None:
        for f in features:
            self.set_feature(f, value)

    def with_feature(self, feature) -> "Target":
        return self._copy(self._features | {_feature_name(feature)})

    def without_feature(self, feature) -> "Target":
        return self._copy(self._features - {_feature_name(feature)})

    def has_feature(self, feature) -> bool:
        name = _feature_name(feature)
        if name == "SSE":
            return self.arch is TargetArch.X86
        return name in self._features

    def features_any_of(self, features) -> bool:
        return any(self.has_feature(f) for f in features)

    def features_all_of(self, features) -> bool:
        return all(self.has_feature(f) for f in features)

    def has_gpu_feature(self) -> bool:
        return any(f in self._features for f in _GPU if f != "HVX")

    def supports_device_api(self, api) -> bool:
        if api in (DeviceAPI.None_, DeviceAPI.Host):
            return True
        if api is DeviceAPI.Default_GPU:
            return self.has_gpu_feature()
        return (api.name if api is not DeviceAPI.Hexagon else "HVX") in self._features

    def supports_type(self, t, device=None) -> bool:
        """Halide's answer for 64-bit (and Vulkan 16-bit) types on GPU APIs;
        every type is supported on the host."""
        t = ir.as_type(t)
        if device is None:
            if t.bits != 64:
                return True
            no = {"Metal", "D3D12Compute", "WebGPU", "Vulkan"} | \
                ({"OpenCL"} if t.is_float() else set())
            return not (self._features & no)
        if device is DeviceAPI.Default_GPU:
            device = next((a for a in (DeviceAPI.CUDA, DeviceAPI.OpenCL, DeviceAPI.Metal,
                                       DeviceAPI.Vulkan) if a.name in self._features),
                          DeviceAPI.Host)
        if device is DeviceAPI.Hexagon and (t.is_float() or t.bits == 64):
            return t.lanes == 1
        if device is DeviceAPI.Metal:
            return t.bits != 64
        if device in (DeviceAPI.OpenCL, DeviceAPI.Vulkan):
            return not (t.bits == 64 or (device is DeviceAPI.Vulkan and t.bits == 16))
        return True

    def has_large_buffers(self) -> bool:
        return "LargeBuffers" in self._features

    def maximum_buffer_size(self) -> int:
        return 2 ** 63 - 1 if self.bits == 64 and self.has_large_buffers() else 2 ** 31 - 1

    def natural_vector_size(self, t) -> int:
        """Lanes of type t in one vector register (Halide 21's
        Target::natural_vector_size for x86; 16 bytes elsewhere)."""
        t = ir.as_type(t)
        size = max(1, t.bits // 8)
        is_int = t.code in ("int", "uint")
        f = self._features
        if self.arch is TargetArch.X86:
            avx512 = {"AVX512_Skylake", "AVX512_Cannonlake", "AVX512_Zen4",
                      "AVX512_SapphireRapids"}
            if is_int and f & avx512:
                return 64 // size
            if t.is_float() and f & (avx512 | {"AVX512"}):
                return 64 // size
            if f & {"AVX2", "AVX512"} or (not is_int and "AVX" in f):
                return 32 // size
        return 16 // size

    def to_string(self) -> str:
        names = sorted(_NAME[f] for f in self._features if f in _NAME)
        return "-".join([_ARCH_NAME[self.arch], str(self.bits), _OS_NAME[self.os]] + names)

    def __eq__(self, other) -> bool:
        return isinstance(other, Target) and (self.os, self.arch, self.bits, self._features) \
            == (other.os, other.arch, other.bits, other._features)

    def __hash__(self) -> int:
        return hash((self.os, self.arch, self.bits, frozenset(self._features)))

    def __str__(self) -> str:
        return self.to_string()

    def __repr__(self) -> str:
        return f"<halide.Target {self.to_string()}>"


def target_feature_for_device_api(api) -> TargetFeature:
    """The Target feature that enables a device API (Hexagon: HVX)."""
    name = "HVX" if api is DeviceAPI.Hexagon else api.name
    if name not in _GPU:
        raise ValueError(f"{api} has no target feature")
    return TargetFeature[name]


def host_supports_target_device(target: Target) -> bool:
    """Whether this machine can run code for the target's device: True for
    a CPU target, False with a GPU or DSP feature (pyhalide has no offload)."""
    return not any(f in target._features for f in _GPU)


def get_host_target() -> Target:
    return Target("host")


def get_jit_target_from_environment() -> Target:
    """The target JIT code is compiled for: PYHALIDE_TARGET, else the host."""
    return Target(os.environ.get("PYHALIDE_TARGET", "host")).with_feature(TargetFeature.JIT)

