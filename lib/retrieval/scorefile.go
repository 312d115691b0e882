package retrieval

import (
	"errors"
	"fmt"
	"strings"

	"github.com/geoalign/geoalign/lib/npy"
)

// GroundTruthError reports a ground truth that does not fit the score matrix (wrong
// length, index out of range), so that callers can name the file it came from.
type GroundTruthError struct{ Problem string }

func (e *GroundTruthError) Error() string { return e.Problem }

// EvaluateFile evaluates the score matrix saved in a .npy file (float32 or float64,
// rows = queries, columns = items) without loading it: Evaluate reads it one strip of
// Options.QueryBlock rows at a time, twice with Options.VideoToText. Errors about the
// scores name the file; a *GroundTruthError is returned unwrapped so that the caller
// can name the file the ground truth came from.
func EvaluateFile(path string, gt []int, opts Options) (Result, error) {
	f, err := npy.Open(path)
	if err != nil {
		return Result{}, err
	}
	defer f.Close()
	if _, _, err := f.Matrix(); err != nil {
		return Result{}, err
	}
	var res Result
	switch f.Header.Dtype {
	case npy.Float32:
		res, err = Evaluate[float32](scoreFile[float32]{f}, gt, opts)
	case npy.Float64:
		res, err = Evaluate[float64](scoreFile[float64]{f}, gt, opts)
	default:
		return Result{}, fmt.Errorf("%s: dtype %s, want float32 (%s) or float64 (%s) scores", path, f.Header.Dtype, npy.Float32, npy.Float64)
	}
	var gtErr *GroundTruthError
	var nanErr *npy.NaNError
	switch {
	case err == nil, errors.As(err, &gtErr):
	case errors.As(err, &nanErr):
		err = nanErr // names the file, row and column: the scoring context adds nothing
	case !strings.Contains(err.Error(), path):
		err = fmt.Errorf("%s: %w", path, err)
	}
	return res, err
}

// scoreFile is a BlockScorer reading rows of a .npy matrix.
type scoreFile[F npy.Float] struct{ f *npy.File }

func (s scoreFile[F]) Shape() (int, int) {
	return s.f.Header.Shape[0], s.f.Header.Shape[1]
}

func (s scoreFile[F]) ScoreBlock(q0, q1, i0, i1 int, dst []F) error {
	_, cols := s.Shape()
	if i0 == 0 && i1 == cols {
		return npy.ReadRows(s.f, q0, dst)
	}
	row := make([]F, cols)
	w := i1 - i0
	for q := q0; q < q1; q++ {
		if err := npy.ReadRows(s.f, q, row); err != nil {
			return err
		}
		copy(dst[(q-q0)*w:(q-q0+1)*w], row[i0:i1])
	}
	return nil
}
