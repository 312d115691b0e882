package bigfile

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
)

// Video2Frames maps a video id to its frame ids (rows of the BigFile), in temporal order.
type Video2Frames map[string][]string

// ReadVideo2Frames reads and parses a video2frames.txt file.
func ReadVideo2Frames(path string) (Video2Frames, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("bigfile: %w", err)
	}
	v, err := ParseVideo2Frames(string(raw))
	if err != nil {
		return nil, fmt.Errorf("bigfile: %s:%w", path, err)
	}
	return v, nil
}

// ParseVideo2Frames parses the Python dict literal {'vid': ['f1', 'f2'], ...} that the official
// code reads with eval. Accepted: single- or double-quoted strings with Python escapes, lists or
// tuples of strings, trailing commas, whitespace and newlines anywhere. Anything else (numbers,
// names, calls, duplicate keys) is an error "line:col: message".
func ParseVideo2Frames(src string) (Video2Frames, error) {
	p := &literalParser{src: src, line: 1, col: 1}
	out := Video2Frames{}
	p.skipSpace()
	if err := p.expect('{'); err != nil {
		return nil, err
	}
	for {
		p.skipSpace()
		if p.peek() == '}' {
			p.next()
			break
		}
		kLine, kCol := p.line, p.col
		key, err := p.str()
		if err != nil {
			return nil, err
		}
		if _, dup := out[key]; dup {
			return nil, fmt.Errorf("%d:%d: video id %q appears twice", kLine, kCol, key)
		}
		p.skipSpace()
		if err := p.expect(':'); err != nil {
			return nil, err
		}
		p.skipSpace()
		frames, err := p.strList()
		if err != nil {
			return nil, err
		}
		out[key] = frames
		p.skipSpace()
		if p.peek() == ',' {
			p.next()
			continue
		}
		p.skipSpace()
		if err := p.expect('}'); err != nil {
			return nil, err
		}
		break
	}
	p.skipSpace()
	if p.pos < len(p.src) {
		return nil, p.errorf("unexpected %q after the closing brace", p.peek())
	}
	return out, nil
}

// WriteVideo2Frames writes v as a Python dict literal, keys sorted, one video per line.
func WriteVideo2Frames(w io.Writer, v Video2Frames) error {
	keys := make([]string, 0, len(v))
	for k := range v {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString("{")
	for i, k := range keys {
		if i > 0 {
			b.WriteString(",\n ")
		}
		b.WriteString(pyQuote(k))
		b.WriteString(": [")
		for j, f := range v[k] {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString(pyQuote(f))
		}
		b.WriteString("]")
	}
	b.WriteString("}\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// pyQuote quotes s as a single-quoted Python string literal (bytes ≥ 0x80 pass through as is).
func pyQuote(s string) string {
	var b strings.Builder
	b.WriteByte('\'')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\'', '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '\n':
			b.WriteString(`\n`)
		case '\t':
			b.WriteString(`\t`)
		case '\r':
			b.WriteString(`\r`)
		default:
			if c < 0x20 {
				fmt.Fprintf(&b, `\x%02x`, c)
			} else {
				b.WriteByte(c)
			}
		}
	}
	b.WriteByte('\'')
	return b.String()
}

// literalParser is a cursor over a Python literal with line/column tracking for errors.
type literalParser struct {
	src       string
	pos       int
	line, col int
}

func (p *literalParser) errorf(format string, args ...any) error {
	return fmt.Errorf("%d:%d: %s", p.line, p.col, fmt.Sprintf(format, args...))
}

func (p *literalParser) peek() byte {
	if p.pos >= len(p.src) {
		return 0
	}
	return p.src[p.pos]
}

func (p *literalParser) next() byte {
	c := p.src[p.pos]
	p.pos++
	if c == '\n' {
		p.line++
		p.col = 1
	} else {
		p.col++
	}
	return c
}

func (p *literalParser) skipSpace() {
	for p.pos < len(p.src) {
		switch p.src[p.pos] {
		case ' ', '\t', '\n', '\r', '\f', '\v':
			p.next()
		default:
			return
		}
	}
}

func (p *literalParser) expect(c byte) error {
	if p.pos >= len(p.src) {
		return p.errorf("unexpected end of input, want %q", c)
	}
	if p.peek() != c {
		return p.errorf("want %q, got %q", c, p.peek())
	}
	p.next()
	return nil
}

// strList parses [s, s, ...] or (s, s, ...).
func (p *literalParser) strList() ([]string, error) {
	var closer byte
	switch p.peek() {
	case '[':
		closer = ']'
	case '(':
		closer = ')'
	default:
		if p.pos >= len(p.src) {
			return nil, p.errorf("unexpected end of input, want a list of frame ids")
		}
		return nil, p.errorf("want a list of frame ids, got %q", p.peek())
	}
	p.next()
	out := []string{}
	for {
		p.skipSpace()
		if p.peek() == closer {
			p.next()
			return out, nil
		}
		s, err := p.str()
		if err != nil {
			return nil, err
		}
		out = append(out, s)
		p.skipSpace()
		if p.peek() == ',' {
			p.next()
			continue
		}
		if err := p.expect(closer); err != nil {
			return nil, err
		}
		return out, nil
	}
}

// str parses a quoted Python string (optionally with a u prefix).
func (p *literalParser) str() (string, error) {
	if p.peek() == 'u' || p.peek() == 'U' {
		p.next()
	}
	q := p.peek()
	if q != '\'' && q != '"' {
		if p.pos >= len(p.src) {
			return "", p.errorf("unexpected end of input, want a quoted string")
		}
		return "", p.errorf("want a quoted string, got %q", q)
	}
	startLine, startCol := p.line, p.col
	p.next()
	var b strings.Builder
	for {
		if p.pos >= len(p.src) {
			return "", fmt.Errorf("%d:%d: string not terminated", startLine, startCol)
		}
		c := p.next()
		switch {
		case c == q:
			return b.String(), nil
		case c == '\n':
			return "", fmt.Errorf("%d:%d: string not terminated before end of line", startLine, startCol)
		case c == '\\':
			if p.pos >= len(p.src) {
				return "", fmt.Errorf("%d:%d: string not terminated", startLine, startCol)
			}
			e := p.next()
			switch e {
			case '\\', '\'', '"':
				b.WriteByte(e)
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case 'x':
				if p.pos+2 > len(p.src) {
					return "", p.errorf("truncated \\x escape")
				}
				v, err := strconv.ParseUint(p.src[p.pos:p.pos+2], 16, 8)
				if err != nil {
					return "", p.errorf("bad \\x escape %q", p.src[p.pos:p.pos+2])
				}
				p.next()
				p.next()
				b.WriteRune(rune(v))
			default:
				return "", p.errorf("unsupported escape \\%c", e)
			}
		default:
			b.WriteByte(c) // multi-byte UTF-8 passes through byte by byte
		}
	}
}
