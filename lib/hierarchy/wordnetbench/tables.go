package wordnetbench

import (
	"fmt"
	"math"

	"github.com/geoalign/geoalign/lib/hierarchy"
	"github.com/geoalign/geoalign/lib/report"
)

// paperKey identifies a published cell.
type paperKey struct {
	model hierarchy.Manifold
	dim   int
}

// paperNouns holds the WordNet-noun reconstruction numbers (mean rank, MAP) of
// Nickel & Kiela 2017, Table 1, "WordNet Reconstruction" block, Euclidean and Poincaré rows (read
// from the crop of that table shipped by gensim as docs/notebooks/poincare/reconstruction_paper.png).
// The table covers dimensions 5, 10, 20, 50, 100 and 200; there is no 2-D column and no Lorentz
// row. Nickel & Kiela 2018 Table 1 (Lorentz) could not be retrieved with the tools available here,
// and neither paper reports numbers for the mammal closure.
var paperNouns = map[paperKey][2]float64{
	{hierarchy.Euclidean, 5}:   {3542.3, 0.024},
	{hierarchy.Euclidean, 10}:  {2286.9, 0.059},
	{hierarchy.Euclidean, 20}:  {1685.9, 0.087},
	{hierarchy.Euclidean, 50}:  {1281.7, 0.140},
	{hierarchy.Euclidean, 100}: {1187.3, 0.162},
	{hierarchy.Euclidean, 200}: {1157.3, 0.168},
	{hierarchy.Poincare, 5}:    {4.9, 0.823},
	{hierarchy.Poincare, 10}:   {4.02, 0.851},
	{hierarchy.Poincare, 20}:   {3.84, 0.855},
	{hierarchy.Poincare, 50}:   {3.98, 0.86},
	{hierarchy.Poincare, 100}:  {3.9, 0.857},
	{hierarchy.Poincare, 200}:  {3.83, 0.87},
}

// PaperCitation is the source of every paper cell.
const PaperCitation = "Nickel & Kiela 2017 (NeurIPS), Table 1, WordNet Reconstruction, WordNet noun closure " +
	"(Euclidean and Poincaré rows; no Lorentz row, no 2-D column; Nickel & Kiela 2018 Table 1 not retrieved here)"

// PaperNouns returns the published noun-closure (mean rank, MAP) for a model and dimension.
func PaperNouns(m hierarchy.Manifold, dim int) (meanRank, mapScore float64, ok bool) {
	v, ok := paperNouns[paperKey{m, dim}]
	return v[0], v[1], ok
}

// group is the runs sharing everything but the seed.
type group struct {
	cfg  hierarchy.Config
	runs []Run
}

func (r *Results) groups() []group {
	var out []group
	for _, run := range r.Runs {
		c := run.Config
		found := false
		for i := range out {
			g := out[i].cfg
			if g.Manifold == c.Manifold && g.Dim == c.Dim && g.DType == c.DType {
				out[i].runs = append(out[i].runs, run)
				found = true
				break
			}
		}
		if !found {
			out = append(out, group{cfg: c, runs: []Run{run}})
		}
	}
	return out
}

// Table is the reconstruction table: one row per model × dimension × dtype, mean ± std over seeds
// of mean rank and MAP, the training time per seed, and the published noun-closure numbers in
// paper columns.
func (r *Results) Table() *report.Table {
	var seeds []int64
	seen := map[int64]bool{}
	for _, run := range r.Runs {
		if !seen[run.Config.Seed] {
			seen[run.Config.Seed] = true
			seeds = append(seeds, run.Config.Seed)
		}
	}
	paperLabel := "nouns "
	if r.ClosureName == Noun {
		paperLabel = ""
	}
	var configs []hierarchy.Config
	for _, g := range r.groups() {
		configs = append(configs, g.cfg)
	}
	t := report.NewTable(fmt.Sprintf("WordNet %s closure: reconstruction", r.ClosureName), report.Provenance{
		Data:     r.Description,
		Kind:     report.Real,
		Seeds:    seeds,
		Config:   configs,
		Behavior: presetBehaviour(r.Preset),
		Notes: []string{
			"Mean rank: over every closure edge (u, v), 1 + the number of non-parents of u closer to u than v; MAP: mean over nodes of the average precision of ranking u's parents (facebookresearch/poincare-embeddings hype/graph.py).",
			"Time: training wall time per seed on this machine (2 cores), excluding evaluation.",
			"Euclidean uses the squared distance of the official code (hype/manifolds/euclidean.py).",
		},
	}, "Model", "Dim", "DType", "Epochs", "Mean rank", "MAP", "Train s/seed")
	t.AddPaperColumn(paperLabel+"MR (paper)", PaperCitation)
	t.AddPaperColumn(paperLabel+"MAP (paper)", PaperCitation)
	if len(r.Runs) > 0 {
		ev := r.Runs[0].Result
		what := "every node with a parent"
		if r.EvalSample > 0 {
			what = fmt.Sprintf("a fixed random sample (seed 42) of %d nodes with a parent, as reconstruction.py -sample", r.EvalSample)
		}
		t.Provenance.Notes = append(t.Provenance.Notes, fmt.Sprintf("Evaluated: %s — %d nodes, %d edges ranked.", what, ev.Nodes, ev.Edges))
	}
	if r.ClosureName != Noun {
		t.Provenance.Notes = append(t.Provenance.Notes,
			"Neither paper reports mammal-closure numbers: the paper columns are the noun closure's (82,115 nodes, 743,086 edges), for orientation only; the mammal closure is a far smaller and easier hierarchy.")
	}
	for _, g := range r.groups() {
		var mr, mp, secs []float64
		for _, run := range g.runs {
			mr = append(mr, run.Result.MeanRank)
			mp = append(mp, run.Result.MAP)
			secs = append(secs, run.TrainSeconds)
		}
		paperMR, paperMAP := "—", "—"
		if a, b, ok := PaperNouns(g.cfg.Manifold, g.cfg.Dim); ok {
			paperMR, paperMAP = fmt.Sprint(a), fmt.Sprint(b)
		}
		t.AddRow(string(g.cfg.Manifold), g.cfg.Dim, dtypeName(g.cfg.DType), g.cfg.Epochs,
			report.Summarize(mr).Format(3), report.Summarize(mp).Format(4),
			fmt.Sprintf("%.1f", report.Summarize(secs).Mean), paperMR, paperMAP)
	}
	return t
}

func presetBehaviour(p string) string {
	if p == "code" {
		return "official code (facebookresearch/poincare-embeddings train-mammals.sh / train-nouns.sh settings: 50 negatives, burn-in 20 epochs at lr×0.01)"
	}
	return "paper (Nickel & Kiela 2017 §4: 10 negatives, burn-in 10 epochs at lr/10, init U(−0.001, 0.001)); sampler details as the official code"
}

// StabilityTable renders hierarchy.MeasureStability rows: the distance error of two points at
// true distance 1, both at hyperbolic radius r from the origin, per model and dtype, and the size
// and float32 error of the distance's gradient.
func StabilityTable(rows []hierarchy.StabilityRow, c float64) *report.Table {
	t := report.NewTable("Numerical stability at large norms: |d̂ − 1| for two points at true distance 1", report.Provenance{
		Data:     "synthetic 2-D point pairs at hyperbolic radius r from the origin, built in float64 from closed forms and rounded to the dtype",
		Kind:     report.Synthetic,
		Config:   map[string]float64{"curvature c": c},
		Behavior: "lib/geom LorentzDistance (space coordinates, x·y − x₀y₀) and PoincareDistance (official-code boundary clamp c‖p‖² ≤ 1 − 1e-5)",
		Notes: []string{
			"radial: points at radii r and r+1 on one ray; tangential: two points at radius r whose angle makes their distance 1 (law of cosines).",
			"‖x‖ Lorentz is the norm of the hyperboloid's space part, sinh(√c r)/√c; ‖p‖ Poincaré is tanh(√c r/2)/√c.",
			"‖∂d/∂x‖ is the Euclidean norm of the distance's gradient with respect to the stored coordinates (float64); err32 is the relative error of the float32 gradient against the float64 one.",
			fmt.Sprintf("The Poincaré boundary clamp of lib/geom holds every point beyond r = %.2f at that radius, so distances there are wrong in any dtype.", hierarchy.PoincareClampRadius(c)),
			"NaN: the computed value was not finite.",
		},
	}, "r", "‖x‖ Lorentz", "‖p‖ Poincaré",
		"Lorentz f32 radial", "Lorentz f64 radial", "Poincaré f32 radial", "Poincaré f64 radial",
		"Lorentz f32 tangential", "Lorentz f64 tangential", "Poincaré f32 tangential", "Poincaré f64 tangential",
		"‖∂d/∂x‖ Lorentz", "‖∂d/∂x‖ Poincaré", "grad err32 Lorentz", "grad err32 Poincaré")
	e := func(v float64) string {
		if math.IsNaN(v) {
			return "NaN"
		}
		return fmt.Sprintf("%.1e", v)
	}
	for _, s := range rows {
		cells := []any{fmt.Sprint(s.Radius), fmt.Sprintf("%.4g", s.LorentzNorm), fmt.Sprintf("%.12f", s.PoincareNorm)}
		for _, k := range hierarchy.StabilityKeys {
			cells = append(cells, e(s.Radial[k]))
		}
		for _, k := range hierarchy.StabilityKeys {
			cells = append(cells, e(s.Tangential[k]))
		}
		cells = append(cells, e(s.GradNorm["lorentz"]), e(s.GradNorm["poincare"]), e(s.GradError32["lorentz"]), e(s.GradError32["poincare"]))
		t.AddRow(cells...)
	}
	return t
}

// DefaultStabilityRadii are the radii of the stability table.
var DefaultStabilityRadii = []float64{0.5, 1, 2, 4, 6, 8, 10, 12, 13, 15, 20, 30}
