package nb_test

import (
	"github.com/geoalign/geoalign/kernel/nb"
	"github.com/geoalign/geoalign/lib/report"
	"github.com/geoalign/geoalign/lib/reproduce"
)

// A study's section: Show displays its table and its verdicts and skips its other fields.
// Outside a notebook it prints what a notebook would display.
func ExampleShow() {
	type section struct {
		Title    string // not displayed: the notebook's prose says it
		Table    *report.Table
		Verdicts []reproduce.Claim
	}
	t := report.NewTable("R@1 on the toy set", report.Provenance{Data: "toy", Kind: report.Synthetic, Seeds: []int64{1}}, "method", "R@1")
	t.AddRow("GRAM", "12.5")
	nb.Show(section{
		Title: "Table 1",
		Table: t,
		Verdicts: []reproduce.Claim{{Claim: "GRAM beats the cosine baseline", Ours: "+1.2 ± 0.3 R@1",
			Data: "toy (synthetic)", Verdict: reproduce.Holds}},
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
	// | claim | ours | data | verdict |
	// |---|---|---|---|
	// | GRAM beats the cosine baseline | +1.2 ± 0.3 R@1 | toy (synthetic) | **holds** |
}

// One claim is one line: the rule's outcome first, then every field the claim carries.
func ExampleShow_claim() {
	nb.Show(reproduce.Claim{Paper: "GRAM", Claim: "GRAM beats the cosine baseline", Ours: "+1.2 ± 0.3 R@1",
		Data: "toy (synthetic)", Verdict: reproduce.Holds})
	// Output:
	// **holds** — GRAM beats the cosine baseline — paper: GRAM · ours: +1.2 ± 0.3 R@1 · data: toy (synthetic)
}
