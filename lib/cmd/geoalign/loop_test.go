package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
)

func scalarVar(t *testing.T, store *model.Store, path string) float32 {
	t.Helper()
	v := store.GetVariable(path)
	if v == nil {
		t.Fatalf("no variable %s", path)
	}
	return tensors.ToScalar[float32](v.MustValue())
}

func rngState(t *testing.T, store *model.Store) []uint64 {
	t.Helper()
	v := store.GetVariable(model.JoinPath("/", model.RNGStateVariableName))
	if v == nil {
		t.Fatal("no RNG state")
	}
	return tensors.MustCopyFlatData[uint64](v.MustValue())
}

// A checkpoint restores every variable: those the new store already has (its RNG state, eagerly
// created weights, which GoMLX's Immediate() load would leave as they are) and those it has not.
func TestCheckpointRestoresEveryVariable(t *testing.T) {
	run := t.TempDir()
	src := model.NewStore()
	if err := src.SetRNGStateFromSeed(1); err != nil {
		t.Fatal(err)
	}
	src.VariableWithValue("/w", float32(1.5))
	src.VariableWithValue("/only_in_checkpoint", float32(7))
	s, err := newSaver(src, run)
	if err != nil {
		t.Fatal(err)
	}
	st := &runState{Epochs: 1, BestEpoch: 1, History: []epochRecord{{Epoch: 1}}}
	if err := s.save(st); err != nil {
		t.Fatal(err)
	}

	dst := model.NewStore()
	if err := dst.SetRNGStateFromSeed(2); err != nil {
		t.Fatal(err)
	}
	dst.VariableWithValue("/w", float32(-3))
	if slices.Equal(rngState(t, src), rngState(t, dst)) {
		t.Fatal("seeds 1 and 2 give the same RNG state")
	}
	got, err := restoreLatest(dst, run, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got.Epochs != 1 || got.BestEpoch != 1 {
		t.Fatalf("state %+v", got)
	}
	if w := scalarVar(t, dst, "/w"); w != 1.5 {
		t.Errorf("existing variable /w = %v after restore, want 1.5", w)
	}
	if x := scalarVar(t, dst, "/only_in_checkpoint"); x != 7 {
		t.Errorf("/only_in_checkpoint = %v, want 7", x)
	}
	if !slices.Equal(rngState(t, src), rngState(t, dst)) {
		t.Error("the RNG state was not restored")
	}
}

// The last two checkpoints and the best one are kept; a damaged latest checkpoint falls back to
// the previous one; a staging directory left by a kill is ignored and cleared.
func TestRestoreFallsBack(t *testing.T) {
	run := t.TempDir()
	store := model.NewStore()
	v := store.VariableWithValue("/w", float32(1))
	s, err := newSaver(store, run)
	if err != nil {
		t.Fatal(err)
	}
	st := &runState{}
	for e := 1; e <= 4; e++ {
		if err := v.SetValue(tensors.FromScalar(float32(e))); err != nil {
			t.Fatal(err)
		}
		st.Epochs, st.BestEpoch = e, 1 // epoch 1 stays the best
		st.History = append(st.History, epochRecord{Epoch: e})
		if err := s.save(st); err != nil {
			t.Fatal(err)
		}
	}
	if got := listEpochs(run); !slices.Equal(got, []int{1, 3, 4}) {
		t.Fatalf("kept epochs %v, want [1 3 4]", got)
	}
	// Damage epoch 4's data and leave a half-written staging directory.
	bins, _ := filepath.Glob(filepath.Join(epochDir(run, 4), "*.bin"))
	if len(bins) != 1 {
		t.Fatalf("checkpoint files %v", bins)
	}
	if err := os.WriteFile(bins[0], []byte("garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	staging := filepath.Join(run, checkpointsDir, stagingDir)
	os.WriteFile(filepath.Join(staging, "checkpoint-n0000009-x.json"), []byte("{"), 0o644)

	fresh := model.NewStore()
	fresh.VariableWithValue("/w", float32(0))
	got, err := restoreLatest(fresh, run, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got.Epochs != 3 || scalarVar(t, fresh, "/w") != 3 {
		t.Fatalf("restored epoch %d with w = %v, want epoch 3 with w = 3", got.Epochs, scalarVar(t, fresh, "/w"))
	}
	if _, err := newSaver(fresh, run); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(staging); len(entries) != 0 {
		t.Errorf("staging not cleared: %v", entries)
	}
}
