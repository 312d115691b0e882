package hlformerstudy

import (
	"fmt"
	"os"
	"slices"

	"github.com/geoalign/geoalign/lib/data"
	"github.com/geoalign/geoalign/lib/data/prvr"
	"github.com/geoalign/geoalign/lib/report"
)

// LoadCollection loads a collection in the MS-SL layout (the files `geoalign train hlformer` reads,
// prvr.Layout: the official release of Charades-STA, TVR or ActivityNet Captions drops in as is) as
// a setup of real data: its train and test splits, and for validation its val split when that
// differs from test, else prvr.CarveValidation of train (prvr.ValidationFraction, the same videos
// for every seed) — the rule of LoadCharadesSTAText and of `geoalign train hlformer`, so the
// Charades-STA track opened here gives the track's setup. A missing file, a caption whose video has
// no features or a split without queries is a data.BadInput error naming the file.
func LoadCollection(l prvr.Layout) (*Setup, error) {
	for _, split := range []string{"train", "test"} {
		for _, f := range l.Files(split) {
			if _, err := os.Stat(f); err != nil {
				return nil, data.BadInput(fmt.Errorf("hlformer: %s split: %w", split, err))
			}
		}
	}
	load := func(split string) (*prvr.Split, error) {
		s, err := prvr.Load(l, split)
		if err == nil && s.NumQueries() == 0 {
			err = fmt.Errorf("%s: no caption", l.CaptionFile(split))
		}
		if err != nil {
			return nil, data.BadInput(fmt.Errorf("hlformer: %s split: %w", split, err))
		}
		return s, nil
	}
	tr, err := load("train")
	if err != nil {
		return nil, err
	}
	te, err := load("test")
	if err != nil {
		return nil, err
	}
	if tr.Dim != te.Dim || tr.QueryDim != te.QueryDim {
		return nil, data.BadInput(fmt.Errorf("hlformer: %s and %s: train widths %d/%d differ from test's %d/%d", l.CaptionFile("train"), l.CaptionFile("test"), tr.Dim, tr.QueryDim, te.Dim, te.QueryDim))
	}
	valNote := "validation: " + l.CaptionFile("val")
	var val *prvr.Split
	if _, err := os.Stat(l.CaptionFile("val")); err == nil {
		if val, err = load("val"); err != nil {
			return nil, err
		}
		if sameIDs(val.CapIDs, te.CapIDs) {
			val, valNote = nil, fmt.Sprintf("validation: %s holds the test captions (as in the official Charades-STA release), so ", l.CaptionFile("val"))
		}
	} else {
		valNote = fmt.Sprintf("validation: %s does not exist, so ", l.CaptionFile("val"))
	}
	if val == nil {
		if tr, val, err = prvr.CarveValidation(tr, prvr.ValidationFraction); err != nil {
			return nil, data.BadInput(fmt.Errorf("hlformer: %s: %w", l.CaptionFile("train"), err))
		}
		valNote += fmt.Sprintf("%g of the train videos, seeded (prvr.CarveValidation), are held out for validation (never test)", prvr.ValidationFraction)
	}
	desc := fmt.Sprintf("MS-SL-layout collection %q under %s: video features %s (%d-d), query tokens %s (%d-d); train %d queries / %d videos, "+
		"val %d / %d, test %d / %d; %s", l.Collection, l.Root, l.VisualFeature, tr.Dim, l.TextFeatureFile(), tr.QueryDim,
		tr.NumQueries(), tr.NumVideos(), val.NumQueries(), val.NumVideos(), te.NumQueries(), te.NumVideos(), valNote)
	return &Setup{Name: l.Collection, Train: tr, Val: val, Test: te, Data: desc, Kind: report.Real, Layout: l}, nil
}

// sameIDs reports whether a and b hold the same ids in any order.
func sameIDs(a, b []string) bool {
	return slices.Equal(slices.Sorted(slices.Values(a)), slices.Sorted(slices.Values(b)))
}
