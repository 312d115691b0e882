package nb

import (
	"fmt"
	"path/filepath"
	"reflect"
	"slices"

	"github.com/geoalign/geoalign/lib/report"
	"github.com/geoalign/geoalign/lib/reproduce"
	"github.com/janpfeifer/gonb/gonbui"
	"github.com/janpfeifer/gonb/gonbui/protocol"
	"gonum.org/v1/plot"
)

// Plot renders a figure (a *plot.Plot, a report.HeatMap, a report.Grid of panels) at its default
// size with report.RenderDefault — legend below the plot — shows it, and, when name is not empty,
// saves it as <OutDir>/<name>.{png,svg}.
func Plot(d report.Drawer, name string) {
	Figure(Must1(report.RenderDefault(d)), name)
}

// Figure shows an already rendered figure (e.g. report.Render at another size, or a PNG read
// from disk with no SVG) and saves it as Plot does.
func Figure(fig report.Figure, name string) {
	if name != "" {
		Must(fig.Save(filepath.Join(OutDir(), name)))
	}
	if !gonbui.IsNotebook {
		fmt.Printf("[figure %s: %d bytes PNG]\n", name, len(fig.PNG))
		return
	}
	// One display output carrying both representations: the front-end shows the SVG (sharp at
	// any zoom); exports that cannot embed HTML use the PNG. A figure without SVG (a PNG read
	// from disk) is shown as the PNG.
	data := map[protocol.MIMEType]any{protocol.MIMEImagePNG: fig.PNG}
	if len(fig.SVG) > 0 {
		data[protocol.MIMETextHTML] = "<div>" + string(fig.SVG) + "</div>"
	}
	gonbui.SendData(&protocol.DisplayData{Data: data})
	flush()
}

// Table shows t as HTML (with its provenance) and, when name is not empty, saves
// <OutDir>/<name>.{md,csv,json}.
func Table(t *report.Table, name string) {
	h := Must1(t.HTML())
	if name != "" {
		Must(t.Save(filepath.Join(OutDir(), name)))
	}
	if !gonbui.IsNotebook {
		fmt.Println(Must1(t.Markdown()))
		return
	}
	gonbui.DisplayHTML(h)
	flush()
}

// Markdown shows a Markdown snippet, or prints it outside a notebook.
func Markdown(md string) {
	if !gonbui.IsNotebook {
		fmt.Println(md)
		return
	}
	gonbui.DisplayMarkdown(md)
	flush()
}

// Show displays each item, saving nothing:
//   - a *report.Table, a *plot.Plot or another report.Drawer (a heat map), a report.Figure;
//   - anything with a `Markdown() string` method (a study's verdict);
//   - a reproduce.Claim, as the line the claim rule writes for it (Claim.String), and a
//     []reproduce.Claim as one such line per claim;
//   - a string, as Markdown; an error, by panicking with it;
//   - a slice or a pointer, item by item; a struct (a study's section), field by exported field,
//     showing only the fields of the kinds above (so its names and numbers are not printed);
//   - anything else, printed with fmt.Println.
func Show(items ...any) {
	for _, it := range items {
		if !showDisplayable(it) {
			show(reflect.ValueOf(it), true)
		}
	}
}

// showDisplayable shows x if its type is one Show knows by name, and reports whether it did.
func showDisplayable(x any) bool {
	switch v := x.(type) {
	case nil:
	case error:
		panic(v)
	case *report.Table:
		if v != nil {
			Table(v, "")
		}
	case *plot.Plot:
		if v != nil {
			Plot(v, "")
		}
	case report.Grid: // panels at their own size, with the grid's legend strip
		Figure(Must1(v.Render()), "")
	case report.Drawer:
		Plot(v, "")
	case report.Figure:
		Figure(v, "")
	case interface{ Markdown() string }:
		Markdown(v.Markdown())
	case reproduce.Claim:
		Markdown(claimMarkdown(v))
	case []reproduce.Claim:
		if len(v) > 0 { // a section without findings shows nothing (not an empty cell output)
			Markdown(claimsMarkdown(v))
		}
	case string:
		Markdown(v)
	default:
		return false
	}
	return true
}

// show walks containers: top-level values that are not displayable are printed, values inside
// a struct are shown only when displayable.
func show(v reflect.Value, top bool) {
	if !v.IsValid() {
		return
	}
	if (top || mayDisplay(v.Type())) && v.CanInterface() && showDisplayable(v.Interface()) {
		return
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			show(v.Elem(), top)
			return
		}
	case reflect.Slice, reflect.Array:
		if mayDisplay(v.Type().Elem()) {
			for i := range v.Len() {
				show(v.Index(i), false)
			}
			return
		}
	case reflect.Struct:
		if mayDisplay(v.Type()) {
			for i := range v.NumField() {
				if v.Type().Field(i).IsExported() {
					show(v.Field(i), false)
				}
			}
			return
		}
	}
	if top {
		fmt.Println(v.Interface())
	}
}

var (
	displayableTypes = []reflect.Type{
		reflect.TypeFor[*report.Table](), reflect.TypeFor[report.Figure](), reflect.TypeFor[reproduce.Claim](),
	}
	drawerType   = reflect.TypeFor[report.Drawer]()
	markdownType = reflect.TypeFor[interface{ Markdown() string }]()
	mayDisplayOf = map[reflect.Type]bool{}
)

// mayDisplay reports whether a value of type t can hold something Show displays: this keeps
// Show from walking a study's data (slices of numbers, runs) field by field.
func mayDisplay(t reflect.Type) bool {
	if d, ok := mayDisplayOf[t]; ok {
		return d
	}
	mayDisplayOf[t] = false // a recursive type is answered by its other fields
	d := false
	switch {
	case slices.Contains(displayableTypes, t), t.Implements(drawerType), t.Implements(markdownType):
		d = true
	case t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array:
		d = mayDisplay(t.Elem())
	case t.Kind() == reflect.Struct:
		for i := range t.NumField() {
			if f := t.Field(i); f.IsExported() && mayDisplay(f.Type) {
				d = true
				break
			}
		}
	}
	mayDisplayOf[t] = d
	return d
}

// flush waits until GoNB has taken every display sent so far from the pipe (gonbui.Sync). GoNB
// stops reading a cell's pipe as soon as the cell's program exits, so output still in the pipe
// when a cell ends is lost: a figure shown by a cell's last statement went missing at random in
// headless runs (make test; a PNG+SVG figure is more than the pipe holds).
func flush() { gonbui.Sync() }
