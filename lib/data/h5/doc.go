// Package h5 reads and writes the small subset of HDF5 that the PRVR token-level text features use
// (docs/official-code.md §3.1: TextData/roberta_<collection>_query_feat.hdf5, one dataset per caption id
// in the root group, shape (n_tokens, D), float32), in pure Go.
//
// Why not a library: gonum.org/v1/hdf5 needs cgo and libhdf5; github.com/scigolib/hdf5 v0.14.1
// (the newest version the module proxy serves) cannot read a root group whose B-tree has more than
// one level — which h5py produces for any file with more than a few hundred datasets, i.e. every
// real feature file — and its writer fails beyond 256 links in a group. So this package implements
// exactly what these files need, following the HDF5 File Format Specification v3 (sections cited
// in the code):
//
//   - Reader: superblock versions 0 and 1; "old-style" groups (symbol-table message, version-1
//     B-tree of any depth, symbol-table nodes, local heap) — the layout h5py/libhdf5 writes by
//     default; version-1 object headers with continuation blocks; dataspace versions 1 and 2;
//     IEEE float datatypes (4 or 8 bytes, either byte order); contiguous and compact layouts.
//     Anything else (superblock ≥ 2, v2 object headers, chunked or filtered data, integer or
//     compound types, sub-groups) is a clear error naming the file and dataset.
//   - Writer: superblock 0, one root group holding float32 2-D datasets in contiguous layout.
//     Files it writes are read back by libhdf5/h5py (checked in TestCrossCheckWithH5py when
//     /usr/bin/python3 has h5py).
//
// Only the root group is indexed; dataset names are the link names there (caption ids such as
// "v_123#enc#0"), which is how the official data provider looks them up.
package h5
