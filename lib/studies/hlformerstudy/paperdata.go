package hlformerstudy

import (
	"maps"
	"slices"

	"github.com/geoalign/geoalign/lib/report"
	"github.com/geoalign/geoalign/lib/reproduce"
)

// PaperCharadesSTA names the Charades-STA release of the paper's tables (`--paper-data`).
const PaperCharadesSTA = "charades-sta"

// PaperData are the data sets of the paper's tables whose numbers the protocol declares, by
// `--paper-data` value: the Table 1 and Table 2 SumR of each row (PaperTable1SumR,
// PaperTable2SumR). TVR and ActivityNet Captions are in the paper's Table 1 too, but only for
// rows our variants do not stand in for.
var PaperData = map[string][2]map[string]string{PaperCharadesSTA: {PaperTable1SumR, PaperTable2SumR}}

// PaperDataNames are the keys of PaperData, sorted.
func PaperDataNames() []string { return slices.Sorted(maps.Keys(PaperData)) }

// AgreementColumn is the name of the agreement column (reproduce.AgreementColumn of SumR).
var AgreementColumn = reproduce.AgreementColumn("SumR")

// addAgreement appends the agreement column to t, a MetricsTable whose first floors rows are the
// floors and whose next rows are runs, in order: per run, whether its test SumR over seeds agrees
// with the paper's number of the row (paper, as PaperTable1SumR writes it) under
// reproduce.AgreementRule.
func addAgreement(t *report.Table, floors int, runs []*Runs, paper map[string]string) {
	reproduce.AddAgreement(t, "SumR", func(i int) string {
		r := i - floors
		if r < 0 || r >= len(runs) {
			return ""
		}
		var x []float64
		for _, res := range runs[r].Results {
			x = append(x, SumR.Of(res))
		}
		return reproduce.AgreesWithPaper(x, paper[runs[r].Variant.Name])
	})
}
