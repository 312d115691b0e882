package synth

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// Modality indices of TriModalConfig.Dims and Noise.
const (
	Text = iota
	Image
	Audio
)

// TriModalConfig sets every knob of GenerateTriModal.
type TriModalConfig struct {
	Seed uint64
	// Depth, Branching: the concept tree; there are Branching^Depth leaf concepts.
	Depth, Branching int
	// LatentDim: dimension of the latent concept space; LevelDecay: see NewHierarchy.
	LatentDim  int
	LevelDecay float64
	// Dims: output dimension of the text, image and audio "encoders" (random linear maps).
	Dims [3]int
	// N: number of samples; each draws a leaf uniformly.
	N int
	// RichnessLevels (0 … Depth−1): the text of a sample names its leaf's ancestor at a level drawn
	// uniformly from [Depth − RichnessLevels, Depth]. 0 = every text names the leaf (all explanation
	// spaces equal); larger = texts range from specific to generic, and |S(T)| =
	// Branching^(Depth − level) spans Branching^RichnessLevels. HyperGRAM Prop. 1.
	RichnessLevels int
	// Gap: norm of the constant random offset added to each modality (the modality gap of Liang
	// et al. 2022, "Mind the gap"); 0 = no gap.
	Gap float64
	// Noise: per-modality isotropic Gaussian noise std added in the output space.
	Noise [3]float64
	// UninformativeAudio: probability that a sample's audio carries no concept at all (only the
	// audio gap offset and noise): GRAM's setting where one modality does not help.
	UninformativeAudio float64
}

// TriModal is a generated tri-modal set. Row i of Text, Image and Audio form one triplet.
type TriModal struct {
	Config             TriModalConfig
	Hierarchy          *Hierarchy
	N                  int
	Text, Image, Audio []float32 // N×Dims[Text], N×Dims[Image], N×Dims[Audio]
	Leaf               []int     // leaf node of each sample (its image and audio concept)
	TextNode           []int     // node the text names (an ancestor of Leaf, or Leaf itself)
	TextLevel          []int     // Hierarchy level of TextNode
	// LogExplanation is log|S(T)| = (Depth − TextLevel)·log(Branching): the semantic richness
	// of the text (HyperGRAM's conditional entropy up to a constant).
	LogExplanation   []float64
	AudioInformative []bool
}

// GenerateTriModal draws the samples of cfg.
func GenerateTriModal(cfg TriModalConfig) (*TriModal, error) {
	if cfg.N < 1 || cfg.RichnessLevels < 0 || cfg.RichnessLevels >= cfg.Depth || cfg.Gap < 0 ||
		cfg.UninformativeAudio < 0 || cfg.UninformativeAudio > 1 {
		return nil, fmt.Errorf("synth: tri-modal config needs N ≥ 1, 0 ≤ RichnessLevels < Depth, Gap ≥ 0, UninformativeAudio in [0, 1]: %+v", cfg)
	}
	for m, d := range cfg.Dims {
		if d < 1 || cfg.Noise[m] < 0 {
			return nil, fmt.Errorf("synth: modality %d needs Dims ≥ 1 and Noise ≥ 0", m)
		}
	}
	h, err := NewHierarchy(cfg.Seed, cfg.Depth, cfg.Branching, cfg.LatentDim, cfg.LevelDecay)
	if err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x7472696d6f64616c)) // stream "trimodal"
	var proj [3]projection
	var gap [3][]float64
	for m := range proj {
		proj[m] = newProjection(rng, cfg.LatentDim, cfg.Dims[m])
		gap[m] = gapOffset(rng, cfg.Dims[m], cfg.Gap)
	}
	t := &TriModal{Config: cfg, Hierarchy: h, N: cfg.N,
		Text: make([]float32, cfg.N*cfg.Dims[Text]), Image: make([]float32, cfg.N*cfg.Dims[Image]),
		Audio: make([]float32, cfg.N*cfg.Dims[Audio])}
	for i := 0; i < cfg.N; i++ {
		leaf := h.Leaves[rng.IntN(len(h.Leaves))]
		level := cfg.Depth - rng.IntN(cfg.RichnessLevels+1)
		node := h.Ancestor(leaf, level)
		informative := rng.Float64() >= cfg.UninformativeAudio
		t.Leaf = append(t.Leaf, leaf)
		t.TextNode = append(t.TextNode, node)
		t.TextLevel = append(t.TextLevel, level)
		t.LogExplanation = append(t.LogExplanation, float64(cfg.Depth-level)*math.Log(float64(cfg.Branching)))
		t.AudioInformative = append(t.AudioInformative, informative)
		proj[Text].apply(t.Text[i*cfg.Dims[Text]:(i+1)*cfg.Dims[Text]], h.Vec(node), gap[Text], cfg.Noise[Text], rng)
		proj[Image].apply(t.Image[i*cfg.Dims[Image]:(i+1)*cfg.Dims[Image]], h.Vec(leaf), gap[Image], cfg.Noise[Image], rng)
		var a []float64
		if informative {
			a = h.Vec(leaf)
		}
		proj[Audio].apply(t.Audio[i*cfg.Dims[Audio]:(i+1)*cfg.Dims[Audio]], a, gap[Audio], cfg.Noise[Audio], rng)
	}
	return t, nil
}
