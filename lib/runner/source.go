package runner

import (
	"errors"
	"os"
	"path/filepath"

	"github.com/geoalign/geoalign/lib/data/featdir"
	"github.com/geoalign/geoalign/lib/data/prvr"
)

// Source says where a run's data are (absolute paths): a feature directory (GARE, GRAM and
// HyperGRAM: `--data DIR`, package lib/data/featdir) or a collection in the MS-SL layout (HLFormer:
// `--data-root`, `--collection`, `--visual-feature`, `--text-feature`; lib/data/prvr.Layout).
// It is the "data" of config.json: a study names the data its runs read with it.
type Source struct {
	Dir string `json:"dir,omitempty"` // gare, gram: --data

	Root          string `json:"data_root,omitempty"` // hlformer: --data-root
	Collection    string `json:"collection,omitempty"`
	VisualFeature string `json:"visual_feature,omitempty"`
	TextFeature   string `json:"text_feature,omitempty"`
}

func (s Source) String() string {
	if s.Dir != "" {
		return s.Dir
	}
	return filepath.Join(s.Root, s.Collection) + " (" + s.VisualFeature + ")"
}

// Layout is the MS-SL layout of a collection source.
func (s Source) Layout() prvr.Layout {
	return prvr.Layout{Root: s.Root, Collection: s.Collection, VisualFeature: s.VisualFeature, TextFeature: s.TextFeature}
}

// Files lists the data files a run on s reads (those that exist): a feature directory's
// (featdir.Files), or the collection's caption files of every split, BigFile and query features
// (prvr.Layout.Files). The run's record fingerprints them (lib/rundir.Stamp).
func (s Source) Files() ([]string, error) {
	if s.Dir != "" {
		return featdir.Files(s.Dir)
	}
	var out []string
	for _, split := range []string{"train", "val", "test"} {
		for _, p := range s.Layout().Files(split) {
			if _, err := os.Stat(p); err == nil {
				out = append(out, p)
			} else if !errors.Is(err, os.ErrNotExist) {
				return nil, err
			}
		}
	}
	return out, nil
}
