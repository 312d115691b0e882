package synth

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// Hierarchy is a complete concept tree of the given depth and branching with a latent vector per
// node. Node 0 is the root (level 0); the children of node p are contiguous; leaves are at level
// Depth. Latents follow a branching random walk: root at the origin, child = parent + Gaussian
// offset of per-coordinate std LevelDecay^(level−1)/√LatentDim, so the expected distance between
// two leaves grows with the level of their lowest common ancestor.
type Hierarchy struct {
	Depth, Branching, LatentDim int
	Parent                      []int     // Parent[0] = −1
	Level                       []int     // depth of each node
	Latent                      []float64 // node i: Latent[i*LatentDim : (i+1)*LatentDim]
	Leaves                      []int     // node ids of the leaves, left to right
}

// NewHierarchy builds the tree. levelDecay in (0, 1] makes deeper distinctions finer (0.5:
// each level's offsets are half as large as its parent level's).
func NewHierarchy(seed uint64, depth, branching, latentDim int, levelDecay float64) (*Hierarchy, error) {
	if depth < 1 || branching < 2 || latentDim < 1 || !(levelDecay > 0 && levelDecay <= 1) {
		return nil, fmt.Errorf("synth: hierarchy needs depth ≥ 1, branching ≥ 2, latent dim ≥ 1, level decay in (0, 1]; got %d, %d, %d, %v",
			depth, branching, latentDim, levelDecay)
	}
	n := 1
	for l, width := 1, 1; l <= depth; l++ {
		width *= branching
		n += width
		if n > 1<<22 {
			return nil, fmt.Errorf("synth: hierarchy of depth %d and branching %d has more than 4M nodes", depth, branching)
		}
	}
	rng := rand.New(rand.NewPCG(seed, 0x6869657261726368)) // stream "hierarch"
	h := &Hierarchy{Depth: depth, Branching: branching, LatentDim: latentDim,
		Parent: make([]int, 0, n), Level: make([]int, 0, n), Latent: make([]float64, 0, n*latentDim)}
	h.Parent = append(h.Parent, -1)
	h.Level = append(h.Level, 0)
	h.Latent = append(h.Latent, make([]float64, latentDim)...)
	for i := 0; len(h.Parent) < n; i++ {
		if h.Level[i] == depth {
			continue
		}
		std := math.Pow(levelDecay, float64(h.Level[i])) / math.Sqrt(float64(latentDim))
		for c := 0; c < branching; c++ {
			h.Parent = append(h.Parent, i)
			h.Level = append(h.Level, h.Level[i]+1)
			for j := 0; j < latentDim; j++ {
				h.Latent = append(h.Latent, h.Latent[i*latentDim+j]+std*rng.NormFloat64())
			}
		}
	}
	for i, l := range h.Level {
		if l == depth {
			h.Leaves = append(h.Leaves, i)
		}
	}
	return h, nil
}

// NumNodes is the number of nodes.
func (h *Hierarchy) NumNodes() int { return len(h.Parent) }

// Vec returns the latent vector of node i.
func (h *Hierarchy) Vec(i int) []float64 { return h.Latent[i*h.LatentDim : (i+1)*h.LatentDim] }

// Ancestor returns the ancestor of node i at level l (i itself when l = Level[i]).
func (h *Hierarchy) Ancestor(i, l int) int {
	for h.Level[i] > l {
		i = h.Parent[i]
	}
	return i
}

// LeavesUnder is the number of leaves below a node at level l: Branching^(Depth−l).
func (h *Hierarchy) LeavesUnder(l int) int {
	n := 1
	for k := l; k < h.Depth; k++ {
		n *= h.Branching
	}
	return n
}

// projection is a random dense map R^in → R^out with N(0, 1/in) entries (approximately
// norm-preserving for out ≥ in), the "encoder" of one modality.
type projection struct {
	in, out int
	w       []float64
}

func newProjection(rng *rand.Rand, in, out int) projection {
	p := projection{in: in, out: out, w: make([]float64, in*out)}
	s := 1 / math.Sqrt(float64(in))
	for i := range p.w {
		p.w[i] = s * rng.NormFloat64()
	}
	return p
}

// apply writes W·x + offset + noise·N(0, I) into dst (float32).
func (p projection) apply(dst []float32, x []float64, offset []float64, noise float64, rng *rand.Rand) {
	for o := 0; o < p.out; o++ {
		var v float64
		if x != nil {
			row := p.w[o*p.in : (o+1)*p.in]
			for i, xi := range x {
				v += row[i] * xi
			}
		}
		if offset != nil {
			v += offset[o]
		}
		if noise > 0 {
			v += noise * rng.NormFloat64()
		}
		dst[o] = float32(v)
	}
}

// gapOffset is a random direction of norm gap in R^dim: the constant shift of one modality.
func gapOffset(rng *rand.Rand, dim int, gap float64) []float64 {
	v := make([]float64, dim)
	var ss float64
	for i := range v {
		v[i] = rng.NormFloat64()
		ss += v[i] * v[i]
	}
	for i := range v {
		v[i] *= gap / math.Sqrt(ss)
	}
	return v
}
