package synth

import (
	"math"
	"testing"

	"github.com/geoalign/geoalign/lib/data/prvr"
)

func dist(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += (a[i] - b[i]) * (a[i] - b[i])
	}
	return math.Sqrt(s)
}

func TestHierarchyShapeAndGeometry(t *testing.T) {
	h, err := NewHierarchy(1, 3, 4, 16, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	// Complete tree: (4^4 − 1)/3 = 85 nodes, 4^3 = 64 leaves.
	if h.NumNodes() != 85 || len(h.Leaves) != 64 || h.LeavesUnder(1) != 16 {
		t.Fatalf("nodes %d leaves %d under(1) %d", h.NumNodes(), len(h.Leaves), h.LeavesUnder(1))
	}
	for _, l := range h.Leaves {
		if h.Level[l] != 3 || h.Level[h.Ancestor(l, 1)] != 1 || h.Ancestor(l, 0) != 0 {
			t.Fatal("ancestors")
		}
	}
	// Siblings (same parent) must be closer on average than leaves under different level-1 nodes.
	var sib, far float64
	var ns, nf int
	for i, a := range h.Leaves {
		for _, b := range h.Leaves[i+1:] {
			d := dist(h.Vec(a), h.Vec(b))
			switch {
			case h.Parent[a] == h.Parent[b]:
				sib, ns = sib+d, ns+1
			case h.Ancestor(a, 1) != h.Ancestor(b, 1):
				far, nf = far+d, nf+1
			}
		}
	}
	if sib/float64(ns) >= 0.8*far/float64(nf) {
		t.Fatalf("mean sibling distance %v not well below cross-subtree %v", sib/float64(ns), far/float64(nf))
	}
	again, _ := NewHierarchy(1, 3, 4, 16, 0.5)
	other, _ := NewHierarchy(2, 3, 4, 16, 0.5)
	if again.Latent[100] != h.Latent[100] || other.Latent[100] == h.Latent[100] {
		t.Fatal("seeding")
	}
	if _, err := NewHierarchy(1, 0, 4, 16, 0.5); err == nil {
		t.Fatal("depth 0 accepted")
	}
}

func baseTriModal() TriModalConfig {
	return TriModalConfig{Seed: 3, Depth: 3, Branching: 3, LatentDim: 8, LevelDecay: 0.7, Dims: [3]int{12, 10, 6}, N: 400}
}

func TestTriModalKnobs(t *testing.T) {
	cfg := baseTriModal()
	tm, err := GenerateTriModal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(tm.Text) != 400*12 || len(tm.Image) != 400*10 || len(tm.Audio) != 400*6 {
		t.Fatal("shapes")
	}
	for i := 0; i < tm.N; i++ {
		if tm.TextNode[i] != tm.Leaf[i] || tm.LogExplanation[i] != 0 || !tm.AudioInformative[i] {
			t.Fatalf("RichnessLevels 0: sample %d text node %d leaf %d", i, tm.TextNode[i], tm.Leaf[i])
		}
	}
	// Without noise, samples of the same leaf have identical images.
	for i := 1; i < tm.N; i++ {
		if tm.Leaf[i] == tm.Leaf[0] && tm.Image[i*10] != tm.Image[0] {
			t.Fatal("same leaf, different noiseless image")
		}
	}

	cfg.RichnessLevels, cfg.Gap, cfg.UninformativeAudio = 2, 3, 1
	tm, _ = GenerateTriModal(cfg)
	levels := map[int]bool{}
	for i := 0; i < tm.N; i++ {
		levels[tm.TextLevel[i]] = true
		if tm.Hierarchy.Ancestor(tm.Leaf[i], tm.TextLevel[i]) != tm.TextNode[i] {
			t.Fatal("text node is not the leaf's ancestor")
		}
		want := float64(3-tm.TextLevel[i]) * math.Log(3)
		if math.Abs(tm.LogExplanation[i]-want) > 1e-12 || tm.AudioInformative[i] {
			t.Fatal("log|S(T)| or informative flag")
		}
		// Uninformative audio, no noise: the row is exactly the audio gap offset, of norm Gap.
		var ss float64
		for _, x := range tm.Audio[i*6 : (i+1)*6] {
			ss += float64(x) * float64(x)
		}
		if math.Abs(math.Sqrt(ss)-3) > 1e-5 {
			t.Fatalf("uninformative audio norm %v, want the gap 3", math.Sqrt(ss))
		}
	}
	if len(levels) != 3 {
		t.Fatalf("text levels %v, want 1, 2, 3", levels)
	}
	cfg.RichnessLevels = 3
	if _, err := GenerateTriModal(cfg); err == nil {
		t.Fatal("RichnessLevels = Depth accepted")
	}
}

func TestPRVRPartialRelevance(t *testing.T) {
	cfg := PRVRConfig{Seed: 5, Depth: 2, Branching: 4, LatentDim: 8, LevelDecay: 0.7, Videos: 20, MomentsMin: 2, MomentsMax: 5,
		FramesMin: 3, FramesMax: 40, FrameDim: 6, QueryDim: 5, QueriesPerVideo: 2, QueryTokens: 4, FrameNoise: 0.1, TokenNoise: 0.1}
	s, truth, err := GeneratePRVR(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if s.NumVideos() != 20 || s.NumQueries() != 40 || len(s.Clips) != 20*prvr.ClipCount*6 {
		t.Fatalf("videos %d queries %d", s.NumVideos(), s.NumQueries())
	}
	partial := 0
	for q := 0; q < s.NumQueries(); q++ {
		if s.QueryVideo[q] != q/2 {
			t.Fatal("ground truth column")
		}
		frac := float64(truth.MomentFrames[q]) / float64(truth.VideoFrames[q])
		if frac <= 0 || frac > 1 || truth.MomentStart[q]+truth.MomentFrames[q] > truth.VideoFrames[q] {
			t.Fatalf("query %d: moment %d+%d of %d", q, truth.MomentStart[q], truth.MomentFrames[q], truth.VideoFrames[q])
		}
		if frac < 1 {
			partial++
		}
		_, n := s.VideoFrames(s.QueryVideo[q])
		if n != min(truth.VideoFrames[q], prvr.MaxFrames) {
			t.Fatalf("frames %d, want min(%d, 128)", n, truth.VideoFrames[q])
		}
	}
	if partial != s.NumQueries() {
		t.Fatalf("%d of %d queries partially relevant; with ≥ 2 moments all must be", partial, s.NumQueries())
	}
}

func TestPairsFalseNegativeRate(t *testing.T) {
	cfg := PairsConfig{Seed: 9, N: 300, LatentDim: 8, TextDim: 10, FrameDim: 7, Frames: 4}
	p, err := GeneratePairs(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if p.FalseNegatives != 0 || len(p.Frames) != 300*4*7 {
		t.Fatalf("rate 0 gave %d false negatives", p.FalseNegatives)
	}
	cfg.FalseNegativeRate = 0.3
	p, _ = GeneratePairs(cfg)
	// Each pair after the first reuses a concept with probability 0.3 (binomial, n = 299): the
	// reusing pairs alone are 90 ± 8 in expectation; allow a wide band.
	reused := 0
	seen := map[int]bool{}
	for _, c := range p.Concept {
		if seen[c] {
			reused++
		}
		seen[c] = true
	}
	if reused < 60 || reused > 120 || p.FalseNegatives <= reused {
		t.Fatalf("reused %d, false negatives %d", reused, p.FalseNegatives)
	}
	for i := 0; i < p.N; i++ {
		for j := i + 1; j < p.N; j++ {
			if p.SameConcept(i, j) && p.Text[i*10] != p.Text[j*10] {
				t.Fatal("noiseless texts of one concept differ")
			}
		}
	}
}
