package hlformer

import (
	"fmt"
	"strings"

	"github.com/gomlx/gomlx/ml/model"
	"github.com/gomlx/gomlx/ml/model/checkpoint"
)

// checkpointer loads the newest checkpoint of dir into store and returns GoMLX's Handler to save
// more, keeping the last keep. Every loaded variable is fetched into the store at once (GoMLX's
// handler loads lazily); integer ones (random state, counters) are marked non-trainable.
//
// Temporary: Train moves onto lib/train's Loop (atomic checkpoints), and this goes.
func checkpointer(store *model.Store, dir string, keep int) (*checkpoint.Handler, error) {
	h, err := checkpoint.Build(store).Dir(dir).Keep(keep).Done()
	if err != nil {
		return nil, fmt.Errorf("hlformer: checkpoint dir %s: %w", dir, err)
	}
	for key := range h.LoadedVariables() { // keys are "var:" + path
		i := strings.Index(key, "/")
		if i < 0 {
			continue
		}
		v := store.GetVariable(key[i:])
		if v == nil {
			return nil, fmt.Errorf("hlformer: variable %s of the checkpoint in %s was not loaded", key[i:], dir)
		}
		if !v.DType().IsFloat() {
			v.SetTrainable(false)
		}
	}
	return h, nil
}
