package featdir

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/geoalign/geoalign/lib/data/captions"
	"github.com/geoalign/geoalign/lib/data/npz"
	"github.com/geoalign/geoalign/lib/npy"
)

// tinyTextVideo is 6 videos of 2 frames × 3, with 2 captions for video 0 and one for the others,
// split 3 / 1 / 2.
func tinyTextVideo() *TextVideo {
	d := &TextVideo{Frames: 2, VideoDim: 3, TextDim: 4}
	for v := range 6 {
		d.VideoIDs = append(d.VideoIDs, fmt.Sprintf("vid%d", v))
		for j := range d.Frames * d.VideoDim {
			d.Video = append(d.Video, float32(v*10+j))
		}
		d.FrameMask = append(d.FrameMask, 1, float32(v%2))
		d.Captions = append(d.Captions, captions.Caption{ID: captions.EncID(d.VideoIDs[v], 0), Text: "a caption"})
		if v == 0 {
			d.Captions = append(d.Captions, captions.Caption{ID: captions.EncID(d.VideoIDs[v], 1), Text: "another one"})
		}
	}
	for t := range d.NumTexts() {
		for j := range d.TextDim {
			d.Text = append(d.Text, float32(t)+float32(j)/10)
		}
	}
	d.Splits = Splits{Train: []int{0, 1, 2}, Val: []int{3}, Test: []int{4, 5}}
	return d
}

func tinyTuples() *Tuples {
	d := &Tuples{Modalities: []string{"text", "image", "audio"}, Dims: []int{2, 3, 1}}
	for i := range 10 {
		d.IDs = append(d.IDs, fmt.Sprintf("s%02d", i))
	}
	for m, dim := range d.Dims {
		f := make([]float32, len(d.IDs)*dim)
		for i := range f {
			f[i] = float32(m*100 + i)
		}
		d.Features = append(d.Features, f)
	}
	d.Splits = Splits{Train: []int{0, 1, 2, 3, 4, 5}, Val: []int{6, 7}, Test: []int{8, 9}}
	return d
}

func TestTextVideoRoundTrip(t *testing.T) {
	dir := t.TempDir()
	want := tinyTextVideo()
	if err := WriteTextVideo(dir, want); err != nil {
		t.Fatal(err)
	}
	got, err := LoadTextVideo(dir, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	if got.Frames != 2 || got.VideoDim != 3 || got.TextDim != 4 || !slices.Equal(got.Video, want.Video) ||
		!slices.Equal(got.FrameMask, want.FrameMask) || !slices.Equal(got.Text, want.Text) {
		t.Fatalf("features differ: %+v", got)
	}
	if !slices.Equal(got.CaptionVid, []int{0, 0, 1, 2, 3, 4, 5}) {
		t.Fatalf("caption videos %v", got.CaptionVid)
	}
	if !slices.Equal(got.Splits.Train, []int{0, 1, 2}) || !slices.Equal(got.Splits.Val, []int{3}) || got.Splits.ValCarved {
		t.Fatalf("splits %+v", got.Splits)
	}
	if c := got.CaptionsOf([]int{4, 0}); !slices.Equal(c, []int{5, 0, 1}) {
		t.Fatalf("CaptionsOf = %v", c)
	}
	// Without val.txt half of the training videos are carved out, disjointly.
	os.Remove(filepath.Join(dir, ValFile))
	got, err = LoadTextVideo(dir, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	s := got.Splits
	all := slices.Sorted(slices.Values(append(slices.Clone(s.Train), s.Val...)))
	if !s.ValCarved || len(s.Val) != 2 || len(s.Train) != 1 || !slices.Equal(all, []int{0, 1, 2}) || !strings.Contains(s.Note, "no val.txt") {
		t.Fatalf("carved splits %+v", s)
	}
}

func TestTuplesRoundTripAndNPZ(t *testing.T) {
	dir := t.TempDir()
	want := tinyTuples()
	if err := WriteTuples(dir, want); err != nil {
		t.Fatal(err)
	}
	// Move the image modality into features.npz: the same data must come back.
	if err := os.Remove(filepath.Join(dir, "image.npy")); err != nil {
		t.Fatal(err)
	}
	img64 := make([]float64, len(want.Features[1]))
	for i, v := range want.Features[1] {
		img64[i] = float64(v)
	}
	if err := npz.Write(filepath.Join(dir, ArchiveFile), []npz.Array{{Name: "image", Shape: []int{10, 3}, Data: img64}}); err != nil {
		t.Fatal(err)
	}
	got, err := LoadTuples(dir, 0.1)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Dims, want.Dims) || !slices.Equal(got.Modalities, want.Modalities) {
		t.Fatalf("dims %v modalities %v", got.Dims, got.Modalities)
	}
	for m := range want.Features {
		if !slices.Equal(got.Features[m], want.Features[m]) {
			t.Fatalf("modality %d differs", m)
		}
	}
	if r := got.Rows([]int{9, 0}); !slices.Equal(r[2], []float32{209, 200}) {
		t.Fatalf("Rows: %v", r[2])
	}
	if !slices.Equal(got.Splits.Test, []int{8, 9}) || !slices.Equal(got.Splits.Val, []int{6, 7}) {
		t.Fatalf("splits %+v", got.Splits)
	}
}

// Every bad input is an error naming the file, and the line, row or field at fault.
func TestBadInput(t *testing.T) {
	write := func(t *testing.T, dir, name, content string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	npyFile := func(t *testing.T, dir, name string, shape []int, data []float32) {
		t.Helper()
		if err := npy.WriteFile(filepath.Join(dir, name), shape, data); err != nil {
			t.Fatal(err)
		}
	}
	nan := float32(math.NaN())
	// A case breaks a valid directory; the loader's error must name what it says.
	type breakCase struct {
		name   string
		break_ func(t *testing.T, dir string)
		want   []string
	}
	run := func(kind string, cases []breakCase, write, load func(dir string) error) {
		for _, c := range cases {
			t.Run(kind+"/"+c.name, func(t *testing.T) {
				dir := t.TempDir()
				if err := write(dir); err != nil {
					t.Fatal(err)
				}
				c.break_(t, dir)
				checkErr(t, load(dir), dir, c.want)
			})
		}
	}
	tv := []breakCase{
		{"missing video.npy", func(t *testing.T, dir string) { os.Remove(filepath.Join(dir, "video.npy")) }, []string{"video.npy", "no such file"}},
		{"missing captions", func(t *testing.T, dir string) { os.Remove(filepath.Join(dir, CaptionsFile)) }, []string{"captions.txt"}},
		{"missing test split", func(t *testing.T, dir string) { os.Remove(filepath.Join(dir, TestFile)) }, []string{"test.txt"}},
		{"empty split", func(t *testing.T, dir string) { write(t, dir, TrainFile, "\n\n") }, []string{"train.txt", "empty split"}},
		{"caption of an unknown video", func(t *testing.T, dir string) {
			write(t, dir, CaptionsFile, "vid0#enc#0 a\nvid9#enc#0 b\nvid1#enc#0 c\nvid2#enc#0 d\nvid3#enc#0 e\nvid4#enc#0 f\nvid5#enc#0 g\n")
		}, []string{"captions.txt", `"vid9"`, "video_ids.txt"}},
		{"split id not in the features", func(t *testing.T, dir string) { write(t, dir, TestFile, "vid4\nvid7\n") }, []string{"test.txt:2", `"vid7"`}},
		{"video in two splits", func(t *testing.T, dir string) { write(t, dir, TestFile, "vid4\nvid0\n") }, []string{"test.txt:2", "already in train.txt:1"}},
		{"duplicate id", func(t *testing.T, dir string) { write(t, dir, VideoIDsFile, "vid0\nvid1\nvid1\nvid3\nvid4\nvid5\n") }, []string{"video_ids.txt:3", "already listed on line 2"}},
		{"rows disagree with ids", func(t *testing.T, dir string) {
			npyFile(t, dir, "video.npy", []int{5, 2, 3}, make([]float32, 30))
		}, []string{"video.npy", "5 rows", "6 ids"}},
		{"text rows disagree with captions", func(t *testing.T, dir string) {
			npyFile(t, dir, "text.npy", []int{6, 4}, make([]float32, 24))
		}, []string{"text.npy", "6 rows", "captions.txt lists 7"}},
		{"NaN video feature", func(t *testing.T, dir string) {
			npyFile(t, dir, "video.npy", []int{6, 2, 3}, oneValue(36, 3*6+4, nan))
		}, []string{"video.npy", "NaN in row 3"}},
		{"NaN text feature", func(t *testing.T, dir string) {
			npyFile(t, dir, "text.npy", []int{7, 4}, oneValue(28, 9, nan))
		}, []string{"text.npy", "NaN at row 2, column 1"}},
		{"Inf text feature", func(t *testing.T, dir string) {
			npyFile(t, dir, "text.npy", []int{7, 4}, oneValue(28, 27, float32(math.Inf(1))))
		}, []string{"text.npy", "+Inf in row 6"}},
		{"mask of the wrong shape", func(t *testing.T, dir string) {
			npyFile(t, dir, "video_mask.npy", []int{6, 3}, make([]float32, 18))
		}, []string{"video_mask.npy", "want [6, 2]"}},
		{"mask without a frame", func(t *testing.T, dir string) {
			npyFile(t, dir, "video_mask.npy", []int{6, 2}, []float32{1, 1, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1})
		}, []string{"video_mask.npy", "row 1 masks every entry out"}},
		{"video without caption", func(t *testing.T, dir string) {
			write(t, dir, CaptionsFile, "vid0#enc#0 a\nvid0#enc#1 b\nvid1#enc#0 c\nvid2#enc#0 d\nvid3#enc#0 e\nvid4#enc#0 f\nvid4#enc#1 g\n")
		}, []string{"test.txt:2", `"vid5" has no caption`}},
	}
	run("text-video", tv, func(dir string) error { return WriteTextVideo(dir, tinyTextVideo()) },
		loadErr(LoadTextVideo, 0.5))
	tu := []breakCase{
		{"one modality", func(t *testing.T, dir string) { write(t, dir, ModalityFile, "text\n") }, []string{"modalities.txt", "need at least 2"}},
		{"missing modality", func(t *testing.T, dir string) { os.Remove(filepath.Join(dir, "audio.npy")) }, []string{"audio.npy", "no such file"}},
		{"modality rows disagree", func(t *testing.T, dir string) {
			npyFile(t, dir, "image.npy", []int{9, 3}, make([]float32, 27))
		}, []string{"image.npy", "9 rows", "ids.txt lists 10"}},
		{"3-D modality", func(t *testing.T, dir string) {
			npyFile(t, dir, "image.npy", []int{10, 3, 1}, make([]float32, 30))
		}, []string{"image.npy", "want 2 dimensions"}},
		{"NaN", func(t *testing.T, dir string) {
			npyFile(t, dir, "audio.npy", []int{10, 1}, oneValue(10, 7, nan))
		}, []string{"audio.npy", "NaN at row 7"}},
		{"unknown id", func(t *testing.T, dir string) { write(t, dir, ValFile, "s06\nzz\n") }, []string{"val.txt:2", `"zz"`, "ids.txt"}},
		{"bad modality name", func(t *testing.T, dir string) { write(t, dir, ModalityFile, "text\n../x\n") }, []string{"modalities.txt", `"../x"`}},
	}
	run("tuples", tu, func(dir string) error { return WriteTuples(dir, tinyTuples()) },
		loadErr(LoadTuples, 0.1))
}

// oneValue is n zeros but for v at index i.
func oneValue(n, i int, v float32) []float32 {
	x := make([]float32, n)
	x[i] = v
	return x
}

// loadErr is the error of load(dir, valFraction), for TestBadInput's cases.
func loadErr[T any](load func(dir string, valFraction float64) (T, error), valFraction float64) func(dir string) error {
	return func(dir string) error {
		_, err := load(dir, valFraction)
		return err
	}
}

func checkErr(t *testing.T, err error, dir string, want []string) {
	t.Helper()
	if err == nil {
		t.Fatal("no error")
	}
	msg := err.Error()
	if !strings.Contains(msg, dir) {
		t.Errorf("error %q does not name a file in %s", msg, dir)
	}
	for _, w := range want {
		if !strings.Contains(msg, w) {
			t.Errorf("error %q does not contain %q", msg, w)
		}
	}
}
