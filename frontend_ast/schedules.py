"""Schedules of @pipeline functions: a schedule function receives a view of
the specialization being compiled, with its Funcs (`p.funcs["hist"]`) and
loop variables (`p.vars["y"]`, `p.vars["hist", "y"]`) by Python name. It
comes from `@p.schedule`, `schedule=` (a callable, a side file or folder, or
"serial"), or the side folder `<script>_schedules/` chosen by target."""
from __future__ import annotations

import importlib.util
import os

from pyhalide.errors import CompileError
from pyhalide.source import at, user_location

from .targets import running_target, rank_side_files


class ScheduleNameError(CompileError, KeyError):
    """A schedule named a Func or loop variable that does not exist (the
    message ends with the schedule's line)."""

    def __init__(self, message: str):
        super().__init__(message + at(user_location()))

    def __str__(self):
        return self.args[0] if self.args else ""


class Applied:
    """What schedule a specialization got (for messages and tests)."""

    def __init__(self, source: str, fn=None):
        self.source = source
        self.fn = fn

    def __repr__(self):
        return f"<schedule {self.source}>"


# resolution ---------------------------------------------------------------------------------
def resolve_schedule(p):
    """A callable(spec) applying p's schedule to a specialization, or None."""
    if p._registered is not None:
        return _applier(p._registered, "@schedule " + p._registered.__name__)
    arg = p._schedule_arg
    if isinstance(arg, str) and arg == "serial":
        return None
    if callable(arg):
        return _applier(arg, getattr(arg, "__name__", "schedule"))
    if arg is not None:
        path = os.fspath(arg)
        if os.path.isdir(path):
            return _from_folder(p, path, required=True)
        if os.path.isfile(path):
            fn = _function_in(path, p.__name__, required=True)
            return _applier(fn, path)
        raise FileNotFoundError(f"schedule {path!r} of {p.__name__} is neither a file nor a "
                                f"folder")
    script = p._parsed_fn().file
    folder = os.path.splitext(script)[0] + "_schedules"
    if os.path.isdir(folder):
        return _from_folder(p, folder, required=False)
    return None


def _from_folder(p, folder, required):
    target = running_target()
    files = rank_side_files(folder, target)
    for path in files:
        fn = _function_in(path, p.__name__, required=False)
        if fn is not None:
            return _applier(fn, path)
    if required:
        raise CompileError(f"no schedule file in {folder} matches target {target.text!r} and "
                           f"defines {p.__name__}(p); files: "
                           f"{', '.join(sorted(os.listdir(folder)))}")
    return None


_MODULES = {}


def _function_in(path, name, required):
    path = os.path.abspath(path)
    mtime = os.path.getmtime(path)
    hit = _MODULES.get(path)
    if hit is None or hit[0] != mtime:
        mod_name = "_pyhalide_schedule_" + str(abs(hash(path)))
        spec = importlib.util.spec_from_file_location(mod_name, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        hit = (mtime, module)
        _MODULES[path] = hit
    module = hit[1]
    fn = getattr(module, name, None)
    if fn is None and required:
        names = sorted(n for n, v in vars(module).items() if callable(v) and not n.startswith("_"))
        raise CompileError(f"schedule file {path} defines no function {name}(p); it defines: "
                           f"{', '.join(names) or 'nothing'}")
    return fn


def _applier(fn, source):
    def apply(spec):
        view = ScheduleView(spec)
        try:
            fn(view)
        except CompileError as e:
            if not isinstance(e, ScheduleNameError):
                in_user_names(spec, e)
            raise
        return Applied(source, fn)
    apply.source = source
    return apply


# messages in the user's names --------------------------------------------------------------
def user_names(spec) -> dict:
    """Internal names of a specialization (Func versions `hist$1`, RVars
    `r_y_x$y`, tuple Funcs `s_c`) -> the Python names they stand for."""
    out = {}
    for pyname, f, owner in spec.builder.funcs:
        label = getattr(owner, "label", None) or getattr(owner, "name", None) or pyname
        if f.name() != label:
            out[f.name()] = label
    for label, loop, var, f in spec.builder.var_log:
        if var.name() != loop.name:
            out[var.name()] = loop.name
    return out


def rename(text: str, names: dict) -> str:
    import re
    if not names:
        return text
    pattern = re.compile(r"(?<![\w$.])(" + "|".join(
        re.escape(k) for k in sorted(names, key=len, reverse=True)) + r")(?![\w$])")
    return pattern.sub(lambda m: names[m.group(1)], text)


def in_user_names(spec, e: Exception):
    """Rewrite an exception's message in the user's names (in place)."""
    if not (e.args and isinstance(e.args[0], str)):
        return
    text = e.args[0]
    new = rename(text, user_names(spec))
    rvars = [(var.name(), loop.name) for label, loop, var, f in spec.builder.var_log
             if var.name() != loop.name and var.name() in text]
    if rvars and "has no loop variable" in text:
        internal, loop = rvars[0]
        owner = next((rename(f.name(), user_names(spec)) for label, lp, var, f in
                      spec.builder.var_log if var.name() == internal), "")
        new += (f"\n  hint: p.vars[{loop!r}] is the reduction variable (RVar) of the loop "
                f"`for {loop}` of an update of {owner}: schedule it on that update, "
                f"p.funcs[{owner!r}].update()")
    if new != text:
        e.args = (new,) + tuple(e.args[1:])


# the view ----------------------------------------------------------------------------------
class ScheduleView:
    """What a schedule function receives as `p`."""

    def __init__(self, spec):
        self.spec = spec
        self.funcs = FuncTable(spec)
        self.vars = VarTable(spec)
        self.target = running_target()
        self.name = spec.pf.name

    def __repr__(self):
        return f"<pipeline {self.name} specialization {self.spec.key}>"


def _entries(spec):
    """python name -> [Func] (distinct, in creation order)."""
    b = spec.builder
    table = {}

    def add(name, f):
        lst = table.setdefault(name, [])
        if all(x is not f for x in lst):
            lst.append(f)

    for pyname, f, owner in b.funcs:
        if not f.defined():
            continue
        names = set()
        if owner is None:
            continue
        if hasattr(owner, "py_names"):           # an array: its current version
            if owner.func is not f:
                continue
            names |= owner.py_names
        elif hasattr(owner, "names"):            # loop state (not its hidden elements)
            names |= {n for n in owner.names if "?" not in n}
            names.add(owner.label)
        for n in names:
            add(n, f)
    return table


class FuncTable:
    """p.funcs: Funcs by Python name (every state variable of a tuple Func
    names the same Func); also by the Func's own name."""

    def __init__(self, spec):
        self.spec = spec
        self._table = _entries(spec)
        self._by_name = {}
        for pyname, f, owner in spec.builder.funcs:
            if f.defined():
                self._by_name[f.name()] = f

    def __getitem__(self, name):
        lst = self._table.get(name)
        if lst and len(lst) == 1:
            return lst[0]
        if name in self._by_name and (not lst):
            return self._by_name[name]
        if lst:
            raise ScheduleNameError(
                f"{name!r} names several Funcs in {self.spec.pf.name}: "
                f"{', '.join(f.name() for f in lst)}; use one of those names")
        raise ScheduleNameError(
            f"{self.spec.pf.name} has no Func named {name!r}; valid names: "
            f"{', '.join(sorted(self._table)) or '(none)'}")

    def __contains__(self, name):
        try:
            self[name]
            return True
        except KeyError:
            return False

    def keys(self):
        return sorted(self._table)

    def __iter__(self):
        return iter(self.keys())

    def __len__(self):
        return len(self._table)

    def items(self):
        return [(k, self[k]) for k in self.keys() if len(self._table[k]) == 1]

    def __repr__(self):
        return f"<funcs of {self.spec.pf.name}: {', '.join(self.keys())}>"


class VarTable:
    """p.vars: the Var or RVar of each Python loop variable, by name, or
    qualified by the Func whose definitions use it: p.vars["hist", "y"]."""

    def __init__(self, spec):
        self.spec = spec
        self.funcs = FuncTable(spec)
        self._log = list(spec.builder.var_log)

    def _choices(self, loopname):
        out = []
        for label, loop, var, f in self._log:
            if loop.name == loopname:
                key = (self._func_label(f), loopname)
                if key not in out:
                    out.append(key)
        return out

    def _func_label(self, f):
        for name, lst in self.funcs._table.items():
            if len(lst) == 1 and lst[0] is f:
                return name
        return f.name()

    def __getitem__(self, key):
        if isinstance(key, tuple):
            if len(key) != 2:
                raise ScheduleNameError("p.vars[...] takes a loop variable name or "
                                        "(Func name, loop variable name)")
            fname, lname = key
            f = self.funcs[fname]
            found = [var for label, loop, var, g in self._log if g is f and loop.name == lname]
            if found:
                return found[-1]
            names = sorted({loop.name for label, loop, var, g in self._log if g is f})
            raise ScheduleNameError(
                f"Func {fname!r} has no loop variable {lname!r}; its loop variables: "
                f"{', '.join(names) or '(none: it has no loops)'}")
        name = key
        entries = [(loop, var) for label, loop, var, f in self._log if loop.name == name]
        if not entries:
            names = sorted({loop.name for label, loop, var, f in self._log})
            raise ScheduleNameError(
                f"{self.spec.pf.name} has no loop variable {name!r}; valid names: "
                f"{', '.join(names) or '(none)'}")
        vars_ = []
        for loop, var in entries:
            if all(v is not var for v in vars_):
                vars_.append(var)
        if len(vars_) == 1:
            return vars_[0]
        choices = self._choices(name)
        raise ScheduleNameError(
            f"the loop variable {name!r} occurs in several loop nests or definitions of "
            f"{self.spec.pf.name}; qualify it with the Func it belongs to: "
            f"{', '.join(f'p.vars[{a!r}, {b!r}]' for a, b in choices)}")

    def __contains__(self, key):
        try:
            self[key]
            return True
        except KeyError:
            return False

    def keys(self):
        return sorted({loop.name for label, loop, var, f in self._log})

    def __repr__(self):
        return f"<vars of {self.spec.pf.name}: {', '.join(self.keys())}>"
