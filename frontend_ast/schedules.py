"""Schedules of @pipeline functions: a schedule function receives a view of
the specialization being compiled, with its Funcs (`p.funcs["hist"]`) and
loop variables (`p.vars["y"]`, `p.vars["hist", "y"]`) by Python name. It
comes from `@p.schedule`, `schedule=` (a callable, a side file or folder, or
"serial", "auto", "auto-exact"), or the side folder `<script>_schedules/`
chosen by target (a side file may also say `name = "auto"`); an automatic
schedule is planned per size class (size_class) by pyhalide.autoschedule,
through pyhalide.autoschedule_frontend."""
from __future__ import annotations

import importlib.util
import os
import re
import sys
from collections.abc import Mapping

import numpy as np

from pyhalide.errors import CompileError
from pyhalide.source import at, user_location

from .targets import rank_side_files, running_target


class ScheduleNameError(CompileError, KeyError):
    """A schedule named a Func or loop variable that does not exist (the
    message ends with the schedule's line)."""

    def __init__(self, message: str):
        super().__init__(message + at(user_location()))

    def __str__(self):
        return self.args[0] if self.args else ""


class Applied:
    """What schedule a specialization got (for messages and tests)."""

    def __init__(self, source: str, fn=None, auto=None):
        self.source = source
        self.fn = fn
        self.auto = auto        # pyhalide.autoschedule.Applied of an automatic schedule

    def __repr__(self):
        return f"<schedule {self.source}>"


# resolution ---------------------------------------------------------------------------------
AUTO = ("auto", "auto-exact")


def resolve_schedule(p):
    """A callable(spec) applying the schedule of p (a PipelineFunction: its
    registered_schedule, schedule_argument and parsed source) to a
    specialization, or None; for an automatic schedule (schedule_mode), the
    caller builds the applier (pyhalide.autoschedule_frontend)."""
    found = _resolve(p)
    return None if isinstance(found, tuple) else found


def schedule_mode(p):
    """"auto" or "auto-exact" (or the AutoschedulerParams given as the
    schedule) when p's schedule is automatic, else None."""
    found = _resolve(p)
    return found[1] if isinstance(found, tuple) else None


def _is_autoscheduler_params(arg) -> bool:
    """arg is an AutoschedulerParams (false while pyhalide.autoschedule is not
    imported: no instance exists; a function with a default schedule compiles
    without importing the autoscheduler)."""
    params = sys.modules.get("pyhalide.autoschedule.params")
    return params is not None and isinstance(arg, params.AutoschedulerParams)


def _resolve(p):
    """_applier(...), None, or ("auto", mode) for an automatic schedule."""
    registered = p.registered_schedule
    if registered is not None:
        return _applier(registered, "@schedule " + registered.__name__)
    arg = p.schedule_argument
    if isinstance(arg, str) and arg == "serial":
        return None
    if isinstance(arg, str) and arg in AUTO or _is_autoscheduler_params(arg):
        return ("auto", arg)
    if callable(arg):
        return _applier(arg, getattr(arg, "__name__", "schedule"))
    if arg is not None:
        path = os.fspath(arg)
        if os.path.isdir(path):
            return _from_folder(p, path, required=True)
        if os.path.isfile(path):
            fn = _function_in(path, p.__name__, required=True)
            return ("auto", fn) if _says_auto(fn) else _applier(fn, path)
        raise FileNotFoundError(f"schedule {path!r} of {p.__name__} is neither a file nor a "
                                f"folder")
    script = p.parsed().file
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
            return ("auto", fn) if _says_auto(fn) else _applier(fn, path)
    if required:
        raise CompileError(f"no schedule file in {folder} matches target {target.text!r} and "
                           f"defines {p.__name__}(p); files: "
                           f"{', '.join(sorted(os.listdir(folder)))}")
    return None


def _says_auto(fn) -> bool:
    return isinstance(fn, str) and fn in AUTO


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
        f = next(f for label, lp, var, f in spec.builder.var_log if var.name() == internal)
        new += (f"\n  hint: p.vars[{loop!r}] is the reduction variable (RVar) of the loop "
                f"`for {loop}` of an update of {rename(f.name(), user_names(spec))}: "
                f"schedule it on that update, p.funcs[{FuncTable(spec).key_of(f)!r}].update()")
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


class _Table(Mapping):
    """A read-only Mapping over the dict `_map`; `what` names it in repr."""

    what = ""

    def __iter__(self):
        return iter(self._map)

    def __len__(self):
        return len(self._map)

    def __repr__(self):
        keys = (k if isinstance(k, str) else ".".join(k) for k in self._map)
        return f"<{self.what} of {self.spec.pf.name}: {', '.join(keys)}>"


class FuncTable(_Table):
    """p.funcs, a read-only Mapping: each Python name that names one Func
    (every state variable of a tuple Func names the same Func); `s$0`, `s$1`,
    ... for the Funcs of a Python name naming several (in program order; the
    name itself is no key, and indexing it lists these); then each Func's own
    name (`hist$1`, as `pyhalide lower --stage defs` shows it) that is not a
    Python name nor of the form `s$...` of such an `s`."""

    what = "funcs"

    def __init__(self, spec):
        self.spec = spec
        spec.exposed = True           # its Funcs may be rescheduled after a call (direct_call.py)
        table = _entries(spec)
        self._map = {k: lst[0] for k, lst in sorted(table.items()) if len(lst) == 1}
        self._ambiguous = {}
        for k, lst in sorted(table.items()):
            if len(lst) > 1:
                self._ambiguous[k] = [f"{k}${i}" for i in range(len(lst))]
                self._map.update(zip(self._ambiguous[k], lst))
        self._aliases = set()
        for pyname, f, owner in spec.builder.funcs:
            own = f.name()
            if f.defined() and own not in table and own.split("$")[0] not in self._ambiguous \
                    and own not in self._map:
                self._map[own] = f
                self._aliases.add(own)

    def key_of(self, f) -> str:
        """The first key naming Func f."""
        return next(k for k, g in self._map.items() if g is f)

    def __getitem__(self, name):
        f = self._map.get(name) if isinstance(name, str) else None
        if f is not None:
            return f
        if isinstance(name, str) and name in self._ambiguous:
            raise ScheduleNameError(
                f"{name!r} names several Funcs in {self.spec.pf.name}; use one of "
                f"{', '.join(map(repr, self._ambiguous[name]))}")
        raise ScheduleNameError(
            f"{self.spec.pf.name} has no Func named {name!r}; valid names: "
            f"{', '.join(k for k in self._map if k not in self._aliases) or '(none)'}")


class VarTable(_Table):
    """p.vars, a read-only Mapping to the Var or RVar of each Python loop
    variable: its name where it names one loop variable, and every
    (Func name, loop name) pair, for each key of p.funcs naming the Func
    whose definitions use it: p.vars["hist", "y"]. A name used in several
    loop nests or definitions is no key: indexing it lists the choices."""

    what = "vars"

    def __init__(self, spec):
        self.spec = spec
        self.funcs = FuncTable(spec)
        log = list(spec.builder.var_log)
        by_name = {}
        for label, loop, var, f in log:
            lst = by_name.setdefault(loop.name, [])
            if all(v is not var for v in lst):
                lst.append(var)
        self._map = {k: lst[0] for k, lst in sorted(by_name.items()) if len(lst) == 1}
        self._choices = {}
        for label, loop, var, f in log:
            for k, g in self.funcs.items():
                if g is f:
                    self._map[k, loop.name] = var          # the last definition's wins
            if len(by_name[loop.name]) > 1:
                choice = (self.funcs.key_of(f), loop.name)
                lst = self._choices.setdefault(loop.name, [])
                if choice not in lst:
                    lst.append(choice)

    def __getitem__(self, key):
        try:
            return self._map[key]
        except (KeyError, TypeError):
            pass
        if isinstance(key, tuple):
            if len(key) != 2:
                raise ScheduleNameError(f"p.vars[...] takes a loop variable name or "
                                        f"(Func name, loop variable name), not {key!r}")
            fname, lname = key
            f = self.funcs[fname]
            names = sorted({k[1] for k, v in self._map.items()
                            if isinstance(k, tuple) and self.funcs[k[0]] is f})
            raise ScheduleNameError(
                f"Func {fname!r} has no loop variable {lname!r}; its loop variables: "
                f"{', '.join(names) or '(none: it has no loops)'}")
        if not isinstance(key, str):
            raise ScheduleNameError(f"p.vars[...] takes a loop variable name or "
                                    f"(Func name, loop variable name), not {key!r}")
        if key in self._choices:
            raise ScheduleNameError(
                f"the loop variable {key!r} occurs in several loop nests or definitions of "
                f"{self.spec.pf.name}; qualify it with the Func it belongs to: "
                f"{', '.join(f'p.vars[{a!r}, {b!r}]' for a, b in self._choices[key])}")
        names = sorted({k[1] if isinstance(k, tuple) else k for k in self._map})
        raise ScheduleNameError(
            f"{self.spec.pf.name} has no loop variable {key!r}; valid names: "
            f"{', '.join(names) or '(none)'}")


# automatic schedules -----------------------------------------------------------------------
def size_class(values) -> tuple:
    """The size class of a call: per argument, the bit length of each
    extent of an array (0, 1, 2-3, 4-7, ...: log2 rounded down, plus one)
    and of the magnitude of an integer; None for other arguments. An
    automatic schedule is planned once per size class."""
    out = []
    for v in values:
        shape = getattr(v, "shape", None)
        if shape is not None and getattr(v, "ndim", 0):
            out.append(tuple(int(n).bit_length() for n in shape))
        elif isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)):
            out.append(abs(int(v)).bit_length())
        else:
            out.append(None)
    return tuple(out)
