package charades

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/geoalign/geoalign/lib/data"
	"github.com/geoalign/geoalign/lib/data/captions"
)

// Moment is one Charades-STA query: a sentence describing [Start, End] seconds of a video.
// The released files hold a few reversed intervals (4 in charades_sta_train.txt, e.g. line 8252
// "LEOL6 8.0 7.0##…"); they are kept as given, since PRVR uses only the sentence and the video,
// and Reversed reports them.
type Moment struct {
	VideoID    string
	Start, End float64
	Sentence   string
}

// ReadSTA reads a Charades-STA file (charades_sta_{train,test}.txt).
func ReadSTA(path string) ([]Moment, error) { return data.ReadFile("charades", path, ParseSTA) }

// Reversed reports whether the moment's end precedes its start (an annotation error kept as is).
func (m Moment) Reversed() bool { return m.End < m.Start }

// ParseSTA parses "VID start end##sentence" lines; name is used in errors. Blank lines are
// skipped; no moment at all is an error.
func ParseSTA(r io.Reader, name string) ([]Moment, error) {
	return data.ParseLines(r, "charades", name, "moments", 1<<20, parseSTALine)
}

func parseSTALine(_ int, s string) (Moment, error) {
	head, sentence, ok := strings.Cut(s, "##")
	if !ok {
		return Moment{}, fmt.Errorf(`want "VID start end##sentence", no "##" in %q`, s)
	}
	f := strings.Fields(head)
	if len(f) != 3 {
		return Moment{}, fmt.Errorf(`want "VID start end" before "##", got %q`, head)
	}
	start, err1 := strconv.ParseFloat(f[1], 64)
	end, err2 := strconv.ParseFloat(f[2], 64)
	if err1 != nil || err2 != nil || math.IsNaN(start) || math.IsNaN(end) || math.IsInf(start, 0) || math.IsInf(end, 0) {
		return Moment{}, fmt.Errorf("start/end %q %q are not finite numbers", f[1], f[2])
	}
	if start < 0 || end < 0 {
		return Moment{}, fmt.Errorf("moment [%v, %v] has a negative time", start, end)
	}
	sentence = strings.TrimSpace(sentence)
	if sentence == "" || strings.Contains(f[0], "#") {
		return Moment{}, fmt.Errorf("empty sentence or '#' in video id %q", f[0])
	}
	return Moment{VideoID: f[0], Start: start, End: end, Sentence: sentence}, nil
}

// STACaptions turns moments into PRVR captions: the k-th moment of a video (file order) gets the
// caption id "<VID>#enc#<k>", as in the MS-SL caption files.
func STACaptions(ms []Moment) []captions.Caption {
	return captions.Numbered(ms, func(m Moment) (string, string) { return m.VideoID, m.Sentence })
}
