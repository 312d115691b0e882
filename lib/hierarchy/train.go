package hierarchy

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/geoalign/geoalign/lib/data/wordnet"
	"github.com/geoalign/geoalign/lib/progress"
	"github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
)

// EpochStats summarises one training epoch.
type EpochStats struct {
	Epoch   int     // 1-based
	Loss    float64 // mean loss over the epoch's batches
	LR      float64 // learning rate used (reduced during burn-in)
	BurnIn  bool
	Seconds float64 // wall time of the epoch
	// MaxDeviation is max |c⟨x, x⟩_L + 1| over every row updated during the epoch, measured right
	// after the exponential map and before any reprojection (Lorentz only; 0 otherwise).
	MaxDeviation float64
}

// Trainer fits an Embedding of a closure. Create it with NewTrainer (or LoadCheckpoint) and call
// Train; the state between epochs is exactly what a checkpoint holds.
type Trainer struct {
	Config  Config
	Closure *wordnet.Closure
	Emb     *Embedding
	History []EpochStats

	// OnEpoch, when set, is called after every epoch; returning an error stops Train.
	OnEpoch func(t *Trainer, s EpochStats) error
	// CheckpointPath and CheckpointEvery: when both are set, Train saves a checkpoint every
	// CheckpointEvery epochs and after the last one.
	CheckpointPath  string
	CheckpointEvery int
	// Quiet turns the progress bar off.
	Quiet bool

	backend compute.Backend
	pcg     *rand.PCG
	rng     *rand.Rand
	adj     *adjacency
	sampler *negativeSampler
	step    *Exec

	// Per-step buffers, reused.
	slot    []int32 // node → local row in the current batch, −1 when absent
	touched []int32 // local row → node
}

// NewTrainer validates the configuration and initialises the embedding from cfg.Seed.
func NewTrainer(backend compute.Backend, c *wordnet.Closure, cfg Config) (*Trainer, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if c.NumEdges() == 0 {
		return nil, fmt.Errorf("hierarchy: the closure has no edges")
	}
	t := &Trainer{Config: cfg, Closure: c, backend: backend}
	t.pcg = rand.NewPCG(cfg.Seed, seedStream)
	t.rng = rand.New(t.pcg)
	t.Emb = newEmbedding(c.Nodes, cfg, t.rng)
	t.init()
	return t, nil
}

// seedStream is the second PCG word; the first is Config.Seed.
const seedStream = 0x9e3779b97f4a7c15

func (t *Trainer) init() {
	t.adj = newAdjacency(t.Closure)
	t.sampler = newNegativeSampler(t.Closure, t.adj, t.Config.BurnInDampening)
	t.step = MustNewExec(t.backend, lossAndGradient(t.Config.Manifold, t.Config.Curvature))
	t.slot = make([]int32, t.Closure.NumNodes())
	for i := range t.slot {
		t.slot[i] = -1
	}
}

// Epoch is the number of epochs trained so far.
func (t *Trainer) Epoch() int { return len(t.History) }

// Train runs the remaining epochs up to Config.Epochs.
func (t *Trainer) Train() error {
	var bar *progress.Bar
	if !t.Quiet {
		bar = progress.New(fmt.Sprintf("%s d=%d seed %d", t.Config.Manifold, t.Config.Dim, t.Config.Seed), t.Config.Epochs)
		bar.Add(t.Epoch(), "")
		defer bar.Done()
	}
	for t.Epoch() < t.Config.Epochs {
		s, err := t.RunEpoch()
		if err != nil {
			return err
		}
		if bar != nil {
			bar.Add(1, fmt.Sprintf("loss %.4f", s.Loss))
		}
		if t.OnEpoch != nil {
			if err := t.OnEpoch(t, s); err != nil {
				return err
			}
		}
		last := t.Epoch() == t.Config.Epochs
		if t.CheckpointPath != "" && t.CheckpointEvery > 0 && (t.Epoch()%t.CheckpointEvery == 0 || last) {
			if err := t.SaveCheckpoint(t.CheckpointPath); err != nil {
				return err
			}
		}
	}
	return nil
}

// RunEpoch trains one epoch: a random permutation of the closure's edges in batches of
// Config.BatchSize positive pairs, each with Config.Negatives negatives.
func (t *Trainer) RunEpoch() (EpochStats, error) {
	cfg := t.Config
	start := time.Now()
	s := EpochStats{Epoch: t.Epoch() + 1, LR: cfg.LearningRate}
	if t.Epoch() < cfg.BurnInEpochs {
		s.BurnIn, s.LR = true, cfg.LearningRate*cfg.BurnInLRFactor
	}
	edges := t.Closure.Edges
	perm := t.rng.Perm(len(edges))
	b, k := cfg.BatchSize, cfg.Negatives
	width := 2 + k
	rowsCap := b * width
	triples := make([]int32, b*width)
	weights := make([]float64, b)
	var lossSum float64
	var batches int
	for lo := 0; lo < len(perm); lo += b {
		hi := min(lo+b, len(perm))
		t.touched = t.touched[:0]
		for j := range b {
			w := 1.0
			pairIdx := lo + j
			if pairIdx >= hi { // pad the last batch with copies of its first pair, weight 0
				pairIdx, w = lo, 0
			}
			e := edges[perm[pairIdx]]
			row := triples[j*width : (j+1)*width]
			row[0], row[1] = e.Child, e.Parent
			t.sampler.sample(t.rng, e.Child, s.BurnIn, row[2:])
			for i, node := range row {
				row[i] = t.local(node)
			}
			weights[j] = w
		}
		loss, grads, err := t.runStep(triples, weights, rowsCap)
		if err != nil {
			return s, err
		}
		if math.IsNaN(loss) || math.IsInf(loss, 0) {
			return s, fmt.Errorf("hierarchy: training diverged: loss %v at epoch %d, batch %d (learning rate %g too large for %s?)",
				loss, s.Epoch, batches+1, s.LR, cfg.Manifold)
		}
		s.MaxDeviation = math.Max(s.MaxDeviation, t.update(grads, s.LR))
		for _, node := range t.touched {
			t.slot[node] = -1
		}
		lossSum += loss
		batches++
	}
	s.Loss = lossSum / float64(batches)
	s.Seconds = time.Since(start).Seconds()
	t.History = append(t.History, s)
	return s, nil
}

// local returns the batch-local row of node, adding it to the touched rows on first use.
func (t *Trainer) local(node int32) int32 {
	if l := t.slot[node]; l >= 0 {
		return l
	}
	l := int32(len(t.touched))
	t.slot[node] = l
	t.touched = append(t.touched, node)
	return l
}

// runStep feeds the touched rows (padded with zero rows to the fixed capacity, so the graph is
// compiled once) and returns the loss and the gradient of each touched row, as float64.
func (t *Trainer) runStep(triples []int32, weights []float64, rowsCap int) (float64, []float64, error) {
	d := t.Config.Dim
	flat := make([]float64, rowsCap*d)
	for l, node := range t.touched {
		copy(flat[l*d:(l+1)*d], t.Emb.Space(int(node)))
	}
	var rows, w *tensors.Tensor
	if t.Config.DType == dtypes.Float32 {
		rows = tensors.FromFlatDataAndDimensions(toFloat32(flat), rowsCap, d)
		w = tensors.FromFlatDataAndDimensions(toFloat32(weights), len(weights))
	} else {
		rows = tensors.FromFlatDataAndDimensions(flat, rowsCap, d)
		w = tensors.FromFlatDataAndDimensions(weights, len(weights))
	}
	tr := tensors.FromFlatDataAndDimensions(triples, len(weights), len(triples)/len(weights))
	outs, err := t.step.Call(rows, tr, w)
	if err != nil {
		return 0, nil, fmt.Errorf("hierarchy: training step: %w", err)
	}
	loss, grad := toFloat64(outs[0]), toFloat64(outs[1])
	for _, o := range outs {
		o.MustFinalizeAll()
	}
	rows.MustFinalizeAll()
	tr.MustFinalizeAll()
	w.MustFinalizeAll()
	return loss[0], grad[:len(t.touched)*d], nil
}

// update applies the manifold's Riemannian SGD step to every touched row and returns the largest
// Lorentz manifold deviation before reprojection.
func (t *Trainer) update(grads []float64, lr float64) float64 {
	d, c := t.Config.Dim, t.Config.Curvature
	worst := 0.0
	var scratch []float64
	if t.Config.Manifold == Lorentz {
		scratch = make([]float64, d+1)
	}
	for l, node := range t.touched {
		g := grads[l*d : (l+1)*d]
		row := t.Emb.Row(int(node))
		switch t.Config.Manifold {
		case Lorentz:
			worst = math.Max(worst, LorentzStep(row, g, lr, c, scratch))
			if t.Config.Reproject {
				LorentzReproject(row, c)
			}
		case Poincare:
			PoincareStep(row, g, lr, c)
		case Euclidean:
			EuclideanStep(row, g, lr)
		}
	}
	return worst
}

func toFloat32(x []float64) []float32 {
	out := make([]float32, len(x))
	for i, v := range x {
		out[i] = float32(v)
	}
	return out
}

// toFloat64 copies a float32 or float64 tensor into a []float64.
func toFloat64(t *tensors.Tensor) []float64 {
	if t.DType() == dtypes.Float32 {
		f := tensors.MustCopyFlatData[float32](t)
		out := make([]float64, len(f))
		for i, v := range f {
			out[i] = float64(v)
		}
		return out
	}
	return tensors.MustCopyFlatData[float64](t)
}
