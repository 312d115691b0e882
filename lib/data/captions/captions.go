package captions

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/geoalign/geoalign/lib/data"
)

// Caption is one query of a PRVR split.
type Caption struct {
	ID   string // "<video_id>#enc#<k>"
	Text string
}

// VideoID is the part of a caption id before the first '#' (HLF getVideoId).
func VideoID(capID string) string {
	v, _, _ := strings.Cut(capID, "#")
	return v
}

// EncID returns the caption id of the k-th caption of video: "<video>#enc#<k>".
func EncID(video string, k int) string { return fmt.Sprintf("%s#enc#%d", video, k) }

// ReadFile reads a caption file.
func ReadFile(path string) ([]Caption, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("captions: %w", err)
	}
	defer f.Close()
	return Parse(f, path)
}

// Parse reads captions from r; name is used in error messages. Blank lines are skipped (the
// official reader would crash on them); an input without any caption is an error.
func Parse(r io.Reader, name string) ([]Caption, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	var out []Caption
	seen := map[string]int{}
	for line := 1; sc.Scan(); line++ {
		s := sc.Text()
		if line == 1 {
			s = data.TrimBOM(s)
		}
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		id, text, ok := strings.Cut(s, " ")
		if !ok {
			return nil, fmt.Errorf("captions: %s:%d: want \"<cap_id> <sentence>\", got %q", name, line, s)
		}
		if VideoID(id) == "" {
			return nil, fmt.Errorf("captions: %s:%d: caption id %q has an empty video id", name, line, id)
		}
		if prev, dup := seen[id]; dup {
			return nil, fmt.Errorf("captions: %s:%d: caption id %q already used on line %d", name, line, id, prev)
		}
		seen[id] = line
		out = append(out, Caption{ID: id, Text: text})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("captions: %s: %w", name, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("captions: %s: no captions (empty split)", name)
	}
	return out, nil
}

// Write writes captions as "<cap_id> <sentence>" lines. Ids must be free of whitespace and texts
// free of newlines.
func Write(w io.Writer, caps []Caption) error {
	bw := bufio.NewWriter(w)
	for i, c := range caps {
		if c.ID == "" || strings.ContainsAny(c.ID, " \t\r\n") || strings.ContainsAny(c.Text, "\r\n") {
			return fmt.Errorf("captions: caption %d (%q) has whitespace in its id or a newline in its text", i, c.ID)
		}
		if _, err := fmt.Fprintf(bw, "%s %s\n", c.ID, c.Text); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// VideoIDs returns the distinct video ids of caps in order of first appearance, as
// read_video_ids does; this order defines the columns of the score matrix.
func VideoIDs(caps []Caption) []string {
	seen := map[string]bool{}
	var out []string
	for _, c := range caps {
		if v := VideoID(c.ID); !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}
