"""Halide's serialize_pipeline / deserialize_pipeline / deserialize_parameters.

A pipeline is written as a pickle of its output Funcs (their definitions,
schedules and the Buffers they read, with the Buffers' data), with its
Params and ImageParams kept out: each is written by name, type (and the
Param's value, or the ImageParam's dimensions), so that deserializing may
substitute the caller's own (`user_params`: name -> Param or ImageParam, as
Halide's `Param.parameter()` gives) and otherwise makes new ones of the
same name, type and value (an ImageParam unbound). Like any pickle, the bytes
run code when loaded: deserialize only pipelines you wrote."""
from __future__ import annotations

import io
import os
import pickle

_MAGIC = b"pyhalide-pipeline-1\n"


class _Pickler(pickle.Pickler):
    def __init__(self, out):
        super().__init__(out, protocol=pickle.HIGHEST_PROTOCOL)
        self.params = {}

    def persistent_id(self, obj):
        from .buffer import ImageParam, Param
        if type(obj) is Param:
            self.params[obj.name()] = obj
            return ("param", obj.name(), obj.type(), obj.get())
        if type(obj) is ImageParam:
            self.params[obj.name()] = obj
            return ("image", obj.name(), obj.type(), obj.dimensions())
        return None

    def reducer_override(self, obj):
        from .func import Func
        if type(obj) is Func:           # its definition, not its caches
            state = {k: v for k, v in obj.__dict__.items() if k not in _FUNC_CACHES}
            return _new_func, (state,)
        return NotImplemented


# what a Func keeps to run again faster (a Pipeline, compiled kernels)
_FUNC_CACHES = ("_solo_pipeline", "_shift_wrapper")


def _new_func(state: dict):
    from .func import Func
    f = object.__new__(Func)
    f.__dict__.update(state)
    return f


class _Unpickler(pickle.Unpickler):
    def __init__(self, data: bytes, user_params: dict):
        super().__init__(io.BytesIO(data))
        self.user_params = user_params
        self.made = {}

    def persistent_load(self, pid):
        from .buffer import ImageParam, Param
        kind, name, t, extra = pid
        if name in self.user_params:
            return self.user_params[name]
        if name not in self.made:
            if kind == "param":
                self.made[name] = Param(t, name, extra) if extra is not None else Param(t, name)
            else:
                self.made[name] = ImageParam(t, extra, name)
        return self.made[name]


def _pickled(pipeline) -> tuple:
    """(bytes, {name: Param or ImageParam}) of the pipeline."""
    out = io.BytesIO()
    p = _Pickler(out)
    p.dump(list(pipeline.outputs()))
    return _MAGIC + out.getvalue(), p.params


def serialize_pipeline(pipeline, filename=None, get_params: bool = False):
    """The pipeline as bytes (no filename) or written to `filename`; with
    get_params, also its parameters by name (Halide's external parameters)."""
    data, params = _pickled(pipeline)
    if filename is None:
        return (data, params) if get_params else data
    with open(os.fspath(filename), "wb") as f:
        f.write(data)
    return params if get_params else None


def _read(source) -> bytes:
    if isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
    else:
        with open(os.fspath(source), "rb") as f:
            data = f.read()
    if not data.startswith(_MAGIC):
        raise ValueError("not a pipeline written by pyhalide's serialize_pipeline "
                         "(Halide's .hlpipe files are not read)")
    return data[len(_MAGIC):]


def deserialize_pipeline(source, user_params: dict | None = None):
    """The Pipeline of serialize_pipeline's bytes or file; `user_params`
    (name -> Param or ImageParam) stand for the parameters of those names."""
    from .realize import Pipeline
    outputs = _Unpickler(_read(source), dict(user_params or {})).load()
    return Pipeline(outputs)


def deserialize_parameters(source) -> dict:
    """The parameters of a serialized pipeline, by name (new objects of the
    same name and type)."""
    u = _Unpickler(_read(source), {})
    u.load()
    return dict(u.made)
