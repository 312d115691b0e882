package npy

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// Dtype is a NumPy array-protocol type string, as it appears in the header's 'descr'.
type Dtype string

// The dtypes this package reads and writes.
const (
	Float32 Dtype = "<f4"
	Float64 Dtype = "<f8"
	Int32   Dtype = "<i4"
	Int64   Dtype = "<i8"
)

// Size is the number of bytes of one element, 0 for an unsupported dtype.
func (d Dtype) Size() int {
	switch d {
	case Float32, Int32:
		return 4
	case Float64, Int64:
		return 8
	}
	return 0
}

// IsFloat reports whether d is a floating-point dtype.
func (d Dtype) IsFloat() bool { return d == Float32 || d == Float64 }

// Header is the parsed .npy header.
type Header struct {
	Dtype        Dtype
	FortranOrder bool  // data stored column-major
	Shape        []int // () for a scalar
	// DataOffset is the byte offset of the first data element: magic + version +
	// length field + header dict. Set by Parse; ignored by WriteHeader.
	DataOffset int64
}

// Len is the number of elements, the product of Shape (1 for a scalar).
func (h Header) Len() int {
	n := 1
	for _, d := range h.Shape {
		n *= d
	}
	return n
}

// DataBytes is the size of the data section in bytes.
func (h Header) DataBytes() int64 { return int64(h.Len()) * int64(h.Dtype.Size()) }

// String renders the header the way NumPy's repr shows it, for error messages.
func (h Header) String() string {
	return fmt.Sprintf("dtype %s, shape %s, fortran_order %v", h.Dtype, shapeString(h.Shape), h.FortranOrder)
}

func shapeString(shape []int) string {
	parts := make([]string, len(shape))
	for i, d := range shape {
		parts[i] = strconv.Itoa(d)
	}
	if len(shape) == 1 {
		return "(" + parts[0] + ",)"
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// magic opens every .npy file (NEP 1).
const magic = "\x93NUMPY"

// maxHeaderLen bounds the header dict we accept. NumPy itself refuses headers longer
// than 10000 bytes unless told otherwise (numpy.lib.format._MAX_HEADER_SIZE, the
// max_header_size argument added in NumPy 1.24 to stop malicious files); a 2-D header is
// about 70 bytes, so this only ever rejects garbage, before any allocation.
const maxHeaderLen = 10000

// headerAlign is the alignment NumPy pads the header to, so that data starts on a
// 64-byte boundary (numpy.lib.format.ARRAY_ALIGN). Reading accepts any alignment.
const headerAlign = 64

// ErrNotNpy is returned (wrapped) when the file does not start with the .npy magic.
var ErrNotNpy = errors.New("not a .npy file (missing \\x93NUMPY magic)")

// Parse reads and validates a .npy header from r, leaving r at the first data byte.
// The header must describe a supported dtype and a shape whose byte size fits in an
// int64; it never allocates more than maxHeaderLen bytes whatever the input.
func Parse(r io.Reader) (Header, error) {
	var pre [8]byte
	if _, err := io.ReadFull(r, pre[:]); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return Header{}, fmt.Errorf("%w: file has %s bytes, the preamble needs 8", ErrNotNpy, shortCount(err))
		}
		return Header{}, err
	}
	if string(pre[:6]) != magic {
		return Header{}, ErrNotNpy
	}
	major, minor := pre[6], pre[7]
	var hlen int
	var prefix int64
	switch major {
	case 1:
		var b [2]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return Header{}, fmt.Errorf("truncated header length field: %w", err)
		}
		hlen, prefix = int(binary.LittleEndian.Uint16(b[:])), 10
	case 2, 3:
		var b [4]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return Header{}, fmt.Errorf("truncated header length field: %w", err)
		}
		v := binary.LittleEndian.Uint32(b[:])
		if v > maxHeaderLen {
			return Header{}, fmt.Errorf("header length %d exceeds %d bytes", v, maxHeaderLen)
		}
		hlen, prefix = int(v), 12
	default:
		return Header{}, fmt.Errorf("unsupported .npy format version %d.%d (want 1.x, 2.x or 3.x)", major, minor)
	}
	if hlen > maxHeaderLen {
		return Header{}, fmt.Errorf("header length %d exceeds %d bytes", hlen, maxHeaderLen)
	}
	dict := make([]byte, hlen)
	if n, err := io.ReadFull(r, dict); err != nil {
		return Header{}, fmt.Errorf("truncated header: %d of %d bytes", n, hlen)
	}
	h, err := parseDict(string(dict))
	if err != nil {
		return Header{}, fmt.Errorf("header %q: %w", truncateForError(string(dict)), err)
	}
	h.DataOffset = prefix + int64(hlen)
	return h, nil
}

func shortCount(err error) string {
	if errors.Is(err, io.EOF) {
		return "0"
	}
	return "fewer than 8"
}

func truncateForError(s string) string {
	const max = 120
	s = strings.TrimRight(s, " \n")
	if len(s) > max {
		return s[:max] + "…"
	}
	return s
}

// parseDict parses the header dict: exactly the keys 'descr', 'fortran_order' and
// 'shape', in any order, with an optional trailing comma, followed only by spaces and
// newlines (NumPy's padding).
func parseDict(s string) (Header, error) {
	p := &dictParser{s: s}
	var h Header
	seen := map[string]bool{}
	p.space()
	if !p.eat('{') {
		return h, p.errorf("want '{'")
	}
	for {
		p.space()
		if p.eat('}') {
			break
		}
		key, err := p.str()
		if err != nil {
			return h, err
		}
		if seen[key] {
			return h, p.errorf("duplicate key %q", key)
		}
		seen[key] = true
		p.space()
		if !p.eat(':') {
			return h, p.errorf("want ':' after key %q", key)
		}
		p.space()
		switch key {
		case "descr":
			if p.peek() == '[' {
				return h, p.errorf("structured dtypes are not supported")
			}
			d, err := p.str()
			if err != nil {
				return h, err
			}
			h.Dtype = Dtype(d)
		case "fortran_order":
			switch {
			case p.word("True"):
				h.FortranOrder = true
			case p.word("False"):
				h.FortranOrder = false
			default:
				return h, p.errorf("fortran_order must be True or False")
			}
		case "shape":
			if h.Shape, err = p.tuple(); err != nil {
				return h, err
			}
		default:
			return h, p.errorf("unexpected key %q", key)
		}
		p.space()
		if p.eat('}') {
			break
		}
		if !p.eat(',') {
			return h, p.errorf("want ',' or '}'")
		}
	}
	if rest := strings.TrimRight(p.s[p.i:], " \n\r\t\x00"); rest != "" {
		return h, p.errorf("unexpected text after '}'")
	}
	for _, k := range []string{"descr", "fortran_order", "shape"} {
		if !seen[k] {
			return h, fmt.Errorf("missing key %q", k)
		}
	}
	if h.Dtype.Size() == 0 {
		return h, fmt.Errorf("unsupported dtype %q (want %s, %s, %s or %s)", string(h.Dtype), Float32, Float64, Int32, Int64)
	}
	// The data size must fit in an int64 (and the element count in an int).
	limit := int64(math.MaxInt64) / int64(h.Dtype.Size())
	if int64(math.MaxInt) < limit {
		limit = int64(math.MaxInt)
	}
	n := int64(1)
	for _, d := range h.Shape {
		if d != 0 && n > limit/int64(d) {
			return h, fmt.Errorf("shape %s is too large", shapeString(h.Shape))
		}
		n *= int64(d)
	}
	return h, nil
}

type dictParser struct {
	s string
	i int
}

func (p *dictParser) errorf(format string, args ...any) error {
	return fmt.Errorf("at byte %d: %s", p.i, fmt.Sprintf(format, args...))
}

func (p *dictParser) peek() byte {
	if p.i < len(p.s) {
		return p.s[p.i]
	}
	return 0
}

func (p *dictParser) space() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\n' || p.s[p.i] == '\t' || p.s[p.i] == '\r') {
		p.i++
	}
}

func (p *dictParser) eat(c byte) bool {
	if p.peek() == c && p.i < len(p.s) {
		p.i++
		return true
	}
	return false
}

func (p *dictParser) word(w string) bool {
	if strings.HasPrefix(p.s[p.i:], w) {
		p.i += len(w)
		return true
	}
	return false
}

// str parses a Python string literal in single or double quotes, without escapes (none
// of the values we accept contain any).
func (p *dictParser) str() (string, error) {
	q := p.peek()
	if q != '\'' && q != '"' {
		return "", p.errorf("want a quoted string")
	}
	end := strings.IndexByte(p.s[p.i+1:], q)
	if end < 0 {
		return "", p.errorf("unterminated string")
	}
	v := p.s[p.i+1 : p.i+1+end]
	if strings.IndexByte(v, '\\') >= 0 {
		return "", p.errorf("escapes in strings are not supported")
	}
	p.i += end + 2
	return v, nil
}

// tuple parses a tuple of non-negative integers: (), (n,), (n, m), … Python 2 long
// suffixes ("3L") are accepted, as NumPy's own reader does.
func (p *dictParser) tuple() ([]int, error) {
	if !p.eat('(') {
		return nil, p.errorf("shape must be a tuple")
	}
	shape := []int{}
	for {
		p.space()
		if p.eat(')') {
			return shape, nil
		}
		start := p.i
		for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
			p.i++
		}
		if start == p.i {
			return nil, p.errorf("shape entries must be non-negative integers")
		}
		d, err := strconv.Atoi(p.s[start:p.i])
		if err != nil {
			return nil, p.errorf("shape entry %q: %v", p.s[start:p.i], err)
		}
		p.eat('L')
		shape = append(shape, d)
		p.space()
		if p.eat(')') {
			if len(shape) == 1 {
				return nil, p.errorf("a 1-tuple needs a trailing comma: (%d,)", d)
			}
			return shape, nil
		}
		if !p.eat(',') {
			return nil, p.errorf("want ',' or ')' in shape")
		}
	}
}

// WriteHeader writes a version 1.0 header exactly as numpy.save formats it, padded so
// that data starts at a multiple of 64 bytes. A header longer than maxHeaderLen (a shape
// of hundreds of dimensions) is an error, since Parse would refuse it.
func WriteHeader(w io.Writer, h Header) error {
	if h.Dtype.Size() == 0 {
		return fmt.Errorf("npy: unsupported dtype %q", string(h.Dtype))
	}
	for _, d := range h.Shape {
		if d < 0 {
			return fmt.Errorf("npy: negative dimension in shape %v", h.Shape)
		}
	}
	order := "False"
	if h.FortranOrder {
		order = "True"
	}
	dict := fmt.Sprintf("{'descr': '%s', 'fortran_order': %s, 'shape': %s, }", h.Dtype, order, shapeString(h.Shape))
	const prefix = 10 // magic, version 1.0, uint16 length
	total := prefix + len(dict) + 1
	dict += strings.Repeat(" ", (headerAlign-total%headerAlign)%headerAlign) + "\n"
	if len(dict) > maxHeaderLen {
		return fmt.Errorf("npy: header of %d bytes exceeds %d", len(dict), maxHeaderLen)
	}
	buf := make([]byte, 0, prefix+len(dict))
	buf = append(buf, magic...)
	buf = append(buf, 1, 0)
	buf = binary.LittleEndian.AppendUint16(buf, uint16(len(dict)))
	buf = append(buf, dict...)
	_, err := w.Write(buf)
	return err
}
