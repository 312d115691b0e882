package main

import (
	"encoding/json"
	"fmt"
	"image/color"
	"os"
	"path/filepath"
	"strings"

	"github.com/geoalign/geoalign/lib/models/hlformer"
	"github.com/geoalign/geoalign/lib/report"
	"github.com/geoalign/geoalign/lib/studies/hlformerstudy"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// render reads the runs written by -out and writes <base>.png (validation SumR and training loss per
// epoch, the validation floor dashed) and <base>.md/.csv/.json (one row per run).
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
		runs = append(runs, &r.Run)
		names = append(names, strings.TrimSuffix(filepath.Base(f), ".json"))
	}
	if len(runs) == 0 {
		return fmt.Errorf("-render needs run files")
	}
	val, loss := plot.New(), plot.New()
	val.Title.Text, val.X.Label.Text, val.Y.Label.Text = "validation SumR", "epoch", "SumR (text→video)"
	loss.Title.Text, loss.X.Label.Text, loss.Y.Label.Text = "training loss (weighted total)", "epoch", "mean loss over the epoch"
	maxEpoch := 1.0
	for i, r := range runs {
		var vs, ls plotter.XYs
		for _, h := range r.History {
			vs = append(vs, plotter.XY{X: float64(h.Epoch + 1), Y: h.Val["SumR"]})
			ls = append(ls, plotter.XY{X: float64(h.Epoch + 1), Y: h.Loss["total"]})
			maxEpoch = max(maxEpoch, float64(h.Epoch+1))
		}
		for _, pl := range []struct {
			p   *plot.Plot
			xys plotter.XYs
		}{{val, vs}, {loss, ls}} {
			l, err := plotter.NewLine(pl.xys)
			if err != nil {
				return err
			}
			l.Color, l.Width = plotutil.Color(i), vg.Points(1.5)
			l.Dashes = plotutil.Dashes(i / 7)
			pl.p.Add(l)
			if pl.p == val {
				pl.p.Legend.Add(names[i], l)
			}
		}
	}
	floor := runs[0].ValFloors[hlformerstudy.FloorContentWords]["SumR"]
	fl, err := plotter.NewLine(plotter.XYs{{X: 1, Y: floor}, {X: maxEpoch, Y: floor}})
	if err != nil {
		return err
	}
	fl.Color, fl.Dashes, fl.Width = color.Gray{Y: 90}, []vg.Length{vg.Points(6), vg.Points(3)}, vg.Points(2)
	val.Add(fl)
	val.Legend.Add("zero-training floor (content words)", fl)
	val.Legend.Top, val.Legend.Left = false, false
	val.Legend.YPosition = draw.PosBottom

	w, h := 13*vg.Inch, 5*vg.Inch
	img := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(report.FigureDPI))
	dc := draw.New(img)
	tiles := draw.Tiles{Rows: 1, Cols: 2, PadX: vg.Points(12), PadY: vg.Points(6), PadTop: vg.Points(6), PadBottom: vg.Points(6),
		PadLeft: vg.Points(6), PadRight: vg.Points(6)}
	canvases := plot.Align([][]*plot.Plot{{val, loss}}, tiles, dc)
	val.Draw(canvases[0][0])
	loss.Draw(canvases[0][1])
	if err := os.MkdirAll(filepath.Dir(base), 0o755); err != nil {
		return err
	}
	f, err := os.Create(base + ".png.tmp")
	if err != nil {
		return err
	}
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(f); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(base+".png.tmp", base+".png"); err != nil {
		return err
	}

	r0 := runs[0]
	var commits, machines []string
	seen := map[string]bool{}
	for _, r := range runs {
		for _, s := range []string{"commit " + r.Commit, r.Machine} {
			if !seen[s] {
				seen[s] = true
				if strings.HasPrefix(s, "commit ") {
					commits = append(commits, strings.TrimPrefix(s, "commit "))
				} else {
					machines = append(machines, s)
				}
			}
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
			"Best epoch by validation SumR; test = the selected model on the Charades-STA test split (1,334 videos, 3,720 queries), evaluated once after selection. Floors: zero-training GloVe content words (ties pessimistic, as every table; ties optimistic in brackets — the label-derived clips tie often).",
			"Epochs and best epoch are 1-based; s/epoch includes the validation pass and depends on the load of the shared machine. Both training steps compute the same gradient; they draw different dropout masks.",
		}}, "run", "variant", "d", "lr", "schedule", "epochs", "hard from", "NCE ×", "best epoch", "val SumR", "val floor", "test SumR", "test R@1", "test floor SumR", "test floor R@1", "step", "s/epoch")
	for i, r := range runs {
		var secs float64
		for _, h := range r.History {
			secs += h.Seconds
		}
		vf, vfo := r.ValFloors[hlformerstudy.FloorContentWords], r.ValFloorsOptimistic[hlformerstudy.FloorContentWords]
		tf, tfo := r.TestFloors[hlformerstudy.FloorContentWords], r.TestFloorsOptimistic[hlformerstudy.FloorContentWords]
		test, testR1, tfs, tfr1 := "—", "—", "—", "—"
		if len(r.Test) > 0 {
			test, testR1 = fmt.Sprintf("%.2f", r.Test["SumR"]), fmt.Sprintf("%.2f", r.Test["R@1"])
			tfs, tfr1 = fmt.Sprintf("%.2f (%.2f)", tf["SumR"], tfo["SumR"]), fmt.Sprintf("%.2f (%.2f)", tf["R@1"], tfo["R@1"])
		}
		nce := r.Loss.ClipNCE / 0.02
		t.AddRow(names[i], r.Variant, r.Config.Dim, r.Train.LearningRate, r.Schedule, len(r.History), r.Train.HardNegativeStart+1,
			fmt.Sprintf("%.3g", nce), r.BestEpoch+1, fmt.Sprintf("%.2f", r.BestVal["SumR"]), fmt.Sprintf("%.2f (%.2f)", vf["SumR"], vfo["SumR"]),
			test, testR1, tfs, tfr1, stepName(r.Train.VideoChunk), fmt.Sprintf("%.0f", secs/float64(max(len(r.History), 1))))
	}
	return t.Save(base)
}

// stepName names the training step of TrainConfig.VideoChunk.
func stepName(chunk int) string {
	switch {
	case chunk == hlformer.SingleGraphStep:
		return "single graph"
	case chunk == 0:
		return fmt.Sprintf("chunked (%d)", hlformer.DefaultVideoChunk)
	}
	return fmt.Sprintf("chunked (%d)", chunk)
}
