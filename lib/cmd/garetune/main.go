// Command garetune trains one seed of one GARE configuration on the whole Charades descriptions ↔
// videos training split under the study's two-stage protocol (garestudy.Protocol.Fit: stage 1, the
// baseline pretraining, then stage 2 from its encoders) and writes both stages' learning curves:
// per epoch the mean train loss and the validation metrics, on the split carved from train by
// data.CarveValidation. The test split is never read. It is the tool of the epochs / learning-rate
// sweep behind garestudy.FullScale (figures/gare/tuning/); -render tabulates the runs' files.
//
//	go run ./lib/cmd/garetune -pre-epochs 20 -epochs 8 -lr 1e-3 -out build/gare-tune/a.json
//	go run ./lib/cmd/garetune -render figures/gare/tuning/sweep build/gare-tune/*.json
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/geoalign/geoalign/lib/atomicfile"
	"github.com/geoalign/geoalign/lib/backend"
	"github.com/geoalign/geoalign/lib/data"
	"github.com/geoalign/geoalign/lib/data/tracks"
	"github.com/geoalign/geoalign/lib/models/gare"
	"github.com/geoalign/geoalign/lib/report"
	"github.com/geoalign/geoalign/lib/reproduce"
	"github.com/geoalign/geoalign/lib/retrieval"
	"github.com/geoalign/geoalign/lib/studies/garestudy"
	"github.com/geoalign/geoalign/lib/train"
)

// Run is the file written by -out.
type Run struct {
	Args                   []string
	Variant                string
	PretrainEpochs         int
	PretrainLR, LR         float64
	Epochs                 int
	Seed                   int64
	TrainPairs, ValPairs   int
	Stage1, Stage2         []train.Record
	Stage1Sec, Stage2Sec   float64 // wall time of each stage (0 for a stage 1 loaded from the cache)
	Commit, Machine        string
	Backend                string
	Config, PretrainConfig gare.Config
}

func main() {
	var (
		cache     = flag.String("cache", tracks.CacheDir(), "data cache built by make data")
		work      = flag.String("work", garestudy.DefaultWorkDir("tune"), "run cache (stage-1 models are shared between runs)")
		out       = flag.String("out", "", "JSON file of the learning curves (required unless -render)")
		variant   = flag.String("variant", "gare", "gare (the code's configuration) or baseline")
		preEpochs = flag.Int("pre-epochs", garestudy.FullScale().PretrainEpochs, "stage-1 epochs")
		preLR     = flag.Float64("pre-lr", garestudy.FullScale().PretrainLR, "stage-1 learning rate")
		epochs    = flag.Int("epochs", garestudy.FullScale().Epochs, "stage-2 epochs")
		lr        = flag.Float64("lr", garestudy.FullScale().LR, "stage-2 learning rate (ψ and the temporal transformer)")
		seed      = flag.Int64("seed", 1, "seed (both stages, as in the study)")
		renderTo  = flag.String("render", "", "tabulate the run files given as arguments into <base>.{md,csv,json} instead of training")
	)
	flag.Parse()
	var err error
	switch {
	case *renderTo != "":
		err = render(*renderTo, flag.Args())
	case *out == "" || (*variant != "gare" && *variant != "baseline"):
		fmt.Fprintln(os.Stderr, "garetune: -out is required and -variant is gare or baseline")
		os.Exit(2)
	default:
		err = run(*cache, *work, *out, *variant, *preEpochs, *epochs, *preLR, *lr, *seed)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "garetune:", err)
		os.Exit(1)
	}
}

func run(cache, work, out, variant string, preEpochs, epochs int, preLR, lr float64, seed int64) error {
	d, _, err := garestudy.CharadesData(cache, work, 0, 0)
	if err != nil {
		return err
	}
	s := garestudy.FullScale()
	s.Seeds, s.PretrainEpochs, s.PretrainLR, s.Epochs, s.LR = []int64{seed}, preEpochs, preLR, epochs, lr
	base := s.Config(d.TextDim, d.VideoDim)
	p := s.Protocol(base)
	p.CacheDir = work
	cfg := base
	if variant == "baseline" {
		cfg = gare.BaselineConfig(base)
	}
	r := &Run{Args: os.Args[1:], Variant: variant, PretrainEpochs: preEpochs, PretrainLR: preLR, Epochs: epochs, LR: lr, Seed: seed,
		Config: cfg, PretrainConfig: p.PretrainConfig(), Commit: reproduce.GitCommit(), Machine: reproduce.Machine()}
	if info, err := backend.Describe(); err == nil {
		r.Backend = info.String()
	}
	f, err := p.Fit(backend.MustNew(), cfg, d, seed)
	if err != nil {
		return err
	}
	r.Stage1, r.Stage2, r.Stage1Sec, r.Stage2Sec = f.PretrainCurve, f.Curve, p.PretrainSeconds, f.Seconds
	keep, held, err := data.CarveValidation(d.NumTexts, base.ValFraction) // the split gare.Model.NewTrainer carves
	if err != nil {
		return err
	}
	r.TrainPairs, r.ValPairs = len(keep), len(held)
	for i, curve := range [][]train.Record{r.Stage1, r.Stage2} {
		for _, rec := range curve {
			fmt.Fprintf(os.Stderr, "stage %d epoch %d: loss %.4f, val SumR %.2f%s (%.1f s)\n", i+1, rec.Epoch, rec.Loss, rec.Val[retrieval.ValMetric],
				map[bool]string{true: " (best)"}[rec.Best], rec.Seconds)
		}
	}
	b2, err := json.MarshalIndent(r, "", " ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return err
	}
	return atomicfile.WriteFile(out, b2, 0o644)
}

// render tabulates run files: per configuration, each stage's best validation epoch and its
// validation SumR and R@1, and the seconds per epoch (training and validation, on the machine and
// load each file records).
func render(base string, files []string) error {
	if len(files) == 0 {
		return fmt.Errorf("-render needs run files as arguments")
	}
	t := report.NewTable("GARE full scale: epochs / learning-rate sweep on the validation split (one seed)", report.Provenance{
		Data: "Charades descriptions ↔ videos, official v1 train split; validation = 10 % of the training pairs carved by data.CarveValidation (the test split is never read)",
		Kind: report.LabelDerived,
		Notes: []string{
			"Each row: one run of the study's two-stage protocol at seed 1 (garestudy.Protocol.Fit through this command, or an equivalent driver for the first sweep, which its run file names); the run files record the arguments, the configuration and the machine load.",
			"best epoch: the validation epoch whose model the loop keeps (the last improvement of text→video SumR); s/epoch: mean wall time per epoch, training + validation, on a shared 2-core machine (load in the run file).",
		},
	}, "variant", "stage 1 epochs @ lr", "stage 1 best epoch", "stage 1 val SumR", "stage 2 epochs @ lr", "stage 2 best epoch",
		"stage 2 val SumR", "stage 2 val R@1", "stage 2 val SumR, epoch 1 → last", "s/epoch stage 1", "s/epoch stage 2", "load at start")
	var runs []Run
	for _, path := range files {
		raw, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		var r Run
		if err := json.Unmarshal(raw, &r); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		upgradeKeys(r.Stage1)
		upgradeKeys(r.Stage2)
		b1, b2 := garestudy.Kept(r.Stage1), garestudy.Kept(r.Stage2)
		if b1 == nil || b2 == nil {
			return fmt.Errorf("%s: a stage without validation records", path)
		}
		first, last := r.Stage2[0], r.Stage2[len(r.Stage2)-1]
		load := r.Machine
		if i := strings.Index(load, "load average "); i >= 0 {
			load = strings.Fields(load[i+len("load average "):])[0]
		}
		t.AddRow(r.Variant, fmt.Sprintf("%d @ %g", r.PretrainEpochs, r.PretrainLR), fmt.Sprintf("%d of %d", b1.Epoch, len(r.Stage1)),
			fmt.Sprintf("%.1f", b1.Val[retrieval.ValMetric]), fmt.Sprintf("%d @ %g", r.Epochs, r.LR), fmt.Sprintf("%d of %d", b2.Epoch, len(r.Stage2)),
			fmt.Sprintf("%.1f", b2.Val[retrieval.ValMetric]), fmt.Sprintf("%.1f", b2.Val["t2v_r1"]),
			fmt.Sprintf("%.1f → %.1f", first.Val[retrieval.ValMetric], last.Val[retrieval.ValMetric]),
			fmt.Sprintf("%.1f", perEpoch(r.Stage1)), fmt.Sprintf("%.1f", perEpoch(r.Stage2)), load)
		runs = append(runs, r)
	}
	// Stage 1 and stage 2 each in their own panel (report.CurvesGrid): runs that share stage 1 draw
	// the same stage-1 curve; stage 2's few epochs get the whole width of theirs.
	labels := make([]string, len(runs))
	var stage1, stage2 []report.Curve
	for i, r := range runs {
		labels[i] = r.label()
		stage1 = append(stage1, report.Curve{Label: labels[i], PerRun: [][]float64{valSumR(r.Stage1)}})
		stage2 = append(stage2, report.Curve{Label: labels[i], PerRun: [][]float64{valSumR(r.Stage2)}})
	}
	const y = "validation t2v SumR (R@1 + R@5 + R@10)"
	g, err := report.CurvesGrid(labels, []report.Panel{
		{Title: "GARE sweep, stage 1 (baseline pretraining; one seed)", YLabel: y, Curves: stage1},
		{Title: "stage 2 (from stage 1's encoders)", XLabel: "stage-2 epoch", YLabel: y, Curves: stage2}})
	if err != nil {
		return err
	}
	if err := t.Save(base); err != nil {
		return err
	}
	_, err = g.Save(base + "-curves")
	return err
}

// valSumR is the validation SumR of every record (retrieval.ValMetric).
func valSumR(curve []train.Record) []float64 {
	out := make([]float64, len(curve))
	for i, rec := range curve {
		out[i] = rec.Val[retrieval.ValMetric]
	}
	return out
}

// label names a run's configuration in the sweep figure (the variant only when it is not GARE, whose
// name would give every curve GARE's colour).
func (r Run) label() string {
	l := fmt.Sprintf("stage 1 %d epochs @ lr %g → stage 2 %d @ %g", r.PretrainEpochs, r.PretrainLR, r.Epochs, r.LR)
	if r.Variant != "gare" {
		l += " (" + r.Variant + ")"
	}
	return l
}

// legacyValMetric is the key of the validation SumR in GARE's records before every model recorded
// retrieval.Values: the committed run files of figures/gare/tuning hold it.
const legacyValMetric = "sumr"

// upgradeKeys renames legacyValMetric to retrieval.ValMetric in the records of a run file written
// before the rename, so that -render reads old and new run files alike.
func upgradeKeys(curve []train.Record) {
	for _, rec := range curve {
		v, legacy := rec.Val[legacyValMetric]
		if _, current := rec.Val[retrieval.ValMetric]; legacy && !current {
			rec.Val[retrieval.ValMetric] = v
			delete(rec.Val, legacyValMetric)
		}
	}
}

// perEpoch is the mean wall time of an epoch of a curve (training and validation).
func perEpoch(curve []train.Record) float64 {
	var s float64
	for _, r := range curve {
		s += r.Seconds
	}
	return s / float64(len(curve))
}
