package reproduce

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/geoalign/geoalign/lib/report"
	"github.com/geoalign/geoalign/lib/stats"
)

// AgreementRule is the rule of the agreement column (`--paper-data`) for a metric, as the tables
// state it.
func AgreementRule(metric string) string {
	return "ours agrees with the paper when the paper's " + metric + " lies inside our seeds' 95 % t-interval of the mean " +
		"(two-sided one-sample t-test of the paper's value, p ≥ 0.05; lib/stats.OneSampleT); fewer than 2 seeds: not decided"
}

// AgreementColumn is the name of the agreement column of a metric.
func AgreementColumn(metric string) string { return "agrees with the paper's " + metric }

// AddAgreement appends the agreement column of metric to t, its rule in the notes: row i's cell is
// cell(i), "—" when cell is nil or returns "".
func AddAgreement(t *report.Table, metric string, cell func(row int) string) {
	t.Columns = append(t.Columns, report.Column{Name: AgreementColumn(metric)})
	t.Provenance.Notes = append(t.Provenance.Notes, "Agreement with the paper: "+AgreementRule(metric)+".")
	for i := range t.Rows {
		c := cell(i)
		if c == "" {
			c = "—"
		}
		t.Rows[i] = append(t.Rows[i], c)
	}
}

// AgreesWithPaper is the agreement cell of our seeds' values x of a metric against the paper's cell
// (its first number) under AgreementRule.
func AgreesWithPaper(x []float64, paper string) string {
	f := strings.Fields(paper)
	if len(f) == 0 {
		return "— (no paper number)"
	}
	want, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		return "— (no paper number)"
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
