"""The pyramid of Halide's interpolate app as Func-API test pipelines."""
import pyhalide as ph


def pyramid(tag: str, levels: int = 3):
    """out reads l1 upsampled 2x (at x / 2 and (x + 1) / 2), l1 reads l2
    alike, ...: level k has about 2^-k of the output's rows, and each
    level's region is resolved through the next's. Returns (x, y, levels,
    out)."""
    x, y = ph.vars("x y")
    src = ph.Func(f"src_{tag}")
    src[x, y] = ph.f32(x * 3 + (y * y) % 7)
    fs = [ph.Func(f"l{k}_{tag}") for k in range(1, levels + 1)]
    fs[-1][x, y] = src[x, y] * 0.5
    for k in range(levels - 2, -1, -1):
        nxt = fs[k + 1]
        fs[k][x, y] = (nxt[x // 2, y // 2] + nxt[(x + 1) // 2, (y + 1) // 2]) * 0.5 + k
    out = ph.Func(f"out_{tag}")
    out[x, y] = fs[0][x // 2, y // 2] + fs[0][(x + 1) // 2, (y + 1) // 2]
    return x, y, fs, out
