package gramstudy

import (
	"cmp"
	"fmt"
	"image/color"
	"math"
	"strings"

	"github.com/geoalign/geoalign/lib/models/gram"
	"github.com/geoalign/geoalign/lib/report"
	"github.com/geoalign/geoalign/lib/reproduce"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// KModalityLanguages are the spoken-caption languages of the k-modality study, in the order they
// are added: k = 2 is text–image, k = 3 adds the French spoken caption (the tri-modal Tux Paint set's
// modalities), k = 4 the Spanish and k = 5 the Russian one.
var KModalityLanguages = []string{"fr", "es", "ru"}

// TuxPaintLangs loads the multilingual Tux Paint set (the stamps spoken in every language of the
// tuxpaint-langs track) with the speech of KModalityLanguages, in their order, after text and image.
func (o Options) TuxPaintLangs() (*gram.Dataset, error) {
	return o.load(func(c string) (*gram.Dataset, error) { return TuxPaintLangsText(c, KModalityLanguages, o.Text) })
}

// paperTable4 is GRAM Table 4 (MSR-VTT zero-shot T2V R@1) by number of modalities k: text + video,
// + audio, + subtitles, + depth. Quoted, never computed.
var paperTable4 = map[int]string{2: "52.8", 3: "54.1", 4: "54.8", 5: "55.3"}

const (
	paperTable4Cite  = "GRAM Table 4 (MSR-VTT zero-shot T2V R@1: text+video, +audio, +subtitles, +depth)"
	paperTable4Claim = "MSR-VTT zero-shot T2V R@1 52.8 (k = 2) → 54.1 (k = 3) → 54.8 (k = 4) → 55.3 (k = 5) (GRAM Table 4)"
)

// KModalities holds the runs of the k-modality study: Runs[i] are the seeds of the model trained on
// the first K[i] modalities of Data.
type KModalities struct {
	Data    *gram.Dataset
	Variant Variant
	K       []int
	Runs    [][]*Run
}

// ModalityCount is GRAM Table 4's analogue with k = 2 … len(d.Modalities) on one set of stamps: for
// each k a model of variant v (GRAM in the study; the same seeds, epochs and split) is trained from
// scratch on the first k modalities of d, and evaluated with GRAM's protocol: the text (modality 0) queries the
// test tuples of the other k − 1 modalities jointly, ranked by −V of the k vectors (k = 2: the area
// |sin θ|). The claims "adding the (k+1)-th modality improves GRAM" compare k + 1 with k on T→data
// R@1, paired over seeds, for the claim rule. evalEvery > 0 also evaluates the test split every
// evalEvery epochs (a test curve; the validation curves are always kept: CurveRow).
func (o Options) ModalityCount(runs Runs, d *gram.Dataset, v Variant, evalEvery int) (*KModalities, []reproduce.Comparison, error) {
	km := &KModalities{Data: d, Variant: v}
	mods := []int{0} // the first k modalities
	for k := 2; k <= len(d.Modalities); k++ {
		mods = append(mods, k-1)
		rs, err := o.trainSubset(runs, d, mods, fmt.Sprintf("k = %d", k), v, evalEvery)
		if err != nil {
			return nil, nil, err
		}
		km.K, km.Runs = append(km.K, k), append(km.Runs, rs)
	}
	var claims []reproduce.Comparison
	for i := 0; i+1 < len(km.K); i++ {
		k := km.K[i]
		claim := fmt.Sprintf("adding %s to %s improves %s (%s, T→data R@1)", d.Modalities[k], strings.Join(d.Modalities[:k], "–"), v.Label, ShortName(d))
		claims = append(claims, Compare(PaperGRAM, claim, paperTable4Claim, d, T2DataR1,
			fmt.Sprintf("k = %d", k), km.Runs[i], fmt.Sprintf("k = %d", k+1), km.Runs[i+1]))
	}
	return km, claims, nil
}

// Table is the k-modality table: per k the modalities, the query, T→data R@1 and R@10, data→T R@1
// (mean ± std over seeds) and R@1 under random ranking of the same test split, beside GRAM Table 4.
func (km *KModalities) Table(o Options) *report.Table {
	d := km.Data
	items, notes := "stamps", []string{
		"every k trains its own model from scratch on the first k modalities, with the same stamps, split, seeds, epochs and configuration",
		"query: the English caption (text) ranks the test stamps by −V of (text, the stamp's other k − 1 modalities): the k − 1 modalities are retrieved jointly as one tuple (GRAM protocol, docs/official-code.md §1.6); data → text ranks the captions for each tuple; k = 2 is the area |sin θ| of text and image (GRAM App. A)",
		"as in GRAM Table 4 the retrieved tuple grows with k: a claim compares retrieval of the k-tuple with retrieval of the (k+1)-tuple, each by its own model",
		"the paper column is MSR-VTT with video, audio, subtitles and depth added in turn; here image, then the human-spoken caption in French, Spanish and Russian (the same caption, recorded by different speakers)"}
	if o.Tuples != "" { // a researcher's tuple directory: its modalities in modalities.txt's order
		items, notes = "tuples", []string{
			"every k trains its own model from scratch on the first k modalities of modalities.txt, with the same tuples, split, seeds, epochs and configuration",
			"query: the anchor (" + d.Modalities[0] + ") ranks the test tuples by −V of (anchor, the tuple's other k − 1 modalities), retrieved jointly as one tuple (GRAM protocol, docs/official-code.md §1.6); data → anchor ranks the anchors for each tuple; k = 2 is the area |sin θ| (GRAM App. A)",
			"as in GRAM Table 4 the retrieved tuple grows with k: a claim compares retrieval of the k-tuple with retrieval of the (k+1)-tuple, each by its own model",
			"the paper column is MSR-VTT with video, audio, subtitles and depth added in turn; here the modalities of modalities.txt in its order"}
	}
	t := report.NewTable(fmt.Sprintf("GRAM Table 4 analogue: k = 2 … %d modalities on the same %s (%s, R@K %%)", km.K[len(km.K)-1], items, km.Variant.Label),
		provenance(o, []*gram.Dataset{d}, km.Variant.on(o.Base).Config.Behavior(), notes...),
		"k", "modalities", "T→data R@1", "T→data R@10", "data→T R@1", "random R@1")
	t.AddPaperColumn("T2V R@1 (paper)", paperTable4Cite)
	for i, k := range km.K {
		rs := km.Runs[i]
		random := fmt.Sprintf("%.1f", T2DataR1.Random(rs[0].Test))
		t.AddRow(k, strings.Join(d.Modalities[:k], " + "), Cell(rs, T2DataR1), Cell(rs, T2VR10), Cell(rs, V2TR1), random, cmp.Or(paperTable4[k], "—"))
	}
	return t
}

// Plot is R@1 against k, mean ± standard error over seeds, for both directions, with the random
// ranking level of the test split.
func (km *KModalities) Plot() (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s: %s R@1 vs number of modalities k", ShortName(km.Data), km.Variant.Label)
	p.X.Label.Text = "modalities k (text, image, speech fr, es, ru …)"
	p.Y.Label.Text = "R@1 (%), mean ± s.e. over seeds"
	for c, m := range []Metric{T2DataR1, {Name: "data→T R@1", K: 1, V2T: true}} {
		xys := make(plotter.XYs, len(km.K))
		errs := make(plotter.YErrors, len(km.K))
		for i, k := range km.K {
			s := report.Summarize(Values(km.Runs[i], m))
			se := s.Std / math.Sqrt(float64(s.N))
			xys[i] = plotter.XY{X: float64(k), Y: s.Mean}
			errs[i].Low, errs[i].High = se, se
		}
		l, pts, err := plotter.NewLinePoints(xys)
		if err != nil {
			return nil, err
		}
		l.Color, pts.Color, pts.Shape = plotutil.Color(c), plotutil.Color(c), plotutil.Shape(c)
		l.Width = vg.Points(1.5)
		p.Add(l, pts)
		if err := report.AddErrorBars(p, xys, errs, plotutil.Color(c)); err != nil {
			return nil, err
		}
		p.Legend.Add(m.Name, l, pts)
	}
	level := T2DataR1.Random(km.Runs[0][0].Test)
	rl, err := plotter.NewLine(plotter.XYs{{X: float64(km.K[0]), Y: level}, {X: float64(km.K[len(km.K)-1]), Y: level}})
	if err != nil {
		return nil, err
	}
	rl.Color = color.Gray{Y: 120}
	rl.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	p.Add(rl)
	p.Legend.Add("random ranking", rl)
	p.X.Tick.Marker = report.WholeTicks                                     // k = 2, 3, …
	p.X.Min, p.X.Max = float64(km.K[0])-0.2, float64(km.K[len(km.K)-1])+0.2 // room for the end points' error bars
	p.Legend.Top, p.Legend.Left = false, false
	return p, nil
}

// CurveRow is the study's runs by k, for TrainingCurves and ConvergenceNotes.
func (km *KModalities) CurveRow() CurveRow {
	groups := map[string][]*Run{}
	for i, k := range km.K {
		groups[fmt.Sprintf("k = %d", k)] = km.Runs[i]
	}
	return CurveRow{Data: km.Data, Groups: groups}
}
