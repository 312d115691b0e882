package gram

import (
	"fmt"

	"github.com/geoalign/geoalign/lib/models"
	"github.com/geoalign/geoalign/lib/retrieval"
	"github.com/geoalign/geoalign/lib/train"
	"github.com/gomlx/compute"
	"github.com/gomlx/gomlx/ml/model"
)

// Run is a GRAM / HyperGRAM / pairwise-cosine model on a Dataset (models.Run): Train is a Trainer's
// Train in the run directory, Evaluate is the GRAM protocol on a split. Config is the whole
// configuration (model, loss, optimiser, schedule).
type Run struct {
	backend compute.Backend
	cfg     Config
	data    *Dataset
	trainer *Trainer // without a run directory until Train
	notes   []string
	from    *Trainer // WarmStart's source
}

var _ models.Run = (*Run)(nil)

// NewRun builds the model of cfg on d (a Trainer without a run directory: its store is initialised
// from cfg.Seed, and `geoalign eval` copies a checkpoint into it); notes are facts about the data a
// result must carry (Run.Notes). cfg.CheckpointDir must be empty: Train's Output.Dir is the run
// directory.
func NewRun(backend compute.Backend, cfg Config, d *Dataset, notes []string) (*Run, error) {
	if cfg.CheckpointDir != "" {
		return nil, fmt.Errorf("Model.CheckpointDir = %q: a run keeps its checkpoints in its run directory (geoalign train --out); leave it empty", cfg.CheckpointDir)
	}
	t, err := NewTrainer(backend, d, cfg)
	if err != nil {
		return nil, err
	}
	return &Run{backend: backend, cfg: cfg, data: d, trainer: t, notes: notes}, nil
}

// Store holds the model's variables.
func (r *Run) Store() *model.Store { return r.trainer.Store }

// Trainer is the run's trainer, for the analyses a models.Run does not offer (Embed, ModelScore, α):
// after Train the one that trained, its store holding the best validation's weights.
func (r *Run) Trainer() *Trainer { return r.trainer }

// Notes are the notes NewRun was given.
func (r *Run) Notes() []string { return r.notes }

// Train is Trainer.Train (the recipe NewTrainer builds; validation by retrieval.ValMetric on the
// validation split) with out.Dir as Config.CheckpointDir and out.Quiet as Config.Quiet. GRAM's
// loop names its progress bar itself and logs no per-epoch lines: out.Label and out.Log are not
// used.
func (r *Run) Train(out models.Output) (*train.Result, error) {
	cfg := r.cfg
	cfg.CheckpointDir, cfg.Quiet = out.Dir, out.Quiet
	t, err := NewTrainer(r.backend, r.data, cfg)
	if err != nil {
		return nil, err
	}
	if err := t.step.Distribute(out.Devices); err != nil {
		return nil, fmt.Errorf("gram: %w", err)
	}
	if r.from != nil && t.GlobalStep() == 0 { // a resumed run continues from its checkpoint
		if err := t.InitFrom(r.from); err != nil {
			return nil, err
		}
	}
	r.trainer = t
	return t.run()
}

// WarmStart starts the run from the encoders and contra heads of from, a gram Run of the same sizes
// (Trainer.InitFrom: τ, α, the matching head and the optimizer start fresh; GRAM §4.1's cosine-then-
// volume recipe). Store shows the copied weights at once; Train copies them again into its trainer
// unless it resumes from a checkpoint.
func (r *Run) WarmStart(from models.Run) error {
	src, ok := from.(*Run)
	if !ok {
		return fmt.Errorf("gram: WarmStart from a %T, want a gram run", from)
	}
	if err := r.trainer.InitFrom(src.trainer); err != nil {
		return err
	}
	r.from = src.trainer
	return nil
}

// Evaluate scores a split ("train", "val" or "test" of the Dataset) with the GRAM protocol: −volume
// of the model's geometry (or the mean cosine of the pairwise baseline), one anchor per tuple, both
// directions, R@1/5/10, MdR with torch.median's lower median.
func (r *Run) Evaluate(split string, keep bool) (*models.Evaluation, error) {
	s := map[string]*Split{"train": r.data.Train, "val": r.data.Val, "test": r.data.Test}[split]
	if s == nil {
		return nil, fmt.Errorf("unknown split %q (train, val or test)", split)
	}
	emb, err := r.trainer.Embed(s)
	if err != nil {
		return nil, err
	}
	scores, err := ScoreMatrix(r.backend, emb, r.trainer.ModelScore())
	if err != nil {
		return nil, err
	}
	mat, err := retrieval.NewMatrix(s.N, s.N, scores)
	if err != nil {
		return nil, err
	}
	ev := &models.Evaluation{Opts: retrieval.Options{Median: retrieval.MedianLower, VideoToText: true}, Rows: s.N, Cols: s.N}
	if ev.Result, err = retrieval.Evaluate(mat, nil, ev.Opts); err != nil {
		return nil, err
	}
	if keep {
		ev.Scores = scores
	}
	return ev, nil
}
