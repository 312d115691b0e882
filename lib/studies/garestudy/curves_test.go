package garestudy

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/geoalign/geoalign/lib/retrieval"
	"github.com/geoalign/geoalign/lib/train"
)

// TestMeanCurveIsMeanAndStandardError checks the learning curves' points against the closed forms:
// per epoch the mean over seeds and the standard error √(Σ(x − x̄)²/(n − 1))/√n; a seed that stopped
// early counts only at the epochs it has.
func TestMeanCurveIsMeanAndStandardError(t *testing.T) {
	rec := func(epoch int, sumr float64) train.Record {
		return train.Record{Epoch: epoch, Loss: 10 - sumr/10, Val: map[string]float64{retrieval.ValMetric: sumr}}
	}
	curves := [][]train.Record{
		{rec(1, 100), rec(2, 120), rec(3, 125)},
		{rec(1, 110), rec(2, 124)},
		{rec(1, 90), rec(2, 116), rec(3, 131)},
	}
	pts, bars := meanCurve(curves, valSumR)
	if len(pts) != 3 {
		t.Fatalf("%d points; want 3", len(pts))
	}
	// Epoch 1: 100, 110, 90 → mean 100, std 10, s.e. 10/√3. Epoch 2: 120, 124, 116 → 120, 4/√3.
	// Epoch 3: 125, 131 → 128, std √18, s.e. √18/√2 = 3.
	want := []struct{ x, mean, se float64 }{{1, 100, 10 / math.Sqrt(3)}, {2, 120, 4 / math.Sqrt(3)}, {3, 128, 3}}
	for i, w := range want {
		x, y := bars.XY(i)
		lo, hi := bars.YError(i)
		if pts[i].X != w.x || x != w.x || math.Abs(y-w.mean) > 1e-12 || math.Abs(pts[i].Y-w.mean) > 1e-12 ||
			math.Abs(lo-w.se) > 1e-12 || lo != hi {
			t.Errorf("point %d: x %v, mean %v, s.e. (%v, %v); want x %v, mean %v, s.e. %v", i, x, y, lo, hi, w.x, w.mean, w.se)
		}
	}
	if l, _ := meanCurve(curves, trainLoss); math.Abs(l[0].Y-0) > 1e-12 || math.Abs(l[2].Y-(10-12.8)) > 1e-12 {
		t.Errorf("train loss curve %v: want 0 at epoch 1 and −2.8 at epoch 3", l)
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
