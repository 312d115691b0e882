package nb

import (
	"fmt"

	"github.com/geoalign/geoalign/lib/report"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/gomlx/core/tensors"
)

// Floats is a float32 or float64 tensor's values as float64, flat in row-major order: what a
// cell prints, plots or puts in a table after running a graph.
func Floats(t *tensors.Tensor) []float64 {
	switch t.DType() {
	case dtypes.Float64:
		return tensors.MustCopyFlatData[float64](t)
	case dtypes.Float32:
		f32 := tensors.MustCopyFlatData[float32](t)
		out := make([]float64, len(f32))
		for i, v := range f32 {
			out[i] = float64(v)
		}
		return out
	}
	panic(fmt.Errorf("nb.Floats: want a float32 or float64 tensor, got %s", t.Shape()))
}

// Matrix is a rank-2 float tensor [rows, columns] as rows of float64 (report.NewHeatMap's input).
func Matrix(t *tensors.Tensor) [][]float64 {
	if t.Rank() != 2 {
		panic(fmt.Errorf("nb.Matrix: want a rank-2 tensor, got %s", t.Shape()))
	}
	flat := Floats(t)
	cols := t.Shape().Dim(1)
	rows := make([][]float64, t.Shape().Dim(0))
	for i := range rows {
		rows[i] = flat[i*cols : (i+1)*cols]
	}
	return rows
}

// HeatMap draws m (rows × columns) with report.NewHeatMap under a title, with axis labels and the
// colour bar's label (each with its unit), ready for Plot or Show.
func HeatMap(m [][]float64, title, xLabel, yLabel, barLabel string) *report.HeatMap {
	h := Must1(report.NewHeatMap(m))
	h.Plot.Title.Text, h.Plot.X.Label.Text, h.Plot.Y.Label.Text = title, xLabel, yLabel
	h.Bar.Y.Label.Text = barLabel
	return h
}
