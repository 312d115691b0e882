package prvr

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/geoalign/geoalign/lib/data/bigfile"
	"github.com/geoalign/geoalign/lib/data/h5"
)

// writeCollection writes a tiny collection in the official layout: two videos (A with 40 frames,
// B with 3), three captions.
func writeCollection(t *testing.T, root string, captionText string, dropQuery string) Layout {
	t.Helper()
	l := Layout{Root: root, Collection: "toy", VisualFeature: "feat"}
	os.MkdirAll(filepath.Join(root, "toy", "TextData"), 0o755)
	if err := os.WriteFile(l.CaptionFile("test"), []byte(captionText), 0o644); err != nil {
		t.Fatal(err)
	}
	var ids []string
	var rows []float32
	v2f := bigfile.Video2Frames{}
	for _, v := range []struct {
		id string
		n  int
	}{{"A", 40}, {"B", 3}} {
		for i := 0; i < v.n; i++ {
			id := v.id + "_" + string(rune('a'+i%26)) + string(rune('a'+i/26))
			ids = append(ids, id)
			v2f[v.id] = append(v2f[v.id], id)
			rows = append(rows, float32(i), 1) // 2-d frames: (i, 1)
		}
	}
	if err := bigfile.Write(l.FeatureDir(), ids, 2, rows); err != nil {
		t.Fatal(err)
	}
	f, _ := os.Create(filepath.Join(l.FeatureDir(), "video2frames.txt"))
	bigfile.WriteVideo2Frames(f, v2f)
	f.Close()
	w, err := h5.Create(l.TextFeatureFile())
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"A#enc#0", "A#enc#1", "B#enc#0"} {
		if id == dropQuery {
			continue
		}
		w.WriteFloat32(id, []int{2, 3}, []float32{0, 0, 2, 1, 0, 0})
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return l
}

const toyCaptions = "B#enc#0 someone opens a door\nA#enc#0 a person sits\nA#enc#1 the person stands up\n"

func TestLoadOfficialLayout(t *testing.T) {
	l := writeCollection(t, t.TempDir(), toyCaptions, "")
	s, err := Load(l, "test")
	if err != nil {
		t.Fatal(err)
	}
	if s.NumVideos() != 2 || s.VideoIDs[0] != "B" || s.NumQueries() != 3 || s.Dim != 2 || s.QueryDim != 3 {
		t.Fatalf("videos %v queries %d dims %d/%d", s.VideoIDs, s.NumQueries(), s.Dim, s.QueryDim)
	}
	if got := s.QueryVideo; got[0] != 0 || got[1] != 1 || got[2] != 1 {
		t.Fatalf("GT columns %v, want [0 1 1]", got)
	}
	// Video A has 40 frames (i, 1): clip 0 spans bounds 0..round(40/32)=1 → frame 0 = (0, 1),
	// normalised (0, 1/(1+eps)). Clip 1 spans round(1.25)=1..round(2.5)=2 → frame 1 = (1, 1).
	clips := s.VideoClips(1)
	if len(clips) != ClipCount*2 || math.Abs(float64(clips[1])-1/(1+NormEps)) > 1e-6 {
		t.Fatalf("clip 0 of A = %v", clips[:2])
	}
	want := 1 / (math.Sqrt2 + NormEps)
	if math.Abs(float64(clips[2])-want) > 1e-6 || math.Abs(float64(clips[3])-want) > 1e-6 {
		t.Fatalf("clip 1 of A = %v, want (%v, %v)", clips[2:4], want, want)
	}
	if _, n := s.VideoFrames(0); n != 3 {
		t.Fatalf("B has %d frames, want 3", n)
	}
	tok, n := s.QueryTokens(2)
	if n != 2 || math.Abs(float64(tok[2])-2/(2+NormEps)) > 1e-7 || math.Abs(float64(tok[3])-1/(1+NormEps)) > 1e-7 {
		t.Fatalf("query tokens %v (n=%d)", tok, n)
	}
}

func TestLoadErrors(t *testing.T) {
	cases := []struct {
		name, captions, drop string
		want                 []string
	}{
		{"missing video", toyCaptions + "C#enc#0 nothing\n", "", []string{`video "C"`, "video2frames.txt", "toytest.caption.txt"}},
		{"missing query feature", toyCaptions, "A#enc#1", []string{`"A#enc#1"`, "roberta_toy_query_feat.hdf5"}},
		{"empty split", "\n", "", []string{"toytest.caption.txt", "empty split"}},
		{"malformed caption line", "A#enc#0\n", "", []string{"toytest.caption.txt:1"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l := writeCollection(t, t.TempDir(), c.captions, c.drop)
			_, err := Load(l, "test")
			if err == nil {
				t.Fatal("Load succeeded")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}

// A NaN frame feature is an error naming feature.bin, the frame and the column (the BigFile reader
// checks every value; the HDF5 reader does the same for query tokens), never NaN clips.
func TestLoadNonFinite(t *testing.T) {
	l := writeCollection(t, t.TempDir(), toyCaptions, "")
	bin := filepath.Join(l.FeatureDir(), bigfile.FeatureFileName)
	f, err := os.OpenFile(bin, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	nan := math.Float32bits(float32(math.NaN()))
	// Frame rows are A's 40 then B's 3, 2 floats each: row 41 is B's second frame ("B_ba").
	if _, err := f.WriteAt([]byte{byte(nan), byte(nan >> 8), byte(nan >> 16), byte(nan >> 24)}, 41*2*4); err != nil {
		t.Fatal(err)
	}
	f.Close()
	_, err = Load(l, "test")
	for _, w := range []string{"feature.bin", `"B_ba"`, `video "B"`, "column 0 is NaN"} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("error %v does not mention %q", err, w)
		}
	}
}
