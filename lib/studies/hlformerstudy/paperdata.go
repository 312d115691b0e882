package hlformerstudy

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/geoalign/geoalign/lib/report"
	"github.com/geoalign/geoalign/lib/stats"
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

// AgreementRule is the rule of the agreement column, as the tables state it.
const AgreementRule = "ours agrees with the paper when the paper's SumR lies inside our seeds' 95 % t-interval of the mean " +
	"(two-sided one-sample t-test of the paper's value, p ≥ 0.05; lib/stats.OneSampleT); fewer than 2 seeds: not decided"

// AgreementColumn is the name of the agreement column.
const AgreementColumn = "agrees with the paper's SumR"

// addAgreement appends the agreement column to t, a MetricsTable whose first floors rows are the
// floors and whose next rows are runs, in order: per run, whether its test SumR over seeds agrees
// with the paper's number of the row (paper, as PaperTable1SumR writes it) under AgreementRule.
func addAgreement(t *report.Table, floors int, runs []*Runs, paper map[string]string) {
	t.Columns = append(t.Columns, report.Column{Name: AgreementColumn})
	t.Provenance.Notes = append(t.Provenance.Notes, "Agreement with the paper: "+AgreementRule+".")
	for i := range t.Rows {
		cell := "—"
		if r := i - floors; r >= 0 && r < len(runs) {
			cell = agreement(runs[r], paper[runs[r].Variant.Name])
		}
		t.Rows[i] = append(t.Rows[i], cell)
	}
}

// agreement is the agreement cell of runs against the paper's cell (its first number).
func agreement(r *Runs, paper string) string {
	f := strings.Fields(paper)
	if len(f) == 0 {
		return "— (no paper number)"
	}
	want, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		return "— (no paper number)"
	}
	var x []float64
	for _, res := range r.Results {
		x = append(x, SumR.Of(res))
	}
	d, se, p, err := stats.OneSampleT(x, want)
	if err != nil {
		return fmt.Sprintf("— (%d seed(s): not decided)", len(x))
	}
	verdict := "no"
	if p >= 0.05 {
		verdict = "yes"
	}
	return fmt.Sprintf("%s (ours − paper = %+.2f ± %.2f s.e., p = %.3g)", verdict, d, se, p)
}
