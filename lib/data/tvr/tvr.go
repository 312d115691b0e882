package tvr

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/geoalign/geoalign/lib/data"
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
func ReadFile(path string) ([]Query, error) { return data.ReadFile("tvr", path, Parse) }

// Parse reads JSON lines from r; name is used in errors (file:line: field).
func Parse(r io.Reader, name string) ([]Query, error) {
	ids := map[int]int{}
	return data.ParseLines(r, "tvr", name, "queries", 4<<20, func(line int, s string) (Query, error) {
		var q Query
		dec := json.NewDecoder(strings.NewReader(s))
		if err := dec.Decode(&q); err != nil {
			return q, err
		}
		switch {
		case dec.More():
			return q, errors.New("more than one JSON value on the line")
		case q.VidName == "":
			return q, errors.New("field vid_name is missing or empty")
		case q.Desc == "":
			return q, errors.New("field desc is missing or empty")
		case !(q.Duration >= 0) || math.IsInf(q.Duration, 0):
			return q, fmt.Errorf("field duration %v is not a non-negative number", q.Duration)
		case q.TS != nil && len(q.TS) != 2:
			return q, fmt.Errorf("field ts has %d values, want [start, end]", len(q.TS))
		}
		if prev, dup := ids[q.DescID]; dup {
			return q, fmt.Errorf("field desc_id %d already used on line %d", q.DescID, prev)
		}
		ids[q.DescID] = line
		return q, nil
	})
}

// Captions turns queries into PRVR captions: the k-th query of a video (file order) gets the
// caption id "<vid_name>#enc#<k>".
func Captions(qs []Query) []captions.Caption {
	return captions.Numbered(qs, func(q Query) (string, string) { return q.VidName, q.Desc })
}
