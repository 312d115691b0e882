package featdir

import (
	"fmt"
	"path/filepath"
	"strings"
)

// Tuples is a tuple directory in memory (see the package documentation): N samples, each one
// feature vector per modality, the anchor first.
type Tuples struct {
	Dir        string
	IDs        []string
	Modalities []string
	Dims       []int
	Features   [][]float32 // per modality, N × Dims[m]
	Splits     Splits      // sample rows of each split
}

// Rows returns the features of the given samples, one N'×Dims[m] block per modality.
func (d *Tuples) Rows(rows []int) [][]float32 {
	out := make([][]float32, len(d.Features))
	for m, f := range d.Features {
		dim := d.Dims[m]
		block := make([]float32, 0, len(rows)*dim)
		for _, i := range rows {
			block = append(block, f[i*dim:(i+1)*dim]...)
		}
		out[m] = block
	}
	return out
}

// LoadTuples reads and checks the tuple directory dir; without val.txt, valFraction of the
// training samples become the validation split.
func LoadTuples(dir string, valFraction float64) (*Tuples, error) {
	d := &Tuples{Dir: dir}
	modPath := filepath.Join(dir, ModalityFile)
	var err error
	if d.Modalities, err = ReadIDs(modPath); err != nil {
		return nil, err
	}
	if len(d.Modalities) < 2 {
		return nil, fmt.Errorf("%s: %d modality, need at least 2 (the anchor first)", modPath, len(d.Modalities))
	}
	for _, m := range d.Modalities {
		if strings.ContainsAny(m, `/\`) || strings.HasPrefix(m, ".") {
			return nil, fmt.Errorf("%s: modality %q is not a plain file name", modPath, m)
		}
	}
	idsPath := filepath.Join(dir, IDsFile)
	if d.IDs, err = ReadIDs(idsPath); err != nil {
		return nil, err
	}
	r := &reader{dir: dir}
	for _, m := range d.Modalities {
		a, err := r.read(m, false, true)
		if err != nil {
			return nil, err
		}
		if err := a.checkRows(len(d.IDs), idsPath, 2); err != nil {
			return nil, err
		}
		if a.shape[1] == 0 {
			return nil, fmt.Errorf("%s: shape %v has an empty feature axis", a.file, a.shape)
		}
		d.Dims = append(d.Dims, a.shape[1])
		d.Features = append(d.Features, a.data)
	}
	if d.Splits, err = readSplits(dir, indexOf(d.IDs), idsPath, valFraction, nil); err != nil {
		return nil, err
	}
	return d, nil
}
