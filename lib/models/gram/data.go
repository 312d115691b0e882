package gram

import (
	"fmt"
	"math"
	"slices"

	"github.com/geoalign/geoalign/lib/data"
)

// Dataset is a multimodal retrieval set as GRAM trains on it: every sample is a tuple with one
// feature vector per modality. Modality 0 is the anchor (text in GRAM: the query of T→V+A
// retrieval); the others are the data modalities whose tuple forms the retrieved item.
type Dataset struct {
	Name       string    // e.g. "FSDD digits (spoken ↔ handwritten ↔ word)"
	Kind       data.Kind // real / label-derived / synthetic
	Modalities []string  // modality names, anchor first, e.g. ["text", "image", "audio"]
	Train      *Split
	Test       *Split
	// Val (optional) is the validation split that selects the model and stops training early;
	// without it the trainer carves one from Train (Config.ValFraction). Never the test split.
	Val   *Split
	Notes []string // provenance notes carried into every table built on the set
}

// Relevance says whether the data tuple of sample `tuple` answers the anchor of sample `anchor`.
// nil means instance-level relevance: only the sample's own tuple (GRAM's protocol, docs/official-code.md §1.6).
type Relevance func(anchor, tuple int) bool

// SameLabel is class-level relevance: every tuple of the anchor's class answers it (FSDD digits:
// any "seven" tuple answers the word "seven").
func SameLabel(labels []int) Relevance {
	return func(anchor, tuple int) bool { return labels[anchor] == labels[tuple] }
}

// ClassLevel reports whether the dataset is evaluated with a relevance other than the diagonal.
func (d *Dataset) ClassLevel() bool { return d.Test.Relevant != nil }

// Split is one split of a Dataset: Features[m] holds N rows of Dims[m] float32 values, row-major.
type Split struct {
	N        int
	Dims     []int
	Features [][]float32
	// Labels (optional, len N) is each sample's class (digit, category, leaf concept).
	Labels []int
	// Relevant (optional) replaces instance-level relevance, e.g. SameLabel(Labels).
	Relevant Relevance
	// Attributes (optional) are per-sample numbers the analyses correlate with volumes, e.g.
	// "text_length" (words in the caption) or "richness" (a synthetic sample's semantic richness).
	Attributes map[string][]float64
}

// NewSplit checks the shapes of features (one [N, dims[m]] row-major block per modality) and
// returns the split. labels may be nil.
func NewSplit(features [][]float32, dims []int, labels []int) (*Split, error) {
	if len(features) < 2 || len(features) != len(dims) {
		return nil, fmt.Errorf("gram: a split needs ≥ 2 modalities with one dimension each, got %d feature blocks and %d dims", len(features), len(dims))
	}
	n := -1
	for m, f := range features {
		if dims[m] <= 0 || len(f)%dims[m] != 0 {
			return nil, fmt.Errorf("gram: modality %d has %d values, not a multiple of its dimension %d", m, len(f), dims[m])
		}
		rows := len(f) / dims[m]
		if n >= 0 && rows != n {
			return nil, fmt.Errorf("gram: modality %d has %d rows, modality 0 has %d", m, rows, n)
		}
		n = rows
		for i, x := range f {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				return nil, fmt.Errorf("gram: modality %d row %d column %d is %v", m, i/dims[m], i%dims[m], x)
			}
		}
	}
	if n == 0 {
		return nil, fmt.Errorf("gram: empty split")
	}
	if labels != nil && len(labels) != n {
		return nil, fmt.Errorf("gram: %d labels for %d samples", len(labels), n)
	}
	return &Split{N: n, Dims: slices.Clone(dims), Features: features, Labels: labels}, nil
}

// NumModalities is the number of modalities of the split (anchor included).
func (s *Split) NumModalities() int { return len(s.Features) }

// Row returns sample i of modality m (a view, not a copy).
func (s *Split) Row(m, i int) []float32 {
	d := s.Dims[m]
	return s.Features[m][i*d : (i+1)*d]
}

// Subset returns the split restricted to the given samples (rows are copied).
func (s *Split) Subset(indices []int) *Split {
	out := &Split{N: len(indices), Dims: slices.Clone(s.Dims), Features: make([][]float32, len(s.Features))}
	for m := range s.Features {
		d := s.Dims[m]
		block := make([]float32, 0, len(indices)*d)
		for _, i := range indices {
			block = append(block, s.Row(m, i)...)
		}
		out.Features[m] = block
	}
	if s.Labels != nil {
		out.Labels = make([]int, len(indices))
		for j, i := range indices {
			out.Labels[j] = s.Labels[i]
		}
	}
	if s.Relevant != nil {
		rel, idx := s.Relevant, slices.Clone(indices)
		out.Relevant = func(anchor, tuple int) bool { return rel(idx[anchor], idx[tuple]) }
	}
	if s.Attributes != nil {
		out.Attributes = make(map[string][]float64, len(s.Attributes))
		for k, v := range s.Attributes {
			sub := make([]float64, len(indices))
			for j, i := range indices {
				sub[j] = v[i]
			}
			out.Attributes[k] = sub
		}
	}
	return out
}

// SelectModalities returns the split with only the given modalities, in that order (the first one
// becomes the anchor). Feature blocks are shared, not copied. GRAM Table 4 adds modalities one by
// one this way.
func (s *Split) SelectModalities(modalities []int) (*Split, error) {
	if len(modalities) < 2 {
		return nil, fmt.Errorf("gram: need ≥ 2 modalities, got %v", modalities)
	}
	out := &Split{N: s.N, Labels: s.Labels, Relevant: s.Relevant, Attributes: s.Attributes}
	for _, m := range modalities {
		if m < 0 || m >= len(s.Features) {
			return nil, fmt.Errorf("gram: modality %d out of range [0, %d)", m, len(s.Features))
		}
		out.Features = append(out.Features, s.Features[m])
		out.Dims = append(out.Dims, s.Dims[m])
	}
	return out, nil
}

// SelectModalities returns the dataset restricted to the given modalities (see Split.SelectModalities).
func (d *Dataset) SelectModalities(modalities []int) (*Dataset, error) {
	out := *d
	out.Modalities = nil
	for _, m := range modalities {
		if m < 0 || m >= len(d.Modalities) {
			return nil, fmt.Errorf("gram: dataset %q has no modality %d", d.Name, m)
		}
		out.Modalities = append(out.Modalities, d.Modalities[m])
	}
	var err error
	if out.Train, err = d.Train.SelectModalities(modalities); err != nil {
		return nil, err
	}
	if out.Test, err = d.Test.SelectModalities(modalities); err != nil {
		return nil, err
	}
	if d.Val != nil {
		if out.Val, err = d.Val.SelectModalities(modalities); err != nil {
			return nil, err
		}
	}
	return &out, nil
}

// Validate checks that the dataset's splits agree with each other and with its modality names.
func (d *Dataset) Validate() error {
	if d.Train == nil || d.Test == nil {
		return fmt.Errorf("gram: dataset %q needs a train and a test split", d.Name)
	}
	if len(d.Modalities) != d.Train.NumModalities() || len(d.Modalities) != d.Test.NumModalities() {
		return fmt.Errorf("gram: dataset %q names %d modalities, train has %d, test %d", d.Name,
			len(d.Modalities), d.Train.NumModalities(), d.Test.NumModalities())
	}
	if !slices.Equal(d.Train.Dims, d.Test.Dims) {
		return fmt.Errorf("gram: dataset %q: train dims %v differ from test dims %v", d.Name, d.Train.Dims, d.Test.Dims)
	}
	if d.Val != nil && !slices.Equal(d.Train.Dims, d.Val.Dims) {
		return fmt.Errorf("gram: dataset %q: train dims %v differ from validation dims %v", d.Name, d.Train.Dims, d.Val.Dims)
	}
	return nil
}

// Standardize rescales every feature column of every split to zero mean and unit variance with
// the train split's statistics (columns with zero variance are only centred). The encoders are
// small MLPs trained from scratch, so inputs on wildly different scales (log-mel energies next to
// pixel intensities) would otherwise need per-modality learning rates. It rescales the feature
// blocks in place (shared with any SelectModalities view), so call it once, when loading.
func (d *Dataset) Standardize() {
	for m := range d.Train.Features {
		dim := d.Train.Dims[m]
		mean, std := columnStats(d.Train.Features[m], dim)
		for _, s := range []*Split{d.Train, d.Test, d.Val} {
			if s == nil {
				continue
			}
			f := s.Features[m]
			for i := range f {
				c := i % dim
				f[i] = float32((float64(f[i]) - mean[c]) / std[c])
			}
		}
	}
}

// CarveValidation splits a train split into the part trained on and a validation split of
// round(fraction·N) samples (at least 2), drawn by the project's one fixed permutation (data.CarveValidation:
// the same for every seed and variant, so that runs compared with each other select on the same
// samples). Both keep the samples' order. GRAM's official code has no validation split (it reports
// the last checkpoint); carving one from train, never from test, is this project's deviation so that
// model selection and early stopping never see the test split.
func CarveValidation(split *Split, fraction float64) (rest, val *Split, err error) {
	keep, held, err := data.CarveValidation(split.N, fraction)
	if err != nil {
		return nil, nil, fmt.Errorf("gram: %w", err)
	}
	return split.Subset(keep), split.Subset(held), nil
}

// columnStats returns per-column mean and standard deviation (1 where the column is constant).
func columnStats(flat []float32, dim int) (mean, std []float64) {
	mean, std = make([]float64, dim), make([]float64, dim)
	n := float64(len(flat) / dim)
	for i, x := range flat {
		mean[i%dim] += float64(x)
	}
	for c := range mean {
		mean[c] /= n
	}
	for i, x := range flat {
		dx := float64(x) - mean[i%dim]
		std[i%dim] += dx * dx
	}
	for c := range std {
		std[c] = math.Sqrt(std[c] / n)
		if std[c] == 0 {
			std[c] = 1
		}
	}
	return mean, std
}
