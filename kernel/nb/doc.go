// Package nb holds the helpers every geoalign notebook uses, once: it finds the checkout, opens
// the data tracks `make data` built, shows tables, figures and verdicts, reports the progress of
// long loops, and says where finished runs are cached. The computations themselves live in lib/;
// nb only locates, loads and displays.
//
// A notebook's first code cells are the `go mod` line and one import block:
//
//	!*go mod edit -require=github.com/geoalign/geoalign@v0.0.0 -replace=github.com/geoalign/geoalign=$GONB_DIR/..
//
//	import "github.com/geoalign/geoalign/kernel/nb"
//
//	%%
//	tux := nb.TuxPaint("train")                       // lib/data/trimodal on datasets/cache
//	p := plot.New() ...
//	nb.Plot(p, "gram/volume-vs-angle")                // shows it; saves <OutDir>/gram/volume-vs-angle.{png,svg}
//	nb.Table(tbl, "gram/table1")                      // shows it; saves <OutDir>/gram/table1.{md,csv,json}
//	nb.Show(tbl, verdicts)                            // shows anything displayable, saves nothing
//	bar := nb.Progress("epochs", n)                   // lib/progress, updating in place
//	live := nb.NewLive(); live.Update(p); live.Done(p, "") // a figure redrawn as a loop runs
//	out := nb.Exec(store, fn, inputs...)              // any intermediate tensor of a model, once
//	nb.ShowClaims("gram")                             // figures/gram/claims.json, as the claim rule decided it
//	nb.Committed("hlformer/table2-full", ...)         // a committed full-run table and its figures
//
// # Where results go
//
// Notebooks run a small configuration by default and the full one with FULL=1 (Full). What they
// save goes to OutDir, build/figures/, in either configuration: the committed evidence in figures/
// is written by `make figures` only, so executing a notebook from Jupyter or headless never
// overwrites it.
//
// # Errors
//
// A notebook cell cannot do anything sensible with an error but stop and show it, so nb's
// helpers panic with a message naming what failed (GoNB prints it under the cell); Must, Must1
// and Must2 do the same for library calls that return errors.
//
// # Outside a notebook
//
// In a plain program or a test (gonbui.IsNotebook false), Show, Table, Plot and Markdown print a
// text rendering instead of displaying, so the package's examples run as tests.
package nb
