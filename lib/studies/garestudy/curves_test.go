package garestudy

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/geoalign/geoalign/lib/retrieval"
	"github.com/geoalign/geoalign/lib/train"
)

// TestPerEpochPlacesValuesByEpoch: a curve's values sit at index epoch − 1, an epoch without a
// record or without the value is NaN (report.CurvesGrid averages the seeds epoch by epoch and skips
// those), and the train loss of every record is taken.
func TestPerEpochPlacesValuesByEpoch(t *testing.T) {
	rec := func(epoch int, sumr float64) train.Record {
		return train.Record{Epoch: epoch, Loss: 10 - sumr/10, Val: map[string]float64{retrieval.ValMetric: sumr}}
	}
	noVal := train.Record{Epoch: 2, Loss: 7}
	curve := []train.Record{rec(1, 100), noVal, rec(4, 130)}
	got := perEpoch(curve, valSumR)
	if len(got) != 4 || got[0] != 100 || !math.IsNaN(got[1]) || !math.IsNaN(got[2]) || got[3] != 130 {
		t.Errorf("validation SumR by epoch %v, want [100 NaN NaN 130]", got)
	}
	if l := perEpoch(curve, trainLoss); len(l) != 4 || l[0] != 0 || l[1] != 7 || !math.IsNaN(l[2]) || l[3] != -3 {
		t.Errorf("train loss by epoch %v, want [0 7 NaN −3]", l)
	}
}

// TestBestEpochIsTheLastImprovement: the kept model is the last record marked Best.
func TestBestEpochIsTheLastImprovement(t *testing.T) {
	r := Result{Curve: []train.Record{{Epoch: 1, Best: true}, {Epoch: 2, Best: true}, {Epoch: 3}, {Epoch: 4}}}
	if got := r.BestEpoch(); got != 2 {
		t.Errorf("best epoch %d, want 2", got)
	}
	if got := (&Result{}).BestEpoch(); got != 0 {
		t.Errorf("best epoch without records %d, want 0", got)
	}
}

// TestDefaultWorkDirFollowsTheRunCache: with GEOALIGN_RUN_CACHE set, GARE's runs live under it (as
// the other studies' and kernel/nb's), else under build/ of the checkout.
func TestDefaultWorkDirFollowsTheRunCache(t *testing.T) {
	root := t.TempDir()
	t.Setenv("GEOALIGN_RUN_CACHE", root)
	if got, want := DefaultWorkDir("full"), filepath.Join(root, "gare-full"); got != want {
		t.Errorf("with GEOALIGN_RUN_CACHE: %s, want %s", got, want)
	}
	t.Setenv("GEOALIGN_RUN_CACHE", "")
	if got := DefaultWorkDir("full"); !strings.HasSuffix(got, filepath.Join("build", "gare-full")) || strings.HasPrefix(got, root) {
		t.Errorf("without GEOALIGN_RUN_CACHE: %s, want <checkout>/build/gare-full", got)
	}
}
