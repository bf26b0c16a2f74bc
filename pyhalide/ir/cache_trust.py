"""Whether an on-disk cache directory may be trusted with code we load.

    untrusted_reason(path) -> str | None
    trusted_root(path, hint) -> bool          says once on stderr why not
    read_file(root, rel, hint) -> bytes | None
    write_file(root, rel, data, hint) -> None

A cache entry holds native code (an object file), so whoever can write into
the cache can run code in every process that loads it. A directory is
trusted when nobody but the current user (or root) can change what it
holds: every component of its path, symbolic links followed, is owned by the
current user or root; the parent components are not writable by group or
others unless sticky (like /tmp: others cannot rename or replace what they
do not own there); the cache directory itself, its subdirectories and its
files are not writable by group or others at all (in a sticky directory others
can still create the entry we would look up next). This module imports
nothing else of pyhalide, so every layer can use it.
"""
from __future__ import annotations

import errno
import os
import stat
import sys
import tempfile

_MAX_LINKS = 40
_verdicts: dict = {}                  # root path -> False once refused
_said: dict = {}                      # root path -> token of the one refusal message


def _trusted_owner(st) -> bool:
    return st.st_uid in (os.geteuid(), 0)


def _owner_problem(path: str, st) -> str | None:
    if not _trusted_owner(st):
        return f"{path} is owned by another user (uid {st.st_uid})"
    return None


def _mode_problem(path: str, st, sticky_ok: bool) -> str | None:
    """Why a directory (or file) others may change, or None."""
    if not st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return None
    if sticky_ok and st.st_mode & stat.S_ISVTX:
        return None
    who = "others" if st.st_mode & stat.S_IWOTH else "its group"
    return f"{path} is writable by {who} (mode {stat.S_IMODE(st.st_mode):o})"


def _entry_problem(path: str, st, sticky_ok: bool) -> str | None:
    return _owner_problem(path, st) or _mode_problem(path, st, sticky_ok)


def untrusted_reason(path: str) -> str | None:
    """Why the directory `path` is not safe to load code from (see the module
    docstring), or None. Components that do not exist yet are not judged
    (whoever creates them must check again)."""
    full = path if os.path.isabs(path) else os.path.join(os.getcwd(), path)
    parts = [p for p in full.split(os.sep) if p]      # ".." is taken as the kernel does
    cur, links = os.sep, 0
    try:
        st = os.lstat(cur)
    except OSError as e:
        return f"cannot inspect {cur} ({e.strerror})"
    problem = _entry_problem(cur, st, sticky_ok=bool(parts))
    while parts and problem is None:
        name = parts.pop(0)
        if name == ".":
            continue
        if name == "..":
            cur = os.path.dirname(cur)
            continue
        nxt = os.path.join(cur, name)
        try:
            st = os.lstat(nxt)
        except FileNotFoundError:
            return None
        except OSError as e:
            return f"cannot inspect {nxt} ({e.strerror})"
        if stat.S_ISLNK(st.st_mode):
            links += 1
            if links > _MAX_LINKS:
                return f"too many symbolic links in {path}"
            problem = _owner_problem(nxt, st)
            target = os.readlink(nxt)
            if os.path.isabs(target):
                cur = os.sep
            parts[:0] = [p for p in target.split(os.sep) if p]
            continue
        if not stat.S_ISDIR(st.st_mode):
            return f"{nxt} is not a directory"
        cur = nxt
        problem = _entry_problem(cur, st, sticky_ok=bool(parts))
    return problem


def _refuse(root: str, problem: str, hint: str) -> bool:
    _verdicts[root] = False
    mine = object()
    if _said.setdefault(root, mine) is mine:           # once per directory, across threads
        print(f"pyhalide: not using the cache directory {root}: {problem}; running "
              f"uncached. {hint}", file=sys.stderr)
    return False


def trusted_root(root: str, hint: str) -> bool:
    """Whether the cache directory `root` may be used, judged on every call
    (a few lstat calls) until refused once: the refusal is explained on
    stderr (with `hint`, how to fix it) and holds for the process."""
    if _verdicts.get(root) is False:
        return False
    problem = untrusted_reason(root)
    return True if problem is None else _refuse(root, problem, hint)


def _make_dirs(path: str) -> None:
    """os.makedirs with mode 755 for every directory it creates (makedirs
    gives the intermediate ones 777 less the umask)."""
    parent = os.path.dirname(path)
    if parent != path and not os.path.isdir(parent):
        _make_dirs(parent)
    try:
        os.mkdir(path, 0o755)
    except FileExistsError:
        pass


def _check_below(root: str, rel: str, hint: str, create: bool) -> str | None:
    """The subdirectory of `root` holding `rel` after checking (and with
    `create`, making) it; None when it is missing or refused."""
    sub = os.path.join(root, os.path.dirname(rel))
    try:
        st = os.lstat(sub)
    except FileNotFoundError:
        if not create:
            return None
        _make_dirs(sub)
        if not trusted_root(root, hint):       # the root may be new as well
            return None
        st = os.lstat(sub)
    if not stat.S_ISDIR(st.st_mode):
        _refuse(root, f"{sub} is not a directory", hint)
        return None
    problem = _entry_problem(sub, st, sticky_ok=False)
    if problem is not None:
        _refuse(root, problem, hint)
        return None
    return sub


def read_file(root: str, rel: str, hint: str) -> bytes | None:
    """The contents of `root`/`rel` (one subdirectory level: "ab/name"), or
    None when it is missing or anything on its way is not trusted. The file
    must be a regular file of the current user or root that group and
    others cannot write (symbolic links are not followed)."""
    if not trusted_root(root, hint) or _check_below(root, rel, hint, create=False) is None:
        return None
    path = os.path.join(root, rel)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError as e:
        if e.errno == errno.ELOOP:
            _refuse(root, f"{path} is a symbolic link", hint)
        return None
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(f.fileno())
        problem = (f"{path} is not a regular file" if not stat.S_ISREG(st.st_mode)
                   else _entry_problem(path, st, sticky_ok=False))
        if problem is not None:
            _refuse(root, problem, hint)
            return None
        return f.read()


def write_file(root: str, rel: str, data: bytes, hint: str) -> None:
    """Write `root`/`rel` atomically (a private temporary file renamed over
    it, so a reader never sees half a file), creating the directories with
    mode 755; nothing is written into an untrusted directory. Raises
    OSError."""
    if not trusted_root(root, hint):
        return
    sub = _check_below(root, rel, hint, create=True)
    if sub is None:
        return
    fd, tmp = tempfile.mkstemp(dir=sub, suffix=".tmp")      # mode 600
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, os.path.join(root, rel))
    except BaseException:
        os.unlink(tmp)
        raise
