package hlformer

import (
	"fmt"
	"slices"

	"github.com/geoalign/geoalign/lib/seedrand"

	geobackend "github.com/geoalign/geoalign/lib/backend" // parameters here are named backend
	"github.com/geoalign/geoalign/lib/train"
	"github.com/gomlx/compute"
	. "github.com/gomlx/gomlx/core/graph" //nolint:staticcheck // GoMLX graph-building style (as in ml/layers).
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
)

// DefaultVideoChunk is the number of videos whose encoder activations the chunked training step holds
// at once. A paper-sized step keeps ≈ 170 MB of activations per video for the backward pass (8
// attention branches × 128 frames), so the single graph needs > 20 GB at the official 128 videos per
// batch; blocks of 16 bring it to a few GB (BenchmarkPairedHLFormerTrainStep, figures/bench.md).
const DefaultVideoChunk = 16

// DefaultChunk is the step that TrainConfig.VideoChunk = 0 selects on backend b: the chunked step
// with DefaultVideoChunk videos per block on the CPU backends, where a paper-sized batch as one
// graph needs ≈ 22 GB, and the single graph (SingleGraphStep) on a GPU (backend.OnGPU), where it fits
// (9.9 GB at 128 videos) and the chunked step measured 4.7× slower (figures/gpu-check.md).
func DefaultChunk(b compute.Backend) int {
	if geobackend.OnGPU(b) {
		return SingleGraphStep
	}
	return DefaultVideoChunk
}

// SingleGraphStep, as TrainConfig.VideoChunk, selects the single-graph step: forward, backward and
// update of the whole batch in one executable (train.NewStep), every activation of the batch alive at
// once. Every committed HLFormer result was trained with it (Scale.Training keeps it, so that cached
// runs and tables are reproduced bit for bit).
const SingleGraphStep = -1

// Step is a compiled HLFormer training step. Run takes the batch's clips, frames, frame mask, tokens,
// token mask, labels (BatchInputs, as *tensors.Tensor) and the hard-negative switch (bool), applies
// one BertAdam update and returns the loss terms (LossTermNames).
type Step interface {
	Run(inputs ...any) ([]*tensors.Tensor, error)
}

// NewStep returns m's training step on the store's variables under opt: with videoChunk > 0 the
// chunked step (blocks of train.BlockSize(batch, videoChunk) videos, see chunkedStep), with
// SingleGraphStep the single graph.
func NewStep(backend compute.Backend, m *Model, store *model.Store, opt *train.Adam, lc LossConfig, videoChunk int) (Step, error) {
	if videoChunk == SingleGraphStep {
		return train.NewStep(backend, store, opt, func(scope *model.Scope, in []*Node) []*Node {
			b := Batch{Clips: in[0], Frames: in[1], FrameMask: in[2], Tokens: in[3], TokenMask: in[4], Labels: in[5]}
			return m.Loss(scope, b, in[6], lc).Outputs()
		})
	}
	return newChunkedStep(backend, m, store, opt, lc, videoChunk)
}

// chunkedStep is HLFormer's training step computed a block of videos at a time, with the exact
// gradient of the batch objective (Eq. 21). The video encoders (glance and gaze branches) treat
// every video on its own — attention, MAIM and the pooling act within one video — and the batch
// couples the videos only through the encoded clips and frames that the loss compares with the
// queries. So a step runs four executables:
//
//  1. forward, once per block of c videos: EncodeVideos on the block (no gradients, so its
//     activations are freed as it goes); outputs the block's encoded clips and frames;
//  2. head: the query encoder and the whole loss on the encoded videos (LossOfEncoded), its value,
//     its gradient with respect to the head's parameters and to every block's encoded clips and
//     frames;
//  3. backward, once per block: EncodeVideos on the block again and the gradient of
//     ⟨∂L/∂clips, clips⟩ + ⟨∂L/∂frames, frames⟩ with respect to the video encoders' parameters,
//     summed over blocks — by the chain rule, the block's share of ∂L/∂θ;
//  4. update: BertAdam on every parameter (train.Adam.ApplyGradients).
//
// Dropout: each forward block draws its masks from the store's RNG as the single graph would; the
// state before each block is kept and restored before its backward block, so both passes draw the
// same masks; the state after the head (query dropout, triplet negatives) is restored at the end.
// The masks are drawn in a different order than in the single graph (videos before the queries),
// so the two steps agree exactly without dropout and in distribution with it.
//
// The price is a second forward pass of the video encoders (about 1.3× the single graph's
// arithmetic); the gain is memory: one block's activations instead of the batch's.
type chunkedStep struct {
	backend compute.Backend
	m       *Model
	store   *model.Store
	opt     *train.Adam
	lc      LossConfig
	chunk   int
	rngVar  *model.Variable

	// videoVars are the trainable variables of the video encoders (found when the forward graph is
	// built), headVars those of the head (query encoder, POP pooling and scales).
	videoVars, headVars []*model.Variable
	// gradientsOnly (tests): the update returns the gradients of updateVars instead of applying them.
	gradientsOnly bool
	updateVars    []*model.Variable

	forward, head, backward, update *model.Exec
}

func newChunkedStep(backend compute.Backend, m *Model, store *model.Store, opt *train.Adam, lc LossConfig, chunk int) (*chunkedStep, error) {
	if chunk < 1 {
		return nil, fmt.Errorf("hlformer: video chunk %d must be ≥ 1 (or SingleGraphStep)", chunk)
	}
	rng := store.GetVariable(model.JoinPath("/", model.RNGStateVariableName))
	if rng == nil {
		return nil, fmt.Errorf("hlformer: the store has no RNG state; use NewStore")
	}
	s := &chunkedStep{backend: backend, m: m, store: store, opt: opt, lc: lc, chunk: chunk, rngVar: rng}
	var err error
	for _, e := range []struct {
		exec  **model.Exec
		build func(*model.Scope, []*Node) []*Node
	}{{&s.forward, s.buildForward}, {&s.head, s.buildHead}, {&s.backward, s.buildBackward}, {&s.update, s.buildUpdate}} {
		if *e.exec, err = model.NewExec(backend, store, e.build); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// branches is the number of encoded tensors per block (clips and/or frames).
func (s *chunkedStep) branches() int {
	n := 0
	if s.m.Config.Glance {
		n++
	}
	if s.m.Config.Gaze {
		n++
	}
	return n
}

// encodeBlock gathers the block's rows (rowIndex [c, 1]) of the batch's clips, frames and frame
// mask and encodes them; it returns the encoded tensors that exist, clips first.
func (s *chunkedStep) encodeBlock(scope *model.Scope, clips, frames, frameMask, rowIndex *Node) []*Node {
	rows := func(x *Node) *Node { return Gather(x, rowIndex, true) }
	v := s.m.EncodeVideos(scope, rows(clips), rows(frames), rows(frameMask))
	var out []*Node
	for _, x := range []*Node{v.Clips, v.Frames} {
		if x != nil {
			out = append(out, x)
		}
	}
	return out
}

// exampleBlock tells lib/seedrand's dropout which videos of the batch the block's graph encodes
// (rowIndex [c, 1], consecutive), so that it draws their masks as the single graph does.
func (s *chunkedStep) exampleBlock(scope *model.Scope, rowIndex *Node) {
	seedrand.SetExampleBlock(scope, rowIndex.Graph(), Reshape(Slice(rowIndex, AxisElem(0), AxisElem(0))), rowIndex.Shape().Dim(0))
}

// buildForward is executable 1: inputs clips, frames, frame mask, the block's row indices; outputs the
// block's encoded clips [c, ClipLen, d] and/or frames [c, FrameLen, d].
func (s *chunkedStep) buildForward(scope *model.Scope, in []*Node) []*Node {
	g := in[0].Graph()
	s.store.SetTraining(g, true)
	s.exampleBlock(scope, in[3])
	out := s.encodeBlock(scope, in[0], in[1], in[2], in[3])
	s.videoVars = train.TrainableIn(s.store.IterVariables(), g)
	return out
}

// buildHead is executable 2: inputs tokens, token mask, labels, hard, then every block's encoded clips
// and every block's encoded frames (as executable 1 returned them); outputs the loss terms
// (LossTerms.Outputs), the gradient of the total with respect to every encoded block (same order) and
// to headVars.
func (s *chunkedStep) buildHead(scope *model.Scope, in []*Node) []*Node {
	g := in[0].Graph()
	s.store.SetTraining(g, true)
	b := Batch{Tokens: in[0], TokenMask: in[1], Labels: in[2]}
	encoded := in[4:]
	perBranch := len(encoded) / s.branches()
	var v EncodedVideos
	next := 0
	take := func() *Node {
		x := Concatenate(encoded[next:next+perBranch], 0)
		next += perBranch
		return x
	}
	if s.m.Config.Glance {
		v.Clips = take()
	}
	if s.m.Config.Gaze {
		v.Frames = take()
	}
	terms := s.m.LossOfEncoded(scope, b, v, in[3], s.lc)
	s.headVars = train.TrainableIn(s.store.IterVariables(), g)
	for _, hv := range s.headVars {
		if slices.Contains(s.videoVars, hv) {
			panic(fmt.Sprintf("hlformer: %s is read by both the video encoders and the head", hv.Path()))
		}
	}
	grads := Gradient(terms.Total, append(slices.Clone(encoded), train.VariableNodes(s.headVars, g)...)...)
	return append(terms.Outputs(), grads...)
}

// buildBackward is executable 3: inputs clips, frames, frame mask, the block's row indices, ∂L/∂ of
// the block's encoded clips and/or frames, then the running gradient sums of videoVars; outputs the
// sums with this block added.
func (s *chunkedStep) buildBackward(scope *model.Scope, in []*Node) []*Node {
	g := in[0].Graph()
	s.store.SetTraining(g, true)
	s.exampleBlock(scope, in[3])
	enc := s.encodeBlock(scope, in[0], in[1], in[2], in[3])
	upstream, sums := in[4:4+len(enc)], in[4+len(enc):]
	sur := ReduceAllSum(Mul(enc[0], upstream[0]))
	for i := 1; i < len(enc); i++ {
		sur = Add(sur, ReduceAllSum(Mul(enc[i], upstream[i])))
	}
	vars := train.TrainableIn(s.store.IterVariables(), g)
	if !slices.Equal(vars, s.videoVars) {
		panic("hlformer: the backward block reads other variables than the forward block")
	}
	return train.AddToSums(sums, Gradient(sur, train.VariableNodes(vars, g)...))
}

// buildUpdate is executable 4: inputs the gradients of headVars then videoVars; applies BertAdam and
// outputs the global gradient norm before clipping (the gradients themselves when gradientsOnly).
func (s *chunkedStep) buildUpdate(scope *model.Scope, in []*Node) []*Node {
	g := in[0].Graph()
	s.store.SetTraining(g, true)
	s.updateVars = append(slices.Clone(s.headVars), s.videoVars...)
	if s.gradientsOnly {
		return in
	}
	norm := ScalarZero(g, in[0].DType())
	for _, gr := range in {
		norm = Add(norm, ReduceAllSum(Square(gr)))
	}
	s.opt.ApplyGradients(scope, g, s.updateVars, slices.Clone(in))
	return []*Node{Sqrt(norm)}
}

// rngState returns a copy of the store's RNG state.
func (s *chunkedStep) rngState() (*tensors.Tensor, error) {
	t, err := s.rngVar.Value()
	if err != nil {
		return nil, err
	}
	return t.Clone()
}

// setRNGState sets the store's RNG state to a copy of t (the variable owns, and later frees, its value).
func (s *chunkedStep) setRNGState(t *tensors.Tensor) error {
	c, err := t.Clone()
	if err != nil {
		return err
	}
	return s.rngVar.SetValue(c)
}

// Run implements Step.
func (s *chunkedStep) Run(inputs ...any) ([]*tensors.Tensor, error) {
	terms, out, err := s.execute(inputs)
	train.FinalizeAll(out)
	return terms, err
}

// execute runs the four executables; it returns the loss terms and the update's outputs.
func (s *chunkedStep) execute(inputs []any) ([]*tensors.Tensor, []*tensors.Tensor, error) {
	if len(inputs) != 7 {
		return nil, nil, fmt.Errorf("hlformer: a training step takes 7 inputs (BatchInputs and hard), got %d", len(inputs))
	}
	clips, ok := inputs[0].(*tensors.Tensor)
	if !ok {
		return nil, nil, fmt.Errorf("hlformer: the chunked step needs the clips as a *tensors.Tensor, got %T", inputs[0])
	}
	videos := clips.Shape().Dimensions[0]
	chunk := train.BlockSize(videos, s.chunk)
	video := inputs[:3] // clips, frames, frame mask

	train.ReleaseStageBuffers()
	var states []*tensors.Tensor
	defer func() { train.FinalizeAll(states) }()
	encoded := make([][]*tensors.Tensor, s.branches()) // per branch, one tensor per block
	for start := 0; start < videos; start += chunk {
		st, err := s.rngState()
		if err != nil {
			return nil, nil, err
		}
		states = append(states, st)
		out, err := s.forward.Exec(append(slices.Clone(video), train.RowIndices(start, chunk))...)
		if err != nil {
			return nil, nil, fmt.Errorf("hlformer: chunked step, forward of videos %d–%d: %w", start, start+chunk-1, err)
		}
		for i, x := range out {
			encoded[i] = append(encoded[i], x)
		}
	}
	headIn := slices.Clone(inputs[3:])
	for _, list := range encoded {
		headIn = append(headIn, train.AnySlice(list)...)
	}
	train.ReleaseStageBuffers()
	hd, err := s.head.Exec(headIn...)
	train.FinalizeAll(encoded...)
	if err != nil {
		return nil, nil, fmt.Errorf("hlformer: chunked step, loss: %w", err)
	}
	nTerms, blocks := len(LossTermNames), len(states)
	terms, upstream, headGrads := hd[:nTerms], hd[nTerms:nTerms+len(encoded)*blocks], hd[nTerms+len(encoded)*blocks:]
	afterHead, err := s.rngState()
	if err != nil {
		return nil, nil, err
	}
	defer afterHead.FinalizeAll()

	sums := make([]*tensors.Tensor, len(s.videoVars))
	for i, v := range s.videoVars {
		sums[i] = train.Zeros(v.DType(), v.Shape().Dimensions...)
	}
	train.ReleaseStageBuffers()
	for k, st := range states {
		if err := s.setRNGState(st); err != nil {
			return nil, nil, err
		}
		in := append(slices.Clone(video), train.RowIndices(k*chunk, chunk))
		for branch := range encoded {
			in = append(in, upstream[branch*blocks+k])
		}
		donated, err := train.DonateSums(s.backend, sums)
		if err != nil {
			return nil, nil, err
		}
		if sums, err = s.backward.Exec(append(in, donated...)...); err != nil {
			return nil, nil, fmt.Errorf("hlformer: chunked step, backward of videos %d–%d: %w", k*chunk, (k+1)*chunk-1, err)
		}
	}
	if err := s.setRNGState(afterHead); err != nil {
		return nil, nil, err
	}
	train.FinalizeAll(upstream)
	train.ReleaseStageBuffers()
	out, err := s.update.Exec(train.AnySlice(append(headGrads, sums...))...)
	if !s.gradientsOnly { // (the Go backend may return an input buffer as an output)
		train.FinalizeAll(headGrads, sums)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("hlformer: chunked step, update: %w", err)
	}
	return terms, out, nil
}
