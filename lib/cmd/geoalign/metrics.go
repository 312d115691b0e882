package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/geoalign/geoalign/lib/npy"
	"github.com/geoalign/geoalign/lib/retrieval"
)

func init() {
	register("metrics", "retrieval metrics (R@K, MdR, MnR, SumR) of a .npy score matrix", metricsMain)
}

// metricsMain is `geoalign metrics`: it streams the score matrix from the file (two
// passes when both directions are printed), so memory stays at one strip of rows
// whatever the matrix size.
func metricsMain(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("metrics", stderr, "usage: geoalign metrics --scores S.npy [--query-video Q.npy] [--ks 1,5,10,100] [--json]",
		"\nPrints text→video metrics, and video→text too when S is square and no --query-video is given.")
	scores := fs.String("scores", "", "score matrix `S.npy`, float32 or float64, rows = queries (texts), columns = videos; higher = better")
	queryVideo := fs.String("query-video", "", "ground-truth column of each row, `Q.npy`, int32 or int64 (default: the diagonal)")
	ksFlag := fs.String("ks", "1,5,10", "comma-separated `K`s for R@K; SumR sums them (PRVR: 1,5,10,100)")
	asJSON := fs.Bool("json", false, `print {"t2v": {...}, "v2t": {...}}`)
	tiesFlag := fs.String("ties", retrieval.TiePessimistic.String(), "where the ground truth lands among equal scores: pessimistic, optimistic or index")
	medianFlag := fs.String("median", retrieval.MedianNumPy.String(), "MdR of an even count: numpy (mean of the middle two) or lower (torch.median)")
	if code, ok := parseFlags(fs, args, stderr); !ok {
		return code
	}
	// Every error of metrics is in its input (the files or the flags): exit 2.
	fail := failWith(stderr, "metrics")
	bad := func(format string, a ...any) int { return fail(exitUsage, format, a...) }
	if *scores == "" {
		return bad("--scores is required")
	}
	ks, err := parseKs(*ksFlag)
	if err != nil {
		return bad("--ks: %v", err)
	}
	opts := retrieval.Options{Ks: ks}
	if opts.Ties, err = retrieval.ParseTieRule(*tiesFlag); err != nil {
		return bad("--ties: %v", err)
	}
	if opts.Median, err = retrieval.ParseMedianRule(*medianFlag); err != nil {
		return bad("--median: %v", err)
	}
	var gt []int
	if *queryVideo != "" {
		if gt, err = npy.ReadIndices(*queryVideo); err != nil {
			return bad("%v", err)
		}
	} else {
		opts.VideoToText = true // square is checked by Evaluate: the diagonal needs it
	}
	res, err := retrieval.EvaluateFile(*scores, gt, opts)
	var gtErr *retrieval.GroundTruthError
	var notSquare *retrieval.NotSquareError
	switch {
	case errors.As(err, &gtErr) && *queryVideo != "":
		return bad("%s: %v", *queryVideo, err)
	case errors.As(err, &notSquare):
		return bad("%s: %d rows × %d columns is not square: give --query-video (the ground-truth column of each row)",
			*scores, notSquare.Queries, notSquare.Items)
	case err != nil:
		return bad("%v", err)
	}
	if err := writeResult(stdout, stderr, "geoalign metrics", *scores, res, opts.Ties, *asJSON); err != nil {
		return bad("%v", err)
	}
	return 0
}

// writeResult prints a retrieval result as `geoalign metrics` does — JSON with --json
// (retrieval.Report: {"t2v": {...}, "v2t": {...}}), text otherwise — and notes on stderr how many
// queries tie. `geoalign eval` prints through it too, so the two commands' outputs cannot drift
// apart.
func writeResult(stdout, stderr io.Writer, cmd, name string, res retrieval.Result, ties retrieval.TieRule, asJSON bool) error {
	for _, d := range []struct {
		name string
		m    *retrieval.Metrics
	}{{"t2v", &res.T2V}, {"v2t", res.V2T}} {
		if d.m != nil && d.m.Tied > 0 {
			fmt.Fprintf(stderr, "%s: note: %d %s queries tie with another item; ranks use the %s rule (--ties)\n",
				cmd, d.m.Tied, d.name, ties)
		}
	}
	if asJSON {
		b, err := json.Marshal(res.Report)
		if err != nil {
			return err
		}
		fmt.Fprintln(stdout, string(b))
		return nil
	}
	fmt.Fprintf(stdout, "%s: %d queries × %d videos\n", name, res.T2V.Queries, res.Items)
	fmt.Fprintf(stdout, "t2v  %v\n", res.T2V)
	if res.V2T != nil {
		fmt.Fprintf(stdout, "v2t  %v\n", *res.V2T)
	}
	return nil
}

// parseKs parses "1,5,10,100".
func parseKs(s string) ([]int, error) {
	var ks []int
	for _, f := range strings.Split(s, ",") {
		k, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || k < 1 {
			return nil, fmt.Errorf("%q is not a positive integer", f)
		}
		ks = append(ks, k)
	}
	return ks, nil
}
