package hlformerstudy

import (
	"fmt"
	"image/color"
	"io"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/geoalign/geoalign/lib/models/hlformer"
	"github.com/geoalign/geoalign/lib/report"
	"github.com/geoalign/geoalign/lib/reproduce"
	"github.com/gomlx/compute"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// Study runs the experiments of the HLFormer reproduction on one setup and scale, caching every
// variant's runs so that tables and figures share them. Suite's sections call it.
type Study struct {
	Backend compute.Backend
	Setup   *Setup
	Scale   Scale
	Seeds   []int64
	Log     io.Writer
	// CacheDir, if set, holds a checkpoint per run in <CacheDir>/hlformer/<key>/ (runDir): an interrupted
	// study resumes, and finished runs are only re-evaluated.
	CacheDir string
	// Base, if set, is the run configuration every variant starts from (`--config`); nil: the
	// scale's (Scale.RunConfig on the setup's widths). BaseNotes says which of its fields a variant
	// overrides (Study.Provenance shows them).
	Base      *hlformer.RunConfig
	BaseNotes []string
	// PaperData, if set, names the data set of the paper's tables the setup is (PaperData's keys):
	// the tables then say whether each row agrees with the paper's number (reproduce.AgreementRule).
	PaperData  string
	configFile string // the file of Base, for error messages
	runs       map[string]*Runs
}

// BaseConfig is the run configuration every variant starts from: Base, else the scale's.
func (s *Study) BaseConfig() hlformer.RunConfig {
	if s.Base != nil {
		return *s.Base
	}
	return s.Scale.RunConfig(s.Setup.Train.Dim, s.Setup.Train.QueryDim)
}

// NewStudy prepares a study; seeds nil means the scale's, cacheDir "" checkpoints nothing (CacheDir).
func NewStudy(be compute.Backend, setup *Setup, scale Scale, seeds []int64, log io.Writer, cacheDir string) *Study {
	return &Study{Backend: be, Setup: setup, Scale: scale, Seeds: orDefault(seeds, scale.Seeds), Log: log,
		CacheDir: cacheDir, runs: map[string]*Runs{}}
}

// Claimed reports whether variant v is compared by the claim rule at the study's scale (Scale.Claims;
// the full model always is): it is trained on every seed of Seeds, else on SweepSeeds only.
func (s *Study) Claimed(v Variant) bool {
	return s.Scale.Claims == nil || v.Name == HybridVariant.Name || slices.Contains(s.Scale.Claims, v.Name)
}

// SweepSeeds are the seeds of the descriptive variants: the first Scale.SweepSeeds of Seeds (all when 0).
func (s *Study) SweepSeeds() []int64 {
	if n := s.Scale.SweepSeeds; n > 0 && n < len(s.Seeds) {
		return s.Seeds[:n]
	}
	return s.Seeds
}

// Run trains variant v on every seed of Seeds when it is Claimed, else on SweepSeeds (once: results
// are cached by variant name).
func (s *Study) Run(v Variant) (*Runs, error) {
	if r, ok := s.runs[v.Name]; ok {
		return r, nil
	}
	seeds := s.Seeds
	if !s.Claimed(v) {
		seeds = s.SweepSeeds()
	}
	r, err := runVariant(s.Backend, s.Setup, s.BaseConfig(), v, seeds, s.CacheDir, s.Log)
	if err != nil {
		return nil, err
	}
	s.runs[v.Name] = r
	return r, nil
}

// runAll runs each of variants once (Run), in order, skipping repeated names.
func (s *Study) runAll(variants []Variant) ([]*Runs, error) {
	var runs []*Runs
	for _, v := range variants {
		if slices.ContainsFunc(runs, func(r *Runs) bool { return r.Variant.Name == v.Name }) {
			continue
		}
		r, err := s.Run(v)
		if err != nil {
			return nil, err
		}
		runs = append(runs, r)
	}
	return runs, nil
}

// Provenance is the provenance of every table of the study.
func (s *Study) Provenance(notes ...string) report.Provenance {
	notes = slices.DeleteFunc(slices.Concat(s.BaseNotes, notes), func(n string) bool { return n == "" }) // an absent note (floorNote without floors)
	var config any = s.Scale
	if s.Base != nil {
		config = struct {
			Scale Scale
			Base  hlformer.RunConfig
		}{s.Scale, *s.Base}
	}
	return report.Provenance{
		Data: s.Setup.Data, Kind: s.Setup.Kind, Seeds: s.Seeds, Config: config,
		Behavior: "official code (docs/official-code.md §3): the code's Gaussian mask, Lorentz logits (2 + 2⟨q,k⟩_L)/s + b, HyboNet Lorentz linear, " +
			"MAIM with branch-softmax temperature 0.6, POP with the video as apex and learned curvature in [0.1, 10], multi-positive NCE " +
			"without temperature, triplet with the hard-negative curriculum, query diversity with the focal factor, S = 0.7 S_c + 0.3 S_f, " +
			"BertAdam without bias correction and per-tensor clipping; Charades loss weights (λ_c 0.02, λ_f 0.04, λ₁ 3e-3, λ₂ 1e-3, m 0.2)",
		Notes: append([]string{s.Scale.Describe(), "Model selection: best epoch by validation SumR (the validation split is carved from train by video, prvr.CarveValidation; the code selects on its val = test split); metrics of the selected model on the test split, text→video through lib/retrieval (ties pessimistic).",
			s.seedsNote()}, notes...),
	}
}

// seedsNote says which variants are trained on which seeds.
func (s *Study) seedsNote() string {
	if s.Scale.Claims == nil || len(s.SweepSeeds()) == len(s.Seeds) {
		return fmt.Sprintf("Every variant is trained on seeds %v.", s.Seeds)
	}
	return fmt.Sprintf("Claimed variants (compared by the claim rule): the full model and %s, on seeds %v; every other variant is DESCRIPTIVE "+
		"(a point of a figure's shape, never evidence), trained on seeds %v only.", strings.Join(s.Scale.Claims, ", "), s.Seeds, s.SweepSeeds())
}

// Table1 is the Table 1 analogue: zero-training floors, MS-SL-like, Euclidean-only (GMMFormer-like) and
// HLFormer, mean ± std over seeds, with the paper's Charades SumR in a paper column.
func (s *Study) Table1() (*report.Table, error) {
	runs, err := s.runAll(Table1Variants)
	if err != nil {
		return nil, err
	}
	return s.paperTable(fmt.Sprintf("HLFormer Table 1 analogue — %s (%s scale)", s.Setup.Name, s.Scale.Name), s.Provenance(), runs, 0), nil
}

// paperTable is the MetricsTable of runs with the floors of the setup and the paper's Charades-STA
// SumR of Table table+1 (0: Table 1, 1: Table 2; none on synthetic data) in the paper column, and
// with Study.PaperData the agreement of each row with it (addAgreement).
func (s *Study) paperTable(title string, prov report.Provenance, runs []*Runs, table int) *report.Table {
	paper := PaperData[PaperCharadesSTA][table]
	cite := [2]string{PaperTable1Cite, PaperTable2Cite}[table]
	switch s.Setup.Kind {
	case report.Synthetic:
		if table == 0 { // Table 2 has only ever run on Charades-STA
			paper = nil
		}
	case report.Real:
		cite = [2]string{PaperTable1CiteReal, PaperTable2Cite}[table]
	}
	if s.PaperData != "" {
		paper = PaperData[s.PaperData][table]
	}
	if n := s.Setup.FloorNote(); n != "" && s.Setup.Kind == report.Real {
		prov.Notes = append(prov.Notes, n)
	}
	t := MetricsTable(title, prov, runs, s.Setup.Floors, paper, cite)
	if s.PaperData != "" {
		addAgreement(t, len(s.Setup.Floors), runs, paper)
	}
	return t
}

// PaperHLFormer names the claims of this study in claims.json and REPORT.md: the claim rule's Holm
// family is one paper's claims.
const PaperHLFormer = "HLFormer (ICCV 2025)"

// short is r with the variant's short name (ShortName), as the claims name their samples.
func (r *Runs) short() reproduce.Runs[Run] {
	s := r.Runs
	s.Name = ShortName(s.Name)
	return s
}

// Floor is the strongest zero-training floor of the setup's test split by SumR, as a sample of the
// claim rule (one deterministic value); nil without floors (synthetic data).
func (s *Study) Floor() *reproduce.Sample {
	var best *reproduce.Sample
	for _, name := range slices.Sorted(maps.Keys(s.Setup.Floors)) {
		v := s.Setup.Floors[name].SumR
		if best == nil || v > best.Values[0] {
			best = &reproduce.Sample{Name: name, Seeds: []int64{0}, Values: []float64{v}}
		}
	}
	return best
}

// Compare declares the claim "better beats worse" on SumR over the study's seeds for the claim rule,
// with the zero-training floor of the same split, SumR's best (400) and its random-ranking level.
func (s *Study) Compare(claim, paper string, worse, better Variant) (reproduce.Comparison, error) {
	for _, v := range []Variant{worse, better} {
		if !s.Claimed(v) {
			return reproduce.Comparison{}, fmt.Errorf("hlformer: %q is descriptive at the %s scale (not in Scale.Claims): it is not compared", v.Name, s.Scale.Name)
		}
	}
	rw, err := s.Run(worse)
	if err != nil {
		return reproduce.Comparison{}, err
	}
	rb, err := s.Run(better)
	if err != nil {
		return reproduce.Comparison{}, err
	}
	c := reproduce.Compare(s.sumRClaim(claim, paper), rw.short(), rb.short(), SumR)
	c.Floor = s.Floor()
	return c, nil
}

// sumRClaim is the claim "… beats …" on the study's data before its samples (reproduce.Compare adds
// them), with SumR's level under random ranking of the test videos.
func (s *Study) sumRClaim(claim, paper string) reproduce.Comparison {
	return reproduce.Comparison{Paper: PaperHLFormer, Claim: claim, PaperFigure: paper, Data: s.data(), Random: SumR.RandomLevel(0, s.Setup.Test.NumVideos())}
}

// comparison is the claim "b's metric is higher than a's" for the claim rule, on the study's data.
func (s *Study) comparison(claim, paper, metric string, a, b reproduce.Sample) reproduce.Comparison {
	return reproduce.Comparison{Paper: PaperHLFormer, Claim: claim, PaperFigure: paper, Data: s.data(), Metric: metric, Higher: true, A: a, B: b}
}

// data names the study's data in its claims.
func (s *Study) data() string {
	return fmt.Sprintf("%s, %s scale (%s)", s.Setup.Name, s.Scale.Name, s.Setup.Kind)
}

// BeatsFloor declares the claim "v beats the zero-training floor of the same split" (issue 19;
// reproduce.BeatsFloor: a one-sample test against the deterministic floor).
func (s *Study) BeatsFloor(v Variant, paper string) (reproduce.Comparison, error) {
	f := s.Floor()
	if f == nil {
		return reproduce.Comparison{}, fmt.Errorf("hlformer: setup %q has no zero-training floor", s.Setup.Name)
	}
	r, err := s.Run(v)
	if err != nil {
		return reproduce.Comparison{}, err
	}
	return reproduce.BeatsFloor(s.sumRClaim(ShortName(v.Name)+" beats the zero-training floor of the same split", paper), *f, r.short(), SumR), nil
}

// ShortName is a variant's name up to its first parenthesis or comma, as the claims name it.
func ShortName(n string) string {
	if i := strings.IndexAny(n, "(,"); i > 0 {
		return strings.TrimSpace(n[:i])
	}
	return n
}

// Table2 is the ablation table (HLFormer Table 2): the rows of Table2Rows, with the paper's Charades
// SumR in a paper column; sec gets the comparisons of the full model with each Claimed ablation (the
// others are descriptive rows: trained on SweepSeeds, no claim).
func (s *Study) Table2(sec *reproduce.Section) (*report.Table, error) {
	runs, err := s.runAll(s.Table2Rows())
	if err != nil {
		return nil, err
	}
	var descriptive []string
	for _, r := range runs {
		v := r.Variant
		if !s.Claimed(v) {
			descriptive = append(descriptive, fmt.Sprintf("%q (seeds %v)", v.Name, r.Seeds))
			continue
		}
		if v.Name != HybridVariant.Name {
			c, err := s.Compare("The full HLFormer beats the ablation \""+v.Name+"\" (Table 2)",
				"Charades SumR "+PaperTable2SumR[HybridVariant.Name]+" (full) vs "+PaperTable2SumR[v.Name]+", Table 2", v, HybridVariant)
			if err != nil {
				return nil, err
			}
			sec.Comparisons = append(sec.Comparisons, c)
		}
	}
	var notes []string
	if len(descriptive) > 0 {
		notes = append(notes, "Descriptive rows (fewer seeds, no claim): "+strings.Join(descriptive, ", ")+".")
	}
	return s.paperTable(fmt.Sprintf("HLFormer Table 2 analogue (ablations) — %s (%s scale)", s.Setup.Name, s.Scale.Name), s.Provenance(notes...), runs, 1), nil
}

// Table2Rows are the variants of Table 2 at the study's scale: the full model, then Scale.Ablations
// (every ablation of Table2Variants when nil), in Table2Variants' order.
func (s *Study) Table2Rows() []Variant {
	return slices.DeleteFunc(slices.Clone(Table2Variants), func(v Variant) bool {
		return v.Name != HybridVariant.Name && s.Scale.Ablations != nil && !slices.Contains(s.Scale.Ablations, v.Name)
	})
}

// floorNote is the note of a SumR-only table (Fig. 3, Fig. 6): the strongest zero-training floor of
// the same test split (Floor), which every point must beat to be evidence; "" without floors.
func (s *Study) floorNote() string {
	if f := s.Floor(); f != nil {
		return fmt.Sprintf("Zero-training floor of the same test split: %s, SumR %.2f.", f.Name, f.Values[0])
	}
	return ""
}

// lorentzOnlyName names Fig. 3's N_L = 8, N_E = 0 point.
const lorentzOnlyName = "Lorentz-only (8 Lorentz branches)"

// branchVariant is a variant with nE Euclidean and nL Lorentz branches, widths cycling None/2/4/8.
func branchVariant(nE, nL int) Variant {
	widths := func(n int) []float64 { // the first n of PaperWidths repeated (n > 0 here)
		return slices.Repeat(hlformer.PaperWidths, n/len(hlformer.PaperWidths)+1)[:n]
	}
	switch {
	case nE == 4 && nL == 4:
		return HybridVariant
	case nE == 0 && nL == 8:
		return Variant{Name: lorentzOnlyName, Config: func(c hlformer.Config) hlformer.Config { return c.LorentzOnly() }}
	case nE == 8 && nL == 0:
		return EuclideanOnlyVariant
	}
	return Variant{Name: fmt.Sprintf("N_E = %d, N_L = %d", nE, nL), Config: func(c hlformer.Config) hlformer.Config {
		c.EuclideanWidths, c.LorentzWidths = widths(nE), widths(nL)
		return c
	}}
}

// figure3Axes are the x values of Fig. 3's two sweeps: the branch counts N_O (Scale.BranchCounts, else
// 2, 4, 8) and the Lorentz branch counts N_L at N_O = 8 (Scale.LorentzBranches, else 0, 2, 4, 6, 8).
func (s *Study) figure3Axes() (counts, ratios []int) {
	return orDefault(s.Scale.BranchCounts, []int{2, 4, 8}), orDefault(s.Scale.LorentzBranches, []int{0, 2, 4, 6, 8})
}

// orDefault is xs, or def when xs is nil.
func orDefault[T any](xs, def []T) []T {
	if xs == nil {
		return def
	}
	return xs
}

// countSplit and ratioSplit are the (N_E, N_L) of a point of Fig. 3's sweeps: N_O branches split
// evenly, and N_L Lorentz branches of 8.
func countSplit(no int) (nE, nL int) { return no / 2, no / 2 }
func ratioSplit(nl int) (nE, nL int) { return 8 - nl, nl }

// figure3Claims are Fig. 3's comparisons with the full model (made when the other point is Claimed).
var figure3Claims = []struct {
	claim string
	worse Variant
}{
	{"At N_O = 8, the hybrid split N_L = N_E = 4 beats Euclidean-only blocks (Fig. 3)", branchVariant(8, 0)},
	{"At N_O = 8, the hybrid split N_L = N_E = 4 beats Lorentz-only blocks (Fig. 3)", branchVariant(0, 8)},
	{"N_O = 8 branches beat N_O = 2 (performance grows with N_O up to 8, Fig. 3)", branchVariant(1, 1)},
}

// Figure3Variants are the variants Fig. 3 trains, in its order: the branch-count sweep, the split
// sweep, then the Claimed points its comparisons need and the full model.
func (s *Study) Figure3Variants() []Variant {
	counts, ratios := s.figure3Axes()
	vs := slices.Concat(collect(counts, func(x int) Variant { return branchVariant(countSplit(x)) }),
		collect(ratios, func(x int) Variant { return branchVariant(ratioSplit(x)) }))
	for _, c := range figure3Claims {
		if s.Claimed(c.worse) {
			vs = append(vs, c.worse, HybridVariant)
		}
	}
	return vs
}

// Figure3 is HLFormer Fig. 3: SumR against the number of branches N_O (at N_L = N_E; Scale.BranchCounts)
// and against the Lorentz/Euclidean split N_L : N_E at N_O = 8 (Scale.LorentzBranches). It adds the
// two plots (fig3-branches, fig3-ratio) and the comparisons of the Claimed points with the full model
// to sec, and returns the table of the points.
func (s *Study) Figure3(sec *reproduce.Section) (*report.Table, error) {
	t := report.NewTable(fmt.Sprintf("HLFormer Fig. 3 analogue — SumR vs branches (%s scale)", s.Scale.Name), s.Provenance(s.floorNote()), "sweep", "N_E", "N_L", "SumR")
	counts, ratios := s.figure3Axes()
	// sweep runs the points (N_E, N_L) = split(x) for x in xs, adds them to the table as rows of the
	// sweep named label and plots SumR (mean ± std) against x as sec's plot name.
	sweep := func(name, label, title, xlabel string, xs []int, split func(x int) (nE, nL int)) error {
		var runs []*Runs
		for _, x := range xs {
			nE, nL := split(x)
			r, err := s.Run(branchVariant(nE, nL))
			if err != nil {
				return err
			}
			t.AddRow(label, nE, nL, r.Cell(SumR))
			runs = append(runs, r)
		}
		p, _, err := sumRPlot(title, xlabel, collect(xs, func(x int) float64 { return float64(x) }), runs)
		sec.Plot(name, p)
		return err
	}
	if err := sweep("fig3-branches", "N_O (N_L = N_E)", "SumR vs number of branches N_O (N_L = N_E)", "N_O", counts, countSplit); err != nil {
		return nil, err
	}
	if err := sweep("fig3-ratio", "N_L : N_E at N_O = 8", "SumR vs Lorentz branches N_L (N_O = 8)", "N_L (N_E = 8 − N_L)", ratios, ratioSplit); err != nil {
		return nil, err
	}
	for _, c := range figure3Claims {
		if !s.Claimed(c.worse) {
			continue // a descriptive point of the sweep
		}
		cmp, err := s.Compare(c.claim, "Fig. 3 (Charades): 4:4 best, SumR grows with N_O up to 8", c.worse, HybridVariant)
		if err != nil {
			return nil, err
		}
		sec.Comparisons = append(sec.Comparisons, cmp)
	}
	return t, nil
}

// sumRPlot plots the test SumR of runs (mean ± std over seeds, with error bars) against xs.
func sumRPlot(title, xlabel string, xs []float64, runs []*Runs) (*plot.Plot, []plot.Thumbnailer, error) {
	var xys plotter.XYs
	var errs plotter.YErrors
	for i, r := range runs {
		ms := r.Summary(SumR)
		xys = append(xys, plotter.XY{X: xs[i], Y: ms.Mean})
		errs = append(errs, struct{ Low, High float64 }{ms.Std, ms.Std})
	}
	p := plot.New()
	p.Title.Text, p.X.Label.Text, p.Y.Label.Text = title, xlabel, "SumR (mean ± std)"
	l, sc, err := plotter.NewLinePoints(xys)
	if err != nil {
		return nil, nil, err
	}
	p.Add(l, sc)
	return p, []plot.Thumbnailer{l, sc}, report.AddErrorBars(p, xys, errs, color.Black)
}

// SigmaSweep are the uniform Gaussian widths of Fig. 6 (every branch of both kinds gets the same width).
var SigmaSweep = []float64{0.5, 1, 2, 4, 8, 16}

// widths are the uniform Gaussian widths of Fig. 6 at the study's scale (Scale.Widths, else SigmaSweep).
func (s *Study) widths() []float64 { return orDefault(s.Scale.Widths, SigmaSweep) }

// uniformWidth is the variant whose 8 branches all use Gaussian width w.
func uniformWidth(w float64) Variant {
	return Variant{Name: fmt.Sprintf("uniform width %g", w), Config: func(c hlformer.Config) hlformer.Config {
		c.EuclideanWidths, c.LorentzWidths = []float64{w, w, w, w}, []float64{w, w, w, w}
		return c
	}}
}

// Figure6Variants are the variants Fig. 6 trains, in its order: the uniform widths, then the full
// model (the reference line).
func (s *Study) Figure6Variants() []Variant {
	return append(collect(s.widths(), uniformWidth), HybridVariant)
}

// Figure6 is HLFormer Fig. 6: SumR when all 8 branches use the same Gaussian width σ (Scale.Widths,
// SigmaSweep when nil), plus the default mixed widths None/2/4/8 as a reference line; it adds the plot
// (fig6) to sec and returns the table. The claim compares the full model with the uniform width of the
// best validation SumR (selected on the validation split, never on test), when that variant is
// Claimed; otherwise the sweep is descriptive (no comparison).
func (s *Study) Figure6(sec *reproduce.Section) (*report.Table, error) {
	t := report.NewTable(fmt.Sprintf("HLFormer Fig. 6 analogue — uniform Gaussian width sweep (%s scale)", s.Scale.Name), s.Provenance(
		"Width in the code's units: σ = width/9 on positions normalised to [0, 1].", s.floorNote()), "width", "SumR")
	runs, err := s.runAll(s.Figure6Variants()) // the widths, then the full model
	if err != nil {
		return nil, err
	}
	widths, ref := runs[:len(runs)-1], runs[len(runs)-1]
	best := widths[0]
	for i, r := range widths {
		if r.Summary(valSumR).Mean > best.Summary(valSumR).Mean {
			best = r
		}
		t.AddRow(s.widths()[i], r.Cell(SumR))
	}
	rms := ref.Summary(SumR)
	t.AddRow("mixed None/2/4/8 (default)", ref.Cell(SumR))
	xs := collect(s.widths(), math.Log2)
	p, line, err := sumRPlot("SumR vs uniform Gaussian width", "log₂ width", xs, widths)
	if err != nil {
		return nil, err
	}
	refLine, err := plotter.NewLine(plotter.XYs{{X: xs[0], Y: rms.Mean}, {X: xs[len(xs)-1], Y: rms.Mean}})
	if err != nil {
		return nil, err
	}
	refLine.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	refLine.Color = color.RGBA{R: 200, A: 255}
	p.Add(refLine)
	p.Legend.Add("uniform width", line...)
	p.Legend.Add("default mixed widths", refLine)
	sec.Plot("fig6", p)
	if !s.Claimed(best.Variant) {
		return t, nil
	}
	// The uniform width is the best of the sweep on the validation split, so the comparison favours it.
	cmp, err := s.Compare("Multi-scale Gaussian widths (None/2/4/8) beat the best single uniform width ("+best.Variant.Name+") (Fig. 6)",
		"Fig. 6 (Charades): mixed widths best", best.Variant, HybridVariant)
	sec.Comparisons = []reproduce.Comparison{cmp}
	return t, err
}

// collect is f of every element of xs, in order.
func collect[T, U any](xs []T, f func(T) U) []U {
	out := make([]U, len(xs))
	for i, x := range xs {
		out[i] = f(x)
	}
	return out
}
