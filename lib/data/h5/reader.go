package h5

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
)

// File is an HDF5 file opened for reading; the root group's links are indexed at Open.
type File struct {
	path       string      // names the file in errors
	r          io.ReaderAt // the file's bytes
	closer     io.Closer   // the *os.File of Open; nil for NewReader
	size       int64
	base       uint64 // base address: every address in the file is relative to it
	offsetSize int
	lengthSize int
	names      []string
	addr       map[string]uint64 // link name → object header address
}

// Open opens path and indexes the links of its root group (NewReader over the file).
func Open(path string) (*File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("h5: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("h5: %w", err)
	}
	h, err := NewReader(f, st.Size(), path)
	if err != nil {
		f.Close()
		return nil, err
	}
	h.closer = f
	return h, nil
}

// NewReader indexes the root group of the HDF5 file held by r (size bytes); name identifies
// it in errors. Any content gives a File or an error naming name and the structure at fault,
// never a panic (FuzzNewReader).
func NewReader(r io.ReaderAt, size int64, name string) (*File, error) {
	h := &File{path: name, r: r, size: size, addr: map[string]uint64{}}
	if err := h.readSuperblockAndRoot(); err != nil {
		return nil, err
	}
	return h, nil
}

// Close closes the file opened by Open (a no-op for NewReader).
func (h *File) Close() error {
	if h.closer == nil {
		return nil
	}
	return h.closer.Close()
}

// Names returns the root group's link names, sorted.
func (h *File) Names() []string { return h.names }

// Has reports whether the root group has a link called name.
func (h *File) Has(name string) bool { _, ok := h.addr[name]; return ok }

func (h *File) errorf(format string, args ...any) error {
	return fmt.Errorf("h5: %s: %s", h.path, fmt.Sprintf(format, args...))
}

// readAt reads n bytes at the (base-relative) address addr.
func (h *File) readAt(addr uint64, n int, what string) ([]byte, error) {
	abs := addr + h.base
	if addr == undefinedAddress || abs < addr || int64(abs) < 0 || int64(abs)+int64(n) > h.size || n < 0 {
		return nil, h.errorf("%s at address %d (+%d bytes) lies outside the file (%d bytes): truncated or corrupt", what, addr, n, h.size)
	}
	buf := make([]byte, n)
	// io.ReaderAt may return io.EOF with a full buffer at the end of the input.
	if got, err := h.r.ReadAt(buf, int64(abs)); got < n {
		return nil, h.errorf("reading %s: %d of %d bytes at address %d: %v", what, got, n, addr, err)
	}
	return buf, nil
}

// uintN decodes a little-endian unsigned integer of n ∈ {1,2,4,8} bytes.
func uintN(b []byte, n int) uint64 {
	switch n {
	case 1:
		return uint64(b[0])
	case 2:
		return uint64(le.Uint16(b))
	case 4:
		v := uint64(le.Uint32(b))
		if v == math.MaxUint32 {
			return undefinedAddress
		}
		return v
	default:
		return le.Uint64(b)
	}
}

// readSuperblockAndRoot locates the superblock (§II.A: at 0, 512, 1024, ...), checks its version,
// and walks the root group's symbol table.
func (h *File) readSuperblockAndRoot() error {
	var sbPos int64 = -1
	for pos := int64(0); pos+8 <= h.size; {
		buf := make([]byte, 8)
		if _, err := h.r.ReadAt(buf, pos); err != nil {
			break
		}
		if bytes.Equal(buf, signature) {
			sbPos = pos
			break
		}
		if pos == 0 {
			pos = 512
		} else {
			pos *= 2
		}
	}
	if sbPos < 0 {
		return h.errorf("no HDF5 signature found: not an HDF5 file")
	}
	head := make([]byte, 32)
	if _, err := h.r.ReadAt(head, sbPos); err != nil {
		return h.errorf("superblock truncated")
	}
	version := head[8]
	if version > 1 {
		return h.errorf("superblock version %d not supported (only 0 and 1, libhdf5's default; re-save the file with h5py's default libver)", version)
	}
	h.offsetSize, h.lengthSize = int(head[13]), int(head[14])
	for _, s := range []int{h.offsetSize, h.lengthSize} {
		if s != 2 && s != 4 && s != 8 {
			return h.errorf("superblock: unsupported offset/length size %d", s)
		}
	}
	pos := sbPos + 24
	if version == 1 {
		pos += 4 // indexed storage internal node K + reserved (§II.A, version 1 only)
	}
	o := h.offsetSize
	rest := make([]byte, 4*o+2*o+8+16)
	if _, err := h.r.ReadAt(rest, pos); err != nil {
		return h.errorf("superblock truncated")
	}
	h.base = uintN(rest[0:], o)
	if h.base == undefinedAddress {
		h.base = 0
	}
	entry := rest[4*o:]
	rootHeader := uintN(entry[o:], o)
	btree, heap, err := h.symbolTableOf(rootHeader, "root group")
	if err != nil {
		return err
	}
	heapData, err := h.readLocalHeap(heap)
	if err != nil {
		return err
	}
	if err := h.walkGroupBTree(btree, heapData, -1, map[uint64]bool{}); err != nil {
		return err
	}
	sort.Strings(h.names)
	return nil
}

// symbolTableOf reads the object header at addr and returns its symbol-table message (§IV.A.2.r).
func (h *File) symbolTableOf(addr uint64, what string) (btree, heap uint64, err error) {
	msgs, err := h.readObjectHeader(addr, what)
	if err != nil {
		return 0, 0, err
	}
	for _, m := range msgs {
		if m.typ == msgSymbolTable {
			o := h.offsetSize
			if len(m.data) < 2*o {
				return 0, 0, h.errorf("%s: symbol table message too short", what)
			}
			return uintN(m.data, o), uintN(m.data[o:], o), nil
		}
		if m.typ == msgLinkInfo || m.typ == msgLink {
			return 0, 0, h.errorf("%s uses new-style (link message) groups, which this reader does not support; re-save with h5py's default libver", what)
		}
	}
	return 0, 0, h.errorf("%s has no symbol table message", what)
}

// readLocalHeap returns the data segment of the local heap at addr (§III.D).
func (h *File) readLocalHeap(addr uint64) ([]byte, error) {
	l, o := h.lengthSize, h.offsetSize
	buf, err := h.readAt(addr, 8+2*l+o, "local heap")
	if err != nil {
		return nil, err
	}
	if string(buf[:4]) != "HEAP" {
		return nil, h.errorf("local heap at %d: bad signature %q", addr, buf[:4])
	}
	size := uintN(buf[8:], l)
	dataAddr := uintN(buf[8+2*l:], o)
	if size > uint64(h.size) {
		return nil, h.errorf("local heap at %d: data size %d exceeds the file", addr, size)
	}
	return h.readAt(dataAddr, int(size), "local heap data")
}

// walkGroupBTree visits a version-1 group B-tree node (§III.A.1, node type 0) and its subtree.
// wantLevel is the level the parent implies (−1 at the root); every node is visited once, so a
// corrupt file whose pointers form a cycle or a DAG is an error rather than an endless walk.
func (h *File) walkGroupBTree(addr uint64, heap []byte, wantLevel int, seen map[uint64]bool) error {
	if seen[addr] {
		return h.errorf("group B-tree node at %d is reached twice: corrupt", addr)
	}
	seen[addr] = true
	o, l := h.offsetSize, h.lengthSize
	head, err := h.readAt(addr, 8+2*o, "B-tree node")
	if err != nil {
		return err
	}
	if string(head[:4]) != "TREE" || head[4] != 0 {
		return h.errorf("B-tree node at %d: bad signature or node type", addr)
	}
	level := int(head[5])
	if wantLevel >= 0 && level != wantLevel {
		return h.errorf("group B-tree node at %d has level %d, its parent implies %d: corrupt", addr, level, wantLevel)
	}
	used := int(le.Uint16(head[6:]))
	body, err := h.readAt(addr+uint64(8+2*o), used*(l+o)+l, "B-tree node entries")
	if err != nil {
		return err
	}
	for i := 0; i < used; i++ {
		child := uintN(body[l+i*(l+o):], o)
		if level > 0 {
			err = h.walkGroupBTree(child, heap, level-1, seen)
		} else if seen[child] {
			err = h.errorf("symbol table node at %d is reached twice: corrupt", child)
		} else {
			seen[child] = true
			err = h.readSymbolNode(child, heap)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// readSymbolNode reads a symbol-table node (§III.B) and records its links.
func (h *File) readSymbolNode(addr uint64, heap []byte) error {
	o := h.offsetSize
	head, err := h.readAt(addr, 8, "symbol table node")
	if err != nil {
		return err
	}
	if string(head[:4]) != "SNOD" {
		return h.errorf("symbol table node at %d: bad signature %q", addr, head[:4])
	}
	n := int(le.Uint16(head[6:]))
	entSize := 2*o + 24
	body, err := h.readAt(addr+8, n*entSize, "symbol table entries")
	if err != nil {
		return err
	}
	for i := 0; i < n; i++ {
		e := body[i*entSize:]
		nameOff := uintN(e, o)
		if nameOff >= uint64(len(heap)) {
			return h.errorf("symbol table node at %d entry %d: name offset %d outside the local heap", addr, i, nameOff)
		}
		end := bytes.IndexByte(heap[nameOff:], 0)
		if end < 0 {
			return h.errorf("symbol table node at %d entry %d: name not NUL-terminated", addr, i)
		}
		name := string(heap[nameOff : nameOff+uint64(end)])
		if _, dup := h.addr[name]; dup {
			return h.errorf("link %q appears twice in the root group", name)
		}
		h.addr[name] = uintN(e[o:], o)
		h.names = append(h.names, name)
	}
	return nil
}

type message struct {
	typ   uint16
	flags byte
	data  []byte
}

// readObjectHeader reads a version-1 object header (§IV.A.1.a) and its continuation blocks.
func (h *File) readObjectHeader(addr uint64, what string) ([]message, error) {
	prefix, err := h.readAt(addr, 16, what+" object header")
	if err != nil {
		return nil, err
	}
	if string(prefix[:4]) == "OHDR" {
		return nil, h.errorf("%s: version-2 object headers are not supported (file written with libver='latest'); re-save with h5py's default libver", what)
	}
	if prefix[0] != 1 {
		return nil, h.errorf("%s: object header version %d not supported", what, prefix[0])
	}
	nMsgs := int(le.Uint16(prefix[2:]))
	type block struct {
		addr uint64
		size int
	}
	blocks := []block{{addr + 16, int(le.Uint32(prefix[8:]))}}
	seenBlock := map[uint64]bool{}
	var out []message
	for len(blocks) > 0 && len(out) < nMsgs {
		b := blocks[0]
		blocks = blocks[1:]
		if seenBlock[b.addr] {
			return nil, h.errorf("%s: object header continuation block at %d is reached twice: corrupt", what, b.addr)
		}
		seenBlock[b.addr] = true
		if b.size < 0 || int64(b.size) > h.size {
			return nil, h.errorf("%s: object header block size %d is corrupt", what, b.size)
		}
		buf, err := h.readAt(b.addr, b.size, what+" object header messages")
		if err != nil {
			return nil, err
		}
		for p := 0; p+8 <= len(buf) && len(out) < nMsgs; {
			typ := le.Uint16(buf[p:])
			size := int(le.Uint16(buf[p+2:]))
			flags := buf[p+4]
			if p+8+size > len(buf) {
				return nil, h.errorf("%s: object header message of type %#x overruns its block", what, typ)
			}
			data := buf[p+8 : p+8+size]
			out = append(out, message{typ, flags, data})
			if typ == msgContinuation {
				o, l := h.offsetSize, h.lengthSize
				if len(data) < o+l {
					return nil, h.errorf("%s: continuation message too short", what)
				}
				blocks = append(blocks, block{uintN(data, o), int(uintN(data[o:], l))})
			}
			p += 8 + size
		}
	}
	return out, nil
}

// Shape returns the dimensions of dataset name without reading its data.
func (h *File) Shape(name string) ([]int, error) {
	ds, err := h.dataset(name)
	if err != nil {
		return nil, err
	}
	return ds.shape, nil
}

type datasetInfo struct {
	shape      []int
	elemSize   int
	bigEndian  bool
	layout     byte
	dataAddr   uint64
	dataSize   uint64
	compactRaw []byte
}

func (h *File) dataset(name string) (*datasetInfo, error) {
	addr, ok := h.addr[name]
	if !ok {
		return nil, h.errorf("no dataset %q in the root group", name)
	}
	what := fmt.Sprintf("dataset %q", name)
	msgs, err := h.readObjectHeader(addr, what)
	if err != nil {
		return nil, err
	}
	ds := &datasetInfo{}
	var haveSpace, haveType, haveLayout bool
	o, l := h.offsetSize, h.lengthSize
	for _, m := range msgs {
		d := m.data
		switch m.typ {
		case msgSymbolTable:
			return nil, h.errorf("%q is a group, not a dataset", name)
		case msgFilterPipe:
			return nil, h.errorf("%s is filtered (compressed); only uncompressed data is supported", what)
		case msgDataspace: // §IV.A.2.b
			if len(d) < 8 {
				return nil, h.errorf("%s: dataspace message too short", what)
			}
			ver, rank := d[0], int(d[1])
			start := 8
			if ver == 2 {
				start = 4
				if d[3] == 0 { // scalar
					rank = 0
				}
			} else if ver != 1 {
				return nil, h.errorf("%s: dataspace version %d not supported", what, ver)
			}
			if len(d) < start+rank*l {
				return nil, h.errorf("%s: dataspace message too short for rank %d", what, rank)
			}
			ds.shape = make([]int, rank)
			for i := range ds.shape {
				v := uintN(d[start+i*l:], l)
				if v > math.MaxInt32 {
					return nil, h.errorf("%s: dimension %d is %d: corrupt", what, i, v)
				}
				ds.shape[i] = int(v)
			}
			haveSpace = true
		case msgDatatype: // §IV.A.2.d
			if m.flags&msgFlagShared != 0 {
				return nil, h.errorf("%s: shared (committed) datatypes are not supported", what)
			}
			if len(d) < 8 {
				return nil, h.errorf("%s: datatype message too short", what)
			}
			if class := d[0] & 0x0f; class != datatypeClassFlt {
				return nil, h.errorf("%s: datatype class %d is not floating point", what, class)
			}
			ds.bigEndian = d[1]&1 != 0
			if d[1]&0x40 != 0 {
				return nil, h.errorf("%s: VAX byte order not supported", what)
			}
			ds.elemSize = int(le.Uint32(d[4:]))
			if ds.elemSize != 4 && ds.elemSize != 8 {
				return nil, h.errorf("%s: float of %d bytes not supported", what, ds.elemSize)
			}
			haveType = true
		case msgLayout: // §IV.A.2.i
			if len(d) < 2 {
				return nil, h.errorf("%s: data layout message of %d bytes is too short", what, len(d))
			}
			if d[0] != 3 {
				return nil, h.errorf("%s: data layout message version %d not supported (only 3)", what, d[0])
			}
			ds.layout = d[1]
			switch ds.layout {
			case layoutContiguous:
				if len(d) < 2+o+l {
					return nil, h.errorf("%s: layout message too short", what)
				}
				ds.dataAddr = uintN(d[2:], o)
				ds.dataSize = uintN(d[2+o:], l)
			case layoutCompact:
				if len(d) < 4 {
					return nil, h.errorf("%s: layout message too short", what)
				}
				n := int(le.Uint16(d[2:]))
				if len(d) < 4+n {
					return nil, h.errorf("%s: compact data truncated", what)
				}
				ds.compactRaw = d[4 : 4+n]
			default:
				return nil, h.errorf("%s: chunked/virtual layout (class %d) not supported; re-save contiguous", what, ds.layout)
			}
			haveLayout = true
		}
	}
	if !haveSpace || !haveType || !haveLayout {
		return nil, h.errorf("%s: object header lacks a dataspace, datatype or layout message", what)
	}
	return ds, nil
}

// maxElements bounds the element count of one dataset (2^34, 64 GiB of float32) so that a corrupt
// shape cannot overflow the size arithmetic; every real dataset is far smaller.
const maxElements = 1 << 34

// ReadFloat32 reads dataset name as float32 (float64 data is converted) and returns it with its
// shape. NaN and ±Inf values are an error naming the dataset and element.
func (h *File) ReadFloat32(name string) ([]float32, []int, error) {
	ds, err := h.dataset(name)
	if err != nil {
		return nil, nil, err
	}
	n := 1
	for _, s := range ds.shape {
		if s != 0 && n > maxElements/s {
			return nil, nil, h.errorf("dataset %q: shape %v has more than %d elements", name, ds.shape, maxElements)
		}
		n *= s
	}
	need := uint64(n) * uint64(ds.elemSize)
	var raw []byte
	if ds.layout == layoutCompact {
		raw = ds.compactRaw
	} else {
		if n > 0 && ds.dataAddr == undefinedAddress {
			return nil, nil, h.errorf("dataset %q has no data written", name)
		}
		if ds.dataSize < need {
			return nil, nil, h.errorf("dataset %q: layout holds %d bytes but shape %v needs %d", name, ds.dataSize, ds.shape, need)
		}
		if n > 0 {
			raw, err = h.readAt(ds.dataAddr, int(need), fmt.Sprintf("data of dataset %q", name))
			if err != nil {
				return nil, nil, err
			}
		}
	}
	if uint64(len(raw)) < need {
		return nil, nil, h.errorf("dataset %q: %d bytes of data, shape %v needs %d", name, len(raw), ds.shape, need)
	}
	var order binary.ByteOrder = binary.LittleEndian
	if ds.bigEndian {
		order = binary.BigEndian
	}
	out := make([]float32, n)
	for i := range out {
		var v float64
		if ds.elemSize == 4 {
			v = float64(math.Float32frombits(order.Uint32(raw[4*i:])))
		} else {
			v = math.Float64frombits(order.Uint64(raw[8*i:]))
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, nil, h.errorf("dataset %q element %d is %v", name, i, v)
		}
		out[i] = float32(v)
	}
	return out, ds.shape, nil
}
