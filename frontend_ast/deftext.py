"""`p.lower(stage)` / `pyhalide lower FILE::NAME --stage defs`: the extracted
definitions, Halide style, each with the Python line it came from; other
stages are the lowered pipeline's."""
from __future__ import annotations

import ast
import contextlib

import numpy as np

from pyhalide import ir
from pyhalide.buffer import Buffer

from .analyze import Liveness, carried, check_supported


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
        ones = "".join(f", shape[{k}] == 1" for k in key[3])
        return f"{name}: {np.dtype(key[1]).name}[{key[2]}-D{ones}]"
    if key[0] == "np":
        return f"{name}: np.{np.dtype(key[1]).name}" + (" (a 0-d array)" if key[2:] else "")
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
            key.append(("array", dt.str, len(shape),
                        tuple(k for k, n in enumerate(shape) if n == 1)))
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
    pf = p.parsed()
    specs = []
    for a in pf.tree.args.args:
        ann = a.annotation
        if ann is None:
            return None
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
    """p.lower(stage, arg_specs) of a PipelineFunction p: for the argument
    types given, else for the last call's, else for the annotations'; without
    any, the outline of the definitions."""
    if arg_specs:
        spec = p.specialization_for(key_from_specs(p.parsed(), arg_specs))
    elif p.last_specialization is not None:
        spec = p.last_specialization
    else:
        key = key_from_annotations(p)
        if key is None:
            return outline_text(p.parsed())
        spec = p.specialization_for(key)
    if stage == "defs":
        return defs_text(spec)
    pipe = spec.pipeline()
    if pipe is None:
        return defs_text(spec)
    if stage == "rfactor":
        stage = "defs"
    with _contiguous_inputs(spec):
        return pipe.lower(stage)


@contextlib.contextmanager
def _contiguous_inputs(spec):
    """Input arrays no call has bound yet stand for contiguous ones while the
    pipeline is lowered: the kernel shown is the one a C-ordered NumPy array
    gets (dense loads in dimension 0), not the strided fallback."""
    unset = [arr.image for arr in spec.builder.inputs.values()
             if getattr(arr, "image", None) is not None and arr.image.get() is None]
    for img in unset:
        img.set(Buffer(np.zeros((1,) * img.dimensions(), img.type().to_numpy())))
    try:
        yield
    finally:
        for img in unset:
            img.set(None)


def outline_text(pf) -> str:
    """The definitions before any call (no argument types yet): the Funcs the
    function makes (arrays it creates, scalars its loops carry), each with the
    Python lines of its definitions."""
    check_supported(pf.tree, pf.smap)
    live = Liveness(pf.tree)
    funcs = {}          # name -> [line numbers]
    order = []

    def note(name, node):
        if name not in funcs:
            funcs[name] = []
            order.append(name)
        line = pf.smap.loc(node).line
        if line not in funcs[name]:
            funcs[name].append(line)

    arrays = set()

    def walk(stmts, in_loop):
        for s in stmts:
            if isinstance(s, ast.Assign) and not in_loop and isinstance(s.value, ast.Call):
                fn = s.value.func
                attr = fn.attr if isinstance(fn, ast.Attribute) else getattr(fn, "id", "")
                if attr in ("zeros", "ones", "full", "empty", "zeros_like", "ones_like",
                            "full_like", "empty_like", "copy"):
                    for t in s.targets:
                        if isinstance(t, ast.Name):
                            arrays.add(t.id)
                            note(t.id, s)
            if isinstance(s, (ast.Assign, ast.AugAssign)) and in_loop:
                targets = s.targets if isinstance(s, ast.Assign) else [s.target]
                for t in targets:
                    if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name):
                        note(t.value.id, s)
            if isinstance(s, ast.For):
                for name in carried(s, live):
                    for n in ast.walk(s):
                        if isinstance(n, ast.Name) and n.id == name and \
                                isinstance(n.ctx, ast.Store):
                            stmt = _statement_of(s, n)
                            note(name, stmt if stmt is not None else s)
                walk(s.body, True)
            elif isinstance(s, ast.If):
                walk(s.body, in_loop)
                walk(s.orelse, in_loop)

    walk(pf.tree.body, False)
    lines = [f"# @pipeline {pf.name}({', '.join(pf.params)}): not called yet, so the argument",
             "# types (and with them the element types) are not known. The Funcs its",
             "# definitions make, with the Python lines that define them:"]
    text = pf.smap.lines
    for name in order:
        lines.append("")
        lines.append(f"Func {name}" + ("" if name in arrays else "  (loop state)"))
        for line in funcs[name]:
            src = text[line - 1].strip() if 0 < line <= len(text) else ""
            lines.append(f"  # line {line}: {src}")
    lines.append("")
    lines.append("# call it, p.compile(*example_args) or p.lower(arg_specs=[...]) for the typed "
                 "definitions")
    return "\n".join(lines) + "\n"


def _statement_of(root, target):
    for s in ast.walk(root):
        if isinstance(s, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and \
                any(n is target for n in ast.walk(s)):
            return s
    return None
