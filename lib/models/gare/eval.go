package gare

import (
	"fmt"

	"github.com/geoalign/geoalign/lib/retrieval"
)

// Evaluate scores every text of test against every video (Δ for every pair, block by block) and
// returns text→video and video→text R@1/5/10, MdR and MnR as lib/retrieval computes them (GARE's
// CLIP4Clip-style metrics, docs/official-code.md §4.5; ties counted pessimistically). The score matrix is
// materialised once (NumTexts × NumVideos floats) and ranked in both directions.
func (m *Model) Evaluate(test *Dataset) (retrieval.Report, error) {
	sc, err := m.NewScorer(test, test.Videos(), ScorerOptions{})
	if err != nil {
		return retrieval.Report{}, err
	}
	mat, err := sc.Matrix()
	if err != nil {
		return retrieval.Report{}, err
	}
	res, err := retrieval.Evaluate[float32](mat, test.VideoOf, retrieval.Options{VideoToText: true})
	if err != nil {
		return retrieval.Report{}, fmt.Errorf("gare: evaluating %q: %w", test.Name, err)
	}
	return res.Report, nil
}
