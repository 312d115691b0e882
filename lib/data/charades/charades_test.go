package charades

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestParseSTA(t *testing.T) {
	src := "AO8RW 0.0 6.9##a person is putting a book on a shelf.\nY6R7T 20.8 30.0##person begins to play on a phone.\n\nY6R7T 1 2##second one\n"
	ms, err := ParseSTA(strings.NewReader(src), "sta.txt")
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 3 || ms[1] != (Moment{"Y6R7T", 20.8, 30, "person begins to play on a phone."}) {
		t.Fatalf("got %+v", ms)
	}
	if ms[0].Reversed() {
		t.Fatal("[0, 6.9] reported reversed")
	}
	if rev, _ := ParseSTA(strings.NewReader("LEOL6 8.0 7.0##person is holding medicine.\n"), "r"); !rev[0].Reversed() {
		t.Fatal("reversed interval (kept, as in the released file) not reported")
	}
	caps := STACaptions(ms)
	if caps[0].ID != "AO8RW#enc#0" || caps[1].ID != "Y6R7T#enc#0" || caps[2].ID != "Y6R7T#enc#1" || caps[2].Text != "second one" {
		t.Fatalf("captions %+v", caps)
	}
}

func TestParseSTAErrors(t *testing.T) {
	for src, want := range map[string]string{
		"A 0 1##ok\nB 0 1 no hashes\n": "sta:2: want",
		"A 0##x\n":                     `sta:1: want "VID start end"`,
		"A 0 x##x\n":                   "not finite",
		"A 0 NaN##x\n":                 "not finite",
		"A -5 1##x\n":                  "negative time",
		"A 0 1##   \n":                 "empty sentence",
		"\n":                           "empty split",
	} {
		_, err := ParseSTA(strings.NewReader(src), "sta")
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseSTA(%q) = %v, want %q", src, err, want)
		}
	}
}

const csvHeader = "id,subject,scene,quality,relevance,verified,script,objects,descriptions,actions,length\n"

func TestParseVideos(t *testing.T) {
	src := csvHeader +
		`46GP8,HR43,Kitchen,6,7,Yes,A person cooking.,food;stove;window,"A person cooks, then looks.",c092 11.90 21.20;c147 0.00 12.60,24.83` + "\n" +
		`ZZZZZ,HR43,Hall,6,7,Yes,Nothing.,,Nothing happens.,,10` + "\n"
	vs, err := ParseVideos(strings.NewReader(src), "v1.csv")
	if err != nil {
		t.Fatal(err)
	}
	want := Video{ID: "46GP8", Scene: "Kitchen", Objects: []string{"food", "stove", "window"}, Script: "A person cooking.",
		Descriptions: "A person cooks, then looks.", Actions: []Action{{92, 11.9, 21.2}, {147, 0, 12.6}}, Length: 24.83}
	if len(vs) != 2 || !reflect.DeepEqual(vs[0], want) || vs[1].Actions != nil || vs[1].Objects != nil {
		t.Fatalf("got %+v", vs)
	}
}

func TestParseVideosErrors(t *testing.T) {
	row := func(actions, length string) string {
		return csvHeader + "A,s,Hall,6,7,Yes,x,,d,ok,1\n" + "B,s,Hall,6,7,Yes,x,,d," + actions + "," + length + "\n"
	}
	for src, want := range map[string]string{
		row("c200 1 2", "3"):      "v1:3: field actions: action 1: class",
		row("c001 1", "3"):        "v1:3: field actions",
		row("c001 1 x", "3"):      "not finite",
		row("", "NaN"):            "v1:3: field length",
		"id,scene\nA,Hall\n":      `v1:1: header lacks column "script"`,
		csvHeader:                 "empty split",
		csvHeader + "A,s,H,6,7\n": "wrong number of fields",
	} {
		src = strings.Replace(src, ",ok,", ",,", 1)
		_, err := ParseVideos(strings.NewReader(src), "v1")
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseVideos(%q) = %v, want %q", src, err, want)
		}
	}
}

func TestReadClasses(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	for i := 0; i < NumClasses; i++ {
		fmt.Fprintf(&b, "c%03d\tclass %03d\n", i, i)
	}
	p := filepath.Join(dir, "classes.tsv")
	os.WriteFile(p, []byte(b.String()), 0o644)
	names, err := ReadClasses(p)
	if err != nil || len(names) != NumClasses || names[156] != "class 156" {
		t.Fatalf("%v %v", err, names[len(names)-1:])
	}
	os.WriteFile(p, []byte("c000\tx\nc002\ty\n"), 0o644)
	if _, err := ReadClasses(p); err == nil || !strings.Contains(err.Error(), "classes.tsv:2") {
		t.Fatalf("out-of-order class not reported by line: %v", err)
	}
}

func TestLabelFrames(t *testing.T) {
	vecs := make([][]float32, NumClasses)
	for c := range vecs {
		vecs[c] = []float32{float32(c), 1}
	}
	// 2.2 s at 2 fps → 5 frames: [0,.5) [.5,1) [1,1.5) [1.5,2) [2,2.5).
	v := Video{Length: 2.2, Actions: []Action{{3, 0.2, 1.2}, {5, 1.0, 1.1}, {3, 1.9, 5}}}
	x, n, err := LabelFrames(v, vecs, 2)
	if err != nil || n != 5 {
		t.Fatalf("n=%d err=%v", n, err)
	}
	dim := LabelFrameDim(2)
	frame := func(k int) []float32 { return x[k*dim : (k+1)*dim] }
	// Frame 2 = [1, 1.5): classes 3 (0.2–1.2) and 5 (1.0–1.1) active → mean vector ((3+5)/2, 1).
	f2 := frame(2)
	if f2[3] != 1 || f2[5] != 1 || f2[NumClasses] != 4 || f2[NumClasses+1] != 1 {
		t.Fatalf("frame 2 = hot %v %v, glove %v", f2[3], f2[5], f2[NumClasses:])
	}
	// Frame 3 = [1.5, 2): class 3's second interval starts at 1.9 → active, alone.
	if f3 := frame(3); f3[3] != 1 || f3[5] != 0 || f3[NumClasses] != 3 {
		t.Fatalf("frame 3 = %v", f3[NumClasses:])
	}
	sum := float32(0)
	for _, e := range frame(1)[:NumClasses] {
		sum += e
	}
	if sum != 1 {
		t.Fatalf("frame 1 multi-hot sum %v, want 1 (class 3 only)", sum)
	}
}

func FuzzParseSTA(f *testing.F) {
	f.Add("AO8RW 0.0 6.9##a person is putting a book on a shelf.\n")
	f.Add("A 1e400 2##x")
	f.Fuzz(func(t *testing.T, src string) {
		ms, err := ParseSTA(strings.NewReader(src), "fuzz")
		if err != nil {
			return
		}
		for _, m := range ms {
			if m.VideoID == "" || m.Sentence == "" || !(m.Start >= 0 && m.End >= 0) {
				t.Fatalf("accepted invalid moment %+v", m)
			}
		}
	})
}

func FuzzParseVideos(f *testing.F) {
	f.Add(csvHeader + "A,s,Hall,6,7,Yes,x,a;b,d,c001 1 2,3\n")
	f.Fuzz(func(t *testing.T, src string) {
		vs, err := ParseVideos(strings.NewReader(src), "fuzz")
		if err != nil {
			return
		}
		for _, v := range vs {
			if v.ID == "" || !(v.Length > 0) {
				t.Fatalf("accepted invalid video %+v", v)
			}
			for _, a := range v.Actions {
				if a.Class < 0 || a.Class >= NumClasses {
					t.Fatalf("accepted class %d", a.Class)
				}
			}
		}
	})
}
