package hlformerstudy

import (
	"fmt"
	"path/filepath"

	"github.com/geoalign/geoalign/lib/data"
	"github.com/geoalign/geoalign/lib/data/tracks"
	"github.com/geoalign/geoalign/lib/hierarchy"
	"github.com/geoalign/geoalign/lib/hierarchy/wordnetbench"
	"github.com/geoalign/geoalign/lib/report"
	"github.com/geoalign/geoalign/lib/reproduce"
	"github.com/geoalign/geoalign/lib/runcache"
)

// WordNetCone tests HLFormer's claim that its partial-order-preservation loss L_pop makes an
// embedding respect the partial order "specific ≺ general" where the order is known (issue 19):
// WordNet's mammal closure (Debian wordnet-base and the staged mammal filter; missing data is a
// data.BadInput error), by lib/hierarchy/wordnetbench.RunCone. The section holds its table (saved as
// wordnet-cone<Suffix>, the scale in its provenance), learning curve and comparisons, at ConeFullScale
// with Full (checkpointed under the run cache's wordnet/, else build/wordnet/checkpoints), else
// ConeCIScale in memory; Suite.Seeds nil means the scale's.
func (s *Suite) WordNetCone() (*reproduce.Section, error) {
	sc, dir := ConeCIScale, ""
	if s.Full {
		sc, dir = ConeFullScale, filepath.Join("build", "wordnet", "checkpoints")
		if d := runcache.Root(""); d != "" {
			dir = filepath.Join(d, "wordnet")
		}
	}
	for _, seed := range s.Seeds {
		if seed < 0 {
			return nil, data.BadInput(fmt.Errorf("hlformer: the WordNet cone experiment needs seeds ≥ 0, got %d", seed))
		}
	}
	c, desc, err := wordnetbench.LoadClosure(wordnetbench.Mammal, "", tracks.MammalFilter(tracks.SharedDir()))
	if err != nil {
		return nil, data.BadInput(fmt.Errorf("hlformer: the WordNet cone experiment: %w", err))
	}
	base := wordnetbench.ConeBase(sc.Dim)
	base.Epochs, base.BurnInEpochs = sc.Epochs, sc.BurnIn
	r, err := wordnetbench.RunCone(s.Main.Backend, wordnetbench.Mammal, c, desc, wordnetbench.ConeOptions{
		Seeds: orDefault(s.Seeds, sc.Seeds), HeldOut: sc.HeldOut, SplitSeed: coneSplitSeed, ConeWeight: sc.ConeWeight,
		Base: base, CheckpointDir: dir, Quiet: true})
	if err != nil {
		return nil, err
	}
	p, err := r.LearningCurve()
	if err != nil {
		return nil, err
	}
	sec := &reproduce.Section{Title: "wordnet-cone", Comparisons: ConeComparisons(r, sc)}
	sec.Table("wordnet-cone", r.Table(report.Provenance{Data: r.Description, Kind: report.Real, Seeds: r.Options.Seeds, Config: r.Options.Base,
		Behavior: fmt.Sprintf("%s scale: Lorentz d = %d, %d epochs (burn-in %d); Nickel & Kiela 2017 §4 otherwise (lib/hierarchy.PaperConfig)",
			sc.Name, sc.Dim, sc.Epochs, sc.BurnIn),
		Notes: []string{"λ was chosen among 1, 0.1 and 0.01 (100 epochs, seed 1) by the fraction of training pairs inside their cone (hlformerstudy.ConeFullScale).",
			r.CurveNote("wordnet-cone-curves" + Suffix(s.Full))}}))
	sec.Plot("wordnet-cone-curves", p)
	return sec, nil
}

// ConeScale is the size of the WordNet cone experiment.
type ConeScale struct {
	Name       string
	Dim        int
	Epochs     int // Nickel & Kiela's setting otherwise (PaperConfig: burn-in 10 epochs, lr 1, 10 negatives)
	BurnIn     int
	HeldOut    float64
	ConeWeight float64
	Seeds      []int64
}

// ConeFullScale: Lorentz d = 10 (the reconstruction table's main row), the papers' 300 epochs, 10 %
// of the implied edges held out, λ = 0.1, seeds 1–5: ≈ 10 minutes on 2 idle cores (≈ 45 s per run
// without the cone term, ≈ 70 s with it; 16 minutes measured on the shared machine at load ≈ 13).
// Run directories under build/wordnet/checkpoints make a repeat only re-evaluate (≈ 10 s).
//
// λ was chosen among 1, 0.1 and 0.01 (100 epochs, seed 1) by the fraction of TRAINING pairs inside
// their cone: λ = 1 destabilises training (0.8 % inside, full-closure MAP 0.34, where the cone
// term's gradient near the origin, ∝ 1/‖x‖, meets the papers' learning rate 1), λ = 0.01 barely
// moves it (16.5 % vs 13.1 % without), λ = 0.1 reaches 24.8 %.
var ConeFullScale = ConeScale{Name: "full", Dim: 10, Epochs: 300, BurnIn: 10, HeldOut: 0.1, ConeWeight: 0.1,
	Seeds: []int64{1, 2, 3, 4, 5}}

// ConeCIScale runs in seconds: d = 5, 6 epochs (2 of burn-in). It checks the pipeline, not the claim.
var ConeCIScale = ConeScale{Name: "CI", Dim: 5, Epochs: 6, BurnIn: 2, HeldOut: 0.1, ConeWeight: 0.1,
	Seeds: []int64{1, 2, 3, 4, 5}}

// coneSplitSeed draws the held-out edges (one split for every seed).
const coneSplitSeed = 1

// ConeComparisons declares the experiment's two claims for the rule: with L_pop, held-out pairs lie
// inside their parent's cone more often than without (floor: the untrained embedding of each seed),
// and L_pop improves ranking — the full closure's reconstruction MAP (collapse gate: random ranking).
func ConeComparisons(r *wordnetbench.ConeResults, sc ConeScale) []reproduce.Comparison {
	seeds := r.Options.Seeds
	sample := func(name string, runs []wordnetbench.ConeRun, f func(wordnetbench.ConeRun) float64) reproduce.Sample {
		return reproduce.Sample{Name: name, Seeds: seeds, Learned: true, Values: collect(runs, f)}
	}
	inside := func(c wordnetbench.ConeRun) float64 { return c.HeldOut.Inside }
	mapOf := func(c wordnetbench.ConeRun) float64 { return c.Full.MAP }
	floor := reproduce.Sample{Name: "untrained", Seeds: seeds, Values: collect(r.Initial, func(e hierarchy.Entailment) float64 { return e.Inside })}
	const without, with = "w/o L_pop", "with L_pop"
	data := fmt.Sprintf("WordNet 3.0 mammal closure (real), Lorentz d = %d, %s scale: %d training pairs (every direct is-a link), %d implied pairs held out",
		sc.Dim, sc.Name, r.TrainPairs, r.HeldOutPairs)
	return []reproduce.Comparison{
		{Paper: PaperHLFormer, Claim: "L_pop makes the embedding respect the partial order: WordNet hypernym pairs held out of training lie inside the hypernym's entailment cone (§4.4, Fig. 5)",
			PaperFigure: "§4.4 and Fig. 5 (TVR): with L_pop \"the text query remains semantically embedded within the corresponding video\"; no number",
			Data:        data, Metric: "held-out pairs inside the cone (fraction)", Higher: true, Best: 1,
			A: sample(without, r.Without, inside), B: sample(with, r.With, inside), Floor: &floor},
		{Paper: PaperHLFormer, Claim: "L_pop improves ranking: reconstruction MAP of the full WordNet closure (held-out pairs included) with vs without L_pop (Table 2)",
			PaperFigure: "Table 2, (0) vs (5) w/o L_pop: Charades SumR 78.7 vs 77.6, TVR 187.7 vs 186.8",
			Data:        data, Metric: "full-closure MAP", Higher: true, Best: 1, Random: r.RandomMAP,
			A: sample(without, r.Without, mapOf), B: sample(with, r.With, mapOf)},
	}
}
