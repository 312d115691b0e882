package minilm

import (
	"fmt"
	"path/filepath"
	"slices"

	"github.com/geoalign/geoalign/lib/backend"
	"github.com/geoalign/geoalign/lib/train"
	"github.com/gomlx/compute"
	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
)

// BatchSize is the number of sentences in one call of the compiled encoder; a shorter last batch is
// padded with [CLS] [SEP] rows, so that every call has this batch size.
const BatchSize = 32

// buckets are the padded sequence lengths the encoder is compiled for: a batch is padded to the
// smallest bucket that holds its longest sentence (capped at MaxLength), so that a whole corpus
// compiles a handful of graphs.
var buckets = []int{16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512}

// Model is all-MiniLM-L6-v2 (sentence-transformers; a 6-layer, 384-wide BERT): its tokenizer and
// its encoder as a GoMLX graph on the backend of lib/backend (GOMLX_BACKEND). Not safe for
// concurrent use.
type Model struct {
	Dir       string
	Config    Config
	Tokenizer *Tokenizer
	store     *model.Store
	exec      *model.Exec
}

// Dim is the width of the sentence embeddings and token states.
func (m *Model) Dim() int { return m.Config.HiddenSize }

// Load reads the model installed in dir (DefaultDir(): build/minilm, by `make setup`) and
// prepares the encoder on the shared backend.
func Load(dir string) (*Model, error) {
	cfg, sc, err := readConfigs(dir)
	if err != nil {
		return nil, err
	}
	tok, err := LoadTokenizer(filepath.Join(dir, VocabFile), sc.MaxSeqLength)
	if err != nil {
		return nil, err
	}
	if tok.VocabSize() != cfg.VocabSize {
		return nil, fmt.Errorf("minilm: %s has %d tokens, %s says vocab_size %d",
			filepath.Join(dir, VocabFile), tok.VocabSize(), filepath.Join(dir, ConfigFile), cfg.VocabSize)
	}
	store, err := loadWeights(filepath.Join(dir, WeightsFile), cfg)
	if err != nil {
		return nil, err
	}
	be, err := backend.New()
	if err != nil {
		return nil, err
	}
	m := &Model{Dir: dir, Config: cfg, Tokenizer: tok, store: store}
	m.exec, err = newExec(be, store, cfg)
	if err != nil {
		return nil, fmt.Errorf("minilm: %w", err)
	}
	return m, nil
}

// newExec compiles encoderGraph (once per input shape) with the weights kept as graph parameters
// (train.NewInferenceExec: no copy of the 90 MB of weights embedded in each compiled bucket).
func newExec(be compute.Backend, store *model.Store, cfg Config) (*model.Exec, error) {
	return train.NewInferenceExec(be, store, func(scope *model.Scope, in []*graph.Node) []*graph.Node {
		hidden, sentences := encoderGraph(scope.Store(), cfg, in[0], in[1])
		return []*graph.Node{hidden, sentences}
	})
}

// Output is what Encode returns, in the order of its input.
type Output struct {
	IDs       [][]int32   // token ids of each sentence ([CLS] … [SEP])
	Sentences []float32   // [N, Dim] row-major: mean-pooled, L2-normalised sentence embeddings
	Tokens    [][]float32 // per sentence [len(IDs[i]), Dim] row-major last hidden states; nil unless asked
}

// Encode tokenizes and encodes texts; withTokens also returns each sentence's token states.
func (m *Model) Encode(texts []string, withTokens bool) (*Output, error) {
	ids := make([][]int32, len(texts))
	for i, t := range texts {
		ids[i] = m.Tokenizer.Encode(t)
	}
	return m.EncodeIDs(ids, withTokens)
}

// EncodeIDs encodes token id sequences (each at most the largest bucket, 512, long, ids below
// the vocabulary size). Sentences are sorted by length and cut into batches of BatchSize, each
// padded to a bucket length; results come back in input order.
func (m *Model) EncodeIDs(ids [][]int32, withTokens bool) (*Output, error) {
	h := m.Dim()
	for i, s := range ids {
		if len(s) == 0 || len(s) > min(buckets[len(buckets)-1], m.Config.MaxPositionEmbeddings) {
			return nil, fmt.Errorf("minilm: sequence %d has %d tokens, want 1…%d", i, len(s), m.Config.MaxPositionEmbeddings)
		}
		for _, id := range s {
			if id < 0 || int(id) >= m.Config.VocabSize {
				return nil, fmt.Errorf("minilm: sequence %d holds token id %d outside [0, %d)", i, id, m.Config.VocabSize)
			}
		}
	}
	out := &Output{IDs: ids, Sentences: make([]float32, len(ids)*h)}
	if withTokens {
		out.Tokens = make([][]float32, len(ids))
	}
	order := make([]int, len(ids))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return len(ids[b]) - len(ids[a]) })
	for start := 0; start < len(order); start += BatchSize {
		rows := order[start:min(start+BatchSize, len(order))]
		longest := len(ids[rows[0]])
		length := buckets[len(buckets)-1]
		for _, b := range buckets {
			if b >= longest {
				length = b
				break
			}
		}
		length = min(length, max(m.Tokenizer.MaxLength, longest))
		flat := make([]int32, BatchSize*length)
		lengths := make([]int32, BatchSize)
		for r := range BatchSize {
			seq := []int32{ClsID, SepID} // padding row
			if r < len(rows) {
				seq = ids[rows[r]]
			}
			copy(flat[r*length:], seq)
			lengths[r] = int32(len(seq))
		}
		res, err := m.exec.Exec(tensors.FromFlatDataAndDimensions(flat, BatchSize, length), tensors.FromFlatDataAndDimensions(lengths, BatchSize))
		if err != nil {
			return nil, fmt.Errorf("minilm: encoding a batch of length %d: %w", length, err)
		}
		sent, err := tensors.CopyFlatData[float32](res[1])
		if err != nil {
			return nil, err
		}
		var hidden []float32
		if withTokens {
			if hidden, err = tensors.CopyFlatData[float32](res[0]); err != nil {
				return nil, err
			}
		}
		for _, t := range res {
			t.FinalizeAll()
		}
		for r, i := range rows {
			copy(out.Sentences[i*h:(i+1)*h], sent[r*h:(r+1)*h])
			if withTokens {
				n := len(ids[i])
				out.Tokens[i] = slices.Clone(hidden[r*length*h : (r*length+n)*h])
			}
		}
	}
	return out, nil
}

// EncodeWindows encodes texts window sentences at a time, so that memory holds one window's
// outputs only, and hands each window's Output (IDs, Sentences and, withTokens, Tokens of
// texts[start:start+len(out.IDs)]) to emit, in order. It stops at the first error.
func (m *Model) EncodeWindows(texts []string, withTokens bool, window int, emit func(start int, out *Output) error) error {
	if window < 1 {
		return fmt.Errorf("minilm: window %d < 1", window)
	}
	for start := 0; start < len(texts); start += window {
		out, err := m.Encode(texts[start:min(start+window, len(texts))], withTokens)
		if err != nil {
			return err
		}
		if err := emit(start, out); err != nil {
			return err
		}
	}
	return nil
}
