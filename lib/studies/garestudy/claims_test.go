package garestudy_test

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/geoalign/geoalign/lib/backend"
	"github.com/geoalign/geoalign/lib/models/gare"
	"github.com/geoalign/geoalign/lib/reproduce"
	"github.com/geoalign/geoalign/lib/retrieval"
	"github.com/geoalign/geoalign/lib/studies/garestudy"
)

// runsOf is a Runs of one variant per row of r1 (R@1 per seed; MnR = 100 − R@1) on a paired test
// split of 500 texts × 500 videos.
func runsOf(seeds []int64, r1 ...[]float64) *garestudy.Runs {
	d := &gare.Dataset{Name: "test set", Kind: "synthetic", NumTexts: 500, NumVideos: 500}
	r := &garestudy.Runs{Train: d, Test: d}
	for v, row := range r1 {
		r.Variants = append(r.Variants, garestudy.Variant{Name: string(rune('a' + v))})
		runs := reproduce.Runs[garestudy.Result]{Name: r.Variants[v].Name, Seeds: seeds}
		for _, x := range row {
			m := retrieval.Metrics{Ks: []int{1, 5, 10}, Recall: []float64{x, x, x}, MnR: 100 - x}
			runs.Results = append(runs.Results, garestudy.Result{Outcome: garestudy.Outcome{Report: retrieval.Report{T2V: m, V2T: &m}}})
		}
		r.Results = append(r.Results, runs)
	}
	return r
}

func floorOf(r1 float64) *garestudy.ZeroFloor {
	m := retrieval.Metrics{Ks: []int{1, 5, 10}, Recall: []float64{r1, r1, r1}, MnR: 100 - r1}
	return &garestudy.ZeroFloor{Name: "zero-training", Report: retrieval.Report{T2V: m, V2T: &m}}
}

// TestDeclaredComparisonsDecidedByTheRule: a declared comparison whose floor is above both samples
// is "not testable: floor"; the same comparison with the floor below both holds; "b beats the
// floor" holds against the low floor and is contradicted by the high one; the rule sees the floor,
// the seeds, the metric's direction and its random level.
func TestDeclaredComparisonsDecidedByTheRule(t *testing.T) {
	seeds := []int64{1, 2, 3, 4, 5}
	a := []float64{10, 12, 11, 10.5, 11.5}
	b := []float64{12, 14, 13.5, 12, 13}
	high, low := runsOf(seeds, a, b), runsOf(seeds, a, b)
	high.Floor, low.Floor = floorOf(20), floorOf(2)
	sec := &reproduce.Section{Comparisons: []reproduce.Comparison{
		high.Compare("b beats a above a high floor", "1 → 2", 0, 1, garestudy.R1),
		low.Compare("b beats a above a low floor", "1 → 2", 0, 1, garestudy.R1),
		low.Compare("b lowers the mean rank", "3 → 2", 0, 1, garestudy.MnR),
		low.BeatsFloor(1, garestudy.R1),
		high.BeatsFloor(1, garestudy.R1),
	}}
	c := sec.Comparisons[0]
	if c.Paper != garestudy.Paper || c.Floor == nil || c.Floor.Values[0] != 20 || math.Abs(c.Random-100.0/500) > 1e-12 || !c.Higher || c.Best != 100 ||
		!c.A.Learned || !slices.Equal(c.B.Seeds, []int64{1, 2, 3, 4, 5}) {
		t.Fatalf("declared comparison %+v", c)
	}
	if m := sec.Comparisons[2]; m.Higher || m.Random != 250.5 || m.Best != 1 {
		t.Fatalf("MnR comparison %+v: lower is better, random level (n + 1)/2, best 1", m)
	}
	claims, err := reproduce.DecideSections([]*reproduce.Section{sec}, garestudy.Untestable()...)
	if err != nil {
		t.Fatal(err)
	}
	if c := claims[0]; c.Outcome != reproduce.NotTestable || c.Gate != reproduce.GateFloor ||
		!strings.HasPrefix(c.Verdict(), "not testable: floor — a ") || !strings.Contains(c.Floor, "zero-training 20") {
		t.Errorf("floor above both samples: %s (gate %q)", c, c.Gate)
	}
	for i, want := range []reproduce.Outcome{reproduce.Holds, reproduce.Holds, reproduce.Holds, reproduce.Contradicted} {
		if c := claims[1+i]; c.Outcome != want || c.P == nil || c.P.Family != 4 || c.N != 5 {
			t.Errorf("%s: want %s in a Holm family of the 4 tested claims", c, want)
		}
	}
	if f := sec.Comparisons[3]; f.Floor != nil || !slices.Equal(f.A.Values, []float64{2, 2, 2, 2, 2}) || f.A.Learned || f.B.Name != "b" {
		t.Errorf("beats-the-floor comparison %+v: A is the floor over the seeds, no floor gate", f)
	}
}

// TestTinyStudyClaimsFollowTheRule runs every section of the study at a tiny scale on the synthetic
// benchmark (with word features so that ψ's word context can run) and checks that every claim
// carries one of the rule's outcomes, that claims.json accepts them, and that every retrieval claim
// shows its floor. (About 5 s: ~30 configurations of D = 8 for one epoch of 6 steps, 2 seeds.)
func TestTinyStudyClaimsFollowTheRule(t *testing.T) {
	backend.SkipOnXLA(t, "trains the GARE study's variants for 2 seeds: the study's logic is backend-independent and runs on the Go backend in every go test; "+
		"on XLA other initial weights (Philox, not PCG) give other numbers; the models on XLA: lib/parity, lib/cmd/geoalign's TestTrainEval*")
	sc := garestudy.Scale{Name: "tiny", Seeds: []int64{1, 2},
		Dim: 8, TemporalLayers: 1, TemporalHeads: 1, Batch: 16, PretrainEpochs: 1, Epochs: 1, PretrainLR: 1e-3, LR: 1e-3, ProjectionLR: 1e-6,
		SynthPairs: 160, SynthTrain: 96, FalseNegativeRates: []float64{0, 0.5}, ProbePairs: 8, DynamicsEvery: 3}
	train, test, err := garestudy.SyntheticData(sc.SynthPairs, sc.SynthTrain, 0.3, 3)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []*gare.Dataset{train, test} { // two "words" per text: the text itself, twice
		d.Words, d.WordFeats, d.WordMask = 2, nil, nil
		for i := range d.NumTexts {
			row := d.Text[i*d.TextDim : (i+1)*d.TextDim]
			d.WordFeats = append(append(d.WordFeats, row...), row...)
			d.WordMask = append(d.WordMask, 1, 1)
		}
	}
	s, err := garestudy.NewSuiteOn(backend.MustNew(), sc, train, test, garestudy.SyntheticFloor, 0, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var sections []*reproduce.Section
	for _, n := range s.Named() {
		sec, err := n.Run()
		if err != nil {
			t.Fatal(err)
		}
		sections = append(sections, sec)
	}
	// Every table of runs has its learning curves beside it, and its notes name them.
	for _, sec := range sections {
		names := map[string]bool{}
		for _, a := range sec.Artifacts {
			names[a.Name] = a.Figure != nil || a.Table != nil
		}
		for _, a := range sec.Artifacts {
			if a.Table == nil || !strings.HasPrefix(a.Name, "table") {
				continue
			}
			if !names[a.Name+"-curves-loss"] || !names[a.Name+"-curves-val"] {
				t.Errorf("%s: table %s without its learning curves", sec.Title, a.Name)
			}
			if !strings.Contains(strings.Join(a.Table.Provenance.Notes, " "), a.Name+"-curves-val") {
				t.Errorf("%s: the notes of %s do not name its learning curves", sec.Title, a.Name)
			}
		}
	}
	claims, err := reproduce.DecideSections(sections, garestudy.Untestable()...)
	if err != nil {
		t.Fatal(err)
	}
	declared := len(garestudy.Untestable())
	for _, sec := range sections {
		declared += len(sec.Comparisons) + len(sec.Findings)
	}
	if len(claims) != declared || len(claims) < 30 {
		t.Fatalf("%d claims for %d declared", len(claims), declared)
	}
	count := map[reproduce.Outcome]int{}
	for _, c := range claims {
		t.Log(c)
		count[c.Outcome]++
		switch c.Outcome {
		case reproduce.Inconclusive:
			if c.Reason != "n = 2 < 5 seeds" {
				t.Errorf("%s: with 2 seeds a claim past the gates is inconclusive by the seed count", c)
			}
		case reproduce.NotTestable:
			if c.Gate == "" && c.Data != "none" {
				t.Errorf("%s: not testable without a gate or being untestable here", c)
			}
		case reproduce.Descriptive, reproduce.Tautology:
		default:
			t.Errorf("%s: outcome %q, which two seeds cannot give", c, c.Outcome)
		}
		if strings.HasPrefix(c.Metric, "R@") || strings.HasPrefix(c.Metric, "v2t") || c.Metric == "MnR" {
			if !strings.Contains(c.Floor, "zero-training floor") && !strings.Contains(c.Claim, "beats the zero-training floor") {
				t.Errorf("%s: a retrieval claim without its floor", c)
			}
		}
	}
	if count[reproduce.Tautology] != 1 || count[reproduce.Descriptive] < 10 || count[reproduce.Inconclusive]+count[reproduce.NotTestable] < 20 {
		t.Errorf("outcomes %v: want the Fig. 4 tautology, the figure findings descriptive, the rest decided", count)
	}
	if err := reproduce.SaveClaims(t.TempDir(), claims); err != nil {
		t.Fatalf("claims.json refuses the study's claims: %v", err)
	}
}
