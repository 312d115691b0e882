package charades

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/geoalign/geoalign/lib/data"
)

// NumClasses is the number of Charades action classes (c000 … c156).
const NumClasses = 157

// Action is one timed action interval of a Charades v1 video.
type Action struct {
	Class      int // 0 … NumClasses-1
	Start, End float64
}

// Video is one row of Charades_v1_{train,test}.csv.
type Video struct {
	ID           string
	Scene        string
	Objects      []string
	Script       string
	Descriptions string
	Actions      []Action
	Length       float64 // seconds
}

// v1Columns are the CSV columns this reader needs (header names of Charades_v1_*.csv).
var v1Columns = []string{"id", "scene", "script", "objects", "descriptions", "actions", "length"}

// ReadVideos reads a Charades v1 CSV.
func ReadVideos(path string) ([]Video, error) { return data.ReadFile("charades", path, ParseVideos) }

// ParseVideos parses a Charades v1 CSV with a header row; name is used in errors, which give the
// CSV line and column name.
func ParseVideos(r io.Reader, name string) ([]Video, error) {
	cr := csv.NewReader(bufio.NewReader(r))
	header, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("charades: %s: reading header: %v", name, err)
	}
	col := map[string]int{}
	for i, h := range header {
		col[strings.TrimSpace(h)] = i
	}
	for _, c := range v1Columns {
		if _, ok := col[c]; !ok {
			return nil, fmt.Errorf("charades: %s:1: header lacks column %q", name, c)
		}
	}
	var out []Video
	seen := map[string]bool{}
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("charades: %s: %v", name, err)
		}
		line, _ := cr.FieldPos(0)
		get := func(c string) string { return rec[col[c]] }
		v := Video{ID: get("id"), Scene: get("scene"), Script: get("script"), Descriptions: get("descriptions")}
		if v.ID == "" || seen[v.ID] {
			return nil, fmt.Errorf("charades: %s:%d: field id: empty or duplicate video id %q", name, line, v.ID)
		}
		seen[v.ID] = true
		if o := get("objects"); o != "" {
			v.Objects = strings.Split(o, ";")
		}
		v.Length, err = strconv.ParseFloat(get("length"), 64)
		if err != nil || math.IsNaN(v.Length) || math.IsInf(v.Length, 0) || v.Length <= 0 {
			return nil, fmt.Errorf("charades: %s:%d: field length: %q is not a positive number", name, line, get("length"))
		}
		if v.Actions, err = parseActions(get("actions")); err != nil {
			return nil, fmt.Errorf("charades: %s:%d: field actions: %v", name, line, err)
		}
		out = append(out, v)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("charades: %s: no videos (empty split)", name)
	}
	return out, nil
}

// parseActions parses "c092 11.90 21.20;c147 0.00 12.60" (empty means no action).
func parseActions(s string) ([]Action, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var out []Action
	for i, part := range strings.Split(s, ";") {
		f := strings.Fields(part)
		if len(f) != 3 || len(f[0]) != 4 || f[0][0] != 'c' {
			return nil, fmt.Errorf("action %d: want \"cNNN start end\", got %q", i+1, part)
		}
		cls, err := strconv.Atoi(f[0][1:])
		if err != nil || cls < 0 || cls >= NumClasses {
			return nil, fmt.Errorf("action %d: class %q is not c000…c%03d", i+1, f[0], NumClasses-1)
		}
		start, err1 := strconv.ParseFloat(f[1], 64)
		end, err2 := strconv.ParseFloat(f[2], 64)
		if err1 != nil || err2 != nil || math.IsNaN(start) || math.IsNaN(end) || math.IsInf(start, 0) || math.IsInf(end, 0) {
			return nil, fmt.Errorf("action %d: start/end %q %q are not finite numbers", i+1, f[1], f[2])
		}
		out = append(out, Action{Class: cls, Start: start, End: end})
	}
	return out, nil
}

// ReadClasses reads classes.tsv ("cNNN<TAB>name" lines, c000 … c156 in order) and returns the
// names indexed by class.
func ReadClasses(path string) ([]string, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("charades: %w", err)
	}
	var names []string
	for i, line := range strings.Split(strings.TrimRight(string(raw), "\n"), "\n") {
		id, name, ok := strings.Cut(strings.TrimRight(line, "\r"), "\t")
		if want := fmt.Sprintf("c%03d", i); !ok || id != want || strings.TrimSpace(name) == "" {
			return nil, fmt.Errorf("charades: %s:%d: want \"%s<TAB>name\", got %q", path, i+1, want, line)
		}
		names = append(names, strings.TrimSpace(name))
	}
	if len(names) != NumClasses {
		return nil, fmt.Errorf("charades: %s: %d classes, want %d", path, len(names), NumClasses)
	}
	return names, nil
}
