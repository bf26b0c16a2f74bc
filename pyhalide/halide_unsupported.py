"""Halide 21's public names that have no meaning in pyhalide (ahead-of-time
compilation, generators' argument metadata, plugins, runtime linking,
serialization, GPU/extern plumbing). Each name exists so that a ported
program's import resolves; calling it, or reading an attribute of it, raises
NotImplementedError naming it and why.
"""
from __future__ import annotations

_AOT = "pyhalide compiles just in time: no ahead-of-time outputs"
_REASONS = {
    "ArgInfo": "generators' argument metadata (ArgInfo) is not modelled; "
               "pyhalide's generators take Python arguments",
    "ArgInfoDirection": "generators' argument metadata (ArgInfo) is not modelled",
    "ArgInfoKind": "generators' argument metadata (ArgInfo) is not modelled",
    "ArgumentEstimates": "estimates are given with Func.set_estimates / "
                         "Param.set_estimate",
    "AutoSchedulerResults": "pyhalide's autoscheduler is schedule='auto' "
                            "(AutoschedulerParams)",
    "BFloat": "pyhalide has no bfloat16 type",
    "BufferDimension": "a buffer's dimensions are read with Buffer.dim(i) / shape",
    "Dimension": "Func.output_buffer().dim(i) returns pyhalide's own dimension object",
    "ExternFuncArgument": "extern (C) stages are not supported",
    "LinkageType": _AOT,
    "NameMangling": _AOT,
    "OutputFileType": _AOT,
    "Parameter": "use Param / ImageParam (Halide's internal Parameter is not exposed)",
    "TargetProcessorTune": "pyhalide always tunes for the host CPU",
    "compile_standalone_runtime": _AOT + " (its runtime is part of each JIT module)",
    "create_callable_from_generator": "call a pyhalide generator directly",
    "halide_": "Halide's C++ extension module",
    "install_dir": "pyhalide has no Halide installation directory",
    "link_modules": "LLVM modules are linked inside pyhalide's JIT",
    "load_plugin": "Halide's autoscheduler plugins are C++ libraries",
    "user_context_value": "there is no user context in pyhalide's JIT calls",
    "gather": "Halide's scatter/gather (several stores in one update definition) "
              "are not modelled: write separate update definitions",
    "scatter": "Halide's scatter/gather (several stores in one update definition) "
               "are not modelled: write separate update definitions",
}
__all__ = sorted(_REASONS)


class _Unsupported:
    """A Halide name with no pyhalide meaning: any use raises."""

    def __init__(self, name: str, reason: str):
        self._name, self._reason = name, reason

    def _refuse(self):
        return NotImplementedError(f"halide.{self._name} is not supported by pyhalide: "
                                   f"{self._reason}")

    def __call__(self, *args, **kwargs):
        raise self._refuse()

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        raise self._refuse()

    def __repr__(self) -> str:
        return f"<unsupported Halide name {self._name}>"


globals().update({n: _Unsupported(n, r) for n, r in _REASONS.items()})
