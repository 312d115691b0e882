package hlformerstudy

import (
	"fmt"
	"image/color"
	"maps"
	"math"
	"path/filepath"
	"slices"

	"github.com/geoalign/geoalign/lib/data/charades"
	"github.com/geoalign/geoalign/lib/models/hlformer"
	"github.com/geoalign/geoalign/lib/report"
	"github.com/geoalign/geoalign/lib/reproduce"
	gmat "gonum.org/v1/gonum/mat"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg/draw"
)

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	ys := slices.Sorted(slices.Values(xs))
	return (ys[(len(ys)-1)/2] + ys[len(ys)/2]) / 2 // the middle one twice when odd: exact
}

// Figure5 is HLFormer Fig. 5: histograms of the distances from the origin of glance (clip), text and
// gaze (frame) embeddings in the POP space, for the model trained with and without L_pop (seed of the
// first run of each; sec's plots fig5-with-pop and fig5-without-pop). The table gives the medians per
// seed (mean ± std); the paper's claim is the order clip < text < frame with L_pop (sec's comparisons).
func (s *Study) Figure5(sec *reproduce.Section, maxVideos, maxQueries int) (*report.Table, error) {
	t := report.NewTable(fmt.Sprintf("HLFormer Fig. 5 analogue — distance from the POP origin (%s scale)", s.Scale.Name),
		s.Provenance(fmt.Sprintf("Distances of the first %d test videos' clips and frames and the first %d test queries, "+
			"mapped like the POP branch's inputs (exp(α)·x, MERU exp₀ with the learned c); medians per seed, mean ± std over seeds.", maxVideos, maxQueries)),
		"model", "clip (glance) median", "text median", "frame (gaze) median", "clip < text < frame (seeds)")
	perSeed := map[string][3][]float64{} // variant → medians of clips, queries, frames per seed
	for i, v := range Figure5Variants {
		r, err := s.Run(v)
		if err != nil {
			return nil, err
		}
		m, err := hlformer.New(r.Config)
		if err != nil {
			return nil, err
		}
		var mc, mt, mf []float64
		ordered := 0
		var first *hlformer.HyperbolicDistances
		for _, res := range r.Results {
			d, err := hlformer.POPDistances(s.Backend, m, res.Store, s.Setup.Test, maxVideos, maxQueries)
			if err != nil {
				return nil, err
			}
			if first == nil {
				first = d
			}
			c, q, f := median(d.Clips), median(d.Queries), median(d.Frames)
			mc, mt, mf = append(mc, c), append(mt, q), append(mf, f)
			if c < q && q < f {
				ordered++
			}
		}
		t.AddRow(v.Name, report.Summarize(mc).Format(3), report.Summarize(mt).Format(3), report.Summarize(mf).Format(3),
			fmt.Sprintf("%d of %d", ordered, len(r.Results)))
		perSeed[v.Name] = [3][]float64{mc, mt, mf}
		p, err := report.Histograms(fmt.Sprintf("%s (seed %d, c = %.2f)", ShortName(v.Name), r.Seeds[0], first.C), "distance from the origin", 40,
			report.Series{Name: "clip (glance)", Y: first.Clips}, report.Series{Name: "text query", Y: first.Queries}, report.Series{Name: "frame (gaze)", Y: first.Frames})
		if err != nil {
			return nil, err
		}
		sec.Plot("fig5-"+[]string{"with-pop", "without-pop"}[i], p)
	}
	// Per seed of the model with L_pop: the median distances of clips, queries and frames (Fig. 5's
	// order clip < text < frame), as two paired comparisons.
	medians := func(name string, xs []float64) reproduce.Sample {
		return reproduce.Sample{Name: name, Seeds: s.Seeds, Values: xs}
	}
	const claim, paper = "With L_pop, glance (clip) embeddings lie closest to the origin of the hyperbolic space, text queries next, gaze (frame) embeddings farthest (Fig. 5)",
		"Fig. 5 (TVR): clip < text < frame with L_pop, uncorrelated without"
	h := perSeed[HybridVariant.Name]
	sec.Comparisons = []reproduce.Comparison{
		s.comparison(claim+": text farther than clips", paper, "median distance from the origin", medians("clip (glance)", h[0]), medians("text query", h[1])),
		s.comparison(claim+": frames farther than text", paper, "median distance from the origin", medians("text query", h[1]), medians("frame (gaze)", h[2])),
	}
	return t, nil
}

// frameMoments labels each of the m model frames of a video whose split has n frames at
// charades.FrameRate with the index of the first annotated moment whose interval contains the frame's
// centre time, or −1. When m < n the model's frames are segment averages (prvr.UniformSample), and
// frame i is taken to cover the original frames [i·n/m, (i+1)·n/m).
func frameMoments(m, n int, moments []charades.Moment) []int {
	labels := make([]int, m)
	for k := range labels {
		labels[k] = -1
		t := (float64(k) + 0.5) * float64(n) / float64(m) / charades.FrameRate
		for i, m := range moments {
			if t >= math.Min(m.Start, m.End) && t <= math.Max(m.Start, m.End) {
				labels[k] = i
				break
			}
		}
	}
	return labels
}

// momentSeparation is (mean distance between frames of different moments) / (mean distance between
// frames of the same moment) over the labelled frames of one video: > 1 when moments form clusters.
func momentSeparation(emb []float32, d int, labels []int) float64 {
	var within, between float64
	var nw, nb int
	for i := range labels {
		for j := i + 1; j < len(labels); j++ {
			if labels[i] < 0 || labels[j] < 0 {
				continue
			}
			var s float64
			for e := 0; e < d; e++ {
				x := float64(emb[i*d+e] - emb[j*d+e])
				s += x * x
			}
			if labels[i] == labels[j] {
				within += math.Sqrt(s)
				nw++
			} else {
				between += math.Sqrt(s)
				nb++
			}
		}
	}
	if nw == 0 || nb == 0 || within == 0 {
		return math.NaN()
	}
	return (between / float64(nb)) / (within / float64(nw))
}

// pca2 projects rows (n × d) on their first two principal components.
func pca2(rows []float32, n, d int) [][2]float64 {
	x := gmat.NewDense(n, d, nil)
	for j := range d { // centred columns
		var m float64
		for i := range n {
			m += float64(rows[i*d+j])
		}
		m /= float64(n)
		for i := range n {
			x.Set(i, j, float64(rows[i*d+j])-m)
		}
	}
	var svd gmat.SVD
	out := make([][2]float64, n)
	if !svd.Factorize(x, gmat.SVDThin) {
		return out
	}
	var v gmat.Dense
	svd.VTo(&v)
	for i := range n {
		for c := 0; c < 2 && c < v.RawMatrix().Cols; c++ {
			var s float64
			for j := range d {
				s += x.At(i, j) * v.At(j, c)
			}
			out[i][c] = s
		}
	}
	return out
}

// Figure4 is HLFormer Fig. 4 with PCA instead of UMAP: the gaze-branch frame embeddings of one test
// video (the one with the most annotated moments), projected to 2-D and coloured by the Charades-STA
// moment containing each frame, for the Euclidean-only and the hybrid model (seed of the first run).
// The table averages the moment separation (between/within mean distances) over all test videos with
// ≥ 2 moments, per seed. Needs the Charades setup (moment times). It adds the plots (fig4-euclidean,
// fig4-hybrid), the table (fig4) and the comparison to sec.
func (s *Study) Figure4(sec *reproduce.Section) error {
	if s.Setup.Kind != report.LabelDerived {
		return fmt.Errorf("hlformer: Fig. 4 needs Charades-STA moment annotations (setup %q)", s.Setup.Name)
	}
	ms, err := charades.ReadSTA(filepath.Join(s.Setup.Shared, "charades", "charades_sta_test.txt"))
	if err != nil {
		return err
	}
	moments := map[string][]charades.Moment{} // the Charades-STA test moments per video
	for _, m := range ms {
		moments[m.VideoID] = append(moments[m.VideoID], m)
	}
	te, frameLen := s.Setup.Test, s.Scale.FrameLen
	// labels are the moments of the m model frames of test video v (frameMoments).
	labels := func(v int) (m int, moment []int) {
		_, n := te.VideoFrames(v)
		return min(n, frameLen), frameMoments(min(n, frameLen), n, moments[te.VideoIDs[v]])
	}
	best, bestCount := -1, 0
	for v := range te.VideoIDs {
		_, l := labels(v)
		if k := len(slices.Compact(slices.DeleteFunc(slices.Sorted(slices.Values(l)), func(l int) bool { return l < 0 }))); k > bestCount {
			best, bestCount = v, k
		}
	}
	if best < 0 {
		return fmt.Errorf("hlformer: no test video with an annotated moment")
	}
	t := report.NewTable(fmt.Sprintf("HLFormer Fig. 4 analogue — moment separation of frame embeddings (%s scale)", s.Scale.Name),
		s.Provenance("Separation = mean distance between frames of different Charades-STA moments / mean distance within a moment, "+
			"gaze-branch evaluation embeddings (L2-normalised), averaged over the test videos with ≥ 2 annotated moments (a down-sampled "+
			"frame covers its segment's time span); mean ± std over seeds. The plots are PCA (not UMAP) projections of one video."),
		"model", "moment separation", "videos")
	var samples []reproduce.Sample // moment separation per seed: Euclidean-only, hybrid
	for i, v := range []Variant{EuclideanOnlyVariant, HybridVariant} {
		r, err := s.Run(v)
		if err != nil {
			return err
		}
		var seps []float64
		var count int
		for si, res := range r.Results {
			em := res.Embeddings
			d := em.Dim
			var sum float64
			count = 0
			for vi, id := range te.VideoIDs {
				if len(moments[id]) < 2 {
					continue
				}
				m, l := labels(vi)
				if sep := momentSeparation(em.Frames[vi*frameLen*d:(vi*frameLen+m)*d], d, l); !math.IsNaN(sep) {
					sum += sep
					count++
				}
			}
			seps = append(seps, sum/float64(max(count, 1)))
			if si == 0 {
				m, l := labels(best)
				p, err := scatterByLabel(fmt.Sprintf("%s — video %s (PCA)", ShortName(v.Name), te.VideoIDs[best]), pca2(em.Frames[best*frameLen*d:(best*frameLen+m)*d], m, d), l)
				if err != nil {
					return err
				}
				sec.Plot("fig4-"+[]string{"euclidean", "hybrid"}[i], p)
			}
		}
		t.AddRow(v.Name, report.Summarize(seps).Format(3), count)
		samples = append(samples, reproduce.Sample{Name: ShortName(v.Name), Seeds: s.Seeds, Values: seps})
	}
	sec.Table("fig4", t)
	sec.Comparisons = []reproduce.Comparison{s.comparison("Lorentz attention makes frame embeddings of the same moment more compact and different moments more separated (Fig. 4)",
		"Fig. 4 (TVR, UMAP): qualitative", "moment separation", samples[0], samples[1])}
	return nil
}

// scatterByLabel draws 2-D points coloured by label (−1 = no moment, grey).
func scatterByLabel(title string, pts [][2]float64, labels []int) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text, p.X.Label.Text, p.Y.Label.Text = title, "PC 1", "PC 2"
	groups := map[int]plotter.XYs{}
	for i, pt := range pts {
		groups[labels[i]] = append(groups[labels[i]], plotter.XY{X: pt[0], Y: pt[1]})
	}
	for _, k := range slices.Sorted(maps.Keys(groups)) {
		sc, err := plotter.NewScatter(groups[k])
		if err != nil {
			return nil, err
		}
		sc.GlyphStyle.Shape = draw.CircleGlyph{}
		name := "no moment"
		if k < 0 {
			sc.GlyphStyle.Color = color.Gray{Y: 160}
		} else {
			sc.GlyphStyle.Color = plotutil.Color(k)
			name = fmt.Sprintf("moment %d", k+1)
		}
		p.Add(sc)
		p.Legend.Add(name, sc)
	}
	return p, nil
}
