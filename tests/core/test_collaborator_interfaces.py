"""The small public interfaces modules use instead of each other's private
fields: PipelineFunction for the frontend's schedules and `p.lower()`,
Stage/Func/RDom for rfactor and the associativity prover, jit for the kernel
cache and the parallel runtime, buffer.wrap_array for realize()."""
import threading

import numpy as np

import pyhalide as ph
from pyhalide.buffer import wrap_array
from pyhalide.frontend_ast.specialize import arg_spec
from pyhalide.lowering import jit


def _total(a):
    s = 0
    for i in range(a.shape[0]):
        s += a[i]
    return s


def test_pipeline_function_interface():
    p = ph.pipeline(_total, schedule="serial")
    assert p.schedule_argument == "serial" and p.registered_schedule is None
    assert p.parsed() is p.parsed() and p.parsed().name == "_total"
    assert p.last_specialization is None
    a = np.arange(6, dtype=np.int32)
    key = (arg_spec(a),)
    spec = p.specialization_for(key)
    assert p.specialization_for(key) is spec
    assert p.last_specialization is None                 # building one does not call it
    assert p(a) == 15
    assert p.last_specialization is spec                 # the call used the one built

    @p.schedule
    def sched(view):
        pass

    assert p.registered_schedule is sched and p.last_specialization is None
    assert p(a) == 15 and p.last_specialization is not spec


def test_stage_function_and_index():
    x = ph.Var("x")
    r = ph.RDom([(0, 4)], "r")
    f = ph.Func("f")
    f[x] = x
    f[x] += r.x
    assert f.update(0).index() == 1 and ph.Stage(f, 0).index() == 0
    assert f.update(0).function() is f.function()
    assert f.function().updates[0] is f.update(0).definition()


def test_rdom_predicates_are_a_copy():
    r = ph.RDom([(0, 8)], "r")
    r.where(r.x < 5)
    preds = r.predicates()
    assert len(preds) == 1 and preds[0].type.is_bool()
    preds.clear()
    assert len(r.predicates()) == 1


def test_rdom_over_a_buffer_and_an_image_param_spans_their_domain():
    b = ph.Buffer(np.zeros((3, 5), np.uint8))
    r = ph.RDom(b)
    assert [(int(v.min().node.value), int(v.extent().node.value)) for v in (r.x, r.y)] == \
        [(0, 5), (0, 3)]
    ip = ph.ImageParam(ph.UInt(8), 2, "ip")
    s = ph.RDom(ip)
    assert [(str(v.min()), str(v.extent())) for v in (s.x, s.y)] == \
        [(str(ip.dim(i).min()), str(ip.dim(i).extent())) for i in range(2)]


def test_wrap_array_views_without_copying():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = wrap_array(a, "out")
    assert b.numpy() is a and b.name() == "out" and b.width() == 3 and b.height() == 2


def test_llvm_lock_is_reentrant_and_exclusive():
    lock = jit.llvm_lock()
    with lock:
        with jit.llvm_lock():
            pass
    # another thread cannot take it while this one holds it
    got = []
    with lock:
        t = threading.Thread(target=lambda: got.append(jit.llvm_lock().acquire(timeout=0.05)))
        t.start()
        t.join()
    assert got == [False]
