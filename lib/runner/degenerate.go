package runner

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"

	"github.com/geoalign/geoalign/lib/atomicfile"
	"github.com/geoalign/geoalign/lib/models"
	"github.com/geoalign/geoalign/lib/retrieval"
	"github.com/geoalign/geoalign/lib/train"
)

// randomSumR is the text→video SumR of a uniformly random ranking of items items for queries
// queries with one ground truth each: its mean Σ_K RandomRecall(K, items, 1), and an upper bound on
// its standard deviation, Σ_K 100·√(p_K(1 − p_K)/queries) with p_K = min(K, items)/items (the
// queries independent; the sum of the standard deviations bounds that of the sum).
func randomSumR(ks []int, items, queries int) (mean, sd float64) {
	for _, k := range ks {
		r := retrieval.RandomRecall(k, items, 1)
		p := r / 100
		mean += r
		sd += 100 * math.Sqrt(p*(1-p)/float64(queries))
	}
	return mean, sd
}

// degenerateWarning returns a warning when no validation of history scored a better
// retrieval.ValMetric than a random ranking of the validation split does in expectation (val: the
// split scored once, for its size and cut-offs), and "" otherwise. The bar is the mean, not the
// mean plus some standard deviations: on a small validation split the spread of a random ranking
// is wide (8 items: SumR 175 ± 29), and a run above the mean has learned something, however little.
func degenerateWarning(history []Epoch, val *models.Evaluation) string {
	ks := val.Result.Report.T2V.Ks
	mean, sd := randomSumR(ks, val.Cols, val.Rows)
	best := math.Inf(-1)
	bestEpoch := 0
	for _, h := range history {
		if v, ok := h.Val[retrieval.ValMetric]; ok && v > best { // NaN is never > best
			best, bestEpoch = v, h.Epoch
		}
	}
	if best > mean {
		return ""
	}
	return fmt.Sprintf("validation %s never beat random ranking: best %.2f (epoch %d), while a random ranking of the %d validation items "+
		"scores %.2f ± %.2f (R@%v, %d queries): the model learned nothing usable; check the features (scale, dtype, a wrong file) and the configuration",
		retrieval.ValMetric, best, bestEpoch, val.Cols, mean, sd, ks, val.Rows)
}

// recordWarning adds warning to RUNDIR's config.json notes and, as the field "warning", to the
// last record of its history.json (each rewritten atomically; a warning already there is not
// added twice).
func recordWarning(dir, warning string) error {
	spec, err := ReadSpec(dir)
	if err != nil {
		return err
	}
	if !slices.Contains(spec.Notes, warning) {
		spec.Notes = append(spec.Notes, warning)
		if err := atomicfile.WriteJSON(filepath.Join(dir, ConfigFile), spec); err != nil {
			return err
		}
	}
	path := filepath.Join(dir, train.HistoryFile)
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber() // the numbers written back as they were
	var h []map[string]any
	if err := dec.Decode(&h); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if len(h) == 0 {
		return nil
	}
	h[len(h)-1]["warning"] = warning
	return atomicfile.WriteJSON(path, h)
}
