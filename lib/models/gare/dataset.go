package gare

import (
	"fmt"
	"math/rand/v2"

	"github.com/geoalign/geoalign/lib/data/prvr"
	"github.com/geoalign/geoalign/lib/data/synth"
)

// Dataset is a text↔video retrieval set on given features: NumTexts texts and NumVideos videos
// of Frames frames each. Text i's ground-truth video is VideoOf[i] (nil: video i, a paired set).
type Dataset struct {
	Name string
	// Kind says where the features come from ("label-derived", "synthetic", "random").
	Kind string

	NumTexts, NumVideos int
	TextDim, VideoDim   int
	Frames, Words       int

	Text      []float32 // NumTexts × TextDim: t_i (for word features, their masked mean)
	WordFeats []float32 // NumTexts × Words × TextDim, or nil (needed by ContextWords)
	WordMask  []float32 // NumTexts × Words
	Video     []float32 // NumVideos × Frames × VideoDim
	FrameMask []float32 // NumVideos × Frames
	VideoOf   []int

	// Concept, when set, is a label per pair: pairs with equal concepts are false negatives of
	// each other (the synthetic benchmark).
	Concept []int

	// DroppedTexts counts texts left out because their features are all zero (captions without
	// any in-vocabulary token: their t_i would be 0 and cos(t_i, ·) undefined, which the code's
	// eps-free normalisation turns into NaN). In a paired set their videos are left out too.
	DroppedTexts int
}

// AppendText appends text i of from to d: its TextDim features and, where from has word
// features, its Words × TextDim word features and Words mask entries (d must share from's TextDim
// and Words). It leaves NumTexts and VideoOf to the caller.
func (d *Dataset) AppendText(from *Dataset, i int) {
	d.Text = append(d.Text, from.Text[i*from.TextDim:(i+1)*from.TextDim]...)
	if from.WordFeats != nil {
		w := from.Words * from.TextDim
		d.WordFeats = append(d.WordFeats, from.WordFeats[i*w:(i+1)*w]...)
		d.WordMask = append(d.WordMask, from.WordMask[i*from.Words:(i+1)*from.Words]...)
	}
}

// GroundTruth returns VideoOf, or the diagonal.
func (d *Dataset) GroundTruth() []int {
	if d.VideoOf != nil {
		return d.VideoOf
	}
	gt := make([]int, d.NumTexts)
	for i := range gt {
		gt[i] = i
	}
	return gt
}

// Validate checks that every slice has the size its counts imply.
func (d *Dataset) Validate() error {
	check := func(name string, got, want int) error {
		if got != want {
			return fmt.Errorf("gare: dataset %q: %s has %d values, want %d", d.Name, name, got, want)
		}
		return nil
	}
	if err := check("Text", len(d.Text), d.NumTexts*d.TextDim); err != nil {
		return err
	}
	if err := check("Video", len(d.Video), d.NumVideos*d.Frames*d.VideoDim); err != nil {
		return err
	}
	if err := check("FrameMask", len(d.FrameMask), d.NumVideos*d.Frames); err != nil {
		return err
	}
	if d.WordFeats != nil {
		if err := check("WordFeats", len(d.WordFeats), d.NumTexts*d.Words*d.TextDim); err != nil {
			return err
		}
		if err := check("WordMask", len(d.WordMask), d.NumTexts*d.Words); err != nil {
			return err
		}
	}
	if d.VideoOf == nil && d.NumTexts != d.NumVideos {
		return fmt.Errorf("gare: dataset %q has %d texts and %d videos but no VideoOf", d.Name, d.NumTexts, d.NumVideos)
	}
	for i, v := range d.VideoOf {
		if v < 0 || v >= d.NumVideos {
			return fmt.Errorf("gare: dataset %q: VideoOf[%d] = %d outside [0, %d)", d.Name, i, v, d.NumVideos)
		}
	}
	return nil
}

// Subset returns the paired subset of pairs idx (texts idx[k] and their videos); d must be paired.
func (d *Dataset) Subset(name string, idx []int) *Dataset {
	if d.VideoOf != nil {
		panic("gare: Subset needs a paired dataset")
	}
	s := &Dataset{Name: name, Kind: d.Kind, NumTexts: len(idx), NumVideos: len(idx), TextDim: d.TextDim,
		VideoDim: d.VideoDim, Frames: d.Frames, Words: d.Words}
	for _, i := range idx {
		s.AppendText(d, i)
		v := d.Frames * d.VideoDim
		s.Video = append(s.Video, d.Video[i*v:(i+1)*v]...)
		s.FrameMask = append(s.FrameMask, d.FrameMask[i*d.Frames:(i+1)*d.Frames]...)
		if d.Concept != nil {
			s.Concept = append(s.Concept, d.Concept[i])
		}
	}
	return s
}

// FromPRVRSplit turns a loaded split with one caption per video (the Charades descriptions ↔ videos
// collection, lib/data/tracks) into a Dataset: every video's frames averaged into `frames` uniform
// segments (prvr.AverageToFixedLength, the official segment rule; videos shorter than that repeat
// frames, so no frame is padding), every caption's tokens padded or cut to `words`, and t_i = the
// masked mean of its token features. Queries keep the split's ground truth.
func FromPRVRSplit(name, kind string, s *prvr.Split, frames, words int) (*Dataset, error) {
	if s.NumVideos() == 0 || s.NumQueries() == 0 {
		return nil, fmt.Errorf("gare: split %q is empty", s.Name)
	}
	d := &Dataset{Name: name, Kind: kind, NumTexts: s.NumQueries(), NumVideos: s.NumVideos(),
		TextDim: s.QueryDim, VideoDim: s.Dim, Frames: frames, Words: words}
	for v := range s.NumVideos() {
		raw, n := s.VideoFrames(v)
		d.Video = append(d.Video, prvr.AverageToFixedLength(raw, n, s.Dim, frames)...)
		for range frames {
			d.FrameMask = append(d.FrameMask, 1)
		}
	}
	d.VideoOf = append([]int(nil), s.QueryVideo...)
	for q := range s.NumQueries() {
		tok, n := s.QueryTokens(q)
		mean := make([]float32, s.QueryDim)
		k := min(n, words)
		row := make([]float32, words*s.QueryDim)
		mask := make([]float32, words)
		for t := range k {
			copy(row[t*s.QueryDim:(t+1)*s.QueryDim], tok[t*s.QueryDim:(t+1)*s.QueryDim])
			mask[t] = 1
			for j := range mean {
				mean[j] += tok[t*s.QueryDim+j] / float32(k)
			}
		}
		d.Text = append(d.Text, mean...)
		d.WordFeats = append(d.WordFeats, row...)
		d.WordMask = append(d.WordMask, mask...)
	}
	if isDiagonal(d.VideoOf) && d.NumTexts == d.NumVideos {
		d.VideoOf = nil
	}
	if err := d.Validate(); err != nil {
		return nil, err
	}
	return d.withoutZeroTexts(), nil
}

// withoutZeroTexts drops texts whose features are all zero (see DroppedTexts).
func (d *Dataset) withoutZeroTexts() *Dataset {
	var keep []int
	for i := range d.NumTexts {
		zero := true
		for _, v := range d.Text[i*d.TextDim : (i+1)*d.TextDim] {
			if v != 0 {
				zero = false
				break
			}
		}
		if !zero {
			keep = append(keep, i)
		}
	}
	if len(keep) == d.NumTexts {
		return d
	}
	dropped := d.NumTexts - len(keep)
	if d.VideoOf == nil {
		s := d.Subset(d.Name, keep)
		s.DroppedTexts = dropped
		return s
	}
	s := *d
	s.Text, s.WordFeats, s.WordMask, s.VideoOf = nil, nil, nil, nil
	for _, i := range keep {
		s.AppendText(d, i)
		s.VideoOf = append(s.VideoOf, d.VideoOf[i])
	}
	s.NumTexts, s.DroppedTexts = len(keep), dropped
	return &s
}

func isDiagonal(gt []int) bool {
	for i, v := range gt {
		if v != i {
			return false
		}
	}
	return true
}

// FromSyntheticPairs splits the synthetic false-negative benchmark (lib/data/synth GeneratePairs)
// into a training set of the first nTrain pairs and a test set drawn from the remaining pairs
// keeping one pair per concept (so the test ranking has a single right answer per query; false
// negatives live in the training set, where GARE says they hurt). Frames are all valid.
func FromSyntheticPairs(p *synth.Pairs, nTrain int) (train, test *Dataset, err error) {
	c := p.Config
	if nTrain < 2 || nTrain >= p.N {
		return nil, nil, fmt.Errorf("gare: nTrain = %d outside [2, %d)", nTrain, p.N)
	}
	all := &Dataset{Name: "synthetic pairs", Kind: "synthetic", NumTexts: p.N, NumVideos: p.N,
		TextDim: c.TextDim, VideoDim: c.FrameDim, Frames: c.Frames, Text: p.Text, Video: p.Frames,
		Concept: p.Concept}
	all.FrameMask = make([]float32, p.N*c.Frames)
	for i := range all.FrameMask {
		all.FrameMask[i] = 1
	}
	trainIdx := make([]int, nTrain)
	for i := range trainIdx {
		trainIdx[i] = i
	}
	var testIdx []int
	seen := map[int]bool{}
	for i := nTrain; i < p.N; i++ {
		if !seen[p.Concept[i]] {
			seen[p.Concept[i]] = true
			testIdx = append(testIdx, i)
		}
	}
	if len(testIdx) < 2 {
		return nil, nil, fmt.Errorf("gare: only %d distinct test concepts", len(testIdx))
	}
	train = all.Subset(fmt.Sprintf("synthetic pairs train (false-negative rate %.2f)", c.FalseNegativeRate), trainIdx)
	test = all.Subset("synthetic pairs test (one pair per concept)", testIdx)
	return train, test, nil
}

// RandomDataset is a paired set of N(0, scale²) features (benchmarks, memory measurements).
func RandomDataset(n, textDim, videoDim, frames int, scale float64, seed uint64) *Dataset {
	rng := rand.New(rand.NewPCG(seed, 0x72616e646f6d))
	d := &Dataset{Name: "random", Kind: "random", NumTexts: n, NumVideos: n, TextDim: textDim,
		VideoDim: videoDim, Frames: frames}
	d.Text = make([]float32, n*textDim)
	d.Video = make([]float32, n*frames*videoDim)
	d.FrameMask = make([]float32, n*frames)
	for i := range d.Text {
		d.Text[i] = float32(scale * rng.NormFloat64())
	}
	for i := range d.Video {
		d.Video[i] = float32(scale * rng.NormFloat64())
	}
	for i := range d.FrameMask {
		d.FrameMask[i] = 1
	}
	return d
}
