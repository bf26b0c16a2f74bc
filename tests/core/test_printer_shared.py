"""The IR printer prints a subtree shared by one line once (`let _sharedN`)
when it is large, so lowered code whose expressions are DAGs prints in
linear space (grayscott's loops printed 88 MB, then ran out of memory)."""
from pyhalide import ir


def _doubling_dag(levels):
    """select(c, max(e, 1), e) nested: 2**levels nodes as a tree, 4 per level as a DAG."""
    x = ir.Variable(ir.INDEX, "x")
    e = x
    for _ in range(levels):
        e = ir.Select(ir.LT(x, ir.index(3)), ir.Max(e, ir.index(1)), e)
    return e


def test_a_deep_shared_expression_prints_in_linear_space():
    e = _doubling_dag(60)
    text = ir.stmt_to_str(ir.Provide("f", (e,), (ir.index(0),)))
    assert len(text) < 200_000
    assert "let _shared" in text
    lines = text.splitlines()
    assert lines[-1].startswith("f(0) = ")
    # every name is defined before it is used
    defined = set()
    for line in lines:
        for name in (w.strip("(),") for w in line.split()):
            if name.startswith("_shared") and not line.startswith(f"let {name} ="):
                assert name in defined
        if line.startswith("let "):
            defined.add(line.split()[1])


def test_small_shared_expressions_print_as_trees():
    x = ir.Variable(ir.INDEX, "x")
    s = ir.Add(x, ir.index(1))
    text = ir.stmt_to_str(ir.Provide("f", (ir.Mul(s, s),), (x,)))
    assert text == "f(x) = ((x + 1) * (x + 1))\n"
