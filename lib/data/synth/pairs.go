package synth

import (
	"fmt"
	"math/rand/v2"
)

// PairsConfig sets every knob of GeneratePairs.
type PairsConfig struct {
	Seed uint64
	// N: number of (text, video) pairs; pair i is the positive of text i.
	N int
	// LatentDim: dimension of the concept space; concepts are isotropic Gaussian latents.
	LatentDim int
	// FalseNegativeRate: probability that a pair reuses the concept of an earlier pair (a
	// semantically equivalent pair that InfoNCE nevertheless treats as a negative); 0 = every
	// pair has its own concept. The realised sets are in Pairs.SameConcept.
	FalseNegativeRate float64
	// TextDim, FrameDim, Frames: text embedding size, frame feature size, frames per video.
	TextDim, FrameDim, Frames int
	// Gap: norm of the constant offset added to each modality (text and frames), the modality gap
	// that creates GARE's optimisation tension.
	Gap float64
	// TextNoise, FrameNoise: isotropic noise std; FrameJitter: per-frame latent perturbation std
	// (frames of one video show the same concept with variation).
	TextNoise, FrameNoise, FrameJitter float64
}

// Pairs is a generated paired set.
type Pairs struct {
	Config PairsConfig
	N      int
	Text   []float32 // N×TextDim
	Frames []float32 // N×Frames×FrameDim
	// Concept of each pair; pairs with equal concepts are each other's false negatives.
	Concept []int
	// FalseNegatives is the number of pairs that share their concept with another pair.
	FalseNegatives int
}

// SameConcept reports whether pairs i and j (i ≠ j) are false negatives of each other.
func (p *Pairs) SameConcept(i, j int) bool { return i != j && p.Concept[i] == p.Concept[j] }

// GeneratePairs draws the pairs of cfg.
func GeneratePairs(cfg PairsConfig) (*Pairs, error) {
	if cfg.N < 2 || cfg.LatentDim < 1 || cfg.FalseNegativeRate < 0 || cfg.FalseNegativeRate > 1 || cfg.TextDim < 1 ||
		cfg.FrameDim < 1 || cfg.Frames < 1 || cfg.Gap < 0 || cfg.TextNoise < 0 || cfg.FrameNoise < 0 || cfg.FrameJitter < 0 {
		return nil, fmt.Errorf("synth: invalid pairs config %+v", cfg)
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x7061697273)) // stream "pairs"
	tproj := newProjection(rng, cfg.LatentDim, cfg.TextDim)
	vproj := newProjection(rng, cfg.LatentDim, cfg.FrameDim)
	tgap, vgap := gapOffset(rng, cfg.TextDim, cfg.Gap), gapOffset(rng, cfg.FrameDim, cfg.Gap)
	p := &Pairs{Config: cfg, N: cfg.N, Text: make([]float32, cfg.N*cfg.TextDim),
		Frames: make([]float32, cfg.N*cfg.Frames*cfg.FrameDim)}
	var latents [][]float64
	z := make([]float64, cfg.LatentDim)
	for i := 0; i < cfg.N; i++ {
		c := len(latents)
		if i > 0 && rng.Float64() < cfg.FalseNegativeRate {
			c = p.Concept[rng.IntN(i)]
		} else {
			v := make([]float64, cfg.LatentDim)
			for j := range v {
				v[j] = rng.NormFloat64()
			}
			latents = append(latents, v)
		}
		p.Concept = append(p.Concept, c)
		tproj.apply(p.Text[i*cfg.TextDim:(i+1)*cfg.TextDim], latents[c], tgap, cfg.TextNoise, rng)
		for f := 0; f < cfg.Frames; f++ {
			for j := range z {
				z[j] = latents[c][j] + cfg.FrameJitter*rng.NormFloat64()
			}
			off := (i*cfg.Frames + f) * cfg.FrameDim
			vproj.apply(p.Frames[off:off+cfg.FrameDim], z, vgap, cfg.FrameNoise, rng)
		}
	}
	count := map[int]int{}
	for _, c := range p.Concept {
		count[c]++
	}
	for _, c := range p.Concept {
		if count[c] > 1 {
			p.FalseNegatives++
		}
	}
	return p, nil
}
