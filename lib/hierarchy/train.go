package hierarchy

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"

	"github.com/geoalign/geoalign/lib/data/wordnet"
	"github.com/geoalign/geoalign/lib/train"
	"github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
)

// EpochStats summarises one training epoch (one record of lib/train's loop).
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

// Store paths of the run state a checkpoint holds besides lib/train's own.
const (
	// EmbeddingVar is the store variable holding the float64 table [N, Stride] in checkpoints (the
	// table lives in Trainer.Emb while training; it is copied in before every checkpoint).
	EmbeddingVar = "/hierarchy/embedding"
	// ConfigParam is the store parameter holding the run's Config (Epochs aside) and the closure's
	// fingerprint as JSON, so that a run directory is never resumed with another configuration or
	// closure, and LoadEmbedding knows the manifold of the table.
	ConfigParam = "/hierarchy/config"
)

// Trainer fits an Embedding of a closure with lib/train's loop: every epoch a permutation of the
// closure's edges drawn from the loop's data-order generator (seeded by Config.Seed), cut into
// batches of Config.BatchSize pairs, one Riemannian SGD step per batch; a record per epoch. Create
// it with NewTrainer, optionally give it a run directory with Open (checkpoints every epoch,
// resume), and call Train.
type Trainer struct {
	Config  Config
	Closure *wordnet.Closure
	Emb     *Embedding
	// History holds one EpochStats per epoch trained (restored with a checkpoint).
	History []EpochStats
	// Store holds the table (EmbeddingVar, copied in at every checkpoint) and the loop's state.
	Store *model.Store

	// OnEpoch, when set, is called after every epoch; returning an error stops Train.
	OnEpoch func(t *Trainer, s EpochStats) error
	// Quiet turns the progress bar off, Label names it ("": "<manifold> d=<dim> seed <seed>"), Log
	// receives one line per epoch (nil: none; lib/train's Config.Log); they are read when the loop
	// starts (Open or the first Train).
	Quiet bool
	Label string
	Log   io.Writer

	backend compute.Backend
	// pcg drives the initialisation and the negative sampler (host state of the loop's checkpoints).
	pcg     *rand.PCG
	rng     *rand.Rand
	adj     *adjacency
	sampler *negativeSampler
	step    *Exec
	loop    *train.Loop[batch]
	result  *train.Result // the loop's result after the last RunEpochs
	dir     string
	// maxDev is the largest manifold deviation since the last record.
	maxDev float64

	// Per-step buffers, reused.
	slot    []int32 // node → local row in the current batch, −1 when absent
	touched []int32 // local row → node
}

// batch is one step of the loop's plan: the epoch (burn-in depends on it) and indices into
// Closure.Edges (fewer than BatchSize in the last batch of an epoch, which the step pads).
type batch struct {
	Epoch int
	Pairs []int
}

// NewTrainer validates the configuration and initialises the embedding from cfg.Seed. The run
// lives in memory unless Open gives it a directory.
func NewTrainer(backend compute.Backend, c *wordnet.Closure, cfg Config) (*Trainer, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if c.NumEdges() == 0 {
		return nil, fmt.Errorf("hierarchy: the closure has no edges")
	}
	t := &Trainer{Config: cfg, Closure: c, backend: backend, Store: model.NewStore()}
	t.pcg = rand.NewPCG(uint64(cfg.Seed), seedStream)
	t.rng = rand.New(t.pcg)
	t.Emb = newEmbedding(c.Nodes, cfg, t.rng)
	t.adj = newAdjacency(c)
	t.sampler = newNegativeSampler(c, t.adj, cfg.BurnInDampening)
	t.step = MustNewExec(backend, lossAndGradient(cfg.Manifold, cfg.Curvature, cfg.ConeWeight))
	t.slot = make([]int32, c.NumNodes())
	for i := range t.slot {
		t.slot[i] = -1
	}
	if _, err := t.Store.CreateVariable(EmbeddingVar, t.table()); err != nil {
		return nil, fmt.Errorf("hierarchy: %w", err)
	}
	t.Store.GetVariable(EmbeddingVar).SetTrainable(false) // updated on the host, never by a graph
	desc, err := describeRun(cfg, c)
	if err != nil {
		return nil, err
	}
	t.Store.SetParam(ConfigParam, desc)
	return t, nil
}

// seedStream is the second PCG word; the first is Config.Seed.
const seedStream = 0x9e3779b97f4a7c15

// runDescription is what ConfigParam holds.
type runDescription struct {
	Config  Config `json:"config"` // Epochs zeroed: a run may be continued with more epochs
	Closure string `json:"closure"`
}

// describeRun is the JSON of ConfigParam for cfg on closure c.
func describeRun(cfg Config, c *wordnet.Closure) (string, error) {
	cfg.Epochs = 0
	b, err := json.Marshal(runDescription{Config: cfg, Closure: closureFingerprint(c)})
	return string(b), err
}

// closureFingerprint is the SHA-256 of the closure's node names and edges.
func closureFingerprint(c *wordnet.Closure) string {
	h := sha256.New()
	for _, n := range c.Nodes {
		h.Write([]byte(n))
		h.Write([]byte{0})
	}
	for _, e := range c.Edges {
		binary.Write(h, binary.LittleEndian, [2]int32{e.Child, e.Parent})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// table is the embedding as a float64 tensor [N, Stride] (a copy).
func (t *Trainer) table() *tensors.Tensor {
	return tensors.FromFlatDataAndDimensions(t.Emb.Coords, t.Emb.Len(), t.Emb.Stride())
}

// Open makes dir the run directory (created if missing): a checkpoint every epoch, in lib/train's
// format, history.json beside it. When dir holds a checkpoint of the same configuration and
// closure, the trainer continues from it (Emb, History and the random state restored), bit for bit
// as if it had never stopped. Call it before training.
func (t *Trainer) Open(dir string) error {
	if t.loop != nil {
		return fmt.Errorf("hierarchy: Open(%q) after training started", dir)
	}
	t.dir = dir
	return t.startLoop()
}

// startLoop builds the loop (restoring the run directory's checkpoint, if any).
func (t *Trainer) startLoop() error {
	if t.loop != nil {
		return nil
	}
	cfg := t.Config
	edges := len(t.Closure.Edges)
	task := train.Task[batch]{
		Store: t.Store,
		Plan: func(epoch int, rng *rand.Rand) ([]batch, error) {
			perm := rng.Perm(edges)
			var out []batch
			for lo := 0; lo < edges; lo += cfg.BatchSize {
				out = append(out, batch{Epoch: epoch, Pairs: perm[lo:min(lo+cfg.BatchSize, edges)]})
			}
			return out, nil
		},
		Step:     t.trainStep,
		Annotate: t.annotate,
		Host:     hostState{t},
	}
	label := t.Label
	if label == "" {
		label = fmt.Sprintf("%s d=%d seed %d", cfg.Manifold, cfg.Dim, cfg.Seed)
	}
	loop, err := train.NewLoop(task, train.Config{Epochs: cfg.Epochs, Seed: cfg.Seed, Dir: t.dir, Label: label, Quiet: t.Quiet, Log: t.Log})
	if err != nil {
		return fmt.Errorf("hierarchy: %w", err)
	}
	t.loop = loop
	return t.readHistory()
}

// Epoch is the number of epochs trained so far.
func (t *Trainer) Epoch() int { return len(t.History) }

// Train runs the remaining epochs up to Config.Epochs.
func (t *Trainer) Train() error { return t.run(-1) }

// RunEpoch trains one more epoch and returns its statistics.
func (t *Trainer) RunEpoch() (EpochStats, error) {
	if err := t.run(1); err != nil {
		return EpochStats{}, err
	}
	if len(t.History) == 0 {
		return EpochStats{}, errors.New("hierarchy: no epoch to run (Config.Epochs is 0)")
	}
	return t.History[len(t.History)-1], nil
}

// run trains at most n more epochs (n < 0: to the end).
func (t *Trainer) run(n int) error {
	if t.Config.Epochs == 0 {
		return nil
	}
	if err := t.startLoop(); err != nil {
		return err
	}
	res, err := t.loop.RunEpochs(n)
	if nf := (*train.NonFiniteError)(nil); errors.As(err, &nf) {
		return fmt.Errorf("hierarchy: training diverged (learning rate %g too large for %s?): %w", t.Config.LearningRate, t.Config.Manifold, err)
	}
	if err != nil {
		return err
	}
	t.result = res
	return t.readHistory()
}

// readHistory rebuilds History from the loop's records (each holds its EpochStats as JSON).
func (t *Trainer) readHistory() error {
	records := t.loop.Records()
	t.History = make([]EpochStats, len(records))
	for i, r := range records {
		if err := json.Unmarshal(r.Extra, &t.History[i]); err != nil {
			return fmt.Errorf("hierarchy: epoch %d of the training history: %w", r.Epoch, err)
		}
	}
	return nil
}

// learningRate is the learning rate of epoch (0-based) and whether it is in burn-in.
func (t *Trainer) learningRate(epoch int) (float64, bool) {
	if epoch < t.Config.BurnInEpochs {
		return t.Config.LearningRate * t.Config.BurnInLRFactor, true
	}
	return t.Config.LearningRate, false
}

// trainStep is the loop's Step: Config.Negatives negatives per pair from the sampler, the loss
// and the touched rows' gradients from the graph, the Riemannian update on the host. A non-finite
// loss is returned without updating (the loop stops on it).
func (t *Trainer) trainStep(b batch) ([]float64, error) {
	cfg := t.Config
	lr, burnIn := t.learningRate(b.Epoch)
	width := 2 + cfg.Negatives
	triples := make([]int32, cfg.BatchSize*width)
	weights := make([]float64, cfg.BatchSize)
	t.touched = t.touched[:0]
	defer func() {
		for _, node := range t.touched {
			t.slot[node] = -1
		}
	}()
	edges := t.Closure.Edges
	for j := range cfg.BatchSize {
		pair, w := b.Pairs[0], 0.0 // the last batch is padded with copies of its first pair, weight 0
		if j < len(b.Pairs) {
			pair, w = b.Pairs[j], 1
		}
		e := edges[pair]
		row := triples[j*width : (j+1)*width]
		row[0], row[1] = e.Child, e.Parent
		t.sampler.sample(t.rng, e.Child, burnIn, row[2:])
		for i, node := range row {
			row[i] = t.local(node)
		}
		weights[j] = w
	}
	loss, grads, err := t.runStep(triples, weights, cfg.BatchSize*width)
	if err != nil {
		return nil, err
	}
	if !math.IsNaN(loss) && !math.IsInf(loss, 0) {
		t.maxDev = math.Max(t.maxDev, t.update(grads, lr))
	}
	return []float64{loss}, nil
}

// annotate is the loop's Annotate: the epoch's record becomes an EpochStats (with the largest
// manifold deviation since the previous record), handed to OnEpoch.
func (t *Trainer) annotate(r *train.Record) (any, error) {
	lr, burnIn := t.learningRate(r.Epoch - 1)
	s := EpochStats{Epoch: r.Epoch, Loss: r.Loss, LR: lr, BurnIn: burnIn, Seconds: r.Seconds, MaxDeviation: t.maxDev}
	t.maxDev = 0
	if t.OnEpoch != nil {
		if err := t.OnEpoch(t, s); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// hostState is the Trainer's part of a checkpoint that the store does not hold: MarshalBinary
// copies the table into EmbeddingVar and returns the sampler's generator and the running maximum
// deviation; UnmarshalBinary (on resume, after the store was loaded) checks the run's
// configuration and closure and restores all three.
type hostState struct{ t *Trainer }

type hostJSON struct {
	PCG          []byte  `json:"pcg"`
	MaxDeviation float64 `json:"max_deviation"`
}

func (h hostState) MarshalBinary() ([]byte, error) {
	t := h.t
	if err := t.Store.GetVariable(EmbeddingVar).SetValue(t.table()); err != nil {
		return nil, fmt.Errorf("hierarchy: %w", err)
	}
	pcg, err := t.pcg.MarshalBinary()
	if err != nil {
		return nil, err
	}
	return json.Marshal(hostJSON{PCG: pcg, MaxDeviation: t.maxDev})
}

func (h hostState) UnmarshalBinary(b []byte) error {
	t := h.t
	want, err := describeRun(t.Config, t.Closure)
	if err != nil {
		return err
	}
	if got := model.GetParamOr(t.Store.Scope("/hierarchy"), "config", ""); got != want {
		return fmt.Errorf("hierarchy: the run was trained with another configuration or closure:\n  run:  %s\n  this: %s", got, want)
	}
	coords, err := tableOf(t.Store, t.Emb.Len(), t.Emb.Stride())
	if err != nil {
		return err
	}
	var hs hostJSON
	if err := json.Unmarshal(b, &hs); err != nil {
		return fmt.Errorf("hierarchy: host state: %w", err)
	}
	if err := t.pcg.UnmarshalBinary(hs.PCG); err != nil {
		return fmt.Errorf("hierarchy: sampler state: %w", err)
	}
	t.Emb.Coords, t.maxDev = coords, hs.MaxDeviation
	return nil
}

// tableOf reads EmbeddingVar of store, which must be [n, stride] float64.
func tableOf(store *model.Store, n, stride int) ([]float64, error) {
	v := store.GetVariable(EmbeddingVar)
	if v == nil {
		return nil, fmt.Errorf("hierarchy: the checkpoint has no %s", EmbeddingVar)
	}
	value, err := v.Value()
	if err != nil {
		return nil, fmt.Errorf("hierarchy: %s: %w", EmbeddingVar, err)
	}
	if dims := value.Shape().Dimensions; value.DType() != dtypes.Float64 || len(dims) != 2 || dims[0] != n || dims[1] != stride {
		return nil, fmt.Errorf("hierarchy: %s is %s, want float64 [%d, %d]", EmbeddingVar, value.Shape(), n, stride)
	}
	return tensors.MustCopyFlatData[float64](value), nil
}

// LoadEmbedding reads the embedding of the newest checkpoint of a run directory (Trainer.Open)
// trained on closure c.
func LoadEmbedding(dir string, c *wordnet.Closure) (*Embedding, error) {
	store, err := train.LoadStore(dir)
	if err != nil {
		return nil, err
	}
	var desc runDescription
	if err := json.Unmarshal([]byte(model.GetParamOr(store.Scope("/hierarchy"), "config", "")), &desc); err != nil {
		return nil, fmt.Errorf("hierarchy: %s: the run's %s: %w", dir, ConfigParam, err)
	}
	if desc.Closure != closureFingerprint(c) {
		return nil, fmt.Errorf("hierarchy: %s was trained on another closure than the one given (%d nodes, %d edges)", dir, c.NumNodes(), c.NumEdges())
	}
	cfg := desc.Config
	e := &Embedding{Manifold: cfg.Manifold, Dim: cfg.Dim, Curvature: cfg.Curvature, Names: c.Nodes}
	if e.Coords, err = tableOf(store, e.Len(), e.Stride()); err != nil {
		return nil, fmt.Errorf("%w (in %s)", err, dir)
	}
	return e, nil
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
