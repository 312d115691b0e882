package gare

import (
	"fmt"
	"slices"

	"github.com/geoalign/geoalign/lib/seedrand"

	"github.com/geoalign/geoalign/lib/loss"
	"github.com/geoalign/geoalign/lib/train"
	"github.com/gomlx/compute/dtypes"
	. "github.com/gomlx/gomlx/core/graph" //nolint:staticcheck // GoMLX graph-building style (as in ml/layers).
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
)

// DefaultTextChunk is the recommended TrainOptions.TextChunk of the chunked training step: the
// number of texts whose per-pair tensors ([texts, B, D]) it holds at once. 16 of the code's 128 keep
// a paper-sized step at a quarter of the single graph's memory (BenchmarkPairedGareTrainStep,
// figures/bench.md).
const DefaultTextChunk = 16

// SingleGraphStep, as TrainOptions.TextChunk (as is 0), selects the single-graph step: forward,
// backward and update of the whole batch in one executable, every [A, B, D] tensor of the batch and
// its gradient alive at once. It is the default because it is the step every committed GARE result
// was trained with (lib/studies/garestudy): the chunked step computes the same gradient but draws
// ψ's dropout from another random stream, so the default reproduces the figures and the chunked
// step is the option for memory (a paper-sized batch).
const SingleGraphStep = -1

// chunkedStep is GARE's training step computed a block of texts at a time, with the exact gradient
// of the batch objective (Eq. 28). Every per-pair quantity — S_ij, Δ_ij and the regulariser parts
// (loss.GAREParts) — depends on one text i, and the batch couples the rows only through S [A, B], the
// IB moments over texts [B, D] and the per-text rows [A]. So a step runs these executables:
//
//  1. encode: t = EncodeText, h = EncodeVideo (no gradients);
//     blockForward, once per block of c texts: S, the IB statistics, the norm and direction rows
//     of the block (no gradients: a block's [c, B, D] tensors are freed before the next);
//     parts: the blocks merged (the IB moments exactly, by Chan et al.'s pairwise update);
//  2. head: the loss from those (loss.GARETotalFromParts) and its gradient with respect to them;
//  3. block, once per block: the block's forward again and the gradient of the linearised head,
//     ⟨∂L/∂S, S⟩ + ⟨∂L/∂μ, μ⟩ + ⟨∂L/∂var, var⟩ + ⟨∂L/∂rows, rows⟩ restricted to the block — with
//     μ and var of the whole batch held fixed, which is exact: ∂var_j/∂x_ij = 2(x_ij − μ_j)/(n−1)
//     because Σ_i (x_ij − μ_j) = 0 — with respect to ψ, t and h, summed over blocks;
//  4. videoEncoder, once per block of c videos: the video tower's forward again and the gradient of
//     ⟨∂L/∂h, h⟩ with respect to its parameters (videos are independent in the tower);
//     update: the gradient of ⟨∂L/∂t, t⟩ through the text projection and the BertAdam update of
//     every parameter (train.Adam.ApplyGradients).
//
// Each block draws its ψ dropout from its own RNG state, chained from the store's stream in step 1
// and handed to step 3, so both passes see the same mask. The price is a second forward of every
// block and of the video tower (about 1.5× the single graph's time); the gain is memory: one block's
// tensors instead of the batch's (see train.ReleaseStageBuffers for the rest).
type chunkedStep struct {
	m         *Model
	opt       *train.Adam
	chunk     int
	words     bool
	blockVars []*model.Variable // variables the block graph reads (ψ, and the text projection for word context)
	rngVar    *model.Variable
	// gradientsOnly (tests): the update executable returns the gradients of updateVars instead of
	// applying them.
	gradientsOnly bool
	updateVars    []*model.Variable

	videoVars []*model.Variable // the video tower's variables (projection, frame positions, temporal transformer)

	encode, blockForward, parts, head, block, videoEncoder, update *model.Exec
}

func newChunkedStep(m *Model, opt *train.Adam, chunk int) (*chunkedStep, error) {
	cfg := m.Config
	if !cfg.UseDelta {
		return nil, fmt.Errorf("gare: the chunked step is for models with Δ; the baseline uses the single-graph step")
	}
	if chunk < 1 {
		return nil, fmt.Errorf("gare: text chunk %d must be ≥ 1 (or SingleGraphStep)", chunk)
	}
	rng := m.Store.GetVariable(model.JoinPath("/", model.RNGStateVariableName))
	if rng == nil {
		return nil, fmt.Errorf("gare: the store has no RNG state (models from New have one)")
	}
	s := &chunkedStep{m: m, opt: opt, chunk: train.BlockSize(cfg.Batch, chunk), words: cfg.Context == ContextWords, rngVar: rng}
	s.blockVars = m.vars.psiVariables()
	s.videoVars = m.vars.videoEncoderVariables()
	if s.words && m.vars.textProj != nil {
		s.blockVars = append(s.blockVars, m.vars.textProj.w, m.vars.textProj.b)
	}
	var err error
	if s.encode, err = model.NewExec(m.backend, m.Store, s.buildEncode); err != nil {
		return nil, err
	}
	if s.blockForward, err = model.NewExec(m.backend, m.Store, s.buildBlockForward); err != nil {
		return nil, err
	}
	if s.parts, err = model.NewExec(m.backend, m.Store, s.buildParts); err != nil {
		return nil, err
	}
	if s.head, err = model.NewExec(m.backend, m.Store, s.buildHead); err != nil {
		return nil, err
	}
	if s.block, err = model.NewExec(m.backend, m.Store, s.buildBlock); err != nil {
		return nil, err
	}
	if s.videoEncoder, err = model.NewExec(m.backend, m.Store, s.buildVideoEncoderBlock); err != nil {
		return nil, err
	}
	if s.update, err = model.NewExec(m.backend, m.Store, s.buildUpdate); err != nil {
		return nil, err
	}
	return s, nil
}

// blockPairs runs pairsLean on texts t [c, D] (and their words) against all the batch's videos.
// ψ's dropout is lib/seedrand's, told which texts of the batch the block holds (rowIndex [c, 1],
// consecutive), so that every block draws the masks the single graph draws for its texts; state
// passes through unchanged (next = state).
func (s *chunkedStep) blockPairs(scope *model.Scope, w Weights, t, h *Node, in Inputs, rowIndex, state *Node) (sim, delta, next *Node) {
	var fn func(*Node) *Node
	if rate := s.m.Config.PsiDropout; rate > 0 {
		seedrand.SetExampleBlock(scope, t.Graph(), Reshape(Slice(rowIndex, AxisElem(0), AxisElem(0))), rowIndex.Shape().Dim(0))
		fn = psiDropout(scope, rate)
	}
	sim, delta = pairsLean(s.m.Config, w, t, h, in, fn)
	return sim, delta, state
}

// inputsOf unpacks the batch inputs text, frames, mask[, words, word mask].
func (s *chunkedStep) inputsOf(in []*Node) Inputs {
	x := Inputs{Text: in[0], Frames: in[1], FrameMask: in[2]}
	if s.words {
		x.Words, x.WordMask = in[3], in[4]
	}
	return x
}

func (s *chunkedStep) numBatchInputs() int {
	if s.words {
		return 5
	}
	return 3
}

// buildEncode is executable 1a: inputs the batch inputs; outputs t [A, D] and h [B, F, D].
func (s *chunkedStep) buildEncode(scope *model.Scope, in []*Node) []*Node {
	g := in[0].Graph()
	s.m.Store.SetTraining(g, true)
	w := s.m.vars.encoderNodes(g)
	x := s.inputsOf(in)
	return []*Node{EncodeText(w, x.Text), EncodeVideo(w, x.Frames, x.FrameMask)}
}

// blockGraph reads the weights the block graphs use (ψ, and the text projection for word context)
// and gathers the block's rows of the batch inputs; rows gathers the block's rows of any per-text
// tensor [A, ...] (Gather rather than DynamicSlice, which GoMLX's Go backend lacks; its gradient is a
// scatter-add into the batch's rows).
func (s *chunkedStep) blockGraph(g *Graph, x Inputs, rowIndex *Node) (w Weights, bx Inputs, rows func(*Node) *Node) {
	rows = func(v *Node) *Node { return Gather(v, rowIndex, true) }
	vars := s.m.vars
	w.Psi = vars.psi.node(g)
	bx = x
	if s.words {
		if vars.textProj != nil {
			l := vars.textProj.node(g)
			w.TextProj = &l
		}
		bx.Words, bx.WordMask = rows(x.Words), rows(x.WordMask)
	}
	return w, bx, rows
}

// buildBlockForward is executable 1b, once per block: inputs the batch inputs, t, h, the block's
// row indices [c, 1] (int32) and its RNG state; outputs the block's S [c, B], its IB statistics
// (over texts: the block's mean [B, D] and sum of squared deviations [B, D]; over videos: the
// rows' mean and unbiased variance [c, D]), its norm and direction rows [c] and the next RNG state.
// No gradients: the block's [c, B, D] tensors are freed before the next block runs.
func (s *chunkedStep) buildBlockForward(scope *model.Scope, in []*Node) []*Node {
	cfg := s.m.Config
	g := in[0].Graph()
	s.m.Store.SetTraining(g, true)
	p := in[s.numBatchInputs():]
	t, h, rowIndex, state := p[0], p[1], p[2], p[3]
	w, bx, rows := s.blockGraph(g, s.inputsOf(in), rowIndex)
	sim, delta, next := s.blockPairs(scope, w, rows(t), h, bx, rowIndex, state)
	ib := ibInput(cfg, delta)
	var first, second *Node
	if cfg.Loss.IB.Anchor == loss.IBAnchorText {
		first, second = loss.IBMoments(ib, loss.IBAnchorText) // per text: the block's own rows
	} else {
		first = ReduceMean(ib, 0)                                    // [B, D]
		second = ReduceSum(Square(Sub(ib, InsertAxes(first, 0))), 0) // M2 of the block
	}
	return []*Node{sim, first, second, loss.NormVarianceRows(delta),
		loss.DirectionalRows(delta, cfg.Loss.Alpha, cfg.Loss.Directional), next}
}

// buildParts is executable 1c: inputs the blocks' outputs of 1b (S, first, second, norm rows,
// direction rows; each a list of one tensor per block, in this order); outputs the batch's S [A, B],
// IB mean and variance, norm rows and direction rows.
func (s *chunkedStep) buildParts(scope *model.Scope, in []*Node) []*Node {
	cfg := s.m.Config
	n := len(in) / 5
	sims, firsts, seconds, norms, dirs := in[:n], in[n:2*n], in[2*n:3*n], in[3*n:4*n], in[4*n:]
	a := n * s.chunk
	var mean, variance *Node
	if cfg.Loss.IB.Anchor == loss.IBAnchorText {
		mean, variance = Concatenate(firsts, 0), Concatenate(seconds, 0)
	} else {
		// Chan et al.: blocks of equal size n_c merge as μ = mean_c μ_c and
		// M2 = Σ_c M2_c + n_c Σ_c (μ_c − μ)²; the unbiased variance is M2 / (A − 1).
		stacked := Stack(firsts, 0) // [blocks, B, D]
		mean = ReduceMean(stacked, 0)
		between := MulScalar(ReduceSum(Square(Sub(stacked, InsertAxes(mean, 0))), 0), float64(s.chunk))
		variance = DivScalar(Add(ReduceSum(Stack(seconds, 0), 0), between), float64(a-1))
	}
	return []*Node{Concatenate(sims, 0), mean, variance, Concatenate(norms, 0), Concatenate(dirs, 0)}
}

// buildHead is executable 2: inputs S, IB mean, IB variance, norm rows, direction rows; outputs the
// loss terms (total, info, IB, norm, dir) and the gradient of the total with respect to each input.
func (s *chunkedStep) buildHead(scope *model.Scope, in []*Node) []*Node {
	cfg := s.m.Config
	sim := in[0]
	parts := loss.GAREParts{IBMean: in[1], IBVariance: in[2], NormRows: in[3], DirRows: in[4]}
	terms := loss.GARETotalFromParts(sim, Scalar(sim.Graph(), sim.DType(), cfg.LogitScale), parts, cfg.Loss)
	grads := Gradient(terms.Total, in...)
	return append([]*Node{terms.Total, terms.Info, terms.IB, terms.Norm, terms.Dir}, grads...)
}

// Inputs of executable 3 after the batch inputs.
const (
	blockT = iota
	blockH
	blockRows
	blockState
	blockGradSim
	blockMean
	blockGradMean
	blockGradVariance
	blockGradNorm
	blockGradDir
	blockAccT
	blockAccH
	blockAccVars // one per blockVars
)

// buildBlock is executable 3: inputs frame mask[, words, word mask] (the batch inputs, text and frames
// unused but passed for uniformity), then t, h, the block's row indices [c, 1] (int32), its RNG state, the head's
// gradients and the IB mean, then the running gradient sums for t, h and blockVars; outputs the sums
// with this block added.
func (s *chunkedStep) buildBlock(scope *model.Scope, in []*Node) []*Node {
	cfg := s.m.Config
	g := in[0].Graph()
	s.m.Store.SetTraining(g, true)
	x := s.inputsOf(in)
	p := in[s.numBatchInputs():]
	t, h, rowIndex := p[blockT], p[blockH], p[blockRows]
	a := t.Shape().Dimensions[0]
	b := h.Shape().Dimensions[0]
	w, bx, rows := s.blockGraph(g, x, rowIndex)
	sim, delta, _ := s.blockPairs(scope, w, rows(t), h, bx, rowIndex, p[blockState])

	// The head linearised at this step's point, restricted to the block's rows.
	sur := ReduceAllSum(Mul(rows(p[blockGradSim]), sim))
	if cfg.Loss.Beta != 0 {
		ib := ibInput(cfg, delta)
		mean, gMean, gVar := p[blockMean], p[blockGradMean], p[blockGradVariance]
		n, axis := a, 0 // statistics over the texts: one Gaussian per video, [B, D]
		if cfg.Loss.IB.Anchor == loss.IBAnchorText {
			n, axis = b, 1 // over the videos: the block's own texts, [c, D]
			mean, gMean, gVar = rows(mean), rows(gMean), rows(gVar)
		}
		lin := DivScalar(ReduceAllSum(Mul(InsertAxes(gMean, axis), ib)), float64(n))
		quad := DivScalar(ReduceAllSum(Mul(InsertAxes(gVar, axis), Square(Sub(ib, InsertAxes(mean, axis))))), float64(n-1))
		sur = Add(sur, Add(lin, quad))
	}
	if cfg.Loss.LambdaNorm != 0 {
		sur = Add(sur, ReduceAllSum(Mul(rows(p[blockGradNorm]), loss.NormVarianceRows(delta))))
	}
	if cfg.Loss.LambdaDir != 0 {
		sur = Add(sur, ReduceAllSum(Mul(rows(p[blockGradDir]), loss.DirectionalRows(delta, cfg.Loss.Alpha, cfg.Loss.Directional))))
	}
	wrt := []*Node{t, h}
	for _, v := range s.blockVars {
		wrt = append(wrt, v.NodeValue(g))
	}
	for v := range s.m.Store.IterVariables() {
		if v.Trainable && v.InUseByGraph(g) && slices.Index(s.blockVars, v) < 0 {
			panic(fmt.Sprintf("gare: the block graph reads %s, which is not in its gradient list", v.Path()))
		}
	}
	grads := Gradient(sur, wrt...)
	acc := p[blockAccT:]
	return train.AddToSums(acc, grads)
}

// buildVideoEncoderBlock is executable 4a, once per block of videos: inputs the batch inputs, the
// block's video row indices [c, 1] (int32), ∂L/∂h [B, F, D] and the running gradient sums of
// videoVars; it runs the video tower on the block's videos (each video's frames attend only to each
// other, so blocks of videos are independent) and back-propagates ⟨∂L/∂h, h⟩; outputs the sums with
// this block added.
func (s *chunkedStep) buildVideoEncoderBlock(scope *model.Scope, in []*Node) []*Node {
	g := in[0].Graph()
	s.m.Store.SetTraining(g, true)
	x := s.inputsOf(in)
	p := in[s.numBatchInputs():]
	rowIndex, gH, acc := p[0], p[1], p[2:]
	rows := func(v *Node) *Node { return Gather(v, rowIndex, true) }
	w := s.m.vars.videoEncoderNodes(g)
	h := EncodeVideo(w, rows(x.Frames), rows(x.FrameMask))
	sur := ReduceAllSum(Mul(rows(gH), h))
	nodes := make([]*Node, len(s.videoVars))
	for i, v := range s.videoVars {
		nodes[i] = v.NodeValue(g)
	}
	grads := Gradient(sur, nodes...)
	return train.AddToSums(acc, grads)
}

// buildUpdate is executable 4b: inputs the batch inputs, ∂L/∂t, the summed gradients of blockVars
// and of videoVars; it back-propagates ⟨∂L/∂t, t⟩ through the text projection (if any) and applies
// BertAdam to every parameter. Output: the global gradient norm before clipping (the gradients
// themselves when gradientsOnly).
func (s *chunkedStep) buildUpdate(scope *model.Scope, in []*Node) []*Node {
	g := in[0].Graph()
	s.m.Store.SetTraining(g, true)
	x := s.inputsOf(in)
	p := in[s.numBatchInputs():]
	gT := p[0]
	vars := append(append([]*model.Variable{}, s.blockVars...), s.videoVars...)
	grads := append([]*Node{}, p[1:]...)
	if tp := s.m.vars.textProj; tp != nil {
		l := tp.node(g)
		t := l.Apply(x.Text)
		textGrads := Gradient(ReduceAllSum(Mul(gT, t)), l.W, l.B)
		for i, v := range []*model.Variable{tp.w, tp.b} {
			if j := slices.Index(vars, v); j >= 0 {
				grads[j] = Add(grads[j], textGrads[i]) // the text projection also encodes the words
				continue
			}
			vars, grads = append(vars, v), append(grads, textGrads[i])
		}
	}
	s.updateVars = vars
	if s.gradientsOnly {
		return grads
	}
	norm := ScalarZero(g, dtypes.Float32)
	for _, gr := range grads {
		norm = Add(norm, ReduceAllSum(Square(gr)))
	}
	s.opt.ApplyGradients(scope, g, vars, grads)
	return []*Node{Sqrt(norm)}
}

// run performs one step on a batch's input tensors and returns the loss terms.
func (s *chunkedStep) run(batch []any) (StepStats, error) {
	st, out, err := s.execute(batch)
	for _, x := range out {
		x.FinalizeAll()
	}
	return st, err
}

// execute runs the four executables and returns the loss terms and the update's outputs.
func (s *chunkedStep) execute(batch []any) (StepStats, []*tensors.Tensor, error) {
	nb := s.numBatchInputs()
	train.ReleaseStageBuffers()
	enc, err := s.encode.Exec(batch...)
	if err != nil {
		return StepStats{}, nil, fmt.Errorf("gare: chunked step, encoders: %w", err)
	}
	t, h := enc[0], enc[1]
	a := t.Shape().Dimensions[0]
	current, err := s.rngVar.Value()
	if err != nil {
		return StepStats{}, nil, err
	}
	state, err := current.Clone() // the variable's tensor is released when the step sets the next state
	if err != nil {
		return StepStats{}, nil, err
	}
	var states []*tensors.Tensor
	blockOut := make([][]*tensors.Tensor, 5) // S, first, second, norm rows, dir rows per block
	for start := 0; start < a; start += s.chunk {
		states = append(states, state)
		in := append([]any{}, batch...)
		in = append(in, t, h, train.RowIndices(start, s.chunk), state)
		out, err := s.blockForward.Exec(in...)
		if err != nil {
			return StepStats{}, nil, fmt.Errorf("gare: chunked step, forward of block %d: %w", start/s.chunk, err)
		}
		for i := range 5 {
			blockOut[i] = append(blockOut[i], out[i])
		}
		state = out[5]
	}
	if err := s.rngVar.SetValue(state); err != nil {
		return StepStats{}, nil, err
	}
	var partIn []any
	for _, list := range blockOut {
		partIn = append(partIn, train.AnySlice(list)...)
	}
	parts, err := s.parts.Exec(partIn...)
	if err != nil {
		return StepStats{}, nil, fmt.Errorf("gare: chunked step, parts: %w", err)
	}
	for _, list := range blockOut {
		for _, x := range list {
			x.FinalizeAll()
		}
	}
	train.ReleaseStageBuffers()
	hd, err := s.head.Exec(train.AnySlice(parts)...)
	if err != nil {
		return StepStats{}, nil, fmt.Errorf("gare: chunked step, head: %w", err)
	}
	terms, grads := hd[:5], hd[5:] // grads: S, mean, variance, norm rows, dir rows
	acc := []*tensors.Tensor{train.Zeros(dtypes.Float32, t.Shape().Dimensions...), train.Zeros(dtypes.Float32, h.Shape().Dimensions...)}
	for _, v := range s.blockVars {
		acc = append(acc, train.Zeros(dtypes.Float32, v.Shape().Dimensions...))
	}
	for k, state := range states {
		in := append([]any{}, batch...)
		in = append(in, t, h, train.RowIndices(k*s.chunk, s.chunk), state,
			grads[0], parts[1], grads[1], grads[2], grads[3], grads[4])
		donated, err := train.DonateSums(s.m.backend, acc)
		if err != nil {
			return StepStats{}, nil, err
		}
		next, err := s.block.Exec(append(in, donated...)...)
		if err != nil {
			return StepStats{}, nil, fmt.Errorf("gare: chunked step, block %d: %w", k, err)
		}
		acc = next
	}
	// acc: ∂L/∂t, ∂L/∂h, then blockVars' gradients.
	videoAcc := make([]*tensors.Tensor, len(s.videoVars))
	for i, v := range s.videoVars {
		videoAcc[i] = train.Zeros(dtypes.Float32, v.Shape().Dimensions...)
	}
	train.ReleaseStageBuffers()
	if len(s.videoVars) > 0 {
		b := h.Shape().Dimensions[0]
		for start := 0; start < b; start += s.chunk {
			if start > 0 {
				train.ReleaseStageBuffers()
			}
			in := append([]any{}, batch...)
			in = append(in, train.RowIndices(start, s.chunk), acc[1])
			donated, err := train.DonateSums(s.m.backend, videoAcc)
			if err != nil {
				return StepStats{}, nil, err
			}
			next, err := s.videoEncoder.Exec(append(in, donated...)...)
			if err != nil {
				return StepStats{}, nil, fmt.Errorf("gare: chunked step, video encoder block %d: %w", start/s.chunk, err)
			}
			videoAcc = next
		}
	}
	train.ReleaseStageBuffers()
	up := append([]any{}, batch[:nb]...)
	up = append(up, acc[0])
	up = append(up, train.AnySlice(acc[2:])...)
	up = append(up, train.AnySlice(videoAcc)...)
	out, err := s.update.Exec(up...)
	if err != nil {
		return StepStats{}, nil, fmt.Errorf("gare: chunked step, update: %w", err)
	}
	st := StepStats{Step: int(train.GlobalStep(s.m.Store))}
	v := func(i int) float64 { return float64(tensors.ToScalar[float32](terms[i])) }
	st.Total, st.Info, st.IB, st.Norm, st.Dir = v(0), v(1), v(2), v(3), v(4)
	for _, list := range [][]*tensors.Tensor{enc, parts, hd, acc, videoAcc, states} {
		for _, x := range list {
			x.FinalizeAll()
		}
	}
	return st, out, nil
}
