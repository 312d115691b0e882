package garestudy

import (
	"fmt"
	"slices"

	"github.com/geoalign/geoalign/lib/data/tracks"
	"github.com/geoalign/geoalign/lib/encoders"
	"github.com/geoalign/geoalign/lib/models/gare"
	"github.com/geoalign/geoalign/lib/report"
	"github.com/geoalign/geoalign/lib/reproduce"
	"github.com/gomlx/compute"
)

// Suite is one reproduction of the GARE studies at a scale on one data source (DataSource: the
// Charades track, or a researcher's feature directory): the data, the stage-2 base configuration
// and the protocol whose stage-1 models are shared by every table.
type Suite struct {
	Scale       Scale
	Backend     compute.Backend
	Train, Test *gare.Dataset
	Base        gare.Config
	Protocol    *Protocol
	WorkDir     string
	// Floor is the zero-training baseline of Test (ZeroTraining, or RandomFloor with MiniLM text; every
	// constructor sets it), shown in every table and claim.
	Floor *ZeroFloor
	// MoreFloors are further floors of Test shown in every table (DataSource.MoreFloors).
	MoreFloors []*ZeroFloor
	// Text is the encoder of the descriptions (zero value: GloVe), named in Provenance's data.
	Text encoders.Text
	// BaseNotes name the base configuration's origin (--config) in every table's notes.
	BaseNotes []string
	// PaperData is the data set of the paper's tables the data are (`--paper-data`; "": none):
	// Table 1 then has the agreement column.
	PaperData string

	source *DataSource
}

// DataSource is the data a Suite runs on and how its tables describe them: the paired training set
// (Train, VideoOf nil), the test set, the zero-training floors computed on Test, and the
// provenance's data line, kind and first notes. CharadesSource and FeatureDirSource build one.
type DataSource struct {
	Train, Test *gare.Dataset
	Floor       *ZeroFloor
	MoreFloors  []*ZeroFloor
	Data        string
	Kind        report.DataKind
	Notes       []string
	Text        encoders.Text
	// Words is Config.Words on this source (0: the scale's, CharadesWords).
	Words int
}

// CharadesFloor names the zero-training floor of the Charades track.
const CharadesFloor = "zero-training floor: cos(mean GloVe of the text, mean GloVe block of the video)"

// NewSuite loads the Charades track from cache (see CharadesData) at the scale's size and computes
// its zero-training floor (ZeroTraining on the mean-GloVe block of the label-derived features).
// workDir (may be empty) is the disk cache of datasets, runs and models shared by separate processes.
func NewSuite(b compute.Backend, s Scale, cache, workDir string) (*Suite, error) {
	return NewSuiteText(b, s, cache, workDir, encoders.GloVe)
}

// CharadesRandomFloor names the floor of the Charades track with MiniLM descriptions (RandomFloor).
const CharadesRandomFloor = "zero-training floor: no shared text–video space (MiniLM text), random ranking"

// NewSuiteText is NewSuite with the descriptions encoded by t (CharadesDataText). With MiniLM the
// texts share no space with the videos' GloVe block, so the floor is random ranking (RandomFloor).
func NewSuiteText(b compute.Backend, s Scale, cache, workDir string, t encoders.Text) (*Suite, error) {
	src, err := CharadesSource(b, s, cache, workDir, t)
	if err != nil {
		return nil, err
	}
	return NewSuiteFrom(b, s, src, workDir), nil
}

// CharadesSource is the Charades descriptions track of cache (CharadesDataText with encoder t, at
// the scale's size) as a DataSource: the floor reads the mean-GloVe block of the label-derived
// features (ZeroTraining at tracks.CharadesGloVeOffset), or is random ranking with MiniLM text.
func CharadesSource(b compute.Backend, s Scale, cache, workDir string, t encoders.Text) (*DataSource, error) {
	train, test, err := CharadesDataText(cache, workDir, s.CharadesTrain, s.CharadesTest, t)
	if err != nil {
		return nil, err
	}
	src := &DataSource{Train: train, Test: test, Text: t, Kind: report.LabelDerived, Data: charadesData(train, test, t),
		Notes: []string{"Label-derived video features: results are not comparable in level with the paper's CLIP ViT-B/32 numbers on MSR-VTT; compare directions of effects only."}}
	if t == encoders.GloVe {
		floor, err := ZeroTraining(b, test, tracks.CharadesGloVeOffset)
		if err != nil {
			return nil, err
		}
		src.Floor = &ZeroFloor{Name: CharadesFloor, Report: floor}
		return src, nil
	}
	floor, err := RandomFloor(test)
	if err != nil {
		return nil, err
	}
	src.Floor = &ZeroFloor{Name: CharadesRandomFloor, Report: floor}
	return src, nil
}

// charadesData is the provenance's data line of the Charades track.
func charadesData(train, test *gare.Dataset, t encoders.Text) string {
	text := "GloVe 100-d tokens" // the descriptions' features
	if t != encoders.GloVe {
		text = t.Describe() + " sentence embeddings (384-d)"
	}
	return fmt.Sprintf("Charades descriptions ↔ videos, official v1 split (%d train pairs, %d test texts × %d videos): real free-text descriptions as %s, label-derived video features (multi-hot actions ⊕ mean GloVe of their names, 12 segments)",
		train.NumTexts, test.NumTexts, test.NumVideos, text)
}

// NewSuiteOn is a suite on given paired train and test sets; the zero-training floor (named
// floorName) reads the frames' block that starts at floorOffset (see ZeroTraining). Its tables
// describe the data as the Charades track's.
func NewSuiteOn(b compute.Backend, s Scale, train, test *gare.Dataset, floorName string, floorOffset int, workDir string) (*Suite, error) {
	floor, err := ZeroTraining(b, test, floorOffset)
	if err != nil {
		return nil, err
	}
	return newSuite(b, s, train, test, &ZeroFloor{Name: floorName, Report: floor}, workDir), nil
}

func newSuite(b compute.Backend, s Scale, train, test *gare.Dataset, floor *ZeroFloor, workDir string) *Suite {
	return NewSuiteFrom(b, s, &DataSource{Train: train, Test: test, Floor: floor, Kind: report.LabelDerived,
		Data: charadesData(train, test, encoders.GloVe)}, workDir)
}

// NewSuiteFrom is a suite of scale s on src, its runs cached under workDir (may be empty): the
// scale's configuration on src's widths (Scale.Config; Frames is the data's, Words src.Words when
// set).
func NewSuiteFrom(b compute.Backend, s Scale, src *DataSource, workDir string) *Suite {
	base := s.Config(src.Train.TextDim, src.Train.VideoDim)
	base.Frames = src.Train.Frames
	if src.Words > 0 {
		base.Words = src.Words
	}
	p := s.Protocol(base)
	p.CacheDir = workDir
	return &Suite{Scale: s, Backend: b, Train: src.Train, Test: src.Test, Base: base, Protocol: p, WorkDir: workDir,
		Floor: src.Floor, MoreFloors: src.MoreFloors, Text: src.Text, source: src}
}

// SetBase makes cfg the stage-2 base configuration of every variant (`--config`), notes naming it.
func (s *Suite) SetBase(cfg gare.Config, notes []string) {
	s.Base, s.BaseNotes = cfg, notes
	p := s.Scale.Protocol(cfg)
	p.CacheDir = s.WorkDir
	s.Protocol = p
}

// Behavior is the provenance line shared by every table.
const Behavior = "official code (docs/official-code.md §4): ψ with 1 head, shared pre-LN, softmax over frames, dropout 0.3; " +
	"pooled video with temperature 3, mask after softmax; gap = unmasked frame mean − text; L_IB KL summed over dims " +
	"with unbiased std + 1e-6, β = 1e-4; L_ε hard cut-off at −0.5; L_dir mean including j = k, α = 2; logit scale 100; " +
	"BertAdam (β₂ 0.98, wd 0.2, warmup_cosine 0.1, global + per-tensor clip 1.0)"

// Provenance describes a table computed on the suite's data (its DataSource's data line, kind and
// first notes).
func (s *Suite) Provenance(notes ...string) report.Provenance {
	return report.Provenance{
		Data:     s.source.Data,
		Kind:     s.source.Kind,
		Seeds:    s.Scale.Seeds,
		Config:   s.Base,
		Behavior: Behavior,
		Notes: slices.Concat(s.source.Notes, []string{
			"No CLIP here: learned projections of the given features, pretrained as the baseline (stage 1, " +
				fmt.Sprintf("%d epochs at lr %g", s.Scale.PretrainEpochs, s.Scale.PretrainLR) + ") stand in for CLIP; each row is stage 2 from those encoders (see study.Protocol).",
			"Stage 2: " + Describe(s.Base, s.Train, s.Test) + "; projections at lr " + fmt.Sprint(s.Base.ProjectionLearningRate) + ".",
			TrainingNote, SelectionNote(s.Base), s.Scale.TuningNote(), s.Floor.note(),
			"Text→video R@K / MnR (1-based ranks, ties counted pessimistically) unless the column says v2t.",
		}, s.BaseNotes, notes),
	}
}

// TrainingNote states, in every table's notes, which training step produced the numbers.
const TrainingNote = "Training step: the single-graph step (garestudy.StudyStep = gare.SingleGraphStep) in both stages; " +
	"gare.Model.Train's default, the chunked step, computes the same gradient but draws ψ's dropout from another random stream."

// SelectionNote states, in every table's notes, how the evaluated model was chosen (see Protocol).
func SelectionNote(cfg gare.Config) string {
	return fmt.Sprintf("Model selection on the validation split, never the test split: %g %% of the training pairs (Config.ValFraction), "+
		"carved out by data.CarveValidation (a fixed permutation, the same pairs in both stages) and not trained on; after every epoch "+
		"the loop evaluates text→video SumR on it (retrieval.ValMetric) and keeps the best epoch's model: stage 2 starts from stage 1's best, "+
		"and the test split is evaluated once, on stage 2's best (deviation: the official code evaluates on the test set every 150 steps "+
		"and keeps the best test R@1, docs/official-code.md §4.4).", 100*cfg.ValFraction)
}

func (f *ZeroFloor) note() string {
	return fmt.Sprintf("Floor: %s, on the same test split, nothing learned (garestudy.ZeroTraining); every claim on this split prints it.", f.Name)
}

// RunTable runs a list of variants on the suite's data.
func (s *Suite) RunTable(label string, variants []Variant) (*Runs, error) {
	return RunVariants(s.Backend, s.Protocol, s.Train, s.Test, variants, RunOptions{Label: label, Floor: s.Floor, MoreFloors: s.MoreFloors})
}

// SyntheticStudy is the false-negative benchmark: baseline vs GARE at several false-negative rates.
type SyntheticStudy struct {
	Rates []float64
	Runs  []*Runs // per rate: variants baseline (0) and GARE (1)
	Scale Scale
}

// SyntheticFloor names the zero-training floor of the synthetic benchmark: its text and frame
// features come through different random projections, so the floor is near random ranking.
const SyntheticFloor = "zero-training floor: cos(text feature, mean frame feature)"

// Synthetic runs the false-negative benchmark of the scale (data seed 7; model seeds as usual).
func (s *Suite) Synthetic() (*SyntheticStudy, error) {
	st := &SyntheticStudy{Rates: s.Scale.FalseNegativeRates, Scale: s.Scale}
	for _, rate := range st.Rates {
		train, test, err := SyntheticData(s.Scale.SynthPairs, s.Scale.SynthTrain, rate, 7)
		if err != nil {
			return nil, err
		}
		sub, err := NewSuiteOn(s.Backend, s.Scale, train, test, SyntheticFloor, 0, s.WorkDir)
		if err != nil {
			return nil, err
		}
		r, err := sub.RunTable(fmt.Sprintf("synthetic FN %.2f", rate), Table1Variants())
		if err != nil {
			return nil, err
		}
		st.Runs = append(st.Runs, r)
	}
	return st, nil
}

// SyntheticName is the file name of the synthetic study's table; its learning curves are
// SyntheticName-<rate>-curves-{loss,val}.
const SyntheticName = "synthetic-false-negatives"

// curveName is the base name of the learning curves of rate i.
func (st *SyntheticStudy) curveName(i int) string {
	return fmt.Sprintf("%s-%.2f", SyntheticName, st.Rates[i])
}

// Table tabulates the synthetic study: per false-negative rate, baseline and GARE R@1 (mean ± std),
// the paired gain and the zero-training floor.
func (st *SyntheticStudy) Table() *report.Table {
	r0, c := st.Runs[0], SyntheticConfig(0, 0, 7)
	prov := report.Provenance{
		Data: fmt.Sprintf("synthetic false-negative pairs (lib/data/synth GeneratePairs, data seed 7): %d train pairs, test = one pair per concept among the rest; "+
			"%d-d latent concepts, %d-d text and %d × %d-d frames through random projections, modality gap %g, noise %g/%g, frame jitter %g",
			r0.Train.NumTexts, c.LatentDim, c.TextDim, c.Frames, c.FrameDim, c.Gap, c.TextNoise, c.FrameNoise, c.FrameJitter),
		Kind: report.Synthetic, Seeds: st.Scale.Seeds, Config: r0.Base, Behavior: Behavior,
		Notes: []string{"Same two-stage protocol as the Charades tables; " + Describe(r0.Base, r0.Train, r0.Test) + ".",
			TrainingNote, SelectionNote(r0.Base), st.Scale.TuningNote(), r0.Floor.note()},
	}
	t := report.NewTable("Synthetic false negatives: baseline vs GARE", prov,
		"false-negative rate", "false-negative train pairs", "baseline R@1", "GARE R@1", "GARE − baseline R@1 (paired)", "baseline MnR", "GARE MnR",
		"floor R@1", "floor MnR")
	for i, r := range st.Runs {
		t.Provenance.Notes = append(t.Provenance.Notes, fmt.Sprintf("Rate %.2f: %s", st.Rates[i], r.CurveNote(st.curveName(i))))
		fn := 0
		for _, c := range concepts(r.Train) {
			if c > 1 {
				fn += c
			}
		}
		base, withGARE, floor := r.Results[0], r.Results[1], r.Floor.result() // every rate's suite has its floor (Synthetic)
		gain := reproduce.Paired(base, withGARE, R1)
		t.AddRow(fmt.Sprintf("%.2f", st.Rates[i]), fn, base.Summary(R1).Format(1), withGARE.Summary(R1).Format(1),
			fmt.Sprintf("%+.1f ± %.1f", gain.Mean, gain.Std), base.Summary(MnR).Format(1), withGARE.Summary(MnR).Format(1),
			fmt.Sprintf("%.1f", R1.Of(floor)), fmt.Sprintf("%.1f", MnR.Of(floor)))
	}
	return t
}

func concepts(d *gare.Dataset) map[int]int {
	c := map[int]int{}
	for _, k := range d.Concept {
		c[k]++
	}
	return c
}

// Comparisons: GARE's claim that Δ absorbs false-negative noise predicts a gain over the baseline
// at every false-negative rate, and a gain that grows with the rate: the seed-paired gain at the
// highest rate against the gain at the lowest (same model seeds, different data).
func (st *SyntheticStudy) Comparisons() []reproduce.Comparison {
	var out []reproduce.Comparison
	for i, r := range st.Runs {
		out = append(out, r.Compare(fmt.Sprintf("GARE beats the baseline at false-negative rate %.2f", st.Rates[i]),
			"Δ absorbs the repulsion of false negatives (Sec. 1, Fig. 1b; no number)", 0, 1, R1))
	}
	if n := len(st.Runs); n > 1 {
		gain := func(i int) reproduce.Sample {
			base, withGARE := st.Runs[i].Results[0], st.Runs[i].Results[1]
			return reproduce.Sample{Name: fmt.Sprintf("GARE − baseline R@1 at rate %.2f", st.Rates[i]), Seeds: withGARE.Seeds,
				Values: reproduce.Differences(base, withGARE, R1)}
		}
		out = append(out, reproduce.Comparison{Paper: Paper, Claim: "GARE's gain over the baseline grows with the false-negative rate",
			PaperFigure: "implied by Sec. 1 and Fig. 6 (no number)", Data: "synthetic false-negative pairs (one data set per rate, data seed 7)",
			Metric: "GARE − baseline R@1 (paired by seed)", Higher: true, A: gain(0), B: gain(n - 1)})
	}
	return out
}

// Info is a one-line description of a dataset.
func Info(d *gare.Dataset) string {
	s := fmt.Sprintf("%s [%s]: %d texts × %d videos, text %d-d, %d frames × %d-d", d.Name, d.Kind, d.NumTexts, d.NumVideos, d.TextDim, d.Frames, d.VideoDim)
	if d.WordFeats != nil {
		s += fmt.Sprintf(", %d words per text", d.Words)
	}
	if d.DroppedTexts > 0 {
		s += fmt.Sprintf(" (%d texts without any GloVe token left out)", d.DroppedTexts)
	}
	return s
}
