package h5

import "encoding/binary"

// Constants of the HDF5 File Format Specification v3 (section numbers in comments).
var signature = []byte{0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'} // §II.A format signature

const (
	undefinedAddress = ^uint64(0) // §II: "undefined address" is all bits set
	// heapFreeNull marks an empty local-heap free list. The spec says "undefined address", but
	// libhdf5 writes 1 (H5HL_FREE_NULL in H5HLprivate.h) and rejects any other value ≥ the heap
	// size, so the writer follows libhdf5.
	heapFreeNull = 1

	// Object header message types (§IV.A.2).
	msgNil           = 0x0000
	msgDataspace     = 0x0001
	msgDatatype      = 0x0003
	msgFillValueOld  = 0x0004
	msgFillValue     = 0x0005
	msgLayout        = 0x0008
	msgFilterPipe    = 0x000B
	msgContinuation  = 0x0010
	msgSymbolTable   = 0x0011
	msgLinkInfo      = 0x0002
	msgLink          = 0x0006
	msgFlagShared    = 0x02 // message flag bit 1: message is shared (§IV.A.1.a)
	datatypeClassFlt = 1    // §IV.A.2.d datatype class "floating-point"

	layoutCompact    = 0
	layoutContiguous = 1

	// Sizes used by the writer: 8-byte offsets and lengths, as libhdf5 uses on 64-bit systems.
	offsetSize        = 8
	lengthSize        = 8
	symbolEntrySize   = 2*offsetSize + 4 + 4 + 16 // §III.C symbol table entry
	superblockV0Size  = 24 + 4*offsetSize + symbolEntrySize
	objectHeaderAlign = 8 // §IV.A.1.a: v1 header messages are aligned on 8-byte boundaries

	// groupInternalK is the version-1 B-tree "group internal node K" the writer records: libhdf5's
	// default (16), so a root node holds up to 2K = 32 symbol-table nodes.
	groupInternalK = 16
	// minGroupLeafK is libhdf5's default group leaf node K (4: up to 8 links per symbol-table node).
	// The writer raises it so that every link fits under a single level-0 B-tree node, which the
	// format allows (K is a per-file superblock parameter).
	minGroupLeafK = 4
)

var le = binary.LittleEndian

// pad8 rounds n up to a multiple of 8.
func pad8(n int) int { return (n + 7) &^ 7 }
