package wordnetbench

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/geoalign/geoalign/lib/data/wordnet"
	"github.com/geoalign/geoalign/lib/hierarchy"
	"github.com/geoalign/geoalign/lib/report"
	"github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	"gonum.org/v1/plot"
)

// HLFormer's partial-order-preservation loss L_pop (ICCV 2025, Eq. 18–21) claims to make an
// embedding respect a partial order: the specific item (the text) inside the entailment cone of
// the general one (the video). WordNet's is-a closure is a partial order with ground truth, so the
// claim is tested there: Lorentz embeddings of a closure trained by Nickel & Kiela's loss alone
// and with λ·L_pop added (hierarchy.Config.ConeWeight; the parent is the cone's apex), the same
// seeds, on a training closure from which a fraction of the implied (non-basic) edges is held out
// (hierarchy.HoldOut). Measured: the held-out pairs inside their parent's cone — a property the
// cone term was never shown, which transitive cones carry over from the training pairs — and the
// reconstruction MAP of the full closure, so that an embedding that satisfies the cones by
// collapsing cannot pass for one that respects the order.

// ConeOptions configure RunCone.
type ConeOptions struct {
	Seeds []int64
	// HeldOut is the fraction of the non-basic edges held out of training, drawn with SplitSeed
	// (one split for every seed, so that the runs pair).
	HeldOut   float64
	SplitSeed int64
	// ConeWeight is λ of the runs with the cone term (hierarchy.Config.ConeWeight).
	ConeWeight float64
	// Base is the configuration of both arms before the seed and the cone weight are set: a
	// Lorentz one (ConeBase).
	Base hierarchy.Config
	// CheckpointDir, Quiet and Log as in Options.
	CheckpointDir string
	Quiet         bool
	Log           io.Writer
}

// ConeRun is one trained embedding of the experiment, measured.
type ConeRun struct {
	Seed         int64
	ConeWeight   float64
	HeldOut      hierarchy.Entailment     // on the held-out pairs
	Train        hierarchy.Entailment     // on the training pairs
	Full         hierarchy.Reconstruction // reconstruction of the full closure (held-out pairs among the parents)
	TrainSeconds float64
	Loss         []float64 // mean training loss per epoch (Run.Loss)
}

// ConeResults are both arms over the seeds, and the untrained embeddings.
type ConeResults struct {
	ClosureName, Description string
	Options                  ConeOptions
	TrainPairs, HeldOutPairs int
	// Without and With hold one run per seed, in the order of Options.Seeds.
	Without, With []ConeRun
	// Initial is, per seed, the held-out entailment of the initial embedding (both arms start
	// from it): the zero-training floor.
	Initial []hierarchy.Entailment
	// RandomMAP is the full closure's MAP under a uniformly random ranking (hierarchy.RandomMAP).
	RandomMAP float64
}

// RunCone trains both arms of the experiment on closure c for every seed and measures them.
func RunCone(backend compute.Backend, closureName string, c *wordnet.Closure, description string, opts ConeOptions) (*ConeResults, error) {
	if len(opts.Seeds) == 0 || !(opts.ConeWeight > 0) {
		return nil, fmt.Errorf("wordnetbench: the cone experiment needs seeds and a cone weight > 0 (got %d seeds, λ = %g)", len(opts.Seeds), opts.ConeWeight)
	}
	log := opts.Log
	if log == nil {
		log = os.Stderr
	}
	trainSet, held, err := hierarchy.HoldOut(c, opts.HeldOut, opts.SplitSeed)
	if err != nil {
		return nil, err
	}
	name := fmt.Sprintf("%s_holdout%g_split%d", closureName, opts.HeldOut, opts.SplitSeed)
	res := &ConeResults{ClosureName: closureName, Description: description, Options: opts,
		TrainPairs: trainSet.NumEdges(), HeldOutPairs: len(held), RandomMAP: hierarchy.RandomMAP(c)}
	runOpts := Options{CheckpointDir: opts.CheckpointDir, Quiet: opts.Quiet}
	eval := hierarchy.RunEval{Full: c, HeldOut: held}
	for _, seed := range opts.Seeds {
		cfg := opts.Base
		cfg.Seed = seed
		for _, weight := range []float64{0, opts.ConeWeight} {
			cfg.ConeWeight = weight
			m, err := hierarchy.NewRun(backend, trainSet, cfg, eval)
			if err != nil {
				return nil, err
			}
			if weight == 0 { // the initial table (both arms start from it), before training
				floor, err := m.Score("test")
				if err != nil {
					return nil, err
				}
				res.Initial = append(res.Initial, *floor.Entailment)
			}
			start := time.Now()
			run, err := trainOne(m, cfg, name, description+fmt.Sprintf(", %d held-out pairs (split seed %d)", len(held), opts.SplitSeed), runOpts)
			if err != nil {
				return nil, err
			}
			test, err := m.Score("test")
			if err != nil {
				return nil, err
			}
			train, err := m.Score("train")
			if err != nil {
				return nil, err
			}
			cr := ConeRun{Seed: seed, ConeWeight: weight, HeldOut: *test.Entailment, Train: *train.Entailment, Full: test.Reconstruction,
				TrainSeconds: run.TrainSeconds, Loss: run.Loss}
			fmt.Fprintf(log, "%s cone λ=%g seed %d: held-out inside %.4f (violation %.4f rad), train inside %.4f, full MAP %.4f (train %.1f s, total %.1f s)\n",
				name, weight, seed, cr.HeldOut.Inside, cr.HeldOut.MeanViolation, cr.Train.Inside, cr.Full.MAP, cr.TrainSeconds, time.Since(start).Seconds())
			if weight == 0 {
				res.Without = append(res.Without, cr)
			} else {
				res.With = append(res.With, cr)
			}
		}
	}
	return res, nil
}

// ConeBase is the configuration of both arms: Nickel & Kiela's paper setting (PaperConfig) of a
// Lorentz embedding of dimension dim in float64.
func ConeBase(dim int) hierarchy.Config {
	return Options{}.Config(hierarchy.Lorentz, dim, dtypes.Float64, 0)
}

// Table is the experiment's table: per arm (and the untrained embeddings), mean ± std over seeds
// of the held-out pairs inside their parent's cone, their mean violation, the training pairs
// inside, and the full closure's reconstruction.
func (r *ConeResults) Table(prov report.Provenance) *report.Table {
	o := r.Options
	prov.Notes = append(prov.Notes,
		fmt.Sprintf("Split: every edge of the transitive reduction in training, %g of the other edges held out (seed %d): %d training pairs, %d held-out pairs (hierarchy.HoldOut; Ganea et al. 2018 §5).",
			o.HeldOut, o.SplitSeed, r.TrainPairs, r.HeldOutPairs),
		"Inside: the child lies inside the entailment cone of its parent, EA(parent, child) ≤ HA(parent) with MERU's/HLFormer's forms (K = 0.1, lib/geom); violation: mean of max(0, EA − HA) in radians, L_pop over the pairs.",
		fmt.Sprintf("With L_pop: λ = %g times HLFormer's L_pop (Eq. 20) over the batch's positive pairs added to the negative-sampling loss, the parent as the cone's apex (the video's role).", o.ConeWeight),
		fmt.Sprintf("Full-closure MAP: Nickel & Kiela's reconstruction MAP on the whole closure (held-out pairs among the parents to rank); under a uniformly random ranking it is %.4f.", r.RandomMAP),
		"Untrained: the initial embedding of each seed (both arms start from it), the zero-training floor.")
	t := report.NewTable(fmt.Sprintf("HLFormer's partial-order loss on the WordNet %s closure: held-out hypernyms inside the entailment cone", r.ClosureName),
		prov, "embedding", "held-out inside", "held-out violation (rad)", "training pairs inside", "full-closure MAP", "full-closure mean rank", "Train s/seed")
	col := func(runs []ConeRun, f func(ConeRun) float64) []float64 {
		out := make([]float64, len(runs))
		for i, run := range runs {
			out[i] = f(run)
		}
		return out
	}
	for _, arm := range []struct {
		name string
		runs []ConeRun
	}{{"without L_pop", r.Without}, {fmt.Sprintf("with L_pop (λ = %g)", o.ConeWeight), r.With}} {
		t.AddRow(arm.name,
			report.Summarize(col(arm.runs, func(c ConeRun) float64 { return c.HeldOut.Inside })).Format(4),
			report.Summarize(col(arm.runs, func(c ConeRun) float64 { return c.HeldOut.MeanViolation })).Format(4),
			report.Summarize(col(arm.runs, func(c ConeRun) float64 { return c.Train.Inside })).Format(4),
			report.Summarize(col(arm.runs, func(c ConeRun) float64 { return c.Full.MAP })).Format(4),
			report.Summarize(col(arm.runs, func(c ConeRun) float64 { return c.Full.MeanRank })).Format(2),
			fmt.Sprintf("%.1f", report.Summarize(col(arm.runs, func(c ConeRun) float64 { return c.TrainSeconds })).Mean))
	}
	inside, violation := make([]float64, len(r.Initial)), make([]float64, len(r.Initial))
	for i, e := range r.Initial {
		inside[i], violation[i] = e.Inside, e.MeanViolation
	}
	t.AddRow("untrained (initial)", report.Summarize(inside).Format(4), report.Summarize(violation).Format(4), "—", "—", "—", "—")
	return t
}

// LearningCurve is the experiment's learning-curve figure: the mean training loss per epoch of each
// arm, mean ± s.e. over the seeds (report.LearningCurves). The arm with L_pop minimises
// Nickel & Kiela's loss + λ·L_pop, so its level is not comparable with the other's; its shape is.
func (r *ConeResults) LearningCurve() (*plot.Plot, error) {
	return report.LearningCurves(fmt.Sprintf("WordNet %s closure, with and without L_pop: training loss per epoch", r.ClosureName),
		"training loss (mean over the epoch's batches)",
		report.Curve{Label: "without L_pop", PerRun: coneLosses(r.Without)},
		report.Curve{Label: fmt.Sprintf("with L_pop (λ = %g)", r.Options.ConeWeight), PerRun: coneLosses(r.With)})
}

// CurveNote is the table note on the learning curves (figure name beside the table): no model
// selection — every run keeps its last epoch, as Nickel & Kiela's protocol does, and the held-out
// pairs are the test, never used to choose anything — and whether the loss is flat at the end
// (keptLastNote).
func (r *ConeResults) CurveNote(name string) string {
	return keptLastNote(name, r.Options.Base, "; the held-out pairs are the test and choose nothing", coneLosses(r.Without), coneLosses(r.With))
}

func coneLosses(runs []ConeRun) [][]float64 {
	out := make([][]float64, len(runs))
	for i, run := range runs {
		out[i] = run.Loss
	}
	return out
}
