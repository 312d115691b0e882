package tvr

import (
	"os"
	"strings"
	"testing"

	"github.com/geoalign/geoalign/lib/data/captions"
)

func TestParse(t *testing.T) {
	src := `{"vid_name": "friends_s01e03_seg02_clip_19", "duration": 61.46, "ts": [16.48, 33.87], "desc": "Phoebe puts one of her ponytails in her mouth.", "type": "v", "desc_id": 90200}
{"vid_name": "friends_s01e03_seg02_clip_19", "duration": 61.46, "desc": "Second.", "type": "t", "desc_id": 7}
`
	qs, err := Parse(strings.NewReader(src), "val.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) != 2 || qs[0].TS[1] != 33.87 || qs[0].Type != "v" || qs[1].TS != nil {
		t.Fatalf("%+v", qs)
	}
	caps := Captions(qs)
	if caps[1].ID != "friends_s01e03_seg02_clip_19#enc#1" || captions.VideoID(caps[1].ID) != qs[1].VidName {
		t.Fatalf("%+v", caps)
	}
}

func TestParseErrors(t *testing.T) {
	ok := `{"vid_name": "a", "duration": 1, "desc": "x", "desc_id": 1}` + "\n"
	for src, want := range map[string]string{
		ok + `{"vid_name": "", "desc": "x", "desc_id": 2}`:                     "f:2: field vid_name",
		ok + `{"vid_name": "b", "desc": "", "desc_id": 2}`:                     "f:2: field desc",
		ok + `{"vid_name": "b", "desc": "y", "desc_id": 1}`:                    "desc_id 1 already used on line 1",
		ok + `{"vid_name": "b", "desc": "y", "desc_id": 2, "ts": [1]}`:         "field ts",
		ok + `{"vid_name": "b", "desc": "y", "desc_id": 2, "duration": -1}`:    "field duration",
		ok + `{"vid_name": "b", "desc": "y", "desc_id": 2, "duration": "NaN"}`: "f:2:",
		ok + `{"vid_name": "b"`: "f:2:",
		"\n":                    "empty split",
	} {
		if _, err := Parse(strings.NewReader(src), "f"); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", src, err, want)
		}
	}
}

// TestStagedValSplit checks the staged TVR PRVR test set against docs/data-sources.md §1.
func TestStagedValSplit(t *testing.T) {
	p := "../../../../shared/data/tvr/tvr_val_release.jsonl"
	if _, err := os.Stat(p); err != nil {
		t.Skip("staged data not present")
	}
	qs, err := ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if n, v := len(qs), len(captions.VideoIDs(Captions(qs))); n != 10895 || v != 2179 {
		t.Fatalf("%d queries over %d videos, docs/data-sources.md says 10,895 / 2,179", n, v)
	}
}

func FuzzParse(f *testing.F) {
	f.Add(`{"vid_name": "a", "duration": 1, "ts": [0, 1], "desc": "x", "type": "v", "desc_id": 1}`)
	f.Fuzz(func(t *testing.T, src string) {
		qs, err := Parse(strings.NewReader(src), "fuzz")
		if err != nil {
			return
		}
		for _, q := range qs {
			if q.VidName == "" || q.Desc == "" || (q.TS != nil && len(q.TS) != 2) {
				t.Fatalf("accepted %+v", q)
			}
		}
	})
}
