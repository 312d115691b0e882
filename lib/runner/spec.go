package runner

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/geoalign/geoalign/lib/backend"
	"github.com/geoalign/geoalign/lib/rundir"
)

// Spec is a run directory's config.json: what the run is (model, data, whole configuration) and
// the record of what made it.
type Spec struct {
	Model  string          `json:"model"`  // the model's name: hlformer, gare, gram or hypergram
	Data   Source          `json:"data"`   // the data the run reads
	Config json.RawMessage `json:"config"` // the model's whole configuration, widths filled from the data
	Notes  []string        `json:"notes,omitempty"`
	// From names the run a warm-started run started from (models.WarmStarter; nil: its own
	// initialisation): part of what the run is, so a run key built from a Spec names its source.
	From *From `json:"from,omitempty"`
	// Made records what made the run (configuration hash, data fingerprints, code, backend);
	// eval and resume check it. Absent in runs made before it existed. Train fills it in.
	Made *rundir.Record `json:"made,omitempty"`
}

// From names a warm start's source: its run directory and the sha256 of its configuration.
type From struct {
	Dir          string `json:"dir"`
	ConfigSHA256 string `json:"config_sha256"`
}

// FromDir names the run in dir (a run directory with its record) as a warm start's source.
func FromDir(dir string) (*From, error) {
	s, err := ReadSpec(dir)
	if err != nil {
		return nil, err
	}
	if s.Made == nil {
		return nil, fmt.Errorf("%s: no record (made by an older geoalign): it cannot be named as a warm start's source", filepath.Join(dir, ConfigFile))
	}
	abs, err := filepath.Abs(dir)
	return &From{Dir: abs, ConfigSHA256: s.Made.ConfigSHA256}, err
}

// ReadSpec reads RUNDIR/config.json.
func ReadSpec(dir string) (*Spec, error) {
	path := filepath.Join(dir, ConfigFile)
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%s: no such file: %s is not a geoalign run directory", path, dir)
	}
	if err != nil {
		return nil, err
	}
	var s Spec
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if s.Model == "" || len(s.Config) == 0 {
		return nil, fmt.Errorf("%s: no model or config field", path)
	}
	return &s, nil
}

// record is the record of a run about to be created with spec's configuration on its data.
func (s *Spec) record() (*rundir.Record, error) {
	h, err := rundir.ConfigHash(s.Config)
	if err != nil {
		return nil, err
	}
	files, err := s.Data.Files()
	if err != nil {
		return nil, err
	}
	stamps, err := rundir.Stamp(files, nil)
	if err != nil {
		return nil, err
	}
	r := &rundir.Record{ConfigSHA256: h, Data: stamps, Code: rundir.GitCommit()}
	if info, err := backend.Describe(); err == nil {
		r.Backend = info.String()
	}
	return r, nil
}

// Check verifies that the run in dir (whose config.json s is) has the configuration and data it
// was made from (its record): an error names the file that changed. A run made before runs kept
// a record is not checked; notes says so, and names other code than the record's.
func (s *Spec) Check(dir string) (notes []string, err error) {
	path := filepath.Join(dir, ConfigFile)
	if s.Made == nil {
		return []string{fmt.Sprintf("%s has no record of its data and code (made by an older geoalign): not checked", path)}, nil
	}
	if err := s.Made.CheckConfig(s.Config, path); err != nil {
		return nil, err
	}
	files, err := s.Data.Files()
	if err != nil {
		return nil, err
	}
	if err := s.Made.CheckData(files); err != nil {
		return nil, fmt.Errorf("%w: the run %s was made from other data", err, dir)
	}
	if c := rundir.GitCommit(); c != s.Made.Code {
		notes = append(notes, fmt.Sprintf("%s was made by code %s; this is %s", dir, s.Made.Code, c))
	}
	return notes, nil
}
