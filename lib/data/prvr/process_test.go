package prvr

import (
	"math"
	"reflect"
	"testing"
)

// Golden boundaries printed by torch (the official average_to_fixed_length computation:
// torch.min(torch.round(torch.arange(0, m+1, 1.0)/m*n).long(), n-1)). n=45 hits exact halves
// (16·45/32 = 22.5 → 22) where round-half-to-even and round-half-up differ.
func TestSegmentBoundsMatchTorch(t *testing.T) {
	cases := []struct {
		n, m int
		want []int
	}{
		{10, 32, []int{0, 0, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 4, 4, 4, 5, 5, 5, 6, 6, 6, 7, 7, 7, 8, 8, 8, 8, 9, 9, 9, 9, 9}},
		{45, 32, []int{0, 1, 3, 4, 6, 7, 8, 10, 11, 13, 14, 15, 17, 18, 20, 21, 22, 24, 25, 27, 28, 30, 31, 32, 34, 35, 37, 38, 39, 41, 42, 44, 44}},
		{7, 3, []int{0, 2, 5, 6}},
	}
	for _, c := range cases {
		if got := segmentBounds(c.n, c.m); !reflect.DeepEqual(got, c.want) {
			t.Errorf("segmentBounds(%d, %d) = %v, want %v", c.n, c.m, got, c.want)
		}
	}
}

func TestAverageToFixedLengthByHand(t *testing.T) {
	// 7 frames of 1-d features 0..6 into 3 segments: bounds [0 2 5 6] → mean(0,1), mean(2,3,4), mean(5).
	x := []float32{0, 1, 2, 3, 4, 5, 6}
	got := AverageToFixedLength(x, 7, 1, 3)
	if want := []float32{0.5, 3, 5}; !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	// 2 frames into 4 segments: bounds round([0 .5 1 1.5 2]) = [0 0 1 2→1 1]: copies of frame starts.
	got = AverageToFixedLength([]float32{10, 20}, 2, 1, 4)
	if want := []float32{10, 10, 20, 20}; !reflect.DeepEqual(got, want) {
		t.Fatalf("short video: got %v, want %v", got, want)
	}
}

func TestUniformSample(t *testing.T) {
	x := []float32{1, 2, 3}
	got, n := UniformSample(x, 3, 1, 128)
	if n != 3 || !reflect.DeepEqual(got, x) {
		t.Fatalf("short input changed: %v %d", got, n)
	}
	got[0] = 99
	if x[0] != 1 {
		t.Fatal("UniformSample aliased its input")
	}
	long := make([]float32, 300)
	for i := range long {
		long[i] = float32(i)
	}
	got, n = UniformSample(long, 300, 1, MaxFrames)
	if n != MaxFrames || len(got) != MaxFrames {
		t.Fatalf("got %d rows", n)
	}
	// Segment 0 of 300→128: bounds 0 and round(300/128 = 2.34) = 2 → mean(0, 1) = 0.5.
	if got[0] != 0.5 {
		t.Fatalf("first segment = %v, want 0.5", got[0])
	}
}

func TestL2NormalizeRowsWithEps(t *testing.T) {
	x := []float32{3, 4, 0, 0}
	L2NormalizeRows(x, 2)
	// (3,4)/(5+1e-5); the zero row stays zero (no NaN) thanks to the eps.
	for i, want := range []float64{3 / (5 + 1e-5), 4 / (5 + 1e-5), 0, 0} {
		if math.Abs(float64(x[i])-want) > 1e-7 {
			t.Fatalf("x[%d] = %v, want %v", i, x[i], want)
		}
	}
}

func TestProcessQueryTruncatesAfterNormalising(t *testing.T) {
	tok := make([]float32, 40*2)
	for i := range tok {
		tok[i] = float32(i + 1)
	}
	out, k := ProcessQuery(tok, 40, 2)
	if k != MaxQueryTokens || len(out) != MaxQueryTokens*2 {
		t.Fatalf("k=%d len=%d", k, len(out))
	}
	n := math.Hypot(float64(out[58]), float64(out[59]))
	if math.Abs(n-1) > 1e-5 {
		t.Fatalf("last kept token norm %v", n)
	}
}
