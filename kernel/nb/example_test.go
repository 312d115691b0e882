package nb_test

import (
	"github.com/geoalign/geoalign/kernel/nb"
	"github.com/geoalign/geoalign/lib/report"
	"github.com/geoalign/geoalign/lib/reproduce"
)

// A study's section: Show displays its table and its claims and skips its other fields.
// Outside a notebook it prints what a notebook would display.
func ExampleShow() {
	type section struct {
		Title  string // not displayed: the notebook's prose says it
		Table  *report.Table
		Claims []reproduce.Claim
	}
	t := report.NewTable("R@1 on the toy set", report.Provenance{Data: "toy", Kind: report.Synthetic, Seeds: []int64{1}}, "method", "R@1")
	t.AddRow("GRAM", "12.5")
	nb.Show(section{
		Title: "Table 1",
		Table: t,
		Claims: []reproduce.Claim{reproduce.Describe("GRAM", "the volume of aligned triplets is small", "Fig. 1",
			"toy (synthetic)", "mean V_ii 0.12 vs V_ij 0.87")},
	})
	// Output:
	// ### R@1 on the toy set
	//
	// | method | R@1 |
	// | --- | --- |
	// | GRAM | 12.5 |
	//
	// - Data: toy (synthetic).
	// - Seeds: [1] (n = 1); cells are mean ± std over seeds unless the notes say otherwise.
	//
	// - the volume of aligned triplets is small → descriptive (mean V\_ii 0.12 vs V\_ij 0.87)
}
