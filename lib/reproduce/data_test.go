package reproduce

import (
	"strings"
	"testing"

	"github.com/geoalign/geoalign/lib/data"
	"github.com/geoalign/geoalign/lib/models/gram/study"
	"github.com/geoalign/geoalign/lib/models/hlformer"
	"github.com/geoalign/geoalign/lib/report"
)

// Missing data is a data.BadInput error naming the path; synthetic data only when asked for.
func TestNoSilentFallbackToSynthetic(t *testing.T) {
	empty := t.TempDir()
	if _, err := hlformerSetup(Options{DataCache: empty}, hlformer.CIScale); !data.IsBadInput(err) || !strings.Contains(err.Error(), empty) {
		t.Errorf("hlformer on an empty cache: %v, want a bad-input error naming %s", err, empty)
	}
	setup, err := hlformerSetup(Options{Synthetic: true}, hlformer.CIScale)
	if err != nil || setup.Kind != report.Synthetic {
		t.Errorf("hlformer with Synthetic: %v, kind %v", err, setup.Kind)
	}
	if _, err := gramSets(study.Options{DataCache: empty}, false); !data.IsBadInput(err) || !strings.Contains(err.Error(), empty) {
		t.Errorf("gram on an empty cache: %v, want a bad-input error naming %s", err, empty)
	}
	if sets, err := gramSets(study.Options{DataCache: empty}, true); err != nil || len(sets) != 1 {
		t.Errorf("gram with synthetic: %d sets, %v; want the synthetic set alone", len(sets), err)
	}
	if _, err := gareTable1(Options{DataCache: empty}); !data.IsBadInput(err) || !strings.Contains(err.Error(), empty) {
		t.Errorf("gare on an empty cache: %v, want a bad-input error naming %s", err, empty)
	}
	for _, e := range []Experiment{experiments["gram"], experiments["hypergram"], experiments["gare"], experiments["grid"]} {
		if err := e.Figures(Options{Synthetic: true, Out: t.TempDir()}); !data.IsBadInput(err) {
			t.Errorf("%s figures with Synthetic: %v, want a bad-input error", e.Paper, err)
		}
	}
}
