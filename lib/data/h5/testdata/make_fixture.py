# Regenerates h5py_300.h5, the libhdf5-written fixture read by reader_test.go.
# Run: /usr/bin/python3 make_fixture.py   (Debian python3-h5py; libhdf5 defaults: superblock 0,
# old-style groups). 300 links > 8 per symbol-table node × 32 per B-tree node, so libhdf5 builds a
# two-level group B-tree — the case github.com/scigolib/hdf5 cannot read.
import h5py
import numpy as np

with h5py.File("h5py_300.h5", "w") as f:
    for i in range(300):
        rows = 1 + i % 3
        data = (i * 10 + np.arange(rows * 4)).reshape(rows, 4).astype(np.float32)
        f.create_dataset("vid%d#enc#%d" % (i // 2, i % 2), data=data)
    f.create_dataset("as_float64", data=np.array([[0.5, -2.0]], dtype=np.float64))
    f.create_dataset("big_endian", data=np.array([1.5, 2.5], dtype=">f4"))
    f.create_dataset("has_nan", data=np.array([1.0, np.nan], dtype=np.float32))
    f.create_dataset("gzipped", data=np.ones((4, 4), dtype=np.float32), compression="gzip")
    f.create_dataset("ints", data=np.arange(3, dtype=np.int32))
    f.create_group("a_group")
