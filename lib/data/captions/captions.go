package captions

import (
	"bufio"
	"fmt"
	"io"
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

// Numbered turns the queries of a release into captions: the k-th query of a video (file order)
// gets the caption id EncID(video, k). of gives a query's video and text.
func Numbered[Q any](qs []Q, of func(Q) (video, text string)) []Caption {
	next := map[string]int{}
	out := make([]Caption, len(qs))
	for i, q := range qs {
		video, text := of(q)
		k := next[video]
		next[video] = k + 1
		out[i] = Caption{ID: EncID(video, k), Text: text}
	}
	return out
}

// ReadFile reads a caption file.
func ReadFile(path string) ([]Caption, error) { return data.ReadFile("captions", path, Parse) }

// Parse reads captions from r; name is used in error messages. Blank lines are skipped (the
// official reader would crash on them); an input without any caption is an error.
func Parse(r io.Reader, name string) ([]Caption, error) {
	seen := map[string]int{}
	return data.ParseLines(r, "captions", name, "captions", 16<<20, func(line int, s string) (Caption, error) {
		id, text, ok := strings.Cut(s, " ")
		switch {
		case !ok:
			return Caption{}, fmt.Errorf("want \"<cap_id> <sentence>\", got %q", s)
		case VideoID(id) == "":
			return Caption{}, fmt.Errorf("caption id %q has an empty video id", id)
		}
		if prev, dup := seen[id]; dup {
			return Caption{}, fmt.Errorf("caption id %q already used on line %d", id, prev)
		}
		seen[id] = line
		return Caption{ID: id, Text: text}, nil
	})
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
