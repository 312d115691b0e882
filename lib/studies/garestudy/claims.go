package garestudy

import (
	"fmt"
	"slices"

	"github.com/geoalign/geoalign/lib/models/gare"
	"github.com/geoalign/geoalign/lib/reproduce"
	"github.com/geoalign/geoalign/lib/retrieval"
	"github.com/geoalign/geoalign/lib/retrieval/graphscore"
	"github.com/gomlx/compute"
	"github.com/gomlx/gomlx/core/tensors"
)

// Paper names GARE in every claim: the Holm family of the claim rule is every tested claim of
// one Paper.
const Paper = "GARE (NeurIPS 2025)"

// describe is a descriptive finding of GARE (reproduce.Describe); ours is formatted from the run's
// numbers.
func describe(claim, paperFigure, data, ours string) reproduce.Claim {
	return reproduce.Describe(Paper, claim, paperFigure, data, ours)
}

// noCLIP is why the paper's benchmark numbers cannot be re-measured here.
const noCLIP = "needs CLIP ViT-B/32 and the benchmark videos (or their CLIP features), which cannot be had on these machines " +
	"(no download beyond the Go, Debian and npm registries); the directions of the effects are tested on Charades instead"

// Untestable lists GARE's claims that no experiment here can test, with the reason.
func Untestable() []reproduce.Claim {
	u := func(claim, paperFigure, reason string) reproduce.Claim {
		return reproduce.Untestable(Paper, claim, paperFigure, reason)
	}
	return []reproduce.Claim{
		u("GARE beats the CLIP-based state of the art on MSR-VTT 1k-A", "Table 1 (t2v R@1 49.1, v2t R@1 48.6)", noCLIP),
		u("GARE beats the CLIP-based state of the art on DiDeMo, ActivityNet Captions and MSVD", "Table 2", noCLIP),
		u("GARE adds little training and inference cost to CLIP4Clip", "Tables 10–11 (GPU time, memory, GFLOPs)",
			"GPU measurements around the CLIP backbone: no GPU and no CLIP here; the CPU cost of Δ for every pair is timed in the efficiency table and `make bench`"),
	}
}

// ZeroFloor is the zero-training baseline of a test split (ZeroTraining) and what it is.
type ZeroFloor struct {
	Name   string
	Report retrieval.Report
}

// result is the floor as a run's Result, so that every Metric measures it.
func (f *ZeroFloor) result() Result { return Result{Outcome: Outcome{Report: f.Report}} }

// RandomFloor is the floor of a split whose texts share no space with its videos before training
// (MiniLM descriptions against label-derived videos): random ranking, i.e. every score tied and the
// ties broken uniformly at random (retrieval.RandomTies' expected metrics, text→video; video→text
// too when every video has exactly one text, as in the Charades descriptions track).
func RandomFloor(d *gare.Dataset) (retrieval.Report, error) {
	videoOf := d.GroundTruth() // VideoOf, or the diagonal of a paired set (VideoOf nil)
	t2v, err := retrieval.RandomTies(make([]float32, d.NumTexts*d.NumVideos), videoOf, d.NumVideos, nil, retrieval.MedianNumPy)
	if err != nil {
		return retrieval.Report{}, fmt.Errorf("garestudy: random floor of %q: %w", d.Name, err)
	}
	rep := retrieval.Report{T2V: t2v}
	if slices.Equal(slices.Sorted(slices.Values(videoOf)), seq(d.NumVideos)) {
		// one text per video: ranking n tied texts for a video is the same draw as n tied videos for a text
		v2t := t2v
		rep.V2T = &v2t
	} else if v2t, ok := randomBestOf(videoOf, d.NumVideos, t2v.Ks); ok {
		rep.V2T = &v2t // several texts per video (every video has one: else lib/retrieval has no v2t either)
	}
	return rep, nil
}

// randomBestOf is video→text retrieval of a random ranking of the texts when video j has m_j of
// the T texts (videoOf: each text's video): the rank of its best text (1 + the other videos' texts
// above it, as lib/retrieval ranks several ground truths) has P(rank ≤ K) = 1 − C(T − m, K)/C(T, K)
// and expectation 1 + (T − m)/(m + 1). R@K is 100 × the mean probability, MnR the mean expected
// rank, MdR the median (NumPy's) of the expected ranks; ok is false when a video has no text.
func randomBestOf(videoOf []int, videos int, ks []int) (_ retrieval.Metrics, ok bool) {
	m := make([]int, videos)
	for _, v := range videoOf {
		m[v]++
	}
	if slices.Contains(m, 0) {
		return retrieval.Metrics{}, false
	}
	T := float64(len(videoOf))
	out := retrieval.Metrics{Queries: videos, Ks: slices.Clone(ks), Recall: make([]float64, len(ks))}
	ranks := make([]float64, videos)
	for j, mj := range m {
		for i, k := range ks {
			miss := 1.0 // C(T − m, K)/C(T, K): none of the first K is the video's
			for r := range k {
				miss *= max(T-float64(mj)-float64(r), 0) / (T - float64(r))
			}
			out.Recall[i] += 100 * (1 - miss) / float64(videos)
		}
		ranks[j] = 1 + (T-float64(mj))/float64(mj+1)
		out.MnR += ranks[j] / float64(videos)
	}
	for _, r := range out.Recall {
		out.SumR += r
	}
	slices.Sort(ranks)
	out.MdR = (ranks[(videos-1)/2] + ranks[videos/2]) / 2
	return out, true
}

// ZeroTraining is the zero-training floor of a paired split: text i scores video j by
// cos(t_i, v̄_j), where t_i is the raw text feature (on Charades the mean GloVe vector of the
// caption's tokens) and v̄_j the masked mean over frames of the block [offset, offset + TextDim)
// of the raw frame features (on Charades the mean-GloVe block of the label-derived features,
// tracks.CharadesGloVeOffset). No parameter is learned; the scores are evaluated like every model's
// (gare.Model.Evaluate: lib/retrieval, both directions, pessimistic ties).
func ZeroTraining(b compute.Backend, d *gare.Dataset, offset int) (retrieval.Report, error) {
	w := d.TextDim
	if offset < 0 || offset+w > d.VideoDim {
		return retrieval.Report{}, fmt.Errorf("garestudy: zero-training floor of %q: block [%d, %d) outside the %d-d frames", d.Name, offset, offset+w, d.VideoDim)
	}
	videos := make([]float32, d.NumVideos*w)
	for j := range d.NumVideos {
		dst := videos[j*w : (j+1)*w]
		var n float32
		for f := range d.Frames {
			m := d.FrameMask[j*d.Frames+f]
			if m == 0 {
				continue
			}
			n += m
			frame := d.Video[(j*d.Frames+f)*d.VideoDim+offset:]
			for k := range dst {
				dst[k] += m * frame[k]
			}
		}
		for k := range dst {
			dst[k] /= max(n, 1) // a video with no unmasked frame keeps v̄ = 0 (cosine 0 by the F.normalize floor)
		}
	}
	sc, err := graphscore.Cosine(b, tensors.FromFlatDataAndDimensions(d.Text, d.NumTexts, w),
		tensors.FromFlatDataAndDimensions(videos, d.NumVideos, w))
	if err != nil {
		return retrieval.Report{}, err
	}
	res, err := retrieval.Evaluate[float32](sc, d.VideoOf, retrieval.Options{VideoToText: true})
	if err != nil {
		return retrieval.Report{}, fmt.Errorf("garestudy: zero-training floor of %q: %w", d.Name, err)
	}
	return res.Report, nil
}

// Compare declares the claim "variant b beats variant a on metric m" on the runs' test split,
// with the split's zero-training floor (when the runs have one), the metric's best value and its
// level under random ranking for the split's size (reproduce.Compare).
func (r *Runs) Compare(claim, paperFigure string, a, b int, m Metric) reproduce.Comparison {
	c := reproduce.Comparison{Paper: Paper, Claim: claim, PaperFigure: paperFigure, Data: dataOf(r),
		Random: m.RandomLevel(r.Test.NumTexts, r.Test.NumVideos)}
	if r.Floor != nil {
		c.Floor = &reproduce.Sample{Name: r.Floor.Name, Values: []float64{m.Of(r.Floor.result())}}
	}
	return reproduce.Compare(c, r.Results[a], r.Results[b], m)
}

// BeatsFloor declares the claim "variant v beats the zero-training floor of the same split" on
// metric m (issue 19: a trained model must beat what the features give without training;
// reproduce.BeatsFloor); the runs must have a floor.
func (r *Runs) BeatsFloor(v int, m Metric) reproduce.Comparison {
	c := r.Compare(r.Variants[v].Name+" beats the zero-training floor of the same split",
		"— (not a claim of the paper: a trained model must beat it)", v, v, m)
	return reproduce.BeatsFloor(c, *c.Floor, r.Results[v], m)
}

// dataOf says on which data runs r were trained and tested.
func dataOf(r *Runs) string {
	return fmt.Sprintf("%s: trained on %s (%d pairs), tested on %s (%d texts × %d videos)",
		r.Train.Kind, r.Train.Name, r.Train.NumTexts, r.Test.Name, r.Test.NumTexts, r.Test.NumVideos)
}
