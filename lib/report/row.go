package report

import (
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Row draws figures side by side, in equal widths and the full height: one matrix in several
// geometries (three heat maps, each with its own colour bar), or the same quantity before and
// after training. Render it at a width that leaves each figure room, e.g. RowWidth(len(row)).
// A *plot.Plot in a Row keeps its legend where gonum/plot puts it (over the data): give a Row plots
// without legends, or heat maps.
type Row []Drawer

// rowGap separates two figures of a Row.
const rowGap = 3 * vg.Millimeter

// Draw implements Drawer.
func (r Row) Draw(c draw.Canvas) {
	if len(r) == 0 {
		return
	}
	w := (c.Max.X - c.Min.X - rowGap*vg.Length(len(r)-1)) / vg.Length(len(r))
	for i, d := range r {
		cell := c
		cell.Min.X = c.Min.X + vg.Length(i)*(w+rowGap)
		cell.Max.X = cell.Min.X + w
		d.Draw(cell)
	}
}

// RowWidth is the width at which a Row of n figures gives each about two thirds of the default
// figure width: n heat maps stay square enough to read their cells.
func RowWidth(n int) vg.Length { return vg.Length(n) * FigureWidth * 2 / 3 }
