"""pyhalide: Halide's algorithm/schedule separation for Python.

Re-exports only, lazily (module __getattr__), so `import pyhalide.ir` does not
pull in the whole package.
"""
from __future__ import annotations

import importlib
import os

# In a source checkout, frontend_ast/, lowering/ and tables/ sit beside this
# package (pyproject.toml maps them to pyhalide.frontend_ast, ...); a wheel puts
# them inside it. Searching the checkout root as well keeps that mapping when
# the checkout itself is on sys.path (an editable install in compat mode, which
# the README uses: it is what stops a checkout folder named pyhalide/ from
# shadowing the package as an empty namespace package).
_here = os.path.dirname(os.path.abspath(__file__))
_checkout_root = os.path.dirname(_here)
if not os.path.isdir(os.path.join(_here, "lowering")) \
        and os.path.isfile(os.path.join(_checkout_root, "lowering", "__init__.py")):
    __path__.append(_checkout_root)
del _here, _checkout_root

# public name -> module that defines it
_EXPORTS = {}


def _register(module: str, names: str):
    for n in names.split():
        _EXPORTS[n] = module


_register(".ir", "Type Int UInt Float Bool")
_register(".errors", "CompileError")
_register(".expr", "Expr cast select min max clamp abs sqrt exp log sin cos tan asin acos atan "
                   "atan2 sinh cosh tanh floor ceil round trunc pow is_nan is_inf is_finite "
                   "logical_not logical_and logical_or saturating_add saturating_sub "
                   "i8 i16 i32 i64 u8 u16 u32 u64 f32 f64")
_register(".var", "Var RVar RDom Range")
_register(".buffer", "Buffer ImageParam Param OutputImageParam")
_register(".func", "Func FuncRef Stage")
_register(".schedule", "TailStrategy")
_register(".reductions", "sum product minimum maximum argmin argmax")
_register(".realize", "Pipeline")
_register(".pipeline_function", "pipeline")
_register(".associativity", "prove_associativity AssociativeOp")
_register(".ir.lru", "set_kernel_cache_size")
_register(".ir.version", "__version__")
# automatic scheduling
_register(".autoschedule", "AutoschedulerParams")
# Halide parity
_register(".errors", "HalideError")
_register(".halide_helpers", "vars funcs lambda_func lerp mux evaluate evaluate_may_gpu "
                                "StmtOutputFormat")
_register(".autodiff", "propagate_adjoints Derivative")
_register(".halide_serialize", "serialize_pipeline deserialize_pipeline deserialize_parameters")
_register(".boundary_conditions", "BoundaryConditions")
_register(".halide_intrinsics",
          "absd saturating_cast i8_sat i16_sat i32_sat i64_sat u8_sat u16_sat u32_sat u64_sat "
          "widening_add widening_sub widening_mul widening_shift_left widening_shift_right "
          "widen_right_add widen_right_sub widen_right_mul halving_add halving_sub "
          "rounding_halving_add rounding_shift_left rounding_shift_right mul_shift_right "
          "rounding_mul_shift_right div_round_to_zero mod_round_to_zero fract hypot popcount "
          "count_leading_zeros count_trailing_zeros likely likely_if_innermost strict_float "
          "unsafe_promise_clamped fast_exp fast_log fast_pow fast_sin fast_cos fast_inverse "
          "fast_inverse_sqrt Tuple target_bits target_arch_is target_os_is target_has_feature "
          "target_natural_vector_size get_target_from_environment")
_register(".halide_math", "asinh acosh atanh erf")
_register(".halide_bits", "reinterpret extract_bits concat_bits")
_register(".halide_loop_level", "LoopLevel VarOrRVar MemoryType LoopAlignStrategy "
                                "PrefetchBoundStrategy")
_register(".halide_memoize", "EvictionKey memoize_tag")
_register(".halide_undef", "undef")
_register(".halide_require", "require")
_register(".halide_unsupported",
          "ArgInfo ArgInfoDirection ArgInfoKind ArgumentEstimates AutoSchedulerResults BFloat "
          "BufferDimension Dimension ExternFuncArgument LinkageType NameMangling "
          "OutputFileType Parameter TargetProcessorTune compile_standalone_runtime "
          "create_callable_from_generator halide_ install_dir "
          "link_modules load_plugin user_context_value gather scatter")
_register(".halide_random", "random_float random_int random_uint")
_register(".halide_target", "TargetOS TargetArch DeviceAPI host_supports_target_device "
                            "target_feature_for_device_api")
_register(".halide_target", "Target TargetFeature get_jit_target_from_environment "
                            "get_host_target Partition")
_register(".ir.types", "Handle TypeCode")
_register(".func", "FuncTupleElementRef")
_register(".pipeline_halide", "Argument ArgumentKind Module")
_register(".printing", "print print_when")
_register(".var", "_ _0 _1 _2 _3 _4 _5 _6 _7 _8 _9")
_register(".generators", "generator alias Generator GeneratorContext GeneratorParam InputBuffer "
                        "InputScalar OutputBuffer OutputScalar Callable main "
                        "active_generator_context")


def __getattr__(name):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'pyhalide' has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_EXPORTS))
