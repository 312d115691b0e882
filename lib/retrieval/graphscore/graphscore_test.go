package graphscore

import (
	"math"
	"math/rand/v2"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"

	"github.com/geoalign/geoalign/lib/backend"
	"github.com/geoalign/geoalign/lib/bench"
	"github.com/geoalign/geoalign/lib/retrieval"
)

func randomRows(rng *rand.Rand, n, d int) []float32 {
	x := make([]float32, n*d)
	for i := range x {
		x[i] = float32(rng.NormFloat64())
	}
	return x
}

// cos64 is the float64 reference cosine with F.normalize's floor: a zero vector gives 0.
func cos64(a, b []float32) float64 {
	var ab, aa, bb float64
	for i := range a {
		ab += float64(a[i]) * float64(b[i])
		aa += float64(a[i]) * float64(a[i])
		bb += float64(b[i]) * float64(b[i])
	}
	return ab / (math.Max(math.Sqrt(aa), 1e-12) * math.Max(math.Sqrt(bb), 1e-12))
}

func TestCosineBlocksAgainstFloat64(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	const nq, ni, d = 23, 17, 12
	q, it := randomRows(rng, nq, d), randomRows(rng, ni, d)
	clear(it[5*d : 6*d]) // a zero item: cosine 0, not NaN
	sc, err := Cosine(backend.MustNew(), tensors.FromFlatDataAndDimensions(q, nq, d), tensors.FromFlatDataAndDimensions(it, ni, d))
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	for _, blk := range [][4]int{{0, nq, 0, ni}, {3, 10, 4, 9}, {22, 23, 16, 17}} {
		q0, q1, i0, i1 := blk[0], blk[1], blk[2], blk[3]
		dst := make([]float32, (q1-q0)*(i1-i0))
		if err := sc.ScoreBlock(q0, q1, i0, i1, dst); err != nil {
			t.Fatal(err)
		}
		for a := q0; a < q1; a++ {
			for b := i0; b < i1; b++ {
				got := float64(dst[(a-q0)*(i1-i0)+b-i0])
				if want := cos64(q[a*d:(a+1)*d], it[b*d:(b+1)*d]); math.Abs(got-want) > 1e-6 {
					t.Fatalf("block %v: cos(%d, %d) = %v, want %v", blk, a, b, got, want)
				}
			}
		}
	}
	cands := []int32{16, 5, 0, 5}
	dst := make([]float32, len(cands))
	if err := sc.ScoreCandidates(7, cands, dst); err != nil {
		t.Fatal(err)
	}
	for k, c := range cands {
		if want := cos64(q[7*d:8*d], it[int(c)*d:int(c+1)*d]); math.Abs(float64(dst[k])-want) > 1e-6 {
			t.Fatalf("candidate %d: %v, want %v", c, dst[k], want)
		}
	}
	if err := sc.ScoreBlock(0, nq+1, 0, ni, make([]float32, (nq+1)*ni)); err == nil {
		t.Fatal("out-of-range block accepted")
	}
}

// Streaming from embeddings gives exactly the metrics of the materialised matrix built
// from the same blocks, and the ranks of a float64 reference wherever the reference has
// no near-tie.
func TestStreamingCosineMatchesMaterialised(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	const n, d, qb, ib = 61, 8, 9, 13
	txt, vid := randomRows(rng, n, d), randomRows(rng, n, d)
	for i := range vid { // captions near their video: ranks spread from 1 upwards
		vid[i] = txt[i] + 1.5*vid[i]
	}
	sc, err := Cosine(backend.MustNew(), tensors.FromFlatDataAndDimensions(txt, n, d), tensors.FromFlatDataAndDimensions(vid, n, d))
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	full := retrieval.Matrix[float32]{Rows: n, Cols: n, Data: make([]float32, n*n)}
	for q0 := 0; q0 < n; q0 += qb {
		q1 := min(q0+qb, n)
		for i0 := 0; i0 < n; i0 += ib {
			i1 := min(i0+ib, n)
			blk := make([]float32, (q1-q0)*(i1-i0))
			if err := sc.ScoreBlock(q0, q1, i0, i1, blk); err != nil {
				t.Fatal(err)
			}
			for r := q0; r < q1; r++ {
				copy(full.Data[r*n+i0:r*n+i1], blk[(r-q0)*(i1-i0):(r-q0+1)*(i1-i0)])
			}
		}
	}
	opts := retrieval.Options{VideoToText: true, TopK: 5}
	want, err := retrieval.Evaluate[float32](full, nil, opts)
	if err != nil {
		t.Fatal(err)
	}
	opts.QueryBlock, opts.ItemBlock = qb, ib
	got, err := retrieval.Evaluate[float32](sc, nil, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("streaming %v\nmaterialised %v", got.Report, want.Report)
	}
	if got.T2V.R(1) == 100 || got.T2V.R(10) == 0 {
		t.Fatalf("degenerate test data: %v", got.T2V)
	}
	checked := 0
	for a := range n {
		g := cos64(txt[a*d:(a+1)*d], vid[a*d:(a+1)*d])
		rank, nearTie := 1, false
		for b := range n {
			c := cos64(txt[a*d:(a+1)*d], vid[b*d:(b+1)*d])
			if b != a && math.Abs(c-g) < 1e-5 {
				nearTie = true
			}
			if c > g {
				rank++
			}
		}
		if !nearTie {
			checked++
			if got.T2VRanks[a] != rank {
				t.Fatalf("query %d: rank %d, float64 reference %d", a, got.T2VRanks[a], rank)
			}
		}
	}
	if checked < n-3 {
		t.Fatalf("only %d of %d queries free of near-ties", checked, n)
	}
}

// A score function over several item tensors (as GRAM's volume takes video, audio,
// subtitles): the sum of two cosines, against the float64 reference.
func TestMultiTensorFunc(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	const nq, ni, d = 5, 7, 4
	q, a, b := randomRows(rng, nq, d), randomRows(rng, ni, d), randomRows(rng, ni, d)
	sc, err := New(backend.MustNew(), func(qs, its []*graph.Node) *graph.Node {
		return graph.Add(cosNodes(qs[0], its[0]), cosNodes(qs[0], its[1]))
	}, []*tensors.Tensor{tensors.FromFlatDataAndDimensions(q, nq, d)},
		[]*tensors.Tensor{tensors.FromFlatDataAndDimensions(a, ni, d), tensors.FromFlatDataAndDimensions(b, ni, d)})
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	dst := make([]float32, nq*ni)
	if err := sc.ScoreBlock(0, nq, 0, ni, dst); err != nil {
		t.Fatal(err)
	}
	for i := range nq {
		for j := range ni {
			want := cos64(q[i*d:(i+1)*d], a[j*d:(j+1)*d]) + cos64(q[i*d:(i+1)*d], b[j*d:(j+1)*d])
			if math.Abs(float64(dst[i*ni+j])-want) > 2e-6 {
				t.Fatalf("(%d, %d) = %v, want %v", i, j, dst[i*ni+j], want)
			}
		}
	}
	if _, err := New(backend.MustNew(), nil, []*tensors.Tensor{tensors.FromFlatDataAndDimensions(q, nq, d)},
		[]*tensors.Tensor{tensors.FromFlatDataAndDimensions(a, ni, d), tensors.FromFlatDataAndDimensions(b[:d], 1, d)}); err == nil ||
		!strings.Contains(err.Error(), "item tensor 1 has 1 rows") {
		t.Fatalf("mismatched item tensors: %v", err)
	}
}

func cosNodes(x, y *graph.Node) *graph.Node {
	unit := func(v *graph.Node) *graph.Node {
		return graph.Div(v, graph.MaxScalar(graph.Sqrt(graph.ReduceAndKeep(graph.Square(v), graph.ReduceSum, -1)), 1e-12))
	}
	return graph.MatMul(unit(x), graph.Transpose(unit(y), 0, 1))
}

// streamEvalItems is the corpus of BenchmarkPairedStreamEval: $STREAM_EVAL_ITEMS captions and as many
// videos (the PyTorch twin reads the same variable), 20,000 by default.
func streamEvalItems() int {
	if v, err := strconv.Atoi(os.Getenv("STREAM_EVAL_ITEMS")); err == nil && v > 1 {
		return v
	}
	return 20000
}

// BenchmarkPairedStreamEval is a retrieval evaluation from embeddings (paired with
// lib/bench/torch/StreamEval.py): n captions × n videos (d = 256, caption i matches video i), cosine
// scores computed a block at a time in GoMLX (Cosine) and ranked as they come (retrieval.Evaluate
// with the default 64 MiB strips; text→video and video→text R@1/5/10, MdR, MnR), so the n × n matrix
// (1.6 GB at 20,000) is never built. make bench runs it at 1k, 5k, 10k and 20k items (issue 11): time
// grows as n², memory does not — beyond the strip it holds the embeddings (n × d, a few copies: the
// caller's, the scorer's host rows, the device block) and the Go collector's headroom over them. Here
// (GODEBUG=gctrace=1): live heap 164 MB at 5k and 275 MB at 20k, peak RSS 464 → 722 MB; strips of 16 MiB
// instead of 64 give 206 → 427 MB but 1.8× the time at 20k. Also reports the process's peak RSS.
func BenchmarkPairedStreamEval(b *testing.B) {
	n, d := streamEvalItems(), 256
	rng := rand.New(rand.NewPCG(4, 4))
	txt, vid := randomRows(rng, n, d), randomRows(rng, n, d)
	for i := range vid {
		vid[i] = txt[i] + 4*vid[i]
	}
	sc, err := Cosine(backend.MustNew(), tensors.FromFlatDataAndDimensions(txt, n, d), tensors.FromFlatDataAndDimensions(vid, n, d))
	if err != nil {
		b.Fatal(err)
	}
	defer sc.Close()
	if bench.Checking() {
		res, err := retrieval.Evaluate[float32](sc, nil, retrieval.Options{VideoToText: true})
		if err != nil {
			b.Fatal(err)
		}
		bench.Dump(b, bench.Floats("txt", txt, n, d), bench.Floats("vid", vid, n, d),
			bench.Ints("t2v_ranks", res.T2VRanks), bench.Ints("v2t_ranks", res.V2TRanks))
	}
	b.ResetTimer()
	for b.Loop() {
		res, err := retrieval.Evaluate[float32](sc, nil, retrieval.Options{VideoToText: true})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(res.T2V.R(1), "t2v-R@1")
	}
	b.StopTimer()
	b.ReportMetric(peakRSSMB(), "peak-RSS-MB")
}

// peakRSSMB reads VmHWM from /proc/self/status (Linux), NaN elsewhere.
func peakRSSMB() float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return math.NaN()
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmHWM:" {
			kb, _ := strconv.ParseFloat(f[1], 64)
			return kb / 1024
		}
	}
	return math.NaN()
}
