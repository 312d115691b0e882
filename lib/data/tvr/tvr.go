package tvr

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/geoalign/geoalign/lib/data/captions"
)

// Query is one line of a TVR release file. Test-public files have no ts (nil).
type Query struct {
	VidName  string    `json:"vid_name"`
	Duration float64   `json:"duration"`
	TS       []float64 `json:"ts"`
	Desc     string    `json:"desc"`
	Type     string    `json:"type"`
	DescID   int       `json:"desc_id"`
}

// ReadFile reads a TVR .jsonl file.
func ReadFile(path string) ([]Query, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("tvr: %w", err)
	}
	defer f.Close()
	return Parse(f, path)
}

// Parse reads JSON lines from r; name is used in errors (file:line: field).
func Parse(r io.Reader, name string) ([]Query, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	var out []Query
	ids := map[int]int{}
	for line := 1; sc.Scan(); line++ {
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		var q Query
		dec := json.NewDecoder(bytes.NewReader(b))
		if err := dec.Decode(&q); err != nil {
			return nil, fmt.Errorf("tvr: %s:%d: %v", name, line, err)
		}
		if dec.More() {
			return nil, fmt.Errorf("tvr: %s:%d: more than one JSON value on the line", name, line)
		}
		switch {
		case q.VidName == "":
			return nil, fmt.Errorf("tvr: %s:%d: field vid_name is missing or empty", name, line)
		case q.Desc == "":
			return nil, fmt.Errorf("tvr: %s:%d: field desc is missing or empty", name, line)
		case !(q.Duration >= 0) || math.IsInf(q.Duration, 0):
			return nil, fmt.Errorf("tvr: %s:%d: field duration %v is not a non-negative number", name, line, q.Duration)
		case q.TS != nil && len(q.TS) != 2:
			return nil, fmt.Errorf("tvr: %s:%d: field ts has %d values, want [start, end]", name, line, len(q.TS))
		}
		if prev, dup := ids[q.DescID]; dup {
			return nil, fmt.Errorf("tvr: %s:%d: field desc_id %d already used on line %d", name, line, q.DescID, prev)
		}
		ids[q.DescID] = line
		out = append(out, q)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("tvr: %s: %w", name, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("tvr: %s: no queries (empty split)", name)
	}
	return out, nil
}

// Captions turns queries into PRVR captions: the k-th query of a video (file order) gets the
// caption id "<vid_name>#enc#<k>".
func Captions(qs []Query) []captions.Caption {
	next := map[string]int{}
	out := make([]captions.Caption, len(qs))
	for i, q := range qs {
		k := next[q.VidName]
		next[q.VidName] = k + 1
		out[i] = captions.Caption{ID: captions.EncID(q.VidName, k), Text: q.Desc}
	}
	return out
}
