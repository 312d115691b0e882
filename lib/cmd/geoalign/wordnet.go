package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/geoalign/geoalign/lib/backend"
	"github.com/geoalign/geoalign/lib/data/tracks"
	"github.com/geoalign/geoalign/lib/hierarchy"
	"github.com/geoalign/geoalign/lib/hierarchy/wordnetbench"
	"github.com/geoalign/geoalign/lib/report"
	"github.com/geoalign/geoalign/lib/reproduce"
	"github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
)

func init() {
	register("wordnet", "hyperbolic embeddings of WordNet: reconstruction MR/MAP, disk picture, stability (figures/wordnet/)", wordnetMain)
}

// wordnetMain is `geoalign wordnet`: train every model × dim × dtype × seed on a WordNet closure,
// print and save the reconstruction table, and draw the figures.
func wordnetMain(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("wordnet", stderr, "usage: geoalign wordnet [--closure mammal] [--model lorentz,poincare,euclidean] [--dim 2,5,10] [--seeds 3] [--out figures/wordnet/]",
		"\nTrains hyperbolic (and Euclidean) embeddings of a WordNet transitive closure as Nickel & Kiela (2017, 2018),",
		"prints reconstruction mean rank and MAP (mean ± std over seeds) and writes <out>/<closure>_reconstruction.{md,csv,json},",
		"<out>/<closure>_disk.{png,svg}, <out>/<closure>_tangent.{png,svg}, <out>/<closure>_norm_depth.{png,svg} and <out>/stability.{md,csv,json}.")
	closure := fs.String("closure", wordnetbench.Mammal, "closure: mammal (1,181 nodes) or noun (82,115 nodes)")
	models := fs.String("model", "lorentz", "comma-separated models: lorentz, poincare, euclidean")
	dims := fs.String("dim", "10", "comma-separated embedding dimensions")
	seeds := fs.String("seeds", "3", "number of seeds N (seeds 1…N), or a comma-separated list")
	dtypeList := fs.String("dtype", "float64", "comma-separated dtypes of the loss graph: float64, float32 (the table is float64)")
	preset := fs.String("preset", "paper", "hyperparameters: paper (Nickel & Kiela 2017 §4) or code (official train-*.sh)")
	epochs := fs.Int("epochs", 0, "epochs (0: the preset's)")
	lr := fs.Float64("lr", 0, "learning rate (0: the preset's)")
	batch := fs.Int("batch", 0, "positive pairs per batch (0: the preset's)")
	negatives := fs.Int("negatives", 0, "negatives per pair (0: the preset's)")
	burnin := fs.Int("burnin", -1, "burn-in epochs (-1: the preset's)")
	curvature := fs.Float64("curvature", 1, "c > 0: curvature −c of the hyperbolic models")
	out := fs.String("out", "figures/wordnet", "output directory for tables and figures")
	wnDir := fs.String("wordnet-dir", "", "WordNet 3.0 database directory (default /usr/share/wordnet, Debian wordnet-base)")
	filter := fs.String("filter", tracks.MammalFilter(tracks.SharedDir()), "mammal filter file (staged shared data; env GEOALIGN_SHARED)")
	ckptDir := fs.String("checkpoints", "build/wordnet/checkpoints", "directory of the run directories (lib/runner's, as geoalign train writes them: config.json, a checkpoint every epoch, history.json, curves.png; a run whose directory holds one continues from it, a finished one is only re-evaluated; empty: none)")
	evalSample := fs.Int("eval-sample", 0, "evaluate a fixed sample of this many nodes (0: all; use e.g. 2000 for the noun closure)")
	disk := fs.Bool("disk", true, "draw the 2-D Poincaré disk (trains a Lorentz d=2 run if none was requested) and the norm-vs-depth plot")
	stability := fs.Bool("stability", true, "measure and save the float32/float64, Lorentz/Poincaré stability table")
	quiet := fs.Bool("quiet", false, "no progress bars")
	tag := fs.String("tag", "", "suffix of the table's file name: <closure>_reconstruction_<tag>.{md,csv,json}")
	if code, ok := parseFlags(fs, args, stderr); !ok {
		return code
	}
	die := failWith(stderr, "wordnet")
	if *preset != "paper" && *preset != "code" {
		return die(exitUsage, "--preset %q: want paper or code", *preset)
	}
	if !(*curvature > 0) || *evalSample < 0 {
		return die(exitUsage, "--curvature must be > 0 and --eval-sample ≥ 0 (got %g, %d)", *curvature, *evalSample)
	}
	opts := wordnetbench.Options{Preset: *preset, CheckpointDir: *ckptDir, EvalSample: *evalSample, Quiet: *quiet, Log: stdout}
	for _, s := range strings.Split(*models, ",") {
		m, err := hierarchy.ParseManifold(strings.TrimSpace(s))
		if err != nil {
			return die(exitUsage, "--model: %v", err)
		}
		opts.Models = append(opts.Models, m)
	}
	for _, s := range strings.Split(*dims, ",") {
		d, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || d < 1 {
			return die(exitUsage, "--dim: bad dimension %q", s)
		}
		opts.Dims = append(opts.Dims, d)
	}
	for _, s := range strings.Split(*dtypeList, ",") {
		dt, err := wordnetbench.ParseDType(strings.TrimSpace(s))
		if err != nil {
			return die(exitUsage, "--dtype: %v", err)
		}
		opts.DTypes = append(opts.DTypes, dt)
	}
	var err error
	if opts.Seeds, err = parseSeedCountOrList(*seeds); err != nil {
		return die(exitUsage, "--seeds: %v", err)
	}
	opts.Adjust = func(c *hierarchy.Config) {
		c.Curvature = *curvature
		if *epochs > 0 {
			c.Epochs = *epochs
		}
		if *lr > 0 {
			c.LearningRate = *lr
		}
		if *batch > 0 {
			c.BatchSize = *batch
		}
		if *negatives > 0 {
			c.Negatives = *negatives
		}
		if *burnin >= 0 {
			c.BurnInEpochs = *burnin
		}
	}

	c, description, err := wordnetbench.LoadClosure(*closure, *wnDir, *filter)
	if err != nil {
		return die(exitUsage, "%v", err)
	}
	fmt.Fprintln(stdout, description)
	b, err := backend.New()
	if err != nil {
		return die(exitUsage, "%v", err) // GOMLX_BACKEND unset or unusable
	}
	res, err := wordnetbench.RunAll(b, *closure, c, description, opts)
	if err != nil {
		return die(exitFailure, "%v", err)
	}
	name, curves := *closure+"_reconstruction", *closure+"_learning_curves"
	if *tag != "" {
		name, curves = name+"_"+*tag, curves+"_"+*tag
	}
	t := res.Table()
	t.Provenance.Notes = append(t.Provenance.Notes, res.CurveNote(curves))
	reproduce.Stamp(t)
	md, err := t.Markdown()
	if err != nil {
		return die(exitFailure, "%v", err)
	}
	fmt.Fprintln(stdout, "\n"+md)
	base := filepath.Join(*out, name)
	if err := t.Save(base); err != nil {
		return die(exitFailure, "%v", err)
	}
	fmt.Fprintln(stdout, "wrote", base+".{md,csv,json}")
	fig, err := res.LearningCurves()
	if err != nil {
		return die(exitFailure, "%v", err)
	}
	if _, err := fig.Save(filepath.Join(*out, curves)); err != nil {
		return die(exitFailure, "%v", err)
	}
	fmt.Fprintln(stdout, "wrote", filepath.Join(*out, curves)+".{png,svg}")

	if *disk {
		if err := wordnetFigures(b, res, opts, *closure, *out, stdout); err != nil {
			return die(exitFailure, "%v", err)
		}
	}
	if *stability {
		rows, err := hierarchy.MeasureStability(b, wordnetbench.DefaultStabilityRadii, *curvature)
		if err != nil {
			return die(exitFailure, "%v", err)
		}
		st := wordnetbench.StabilityTable(rows, *curvature)
		reproduce.Stamp(st)
		base := filepath.Join(*out, "stability")
		if err := st.Save(base); err != nil {
			return die(exitFailure, "%v", err)
		}
		fmt.Fprintln(stdout, "wrote", base+".{md,csv,json}")
	}
	return 0
}

// wordnetFigures draws the disk from a 2-D hyperbolic run (training a Lorentz d=2 one with the
// same settings if none was requested) and norm vs depth from the largest-dimension hyperbolic run.
func wordnetFigures(be compute.Backend, res *wordnetbench.Results, opts wordnetbench.Options, closure, out string, stdout io.Writer) error {
	var disk, deep *wordnetbench.Run
	for i := range res.Runs {
		r := &res.Runs[i]
		if r.Config.Manifold == hierarchy.Euclidean {
			continue
		}
		if r.Config.Dim == 2 && (disk == nil || r.Config.Manifold == hierarchy.Lorentz && disk.Config.Manifold != hierarchy.Lorentz) {
			disk = r
		}
		if deep == nil || r.Config.Dim > deep.Config.Dim {
			deep = r
		}
	}
	if disk == nil {
		extra := opts
		extra.Models, extra.Dims, extra.DTypes, extra.Seeds = []hierarchy.Manifold{hierarchy.Lorentz}, []int{2}, []dtypes.DType{dtypes.Float64}, opts.Seeds[:1]
		fmt.Fprintln(stdout, "training a Lorentz d=2 embedding for the disk picture")
		more, err := wordnetbench.RunAll(be, closure, res.Closure, res.Description, extra)
		if err != nil {
			return err
		}
		disk = &more.Runs[0]
		if deep == nil {
			deep = disk
		}
	}
	p, err := wordnetbench.DiskFigure(be, disk.Emb, res.Closure, wordnetbench.DefaultMammalLabels)
	if err != nil {
		return err
	}
	p.Title.Text += fmt.Sprintf(": MR %.2f, MAP %.3f", disk.Result.MeanRank, disk.Result.MAP)
	fig, err := report.Render(p, wordnetbench.FigureSize, wordnetbench.FigureSize)
	if err != nil {
		return err
	}
	base := filepath.Join(out, closure+"_disk")
	if err := fig.Save(base); err != nil {
		return err
	}
	fmt.Fprintln(stdout, "wrote", base+".{png,svg}")
	p, err = wordnetbench.TangentFigure(be, disk.Emb, res.Closure, wordnetbench.DefaultMammalLabels)
	if err != nil {
		return err
	}
	fig, err = report.Render(p, wordnetbench.FigureSize, wordnetbench.FigureSize)
	if err != nil {
		return err
	}
	base = filepath.Join(out, closure+"_tangent")
	if err := fig.Save(base); err != nil {
		return err
	}
	fmt.Fprintln(stdout, "wrote", base+".{png,svg}")
	p, err = wordnetbench.NormDepthFigure(be, deep.Emb, res.Closure)
	if err != nil {
		return err
	}
	base = filepath.Join(out, closure+"_norm_depth")
	if _, err := report.SavePlot(p, base); err != nil {
		return err
	}
	fmt.Fprintln(stdout, "wrote", base+".{png,svg}")
	return nil
}

// parseSeedCountOrList reads "3" as seeds 1, 2, 3 and "4,7" as seeds 4 and 7.
func parseSeedCountOrList(s string) ([]int64, error) {
	if !strings.Contains(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("want a count ≥ 1 or a comma-separated list, got %q", s)
		}
		out := make([]int64, n)
		for i := range out {
			out[i] = int64(i + 1)
		}
		return out, nil
	}
	var out []int64
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.ParseInt(strings.TrimSpace(f), 10, 64)
		if err != nil || v < 0 {
			return nil, fmt.Errorf("bad seed %q", f)
		}
		out = append(out, v)
	}
	return out, nil
}
