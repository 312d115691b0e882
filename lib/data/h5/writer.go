package h5

import (
	"bufio"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/geoalign/geoalign/lib/atomicfile"
)

// Writer writes a new HDF5 file whose root group holds float32 datasets (contiguous layout).
// Datasets are appended as they come; the root group's heap, symbol-table nodes and B-tree are
// written by Close, which then fills in the superblock and renames the file into place.
type Writer struct {
	path  string
	tmp   *atomicfile.File
	buf   *bufio.Writer
	pos   uint64 // next free address
	links map[string]uint64
	err   error
}

// Create starts writing path (through a temporary file in the same directory, lib/atomicfile).
func Create(path string) (*Writer, error) {
	tmp, err := atomicfile.Create(path)
	if err != nil {
		return nil, fmt.Errorf("h5: %w", err)
	}
	w := &Writer{path: path, tmp: tmp, buf: bufio.NewWriterSize(tmp, 1<<20), links: map[string]uint64{}}
	w.write(make([]byte, superblockV0Size)) // placeholder, filled in by Close
	return w, w.err
}

func (w *Writer) write(b []byte) {
	if w.err != nil {
		return
	}
	_, w.err = w.buf.Write(b)
	w.pos += uint64(len(b))
}

// WriteFloat32 appends dataset name with the given shape (rank ≥ 1) and row-major data. Names
// must be unique, non-empty and free of '/' and NUL; values must be finite.
func (w *Writer) WriteFloat32(name string, shape []int, data []float32) error {
	if w.err != nil {
		return w.err
	}
	if name == "" || name == "." || strings.ContainsAny(name, "/\x00") {
		return fmt.Errorf("h5: %s: dataset name %q must be non-empty and contain no '/' or NUL", w.path, name)
	}
	if _, dup := w.links[name]; dup {
		return fmt.Errorf("h5: %s: dataset %q written twice", w.path, name)
	}
	if len(shape) == 0 || len(shape) > 32 {
		return fmt.Errorf("h5: %s: dataset %q: rank %d not supported", w.path, name, len(shape))
	}
	n := 1
	for _, s := range shape {
		if s < 0 {
			return fmt.Errorf("h5: %s: dataset %q: negative dimension in %v", w.path, name, shape)
		}
		n *= s
	}
	if n != len(data) {
		return fmt.Errorf("h5: %s: dataset %q: shape %v needs %d values, got %d", w.path, name, shape, n, len(data))
	}
	for i, v := range data {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return fmt.Errorf("h5: %s: dataset %q element %d is %v", w.path, name, i, v)
		}
	}
	header := datasetHeader(shape, w.pos, uint64(4*n))
	w.links[name] = w.pos
	w.write(header)
	raw := make([]byte, 4*n)
	for i, v := range data {
		le.PutUint32(raw[4*i:], math.Float32bits(v))
	}
	w.write(raw)
	if pad := pad8(len(raw)) - len(raw); pad > 0 {
		w.write(make([]byte, pad))
	}
	return w.err
}

// datasetHeader builds a version-1 object header (§IV.A.1.a) for a float32 dataset whose data
// follows the header immediately; headerAddr is where the header itself will be written.
func datasetHeader(shape []int, headerAddr, dataSize uint64) []byte {
	// Dataspace, version 1 (§IV.A.2.b): version, rank, flags (no max dims), 5 reserved bytes, dims.
	space := make([]byte, 8+lengthSize*len(shape))
	space[0], space[1] = 1, byte(len(shape))
	for i, s := range shape {
		le.PutUint64(space[8+lengthSize*i:], uint64(s))
	}
	// Datatype, version 1, class floating point (§IV.A.2.d): IEEE 754 binary32, little-endian.
	dtype := make([]byte, 20)
	dtype[0] = 1<<4 | datatypeClassFlt
	dtype[1] = 0x20 // bit field: little-endian, no padding, mantissa normalisation "implied msb"
	dtype[2] = 31   // sign bit location
	le.PutUint32(dtype[4:], 4)
	le.PutUint16(dtype[8:], 0)   // bit offset
	le.PutUint16(dtype[10:], 32) // bit precision
	dtype[12], dtype[13] = 23, 8 // exponent location, size
	dtype[14], dtype[15] = 0, 23 // mantissa location, size
	le.PutUint32(dtype[16:], 127)
	// Fill value, version 2 (§IV.A.2.f), as libhdf5 writes it for every dataset: space allocation
	// time late (2), fill written "if set" (2), no fill value defined (0).
	fill := []byte{2, 2, 2, 0}
	// Data layout, version 3, contiguous (§IV.A.2.i): address and size, patched below.
	layout := make([]byte, 2+offsetSize+lengthSize)
	layout[0], layout[1] = 3, layoutContiguous
	msgs := []message{{typ: msgDataspace, data: space}, {typ: msgDatatype, flags: 1, data: dtype},
		{typ: msgFillValue, flags: 1, data: fill}, {typ: msgLayout, data: layout}}
	size := 0
	for _, m := range msgs {
		size += 8 + pad8(len(m.data))
	}
	total := 16 + size
	le.PutUint64(layout[2:], headerAddr+uint64(total))
	le.PutUint64(layout[2+offsetSize:], dataSize)
	return objectHeader(msgs)
}

// objectHeader serialises a version-1 object header: 16-byte prefix, then 8-byte aligned messages.
func objectHeader(msgs []message) []byte {
	size := 0
	for _, m := range msgs {
		size += 8 + pad8(len(m.data))
	}
	out := make([]byte, 16+size)
	out[0] = 1
	le.PutUint16(out[2:], uint16(len(msgs)))
	le.PutUint32(out[4:], 1) // reference count
	le.PutUint32(out[8:], uint32(size))
	p := 16
	for _, m := range msgs {
		le.PutUint16(out[p:], m.typ)
		le.PutUint16(out[p+2:], uint16(pad8(len(m.data))))
		out[p+4] = m.flags
		copy(out[p+8:], m.data)
		p += 8 + pad8(len(m.data))
	}
	return out
}

// Close writes the root group (local heap, symbol-table nodes, one level-0 B-tree node, object
// header) and the superblock, and renames the file into place.
func (w *Writer) Close() (err error) {
	defer func() {
		if err != nil {
			w.tmp.Abort()
		}
	}()
	if w.err != nil {
		return fmt.Errorf("h5: writing %s: %w", w.path, w.err)
	}
	names := make([]string, 0, len(w.links))
	for n := range w.links {
		names = append(names, n)
	}
	sort.Strings(names) // symbol-table entries are ordered by name (§III.B), byte-wise like strcmp

	// Local heap data (§III.D): offset 0 holds the empty string, then every name, NUL-terminated,
	// each padded to 8 bytes.
	heapData := make([]byte, 8)
	nameOff := make([]uint64, len(names))
	for i, n := range names {
		nameOff[i] = uint64(len(heapData))
		b := make([]byte, pad8(len(n)+1))
		copy(b, n)
		heapData = append(heapData, b...)
	}

	// Spread the links over at most 2·groupInternalK symbol-table nodes of capacity 2·leafK.
	maxNodes := 2 * groupInternalK
	leafK := max(minGroupLeafK, (len(names)+2*maxNodes-1)/(2*maxNodes))
	perNode := 2 * leafK
	nNodes := max(1, (len(names)+perNode-1)/perNode)
	snodSize := 8 + perNode*symbolEntrySize

	heapHeaderAddr := w.pos
	heapDataAddr := heapHeaderAddr + 32
	snodAddr := heapDataAddr + uint64(len(heapData))
	btreeAddr := snodAddr + uint64(nNodes*snodSize)
	btreeSize := 8 + 2*offsetSize + (2*groupInternalK+1)*lengthSize + 2*groupInternalK*offsetSize
	rootAddr := btreeAddr + uint64(btreeSize)

	heapHeader := make([]byte, 32)
	copy(heapHeader, "HEAP")
	le.PutUint64(heapHeader[8:], uint64(len(heapData)))
	le.PutUint64(heapHeader[16:], heapFreeNull) // no free block
	le.PutUint64(heapHeader[24:], heapDataAddr)
	w.write(heapHeader)
	w.write(heapData)

	lastOfNode := make([]uint64, nNodes)
	for k := 0; k < nNodes; k++ {
		lo := k * len(names) / nNodes
		hi := (k + 1) * len(names) / nNodes
		node := make([]byte, snodSize)
		copy(node, "SNOD")
		node[4] = 1
		le.PutUint16(node[6:], uint16(hi-lo))
		for i := lo; i < hi; i++ {
			e := node[8+(i-lo)*symbolEntrySize:]
			le.PutUint64(e, nameOff[i])
			le.PutUint64(e[offsetSize:], w.links[names[i]])
		}
		if hi > lo {
			lastOfNode[k] = nameOff[hi-1]
		}
		w.write(node)
	}

	// B-tree node (§III.A.1): type 0 (group), level 0, key_0 = "" then child_i, key_{i+1} = last
	// name under child_i.
	bt := make([]byte, btreeSize)
	copy(bt, "TREE")
	le.PutUint16(bt[6:], uint16(nNodes))
	le.PutUint64(bt[8:], undefinedAddress)  // left sibling
	le.PutUint64(bt[16:], undefinedAddress) // right sibling
	p := 24
	le.PutUint64(bt[p:], 0)
	p += lengthSize
	for k := 0; k < nNodes; k++ {
		le.PutUint64(bt[p:], snodAddr+uint64(k*snodSize))
		le.PutUint64(bt[p+offsetSize:], lastOfNode[k])
		p += offsetSize + lengthSize
	}
	w.write(bt)

	stab := make([]byte, 2*offsetSize)
	le.PutUint64(stab, btreeAddr)
	le.PutUint64(stab[offsetSize:], heapHeaderAddr)
	w.write(objectHeader([]message{{typ: msgSymbolTable, data: stab}}))
	eof := w.pos
	if w.err == nil {
		w.err = w.buf.Flush()
	}
	if w.err != nil {
		return fmt.Errorf("h5: writing %s: %w", w.path, w.err)
	}

	// Superblock version 0 (§II.A).
	sb := make([]byte, superblockV0Size)
	copy(sb, signature)
	sb[13], sb[14] = offsetSize, lengthSize
	le.PutUint16(sb[16:], uint16(leafK))
	le.PutUint16(sb[18:], groupInternalK)
	le.PutUint64(sb[24:], 0)                // base address
	le.PutUint64(sb[32:], undefinedAddress) // free-space info
	le.PutUint64(sb[40:], eof)              // end of file
	le.PutUint64(sb[48:], undefinedAddress) // driver info
	root := sb[56:]                         // root group symbol-table entry (§III.C)
	le.PutUint64(root, 0)
	le.PutUint64(root[offsetSize:], rootAddr)
	le.PutUint32(root[16:], 1) // cache type 1: scratch pad holds the B-tree and heap addresses
	le.PutUint64(root[24:], btreeAddr)
	le.PutUint64(root[32:], heapHeaderAddr)
	if _, err := w.tmp.WriteAt(sb, 0); err != nil {
		return fmt.Errorf("h5: writing %s: %w", w.path, err)
	}
	if err := w.tmp.Commit(); err != nil {
		return fmt.Errorf("h5: %w", err)
	}
	return nil
}

// Abort discards a file being written.
func (w *Writer) Abort() {
	w.tmp.Abort()
}
