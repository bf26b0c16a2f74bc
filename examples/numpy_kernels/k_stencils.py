"""Stencils written with slices: views read, slice assignment, overlap."""
import numpy as np

from .corpus import Kernel

RNG = np.random.default_rng


def jacobi_1d(a):
    b = a.copy()
    b[1:-1] = (a[:-2] + a[1:-1] + a[2:]) / 3.0
    return b


def laplacian(u):
    return u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - 4 * u[1:-1, 1:-1]


def box_blur(img):
    f = img.astype(np.float32)
    s = (f[:-2, :-2] + f[:-2, 1:-1] + f[:-2, 2:] + f[1:-1, :-2] + f[1:-1, 1:-1] + f[1:-1, 2:]
         + f[2:, :-2] + f[2:, 1:-1] + f[2:, 2:])
    return s / 9


def sobel(img):
    gx = (img[:-2, 2:] + 2 * img[1:-1, 2:] + img[2:, 2:]) - \
        (img[:-2, :-2] + 2 * img[1:-1, :-2] + img[2:, :-2])
    gy = (img[2:, :-2] + 2 * img[2:, 1:-1] + img[2:, 2:]) - \
        (img[:-2, :-2] + 2 * img[:-2, 1:-1] + img[:-2, 2:])
    return np.sqrt(gx * gx + gy * gy)


def heat_step_inplace(u, r):
    u[1:-1] = u[1:-1] + r * (u[:-2] - 2 * u[1:-1] + u[2:])
    return u


def forward_diff(a, h):
    return (a[1:] - a[:-1]) / h


def np_diff(a):
    return np.diff(a, axis=0)


def hdiff(inp, coeff):
    lap = 4.0 * inp[1:-1, 1:-1] - (inp[2:, 1:-1] + inp[:-2, 1:-1] + inp[1:-1, 2:] + inp[1:-1, :-2])
    flx = lap[1:, 1:-1] - lap[:-1, 1:-1]
    fly = lap[1:-1, 1:] - lap[1:-1, :-1]
    return inp[2:-2, 2:-2] - coeff * (flx[1:, :] - flx[:-1, :] + fly[:, 1:] - fly[:, :-1])


def life_step(board):
    n = (board[:-2, :-2] + board[:-2, 1:-1] + board[:-2, 2:] + board[1:-1, :-2]
         + board[1:-1, 2:] + board[2:, :-2] + board[2:, 1:-1] + board[2:, 2:])
    alive = board[1:-1, 1:-1] == 1
    new = np.zeros_like(board)
    new[1:-1, 1:-1] = ((n == 3) | (alive & (n == 2))).astype(board.dtype)
    return new


def gray_scott(u, v, du, dv, f, k):
    lu = u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - 4 * u[1:-1, 1:-1]
    lv = v[:-2, 1:-1] + v[2:, 1:-1] + v[1:-1, :-2] + v[1:-1, 2:] - 4 * v[1:-1, 1:-1]
    uc = u[1:-1, 1:-1]
    vc = v[1:-1, 1:-1]
    uvv = uc * vc * vc
    un = u.copy()
    vn = v.copy()
    un[1:-1, 1:-1] = uc + du * lu - uvv + f * (1 - uc)
    vn[1:-1, 1:-1] = vc + dv * lv + uvv - (f + k) * vc
    return un, vn


def downsample2(img):
    return (img[::2, ::2] + img[1::2, ::2] + img[::2, 1::2] + img[1::2, 1::2]) * 0.25


def flip_mirror(img):
    return img[::-1, :] - img[:, ::-1]


def _floats_1d():
    x = RNG(20).standard_normal(17)
    return [(x,), (x.astype(np.float32),)]


def _grid():
    r = RNG(21)
    return [(r.standard_normal((7, 9)),), (r.integers(-50, 50, (6, 5)).astype(np.int32),)]


def _image():
    return [(RNG(22).integers(0, 256, (8, 10), dtype=np.uint8),)]


def _sobel():
    r = RNG(23)
    return [(r.standard_normal((8, 9)),), (r.standard_normal((6, 6)).astype(np.float32),)]


def _heat():
    x = RNG(24).standard_normal(15)
    return [(x, 0.25), (x.astype(np.float32), 0.25)]


def _diff():
    x = RNG(25).standard_normal(12)
    return [(x, 0.5), (np.arange(10, dtype=np.int16) ** 2, 2)]


def _diff2():
    return [(RNG(26).integers(0, 9, (5, 4)),)]


def _hdiff():
    return [(RNG(27).standard_normal((10, 11)), 0.025)]


def _life():
    return [(RNG(28).integers(0, 2, (9, 9)).astype(np.int8),),
            (RNG(29).integers(0, 2, (6, 11)).astype(np.int64),)]


def _gray_scott():
    r = RNG(30)
    return [(r.uniform(0, 1, (8, 8)), r.uniform(0, 1, (8, 8)), 0.16, 0.08, 0.035, 0.065)]


def _downsample():
    r = RNG(31)
    return [(r.standard_normal((8, 6)),), (r.standard_normal((7, 5)).astype(np.float32),)]


KERNELS = [
    Kernel(jacobi_1d, _floats_1d, "slice reads a[:-2], a[2:]; slice assignment into a copy"),
    Kernel(laplacian, _grid, "5-point Laplacian with 2-D slices"),
    Kernel(box_blur, _image, "3x3 box blur of uint8 with .astype and 9 slices"),
    Kernel(sobel, _sobel, "Sobel gradient magnitude: slices, np.sqrt"),
    Kernel(heat_step_inplace, _heat, "in-place overlapping slice update of an argument"),
    Kernel(forward_diff, _diff, "a[1:] - a[:-1], int16 ** 2"),
    Kernel(np_diff, _diff2, "np.diff (not in the issue's list)"),
    Kernel(hdiff, _hdiff, "horizontal diffusion: slices of named intermediates"),
    Kernel(life_step, _life, "game of life: neighbour sum, ==, &, |, np.zeros_like, astype"),
    Kernel(gray_scott, _gray_scott, "Gray-Scott step: two Laplacians, copies, slice updates"),
    Kernel(downsample2, _downsample, "strided slices a[::2, ::2] (odd sizes broadcast-fail)"),
    Kernel(flip_mirror, _grid, "negative-step slices a[::-1]"),
]
