package hierarchy

import (
	"encoding/gob"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"

	"github.com/geoalign/geoalign/lib/atomicfile"
	"github.com/geoalign/geoalign/lib/data/wordnet"
	"github.com/gomlx/compute"
)

// checkpointVersion changes whenever the layout below changes.
const checkpointVersion = 1

// checkpoint is everything needed to continue a run bit for bit: the configuration, the
// float64 table, the history and the random generator's state.
type checkpoint struct {
	Version  int
	Config   Config
	History  []EpochStats
	Emb      Embedding
	RNGState []byte
}

// SaveCheckpoint writes the trainer's state to path atomically (lib/atomicfile: a synced temporary
// file renamed over it).
func (t *Trainer) SaveCheckpoint(path string) error {
	state, err := t.pcg.MarshalBinary()
	if err != nil {
		return fmt.Errorf("hierarchy: checkpoint: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("hierarchy: checkpoint: %w", err)
	}
	cp := checkpoint{Version: checkpointVersion, Config: t.Config, History: t.History, Emb: *t.Emb, RNGState: state}
	if err := atomicfile.Write(path, func(w io.Writer) error { return gob.NewEncoder(w).Encode(&cp) }); err != nil {
		return fmt.Errorf("hierarchy: checkpoint: %w", err)
	}
	return nil
}

// LoadCheckpoint restores a Trainer saved by SaveCheckpoint for the same closure; Train then
// continues where the saved run stopped (up to Config.Epochs, which the caller may raise).
func LoadCheckpoint(backend compute.Backend, c *wordnet.Closure, path string) (*Trainer, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("hierarchy: %w", err)
	}
	defer f.Close()
	var cp checkpoint
	if err := gob.NewDecoder(f).Decode(&cp); err != nil {
		return nil, fmt.Errorf("hierarchy: reading checkpoint %s: %w", path, err)
	}
	if cp.Version != checkpointVersion {
		return nil, fmt.Errorf("hierarchy: checkpoint %s has version %d, this code reads %d", path, cp.Version, checkpointVersion)
	}
	if !slices.Equal(cp.Emb.Names, c.Nodes) {
		return nil, fmt.Errorf("hierarchy: checkpoint %s was trained on a different closure (%d nodes, closure has %d)",
			path, len(cp.Emb.Names), c.NumNodes())
	}
	if err := cp.Config.Validate(); err != nil {
		return nil, fmt.Errorf("hierarchy: checkpoint %s: %w", path, err)
	}
	t := &Trainer{Config: cp.Config, Closure: c, History: cp.History, backend: backend}
	emb := cp.Emb
	t.Emb = &emb
	t.pcg = &rand.PCG{}
	if err := t.pcg.UnmarshalBinary(cp.RNGState); err != nil {
		return nil, fmt.Errorf("hierarchy: checkpoint %s: random state: %w", path, err)
	}
	t.rng = rand.New(t.pcg)
	t.init()
	return t, nil
}
