package gare

import (
	"encoding/gob"
	"fmt"
	"io"
	"os"

	"github.com/geoalign/geoalign/lib/atomicfile"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/gomlx/core/tensors"
)

// savedTensor is one variable in a weights file.
type savedTensor struct {
	Dims []int
	Data []float32
}

// SaveWeights writes the model's parameters (not the optimizer state) to path (encoding/gob, keyed
// by variable path), so that a notebook cell or a resumed reproduction can reuse a trained model.
func (m *Model) SaveWeights(path string) error {
	out := map[string]savedTensor{}
	for v := range m.Store.IterVariables() {
		if !v.Trainable || v.DType() != dtypes.Float32 {
			continue
		}
		t, err := v.Value()
		if err != nil {
			return err
		}
		out[v.Path()] = savedTensor{Dims: t.Shape().Dimensions, Data: tensors.MustCopyFlatData[float32](t)}
	}
	if err := atomicfile.Write(path, func(w io.Writer) error { return gob.NewEncoder(w).Encode(out) }); err != nil {
		return fmt.Errorf("gare: %w", err)
	}
	return nil
}

// LoadWeights reads parameters written by SaveWeights into a model of the same configuration.
func (m *Model) LoadWeights(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	in := map[string]savedTensor{}
	if err := gob.NewDecoder(f).Decode(&in); err != nil {
		return fmt.Errorf("gare: reading %s: %w", path, err)
	}
	n := 0
	for v := range m.Store.IterVariables() {
		if !v.Trainable || v.DType() != dtypes.Float32 {
			continue
		}
		s, ok := in[v.Path()]
		if !ok {
			return fmt.Errorf("gare: %s has no variable %s", path, v.Path())
		}
		t := tensors.FromFlatDataAndDimensions(s.Data, s.Dims...)
		if !t.Shape().Equal(v.Shape()) {
			return fmt.Errorf("gare: %s: %s has shape %s, the model %s", path, v.Path(), t.Shape(), v.Shape())
		}
		if err := v.SetValue(t); err != nil {
			return err
		}
		n++
	}
	if n != len(in) {
		return fmt.Errorf("gare: %s holds %d variables, the model %d", path, len(in), n)
	}
	return nil
}
