"""Regenerates the NumPy-written fixtures that lib/npy's tests read (run with Debian's
/usr/bin/python3 and python3-numpy: `cd lib/npy/testdata && /usr/bin/python3 gen.py`).
The values are simple closed forms that the Go tests recompute independently."""
import numpy as np

def save(name, a, version=None):
    with open(name, "wb") as f:
        np.lib.format.write_array(f, a, version=version, allow_pickle=False)

m = np.arange(6).reshape(2, 3) * 0.5 - 1  # [[-1, -0.5, 0], [0.5, 1, 1.5]]
save("f4_2x3.npy", m.astype("<f4"))
save("f8_2x3.npy", m.astype("<f8"))
save("f4_2x3_v2.npy", m.astype("<f4"), version=(2, 0))
save("f4_2x3_fortran.npy", np.asfortranarray(m.astype("<f4")))
save("f4_0x3.npy", np.zeros((0, 3), "<f4"))
save("i4_5.npy", (np.arange(5) * 3 - 4).astype("<i4"))       # [-4, -1, 2, 5, 8]
save("i8_5.npy", (np.arange(5) * 3 - 4).astype("<i8"))
save("f4_be_2x3.npy", m.astype(">f4"))
save("f2_2x3.npy", m.astype("<f2"))
n = m.astype("<f4").copy(); n[1, 2] = np.nan
save("f4_nan_2x3.npy", n)
save("f8_scalar.npy", np.array(2.5))
