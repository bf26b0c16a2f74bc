"""rfactor of a scatter whose data-dependent index can leave the output's
region (issue 11 item 2): under every schedule the pipeline raises IndexError
where the serial schedule raises, and gives the serial (and NumPy's) result
on data that stays inside. The intermediate holds the output's bins, and its
writes are checked against the output's region, as the serial writes are."""
import os
import random

import numpy as np
import pytest

import pyhalide as ph

i, u, v, w = ph.Var("i"), ph.Var("u"), ph.Var("v"), ph.Var("w")


class Case:
    """A histogram-like Func over a 3-D input, built once with and once
    without a schedule, realized on several inputs."""

    def __init__(self, dtype, bins, offset=0, kind="count", schedule=None):
        self.img = ph.ImageParam(ph.Type.from_numpy(np.dtype(dtype)), 3, "img")
        self.bins, self.offset, self.kind = bins, offset, kind
        self.serial = ph.Pipeline([self.build(None)])
        self.scheduled = ph.Pipeline([self.build(schedule)])

    def build(self, schedule):
        img = self.img
        r = ph.RDom([(0, img.dim(0).extent()), (0, img.dim(1).extent()),
                     (0, img.dim(2).extent())], "r")
        k = ph.cast(ph.Int(32), img[r.x, r.y, r.z]) + self.offset
        h = ph.Func("h")
        if self.kind == "count":
            h[i] = 0
            h[k] += 1
        elif self.kind == "tuple":           # count and the largest r.y seen per bin
            h[i] = (0, 0)
            h[k] = (h[k][0] + 1, ph.max(h[k][1], r.y))
        elif self.kind == "argmin":          # smallest value per bin and its first r.z
            h[i] = (1000, 0)
            val = (ph.cast(ph.Int(32), img[r.x, r.y, r.z]) * 7) % 13
            better = val < h[k][0]
            h[k] = (ph.select(better, val, h[k][0]), ph.select(better, r.z, h[k][1]))
        if schedule is not None:
            schedule(h, r)
        return h

    def run(self, pipeline, data):
        self.img.set(ph.Buffer(data))
        out = pipeline.realize([self.bins])
        return [np.asarray(o) for o in (out if isinstance(out, (list, tuple)) else [out])]

    def expected(self, data):
        """NumPy's result; data indexed [z, y, x] (dimension 0 is x)."""
        keys = data.astype(np.int64) + self.offset
        if self.kind == "count":
            return [np.bincount(keys.ravel(), minlength=self.bins).astype(np.int32)]
        zz, yy, _ = np.indices(data.shape)
        if self.kind == "tuple":
            mx = np.zeros(self.bins, np.int32)
            np.maximum.at(mx, keys.ravel(), yy.ravel())
            return [np.bincount(keys.ravel(), minlength=self.bins).astype(np.int32), mx]
        vals = (data.astype(np.int32) * 7) % 13
        best, where = np.full(self.bins, 1000, np.int32), np.zeros(self.bins, np.int32)
        for val, key, z in zip(vals.ravel(), keys.ravel(), zz.ravel()):   # serial order
            if val < best[key]:
                best[key], where[key] = val, z
        return [best, where]

    def check(self, data, inside: bool, what=""):
        if inside:
            want = self.expected(data)
            for got in (self.run(self.serial, data), self.run(self.scheduled, data)):
                assert len(got) == len(want), what
                for g, e in zip(got, want):
                    np.testing.assert_array_equal(g, e, err_msg=what)
        else:
            for p in (self.serial, self.scheduled):
                with pytest.raises(IndexError, match=r"Func h\S* is written at index -?\d+ in "
                                                     r"dimension 0, outside"):
                    self.run(p, data)


# ---- schedules ----------------------------------------------------------------------
def rf_z(h, r):
    h.update(0).rfactor(r.z, u)


def rf_inner(h, r):
    # partial argmins then come out of serial order: merged through <h>_merge
    h.update(0).rfactor(r.x, u)


def rf_yz(h, r):
    h.update(0).rfactor([(r.y, u), (r.z, v)])


def rf_parallel(h, r):
    h.update(0).rfactor(r.z, u).compute_root().update(0).parallel(u)


def rf_vectorized(h, r):
    intm = h.update(0).rfactor(r.z, u)
    intm.compute_root().vectorize(u, 4)
    intm.update(0).vectorize(u, 4)


def rf_split(h, r):
    zo, zi = ph.RVar("zo"), ph.RVar("zi")
    h.update(0).split(r.z, zo, zi, 3)
    h.update(0).rfactor(zo, u).compute_root().update(0).parallel(u)


def rf_twice(h, r):
    intm = h.update(0).rfactor(r.z, u)
    intm.update(0).rfactor(r.y, v)


def rf_at_merge_tile(h, r):
    # the intermediate computed per tile of bins still covers every bin
    io, ii = ph.Var("io"), ph.Var("ii")
    intm = h.update(0).rfactor(r.z, u)
    h.update(0).split(i, io, ii, 8)
    intm.compute_at(h, io)


SCHEDULES = [rf_z, rf_inner, rf_yz, rf_parallel, rf_vectorized, rf_split, rf_twice, rf_at_merge_tile]


def _data(rng, dtype, shape, lo, hi):
    return rng.integers(lo, hi, shape).astype(dtype)


@pytest.mark.parametrize("schedule", SCHEDULES, ids=lambda s: s.__name__)
def test_out_of_range_bin_raises_under_every_schedule(schedule):
    # the case: 100 bins over uint8 data; rfactor used to drop the
    # counts of 200..255 silently
    c = Case(np.uint8, 100, schedule=schedule)
    rng = np.random.default_rng(11)
    ok = _data(rng, np.uint8, (5, 7, 9), 0, 100)
    c.check(ok, True)
    bad = ok.copy()
    bad[3, 2, 4] = 217
    c.check(bad, False)


@pytest.mark.parametrize("kind,schedule", [("tuple", rf_parallel), ("argmin", rf_parallel),
                                           ("argmin", rf_inner)])
def test_tuple_and_argmin_scatters(kind, schedule):
    c = Case(np.uint8, 60, kind=kind, schedule=schedule)
    rng = np.random.default_rng(12)
    ok = _data(rng, np.uint8, (6, 5, 8), 0, 60)
    c.check(ok, True, kind)
    bad = ok.copy()
    bad[5, 4, 7] = 60
    c.check(bad, False)


@pytest.mark.parametrize("dtype", [np.int16, np.int32])
def test_negative_and_wide_indices(dtype):
    # int16 data shifted down can be negative; int32 data has no narrow range
    c = Case(dtype, 50, offset=-20, schedule=rf_z)
    rng = np.random.default_rng(13)
    ok = _data(rng, dtype, (4, 6, 7), 20, 70)
    c.check(ok, True)
    for value in (19, 70, -(2 ** 15)):
        bad = ok.copy()
        bad[1, 1, 1] = value
        c.check(bad, False, str(value))


def _consumed_histogram(dtype, schedule):
    img = ph.ImageParam(ph.Type.from_numpy(np.dtype(dtype)), 1, "img")
    r = ph.RDom([(0, img.dim(0).extent())], "r")
    h, g = ph.Func("h"), ph.Func("g")
    h[i] = 0
    h[ph.cast(ph.Int(32), img[r])] += 1
    g[i] = h[i] * 2
    if schedule:
        ro, ri = ph.RVar("ro"), ph.RVar("ri")
        h.update(0).split(r.x, ro, ri, 4)
        intm = h.update(0).rfactor(ro, u)
        if schedule == "tiles":         # the intermediate computed per tile of bins
            io, ii = ph.Var("io"), ph.Var("ii")
            h.update(0).split(i, io, ii, 5)
            intm.compute_at(h, io)
    return img, ph.Pipeline([g])


@pytest.mark.parametrize("schedule", [False, "root", "tiles"])
def test_funcs_that_are_not_outputs_keep_their_rules(schedule):
    # a scatter into a Func a consumer reads keeps the values outside what the
    # consumer reads where a narrow index extends the Func's region, and raises
    # for a 32-bit index outside it, rfactored or not
    data = np.array([1, 2, 250, 3, 3, 9, 200, 0, 1, 19], np.uint8)
    want = 2 * np.bincount(np.minimum(data, 20), minlength=21)[:20]
    img, p = _consumed_histogram(np.uint8, schedule)
    img.set(ph.Buffer(data))
    np.testing.assert_array_equal(np.asarray(p.realize([20])), want)
    img, p = _consumed_histogram(np.int32, schedule)
    inside = np.minimum(data, 19).astype(np.int32)
    img.set(ph.Buffer(inside))
    np.testing.assert_array_equal(np.asarray(p.realize([20])),
                                  2 * np.bincount(inside, minlength=20))
    img.set(ph.Buffer(data.astype(np.int32)))
    with pytest.raises(IndexError, match=r"Func h\S* is written at index 250 in dimension 0"):
        p.realize([20])


def test_random_schedules_and_data():
    """Serial vs rfactored schedules on random data, with and without an
    out-of-range index. The seed is printed (PYHALIDE_TEST_SEED repeats it)."""
    seed = int(os.environ.get("PYHALIDE_TEST_SEED", random.randrange(1 << 30)))
    print(f"test_random_schedules_and_data: PYHALIDE_TEST_SEED={seed}")
    rnd = random.Random(seed)
    rng = np.random.default_rng(seed)
    for round_ in range(4):
        dtype = rnd.choice([np.uint8, np.int16, np.int32])
        info = np.iinfo(dtype)
        bins = rnd.randint(1, 90)
        offset = rnd.randint(-10, min(10, bins - 1))     # some bin is reachable
        kind = rnd.choice(["count", "count", "tuple", "argmin"])
        schedule = rnd.choice(SCHEDULES)
        what = (f"seed {seed}, round {round_}: {np.dtype(dtype).name} data, {bins} bins, "
                f"offset {offset}, {kind}, {schedule.__name__}")
        c = Case(dtype, bins, offset, kind, schedule)
        shape = tuple(rnd.randint(1, 6) for _ in range(3))
        ok = _data(rng, dtype, shape, max(-offset, info.min), bins - offset)
        c.check(ok, True, what)
        outside = [(bins - offset, int(info.max))]           # values past the last bin
        if info.min <= -offset - 1:
            outside.append((int(info.min), -offset - 1))       # values before bin 0
        lo, hi = rnd.choice(outside)
        bad = ok.copy()
        bad.flat[rnd.randrange(bad.size)] = rnd.choice([lo, hi, rnd.randint(lo, hi)])
        c.check(bad, False, what)


def test_the_kernel_key_tells_an_intermediate_from_a_plain_func():
    # the same definitions without the link to the output are checked otherwise,
    # so they must not share a (disk-cached) kernel
    from pyhalide.graph import collect_graph, fingerprint
    img = ph.ImageParam(ph.UInt(8), 1, "img")
    r = ph.RDom([(0, img.dim(0).extent())], "r")
    h = ph.Func("h")
    h[i] = 0
    h[ph.cast(ph.Int(32), img[r])] += 1
    ro, ri = ph.RVar("ro"), ph.RVar("ri")
    h.update(0).split(r.x, ro, ri, 4)
    intm = h.update(0).rfactor(ro, u)
    outs = [h.function()]
    linked = fingerprint(outs, collect_graph(outs))
    intm.function().factored_from = ""
    assert fingerprint(outs, collect_graph(outs)) != linked
