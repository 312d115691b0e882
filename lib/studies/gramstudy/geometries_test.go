package gramstudy

import (
	"testing"

	"github.com/geoalign/geoalign/lib/backend"
	"github.com/geoalign/geoalign/lib/data/synth"
	"github.com/geoalign/geoalign/lib/models/gram"
	"github.com/geoalign/geoalign/lib/reproduce"
)

// Geometries on a tiny synthetic set (with enough distinct test texts to declare claims: NoClaimReason):
// five rows per set (the ensemble among them, with no α), and
// ten claims per set (five comparisons in each direction) that the claim rule accepts.
func TestGeometriesDeclaresBothDirections(t *testing.T) {
	if testing.Short() {
		t.Skip("trains four variants")
	}
	backend.SkipOnXLA(t, "trains four GRAM variants for 2 seeds: the study's logic is backend-independent and runs on the Go backend in every go test; "+
		"on XLA other initial weights (Philox, not PCG) give other numbers; the models on XLA: lib/parity, lib/cmd/geoalign's TestTrainEval*")
	d, err := gram.SyntheticTriModal(synth.TriModalConfig{Seed: 2, Depth: 2, Branching: 3, LatentDim: 8, LevelDecay: 0.6,
		Dims: [3]int{8, 8, 8}, N: 330, Noise: [3]float64{0.1, 0.1, 0.1}}, MinDistinctQueries+10)
	if err != nil {
		t.Fatal(err)
	}
	o := Options{Seeds: []int64{1, 2}}
	tab, claims, err := o.Geometries(Runs{}, []*gram.Dataset{d})
	if err != nil {
		t.Fatal(err)
	}
	if len(tab.Rows) != 5 || len(claims) != 10 {
		t.Fatalf("%d rows, %d claims", len(tab.Rows), len(claims))
	}
	decided, err := reproduce.Decide(claims)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range decided {
		if c.N != 2 {
			t.Fatalf("%s: n = %d", c.Claim, c.N)
		}
	}
}
