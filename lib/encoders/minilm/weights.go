package minilm

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/nlpodyssey/safetensors"
)

// weightShapes lists every tensor the encoder reads from model.safetensors, by its name there
// (Hugging Face BertModel's state dict), with its shape for Config c. Linear weights are stored
// [out, in] (torch's nn.Linear).
func weightShapes(c Config) map[string][]int {
	h, f := c.HiddenSize, c.IntermediateSize
	w := map[string][]int{
		"embeddings.word_embeddings.weight":       {c.VocabSize, h},
		"embeddings.position_embeddings.weight":   {c.MaxPositionEmbeddings, h},
		"embeddings.token_type_embeddings.weight": {c.TypeVocabSize, h},
		"embeddings.LayerNorm.weight":             {h},
		"embeddings.LayerNorm.bias":               {h},
	}
	for l := range c.NumHiddenLayers {
		p := fmt.Sprintf("encoder.layer.%d.", l)
		for _, name := range []string{"attention.self.query", "attention.self.key", "attention.self.value", "attention.output.dense"} {
			w[p+name+".weight"] = []int{h, h}
			w[p+name+".bias"] = []int{h}
		}
		w[p+"intermediate.dense.weight"] = []int{f, h}
		w[p+"intermediate.dense.bias"] = []int{f}
		w[p+"output.dense.weight"] = []int{h, f}
		w[p+"output.dense.bias"] = []int{h}
		for _, ln := range []string{"attention.output.LayerNorm", "output.LayerNorm"} {
			w[p+ln+".weight"] = []int{h}
			w[p+ln+".bias"] = []int{h}
		}
	}
	return w
}

// variablePath is the store path of the safetensors tensor name: dots become scope separators.
func variablePath(name string) string { return "/" + strings.ReplaceAll(name, ".", "/") }

// loadWeights reads every tensor of weightShapes(c) from the safetensors file at path into a new
// store, as float32 variables at variablePath(name). A missing tensor, another dtype or shape, or
// a non-finite value is an error naming the file and the tensor; tensors the encoder does not use
// (the pooler, position_ids) are left out.
func loadWeights(path string, c Config) (*model.Store, error) {
	buf, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("minilm: %w (run `make setup`: kernel/minilm.sh installs the model)", err)
	}
	st, err := safetensors.Deserialize(buf)
	if err != nil {
		return nil, fmt.Errorf("minilm: %s: %w", path, err)
	}
	store := model.NewStore()
	want := weightShapes(c)
	names := make([]string, 0, len(want))
	for name := range want {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		tv, ok := st.Tensor(name)
		if !ok {
			return nil, fmt.Errorf("minilm: %s: tensor %q missing", path, name)
		}
		shape := make([]int, len(tv.Shape()))
		for i, d := range tv.Shape() {
			shape[i] = int(d)
		}
		if tv.DType() != safetensors.F32 || !slices.Equal(shape, want[name]) {
			return nil, fmt.Errorf("minilm: %s: tensor %q is %s%v, want F32%v", path, name, tv.DType(), shape, want[name])
		}
		raw := tv.Data()
		values := make([]float32, len(raw)/4)
		for i := range values {
			v := math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				return nil, fmt.Errorf("minilm: %s: tensor %q element %d is %v", path, name, i, v)
			}
			values[i] = v
		}
		v, err := store.CreateVariable(variablePath(name), tensors.FromFlatDataAndDimensions(values, shape...))
		if err != nil {
			return nil, fmt.Errorf("minilm: %s: tensor %q: %w", path, name, err)
		}
		v.Trainable = false
	}
	return store, nil
}
