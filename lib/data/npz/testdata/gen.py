# Regenerates the NumPy-written archives the npz tests and FuzzNewReader seeds read.
# Run from this directory: /usr/bin/python3 gen.py   (Debian python3-numpy)
import numpy as np

a = np.arange(6, dtype=np.float32).reshape(2, 3) / 4
b = np.array([7, 8], dtype=np.int64)
np.savez("savez.npz", a=a, b=b)
np.savez_compressed("savez_compressed.npz", a=a, b=b)
