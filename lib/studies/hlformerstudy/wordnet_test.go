package hlformerstudy

import (
	"testing"

	"github.com/geoalign/geoalign/lib/hierarchy"
	"github.com/geoalign/geoalign/lib/hierarchy/wordnetbench"
	"github.com/geoalign/geoalign/lib/reproduce"
)

// The WordNet cone claims are declared the right way round: B is the arm with L_pop, the floor is
// the untrained embedding, and the MAP claim's collapse gate is random ranking.
func TestConeComparisonsOrientTheClaims(t *testing.T) {
	r := &wordnetbench.ConeResults{Options: wordnetbench.ConeOptions{Seeds: []int64{1, 2, 3, 4, 5}}, TrainPairs: 90, HeldOutPairs: 10, RandomMAP: 0.01}
	without := []float64{0.10, 0.12, 0.11, 0.13, 0.10}
	with := []float64{0.30, 0.33, 0.29, 0.35, 0.31}
	mapWithout := []float64{0.95, 0.96, 0.95, 0.97, 0.96}
	mapWith := []float64{0.90, 0.92, 0.90, 0.93, 0.91}
	for i, s := range r.Options.Seeds {
		r.Without = append(r.Without, wordnetbench.ConeRun{Seed: s, HeldOut: hierarchy.Entailment{Inside: without[i]}, Full: hierarchy.Reconstruction{MAP: mapWithout[i]}})
		r.With = append(r.With, wordnetbench.ConeRun{Seed: s, ConeWeight: 0.1, HeldOut: hierarchy.Entailment{Inside: with[i]}, Full: hierarchy.Reconstruction{MAP: mapWith[i]}})
		r.Initial = append(r.Initial, hierarchy.Entailment{Inside: 0.01 * float64(i+1)})
	}
	claims, err := reproduce.Decide(ConeComparisons(r, ConeCIScale))
	if err != nil {
		t.Fatal(err)
	}
	if claims[0].Outcome != reproduce.Holds || claims[0].Floor == "" || claims[0].Diff.Mean <= 0 {
		t.Errorf("cone claim: %s", claims[0])
	}
	if claims[1].Outcome != reproduce.Contradicted {
		t.Errorf("MAP claim: %s", claims[1])
	}
	// An arm that does not beat the untrained embedding is stopped by the floor gate.
	for i := range r.With {
		r.With[i].HeldOut.Inside = r.Initial[i].Inside
		r.Without[i].HeldOut.Inside = r.Initial[i].Inside + 0.001*float64(i%2)
	}
	claims, err = reproduce.Decide(ConeComparisons(r, ConeCIScale))
	if err != nil {
		t.Fatal(err)
	}
	if claims[0].Gate != reproduce.GateFloor {
		t.Errorf("cone claim at the floor: %s", claims[0])
	}
}
