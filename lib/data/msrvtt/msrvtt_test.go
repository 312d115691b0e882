package msrvtt

import (
	"archive/zip"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const tinyInfo = `{"info": {"year": "2016"}, "videos": [{"category": 9, "url": "u", "video_id": "video0", "start time": 137.72, "end time": 149.44, "split": "train", "id": 0}],
 "sentences": [{"caption": "a cartoon animals runs", "video_id": "video0", "sen_id": 0}]}`

func TestReadVideoDataInfoFromZip(t *testing.T) {
	p := filepath.Join(t.TempDir(), "a.zip")
	f, _ := os.Create(p)
	zw := zip.NewWriter(f)
	w, _ := zw.Create("readme.txt")
	w.Write([]byte("MSR-VTT 10K"))
	w, _ = zw.Create("train_val_videodatainfo.json")
	w.Write([]byte(tinyInfo))
	zw.Close()
	f.Close()
	d, err := ReadVideoDataInfo(p)
	if err != nil {
		t.Fatal(err)
	}
	if d.Videos[0].StartTime != 137.72 || d.Videos[0].Split != "train" || d.Sentences[0].Caption != "a cartoon animals runs" {
		t.Fatalf("%+v", d)
	}
}

func TestParseVideoDataInfoErrors(t *testing.T) {
	for src, want := range map[string]string{
		strings.Replace(tinyInfo, `"video_id": "video0", "sen_id"`, `"video_id": "video9", "sen_id"`, 1): `sentences[0]: video_id "video9"`,
		strings.Replace(tinyInfo, `"split": "train"`, `"split": ""`, 1):                                  "videos[0]: field video_id or split",
		strings.Replace(tinyInfo, `"a cartoon animals runs"`, `"  "`, 1):                                 "sentences[0]: field caption",
		`{"videos": [], "sentences": []}`:                                                                "empty split",
	} {
		if _, err := ParseVideoDataInfo(strings.NewReader(src), "f.json"); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%v, want %q", err, want)
		}
	}
}

func TestParseJSFusion(t *testing.T) {
	src := "key;vid_key;video_id;sentence\nret0;msr9770;video9770;a person is connecting something to system\nret1;msr9771;video9771;a girl; with a semicolon\n"
	rows, err := ParseJSFusion(strings.NewReader(src), "t.csv")
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[1].Sentence != "a girl; with a semicolon" || rows[0].VideoID != "video9770" {
		t.Fatalf("%+v", rows)
	}
	for src, want := range map[string]string{
		"key,vid_key\n": "t.csv:1: header",
		"key;vid_key;video_id;sentence\nret0;msr1;video1;a\nret1;msr1;video1;b\n": `t.csv:3: video_id "video1" already on line 2`,
		"key;vid_key;video_id;sentence\nret0;msr1\n":                              "t.csv:2: want",
		"key;vid_key;video_id;sentence\n":                                         "empty split",
	} {
		if _, err := ParseJSFusion(strings.NewReader(src), "t.csv"); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", src, err, want)
		}
	}
}

// TestStagedCounts checks the staged files against docs/data-sources.md §1.
func TestStagedCounts(t *testing.T) {
	dir := "../../../../shared/data/msrvtt/"
	if _, err := os.Stat(dir + "MSRVTT_JSFUSION_test.csv"); err != nil {
		t.Skip("staged data not present")
	}
	for file, want := range map[string][2]int{"train_val_annotation.zip": {7010, 140200}, "test_videodatainfo.json.zip": {2990, 59800}} {
		d, err := ReadVideoDataInfo(dir + file)
		if err != nil {
			t.Fatal(err)
		}
		if len(d.Videos) != want[0] || len(d.Sentences) != want[1] {
			t.Errorf("%s: %d videos / %d sentences, docs/data-sources.md says %d / %d", file, len(d.Videos), len(d.Sentences), want[0], want[1])
		}
	}
	rows, err := ReadJSFusion(dir + "MSRVTT_JSFUSION_test.csv")
	if err != nil || len(rows) != 1000 {
		t.Fatalf("1k-A: %v, %d rows", err, len(rows))
	}
}

func FuzzParseJSFusion(f *testing.F) {
	f.Add("key;vid_key;video_id;sentence\nret0;msr1;video1;a b\n")
	f.Fuzz(func(t *testing.T, src string) {
		rows, err := ParseJSFusion(strings.NewReader(src), "fuzz")
		if err != nil {
			return
		}
		for _, r := range rows {
			if r.VideoID == "" || r.Sentence == "" {
				t.Fatalf("accepted %+v", r)
			}
		}
	})
}
