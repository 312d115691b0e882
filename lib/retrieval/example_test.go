package retrieval_test

import (
	"encoding/json"
	"fmt"

	"github.com/geoalign/geoalign/lib/retrieval"
)

// Three captions × three videos, caption i describing video i (MSR-VTT 1k-A style):
// both directions, R@1/5/10, and the JSON that `geoalign metrics --json` prints.
func Example() {
	scores, _ := retrieval.NewMatrix(3, 3, []float32{
		0.9, 0.1, 0.2,
		0.3, 0.8, 0.9,
		0.5, 0.6, 0.4,
	})
	res, err := retrieval.Evaluate[float32](scores, nil, retrieval.Options{VideoToText: true})
	if err != nil {
		panic(err)
	}
	fmt.Println("t2v ranks:", res.T2VRanks)
	fmt.Println("t2v:", res.T2V)
	fmt.Println("v2t:", *res.V2T)
	b, _ := json.Marshal(res.Report)
	fmt.Println(string(b))
	// Output:
	// t2v ranks: [1 2 3]
	// t2v: R@1 33.3  R@5 100.0  R@10 100.0  MdR 2  MnR 2.0  SumR 233.3  (3 queries)
	// v2t: R@1 66.7  R@5 100.0  R@10 100.0  MdR 1  MnR 1.3  SumR 266.7  (3 queries)
	// {"t2v":{"R@1":33.333333333333336,"R@5":100,"R@10":100,"MdR":2,"MnR":2,"SumR":233.33333333333334},"v2t":{"R@1":66.66666666666667,"R@5":100,"R@10":100,"MdR":1,"MnR":1.3333333333333333,"SumR":266.6666666666667}}
}

// PRVR (HLFormer, MS-SL): several captions per video, the ground truth is each
// caption's video, text→video only, SumR over R@1/5/10/100.
func Example_prvr() {
	scores, _ := retrieval.NewMatrix(4, 2, []float64{
		0.9, 0.2, // caption 0 of video 0
		0.1, 0.3, // caption 1 of video 0
		0.4, 0.6, // caption 0 of video 1
		0.8, 0.5, // caption 1 of video 1
	})
	res, _ := retrieval.Evaluate[float64](scores, []int{0, 0, 1, 1}, retrieval.Options{Ks: retrieval.PRVRKs})
	fmt.Println(res.T2V)
	// Output:
	// R@1 50.0  R@5 100.0  R@10 100.0  R@100 100.0  MdR 1.5  MnR 1.5  SumR 350.0  (4 queries)
}

// A cheap scorer shortlists 2 videos per caption; an expensive one reorders them.
func ExampleTwoStage() {
	cheap, _ := retrieval.NewMatrix(3, 3, []float32{
		0.5, 0.6, 0.1, // the GT (video 0) is second: the expensive model fixes it
		0.2, 0.3, 0.4, // the GT (video 1) is second
		0.9, 0.8, 0.1, // the GT (video 2) is last: not shortlisted, rank 3
	})
	expensive, _ := retrieval.NewMatrix(3, 3, []float32{
		0.9, 0.1, 0.0,
		0.0, 0.9, 0.1,
		0.1, 0.2, 0.9,
	})
	res, _ := retrieval.TwoStage[float32](cheap, expensive, nil, retrieval.TwoStageOptions{
		Options: retrieval.Options{Ks: []int{1}}, Shortlist: 2, CoverageTop: 1,
	})
	fmt.Println("cheap ranks:", res.Cheap.T2VRanks, "reranked:", res.Ranks)
	fmt.Printf("expensive top-1 inside the shortlist: %.0f%% of queries\n", 100*res.Coverage.Complete)
	// Output:
	// cheap ranks: [2 2 3] reranked: [1 1 3]
	// expensive top-1 inside the shortlist: 67% of queries
}
