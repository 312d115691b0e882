package hierarchy

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/geoalign/geoalign/lib/data/wordnet"
	"github.com/geoalign/geoalign/lib/models"
	"github.com/geoalign/geoalign/lib/train"
	"github.com/gomlx/compute"
	"github.com/gomlx/gomlx/ml/model"
)

// ModelName names a hierarchy run in a run directory's config.json (lib/runner.Spec.Model).
const ModelName = "hierarchy"

// Metric names of a Run's Evaluation.Metrics (Score.Metrics).
const (
	MetricMeanRank  = "mean_rank" // Reconstruction.MeanRank
	MetricMAP       = "map"       // Reconstruction.MAP
	MetricNodes     = "nodes"     // Reconstruction.Nodes
	MetricEdges     = "edges"     // Reconstruction.Edges
	MetricInside    = "inside"    // Entailment.Inside (a hold-out run's)
	MetricViolation = "violation" // Entailment.MeanViolation, radians
	MetricPairs     = "pairs"     // Entailment.Pairs
)

// RunEval says what a Run's evaluation measures; the zero value is the reconstruction of every node
// of the training closure (Evaluate; 2017 §4).
type RunEval struct {
	// Sample, when set, restricts every reconstruction to these nodes (EvaluateSample, as the
	// official reconstruction.py -sample does on the noun closure).
	Sample []int32
	// Full and HeldOut make the run a transitive-closure completion (HoldOut: the run trains on
	// Full without HeldOut): the "test" split is then the reconstruction of Full (the held-out pairs
	// among the parents to rank) and the entailment of HeldOut; both splits measure the entailment
	// of their pairs (EvaluateEntailment; Lorentz only). Set both or neither.
	Full    *wordnet.Closure
	HeldOut []wordnet.Edge
}

// Run is the hierarchy as a models.Run: a Trainer of cfg on a closure, trained by lib/train's loop
// with the package's recipe (Riemannian SGD, burn-in, negative sampling; train.go) and evaluated by
// its own metric (Score): reconstruction mean rank and MAP, and the entailment cones of a held-out
// split (RunEval). There is no validation split and nothing is selected (2017 §4: the task is the
// reconstruction of the training closure itself): after Train the store holds the last epoch's
// table.
type Run struct {
	backend compute.Backend
	closure *wordnet.Closure
	cfg     Config
	eval    RunEval
	trainer *Trainer
}

var _ models.Run = (*Run)(nil)

// NewRun builds the run of cfg on closure c (the training closure), evaluated as eval says. Its
// store holds the initial table (drawn from cfg.Seed) until Train: Embedding is then the zero-
// training floor.
func NewRun(backend compute.Backend, c *wordnet.Closure, cfg Config, eval RunEval) (*Run, error) {
	if (eval.Full == nil) != (eval.HeldOut == nil) {
		return nil, errors.New("hierarchy: RunEval needs both Full and HeldOut, or neither")
	}
	if eval.Full != nil {
		if eval.Full.NumNodes() != c.NumNodes() {
			return nil, fmt.Errorf("hierarchy: RunEval.Full has %d nodes, the training closure %d: a hold-out keeps every node", eval.Full.NumNodes(), c.NumNodes())
		}
		if cfg.Manifold != Lorentz {
			return nil, fmt.Errorf("hierarchy: a held-out split is measured by entailment cones, which need the lorentz manifold, got %s", cfg.Manifold)
		}
	}
	t, err := NewTrainer(backend, c, cfg)
	if err != nil {
		return nil, err
	}
	return &Run{backend: backend, closure: c, cfg: cfg, eval: eval, trainer: t}, nil
}

// Notes are none: the closure is the whole data, named by the run's configuration (Identity).
func (r *Run) Notes() []string { return nil }

// Store holds the table (EmbeddingVar) and the loop's state: the initial table before Train, the
// last epoch's after it; a checkpoint copied in is what Evaluate measures.
func (r *Run) Store() *model.Store { return r.trainer.Store }

// Identity is the configuration a run directory's config.json holds for this run (lib/runner.Spec.Config):
// ConfigParam's JSON, the Config with Epochs zeroed — a run directory continues with more epochs,
// as Trainer.Open does; its records say how many were trained — and the SHA-256 of the training
// closure.
func (r *Run) Identity() (json.RawMessage, error) {
	s, err := describeRun(r.cfg, r.closure)
	return json.RawMessage(s), err
}

// Train trains the remaining epochs up to Config.Epochs with the Trainer's loop: out.Dir is its run
// directory (Trainer.Open: a checkpoint every epoch, resumed bit for bit; a finished run only
// returns its records), out.Quiet, out.Label and out.Log its progress bar and per-epoch lines. The
// update runs on the host (doc.go), so out.Devices > 1 is refused. Every record's Extra holds its
// EpochStats (History).
func (r *Run) Train(out models.Output) (*train.Result, error) {
	if out.Devices > 1 {
		return nil, fmt.Errorf("hierarchy: Devices = %d: the Riemannian update runs on the host, on one device", out.Devices)
	}
	if r.cfg.Epochs == 0 {
		return nil, errors.New("hierarchy: Config.Epochs = 0: nothing to train")
	}
	t := r.trainer
	if t.loop != nil { // trained before: start again from the initialisation
		var err error
		if t, err = NewTrainer(r.backend, r.closure, r.cfg); err != nil {
			return nil, err
		}
		r.trainer = t
	}
	t.Quiet, t.Label, t.Log = out.Quiet, out.Label, out.Log
	if out.Dir != "" {
		if err := t.Open(out.Dir); err != nil {
			return nil, err
		}
	}
	if err := t.Train(); err != nil {
		return nil, err
	}
	// A run in memory never checkpoints: the store gets the trained table here.
	if err := t.Store.GetVariable(EmbeddingVar).SetValue(t.table()); err != nil {
		return nil, fmt.Errorf("hierarchy: %w", err)
	}
	return t.result, nil
}

// History is one EpochStats per epoch trained (the records of Train's result; nil before Train).
func (r *Run) History() []EpochStats { return r.trainer.History }

// Embedding is the table in the store: before Train the initial one (the zero-training floor of
// both arms of a cone experiment), after it the trained one.
func (r *Run) Embedding() (*Embedding, error) {
	cfg := r.cfg
	e := &Embedding{Manifold: cfg.Manifold, Dim: cfg.Dim, Curvature: cfg.Curvature, Names: r.closure.Nodes}
	var err error
	e.Coords, err = tableOf(r.trainer.Store, e.Len(), e.Stride())
	return e, err
}

// Score is a Run's own evaluation of a split.
type Score struct {
	Reconstruction Reconstruction
	// Entailment is the split's pairs inside their parent's cone: a hold-out run's (RunEval), nil
	// otherwise.
	Entailment *Entailment
}

// Metrics are s's numbers by name (the Metric constants), as models.Evaluation carries them.
func (s Score) Metrics() map[string]float64 {
	r := s.Reconstruction
	m := map[string]float64{MetricMeanRank: r.MeanRank, MetricMAP: r.MAP, MetricNodes: float64(r.Nodes), MetricEdges: float64(r.Edges)}
	if e := s.Entailment; e != nil {
		m[MetricInside], m[MetricViolation], m[MetricPairs] = e.Inside, e.MeanViolation, float64(e.Pairs)
	}
	return m
}

// Score measures the store's table on a split: "train" is the reconstruction of the training
// closure (and, for a hold-out run, the entailment of its pairs); "test" is, for a hold-out run,
// the reconstruction of RunEval.Full and the entailment of the held-out pairs, otherwise the
// training closure's reconstruction again — the papers' task is the reconstruction of the closure
// trained on (2017 §4). There is no "val".
func (r *Run) Score(split string) (Score, error) {
	var s Score
	if split != "train" && split != "test" {
		return s, fmt.Errorf("hierarchy: split %q: a hierarchy run has train and test (no validation: nothing is selected)", split)
	}
	e, err := r.Embedding()
	if err != nil {
		return s, err
	}
	c, pairs := r.closure, r.closure.Edges
	if split == "test" && r.eval.Full != nil {
		c, pairs = r.eval.Full, r.eval.HeldOut
	}
	if r.eval.Sample != nil {
		s.Reconstruction, err = EvaluateSample(r.backend, e, c, r.eval.Sample)
	} else {
		s.Reconstruction, err = Evaluate(r.backend, e, c)
	}
	if err != nil || r.eval.Full == nil {
		return s, err
	}
	ent, err := EvaluateEntailment(r.backend, e, pairs)
	s.Entailment = &ent
	return s, err
}

// Evaluate is Score as a models.Evaluation: Metrics hold the numbers, Rows the nodes evaluated,
// Cols the nodes ranked against. There is no score matrix to keep (each node ranks its own
// parents): keep is refused.
func (r *Run) Evaluate(split string, keep bool) (*models.Evaluation, error) {
	if keep {
		return nil, errors.New("hierarchy: no score matrix to keep: the reconstruction ranks every node's parents among all nodes (Evaluate)")
	}
	s, err := r.Score(split)
	if err != nil {
		return nil, err
	}
	return &models.Evaluation{Metrics: s.Metrics(), Rows: s.Reconstruction.Nodes, Cols: r.closure.NumNodes()}, nil
}
