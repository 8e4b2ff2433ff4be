#!/usr/bin/env python3
"""Writes .npy files with numpy itself, the independent reference for test_npy.cpp.

gen_npy.py OUTDIR: for each good case NAME.npy and NAME.raw (the array's C-order bytes,
little endian) and a line "NAME DTYPE D0 D1 ..." in manifest.txt; bad cases (dtypes, orders and
byte orders the reader must refuse) only as NAME.npy, listed in bad.txt.
"""
import os
import sys

import numpy as np

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(12)
good = []


def save(name, a, version=None):
    path = os.path.join(out, name + ".npy")
    with open(path, "wb") as f:
        if version is None:
            np.save(f, a)
        else:
            np.lib.format.write_array(f, a, version=version)
    return path


def add(name, a, version=None):
    save(name, a, version)
    with open(os.path.join(out, name + ".raw"), "wb") as f:
        f.write(np.ascontiguousarray(a).astype(a.dtype.newbyteorder("<")).tobytes())
    good.append(" ".join([name, a.dtype.name] + [str(d) for d in a.shape]))


add("i8_2d", rng.integers(-128, 128, size=(8, 15)).astype(np.int8))
add("u8_3d", rng.integers(0, 256, size=(3, 4, 5)).astype(np.uint8))
add("i32_1d", np.array([0, 1, -1, 2**31 - 1, -(2**31), 123456789, -98765], dtype=np.int32))
add("i8_4d", rng.integers(-128, 128, size=(2, 3, 4, 5)).astype(np.int8))
add("i32_v2", rng.integers(-(2**31), 2**31, size=(5, 6)).astype(np.int32), version=(2, 0))
add("u8_v3", rng.integers(0, 256, size=(17,)).astype(np.uint8), version=(3, 0))
add("i32_scalar", np.array(-7, dtype=np.int32))
add("i8_empty", np.zeros((0, 3), dtype=np.int8))
# A 2-D array that numpy stores C-ordered although it came from a transpose (a view).
add("i8_transposed", np.ascontiguousarray(rng.integers(-128, 128, size=(6, 4)).astype(np.int8).T))

bad = []
save("f64", np.ones((2, 2), dtype=np.float64)); bad.append("f64")
save("i16", np.ones((3,), dtype=np.int16)); bad.append("i16")
save("bool", np.ones((3,), dtype=np.bool_)); bad.append("bool")
save("be_i32", np.arange(6, dtype=">i4").reshape(2, 3)); bad.append("be_i32")
save("fortran_i8", np.asfortranarray(np.arange(12, dtype=np.int8).reshape(3, 4))); bad.append("fortran_i8")
save("structured", np.zeros(3, dtype=[("a", "<i4"), ("b", "|i1")])); bad.append("structured")

with open(os.path.join(out, "manifest.txt"), "w") as f:
    f.write("\n".join(good) + "\n")
with open(os.path.join(out, "bad.txt"), "w") as f:
    f.write("\n".join(bad) + "\n")
