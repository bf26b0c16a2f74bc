"""Pipeline.lower() and compile_to_lowered_stmt take the raised recursion
limit as realize() does: Halide's interpolate app (a deep chain of index
expressions over ten pyramid levels) raised RecursionError there while it
compiled and ran."""
import pyhalide as ph


def deep_func(tag: str):
    """(f, img): f[x] a chain 1500 levels deep over ImageParam img, deeper than
    the interpreter's default recursion limit allows a walk."""
    x = ph.Var("x")
    img = ph.ImageParam(ph.Int(32), 1, f"img_deep_{tag}")
    f = ph.Func(f"f_deep_{tag}")
    e = x
    for i in range(1500):
        e = e * img[i % 7] + i
    f[x] = e
    return f, img


def test_lowering_a_deep_expression_to_text(tmp_path):
    f, img = deep_func("text")
    assert "img_deep_text" in ph.Pipeline([f]).lower()
    path = tmp_path / "f.stmt"
    f.compile_to_lowered_stmt(str(path), [img])
    assert "f_deep_text" in path.read_text()
