package gare

import (
	"bytes"
	"strings"
	"testing"

	"github.com/geoalign/geoalign/lib/backend"
	"github.com/geoalign/geoalign/lib/models"
)

// WarmStart (models.WarmStarter) copies the stage-1 encoders — every variable under /gare/ outside
// ψ — bit for bit from the source run, leaves ψ at the run's own initialisation, and training then
// proceeds from them.
func TestRunWarmStart(t *testing.T) {
	cfg := DefaultRunConfig()
	cfg.Model = trainConfig()
	cfg.Model.Epochs = 1
	data := RandomDataset(16, cfg.Model.TextInputDim, cfg.Model.VideoInputDim, cfg.Model.Frames, 0.4, 1)
	val := RandomDataset(8, cfg.Model.TextInputDim, cfg.Model.VideoInputDim, cfg.Model.Frames, 0.4, 2)
	load := func(string) (*Dataset, error) { return val, nil }
	newRun := func(seed int64) *Run {
		c := cfg
		c.Training.Seed = seed
		r, err := NewRun(backend.MustNew(), c, data, load, nil)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	src, dst := newRun(1), newRun(2)
	if bytes.Equal(storeBytes(src.Store())["/gare/text_projection/weights"], storeBytes(dst.Store())["/gare/text_projection/weights"]) {
		t.Fatal("seeds 1 and 2 draw the same text projection: the test cannot tell a copy")
	}
	var warm models.WarmStarter = dst
	if err := warm.WarmStart(src); err != nil {
		t.Fatal(err)
	}
	from, to := storeBytes(src.Store()), storeBytes(dst.Store())
	copied := 0
	for path, b := range to {
		encoder := strings.HasPrefix(path, "/gare/") && !strings.HasPrefix(path, "/gare/psi/")
		switch same := bytes.Equal(b, from[path]); {
		case encoder && !same:
			t.Errorf("%s: not the source's after WarmStart", path)
		case encoder:
			copied++
		case path == "/gare/psi/q_proj/weights" && same:
			t.Errorf("%s: ψ was copied too", path)
		}
	}
	if copied < 6 {
		t.Errorf("%d encoder variables copied, want the projections, frame positions and temporal layer", copied)
	}
	res, err := dst.Train(models.Output{Quiet: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Records) != 1 || res.Records[0].Epoch != 1 || res.Steps == 0 {
		t.Errorf("training after WarmStart: %d records, %d steps", len(res.Records), res.Steps)
	}
	if err := dst.WarmStart(otherRun{}); err == nil || !strings.Contains(err.Error(), "want a gare run") {
		t.Errorf("WarmStart from another model's run: %v", err)
	}
}

// otherRun is a Run of another package.
type otherRun struct{ models.Run }
