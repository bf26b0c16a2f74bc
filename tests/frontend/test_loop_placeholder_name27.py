"""A scan over `for _ in range(k)` inside another loop (the CRC / bit-count
idiom): the scan's Func dimension for `_` was Halide's placeholder Var `_`,
so the Func lost that dimension and the build stopped with "Func cur has 1
dimension but is called with 2 arguments" (lead probe, session 27).
emit.new_var renames `_` and `_0`, `_1`, ... for every caller."""
import numpy as np

import pyhalide as ph


def crc16(data):
    crc = 0xFFFF
    for b in data:
        cur = 0xFF & int(b)
        for _ in range(0, 8):
            if (crc & 0x0001) ^ (cur & 0x0001):
                crc = (crc >> 1) ^ 0x8408
            else:
                crc >>= 1
            cur >>= 1
    crc = ~crc & 0xFFFF
    return ((crc << 8) | ((crc >> 8) & 0xFF)) & 0xFFFF


def bit_count(data):
    total = 0
    for i in range(data.shape[0]):
        cur = int(data[i])
        for _0 in range(8):
            total = total + (cur & 1)
            cur >>= 1
    return total


def test_crc16_equals_python():
    data = np.random.default_rng(27).integers(0, 256, 37).astype(np.uint8)
    f = ph.pipeline(crc16)
    assert f(data) == crc16(data)
    assert f(data[:0]) == crc16(data[:0])


def test_bit_count_with_implicit_var_name_equals_python():
    data = np.arange(256, dtype=np.uint8)
    assert ph.pipeline(bit_count)(data) == bit_count(data)
