package activitynet

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"

	"github.com/geoalign/geoalign/lib/data"
	"github.com/geoalign/geoalign/lib/data/captions"
)

// Video is one annotated video.
type Video struct {
	ID         string
	Duration   float64
	Timestamps [][2]float64
	Sentences  []string
}

type rawVideo struct {
	Duration   float64     `json:"duration"`
	Timestamps [][]float64 `json:"timestamps"`
	Sentences  []string    `json:"sentences"`
}

// ReadFile reads an ActivityNet Captions JSON file.
func ReadFile(path string) ([]Video, error) { return data.ReadFile("activitynet", path, Parse) }

// Parse decodes the JSON from r (name is used in errors) and returns the videos sorted by id.
func Parse(r io.Reader, name string) ([]Video, error) {
	var raw map[string]rawVideo
	dec := json.NewDecoder(r)
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("activitynet: %s: %v", name, err)
	}
	if len(raw) == 0 {
		return nil, fmt.Errorf("activitynet: %s: no videos (empty split)", name)
	}
	ids := make([]string, 0, len(raw))
	for id := range raw {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	out := make([]Video, 0, len(ids))
	for _, id := range ids {
		rv := raw[id]
		if id == "" || strings.Contains(id, "#") {
			return nil, fmt.Errorf("activitynet: %s: video id %q is empty or contains '#'", name, id)
		}
		if !(rv.Duration > 0) || math.IsInf(rv.Duration, 0) {
			return nil, fmt.Errorf("activitynet: %s: video %s: field duration %v is not positive", name, id, rv.Duration)
		}
		if len(rv.Sentences) == 0 || len(rv.Timestamps) != len(rv.Sentences) {
			return nil, fmt.Errorf("activitynet: %s: video %s: %d sentences but %d timestamps", name, id, len(rv.Sentences), len(rv.Timestamps))
		}
		v := Video{ID: id, Duration: rv.Duration}
		for k, ts := range rv.Timestamps {
			if len(ts) != 2 {
				return nil, fmt.Errorf("activitynet: %s: video %s: field timestamps[%d] has %d values, want 2", name, id, k, len(ts))
			}
			v.Timestamps = append(v.Timestamps, [2]float64{ts[0], ts[1]})
			s := strings.Join(strings.Fields(rv.Sentences[k]), " ")
			if s == "" {
				return nil, fmt.Errorf("activitynet: %s: video %s: field sentences[%d] is empty", name, id, k)
			}
			v.Sentences = append(v.Sentences, s)
		}
		out = append(out, v)
	}
	return out, nil
}

// Captions returns one PRVR caption per sentence: "<video_id>#enc#<k>".
func Captions(vs []Video) []captions.Caption {
	var out []captions.Caption
	for _, v := range vs {
		for k, s := range v.Sentences {
			out = append(out, captions.Caption{ID: captions.EncID(v.ID, k), Text: s})
		}
	}
	return out
}
