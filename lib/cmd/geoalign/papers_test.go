package main

import (
	"strings"
	"testing"

	"github.com/geoalign/geoalign/lib/data"
	"github.com/geoalign/geoalign/lib/reproduce"
)

// Every paper's Table 1 on an empty data cache is a bad-input error naming the cache (no silent
// fallback to synthetic data), and every paper's figures but HLFormer's refuse synthetic data.
func TestPapersFailLoudlyOnMissingData(t *testing.T) {
	empty := t.TempDir()
	for _, p := range reproduce.Papers() {
		e, _ := reproduce.Lookup(p)
		if e.Table1 != nil {
			if _, err := e.Table1(reproduce.Options{DataCache: empty, Out: t.TempDir()}); !data.IsBadInput(err) || !strings.Contains(err.Error(), empty) {
				t.Errorf("%s Table 1 on an empty cache: %v, want a bad-input error naming %s", p, err, empty)
			}
		}
		if e.Figures != nil && p != "hlformer" {
			if err := e.Figures(reproduce.Options{Synthetic: true, Out: t.TempDir()}); !data.IsBadInput(err) {
				t.Errorf("%s figures with --data synthetic: %v, want a bad-input error", p, err)
			}
		}
	}
}
