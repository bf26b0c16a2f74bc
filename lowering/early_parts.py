"""The IR texts of a module's finished parallel tasks while codegen still
emits the rest of the module (jit.py compiles them meanwhile: issue 21).

    EarlyParts(module) -> parts
    parts.take(task, body) -> (text, lines) | None   a finished task's own module
    parts.module_text() -> str                       == str(module), each taken
                                                     function printed once
    without_tasks(ir_text, tasks) -> str             the tasks declared, not defined

A task's module (as split_module's parts) holds the module's header, its
identified types, every global value known so far except the tasks and the
kernel's own entry and body: function declarations, the constants and the
helper functions (codegen_trig's vector math) as they are, each other task
as a declaration; then the task with external linkage and its body; then
the metadata made so far (an instruction only refers to metadata made
before it). The loader links the parts' objects in one engine, so the rest
of the module declares the tasks taken (without_tasks), and defines each
remaining task with external linkage in case a taken one calls it (a cold
copy called from a parallel task). A module with a global variable that is
not a constant of its own (split_module's rule) gives no parts: take()
returns None and keeps returning None.
"""
from __future__ import annotations

from llvmlite import ir as ll

from .split_module import _COPYABLE, _TASK, _declaration, _items, _task_of

__all__ = ["EarlyParts", "without_tasks"]


def _is_task(name: str) -> bool:
    return bool(_TASK.search(_task_of(name)))


def _prototype(fn: ll.Function) -> str:
    buf: list = []
    fn.descr_prototype(buf)
    return buf[0].rstrip("\n")


class EarlyParts:
    """Texts of finished tasks of a module that codegen is still building."""

    def __init__(self, module: ll.Module):
        self.module = module
        self.printed: dict = {}        # id(function) -> its text (printed once)
        self.refused = False

    def _header(self) -> list:
        m = self.module
        return ['; ModuleID = "%s"' % (m.name,), 'target triple = "%s"' % (m.triple,),
                'target datalayout = "%s"' % (m.data_layout,), ""] + \
            [it.get_declaration() for it in m.get_identified_types().values()]

    def take(self, *functions):
        """The module text defining `functions` (a task and its body, or
        several tasks' pairs) and its line count; None when the module
        cannot be split (see the module docstring)."""
        if self.refused:
            return None
        mine = {id(f) for f in functions}
        lines = self._header()
        for v in self.module.globals.values():
            if id(v) in mine:
                continue
            if isinstance(v, ll.Function):
                if v.is_declaration:
                    lines.append(str(v))
                elif _is_task(v.name):
                    if v.name == _task_of(v.name):
                        lines.append(_declaration(_prototype(v)))
                elif not v.name.endswith(".body") and v.linkage == "internal":
                    lines.append(str(v))           # a helper (no entry, no kernel body)
                continue
            text = str(v)
            if not _COPYABLE.match(text):
                self.refused = True
                return None
            lines.append(text)
        own = 0
        for f in functions:
            text = self.printed.get(id(f))
            if text is None:
                text = self.printed[id(f)] = str(f)
            own += text.count("\n")
            if f.name == _task_of(f.name):
                text = text.replace("define internal ", "define ", 1)
            lines.append(text)
        lines += self.module._get_metadata_lines()
        return "\n".join(lines), own

    def module_text(self) -> str:
        """str(self.module), the functions taken printed only once."""
        m = self.module
        lines = ['; ModuleID = "%s"' % (m.name,), 'target triple = "%s"' % (m.triple,),
                 'target datalayout = "%s"' % (m.data_layout,), ""]
        lines += [it.get_declaration() for it in m.get_identified_types().values()]
        lines += [self.printed.get(id(v)) or str(v) for v in m.globals.values()]
        lines += m._get_metadata_lines()
        return "\n".join(lines)


def without_tasks(ir_text: str, tasks) -> str:
    """ir_text with the `tasks` (names of task functions) declared instead of
    defined (their bodies left out), and every other task defined with
    external linkage (a taken task may call it)."""
    tasks = set(tasks)
    out = []
    for kind, name, lines in _items(ir_text):
        if kind == "line":
            out.extend(lines)
            continue
        task = _task_of(name)
        if not _is_task(name):
            out.extend(lines)
        elif task in tasks:
            if name == task:
                out.append(_declaration(lines[0]))
        elif name == task:
            out.append(lines[0].replace("define internal ", "define ", 1))
            out.extend(lines[1:])
        else:
            out.extend(lines)
    return "\n".join(out)


class EarlyTasks:
    """codegen's on_task hook (codegen_text's `early`): each finished task
    goes to `queue` (compile_queue.CompileQueue), grouped with the next ones
    until a group has `min_lines` lines, once the tasks seen so far have
    more than `vectorize_max_lines` lines (None: no such condition), the
    size past which jit._for_size turns LLVM's loop vectorizer off for the
    whole module: the parts are then compiled with the options the whole
    module gets. `taken`: the names of the tasks submitted."""

    def __init__(self, queue, min_lines: int, vectorize_max_lines):
        self.queue = queue
        self.min_lines = min_lines
        self.vectorize_max_lines = vectorize_max_lines
        self.parts = None               # EarlyParts of the module, from its first task
        self.pending: list = []         # functions not submitted yet
        self.pending_names: list = []
        self.pending_lines = 0
        self.seen_lines = 0
        self.taken: list = []

    def on_task(self, task, body) -> None:
        if self.parts is None:
            self.parts = EarlyParts(task.module)
        n = 0
        for f in (task, body):
            text = self.parts.printed[id(f)] = str(f)
            n += text.count("\n")
        self.seen_lines += n
        self.pending += [task, body]
        self.pending_names.append(task.name)
        self.pending_lines += n
        if self.pending_lines < self.min_lines or (
                self.vectorize_max_lines is not None and self.seen_lines <= self.vectorize_max_lines):
            return
        part = self.parts.take(*self.pending)
        if part is None:
            return
        self.queue.submit(part[0], float(part[1]))
        self.taken += self.pending_names
        self.pending, self.pending_names, self.pending_lines = [], [], 0

    def module_text(self, module) -> str:
        return (self.parts or EarlyParts(module)).module_text()
