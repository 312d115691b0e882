package main

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/geoalign/geoalign/lib/npy"
)

func runMetricsForTest(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = metricsMain(args, &out, &errb)
	return code, out.String(), errb.String()
}

func writeNpy[T npy.Element](t *testing.T, dir, name string, shape []int, data []T) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := npy.WriteFile(p, shape, data); err != nil {
		t.Fatal(err)
	}
	return p
}

// The 3 × 3 example worked out by hand: t2v ranks 1, 2, 3; v2t ranks 1, 1, 2.
func TestMetricsJSONSquare(t *testing.T) {
	dir := t.TempDir()
	s := []float32{
		0.9, 0.1, 0.2,
		0.3, 0.8, 0.9,
		0.5, 0.6, 0.4,
	}
	for _, path := range []string{
		writeNpy(t, dir, "s32.npy", []int{3, 3}, s),
		writeNpy(t, dir, "s64.npy", []int{3, 3}, f64(s)),
	} {
		code, out, errOut := runMetricsForTest(t, "--scores", path, "--ks", "1,2", "--json")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		var got map[string]map[string]float64
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("output %q: %v", out, err)
		}
		want := map[string]map[string]float64{
			"t2v": {"R@1": 100.0 / 3, "R@2": 200.0 / 3, "MdR": 2, "MnR": 2, "SumR": 100},
			"v2t": {"R@1": 200.0 / 3, "R@2": 100, "MdR": 1, "MnR": 4.0 / 3, "SumR": 100 + 200.0/3},
		}
		for dir, m := range want {
			for k, v := range m {
				if g, ok := got[dir][k]; !ok || math.Abs(g-v) > 1e-9 {
					t.Errorf("%s %s %s = %v, want %v (output %s)", path, dir, k, g, v, out)
				}
			}
			if len(got[dir]) != len(m) {
				t.Errorf("%s: keys %v", dir, got[dir])
			}
		}
		// Keys in the documented order.
		if !strings.HasPrefix(out, `{"t2v":{"R@1":`) || !strings.Contains(out, `"MdR":2,"MnR":2,"SumR":100},"v2t":`) {
			t.Errorf("layout: %s", out)
		}
	}
}

func f64(s []float32) []float64 {
	out := make([]float64, len(s))
	for i, v := range s {
		out[i] = float64(v)
	}
	return out
}

// PRVR: 4 queries, 2 videos, --query-video, PRVR Ks; no v2t.
func TestMetricsQueryVideo(t *testing.T) {
	dir := t.TempDir()
	s := writeNpy(t, dir, "s.npy", []int{4, 2}, []float64{0.9, 0.2, 0.1, 0.3, 0.4, 0.6, 0.8, 0.5})
	for _, q := range []string{
		writeNpy(t, dir, "q32.npy", []int{4}, []int32{0, 0, 1, 1}),
		writeNpy(t, dir, "q64.npy", []int{4}, []int64{0, 0, 1, 1}),
	} {
		code, out, errOut := runMetricsForTest(t, "--scores", s, "--query-video", q, "--ks", "1,5,10,100", "--json")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		want := `{"t2v":{"R@1":50,"R@5":100,"R@10":100,"R@100":100,"MdR":1.5,"MnR":1.5,"SumR":350}}`
		if strings.TrimSpace(out) != want {
			t.Fatalf("got %s want %s", out, want)
		}
	}
	// Square scores with --query-video: t2v only.
	sq := writeNpy(t, dir, "sq.npy", []int{2, 2}, []float32{1, 0, 0, 1})
	q := writeNpy(t, dir, "q.npy", []int{2}, []int64{1, 0})
	_, out, _ := runMetricsForTest(t, "--scores", sq, "--query-video", q, "--json")
	if strings.Contains(out, "v2t") || !strings.Contains(out, `"R@1":0`) {
		t.Fatalf("square with --query-video: %s", out)
	}
	// Text output mentions both directions for a square matrix.
	code, out, _ := runMetricsForTest(t, "--scores", sq)
	if code != 0 || !strings.Contains(out, "t2v  R@1 100.0") || !strings.Contains(out, "v2t  R@1 100.0") {
		t.Fatalf("text output (%d): %s", code, out)
	}
}

// Bad input: exit code 2 and one line naming the file and the problem.
func TestMetricsBadInput(t *testing.T) {
	dir := t.TempDir()
	good := writeNpy(t, dir, "good.npy", []int{2, 2}, []float32{1, 0, 0, 1})
	rect := writeNpy(t, dir, "rect.npy", []int{2, 3}, []float32{1, 0, 0, 0, 1, 0})
	ints := writeNpy(t, dir, "ints.npy", []int{2, 2}, []int32{1, 0, 0, 1})
	vec := writeNpy(t, dir, "vec.npy", []int{4}, []float32{1, 0, 0, 1})
	nan := writeNpy(t, dir, "nan.npy", []int{2, 2}, []float32{1, 0, float32(math.NaN()), 1})
	qOut := writeNpy(t, dir, "qout.npy", []int{2}, []int32{0, 2})
	qLen := writeNpy(t, dir, "qlen.npy", []int{3}, []int32{0, 1, 1})
	qFloat := writeNpy(t, dir, "qfloat.npy", []int{2}, []float32{0, 1})
	garbage := filepath.Join(dir, "garbage.npy")
	os.WriteFile(garbage, []byte("\x93NUMPY\x01\x00\xff\x00{'descr'"), 0o644)
	cases := []struct {
		args []string
		want []string
	}{
		{[]string{}, []string{"--scores is required"}},
		{[]string{"--scores", filepath.Join(dir, "missing.npy")}, []string{"missing.npy", "no such file"}},
		{[]string{"--scores", ints}, []string{"ints.npy", "dtype <i4"}},
		{[]string{"--scores", vec}, []string{"vec.npy", "2-D"}},
		{[]string{"--scores", nan}, []string{"nan.npy", "NaN at row 1, column 0"}},
		{[]string{"--scores", garbage}, []string{"garbage.npy", "truncated header"}},
		{[]string{"--scores", rect}, []string{"rect.npy", "not square", "--query-video"}},
		{[]string{"--scores", good, "--query-video", qOut}, []string{"qout.npy", "query 1: ground-truth item 2 out of range [0, 2)"}},
		{[]string{"--scores", good, "--query-video", qLen}, []string{"qlen.npy", "3 ground-truth entries for 2 queries"}},
		{[]string{"--scores", good, "--query-video", qFloat}, []string{"qfloat.npy", "want <i4 or <i8"}},
		{[]string{"--scores", good, "--ks", "1,x"}, []string{"--ks", `"x"`}},
		{[]string{"--scores", good, "--ks", "0"}, []string{"--ks"}},
		{[]string{"--scores", good, "--ties", "random"}, []string{"--ties", "random"}},
	}
	for _, c := range cases {
		code, out, errOut := runMetricsForTest(t, c.args...)
		if code != 2 || out != "" {
			t.Errorf("%v: exit %d, stdout %q", c.args, code, out)
		}
		if strings.Count(strings.TrimRight(errOut, "\n"), "\n") != 0 {
			t.Errorf("%v: want one line, got %q", c.args, errOut)
		}
		for _, w := range c.want {
			if !strings.Contains(errOut, w) {
				t.Errorf("%v: stderr %q does not contain %q", c.args, errOut, w)
			}
		}
	}
}

func TestMetricsTieNote(t *testing.T) {
	dir := t.TempDir()
	s := writeNpy(t, dir, "flat.npy", []int{2, 2}, []float32{1, 1, 1, 1})
	code, out, errOut := runMetricsForTest(t, "--scores", s, "--json")
	if code != 0 || !strings.Contains(errOut, "2 t2v queries tie") || !strings.Contains(out, `"R@1":0`) {
		t.Fatalf("exit %d, stdout %s, stderr %s", code, out, errOut)
	}
	_, out, _ = runMetricsForTest(t, "--scores", s, "--json", "--ties", "optimistic")
	if !strings.Contains(out, `"R@1":100`) {
		t.Fatalf("optimistic: %s", out)
	}
}
