package bigfile

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestParseVideo2FramesPythonRepr(t *testing.T) {
	// As printed by Python's str(dict): single quotes, ", " separators.
	src := "{'AO8RW': ['AO8RW_0', 'AO8RW_1'], \"Y6R7T\": ['Y6R7T_0',],\n 'it\\'s': ()}\n"
	got, err := ParseVideo2Frames(src)
	if err != nil {
		t.Fatal(err)
	}
	want := Video2Frames{"AO8RW": {"AO8RW_0", "AO8RW_1"}, "Y6R7T": {"Y6R7T_0"}, "it's": {}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

func TestParseVideo2FramesErrors(t *testing.T) {
	cases := map[string]string{
		"{'a': ['x'], 'a': []}":   "1:14: video id \"a\" appears twice",
		"{'a': __import__('os')}": "1:7: want a list",
		"{'a': ['x']\n 'b': []}":  "2:2: want '}'",
		"{'a': ['x', 3]}":         "1:13: want a quoted string",
		"{'a': ['x]}":             "1:8: string not terminated",
		"{'a': []} extra":         "1:11: unexpected",
		"":                        "unexpected end of input",
	}
	for src, want := range cases {
		_, err := ParseVideo2Frames(src)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseVideo2Frames(%q) error = %v, want it to contain %q", src, err, want)
		}
	}
}

func TestWriteVideo2FramesRoundTrip(t *testing.T) {
	v := Video2Frames{"b": {"b_0", "q'uote"}, "a": {}}
	var buf bytes.Buffer
	if err := WriteVideo2Frames(&buf, v); err != nil {
		t.Fatal(err)
	}
	got, err := ParseVideo2Frames(buf.String())
	if err != nil {
		t.Fatalf("%v in %q", err, buf.String())
	}
	if !reflect.DeepEqual(got, v) {
		t.Fatalf("round trip: got %v, want %v", got, v)
	}
}

// FuzzParseVideo2Frames: any text gives a map or an error, never a panic. Seeds: hand-made
// literals and the head of the real file when the data cache is there ($GEOALIGN_CACHE).
func FuzzParseVideo2Frames(f *testing.F) {
	f.Add("{'a': ['a_0', 'a_1']}")
	f.Add("{\"x\": (), 'y': ['\\x41']}")
	f.Add("{'a': [")
	if c := os.Getenv("GEOALIGN_CACHE"); c != "" {
		if r, err := os.Open(filepath.Join(c, "charades/charades/FeatureData/label_multihot_glove100", Video2FramesFileName)); err == nil {
			head, _ := io.ReadAll(io.LimitReader(r, 4096))
			r.Close()
			f.Add(string(head))
		}
	}
	f.Fuzz(func(t *testing.T, src string) {
		v, err := ParseVideo2Frames(src)
		if err != nil {
			return
		}
		// Whatever parses must survive a write/parse round trip unchanged.
		var buf bytes.Buffer
		if err := WriteVideo2Frames(&buf, v); err != nil {
			t.Fatal(err)
		}
		back, err := ParseVideo2Frames(buf.String())
		if err != nil || !reflect.DeepEqual(back, v) {
			t.Fatalf("round trip of %q failed: %v", src, err)
		}
	})
}
