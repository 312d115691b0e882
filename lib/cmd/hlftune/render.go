package main

import (
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/geoalign/geoalign/lib/models/hlformer"
	"github.com/geoalign/geoalign/lib/report"
	"github.com/geoalign/geoalign/lib/retrieval"
	"github.com/geoalign/geoalign/lib/studies/hlformerstudy"
	"gonum.org/v1/plot/vg"
)

// render reads the runs written by -out and writes <base>.png/.svg (validation SumR and training loss
// per epoch, the validation floors dashed) and <base>.md/.csv/.json (one row per run).
func render(base, title string, files []string) error {
	var runs []*Run
	var names []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		// Train.Schedule is an interface: read the fields the table shows.
		var r struct {
			Run
			Train struct {
				LearningRate      float64
				HardNegativeStart int
				VideoChunk        int
			}
		}
		if err := json.Unmarshal(b, &r); err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
		r.Run.Train.LearningRate, r.Run.Train.HardNegativeStart, r.Run.Train.VideoChunk = r.Train.LearningRate, r.Train.HardNegativeStart, r.Train.VideoChunk
		if len(r.History) == 0 { // a -floors-only file: no curve
			continue
		}
		runs = append(runs, &r.Run)
		names = append(names, strings.TrimSuffix(filepath.Base(f), ".json"))
	}
	if len(runs) == 0 {
		return fmt.Errorf("-render needs run files")
	}
	// Two panels (report.CurvesGrid): validation SumR with the validation floors as dashed flat
	// lines, and the weighted total training loss.
	var val, loss []report.Curve
	epochs := 1
	for i, r := range runs {
		var vs, ls []float64
		for _, h := range r.History {
			vs, ls = append(vs, h.Val.SumR), append(ls, h.Loss["total"])
		}
		val = append(val, report.Curve{Label: names[i], PerRun: [][]float64{vs}})
		loss, epochs = append(loss, report.Curve{Label: names[i], PerRun: [][]float64{ls}}), max(epochs, len(vs))
	}
	labels := slices.Clone(names)
	for i, f := range []struct {
		name   string
		floors map[string]retrieval.Metrics
	}{{"floor, ties pessimistic", runs[0].ValFloors}, {"floor, ties random (expected)", runs[0].ValFloorsExpected}, {"floor, ties optimistic", runs[0].ValFloorsOptimistic}} {
		if m, ok := f.floors[hlformerstudy.FloorContentWords]; ok {
			label := f.name + " (content words)"
			flat := slices.Repeat([]float64{m.SumR}, epochs)
			val = append(val, report.Curve{Label: label, PerRun: [][]float64{flat}, Dashes: []vg.Length{vg.Points(6), vg.Points(float64(2 + 2*i))}})
			labels = append(labels, label)
		}
	}
	g, err := report.CurvesGrid(labels, []report.Panel{
		{Title: "validation SumR", YLabel: "SumR (text→video)", Curves: val},
		{Title: "training loss (weighted total)", YLabel: "mean loss over the epoch", Curves: loss}})
	if err != nil {
		return err
	}
	if _, err := g.Save(base); err != nil {
		return err
	}

	r0 := runs[0]
	var commits, machines []string
	for _, r := range runs { // each once, in order of first appearance
		if !slices.Contains(commits, r.Commit) {
			commits = append(commits, r.Commit)
		}
		if !slices.Contains(machines, r.Machine) {
			machines = append(machines, r.Machine)
		}
	}
	split := "validation"
	if r0.ValOnTrain {
		split = "TRAINING videos (diagnostic)"
	}
	t := report.NewTable(title, report.Provenance{
		Data: fmt.Sprintf("%s; curves on %d %s videos (%d queries), trained on %d train videos (%d queries)", r0.Data, r0.ValVideos, split,
			r0.ValQueries, r0.TrainVideos, r0.TrainQuery),
		Kind: "label-derived", Backend: r0.Backend, Commit: strings.Join(commits, ", "),
		Behavior: "hlformer.Train (BertAdam without bias correction, per-tensor clipping), Charades loss (scaled by the run's NCE multiplier)",
		Notes: []string{
			"Machines: " + strings.Join(machines, "; ") + ".",
			"Best epoch by validation SumR; test = the selected model on the Charades-STA test split (1,334 videos, 3,720 queries), evaluated once after selection. Floors: zero-training GloVe content words, as pessimistic / random / optimistic tie-breaking (pessimistic is what every table prints; random is the expectation over uniformly random tie-breaks; the floor's scores tie often — videos whose clips hold the same actions get the same score — while a learned model's scores do not tie).",
			"Epochs and best epoch are 1-based; s/epoch includes the validation pass and depends on the load of the shared machine. Both training steps compute the same gradient; they draw different dropout masks.",
		}}, "run", "variant", "d", "lr", "schedule", "epochs", "hard from", "NCE ×", "best epoch", "val SumR", "val floor SumR", "test SumR", "test R@1", "test floor SumR", "test floor R@1", "step", "s/epoch")
	for i, r := range runs {
		var secs float64
		for _, h := range r.History {
			secs += h.Seconds
		}
		cw := hlformerstudy.FloorContentWords
		three := func(f func(retrieval.Metrics) float64, p, e, o map[string]retrieval.Metrics) string {
			return fmt.Sprintf("%.2f / %.2f / %.2f", f(p[cw]), f(e[cw]), f(o[cw]))
		}
		test, testR1, tfs, tfr1 := "—", "—", "—", "—"
		if r.Test != nil {
			test, testR1 = fmt.Sprintf("%.2f", r.Test.SumR), fmt.Sprintf("%.2f", r.Test.R(1))
			tfs, tfr1 = three(sumR, r.TestFloors, r.TestFloorsExpected, r.TestFloorsOptimistic), three(r1, r.TestFloors, r.TestFloorsExpected, r.TestFloorsOptimistic)
		}
		nce := r.Loss.ClipNCE / 0.02
		t.AddRow(names[i], r.Variant, r.Config.Dim, r.Train.LearningRate, r.Schedule, len(r.History), r.Train.HardNegativeStart+1,
			fmt.Sprintf("%.3g", nce), r.BestEpoch+1, fmt.Sprintf("%.2f", r.BestVal.SumR), three(sumR, r.ValFloors, r.ValFloorsExpected, r.ValFloorsOptimistic),
			test, testR1, tfs, tfr1, stepName(r.Train.VideoChunk), fmt.Sprintf("%.0f", secs/float64(max(len(r.History), 1))))
	}
	return t.Save(base)
}

// sumR and r1 are the columns of the floors.
func sumR(m retrieval.Metrics) float64 { return m.SumR }
func r1(m retrieval.Metrics) float64   { return m.R(1) }

// stepName names the training step of TrainConfig.VideoChunk.
func stepName(chunk int) string {
	if chunk == hlformer.SingleGraphStep {
		return "single graph"
	}
	return fmt.Sprintf("chunked (%d)", cmp.Or(chunk, hlformer.DefaultVideoChunk))
}
