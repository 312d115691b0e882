package hlformerstudy

import (
	"testing"

	"github.com/geoalign/geoalign/lib/report"
	"github.com/geoalign/geoalign/lib/reproduce"
)

// LoadSetup runs on synthetic data only when asked for.
func TestLoadSetupSyntheticOnlyWhenAsked(t *testing.T) {
	s, err := LoadSetup(reproduce.Options{Synthetic: true}, CIScale)
	if err != nil || s.Kind != report.Synthetic {
		t.Fatalf("Synthetic: kind %v, %v; want the synthetic benchmark", s.Kind, err)
	}
	if _, err := LoadSetup(reproduce.Options{DataCache: t.TempDir()}, CIScale); err == nil {
		t.Fatal("an empty data cache gave a setup")
	}
}
