package garestudy

import (
	"fmt"

	"github.com/geoalign/geoalign/lib/models/gare"
	"github.com/geoalign/geoalign/lib/retrieval"
	"github.com/geoalign/geoalign/lib/retrieval/graphscore"
	"github.com/gomlx/compute"
	"github.com/gomlx/gomlx/core/tensors"
)

// Paper names GARE in every claim: the Holm family of the claim rule is every tested claim of
// one Paper.
const Paper = "GARE (NeurIPS 2025)"

// The study declares its claims; the one claim rule (lib/reproduce.Decide) decides them. Sample,
// Comparison and Finding carry exactly the fields of reproduce.Sample, reproduce.Comparison and
// the arguments of reproduce.Describe: this package cannot import lib/reproduce, which imports it
// (grid.go, gare.go), so lib/reproduce/gare.go (GAREClaims) hands them to the rule field for field.

// Sample is one variant's metric over seeds (reproduce.Sample, field for field).
type Sample struct {
	Name   string
	Seeds  []int64
	Values []float64
	// BestEpoch is nil: no GARE run selects an epoch (see Protocol), so the collapse-by-epoch gate
	// has nothing to read.
	BestEpoch []int
	Learned   bool
}

// Comparison is one claim "B beats A on Metric" (reproduce.Comparison, field for field).
type Comparison struct {
	Paper, Claim, PaperFigure, Data, Metric string
	Higher                                  bool
	A, B                                    Sample
	Floor                                   *Sample
	Best, Random                            float64
	Tautology                               string
}

// Finding is a descriptive result (a figure's shape, a single-seed number): the arguments of
// reproduce.Describe. Ours is formatted from the run's numbers.
type Finding struct {
	Claim, PaperFigure, Data, Ours string
}

// ZeroFloor is the zero-training baseline of a test split (ZeroTraining) and what it is.
type ZeroFloor struct {
	Name   string
	Report retrieval.Report
}

// ZeroTraining is the zero-training floor of a paired split: text i scores video j by
// cos(t_i, v̄_j), where t_i is the raw text feature (on Charades the mean GloVe vector of the
// caption's tokens) and v̄_j the masked mean over frames of the block [offset, offset + TextDim)
// of the raw frame features (on Charades the mean-GloVe block of the label-derived features,
// tracks.CharadesGloVeOffset). No parameter is learned; the scores are evaluated like every model's
// (gare.Model.Evaluate: lib/retrieval, both directions, pessimistic ties).
func ZeroTraining(b compute.Backend, d *gare.Dataset, offset int) (retrieval.Report, error) {
	w := d.TextDim
	if offset < 0 || offset+w > d.VideoDim {
		return retrieval.Report{}, fmt.Errorf("garestudy: zero-training floor of %q: block [%d, %d) outside the %d-d frames", d.Name, offset, offset+w, d.VideoDim)
	}
	videos := make([]float32, d.NumVideos*w)
	for j := range d.NumVideos {
		dst := videos[j*w : (j+1)*w]
		var n float32
		for f := range d.Frames {
			m := d.FrameMask[j*d.Frames+f]
			if m == 0 {
				continue
			}
			n += m
			frame := d.Video[(j*d.Frames+f)*d.VideoDim+offset:]
			for k := range dst {
				dst[k] += m * frame[k]
			}
		}
		for k := range dst {
			dst[k] /= max(n, 1) // a video with no unmasked frame keeps v̄ = 0 (cosine 0 by the F.normalize floor)
		}
	}
	sc, err := graphscore.Cosine(b, tensors.FromFlatDataAndDimensions(d.Text, d.NumTexts, w),
		tensors.FromFlatDataAndDimensions(videos, d.NumVideos, w))
	if err != nil {
		return retrieval.Report{}, err
	}
	res, err := retrieval.Evaluate[float32](sc, d.VideoOf, retrieval.Options{VideoToText: true})
	if err != nil {
		return retrieval.Report{}, fmt.Errorf("garestudy: zero-training floor of %q: %w", d.Name, err)
	}
	return res.Report, nil
}

// Sample is metric m of variant v over the seeds: a trained model (Learned) without a selected
// epoch.
func (r *Runs) Sample(v int, m Metric) Sample {
	return Sample{Name: r.Variants[v].Name, Seeds: seedsInt64(r.Seeds), Values: r.Values(v, m), Learned: true}
}

// Compare declares the claim "variant b beats variant a on metric m" on the runs' test split,
// with the split's zero-training floor (when the runs have one), the metric's best value and its
// level under random ranking for the split's size.
func (r *Runs) Compare(claim, paperFigure string, a, b int, m Metric) Comparison {
	c := Comparison{Paper: Paper, Claim: claim, PaperFigure: paperFigure, Data: dataOf(r), Metric: m.Name, Higher: m.Higher,
		A: r.Sample(a, m), B: r.Sample(b, m), Best: m.Best}
	if m.Random != nil {
		c.Random = m.Random(r.Test.NumTexts, r.Test.NumVideos)
	}
	if r.Floor != nil {
		c.Floor = &Sample{Name: r.Floor.Name, Values: []float64{m.Of(r.Floor.Report)}}
	}
	return c
}

// dataOf says on which data runs r were trained and tested.
func dataOf(r *Runs) string {
	return fmt.Sprintf("%s: trained on %s (%d pairs), tested on %s (%d texts × %d videos)",
		r.Train.Kind, r.Train.Name, r.Train.NumTexts, r.Test.Name, r.Test.NumTexts, r.Test.NumVideos)
}

// Declared lists, one line each, the claims a section hands to the rule (without an outcome: the
// rule decides all of GARE's claims together, lib/reproduce GAREClaims).
func (s *Section) Declared() []string {
	var out []string
	for _, c := range s.Comparisons {
		line := fmt.Sprintf("Claim: %s — %s on %s, %s vs %s over %d seeds. Paper: %s.", c.Claim, c.Metric, c.Data, c.B.Name, c.A.Name,
			len(c.A.Values), c.PaperFigure)
		if c.Tautology != "" {
			line += " True of any model: " + c.Tautology + "."
		}
		out = append(out, line)
	}
	for _, f := range s.Findings {
		out = append(out, fmt.Sprintf("Finding: %s — ours: %s (%s). Paper: %s.", f.Claim, f.Ours, f.Data, f.PaperFigure))
	}
	return out
}
