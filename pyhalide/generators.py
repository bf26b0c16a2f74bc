"""Halide's Python Generators, run as JIT programs: @generator classes with
GeneratorParam / InputBuffer / InputScalar / OutputBuffer members, built inside
a GeneratorContext and compiled with compile_to_callable(). AOT compilation
(hl.main(), generator libraries) does not apply here: NotImplementedError."""
from __future__ import annotations

import contextvars

from . import ir
from .buffer import Buffer, ImageParam, Param
from .errors import CompileError
from .func import Func

_ACTIVE = contextvars.ContextVar("pyhalide_generator_context", default=None)
_REGISTERED: dict = {}


class GeneratorContext:
    """The target (and autoscheduler) a Generator is built for; `with ctx:`
    makes it the one new Generators use."""

    def __init__(self, target=None, autoscheduler=None):
        from .halide_target import get_jit_target_from_environment
        self._target = target if target is not None else get_jit_target_from_environment()
        self._autoscheduler = autoscheduler
        self._tokens = []

    def target(self):
        return self._target

    def __enter__(self):
        self._tokens.append(_ACTIVE.set(self))
        return self

    def __exit__(self, *exc):
        _ACTIVE.reset(self._tokens.pop())


def active_generator_context() -> GeneratorContext:
    ctx = _ACTIVE.get()
    if ctx is None:
        raise CompileError("a Generator must be created inside `with hl.GeneratorContext(target):`")
    return ctx


class GeneratorParam:
    """A compile-time parameter; inside generate() the member is its value."""

    def __init__(self, value):
        self.value = value

    def _convert(self, value):
        default = self.value
        if isinstance(default, bool) and isinstance(value, str):
            return value.lower() in ("1", "true")
        if isinstance(default, (int, float)) and not isinstance(default, bool) and \
                isinstance(value, str):
            return type(default)(value)
        return value


class InputBuffer:
    def __init__(self, type, dimensions: int):
        self.type, self.dimensions = ir.as_type(type), int(dimensions)

    def _make(self, name: str):
        return ImageParam(self.type, self.dimensions, name)


class InputScalar:
    def __init__(self, type):
        self.type = ir.as_type(type)

    def _make(self, name: str):
        return Param(self.type, name)


class OutputBuffer:
    def __init__(self, types, dimensions: int):
        types = types if isinstance(types, (list, tuple)) else [types]
        self.types, self.dimensions = [ir.as_type(t) for t in types], int(dimensions)

    def _make(self, name: str):
        return Func(name)


class OutputScalar(OutputBuffer):
    def __init__(self, types):
        super().__init__(types, 0)


def _members(cls, kind) -> list:
    """(name, declaration) of the class's members of `kind`, in declaration order."""
    out, seen = [], set()
    for klass in reversed(cls.__mro__):
        for name, v in vars(klass).items():
            if isinstance(v, kind) and name not in seen:
                seen.add(name)
                out.append((name, v))
    return out


class Generator:
    """The base of @generator classes."""

    def __init__(self, generator_params: dict | None = None):
        ctx = active_generator_context()
        self._context = ctx
        params = dict(getattr(type(self), "_alias_params", {}))
        params.update(generator_params or {})
        plugin = [k for k in params if k.startswith("autoscheduler")]
        if plugin:
            raise NotImplementedError(
                f"Generator {type(self).__name__}: Halide's autoscheduler plugins "
                f"({params[plugin[0]]}) are not available; use "
                f"ph.Pipeline(outputs).apply_autoscheduler(...) on the outputs")
        for name, gp in _members(type(self), GeneratorParam):
            object.__setattr__(self, name, gp._convert(params.pop(name, gp.value)))
        if params:
            raise CompileError(f"Generator {type(self).__name__} has no GeneratorParam "
                               f"{sorted(params)}")
        self._inputs = [(n, d._make(n)) for n, d in _members(type(self), (InputBuffer, InputScalar))]
        self._outputs = [(n, d, d._make(n)) for n, d in _members(type(self), OutputBuffer)]
        for n, obj in self._inputs:
            object.__setattr__(self, n, obj)
        for n, _, f in self._outputs:
            object.__setattr__(self, n, f)
        self._built = None

    def context(self) -> GeneratorContext:
        return self._context

    def target(self):
        return self._context.target()

    def using_autoscheduler(self) -> bool:
        return False

    def natural_vector_size(self, t) -> int:
        return self.target().natural_vector_size(t)

    def configure(self):
        pass

    def _build(self):
        if self._built is None:
            self.configure()
            with self._context:
                self.generate()
            funcs = []
            for name, decl, f in self._outputs:
                if not f.defined():
                    raise CompileError(f"Output '{name}' was not defined.")
                if f.types() != decl.types or f.dimensions() != decl.dimensions:
                    raise CompileError(
                        f"Output '{name}' is declared as {decl.dimensions}-D of "
                        f"{[str(t) for t in decl.types]} but is defined as {f.dimensions()}-D "
                        f"of {[str(t) for t in f.types()]}")
                funcs.append(f)
            self._built = funcs
        return self._built

    def compile_to_callable(self):
        """A Callable taking the inputs then the output buffers, in declaration order."""
        from .realize import Pipeline
        outputs = self._build()
        return Callable([obj for _, obj in self._inputs], Pipeline(outputs), len(outputs))


class Callable:
    """callable(inputs..., outputs...): binds the inputs (arrays, Buffers or
    numbers) and realizes the pipeline into the output arrays or Buffers."""

    def __init__(self, inputs: list, pipeline, n_outputs: int):
        self._inputs, self._pipeline, self._n = inputs, pipeline, n_outputs

    def __call__(self, *args):
        if len(args) != len(self._inputs) + self._n:
            raise TypeError(f"this Callable takes {len(self._inputs)} inputs and {self._n} "
                            f"outputs, got {len(args)} arguments")
        for obj, value in zip(self._inputs, args):
            obj.set(value)
        outs = [a if isinstance(a, Buffer) else Buffer(a) for a in args[len(self._inputs):]]
        self._pipeline.realize(outs)


def generator(name: str = ""):
    """@hl.generator(): make the class a Generator (registered by name)."""
    def make(cls):
        bases = (cls,) if issubclass(cls, Generator) else (cls, Generator)
        registered = name or cls.__name__
        new = type(cls.__name__, bases, {"_registered_name": registered})
        _REGISTERED[registered] = new
        return new
    return make


def alias(**aliases):
    """@hl.alias(other_name={"param": value}): the Generator also under other names,
    with those GeneratorParams."""
    def make(cls):
        for n, params in aliases.items():
            _REGISTERED[n] = type(n, (cls,), {"_registered_name": n, "_alias_params": params})
        return cls
    return make


def main():
    raise NotImplementedError("hl.main() compiles Generators ahead of time (AOT), which "
                              "pyhalide does not do; build the Generator inside "
                              "hl.GeneratorContext and call compile_to_callable()")
