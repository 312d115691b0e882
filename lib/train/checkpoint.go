package train

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/geoalign/geoalign/lib/atomicfile"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/gomlx/gomlx/ml/model/checkpoint"
)

// Checkpoints in GoMLX's format (ml/model/checkpoint: a pair checkpoint-n<count>-<time>-step-<step>
// .json + .bin per checkpoint, so that GoMLX's gomlx_checkpoints tool reads every geoalign run),
// written atomically. GoMLX's Handler.Save creates both files in place with os.Create, so a kill
// during a save leaves a 0-byte .json or a truncated .bin that the next load fails on. Here a
// checkpoint is saved by a Handler into the staging directory StagingDir, synced, and renamed into
// place: first the .bin, then the .json. GoMLX lists checkpoints by their .json, so a checkpoint
// exists only once both files are complete; a kill at any moment leaves the last complete
// checkpoint the newest one. Opening a directory also verifies the newest checkpoint by loading it
// and moves an unreadable one aside (suffix BrokenSuffix), falling back to the previous complete one:
// directories written by GoMLX's own Save, or damaged on disk, resume too.

const (
	// StagingDir is the subdirectory of a checkpoint directory where a checkpoint is written before it
	// is renamed into place. Whatever it holds when a directory is opened is an interrupted save; a
	// run that ends removes it (Checkpoints.Close).
	StagingDir = ".staging"
	// BestDir is the subdirectory of a run directory holding the checkpoint of the best validation
	// (the model that evaluation loads; LoadStore(filepath.Join(dir, BestDir))).
	BestDir = "best"
	// BrokenSuffix is appended to the files of a checkpoint that cannot be loaded.
	BrokenSuffix = ".broken"
)

// checkpointName matches GoMLX's checkpoint base names; group 1 is the checkpoint count.
var checkpointName = regexp.MustCompile(`^checkpoint-n(\d+)-`)

// Checkpoints saves a store's checkpoints atomically into directories (the run directory and its
// BestDir). Create it with OpenCheckpoints.
type Checkpoints struct {
	staging *checkpoint.Handler
	// Notes lists what opening the directory repaired (checkpoints moved aside, interrupted saves
	// removed), for the caller's log.
	Notes []string
}

// OpenCheckpoints prepares dir (created if missing) for atomic checkpoints of store and loads its
// newest complete checkpoint into store, if there is one (loaded = true): every variable, the
// store's parameters and random state. An unreadable newest checkpoint is moved aside (BrokenSuffix)
// and the previous one is loaded instead; files of an interrupted save are removed.
func OpenCheckpoints(store *model.Store, dir string) (c *Checkpoints, loaded bool, err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, false, fmt.Errorf("train: checkpoint directory: %w", err)
	}
	c = &Checkpoints{}
	if err := c.removeInterrupted(dir); err != nil {
		return nil, false, err
	}
	if loaded, err = c.loadNewest(store, dir); err != nil {
		return nil, false, err
	}
	staging := filepath.Join(dir, StagingDir)
	if err := os.RemoveAll(staging); err != nil {
		return nil, false, fmt.Errorf("train: clearing %s: %w", staging, err)
	}
	// The staging Handler never deletes (Keep(-1)): Save moves each checkpoint out of it.
	if c.staging, err = checkpoint.Build(store).Dir(staging).Keep(-1).Done(); err != nil {
		return nil, false, fmt.Errorf("train: %s: %w", staging, err)
	}
	return c, loaded, nil
}

// Close removes the staging directory (empty between saves): a finished run keeps only its
// checkpoints. Save must not be called after Close.
func (c *Checkpoints) Close() error {
	if err := os.RemoveAll(c.staging.Dir()); err != nil {
		return fmt.Errorf("train: removing %s: %w", c.staging.Dir(), err)
	}
	return nil
}

// removeInterrupted deletes the .bin files without a .json in dir: a save killed between its two
// renames (the .json never arrived, so the checkpoint never existed).
func (c *Checkpoints) removeInterrupted(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("train: %w", err)
	}
	for _, e := range entries {
		name := e.Name()
		base, ok := strings.CutSuffix(name, checkpoint.BinDataSuffix)
		if e.IsDir() || !ok || !checkpointName.MatchString(name) {
			continue
		}
		if _, err := os.Stat(filepath.Join(dir, base+checkpoint.JsonNameSuffix)); errors.Is(err, os.ErrNotExist) {
			if err := os.Remove(filepath.Join(dir, name)); err != nil {
				return fmt.Errorf("train: removing an interrupted save: %w", err)
			}
			c.Notes = append(c.Notes, fmt.Sprintf("removed %s: a save interrupted before its .json was written", filepath.Join(dir, name)))
		}
	}
	return nil
}

// list returns the base names of the complete checkpoints in dir, oldest first (GoMLX's order).
func list(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("train: %w", err)
	}
	var names []string
	for _, e := range entries {
		base, ok := strings.CutSuffix(e.Name(), checkpoint.JsonNameSuffix)
		if !e.IsDir() && ok && checkpointName.MatchString(e.Name()) {
			names = append(names, base)
		}
	}
	slices.Sort(names)
	return names, nil
}

// loadNewest loads the newest loadable checkpoint of dir into store, moving unloadable newer ones
// aside. A checkpoint that fails to load into store but loads into an empty store is not broken:
// the store disagrees with it (another model), and that is an error.
func (c *Checkpoints) loadNewest(store *model.Store, dir string) (bool, error) {
	for {
		names, err := list(dir)
		if err != nil || len(names) == 0 {
			return false, err
		}
		err = load(store, dir)
		if err == nil {
			return true, nil
		}
		newest := names[len(names)-1]
		if _, scratchErr := checkpoint.Build(model.NewStore()).Dir(dir).Done(); scratchErr == nil {
			return false, fmt.Errorf("train: checkpoint %s does not fit this model: %w", filepath.Join(dir, newest), err)
		}
		for _, suffix := range []string{checkpoint.JsonNameSuffix, checkpoint.BinDataSuffix} {
			p := filepath.Join(dir, newest+suffix)
			if err := os.Rename(p, p+BrokenSuffix); err != nil && !errors.Is(err, os.ErrNotExist) {
				return false, fmt.Errorf("train: moving aside the unreadable checkpoint %s: %w", p, err)
			}
		}
		c.Notes = append(c.Notes, fmt.Sprintf("checkpoint %s cannot be loaded (%v): moved aside with suffix %s, falling back to the previous one",
			filepath.Join(dir, newest), err, BrokenSuffix))
	}
}

// Save writes the store as a new checkpoint of dir (the opened directory or a subdirectory such as
// BestDir, created if missing), named for step, and then deletes the oldest checkpoints of dir beyond keep
// (keep ≤ 0 keeps all). The checkpoint appears only once complete (see the package notes above).
func (c *Checkpoints) Save(dir string, step int, keep int) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("train: %w", err)
	}
	if err := c.staging.Save(); err != nil {
		return fmt.Errorf("train: writing a checkpoint: %w", err)
	}
	staged, err := list(c.staging.Dir())
	if err != nil {
		return err
	}
	if len(staged) != 1 {
		return fmt.Errorf("train: %d checkpoints in %s, want the one just written", len(staged), c.staging.Dir())
	}
	names, err := list(dir)
	if err != nil {
		return err
	}
	count := 0
	for _, n := range names {
		if m := checkpointName.FindStringSubmatch(n); m != nil {
			k, _ := strconv.Atoi(m[1])
			count = max(count, k+1)
		}
	}
	target := fmt.Sprintf("checkpoint-n%07d-%s-step-%08d", count, time.Now().Format("20060102-150405"), step)
	crashPoint("staged")
	for _, suffix := range []string{checkpoint.BinDataSuffix, checkpoint.JsonNameSuffix} { // .json last
		from, to := filepath.Join(c.staging.Dir(), staged[0]+suffix), filepath.Join(dir, target+suffix)
		if err := syncFile(from); err != nil {
			return err
		}
		if err := os.Rename(from, to); err != nil {
			return fmt.Errorf("train: moving a checkpoint into place: %w", err)
		}
		crashPoint("renamed" + suffix)
	}
	if err := atomicfile.SyncDir(dir); err != nil {
		return err
	}
	if keep <= 0 {
		return nil
	}
	if names, err = list(dir); err != nil {
		return err
	}
	for _, old := range names[:max(len(names)-keep, 0)] {
		for _, suffix := range []string{checkpoint.JsonNameSuffix, checkpoint.BinDataSuffix} { // .json first
			if err := os.Remove(filepath.Join(dir, old+suffix)); err != nil && !errors.Is(err, os.ErrNotExist) {
				return fmt.Errorf("train: removing an old checkpoint: %w", err)
			}
		}
	}
	return nil
}

func syncFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("train: %w", err)
	}
	defer f.Close()
	if err := f.Sync(); err != nil {
		return fmt.Errorf("train: syncing %s: %w", path, err)
	}
	return nil
}

// LoadStore returns a new store holding the newest complete checkpoint of dir (every variable and
// parameter), e.g. the best model of a run: LoadStore(filepath.Join(runDir, BestDir)). It only
// reads: an unreadable newest checkpoint is an error naming it.
func LoadStore(dir string) (*model.Store, error) {
	names, err := list(dir)
	if err != nil {
		return nil, err
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("train: no checkpoint in %s", dir)
	}
	store := model.NewStore()
	if err := load(store, dir); err != nil {
		return nil, fmt.Errorf("train: loading %s: %w", filepath.Join(dir, names[len(names)-1]), err)
	}
	return store, nil
}

// CopyVariables sets every variable of dst to a copy of the value of src's variable with the same
// path (creating the ones dst lacks): e.g. the best checkpoint's weights back into a training store.
func CopyVariables(dst, src *model.Store) error {
	for v := range src.IterVariables() {
		value, err := v.Value()
		if err != nil {
			return fmt.Errorf("train: %s: %w", v.Path(), err)
		}
		clone, err := value.LocalClone()
		if err != nil {
			return fmt.Errorf("train: %s: %w", v.Path(), err)
		}
		if d := dst.GetVariable(v.Path()); d != nil {
			err = d.SetValue(clone)
		} else {
			_, err = dst.CreateVariable(v.Path(), clone)
		}
		if err != nil {
			return fmt.Errorf("train: %s: %w", v.Path(), err)
		}
	}
	return nil
}

// load reads the newest checkpoint of dir into store: every variable it holds, whether or not
// store already has it, and the store's parameters. GoMLX's Config.Immediate does not overwrite
// variables the store already has (it creates the missing ones and leaves the others, e.g. the
// random state a seeded store starts with, at their old values), so the checkpoint is opened lazily
// (which overwrites existing variables) and every variable it holds is then fetched once.
func load(store *model.Store, dir string) error {
	h, err := checkpoint.Build(store).Dir(dir).Done()
	if err != nil {
		return err
	}
	return fetchAll(store, h)
}

// fetchAll moves every variable h loaded but store has not asked for yet into store. A checkpoint
// does not record which variables are trainable and GoMLX creates loaded ones as trainable: the
// ones that cannot be (integer dtypes, e.g. the store's random state and step counters) are marked
// so here; float ones that are not (optimizer moments) are marked by the code that uses them.
func fetchAll(store *model.Store, h *checkpoint.Handler) error {
	var paths []string
	for key := range h.LoadedVariables() { // keys are "var:" + path
		if i := strings.Index(key, "/"); i >= 0 {
			paths = append(paths, key[i:])
		}
	}
	// In path order, not the map's: the store creates them in this order, and the order of a store's
	// variables is the order of a program's parameters and outputs, so a map's order would make
	// every restore a new program for XLA's compile cache (docs/xla.md §5).
	slices.Sort(paths)
	for _, p := range paths {
		v := store.GetVariable(p)
		if v == nil {
			return fmt.Errorf("train: variable %s of the checkpoint in %s was not loaded", p, h.Dir())
		}
		if !v.DType().IsFloat() {
			v.SetTrainable(false)
		}
	}
	return nil
}

// crashPoint is called at the named points of a save; tests replace it to kill the process there.
var crashPoint = func(string) {}
