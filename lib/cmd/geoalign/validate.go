package main

import (
	"fmt"

	"github.com/geoalign/geoalign/lib/data/prvr"
	"github.com/geoalign/geoalign/lib/models/gare"
)

// validateKind checks what a model kind of `geoalign train` requires of its configuration beyond
// its package's Validate (which open calls once the data have set the feature widths): before any
// data is read or anything is created.
func validateKind(kind modelKind, cfg modelConfig) error {
	switch c := cfg.(type) {
	case *gramConfig:
		if kind.name == hypergramKind.name {
			if err := c.Model.ValidateHyperGRAM(); err != nil {
				return err
			}
		}
		return c.Model.Validate()
	case *gareConfig:
		m := c.Model
		placeholderWidths(&m.TextInputDim, &m.VideoInputDim, &m.Frames, &m.Words)
		if err := m.Validate(); err != nil {
			return err
		}
		// The run's validation share and early stopping are Training.ValFraction and
		// Training.Patience; gare.Config's own fields serve gare.Model.Train alone.
		if d := gare.DefaultConfig(); c.Model.ValFraction != d.ValFraction || c.Model.Patience != d.Patience {
			return fmt.Errorf("Model.ValFraction = %g, Model.Patience = %d: geoalign train does not use them (leave them at %g and %d); "+
				"set Training.ValFraction and Training.Patience", c.Model.ValFraction, c.Model.Patience, d.ValFraction, d.Patience)
		}
	case *hlformerConfig:
		m := c.Model
		placeholderWidths(&m.VideoDim, &m.QueryDim)
		if err := m.Validate(); err != nil {
			return err
		}
		if err := c.Loss.Validate(); err != nil {
			return fmt.Errorf("Loss: %w", err)
		}
	}
	return nil
}

// checkSplits loads the test split next to the training and validation splits (a caption naming
// an unknown video fails here, not in eval) and checks that no two splits share a video.
func (r *hlformerRun) checkSplits() error {
	test, err := r.load("test")
	if err != nil {
		return err
	}
	tr, val := r.splits["train"], r.splits["val"]
	if err := prvr.CheckDisjoint(tr, test, r.layout.CaptionFile("train"), r.layout.CaptionFile("test")); err != nil {
		return err
	}
	valFile := r.layout.CaptionFile("val")
	if len(r.notes) > 0 { // carved from train: disjoint from it by construction
		valFile = r.layout.CaptionFile("train")
	}
	if err := prvr.CheckDisjoint(val, test, valFile, r.layout.CaptionFile("test")); err != nil {
		return err
	}
	return prvr.CheckDisjoint(tr, val, r.layout.CaptionFile("train"), valFile)
}

// placeholderWidths sets the widths that are 0 — those the data fill in — to 1 in a copy of a
// configuration, so that Validate checks every other field before the data are read (open checks
// the widths against the data).
func placeholderWidths(widths ...*int) {
	for _, w := range widths {
		if *w == 0 {
			*w = 1
		}
	}
}
