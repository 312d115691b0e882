package main

import (
	"encoding/json"
	"fmt"

	"github.com/geoalign/geoalign/lib/data/prvr"
	"github.com/geoalign/geoalign/lib/models/gare"
	"github.com/geoalign/geoalign/lib/models/hlformer"
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
func (r *hlformerData) checkSplits() error {
	test, err := r.load("test")
	if err != nil {
		return err
	}
	tr, val := r.splits["train"], r.splits["val"]
	if err := prvr.CheckDisjoint(tr, test, r.layout.CaptionFile("train"), r.layout.CaptionFile("test")); err != nil {
		return err
	}
	valFile := r.layout.CaptionFile("val")
	if len(r.notes) > 0 { // loadTrainVal's note: carved from train (disjoint from it by construction)
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

// batchingNotes say how an epoch's batches (plans, one epoch's) differ from the split tr: a last
// batch smaller than the others (the official code's DataLoader trains it), or the videos and
// queries the static-shape options leave out of every epoch.
func batchingNotes(t hlformer.Training, tr *prvr.Split, plans []hlformer.BatchPlan) []string {
	perVideo := make([]int, tr.NumVideos())
	for _, v := range tr.QueryVideo {
		perVideo[v]++
	}
	videos, queries, batched := 0, 0, 0 // batched: the queries of the batched videos
	for _, p := range plans {
		videos, queries = videos+len(p.Videos), queries+len(p.Queries)
		for _, v := range p.Videos {
			batched += perVideo[v]
		}
	}
	var notes []string
	last := len(plans[len(plans)-1].Videos)
	switch {
	case !t.DropPartialBatch && len(plans) == 1 && last < t.BatchVideos:
		notes = append(notes, fmt.Sprintf("the training split's %d videos make one batch, smaller than Training.BatchVideos = %d: trained as the official code's DataLoader does (drop_last=False)",
			last, t.BatchVideos))
	case !t.DropPartialBatch && last < t.BatchVideos:
		notes = append(notes, fmt.Sprintf("the last batch of every epoch has %d of Training.BatchVideos = %d videos and is trained, as the official code's DataLoader does (drop_last=False)",
			last, t.BatchVideos))
	case t.DropPartialBatch && videos < tr.NumVideos():
		notes = append(notes, fmt.Sprintf("deviation from the official code (static shapes, Training.DropPartialBatch): %d of the %d training videos sit out every epoch (the last, incomplete batch of the shuffle is dropped)",
			tr.NumVideos()-videos, tr.NumVideos()))
	}
	if t.QueryBucket > 0 && queries < batched {
		notes = append(notes, fmt.Sprintf("deviation from the official code (static shapes, Training.QueryBucket = %d): each batch's queries are rounded down to a multiple of %d, so about %d of the %d training queries of the batched videos sit out an epoch (random ones, drawn again every epoch)",
			t.QueryBucket, t.QueryBucket, batched-queries, tr.NumQueries()))
	}
	return notes
}

// legacyDefaults sets the fields a run's stored configuration raw predates to the values that run
// trained with (a field added later decodes to its new default otherwise, and a resumed run would
// not end as the uninterrupted one): HLFormer's Training.DropPartialBatch, true before it existed.
// It returns a note saying so, or "".
func legacyDefaults(raw []byte, cfg modelConfig) string {
	c, ok := cfg.(*hlformerConfig)
	if !ok {
		return ""
	}
	var stored struct{ Training map[string]json.RawMessage }
	if err := json.Unmarshal(raw, &stored); err != nil || stored.Training == nil {
		return ""
	}
	if _, ok := stored.Training["DropPartialBatch"]; ok {
		return ""
	}
	c.Training.DropPartialBatch = true
	return "the run's configuration predates Training.DropPartialBatch: it keeps dropping the last partial batch of every epoch, as it was trained"
}
