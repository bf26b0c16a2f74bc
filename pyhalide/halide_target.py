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
                                            "NoBoundsQuery", "LargeBuffers", "SSE"])


TargetOS = enum.Enum("TargetOS", ["OSUnknown", "Linux", "Windows", "OSX", "Android", "IOS",
                                   "QuRT", "NoOS", "wasmrt"])
TargetArch = enum.Enum("TargetArch", ["ArchUnknown", "X86", "ARM", "Hexagon", "POWERPC",
                                      "RISCV", "WebAssembly"])


class Partition(enum.Enum):
    """Loop-partitioning hints (f.partition(x, hl.Partition.Never)). pyhalide
    partitions loops itself; a hint never changes results."""
    Auto = 0
    Never = 1
    Always = 2


class Target:
    """A compilation target: hl.Target("host"), hl.Target("x86-64-avx2")."""

    def __init__(self, text: str = "host"):
        from .lowering.target import parse_target
        self._t = parse_target(text)
        self._text = text
        self._devices = ()           # GPU features added by with_feature

    @property
    def os(self):
        return {"linux": TargetOS.Linux, "win32": TargetOS.Windows,
                "darwin": TargetOS.OSX}.get(sys.platform, TargetOS.OSUnknown)

    @property
    def arch(self):
        return TargetArch.X86 if self._t.arch == "x86" else TargetArch.ARM

    def with_feature(self, feature) -> "Target":
        """This target with `feature` added (a GPU feature is kept by name:
        pyhalide compiles nothing for it)."""
        name = feature.name if isinstance(feature, TargetFeature) else str(feature)
        if name in _GPU:
            out = Target(self._text)
            out._devices = tuple(sorted(set(self._devices) | {name}))
            return out
        if name not in _CPU:
            raise ValueError(f"with_feature: unknown target feature {feature!r}")
        out = Target(f"{self._text}-{_CPU[name]}")
        out._devices = self._devices
        return out

    def _features(self) -> set:
        return {f.lstrip("+") for f in self._t.features.split(",") if f.startswith("+")}

    def has_feature(self, feature) -> bool:
        name = feature.name if isinstance(feature, TargetFeature) else str(feature)
        if name in _GPU:
            return name in self._devices
        if name == "JIT":
            return self._t.is_host
        if name == "SSE":
            return self._t.arch == "x86"
        halide = _CPU.get(name)
        return halide is not None and _LLVM[halide] in self._features()

    def has_gpu_feature(self) -> bool:
        return any(d != "HVX" for d in self._devices)

    def natural_vector_size(self, t) -> int:
        """Lanes of type t in one vector register of this target."""
        bits = ir.as_type(t).bits
        feats = self._features()
        if self._t.arch != "x86":
            width = 128
        else:
            width = 512 if "avx512f" in feats else 256 if "avx" in feats else 128
        return max(1, width // max(bits, 8))

    def bits(self) -> int:
        return self._t.bits

    def to_string(self) -> str:
        return "-".join([self._text] + [d.lower() for d in self._devices])

    def __str__(self) -> str:
        return self.to_string()

    def __repr__(self) -> str:
        return f"<pyhalide.Target {self.to_string()}>"


def host_supports_target_device(target: Target) -> bool:
    """Whether this machine can run code for the target's device: True for
    a CPU target, False with a GPU or DSP feature (pyhalide has no offload)."""
    return not target._devices


def get_host_target() -> Target:
    return Target("host")


def get_jit_target_from_environment() -> Target:
    """The target JIT code is compiled for: PYHALIDE_TARGET, else the host."""
    return Target(os.environ.get("PYHALIDE_TARGET", "host"))

