"""Walker dispatch tables live on the walker class: a class defined per call
is freed with its table (they accumulated in a global table before: 767
entries per interpolate compile), and a subclass never uses its parent's."""
import gc
import weakref

from pyhalide import ir
from pyhalide.ir.mutator import Mutator, Visitor


def _expr():
    x = ir.Variable(ir.INDEX, "x")
    return ir.Add(ir.Mul(x, ir.index(2)), ir.index(3))


def test_a_walker_class_made_per_call_is_freed():
    refs = []
    for _ in range(50):
        class Count(Visitor):
            def visit_Variable(self, n):
                pass
        Count().visit(_expr())
        refs.append(weakref.ref(Count))
        del Count
    gc.collect()
    assert sum(r() is not None for r in refs) <= 1


def test_a_subclass_dispatches_to_its_own_methods():
    seen = []

    class Base(Visitor):
        def visit_Variable(self, n):
            seen.append("base")

    class Child(Base):
        def visit_Variable(self, n):
            seen.append("child")

    Base().visit(_expr())
    Child().visit(_expr())
    Base().visit(_expr())
    assert seen == ["base", "child", "base"]


def test_a_mutator_subclass_without_overrides_rebuilds_children():
    class Twice(Mutator):
        def visit_Const(self, n):
            return ir.Const(n.type, n.value * 2)

    class Plain(Twice):
        visit_Const = Mutator.mutate_children

    e = _expr()
    assert ir.expr_to_str(Twice().mutate(e)) == "((x * 4) + 6)"
    assert ir.expr_to_str(Plain().mutate(e)) == "((x * 2) + 3)"
