"""The Pipeline methods of Halide's API beyond realize/compile_jit
(pyhalide/realize.py): infer_arguments, compile_to_callable,
invalidate_cache, compile_to_module, compile_to_lowered_stmt,
print_loop_nest, and the ahead-of-time methods (named NotImplementedError)."""
from __future__ import annotations

import enum

from . import ir
from .errors import HalideError


class ArgumentKind(enum.Enum):
    InputScalar = 0
    InputBuffer = 1
    OutputBuffer = 2


class Argument:
    """An input of a pipeline (Halide's hl.Argument): an ImageParam or a
    Param, by name; compile_to_callable binds the values passed in its place."""

    def __init__(self, source, kind: ArgumentKind):
        self._source, self.kind = source, kind
        self.name = source.name()
        self.type = source.type()
        self.dimensions = source.dimensions() if kind == ArgumentKind.InputBuffer else 0

    def __repr__(self) -> str:
        return f"<pyhalide.Argument {self.name} {self.kind.name} {self.type}>"


class Module:
    """compile_to_module's result: the pipeline lowered for `name` (Halide's
    Module is compiled further ahead of time, which pyhalide does not do)."""

    def __init__(self, name: str, stmt_text: str, arguments: list):
        self._name, self._text, self._arguments = name, stmt_text, list(arguments)

    def name(self) -> str:
        return self._name

    def arguments(self) -> list:
        return list(self._arguments)

    def __str__(self) -> str:
        return self._text

    def compile(self, *args, **kw):
        raise NotImplementedError("Module.compile: ahead-of-time compilation is not done by "
                                  "pyhalide; realize() and compile_to_callable() compile for "
                                  "this process")


class HalidePipelineMethods:
    """Mixed into Pipeline: uses its `_outputs`, `_graph()`, `lower()` and
    its compiled-kernel caches."""

    def defined(self) -> bool:
        return bool(self._outputs)

    def __repr__(self) -> str:
        if not self._outputs:
            return "<halide.Pipeline Pipeline()>"
        return f"<halide.Pipeline {[f.name() for f in self._outputs]}>"

    def add_requirement(self, condition, *error_args) -> None:
        """Halide's requirement: before each realization the compiled
        `condition` (of Params) must hold, else a HalideError "Requirement
        Failed: (false) <error_args>" (Exprs printed with their values)."""
        from .expr import Expr, cast, to_node
        from .func import Func
        from .var import unique_name
        exprs = [a for a in error_args if not isinstance(a, str)]
        f = Func(unique_name("requirement"))
        f[()] = (cast(ir.Bool(), to_node(condition)), *[Expr.wrap(to_node(a)) for a in exprs])
        self.__dict__.setdefault("_requirements", []).append((f, list(error_args)))

    def _check_requirements(self) -> None:
        for f, args in self.__dict__.get("_requirements", ()):
            out = f.realize([])
            values = [b[()].item() for b in (out if isinstance(out, (list, tuple)) else [out])]
            if values[0]:
                continue
            shown, k = [], 1
            for a in args:
                if isinstance(a, str):
                    shown.append(a)
                else:
                    shown.append(str(values[k]))
                    k += 1
            raise HalideError("Requirement Failed: (false) " + " ".join(shown))

    def infer_input_bounds(self, dst, target=None) -> None:
        """Halide's bounds query over `dst` (Func.infer_input_bounds)."""
        from .bounds_query import infer_input_bounds
        infer_input_bounds(list(self._outputs), dst)

    def infer_arguments(self) -> list:
        """The pipeline's ImageParams, then its Params, each by name (as
        Halide orders them); Buffers used directly are not arguments."""
        graph = self._graph()
        images = [Argument(graph.images[n], ArgumentKind.InputBuffer)
                  for n in graph.image_names() if hasattr(graph.images[n], "set")]
        params = [Argument(graph.params[n], ArgumentKind.InputScalar)
                  for n in graph.param_names()]
        return images + params

    def compile_to_callable(self, arguments=None, target=None):
        """callable(arguments..., output Buffers...): binds each argument's
        value and realizes into the outputs (compiled now)."""
        from .generators import Callable
        if arguments is None:
            arguments = self.infer_arguments()
        for a in arguments:
            if not isinstance(a, Argument):
                raise TypeError(f"compile_to_callable takes the Arguments of "
                                f"infer_arguments(), not {type(a).__name__}")
        self.compile_jit()
        n = sum(len(f.types()) for f in self._outputs)
        return Callable([a._source for a in arguments], self, n)

    def invalidate_cache(self) -> None:
        """Forget what this Pipeline compiled: the next realize or
        compile_jit builds its graph and looks its kernel up again (the
        process's kernel cache, keyed by the pipeline's fingerprint, may
        still hold the machine code; Halide compiles it again)."""
        self.__dict__.pop("warned_graph", None)
        self._current()[2].kernels.clear()

    def compile_to_module(self, arguments=None, fn_name: str = "", target=None) -> Module:
        """The pipeline lowered (not compiled): a Module holding its code."""
        args = self.infer_arguments() if arguments is None else list(arguments)
        name = fn_name or "_".join(f.name() for f in self._outputs)
        return Module(name, self.lower(), args)

    def compile_to_lowered_stmt(self, path, args=(), fmt=None, target=None) -> None:
        from .halide_helpers import write_lowered_stmt
        write_lowered_stmt(self._outputs, path, fmt)

    def print_loop_nest(self) -> None:
        import sys
        print(self.lower(stage="loops"), file=sys.stderr)

    def _aot(name):
        def method(self, *args, **kw):
            raise NotImplementedError(
                f"Pipeline.{name}: ahead-of-time compilation is not done by pyhalide; "
                f"realize() and compile_to_callable() compile for this process")
        method.__name__ = name
        return method

    compile_to = _aot("compile_to")
    compile_to_c = _aot("compile_to_c")
    compile_to_header = _aot("compile_to_header")
    compile_to_object = _aot("compile_to_object")
    compile_to_bitcode = _aot("compile_to_bitcode")
    compile_to_assembly = _aot("compile_to_assembly")
    compile_to_llvm_assembly = _aot("compile_to_llvm_assembly")
    compile_to_file = _aot("compile_to_file")
    compile_to_static_library = _aot("compile_to_static_library")
    compile_to_multitarget_static_library = _aot("compile_to_multitarget_static_library")
    compile_to_multitarget_object_files = _aot("compile_to_multitarget_object_files")
    del _aot
