package garestudy

import (
	"fmt"
	"slices"
	"strings"

	"github.com/geoalign/geoalign/lib/data"
	"github.com/geoalign/geoalign/lib/models/gare"
	"github.com/geoalign/geoalign/lib/report"
	"github.com/geoalign/geoalign/lib/reproduce"
	"github.com/geoalign/geoalign/lib/retrieval"
	"github.com/geoalign/geoalign/lib/runcache"
	"gonum.org/v1/plot"
)

// addTable adds table t of runs r to sec as name and, beside it, its learning curves (addCurves).
func addTable(sec *reproduce.Section, name string, t *report.Table, r *Runs) error {
	sec.Table(name, t)
	return addCurves(sec, name, t.Title, r)
}

// addCurves adds the learning-curve figures of runs r (Runs.LearningCurves of title) to sec as
// name-curves-loss and name-curves-val.
func addCurves(sec *reproduce.Section, name, title string, r *Runs) error {
	loss, val, err := r.LearningCurves(title)
	if err != nil {
		return err
	}
	sec.Plot(name+"-curves-loss", loss)
	sec.Plot(name+"-curves-val", val)
	return nil
}

// ablation is one table of runs of the paper's variants, saved as name: Runs.Table titled title,
// citing cite, with the suite's provenance (the learning-curve note, then notes); claims are its
// comparisons on R@1, each {claim, the paper's figure, row A, row B}: "row B beats row A", and
// findings its descriptive findings (nil: none).
type ablation struct {
	name, title, cite string
	variants          []Variant
	notes             []string
	claims            [][4]string
	findings          func(r *Runs) []reproduce.Claim
}

// add runs a (RunTable, labelled label) and adds its table, learning curves and claims to sec.
func (s *Suite) add(sec *reproduce.Section, label string, a ablation) error {
	r, err := s.RunTable(label, a.variants)
	if err != nil {
		return err
	}
	if err := addTable(sec, a.name, r.Table(a.title, s.Provenance(append([]string{r.CurveNote(a.name)}, a.notes...)...), a.cite), r); err != nil {
		return err
	}
	for _, c := range a.claims {
		sec.Comparisons = append(sec.Comparisons, r.Compare(c[0], c[1], r.Find(c[2]), r.Find(c[3]), R1))
	}
	if a.findings != nil {
		sec.Findings = append(sec.Findings, a.findings(r)...)
	}
	return nil
}

// Table3 is the loss ladder (GARE Table 3). GARE vs the baseline is Table 1's claim (the same runs):
// declared there only, so the Holm family counts it once.
func (s *Suite) Table3() (*reproduce.Section, error) {
	sec := &reproduce.Section{Title: "Table 3: loss ladder"}
	err := s.add(sec, "Table 3", ablation{"table3", "GARE Table 3 analogue: losses combination (text→video)", CiteTable3, Table3Variants(), nil, [][4]string{
		{"Δ alone improves over the baseline", "46.6 → 47.4 R@1", RowBaseline, RowDelta},
		{"L_IB on top of Δ improves further", "47.4 → 48.3 R@1", RowDelta, RowIB},
		{"adding L_ε alone to Δ improves R@1 (the paper finds no gain: a significant gain here would disagree with it)",
			"47.4 → 47.2 R@1: \"adding the norm constraint … alone yields no gain\"", RowDelta, "+Δ +L_ε"},
		{"adding L_dir alone to Δ improves R@1 (the paper finds no gain: a significant gain here would disagree with it)",
			"47.4 → 47.0 R@1: \"… or the directional diversity regularizer alone yields no gain\"", RowDelta, "+Δ +L_dir"},
		{"all terms together beat Δ + L_IB", "48.3 → 49.1 R@1", RowIB, RowAll},
	}, nil})
	return sec, err
}

// Table1 is the Table 1 analogue: baseline and GARE, both directions.
func (s *Suite) Table1() (*reproduce.Section, error) {
	r, err := s.RunTable("Table 1", Table1Variants())
	if err != nil {
		return nil, err
	}
	// The columns' metrics, both directions: R@1, R@5, R@10, MdR, MnR.
	var metrics []Metric
	for _, v2t := range []bool{false, true} {
		dir, name := direction(v2t), map[bool]string{false: "t2v", true: "v2t"}[v2t]
		for _, k := range []int{1, 5, 10} {
			metrics = append(metrics, recall(fmt.Sprintf("%s R@%d", name, k), k, v2t))
		}
		metrics = append(metrics, Metric{Name: name + " MdR", Of: func(res Result) float64 { return dir(res.Report).MdR }, Decimals: 1},
			Metric{Name: name + " MnR", Of: func(res Result) float64 { return dir(res.Report).MnR }, Decimals: 1})
	}
	t := report.NewTable("GARE Table 1 analogue: text→video and video→text retrieval", s.Provenance(r.CurveNote("table1")),
		append([]string{"method"}, reproduce.MetricNames(metrics)...)...)
	t.AddPaperColumn("t2v R@1 (paper)", CiteTable1).AddPaperColumn("v2t R@1 (paper)", CiteTable1)
	paperV2T := []string{"45.6", "48.6"}
	r.addRows(t, metrics, func(v int) []string { return []string{r.Variants[v].Paper[0], paperV2T[v]} })
	if s.PaperData != "" { // the data are the paper's: does each row agree with its t2v R@1?
		reproduce.AddAgreement(t, "t2v R@1", func(i int) string {
			if i >= len(r.Results) {
				return "" // a floor
			}
			return reproduce.AgreesWithPaper(mapped(r.Results[i].Results, R1.Of), r.Variants[i].Paper[0])
		})
	}
	sec := &reproduce.Section{Title: "Table 1: baseline vs GARE"}
	if err := addTable(sec, "table1", t, r); err != nil {
		return nil, err
	}
	sec.Comparisons = append(sec.Comparisons, r.BeatsFloor(0, R1),
		r.Compare("GARE beats the baseline text→video", "46.6 → 49.1 R@1", 0, 1, R1),
		r.Compare("GARE beats the baseline video→text", "45.6 → 48.6 R@1", 0, 1, V2TR1),
		r.Compare("GARE lowers the text→video mean rank", "12.6 → 12.0 MnR", 0, 1, MnR))
	return sec, nil
}

// Ablations are Tables 4/7, 5, 6, 8 and 9.
func (s *Suite) Ablations() (*reproduce.Section, error) {
	sec := &reproduce.Section{Title: "Tables 4/7, 5, 6, 8, 9: ψ inputs, query, IB prior, α, KL anchor"}
	t7, t6, t8 := "t-corrected, C = V_frame, η = +1 (code)", "σ = 1 (code)", "α = 2 (code)" // the code's rows
	list := []ablation{
		{"table7", "GARE Tables 4/7 analogue: ψ's context, gap sign η and corrected side", CiteTable7, Table7Variants(), nil, [][4]string{
			{"for t-correction, video frames as context beat text words", "48.2 → 49.1 R@1 at η = +1", "t-corrected, C = T_word, η = +1", t7},
			{"η = +1 (v − t) beats η = −1 with frame context", "47.8 → 49.1 R@1", "t-corrected, C = V_frame, η = −1", t7},
			{"correcting t beats correcting v with frame context", "47.5 → 49.1 R@1", "v-corrected, C = V_frame, η = +1", t7},
		}, nil},
		{"table5", "GARE Table 5 analogue: ψ's query", CiteTable5, Table5Variants(), []string{Table5Note}, [][4]string{
			{"the gap query beats the no-gap query t_i", "46.1 → 49.1 R@1 (the 46.1 row mitigates the raw form, which §4.4 says degrades severely)",
				"query = t_i (no gap), raw Δ = v̄_j − t′_ij", "query = v̄_j − t_i (code)"},
		}, nil},
		{"table6", "GARE Table 6 analogue: IB prior N(0, σ²I) and normalised Δ", CiteTable6, Table6Variants(), nil, [][4]string{
			{"σ = 1 beats σ = 0.1", "47.7 → 49.1 R@1", "σ = 0.1", t6},
			{"σ = 1 beats σ = 10", "48.1 → 49.1 R@1", "σ = 10", t6},
			{"unnormalised Δ beats normalised Δ", "47.8 → 49.1 R@1", "normalised Δ, σ = 1", t6},
		}, nil},
		// "α = 2 is best" is tested against the paper's runner-up, chosen before seeing our runs;
		// our own sweep's best is reported, not tested (choosing it from these runs would bias the test).
		{"table8", "GARE Table 8 analogue: α of L_dir and strict orthogonality", CiteTable8, Table8Variants(), nil, [][4]string{
			{"α = 2 beats α = 1, the paper's runner-up", "48.5 → 49.1 R@1 (α = 2 best of the sweep)", "α = 1", t8},
			{"log-mean-exp L_dir beats strict orthogonality", "47.7 → 49.1 R@1", "strict orthogonality L_orth", t8},
		}, func(r *Runs) []reproduce.Claim {
			means := mapped(r.Results, func(runs reproduce.Runs[Result]) float64 { return runs.Summary(R1).Mean })
			best := r.Results[slices.Index(means, slices.Max(means))] // the first of the highest
			return []reproduce.Claim{describe("the best α of the sweep", "α = 2 (49.1 R@1; next α = 1: 48.5)", dataOf(r),
				fmt.Sprintf("highest mean R@1: %s, %s; α = 2: %s", best.Name, best.Summary(R1).Format(1), r.Results[r.Find(t8)].Summary(R1).Format(1)))}
		}},
		{"table9", "GARE Table 9 analogue: anchor of the relaxed KL", CiteTable9, Table9Variants(), nil, [][4]string{
			{"anchoring the KL on videos beats anchoring it on texts", "47.9 → 49.1 R@1", "anchor t", "anchor v (code)"},
		}, nil},
	}
	for _, a := range list {
		if err := s.add(sec, a.name, a); err != nil {
			return nil, err
		}
	}
	return sec, nil
}

// trained returns the first-seed models of the baseline and of GARE (code configuration), trained
// under the protocol (cached with the tables).
func (s *Suite) trained() (base, withDelta *gare.Model, err error) {
	seed := s.Scale.Seeds[0]
	rb, err := s.Protocol.Run(s.Backend, gare.BaselineConfig(s.Base), s.Train, s.Test, seed)
	if err != nil {
		return nil, nil, err
	}
	rg, err := s.Protocol.Run(s.Backend, s.Base, s.Train, s.Test, seed)
	if err != nil {
		return nil, nil, err
	}
	return rb.Model, rg.Model, nil
}

// Gradients is the optimisation-tension picture (GARE Fig. 2, 4, 7) from our trained models: per
// dimension, positive vs summed negative gradients on t_i (baseline) and on Δ_ij (GARE), and the
// total gradient on t_i.
func (s *Suite) Gradients() (*reproduce.Section, error) {
	base, withDelta, err := s.trained()
	if err != nil {
		return nil, err
	}
	batches := 4
	gb, err := Gradients("baseline", base, s.Train, batches, s.Scale.Batch, 1)
	if err != nil {
		return nil, err
	}
	gg, err := Gradients("GARE", withDelta, s.Train, batches, s.Scale.Batch, 1)
	if err != nil {
		return nil, err
	}
	t := report.NewTable("Gradient statistics on training batches (per-anchor loss B·L_info, after training)", s.Provenance(
		fmt.Sprintf("%d batches of %d training pairs (%d anchors); first seed's models.", batches, s.Scale.Batch, gb.Anchors)),
		"model", "node", "‖positive‖", "‖Σ negatives‖", "cos(positive, Σ negatives)", "‖pos + Σ neg‖ / (‖pos‖ + ‖Σ neg‖)",
		"mean ‖single negative‖", "max ‖single negative‖", "‖total on t_i‖", "mean_d |E[total_d]|")
	row := func(g *GradientStats, node string) {
		t.AddRow(g.Name, node, f3(g.PosNorm), f3(g.NegNorm), f3(g.CosPosNeg), f3(g.Cancellation), f3(g.NegPairNorm), f3(g.NegPairMaxNorm),
			f3(g.TotNorm), fmt.Sprintf("%.4f", meanAbs(g.TotMean)))
	}
	row(gb, "t_i (through s_ij)")
	row(gg, "t_i + Δ_ij (= on Δ_ij)")
	sec := &reproduce.Section{Title: "Fig. 2, 4, 7: gradient statistics", Artifacts: []reproduce.Artifact{
		{Name: "gradients-table", Table: t},
		{Name: "fig2-baseline-mean", Figure: GradientFigure(gb, false, "t_i")},
		{Name: "fig2-baseline-variance", Figure: GradientFigure(gb, true, "t_i")},
		{Name: "fig4-gare-mean", Figure: GradientFigure(gg, false, "t_i + Δ_ij (on Δ_ij)")},
		{Name: "fig4-gare-variance", Figure: GradientFigure(gg, true, "t_i + Δ_ij (on Δ_ij)")},
		{Name: "fig7-total-gradient", Figure: TotalGradientFigure(gb, gg)},
	}}
	seed := s.Scale.Seeds[0]
	data := fmt.Sprintf("%s: %d anchors of %s, seed %d's models", s.Train.Kind, gb.Anchors, s.Train.Name, seed)
	sec.Findings = []reproduce.Claim{
		describe("Fig. 2: on the baseline's t_i the positive and the summed negative gradients are nearly collinear and opposite, and largely cancel",
			"collinear and opposite; per-dimension magnitudes 40–60 cancel to 2–3 (≈ 5%)", data,
			fmt.Sprintf("cos(pos, Σ neg) = %.3f, ‖pos + Σ neg‖/(‖pos‖ + ‖Σ neg‖) = %.3f", gb.CosPosNeg, gb.Cancellation)),
		describe("Fig. 7: with Δ the total gradient on t_i stays closer to zero per dimension than the baseline's", "GARE's gradients on t_i remain centred around zero", data,
			fmt.Sprintf("mean_d |E[∂/∂t_i]| = %.4f (GARE) vs %.4f (baseline)", meanAbs(gg.TotMean), meanAbs(gb.TotMean))),
	}
	one := []int64{seed}
	sec.Comparisons = []reproduce.Comparison{{Paper: Paper, Data: data,
		Claim:       "Fig. 4: with Δ each negative increment Δ_ij receives ≈ 1/B of the positive's gradient",
		PaperFigure: "+g on Δ_ii, ≈ −g/B on each Δ_ij, so ≈ 2|g| of non-cancelling gradient per anchor",
		Metric:      "gradient norm on Δ (per anchor)",
		A:           reproduce.Sample{Name: "‖∂/∂Δ_ii‖", Seeds: one, Values: []float64{gg.PosNorm}},
		B:           reproduce.Sample{Name: "(B − 1) × mean_{j≠i} ‖∂/∂Δ_ij‖", Seeds: one, Values: []float64{gg.NegPairNorm * float64(s.Scale.Batch-1)}},
		Tautology: "in softmax cross-entropy the negatives' logit gradients sum to the positive's (Σ_{j≠i} p_ij = 1 − p_ii, per row and per column), " +
			"and Δ_ij enters only s_ij, so each Δ_ij receives its own pair's share, ≈ 1/(B − 1) of the positive's gradient up to the spread of " +
			"‖∂s_ij/∂Δ_ij‖: true of any model with a per-pair increment",
	}}
	return sec, nil
}

func f3(x float64) string { return fmt.Sprintf("%.3f", x) }

// Geometry is GARE Fig. 3 on the test set (first ProbePairs pairs), (a)–(d): positive cosines;
// ‖t_i + Δ_ij‖ vs ‖t_i‖ on negatives and on positives; ‖t + Δ − v‖ vs ‖t − v‖.
func (s *Suite) Geometry() (*reproduce.Section, error) {
	base, withDelta, err := s.trained()
	if err != nil {
		return nil, err
	}
	n, test := min(s.Scale.ProbePairs*4, s.Test.NumTexts), s.Test
	if test.VideoOf != nil {
		return nil, fmt.Errorf("geometry needs a paired test set")
	}
	gb, err := base.Geometry(test, n)
	if err != nil {
		return nil, err
	}
	gg, err := withDelta.Geometry(test, n)
	if err != nil {
		return nil, err
	}
	posB, _ := gare.PositiveNegative(gb.Cos)
	posG, _ := gare.PositiveNegative(gg.Cos)
	adjPos, adjNeg := gare.PositiveNegative(gg.AdjustedNorm)
	distPos, distNeg := gare.PositiveNegative(gg.Dist)
	basePos, baseNeg := gare.PositiveNegative(gg.BaseDist)
	sec := &reproduce.Section{Title: "Fig. 3: geometry of Δ on test pairs"}
	for i, f := range []*plot.Plot{
		HistogramFigure("(a) cosine similarity of positive pairs", "S_ii", 30, []string{"baseline", "GARE"}, posB, posG),
		HistogramFigure("(b) norms on negative pairs", "norm", 30, []string{"‖t_i‖", "‖t_i + Δ_ij‖"}, gg.TextNorm, adjNeg),
		HistogramFigure("(c) norms on positive pairs", "norm", 30, []string{"‖t_i‖", "‖t_i + Δ_ii‖"}, gg.TextNorm, adjPos),
		HistogramFigure("(d) distance to the pooled video", "distance", 30,
			[]string{"‖t − v‖ positives", "‖t + Δ − v‖ positives", "‖t − v‖ negatives", "‖t + Δ − v‖ negatives"}, basePos, distPos, baseNeg, distNeg),
	} {
		sec.Plot(fmt.Sprintf("fig3%c", 'a'+i), f)
	}
	data := fmt.Sprintf("%s: first %d pairs of %s, seed %d's models", test.Kind, n, test.Name, s.Scale.Seeds[0])
	sec.Findings = []reproduce.Claim{
		describe("Fig. 3a: GARE's positive pairs have lower cosine similarity than the baseline's", "lower (larger angular separation)", data,
			fmt.Sprintf("mean S_ii %.3f (GARE) vs %.3f (baseline)", mean(posG), mean(posB))),
		describe("Fig. 3b/c: ‖t + Δ‖ exceeds ‖t‖ on negatives and positives", "larger norms for t_Δ", data,
			fmt.Sprintf("‖t + Δ‖ %.2f (neg), %.2f (pos) vs ‖t‖ %.2f", mean(adjNeg), mean(adjPos), mean(gg.TextNorm))),
		describe("Fig. 3d: t + Δ lies farther from the pooled video than t", "t_Δ pushed outward from v_j", data,
			fmt.Sprintf("‖t + Δ − v‖ %.2f vs ‖t − v‖ %.2f (pos), %.2f vs %.2f (neg)", mean(distPos), mean(basePos), mean(distNeg), mean(baseNeg))),
	}
	return sec, nil
}

// Dynamics is GARE Fig. 8: a GARE stage-2 run (first seed) probed every DynamicsEvery steps.
func (s *Suite) Dynamics() (*reproduce.Section, error) {
	seed := s.Scale.Seeds[0]
	key, err := s.Protocol.cacheKey(fmt.Sprintf("dynamics-%d-%d", s.Scale.ProbePairs, s.Scale.DynamicsEvery), s.Base, s.Train, s.Test, seed)
	if err != nil {
		return nil, err
	}
	if key != "" {
		key += ".gob"
	}
	pts, err := runcache.Memo(key, func() ([]DynamicsPoint, error) {
		return Dynamics(s.Backend, s.Protocol, s.Base, s.Train, seed, s.Scale.ProbePairs, s.Scale.DynamicsEvery)
	})
	if err != nil {
		return nil, err
	}
	sec := &reproduce.Section{Title: "Fig. 8: training dynamics of Δ"}
	for i, f := range DynamicsFigures(pts) {
		sec.Plot(fmt.Sprintf("fig8%c", 'a'+i), f)
	}
	first, last := pts[0], pts[len(pts)-1]
	data := fmt.Sprintf("%s: first %d training pairs of %s, seed %d", s.Train.Kind, s.Scale.ProbePairs, s.Train.Name, seed)
	sec.Findings = []reproduce.Claim{
		describe("Fig. 8a: the angle between Δ and v̄ − t starts near 90° and ends obtuse", "≈ π/2 at initialisation, then obtuse for positives and negatives", data,
			fmt.Sprintf("%.1f° → %.1f° (positives), %.1f° → %.1f° (negatives)", first.AngleGapPos, last.AngleGapPos, first.AngleGapNeg, last.AngleGapNeg)),
		describe("Fig. 8a: late in training positives have smaller angles to the gap than negatives", "slightly smaller for positives", data,
			fmt.Sprintf("%.2f° vs %.2f°", last.AngleGapPos, last.AngleGapNeg)),
		describe("Fig. 8c: t + Δ operates at a larger norm than t", "t_new has larger norms", data,
			fmt.Sprintf("‖t + Δ‖ %.2f (pos) / %.2f (neg) vs ‖t‖ %.2f at the end", last.AdjNormPos, last.AdjNormNeg, last.TextNorm)),
		describe("Fig. 8d: ‖t + Δ − v‖ > ‖t − v‖ for positives and negatives, positives closer than negatives", "distances grow under Δ; positives stay closer", data,
			fmt.Sprintf("%.2f vs %.2f (pos), %.2f vs %.2f (neg)", last.DistPos, last.BaseDistPos, last.DistNeg, last.BaseDistNeg)),
	}
	return sec, nil
}

// TwoStageSection is the coverage curve of the two-stage mode (GARE Appendix I).
func (s *Suite) TwoStageSection() (*reproduce.Section, error) {
	_, withDelta, err := s.trained()
	if err != nil {
		return nil, err
	}
	ks := []int{16, 32, 64, 128, 256}
	pts, full, cheap, err := TwoStage(withDelta, s.Test, ks)
	if err != nil {
		return nil, err
	}
	t := report.NewTable("Two-stage retrieval: cos(t_i, v̄_j) shortlist of K, GARE re-rank", s.Provenance(
		"First seed's GARE model; coverage = share of the full GARE ranking's top-10 inside the shortlist."),
		"K", "coverage of top-10", "queries with all 10 covered", "re-ranked R@1", "re-ranked R@5", "re-ranked R@10", "full GARE R@1", "cosine-only R@1")
	for _, p := range pts {
		t.AddRow(p.K, fmt.Sprintf("%.1f%%", 100*p.Coverage), fmt.Sprintf("%.1f%%", 100*p.Complete), fmt.Sprintf("%.1f", p.Reranked.R(1)),
			fmt.Sprintf("%.1f", p.Reranked.R(5)), fmt.Sprintf("%.1f", p.Reranked.R(10)), fmt.Sprintf("%.1f", full.R(1)), fmt.Sprintf("%.1f", cheap.R(1)))
	}
	last := pts[len(pts)-1]
	sec := &reproduce.Section{Title: "Appendix I: two-stage retrieval", Artifacts: []reproduce.Artifact{
		{Name: "two-stage-table", Table: t},
		{Name: "two-stage-coverage", Figure: CoverageFigure(pts, full.R(1), cheap.R(1))},
	}}
	sec.Findings = []reproduce.Claim{describe(fmt.Sprintf("the top-%d cosine candidates contain all of GARE's top-10 for every query", last.K), "MSR-VTT 1k-A: the top-256 candidates by t_i include all of GARE's top-10", fmt.Sprintf("%s: %s, seed %d's GARE model", s.Test.Kind, s.Test.Name, s.Scale.Seeds[0]),
		fmt.Sprintf("%.1f%% of queries fully covered, %.1f%% of top-10 entries covered, over %d videos; re-ranked R@1 %.1f vs full %.1f",
			100*last.Complete, 100*last.Coverage, s.Test.NumVideos, last.Reranked.R(1), full.R(1)))}
	return sec, nil
}

// SyntheticSection is the false-negative benchmark.
func (s *Suite) SyntheticSection() (*reproduce.Section, error) {
	st, err := s.Synthetic()
	if err != nil {
		return nil, err
	}
	sec := &reproduce.Section{Title: "Synthetic false negatives", Artifacts: []reproduce.Artifact{{Name: SyntheticName, Table: st.Table()}},
		Comparisons: st.Comparisons()}
	for i, r := range st.Runs {
		if err := addCurves(sec, st.curveName(i), fmt.Sprintf("Synthetic false negatives, rate %.2f", st.Rates[i]), r); err != nil {
			return nil, err
		}
	}
	return sec, nil
}

// LongerName is the file name (under figures/gare/) of the longer-training check's table; its
// learning curves are LongerName-curves-{loss,val}.
const LongerName = "longer-training"

// LongerTraining is issue 19's convergence check of stage 2 ("the best epoch is not the last, or
// more epochs are run"). The code's warmup-cosine schedule anneals the learning rate to 0 at the
// last step, so stage 2's best validation epoch is usually its last, and whether the curve is flat
// there is a judgement on one epoch (report.EndOfCurves). This section runs the more epochs instead:
// Table 1's variants are trained again for Scale.Epochs + Scale.ExtraEpochs stage-2 epochs — same
// learning rate and seeds, same stage-1 encoders, the schedule stretched over the longer run — and
// each kept (best-validation) model is compared, seed by seed, with Table 1's on the validation split
// (the split that selects epochs; the test split is only reported, beside its floor). The claims
// "longer training raises the validation SumR" go through the one rule with the paper's others.
func (s *Suite) LongerTraining() (*reproduce.Section, error) {
	short, err := s.RunTable("Table 1", Table1Variants())
	if err != nil {
		return nil, err
	}
	longer := make([]Variant, len(short.Variants))
	for i, v := range short.Variants {
		cfg := short.Config(i)
		cfg.Epochs += s.Scale.ExtraEpochs
		longer[i] = Variant{Name: v.Name, Paper: v.Paper, Apply: func(c *gare.Config) { *c = cfg }}
	}
	n, m := s.Scale.Epochs, s.Scale.Epochs+s.Scale.ExtraEpochs
	long, err := s.RunTable(fmt.Sprintf("%d stage-2 epochs", m), longer)
	if err != nil {
		return nil, err
	}
	// both: every variant at both lengths, as the table's rows and the learning curves' lines.
	both := &Runs{Base: short.Base, Train: short.Train, Test: short.Test, Floor: short.Floor}
	for v, variant := range short.Variants {
		for _, r := range []*Runs{short, long} {
			runs := r.Results[v]
			runs.Name = fmt.Sprintf("%s, %d epochs", variant.Name, r.Config(v).Epochs)
			both.Variants = append(both.Variants, Variant{Name: runs.Name, Apply: r.Variants[v].Apply})
			both.Results = append(both.Results, runs)
		}
	}
	t := report.NewTable(fmt.Sprintf("GARE stage 2 trained longer: %d vs %d epochs (Table 1's variants, validation split)", n, m),
		s.Provenance(
			fmt.Sprintf("Each variant of Table 1 trained for %d stage-2 epochs (the scale's recipe, the runs of Table 1) and for %d (same lr %g and seeds, the warmup-cosine schedule stretched to the longer run); everything else as Table 1.", n, m, s.Scale.LR),
			"validation SumR: text→video R@1 + R@5 + R@10 of the kept model (the best validation epoch) on the validation split; Δ is the seed-paired difference, longer − recipe (mean ± s.d.). The claim rule decides whether the longer run is better (REPORT.md); the test R@1 is only reported.",
			both.CurveNote(LongerName)),
		"variant", "stage-2 epochs", "kept epoch per seed", "validation SumR", "Δ validation SumR", "test t2v R@1")
	for v, runs := range both.Results {
		kept := mapped(runs.Results, func(res Result) string { return fmt.Sprint(res.BestEpoch()) })
		delta := "—"
		if v%2 == 1 { // the longer run of a variant, after its recipe run
			delta = reproduce.Paired(both.Results[v-1], runs, validationSumR).Format(2)
		}
		t.AddRow(runs.Name, both.Config(v).Epochs, strings.Join(kept, ", "), runs.Summary(validationSumR).Format(1), delta, runs.Summary(R1).Format(1))
	}
	t.AddRow(s.Floor.Name, "—", "—", "—", "—", fmt.Sprintf("%.1f", R1.Of(s.Floor.result())))
	sec := &reproduce.Section{Title: fmt.Sprintf("Longer training: stage 2 for %d vs %d epochs", n, m)}
	if err := addTable(sec, LongerName, t, both); err != nil {
		return nil, err
	}
	nVal := valPairs(s.Base, s.Train.NumTexts)
	for v, variant := range short.Variants {
		c := reproduce.Comparison{Paper: Paper, Claim: fmt.Sprintf("training %s's stage 2 for %d epochs instead of %d raises its validation SumR", variant.Name, m, n),
			PaperFigure: "— (not a claim of the paper: issue 19's check that stage 2 has converged)",
			Data:        fmt.Sprintf("%s: validation split of %s (%d pairs, %g %% of the %d training pairs, carved by data.CarveValidation)", s.Train.Kind, s.Train.Name, nVal, 100*s.Base.ValFraction, s.Train.NumTexts),
			Random:      reproduce.RandomSumR(nVal, retrieval.TextVideoKs...)}
		sec.Comparisons = append(sec.Comparisons, reproduce.Compare(c, both.Results[2*v], both.Results[2*v+1], validationSumR))
	}
	return sec, nil
}

// validationSumR is the validation SumR of stage 2's kept model (its last Best record: the best so
// far, so the largest; 0 without one).
var validationSumR = Metric{Name: "validation t2v SumR", Decimals: 1, Higher: true, Best: 300, Of: func(res Result) float64 {
	if k := Kept(res.Curve); k != nil {
		return k.Val[retrieval.ValMetric]
	}
	return 0
}}

// valPairs is the number of validation pairs the protocol carves from n training pairs (newRun)
// (data.CarveValidation; 0 when it cannot carve any).
func valPairs(cfg gare.Config, n int) int {
	_, val, err := data.CarveValidation(n, cfg.ValFraction)
	if err != nil {
		return 0
	}
	return len(val)
}

// Named lists the study's sections in the notebook's order, Table 1 first (Sections are their
// names).
func (s *Suite) Named() []reproduce.NamedSection {
	return []reproduce.NamedSection{{Name: "table1", Run: s.Table1}, {Name: "table3", Run: s.Table3}, {Name: "gradients", Run: s.Gradients},
		{Name: "ablations", Run: s.Ablations}, {Name: "geometry", Run: s.Geometry}, {Name: "dynamics", Run: s.Dynamics},
		{Name: "two-stage", Run: s.TwoStageSection}, {Name: "synthetic", Run: s.SyntheticSection}, {Name: "longer-training", Run: s.LongerTraining}}
}

// Sections are the names of Suite.Named, in order (derived from it: one list).
var Sections = reproduce.Names((&Suite{}).Named())
