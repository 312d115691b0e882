package data

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"
)

// ReadFile opens path and returns parse(file, path): the ReadFile of a reader whose Parse takes
// the name it cites in errors. An error opening the file comes back as "<pkg>: <the *PathError>".
func ReadFile[T any](pkg, path string, parse func(r io.Reader, name string) (T, error)) (T, error) {
	f, err := os.Open(path)
	if err != nil {
		var zero T
		return zero, fmt.Errorf("%s: %w", pkg, err)
	}
	defer f.Close()
	return parse(f, path)
}

// ParseLines parses the line-per-record text files of the releases (captions, TVR .jsonl,
// Charades-STA): parse gets every line of r that is not blank, trimmed of a leading byte order
// mark (line 1, TrimBOM) and of surrounding white space, with its 1-based number; a line may be
// maxLen bytes long. Its error comes back as
// "<pkg>: <name>:<line>: <err>", a read error as "<pkg>: <name>: <err>", and a file without any
// record as "<pkg>: <name>: no <what> (empty split)".
func ParseLines[T any](r io.Reader, pkg, name, what string, maxLen int, parse func(line int, s string) (T, error)) ([]T, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxLen)
	var out []T
	for line := 1; sc.Scan(); line++ {
		s := sc.Text()
		if line == 1 {
			s = TrimBOM(s)
		}
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		v, err := parse(line, s)
		if err != nil {
			return nil, fmt.Errorf("%s: %s:%d: %w", pkg, name, line, err)
		}
		out = append(out, v)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %s: %w", pkg, name, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: %s: no %s (empty split)", pkg, name, what)
	}
	return out, nil
}
