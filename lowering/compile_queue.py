"""LLVM work on module parts by several threads, largest part first
(jit.py: the parts of a split module, and a module's tasks while codegen
emits the rest of it).

    q = CompileQueue(compile_part, workers, new_machines, eager=False)
    q.submit(text, work, is_cold)     queued (eager: a thread starts on it if one may)
    q.finish(main_machines) -> [object of each part, in submission order]
    q.cancel()                        drop what is queued, wait for what runs

`compile_part(text, is_cold, machines, index)` returns a part's object;
`machines` is a thread's own (target machine, cold machine or None): each
thread but the caller's gets machines of its own (`new_machines()`), and
the caller's thread works with the ones it passes to finish(). At most
`workers` threads work at once: when `eager`, `workers` threads of the
queue's own, started as parts are submitted (the caller's thread is busy
elsewhere until finish, and a large part submitted late starts at once
instead of waiting for the smaller ones before it); else `workers - 1`
threads started by finish() and the caller's thread. A part's exception stops the queue and
is raised by finish() in the caller's thread.
"""
from __future__ import annotations

import heapq
import threading
import time

__all__ = ["CompileQueue"]


class CompileQueue:
    def __init__(self, compile_part, workers: int, new_machines, eager: bool = False,
                 name: str = "pyhalide-llvm"):
        self.compile_part = compile_part
        self.eager = eager
        self.workers = workers
        self.extra = workers if eager else max(0, workers - 1)
        self.new_machines = new_machines
        self.name = name
        self.cond = threading.Condition()
        self.heap: list = []           # (-work, index)
        self.parts: list = []          # (text, is_cold) by index
        self.objs: list = []
        self.cpu: list = []            # thread CPU seconds of each part
        self.failures: list = []
        self.closed = False
        self.threads: list = []

    def submit(self, text: str, work: float, is_cold: bool = False) -> None:
        with self.cond:
            i = len(self.parts)
            self.parts.append((text, is_cold))
            self.objs.append(None)
            self.cpu.append(0.0)
            heapq.heappush(self.heap, (-work, i))
            self.cond.notify()
        if self.eager:
            self._start(len(self.parts))

    def _start(self, limit: int) -> None:
        """Start threads until there are min(self.extra, limit)."""
        while len(self.threads) < min(self.extra, limit):
            th = threading.Thread(target=self._work, args=(None,),
                                  name=f"{self.name}-{len(self.threads) + 1}")
            self.threads.append(th)
            th.start()

    def _next(self, wait: bool):
        with self.cond:
            while not self.heap and not self.closed and not self.failures and wait:
                self.cond.wait()
            if self.failures or not self.heap:
                return None
            return heapq.heappop(self.heap)[1]

    def _work(self, machines) -> None:
        wait = machines is None            # a started thread waits for parts
        while True:
            i = self._next(wait)
            if i is None:
                return
            if machines is None:
                machines = self.new_machines()
            start = time.thread_time()
            text, is_cold = self.parts[i]
            try:
                self.objs[i] = self.compile_part(text, is_cold, machines, i)
            except BaseException as exc:       # re-raised by finish()
                with self.cond:
                    self.failures.append(exc)
                    self.cond.notify_all()
            self.cpu[i] = time.thread_time() - start

    def _close(self) -> None:
        with self.cond:
            self.closed = True
            self.cond.notify_all()

    def finish(self, machines) -> list:
        """Work on what is queued with `machines` in this thread, wait for the
        other threads; the objects of all parts submitted."""
        self._close()
        self._start(len(self.heap) - 1)
        try:
            if len(self.threads) < self.workers:
                self._work(machines)
        finally:
            for th in self.threads:
                th.join()
        if self.failures:
            raise self.failures[0]
        return list(self.objs)

    def cancel(self) -> None:
        """Forget the queued parts and wait for the ones being compiled."""
        with self.cond:
            self.heap.clear()
        self._close()
        for th in self.threads:
            th.join()
