"""Split a generated module's IR text into parts that LLVM can optimize and
emit independently (jit.py compiles them on separate threads).

    split_module(ir_text, parts=2, min_lines=None) -> [ir_text, ...]   (None: MIN_SPLIT_LINES)
    split_parts(ir_text, parts=2, min_lines=None) -> [(ir_text, work), ...]
    split_cold(ir_text, min_lines=None) -> (hot_text, cold_text | None)

The unit of the split is an outlined task of codegen_llvm: a parallel
task `<entry>.parN`, a cold call `<entry>.coldN` or an outlined serial loop
`<entry>.loopN` (bookkeeping_body) with its `.body`. Part 0
keeps the entry, its `.body` and every other function; each task goes to
the part with the least work so far, largest first (work: lines, a tenth
for an `optnone` function). split_cold splits the tasks whose functions
are all `optnone` (cold copies) from the rest, the same way. In a part, a task
it defines that another part refers to is a definition with external
linkage (the other part declares it; the loader links the parts' objects
in one engine: llvm_objects.load_object), a task of another part is a
declaration, and its body is left out. Functions that are no task (the
vector math library of codegen_trig) are defined in every part that
needs them: they stay internal. Declarations and metadata are copied into
every part.

Only the tasks change linkage, and a task is only ever called through its
address (a parallel task: by the runtime) or from one call site (a cold
call, `noinline optnone`; an outlined loop, from an `optnone` body), so
LLVM optimizes each function as it would in the whole module. The text is returned whole (one part) when it has fewer
than `min_lines` lines, when a task would be the only thing left to split
or when it has global variables other than constants (each part gets its
own copy of a constant).
"""
from __future__ import annotations

import re

__all__ = ["split_module", "split_parts", "split_cold", "MIN_SPLIT_LINES", "MIN_COLD_LINES"]

# Below this many lines of IR a second thread costs more than it saves
# (a second parse, a second pass-pipeline set-up: a few ms each).
MIN_SPLIT_LINES = 1500
# Below this many lines of cold tasks their own module (a parse, an engine
# link) costs more than the fast instruction selection saves.
MIN_COLD_LINES = 400

_NAME = re.compile(r'@("(?:[^"\\]|\\.)*"|[-\w.$]+)\(')
_TASK = re.compile(r"\.(?:par|cold|loop)\d+$")
_COPYABLE = re.compile(r'@(?:"[^"]*"|[-\w.$]+) = (?:(?:internal|private) (?:unnamed_addr )?constant'
                       r'|appending global .* section "llvm\.metadata")')


def _cost(lines) -> float:
    """LLVM's work on a function, in lines: an `optnone` one (cold code)
    is only emitted, at about a tenth of the cost."""
    return len(lines) * (0.1 if " optnone" in lines[0] else 1.0)


def _name(define_line: str) -> str:
    m = _NAME.search(define_line)
    if m is None:
        raise ValueError(f"no function name in {define_line!r}")
    return m.group(1).strip('"')


def _declaration(define_line: str) -> str:
    """`declare` of a function from its `define [internal] ...` line (its
    parameter list has no parentheses: codegen's types are plain)."""
    m = _NAME.search(define_line)
    close = define_line.index(")", m.end())
    head = define_line[:close + 1].replace("define internal ", "declare ", 1)
    if head.startswith("define "):      # a task another split made visible
        head = "declare " + head[len("define "):]
    return head + " nounwind"


def _items(text: str):
    """(kind, name, lines) of each top-level item of the module text:
    kind "define" (a function definition, name its symbol) or "line"."""
    items = []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("define "):
            j = i
            while lines[j] != "}":
                j += 1
            items.append(("define", _name(line), lines[i:j + 1]))
            i = j + 1
        else:
            items.append(("line", None, [line]))
            i += 1
    return items


def _task_of(name: str) -> str:
    """The task a function belongs to: itself, or the task of a `.body`."""
    return name[:-len(".body")] if name.endswith(".body") else name


def _splittable_items(ir_text: str):
    """_items of the text, or None when it has a global that is not a
    constant of its own (each part gets its own copy of one: the vector
    math tables of codegen_explog/codegen_trig, trace names) or
    @llvm.compiler.used (the helpers it names are in every part)."""
    items = _items(ir_text)
    if any(kind == "line" and lines[0].startswith("@") and not _COPYABLE.match(lines[0])
           for kind, _, lines in items):
        return None
    return items


def _task_costs(items):
    """({task: _cost of the task and its body}, _cost of everything else)."""
    defined = {name for kind, name, _ in items if kind == "define"}
    sizes: dict = {}
    rest = 0.0
    for kind, name, lines in items:
        if kind != "define":
            continue
        task = _task_of(name)
        if _TASK.search(task) and task in defined:
            sizes[task] = sizes.get(task, 0) + _cost(lines)
        else:
            rest += _cost(lines)
    return sizes, rest


def split_module(ir_text: str, parts: int = 2, min_lines: int | None = None) -> list:
    """The IR texts of up to `parts` modules that together define what
    `ir_text` defines (see the module docstring); min_lines defaults to
    MIN_SPLIT_LINES."""
    return [text for text, _ in split_parts(ir_text, parts, min_lines)]


def split_parts(ir_text: str, parts: int = 2, min_lines: int | None = None) -> list:
    """split_module's parts, each with its estimated work (_cost of the
    functions it optimizes; for the whole text: 0.0)."""
    if min_lines is None:
        min_lines = MIN_SPLIT_LINES
    if parts < 2 or ir_text.count("\n") < min_lines:
        return [(ir_text, 0.0)]
    items = _splittable_items(ir_text)
    if items is None:
        return [(ir_text, 0.0)]
    sizes, rest = _task_costs(items)
    if not sizes:
        return [(ir_text, 0.0)]
    load = [rest] + [0.0] * (parts - 1)
    home: dict = {}
    for task in sorted(sizes, key=lambda k: (-sizes[k], k)):
        p = min(range(parts), key=lambda q: (load[q], q))
        home[task] = p
        load[p] += sizes[task]
    return _write_parts(ir_text, items, home, load)


def split_cold(ir_text: str, min_lines: int | None = None):
    """(the text without its cold tasks, the text of its cold tasks), or
    (ir_text, None) when the cold tasks have fewer than `min_lines` lines
    (None: MIN_COLD_LINES) or the text cannot be split. A cold task is one
    whose functions are all `optnone` (codegen_llvm._cold_function: the
    copies for regions smaller than a chunk); jit.py emits their part with
    LLVM's fast instruction selector and register allocator, which the
    `optnone` attribute alone does not select under an optimizing target
    machine."""
    if min_lines is None:
        min_lines = MIN_COLD_LINES
    items = _splittable_items(ir_text)
    if items is None:
        return ir_text, None
    lines_of: dict = {}         # task -> lines of its functions
    hot = set()                 # the tasks with a function LLVM optimizes
    defined = {name for kind, name, _ in items if kind == "define"}
    for kind, name, lines in items:
        task = _task_of(name) if kind == "define" else None
        if task is None or not _TASK.search(task) or task not in defined:
            continue
        lines_of[task] = lines_of.get(task, 0) + len(lines)
        if " optnone" not in lines[0]:
            hot.add(task)
    home = {task: 0 if task in hot else 1 for task in lines_of}
    cold_lines = sum(n for task, n in lines_of.items() if home[task])
    if not cold_lines or cold_lines < min_lines:
        return ir_text, None
    parts = _write_parts(ir_text, items, home, [0.0, 0.0])
    return parts[0][0], parts[1][0]


def _write_parts(ir_text: str, items, home: dict, load: list) -> list:
    """The (text, work) of part 0 (the entry, its body and the rest) and of
    each other part p that `home` (task -> part) gives a task; `load`: each
    part's work. The whole text (one part) when part 0 is the only one."""
    used = sorted(set(home.values()))
    if used in ([], [0]):
        return [(ir_text, 0.0)]
    # the entry point (the one external definition) and its body: part 0's
    main = {name for kind, name, lines in items
            if kind == "define" and not lines[0].startswith("define internal ")}
    main |= {name + ".body" for name in main}
    out = []
    for p in range(len(load)):
        if p > 0 and p not in used:
            continue
        text = []
        for kind, name, lines in items:
            if kind == "line":
                text.extend(lines)
                continue
            task = _task_of(name)
            where = home.get(task)
            if where is None:
                if p == 0 or name not in main:           # helpers: in every part
                    text.extend(lines)
            elif where == p:
                if name == task:                         # the task: visible to the others
                    text.append(lines[0].replace("define internal ", "define ", 1))
                    text.extend(lines[1:])
                else:
                    text.extend(lines)
            elif name == task:
                text.append(_declaration(lines[0]))
        out.append(("\n".join(text), load[p]))
    return out
