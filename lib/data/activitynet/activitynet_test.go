package activitynet

import (
	"os"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	src := `{"v_b": {"duration": 82.73, "timestamps": [[0.83, 19.86], [17.37, 60.81]], "sentences": ["A young woman dances.", " The girl   dances around."]},
	         "v_a": {"duration": 10, "timestamps": [[0, 2]], "sentences": ["x"]}}`
	vs, err := Parse(strings.NewReader(src), "train.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 2 || vs[0].ID != "v_a" || vs[1].Sentences[1] != "The girl dances around." || vs[1].Timestamps[1][0] != 17.37 {
		t.Fatalf("%+v", vs)
	}
	caps := Captions(vs)
	if len(caps) != 3 || caps[2].ID != "v_b#enc#1" {
		t.Fatalf("%+v", caps)
	}
}

func TestParseErrors(t *testing.T) {
	for src, want := range map[string]string{
		`{"v": {"duration": 1, "timestamps": [[0, 1]], "sentences": ["a", "b"]}}`: "video v: 2 sentences but 1 timestamps",
		`{"v": {"duration": 0, "timestamps": [[0, 1]], "sentences": ["a"]}}`:      "field duration",
		`{"v": {"duration": 1, "timestamps": [[0]], "sentences": ["a"]}}`:         "timestamps[0]",
		`{"v": {"duration": 1, "timestamps": [[0, 1]], "sentences": [" "]}}`:      "sentences[0] is empty",
		`{}`:       "empty split",
		`{"v": 3}`: "f:",
	} {
		if _, err := Parse(strings.NewReader(src), "f"); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", src, err, want)
		}
	}
}

// TestStagedCounts checks the staged files against docs/data-sources.md §1.
func TestStagedCounts(t *testing.T) {
	dir := "../../../../shared/data/activitynet/"
	if _, err := os.Stat(dir + "train.json"); err != nil {
		t.Skip("staged data not present")
	}
	for file, want := range map[string][2]int{"train.json": {10009, 37421}, "val.json": {4917, 17505}, "test.json": {4885, 17031}} {
		vs, err := ReadFile(dir + file)
		if err != nil {
			t.Fatal(err)
		}
		if n := len(Captions(vs)); len(vs) != want[0] || n != want[1] {
			t.Errorf("%s: %d videos / %d sentences, docs/data-sources.md says %d / %d", file, len(vs), n, want[0], want[1])
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add(`{"v": {"duration": 1, "timestamps": [[0, 1]], "sentences": ["a"]}}`)
	f.Fuzz(func(t *testing.T, src string) {
		vs, err := Parse(strings.NewReader(src), "fuzz")
		if err != nil {
			return
		}
		for _, v := range vs {
			if len(v.Sentences) == 0 || len(v.Sentences) != len(v.Timestamps) {
				t.Fatalf("accepted %+v", v)
			}
		}
	})
}
