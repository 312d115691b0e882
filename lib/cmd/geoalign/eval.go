package main

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/geoalign/geoalign/lib/atomicfile"
	"github.com/geoalign/geoalign/lib/backend"
	"github.com/geoalign/geoalign/lib/npy"
	"github.com/geoalign/geoalign/lib/retrieval"
	"github.com/geoalign/geoalign/lib/rundir"
	"github.com/geoalign/geoalign/lib/runner"
)

func init() {
	register("eval", "evaluate a trained run on a split: the metric JSON of `geoalign metrics` (geoalign eval -h)", evalMain)
}

// evalMain is `geoalign eval`: it rebuilds the run's model and data from RUNDIR/config.json,
// loads the checkpoint of the best validation epoch, scores the split and prints what
// `geoalign metrics` prints for the same score matrix.
func evalMain(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("eval", stderr, "usage: geoalign eval --run RUNDIR [--split test] [--json] [--scores FILE.npy]",
		"\nScores a split with the checkpoint of the run's best validation epoch. Metrics: HLFormer text→video\nR@1/5/10/100 (PRVR); GARE and GRAM/HyperGRAM both directions, R@1/5/10 (GRAM: lower median).")
	run := fs.String("run", "", "run directory `RUNDIR` written by geoalign train")
	split := fs.String("split", "test", "split to score: test, val or train")
	asJSON := fs.Bool("json", false, `print {"t2v": {...}, "v2t": {...}} as geoalign metrics --json does`)
	scoresPath := fs.String("scores", "", "also write the score matrix (rows = queries, columns = videos, float32) to `FILE.npy`, "+
		"and its ground truth to FILE.query_video.npy when it is not the diagonal, for geoalign metrics")
	if code, ok := parseFlags(fs, args, stderr); !ok {
		return code
	}
	fail := failWith(stderr, "eval") // shadows main.go's fail: the code is chosen here
	switch {
	case *run == "":
		return fail(exitUsage, "--run RUNDIR is required")
	case *split != "test" && *split != "val" && *split != "train":
		return fail(exitUsage, "--split %q: want test, val or train", *split)
	case *scoresPath != "" && !strings.HasSuffix(*scoresPath, ".npy"):
		return fail(exitUsage, "--scores %s: the file name must end in .npy", *scoresPath)
	}
	if _, err := runner.ReadSpec(*run); err != nil { // a run directory, before its lock is taken
		return fail(exitUsage, "%v", err)
	}
	lock, err := rundir.Acquire(*run) // no training may change the run while it is evaluated
	switch {
	case rundir.IsReadOnly(err): // a published run: nothing of this process can change it
		fmt.Fprintf(stderr, "note: %s cannot be locked (%v): evaluated without its lock\n", *run, err)
	case err != nil:
		return fail(exitUsage, "%v", err)
	default:
		defer lock.Release()
	}
	spec, err := runner.ReadSpec(*run)
	if err != nil {
		return fail(exitUsage, "%v", err)
	}
	notes, err := spec.Check(*run)
	if err != nil {
		return fail(exitUsage, "%v", err)
	}
	for _, n := range notes {
		fmt.Fprintln(stderr, "note:", n)
	}
	kind, ok := lookupModel(spec.Model)
	if !ok {
		return fail(exitUsage, "%s: unknown model %q", filepath.Join(*run, runner.ConfigFile), spec.Model)
	}
	cfg := kind.defaults()
	if err := decodeConfig(spec.Config, cfg, filepath.Join(*run, runner.ConfigFile)); err != nil {
		return fail(exitUsage, "%v", err)
	}
	if err := validateKind(kind, cfg); err != nil {
		return fail(exitUsage, "%s: %v", filepath.Join(*run, runner.ConfigFile), err)
	}
	if code, ok := checkBackend(stderr, "eval"); !ok {
		return code
	}
	m, err := cfg.open(backend.MustNew(), spec.Data, false)
	if err != nil {
		return fail(exitUsage, "%v", err)
	}
	if err := runner.LoadBest(*run, m); err != nil {
		return fail(exitUsage, "%v", err)
	}
	ev, err := m.Evaluate(*split, *scoresPath != "")
	if err != nil {
		return fail(exitUsage, "%v", err)
	}
	if *scoresPath != "" {
		cmd, err := writeScores(*scoresPath, ev)
		if err != nil {
			return fail(exitFailure, "%v", err)
		}
		fmt.Fprintf(stderr, "geoalign eval: wrote %s (%d × %d); the same metrics: %s\n", *scoresPath, ev.Rows, ev.Cols, cmd)
	}
	if !*asJSON {
		header := fmt.Sprintf("%s (%s), the checkpoint of the best validation", *run, spec.Model)
		if h, err := runner.ReadHistory(*run); err == nil {
			if b, ok := runner.Best(h); ok {
				header += fmt.Sprintf(" (epoch %d of %d)", b.Epoch, h[len(h)-1].Epoch)
			}
		}
		fmt.Fprintf(stdout, "%s, split %s\n", header, *split)
	}
	if err := writeResult(stdout, stderr, "geoalign eval", *split, ev.Result, ev.Opts.Ties, *asJSON); err != nil {
		return fail(exitFailure, "%v", err)
	}
	return exitOK
}

// writeScores writes the score matrix (and a ground truth other than the diagonal) as .npy files,
// each through a temporary file and a rename, and returns the `geoalign metrics` command that
// computes the same metrics from them.
func writeScores(path string, ev *evaluation) (cmd string, err error) {
	note := ""
	if err := writeNpyAtomic(path, []int{ev.Rows, ev.Cols}, ev.Scores); err != nil {
		return "", err
	}
	args := []string{"geoalign metrics --scores", path}
	if ev.GT != nil && !isDiagonal(ev.GT, ev.Rows, ev.Cols) {
		gtPath := strings.TrimSuffix(path, ".npy") + ".query_video.npy"
		gt := make([]int64, len(ev.GT))
		for i, g := range ev.GT {
			gt[i] = int64(g)
		}
		if err := writeNpyAtomic(gtPath, []int{len(gt)}, gt); err != nil {
			return "", err
		}
		args = append(args, "--query-video", gtPath)
		if ev.Opts.VideoToText {
			note = " (text→video: geoalign metrics ranks video→text for the diagonal only)"
		}
	}
	if ev.Opts.Ks != nil {
		ks := make([]string, len(ev.Opts.Ks))
		for i, k := range ev.Opts.Ks {
			ks[i] = strconv.Itoa(k)
		}
		args = append(args, "--ks", strings.Join(ks, ","))
	}
	if ev.Opts.Median != retrieval.MedianNumPy {
		args = append(args, "--median", ev.Opts.Median.String())
	}
	return strings.Join(append(args, "--json"), " ") + note, nil
}

func isDiagonal(gt []int, rows, cols int) bool {
	if rows != cols {
		return false
	}
	for i, g := range gt {
		if g != i {
			return false
		}
	}
	return true
}

// writeNpyAtomic writes a .npy file atomically (lib/atomicfile), its content built in memory.
// The temporary files of an earlier write of path that was killed are removed first.
func writeNpyAtomic[T npy.Element](path string, shape []int, data []T) error {
	if err := atomicfile.RemoveTemps(filepath.Dir(path), filepath.Base(path)); err != nil {
		return err
	}
	var b bytes.Buffer
	if err := npy.Write(&b, shape, data); err != nil {
		return err
	}
	return atomicfile.WriteFile(path, b.Bytes(), 0o644)
}
