package msrvtt

import (
	"archive/zip"
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/geoalign/geoalign/lib/data"
)

// Video is one entry of "videos".
type Video struct {
	ID        int     `json:"id"`
	VideoID   string  `json:"video_id"`
	Category  int     `json:"category"`
	URL       string  `json:"url"`
	StartTime float64 `json:"start time"`
	EndTime   float64 `json:"end time"`
	Split     string  `json:"split"`
}

// Sentence is one entry of "sentences".
type Sentence struct {
	SenID   int    `json:"sen_id"`
	VideoID string `json:"video_id"`
	Caption string `json:"caption"`
}

// DataInfo is a videodatainfo file.
type DataInfo struct {
	Videos    []Video    `json:"videos"`
	Sentences []Sentence `json:"sentences"`
}

// ReadVideoDataInfo reads a videodatainfo .json file, or the one inside a .zip archive.
func ReadVideoDataInfo(path string) (*DataInfo, error) {
	if !strings.HasSuffix(path, ".zip") {
		f, err := os.Open(path)
		if err != nil {
			return nil, fmt.Errorf("msrvtt: %w", err)
		}
		defer f.Close()
		return ParseVideoDataInfo(bufio.NewReader(f), path)
	}
	zr, err := zip.OpenReader(path)
	if err != nil {
		return nil, fmt.Errorf("msrvtt: %s: %w", path, err)
	}
	defer zr.Close()
	for _, f := range zr.File {
		if strings.HasSuffix(f.Name, "videodatainfo.json") {
			rc, err := f.Open()
			if err != nil {
				return nil, fmt.Errorf("msrvtt: %s: %s: %w", path, f.Name, err)
			}
			defer rc.Close()
			return ParseVideoDataInfo(bufio.NewReader(rc), path+":"+f.Name)
		}
	}
	return nil, fmt.Errorf("msrvtt: %s holds no *videodatainfo.json", path)
}

// ParseVideoDataInfo decodes and checks a videodatainfo JSON (name is used in errors): every
// video has an id and a split, every sentence names a listed video and has a caption.
func ParseVideoDataInfo(r io.Reader, name string) (*DataInfo, error) {
	var d DataInfo
	if err := json.NewDecoder(r).Decode(&d); err != nil {
		return nil, fmt.Errorf("msrvtt: %s: %v", name, err)
	}
	if len(d.Videos) == 0 || len(d.Sentences) == 0 {
		return nil, fmt.Errorf("msrvtt: %s: %d videos and %d sentences (empty split)", name, len(d.Videos), len(d.Sentences))
	}
	known := map[string]bool{}
	for i, v := range d.Videos {
		if v.VideoID == "" || v.Split == "" {
			return nil, fmt.Errorf("msrvtt: %s: videos[%d]: field video_id or split is empty", name, i)
		}
		if known[v.VideoID] {
			return nil, fmt.Errorf("msrvtt: %s: videos[%d]: video_id %q listed twice", name, i, v.VideoID)
		}
		known[v.VideoID] = true
	}
	for i, s := range d.Sentences {
		if !known[s.VideoID] {
			return nil, fmt.Errorf("msrvtt: %s: sentences[%d]: video_id %q is not in videos", name, i, s.VideoID)
		}
		if strings.TrimSpace(s.Caption) == "" {
			return nil, fmt.Errorf("msrvtt: %s: sentences[%d]: field caption is empty", name, i)
		}
	}
	return &d, nil
}

// JSFusionRow is one row of MSRVTT_JSFUSION_test.csv.
type JSFusionRow struct {
	Key, VidKey, VideoID, Sentence string
}

// ReadJSFusion reads the 1k-A test list.
func ReadJSFusion(path string) ([]JSFusionRow, error) {
	return data.ReadFile("msrvtt", path, ParseJSFusion)
}

// ParseJSFusion parses "key;vid_key;video_id;sentence" rows after the header; the sentence is
// everything after the third ';'. Video ids must be unique (one caption per video).
func ParseJSFusion(r io.Reader, name string) ([]JSFusionRow, error) {
	sc := bufio.NewScanner(r)
	if !sc.Scan() {
		return nil, fmt.Errorf("msrvtt: %s: empty file", name)
	}
	if h := strings.TrimSpace(sc.Text()); h != "key;vid_key;video_id;sentence" {
		return nil, fmt.Errorf("msrvtt: %s:1: header %q, want \"key;vid_key;video_id;sentence\"", name, h)
	}
	var out []JSFusionRow
	seen := map[string]int{}
	for line := 2; sc.Scan(); line++ {
		s := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(s) == "" {
			continue
		}
		f := strings.SplitN(s, ";", 4)
		if len(f) != 4 || f[2] == "" || strings.TrimSpace(f[3]) == "" {
			return nil, fmt.Errorf("msrvtt: %s:%d: want key;vid_key;video_id;sentence, got %q", name, line, s)
		}
		if prev, dup := seen[f[2]]; dup {
			return nil, fmt.Errorf("msrvtt: %s:%d: video_id %q already on line %d", name, line, f[2], prev)
		}
		seen[f[2]] = line
		out = append(out, JSFusionRow{f[0], f[1], f[2], strings.TrimSpace(f[3])})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("msrvtt: %s: %w", name, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("msrvtt: %s: no rows (empty split)", name)
	}
	return out, nil
}
