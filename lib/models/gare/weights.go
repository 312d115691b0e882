package gare

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/geoalign/geoalign/lib/train"
	"github.com/gomlx/compute/dtypes"
)

// SaveWeights writes the model's store to the directory path as one checkpoint in lib/train's
// format (GoMLX's, the format of every run directory), replacing what path held, so that a notebook
// cell or a resumed reproduction can reuse a trained model (LoadWeights). The checkpoint is written
// into a new directory beside path and renamed to it: a kill leaves the old path, or none, never a
// partial one.
func (m *Model) SaveWeights(path string) error {
	tmp, err := os.MkdirTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("gare: saving weights: %w", err)
	}
	defer os.RemoveAll(tmp)                             // (gone after the rename)
	ckpt, _, err := train.OpenCheckpoints(m.Store, tmp) // an empty directory: nothing is loaded
	if err == nil {
		err = ckpt.Save(tmp, int(train.GlobalStep(m.Store)), 1)
	}
	if err == nil {
		err = os.RemoveAll(filepath.Join(tmp, train.StagingDir))
	}
	if err == nil {
		err = os.RemoveAll(path)
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		return fmt.Errorf("gare: saving weights to %s: %w", path, err)
	}
	return nil
}

// LoadWeights reads the parameters (every trainable float32 variable; not the optimizer state) of
// a checkpoint written by SaveWeights — or of any run directory, e.g. filepath.Join(dir,
// train.BestDir) — into a model of the same configuration.
func (m *Model) LoadWeights(path string) error {
	src, err := train.LoadStore(path)
	if err != nil {
		return fmt.Errorf("gare: %w", err)
	}
	for v := range m.Store.IterVariables() {
		if !v.Trainable || v.DType() != dtypes.Float32 {
			continue
		}
		s := src.GetVariable(v.Path())
		if s == nil {
			return fmt.Errorf("gare: %s has no variable %s", path, v.Path())
		}
		value, err := s.Value()
		if err != nil {
			return fmt.Errorf("gare: %s: %s: %w", path, v.Path(), err)
		}
		if !value.Shape().Equal(v.Shape()) {
			return fmt.Errorf("gare: %s: %s has shape %s, the model %s", path, v.Path(), value.Shape(), v.Shape())
		}
		clone, err := value.LocalClone()
		if err == nil {
			err = v.SetValue(clone)
		}
		if err != nil {
			return fmt.Errorf("gare: %s: %s: %w", path, v.Path(), err)
		}
	}
	return nil
}
