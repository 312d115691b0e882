package grid

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/geoalign/geoalign/lib/backend"
	"github.com/geoalign/geoalign/lib/data"
	"github.com/geoalign/geoalign/lib/data/prvr"
	"github.com/geoalign/geoalign/lib/geom"
	"github.com/geoalign/geoalign/lib/models/gare"
	"github.com/geoalign/geoalign/lib/models/gram"
	"github.com/geoalign/geoalign/lib/models/hlformer"
	"github.com/geoalign/geoalign/lib/report"
	"github.com/geoalign/geoalign/lib/reproduce"
	"github.com/geoalign/geoalign/lib/retrieval"
	"github.com/geoalign/geoalign/lib/studies/garestudy"
	"github.com/geoalign/geoalign/lib/studies/gramstudy"
	"github.com/geoalign/geoalign/lib/studies/hlformerstudy"
	"github.com/gomlx/compute"
	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
)

// The cross-paper similarity grid (issue 9): every similarity of the four papers — cosine, GRAM's
// volume, HyperGRAM's pure hyperbolic volume and hybrid V_α, GARE's Δ-adjusted cosine — on every
// task that admits it — tri-modal retrieval (GRAM's T→V+A), text–video retrieval (GARE's t2v) and
// partially relevant video retrieval (HLFormer's PRVR) — in one table, with the same data and seeds
// within a task. Only `make figures` runs it (no Table 1): figures/grid/grid.{md,csv,json}.
func init() {
	reproduce.Register(reproduce.Experiment{Paper: "grid", Figures: gridFigures, Descriptive: true})
}

// The grid's rows, in table order.
const (
	GridCosine     = "cosine"
	GridVolume     = "GRAM volume (Euclidean)"
	GridHyperbolic = "hyperbolic volume (pure)"
	GridHybrid     = "hybrid V_α (HyperGRAM)"
	GridGARECosine = "cosine, GARE encoder without Δ (Δ's control)"
	GridDelta      = "Δ-adjusted cosine (GARE)"
)

// GridRows lists the rows of the grid.
var GridRows = []string{GridCosine, GridVolume, GridHyperbolic, GridHybrid, GridGARECosine, GridDelta}

// GridTasks lists the tasks (column groups) of the grid.
var GridTasks = []string{"tri-modal T→V+A", "text–video t2v", "PRVR t2v"}

// gridNotAdmitted is the cell of a (similarity, task) pair that the task does not admit.
const gridNotAdmitted = "—"

// gridPRVRHybridAlpha is the α of the PRVR test-time hybrid volume: HLFormer learns no α, so the
// swap uses HyperGRAM's initial value (gram.HyperGRAMAlphaInit = 0.5, the HyperGRAM summary).
const gridPRVRHybridAlpha = gram.HyperGRAMAlphaInit

// gridMaskedScore fills the scores of padded frames before the max over time, so that a padded
// (all-zero, volume 0) frame can never be a video's best moment. Any value below every real score
// (cosines ≥ −1, negated volumes ≥ −2 for k = 2 unit vectors in either geometry) works.
const gridMaskedScore = -1e30

// GridSize is one configuration of the grid: the data of every task, the models' sizes and seeds.
type GridSize struct {
	Name  string
	Seeds []int64

	// TriModal loads the tri-modal set (train + test).
	TriModal func(o gramstudy.Options) (*gram.Dataset, error)
	// GramEpochs overrides the GRAM-family epochs (0: gramstudy.Options.Epochs of the set, with
	// GramFull selecting the GRAM studies' full epochs).
	GramEpochs int
	GramFull   bool
	// TextVideo loads the text–video pairs (GARE's datasets; the volume rows use them pooled).
	TextVideo func() (train, test *gare.Dataset, err error)
	// GARE is the GARE scale (model size, two-stage protocol epochs); its Seeds are replaced.
	GARE garestudy.Scale
	// PRVR loads the PRVR benchmark; HLFormer is its scale (its Seeds are replaced).
	PRVR     func() (*hlformerstudy.Setup, error)
	HLFormer hlformerstudy.Scale
	// GARECache and HLFormerCache are the run caches of the GARE and HLFormer rows (empty: train
	// every run afresh): the papers' own studies' caches, so that the grid reuses their runs.
	GARECache, HLFormerCache string
	// Log receives progress lines (nil: silent).
	Log io.Writer
}

// DefaultGridSize is `make figures`' grid (full: 18.5 min on 2 cores with the GRAM runs cached and
// the others trained; minutes once the GARE and HLFormer studies' run caches hold its runs): Tux Paint (real, 740 / 185
// stamps), the first 2,048 / 1,000 Charades description ↔ video pairs (label-derived video features;
// GARE's CI scale, D = 64) and Charades-STA at HLFormer's CI scale (256 / 256 videos,
// label-derived), seeds 1, 2, 3. Full takes GARE's full scale (the whole split, D = 128), the GRAM
// studies' full epochs and HLFormer's ablation scale.
func DefaultGridSize(opts reproduce.Options) GridSize {
	seeds := opts.Seeds
	if len(seeds) == 0 {
		seeds = []int64{1, 2, 3}
	}
	gs := garestudy.CIScale()
	hs := hlformerstudy.CIScale
	if opts.Full {
		gs, hs = garestudy.FullScale(), hlformerstudy.AblationScale
	}
	return GridSize{
		Name:  map[bool]string{false: "default", true: "full"}[opts.Full],
		Seeds: seeds,
		TriModal: func(o gramstudy.Options) (*gram.Dataset, error) {
			o.DataCache = opts.DataCache
			d, err := o.TuxPaint()
			return d, data.BadInput(err)
		},
		GramFull: opts.Full,
		TextVideo: func() (*gare.Dataset, *gare.Dataset, error) {
			tr, te, err := garestudy.CharadesData(opts.DataDir(), "", gs.CharadesTrain, gs.CharadesTest)
			return tr, te, data.BadInput(err)
		},
		GARE: gs,
		PRVR: func() (*hlformerstudy.Setup, error) {
			return hlformerstudy.LoadSetup(reproduce.Options{DataCache: opts.DataCache}, hs)
		},
		HLFormer:      hs,
		GARECache:     garestudy.DefaultWorkDir(gs.Name),
		HLFormerCache: hlformerstudy.RunCacheDir(opts),
		Log:           os.Stderr,
	}
}

// gridFigures runs the grid at the default (or full) size and saves figures/grid/grid.*.
func gridFigures(opts reproduce.Options) error {
	if err := opts.NeedsRealData("grid"); err != nil {
		return err
	}
	start := time.Now()
	res, err := RunGrid(backend.MustNew(), DefaultGridSize(opts))
	if err != nil {
		return fmt.Errorf("grid: %w", err)
	}
	for name, g := range res.Curves {
		if _, err := g.Save(filepath.Join(opts.Out, "grid", name)); err != nil {
			return fmt.Errorf("grid: %s: %w", name, err)
		}
	}
	t := res.Table
	reproduce.Stamp(t)
	t.Provenance.Notes = append(t.Provenance.Notes, fmt.Sprintf("Wall time of this run: %s.", time.Since(start).Round(time.Second)))
	return t.Save(filepath.Join(opts.Out, "grid", "grid"))
}

// Result is the grid's table and the learning-curve figures of the runs behind its cells, by file
// name (without extension): GridCurvesGRAM (the GRAM-family rows of the tri-modal and text–video
// tasks, one row of panels per task), GridCurvesGARE+"-curves-loss"/"-curves-val" and
// GridCurvesHLFormer+"-curves-loss"/"-curves-val" (issue 19: every full-scale table has its
// learning curves beside it).
type Result struct {
	Table  *report.Table
	Curves map[string]report.Grid
}

// The base names of the grid's learning-curve figures (files beside grid.{md,csv,json}).
const (
	GridCurvesGRAM     = "grid-gram-learning-curves"
	GridCurvesGARE     = "grid-gare"
	GridCurvesHLFormer = "grid-hlformer"
)

// RunGrid trains and evaluates every admissible (similarity, task) cell at size and returns the grid:
// one row per similarity (GridRows), R@1 and SumR per task (GridTasks), mean ± std over the seeds,
// "—" where the task does not admit the similarity, with the reasons and the per-task data, models
// and SumR conventions in the provenance notes, and the learning curves of every trained run behind
// its cells (Result.Curves, named in the notes).
func RunGrid(b compute.Backend, size GridSize) (*Result, error) {
	if len(size.Seeds) < 1 {
		return nil, fmt.Errorf("grid: no seeds")
	}
	cells := map[[2]string][]retrieval.Metrics{} // by (row, task): one per seed
	add := func(row, task string, m retrieval.Metrics) {
		cells[[2]string{row, task}] = append(cells[[2]string{row, task}], m)
	}
	var notes []string
	o := gramstudy.Options{Full: size.GramFull, Seeds: size.Seeds, Backend: b, FixedEpochs: size.GramEpochs}
	gramVariants := []struct {
		row     string
		variant gramstudy.Variant
	}{
		{GridCosine, gramstudy.Pairwise},
		{GridVolume, gramstudy.GRAM},
		{GridHyperbolic, gramstudy.PureHyperbolic},
		{GridHybrid, gramstudy.HyperGRAM},
	}
	var gramRows []gramstudy.CurveRow // the GRAM-family runs per task, for their learning curves
	trainGram := func(task string, d *gram.Dataset) (string, error) {
		row := gramstudy.CurveRow{Data: d, Groups: map[string][]*gramstudy.Run{}}
		gramRows = append(gramRows, row)
		for _, gv := range gramVariants {
			runs, err := o.TrainSeeds(d, gv.variant, 0)
			if err != nil {
				return "", fmt.Errorf("%s: %w", task, err)
			}
			row.Groups[gv.row] = runs
			for _, r := range runs {
				add(gv.row, task, r.Eval.T2V)
				if size.Log != nil {
					fmt.Fprintf(size.Log, "grid: %s, %s, seed %d: %s\n", task, gv.variant.Label, r.Seed, r.Eval.T2V)
				}
			}
		}
		return fmt.Sprintf("%d epochs; %s", o.Epochs(d), gram.DefaultConfig().Behavior()), nil
	}

	// Tri-modal retrieval: GRAM-family models on the tri-modal set, each ranked by the similarity it
	// was trained with (gram.Trainer.ModelScore).
	tri, err := size.TriModal(o)
	if err != nil {
		return nil, fmt.Errorf("tri-modal data: %w", err)
	}
	how, err := trainGram(GridTasks[0], tri)
	if err != nil {
		return nil, err
	}
	notes = append(notes, fmt.Sprintf("[tri-modal] data: %s (%s; %d train / %d test tuples, %s relevance); models: lib/models/gram encoders + contra heads, one model per row trained with that row's similarity (cosine = pairwise-cosine InfoNCE, scored by the mean of cos(text, image) and cos(text, audio)); %s.",
		tri.Name, tri.Kind, tri.Train.N, tri.Test.N, map[bool]string{false: "instance-level", true: "class-level"}[tri.ClassLevel()], how))

	// Text–video retrieval: GARE with and without Δ on the frame features; the GRAM-family models on
	// the same pairs with each video's frames averaged (k = 2: text, video).
	tvTrain, tvTest, err := size.TextVideo()
	if err != nil {
		return nil, fmt.Errorf("text–video data: %w", err)
	}
	tv, err := gramPairs(tvTrain, tvTest)
	if err != nil {
		return nil, err
	}
	how, err = trainGram(GridTasks[1], tv)
	if err != nil {
		return nil, err
	}
	gs := size.GARE
	gs.Seeds = size.Seeds
	protocol := gs.Protocol(gs.Config(tvTrain.TextDim, tvTrain.VideoDim))
	protocol.CacheDir = size.GARECache
	defer protocol.Close() // without a cache: its temporary run directories
	gruns, err := garestudy.RunVariants(b, protocol, tvTrain, tvTest, garestudy.Table1Variants(), garestudy.RunOptions{Label: "grid GARE"})
	if err != nil {
		return nil, fmt.Errorf("text–video GARE: %w", err)
	}
	for v, row := range []string{GridGARECosine, GridDelta} { // Table1Variants: the baseline, then GARE
		for _, r := range gruns.Results[v].Results {
			add(row, GridTasks[1], r.Report.T2V)
		}
	}
	notes = append(notes, fmt.Sprintf("[text–video] data: %s / %s (%s; %d train / %d test pairs; text: one %d-d vector per text (masked mean of its word features), video: %d frames × %d-d). Rows 1–4: lib/models/gram on (text, frame-mean video), k = 2, %s. Rows 5–6: lib/models/gare at its %q scale (D = %d, two-stage protocol: %d pretraining + %d epochs), text-conditioned pooling over the frames; row 5 is the same model without Δ. Rows 1–4 and rows 5–6 are different encoders: compare within each group.",
		tvTrain.Name, tvTest.Name, tvTrain.Kind, tvTrain.NumTexts, tvTest.NumTexts, tvTrain.TextDim, tvTrain.Frames, tvTrain.VideoDim, how, gs.Name, gs.Dim, gs.PretrainEpochs, gs.Epochs))

	// PRVR: HLFormer (its own cosine, max over clips and frames) and the volumes swapped in at test time.
	setup, err := size.PRVR()
	if err != nil {
		return nil, fmt.Errorf("PRVR data: %w", err)
	}
	hs := size.HLFormer
	hruns, err := hlformerstudy.NewStudy(b, setup, hs, size.Seeds, size.Log, size.HLFormerCache).Run(hlformerstudy.HybridVariant)
	if err != nil {
		return nil, fmt.Errorf("PRVR HLFormer: %w", err)
	}
	var maxCosineGap float64
	for _, run := range hruns.Results {
		add(GridCosine, GridTasks[2], run.Test)
		for _, sw := range prvrSimilarities {
			m, err := prvrSwap(b, run.Embeddings, hruns.Config, setup.Test, sw)
			if err != nil {
				return nil, fmt.Errorf("PRVR test-time %s: %w", sw.name, err)
			}
			if sw.row == "" { // the recomputed cosine must reproduce the model's own evaluation
				maxCosineGap = math.Max(maxCosineGap, math.Abs(m.SumR-run.Test.SumR))
				continue
			}
			add(sw.row, GridTasks[2], m)
		}
	}
	notes = append(notes, fmt.Sprintf("[PRVR] data: %s (%s; %d train / %d test videos, %d / %d queries). Model: lib/models/hlformer %q at the %q scale (%s), trained once per seed with its own similarity: S = %.1f·max_clips cos + %.1f·max_frames cos, the cosine row; metrics on the test split of the epoch with the best validation SumR (validation carved from train). The test-time cosine recomputed from the stored embeddings reproduces the model's SumR to within %.2g.",
		setup.Name, setup.Kind, setup.Train.NumVideos(), setup.Test.NumVideos(), setup.Train.NumQueries(), setup.Test.NumQueries(), hlformerstudy.HybridVariant.Name, hs.Name, hs.Describe(), hruns.Config.ClipScoreWeight, hruns.Config.FrameScoreWeight, maxCosineGap))

	res := &Result{Curves: map[string]report.Grid{}}
	gramCurves, gramNotes, err := gramstudy.CurvesWithNotes(GridCurvesGRAM, "Grid, GRAM-family rows", gramRows)
	if err != nil {
		return nil, err
	}
	res.Curves[GridCurvesGRAM] = gramCurves
	notes = append(notes, gramNotes...)
	gLoss, gVal, err := gruns.LearningCurves("Grid, GARE rows")
	if err != nil {
		return nil, err
	}
	res.Curves[GridCurvesGARE+"-curves-loss"], res.Curves[GridCurvesGARE+"-curves-val"] = gLoss, gVal
	notes = append(notes, "GARE rows: "+gruns.CurveNote(GridCurvesGARE)+
		" Whether more stage-2 epochs help is not judged from the last epoch but tested: figures/gare/"+garestudy.LongerName+".md trains these variants longer over all the full scale's seeds (garestudy.Suite.LongerTraining), and REPORT.md gives the rule's verdict.")
	hLoss, hVal, err := hlformerstudy.LearningCurves("Grid, PRVR rows", []*hlformerstudy.Runs{hruns})
	if err != nil {
		return nil, err
	}
	res.Curves[GridCurvesHLFormer+"-curves-loss"], res.Curves[GridCurvesHLFormer+"-curves-val"] = report.Grid{{hLoss}}, report.Grid{{hVal}}
	notes = append(notes, "PRVR rows: "+hlformerstudy.CurvesNote(GridCurvesHLFormer+"-curves-loss", GridCurvesHLFormer+"-curves-val", []*hlformerstudy.Runs{hruns}))

	// The tasks' common data kind, or label-derived when they differ (the Data line gives each task's).
	kind := setup.Kind
	if tri.Kind != kind || report.DataKind(tvTest.Kind) != kind {
		kind = report.LabelDerived
	}
	t := report.NewTable("Cross-paper similarity grid: every similarity × every task that admits it", report.Provenance{
		Data:     fmt.Sprintf("tri-modal: %s [%s]; text–video: %s [%s]; PRVR: %s [%s]", tri.Name, tri.Kind, tvTest.Name, tvTest.Kind, setup.Name, setup.Kind),
		Kind:     kind,
		Seeds:    size.Seeds,
		Config:   map[string]any{"size": size.Name, "gare_scale": gs, "hlformer_scale": hs, "gram_epochs_override": size.GramEpochs},
		Behavior: "official-code behaviour of every model (lib/models/gram DefaultConfig family, gare DefaultConfig via its study protocol, hlformer CharadesLoss + CIScale-style training); R@1 and SumR text→query direction only",
	}, "similarity",
		GridTasks[0]+" R@1", GridTasks[0]+" SumR",
		GridTasks[1]+" R@1", GridTasks[1]+" SumR",
		GridTasks[2]+" R@1", GridTasks[2]+" SumR")
	for _, row := range GridRows {
		cs := []any{row}
		for _, task := range GridTasks {
			ms := cells[[2]string{row, task}]
			if ms == nil {
				cs = append(cs, gridNotAdmitted, gridNotAdmitted)
				continue
			}
			var r1, sumR []float64
			for _, m := range ms {
				r1, sumR = append(r1, m.R(1)), append(sumR, m.SumR)
			}
			cs = append(cs, report.Summarize(r1).Format(1), report.Summarize(sumR).Format(1))
		}
		t.AddRow(cs...)
	}
	t.Provenance.Notes = append([]string{
		fmt.Sprintf("Cells: mean ± sample std over seeds %v (%d runs per cell), text→item direction. SumR: R@1 + R@5 + R@10 on tri-modal and text–video (retrieval.TextVideoKs, one direction; the papers' two-way SumR would add v2t), R@1 + R@5 + R@10 + R@100 on PRVR (retrieval.PRVRKs, HLFormer's convention). All ranks from lib/retrieval, ties counted pessimistically.", size.Seeds, len(size.Seeds)),
		"Footnote [Δ, tri-modal] —: GARE's Δ_ij = ψ(v̄_j − t_i, frames of j) corrects one text towards one video; a tri-modal tuple has no single pair to correct and neither lib/models/gram nor lib/models/gare defines Δ for k = 3.",
		"Footnote [Δ, PRVR] —: lib/models/hlformer has no Δ hook, and GARE's ψ attends over a whole video's frames: scoring a caption against each clip would need a clip-level Δ that neither paper defines; not run.",
		"Footnote [GARE's no-Δ cosine, tri-modal and PRVR] —: this row is Δ's control on text–video only (the cosine rows of the other tasks are in row 1).",
		fmt.Sprintf("Footnote [volumes, PRVR] test-time swap: lib/models/hlformer has no option to train with a volume, so rows 2–4 rescore each seed's trained HLFormer test embeddings (L2-normalised queries, clips, frames) with −V of (query, clip) and (query, frame) from lib/geom (VolumeMatrix, HyperbolicVolumeMatrix, HybridVolumeMatrix, k = 2), max over time, same 0.7 / 0.3 mix; the hybrid uses α = %.1f (HyperGRAM's initial value: HLFormer learns no α). For unit vectors at k = 2, V_euc = √(1 − cos²) and the lifted V_hyp = √((1 − cos)(3 − cos)) (⟨π(a), π(b)⟩_L = cos − 2), so −V_hyp ranks exactly as cos and −V_euc as |cos|: swapped PRVR cells can differ from the cosine row only through negative cosines and float32 rounding.", gridPRVRHybridAlpha),
		"Footnote [volumes, text–video]: trained, not swapped: lib/models/gram with two modalities (text, frame-mean video); the volume-contrastive loss with τ trains differently even though at k = 2 the volume is a function of the cosine (see the PRVR footnote).",
	}, notes...)
	res.Table = t
	return res, nil
}

// gramPairs turns GARE's text–video pairs into a two-modality GRAM dataset: text features as given,
// each video's frames averaged over its frame mask (the GRAM-family encoders take one vector per
// modality). A text answers its ground-truth video: instance-level when the set is paired, class-level
// by video otherwise.
func gramPairs(train, test *gare.Dataset) (*gram.Dataset, error) {
	split := func(d *gare.Dataset) (*gram.Split, error) {
		gt := d.GroundTruth()
		video := make([]float32, 0, d.NumTexts*d.VideoDim)
		for _, v := range gt {
			mean := make([]float64, d.VideoDim)
			var n float64
			for f := range d.Frames {
				w := float64(d.FrameMask[v*d.Frames+f])
				if w == 0 {
					continue
				}
				row := d.Video[(v*d.Frames+f)*d.VideoDim : (v*d.Frames+f+1)*d.VideoDim]
				for k, x := range row {
					mean[k] += w * float64(x)
				}
				n += w
			}
			if n == 0 {
				return nil, fmt.Errorf("grid: %s: video %d has no unmasked frame", d.Name, v)
			}
			for _, x := range mean {
				video = append(video, float32(x/n))
			}
		}
		s, err := gram.NewSplit([][]float32{append([]float32(nil), d.Text...), video}, []int{d.TextDim, d.VideoDim}, gt)
		if err != nil {
			return nil, fmt.Errorf("grid: %s: %w", d.Name, err)
		}
		if d.VideoOf != nil {
			s.Relevant = gram.SameLabel(gt)
		}
		return s, nil
	}
	tr, err := split(train)
	if err != nil {
		return nil, err
	}
	te, err := split(test)
	if err != nil {
		return nil, err
	}
	// Named after the pairs, not their test split: the curves and notes of this set are validation ones.
	d := &gram.Dataset{Name: strings.TrimSuffix(test.Name, ", test") + " (frame-mean video)", Kind: report.DataKind(test.Kind), Modalities: []string{"text", "video"}, Train: tr, Test: te,
		Notes: []string{"video = mean of the frame features"}}
	if err := d.Validate(); err != nil {
		return nil, err
	}
	d.Standardize()
	return d, nil
}

// prvrSimilarity is a similarity swapped into PRVR scoring at test time, for the grid's row: the
// [Q, V·T] matrix of unit queries against unit items, the cosine or −V (k = 2) of lib/geom.
type prvrSimilarity struct {
	row, name string // row "": the model's own cosine, recomputed as a check
	sim       func(alpha, queries, items *graph.Node) *graph.Node
}

// prvrSimilarities are the PRVR test-time similarities, the recomputed cosine first.
var prvrSimilarities = []prvrSimilarity{
	{"", "cosine", func(_, q, items *graph.Node) *graph.Node { return graph.MatMul(q, graph.Transpose(items, 0, 1)) }},
	{GridVolume, "GRAM volume", func(_, q, items *graph.Node) *graph.Node { return graph.Neg(geom.VolumeMatrix(q, items)) }},
	{GridHyperbolic, "hyperbolic volume", func(_, q, items *graph.Node) *graph.Node {
		return graph.Neg(geom.HyperbolicVolumeMatrix(q, items))
	}},
	{GridHybrid, "hybrid volume", func(alpha, q, items *graph.Node) *graph.Node {
		return graph.Neg(geom.HybridVolumeMatrix(alpha, q, items))
	}},
}

// prvrSwap rescores a trained HLFormer's test embeddings with sim in place of the cosine, in the
// model's own form S = α_c·max_clips + α_f·max_frames (HLFormer Eq. 8–9; a disabled branch is
// skipped), and ranks them with the PRVR protocol (hlformer.EvaluateScores, lib/retrieval).
func prvrSwap(b compute.Backend, em *hlformer.Embeddings, c hlformer.Config, test *prvr.Split, sim prvrSimilarity) (retrieval.Metrics, error) {
	if em == nil {
		return retrieval.Metrics{}, fmt.Errorf("no test embeddings")
	}
	if em.Queries != test.NumQueries() || em.Videos != test.NumVideos() {
		return retrieval.Metrics{}, fmt.Errorf("embeddings of %d queries × %d videos, split %q has %d × %d",
			em.Queries, em.Videos, test.Name, test.NumQueries(), test.NumVideos())
	}
	// [Q, V]: max_t sim(query q, item (v, t)) of the unit queries [Q, d] against unit items [V·T, d]
	// (clips or frames), the items whose penalty is set (padded frames) left out of the max
	exec, err := graph.NewExec(b, func(alpha, queries, items, penalty *graph.Node) *graph.Node {
		v, t := penalty.Shape().Dimensions[0], penalty.Shape().Dimensions[1]
		s := graph.Reshape(sim.sim(alpha, queries, items), em.Queries, v, t)
		return graph.ReduceMax(graph.Add(s, graph.ExpandAxes(penalty, 0)), 2)
	})
	if err != nil {
		return retrieval.Metrics{}, err
	}
	queries := tensors.FromFlatDataAndDimensions(em.QueryVecs, em.Queries, em.Dim)
	scores := make([]float32, em.Queries*em.Videos)
	branch := func(weight float64, items []float32, steps int, mask []float32) error {
		if items == nil || weight == 0 {
			return nil
		}
		penalty := make([]float32, em.Videos*steps)
		for i, m := range mask { // nil for clips
			if m == 0 {
				penalty[i] = gridMaskedScore
			}
		}
		outs, err := exec.Exec(float32(gridPRVRHybridAlpha), queries,
			tensors.FromFlatDataAndDimensions(items, em.Videos*steps, em.Dim),
			tensors.FromFlatDataAndDimensions(penalty, em.Videos, steps))
		if err != nil {
			return err
		}
		defer outs[0].FinalizeAll()
		for i, s := range tensors.MustCopyFlatData[float32](outs[0]) {
			scores[i] += float32(weight) * s
		}
		return nil
	}
	if err := branch(c.ClipScoreWeight, em.Clips, em.ClipSteps, nil); err != nil {
		return retrieval.Metrics{}, err
	}
	if err := branch(c.FrameScoreWeight, em.Frames, len(em.Frames)/(em.Videos*em.Dim), em.FrameMask); err != nil {
		return retrieval.Metrics{}, err
	}
	res, err := hlformer.EvaluateScores(scores, test)
	if err != nil {
		return retrieval.Metrics{}, err
	}
	return res.T2V, nil
}
