"""`p.lower(stage)` / `pyhalide lower FILE::NAME --stage defs`: the extracted
definitions, Halide style, each with the Python line it came from; other
stages are the lowered pipeline's."""
from __future__ import annotations

import numpy as np

from pyhalide import ir


def _rename(text: str, names: dict) -> str:
    for old, new in sorted(names.items(), key=lambda kv: -len(kv[0])):
        text = text.replace(old, new)
    return text


def defs_text(spec) -> str:
    b = spec.builder
    p = ir.expr_to_str
    lines = [f"# @pipeline {spec.pf.name}({', '.join(_arg_desc(n, k) for n, k in zip(spec.pf.params, spec.key))})"]
    seen = set()
    for pyname, f, owner in b.funcs:
        fn = f.function()
        if id(fn) in seen or fn.pure is None:
            continue
        seen.add(id(fn))
        lines.append("")
        head = f"Func {fn.name}" + ("" if fn.name == pyname else f"  (Python: {pyname})")
        types = ", ".join(str(t) for t in fn.output_types)
        lines.append(f"{head} : {types}")
        for i, d in enumerate(fn.definitions()):
            args = ", ".join(p(a) for a in d.args)
            vals = ", ".join(p(v) for v in d.values)
            if len(d.values) > 1:
                vals = "{" + vals + "}"
            text = f"  {fn.name}({args}) = {vals}"
            if d.schedule.rvars:
                text += "\n      over " + ", ".join(
                    f"{rv.name} in [{p(rv.min)}, {p(rv.min)} + {p(rv.extent)})"
                    for rv in d.schedule.rvars)
            if d.predicates:
                text += "\n      where " + " && ".join(p(c) for c in d.predicates)
            if d.source is not None:
                text += f"\n      # line {d.source.line}: {d.source.text}"
            lines.append(text)
    return "\n".join(lines) + "\n"


def _arg_desc(name, key) -> str:
    if key[0] == "array":
        return f"{name}: {np.dtype(key[1]).name}[{key[2]}-D]"
    if key[0] == "np":
        return f"{name}: np.{np.dtype(key[1]).name}"
    if key[0] == "const":
        return f"{name}={key[1]!r}"
    return f"{name}: {key[0]}"


def key_from_specs(pf, arg_specs):
    """CLI --args: [(name, np.dtype, shape or None)] -> a specialization key."""
    given = {n: (dt, shape) for n, dt, shape in arg_specs}
    key = []
    for name in pf.params:
        if name not in given:
            raise ValueError(f"--args gives no type for argument {name!r} of {pf.name}")
        dt, shape = given[name]
        dt = np.dtype(dt)
        if shape is not None:
            key.append(("array", dt.str, len(shape)))
        elif dt == np.dtype(np.int64):
            key.append(("int",))
        elif dt == np.dtype(np.float64):
            key.append(("float",))
        elif dt == np.dtype(np.bool_):
            key.append(("bool",))
        else:
            key.append(("np", dt.str))
    return tuple(key)


def key_from_annotations(p):
    pf = p._parsed_fn()
    specs = []
    for a in pf.tree.args.args:
        ann = a.annotation
        if ann is None:
            return None
        import ast
        text = ast.unparse(ann).strip("'\"")
        if "[" in text:
            dt, dims = text.split("[", 1)
            n = len([d for d in dims.rstrip("]").split(",")])
            specs.append((a.arg, np.dtype(dt.strip().replace("np.", "")), (0,) * n))
        elif text in ("int", "float", "bool"):
            specs.append((a.arg, np.dtype({"int": np.int64, "float": np.float64,
                                           "bool": np.bool_}[text]), None))
        else:
            specs.append((a.arg, np.dtype(text.replace("np.", "")), None))
    return key_from_specs(pf, specs)


def lower_text(p, stage, arg_specs):
    from .specialize import Specialization
    from .schedules import resolve_schedule
    if arg_specs:
        key = key_from_specs(p._parsed_fn(), arg_specs)
        spec = p._specs.get(key) or Specialization(p._parsed_fn(), key,
                                                   schedule=resolve_schedule(p))
        p._specs[key] = spec
    elif p._last is not None:
        spec = p._last
    else:
        key = key_from_annotations(p)
        if key is None:
            raise RuntimeError(f"{p.__name__}.lower(): no argument types yet; call the "
                               f"function once, or pass arg_specs (CLI: --args "
                               f"img=uint8[64,64])")
        spec = p._specs.get(key) or Specialization(p._parsed_fn(), key,
                                                   schedule=resolve_schedule(p))
        p._specs[key] = spec
    if stage == "defs":
        return defs_text(spec)
    pipe = spec.pipeline()
    if pipe is None:
        return defs_text(spec)
    if stage == "rfactor":
        stage = "defs"
    return pipe.lower(stage)
