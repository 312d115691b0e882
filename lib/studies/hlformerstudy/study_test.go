package hlformerstudy

import (
	"strings"
	"testing"

	"github.com/geoalign/geoalign/lib/backend"
	"github.com/geoalign/geoalign/lib/models/hlformer"
)

// The study pipeline end to end on a tiny synthetic world: Table 1 (three variants × two seeds), the
// paired comparison, and Fig. 5's POP distances.
func TestStudyTable1AndFigure5(t *testing.T) {
	setup, err := SyntheticSetup(3, 64)
	if err != nil {
		t.Fatal(err)
	}
	scale := Scale{Name: "test", Dim: 8, LorentzDim: 7, FrameLen: 16, QueryLen: 8, Epochs: 1, BatchVideos: 12, LearningRate: 1e-3}
	st := NewStudy(backend.MustNew(), setup, scale, []int64{0}, nil)
	tab, err := st.Table1()
	if err != nil {
		t.Fatal(err)
	}
	md, err := tab.Markdown()
	if err != nil {
		t.Fatal(err)
	}
	if len(tab.Rows) != 3 || strings.Contains(md, "(paper)") || !strings.Contains(md, "synthetic") {
		t.Fatalf("table 1:\n%s", md)
	}
	// Selection on the validation split carved from train, the table from the test split.
	r := st.runs[HybridVariant.Name]
	if q := r.Results[0].History[0].Val.Queries; q != setup.Val.NumQueries() || q == setup.Test.NumQueries() {
		t.Fatalf("epochs validated on %d queries; the validation split has %d, the test split %d", q, setup.Val.NumQueries(), setup.Test.NumQueries())
	}
	if r.Test[0].Queries != setup.Test.NumQueries() || r.TestEmbeddings[0].Videos != setup.Test.NumVideos() {
		t.Fatalf("test metrics over %d queries and embeddings of %d videos; the test split has %d and %d",
			r.Test[0].Queries, r.TestEmbeddings[0].Videos, setup.Test.NumQueries(), setup.Test.NumVideos())
	}
	seen := map[string]bool{}
	for _, id := range setup.Train.VideoIDs {
		seen[id] = true
	}
	for _, id := range append(append([]string(nil), setup.Val.VideoIDs...), setup.Test.VideoIDs...) {
		if seen[id] {
			t.Fatalf("video %s is in two of train, val and test", id)
		}
		seen[id] = true
	}
	cmp, err := st.Compare(HybridVariant, EuclideanOnlyVariant)
	if err != nil {
		t.Fatal(err)
	}
	if cmp.Diff.N != 1 || cmp.Verdict != "inconclusive" {
		t.Fatalf("comparison %+v", cmp)
	}
	_, _, t5, f5, err := st.Figure5(10, 20)
	if err != nil {
		t.Fatal(err)
	}
	if len(t5.Rows) != 2 || f5.Verdict == "" {
		t.Fatalf("fig 5 table rows %v", t5.Rows)
	}
	d, err := hlformer.POPDistances(st.Backend, &hlformer.Model{Config: st.runs[HybridVariant.Name].Config}, st.runs[HybridVariant.Name].Results[0].Store, setup.Test, 5, 7)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Queries) != 7 || len(d.Clips) != 5*32 || d.C < hlformer.CurvatureMin || d.C > hlformer.CurvatureMax {
		t.Fatalf("distances: %d queries, %d clips, c = %g", len(d.Queries), len(d.Clips), d.C)
	}
	for _, x := range append(append(d.Queries, d.Clips...), d.Frames...) {
		if !(x >= 0) {
			t.Fatalf("distance %g", x)
		}
	}
}
