package gram

import (
	"math"
	"path"
	"testing"

	"github.com/geoalign/geoalign/lib/seedrand"
	"github.com/gomlx/gomlx/core/tensors"
)

// Issue 50, acceptance 1: GRAM's initial weights are a function of the seed and each layer's scope
// alone. A fresh trainer's encoders and contra heads (created by Embed's graph) hold exactly the host
// draws of seedrand's He initializer for their scope — on whichever backend runs the test (make
// test-xla runs it on XLA-CPU, so the two backends agree bit for bit); biases start at 0.
func TestInitialWeightsFromSeed(t *testing.T) {
	data := latentFixture(2, 40, 24, 4, 0.1)
	cfg := tinyConfig()
	cfg.Seed = 11
	tr := newTrainer(t, data, cfg)
	if _, err := tr.Embed(data.Test); err != nil {
		t.Fatal(err)
	}
	weights, biases := 0, 0
	for v := range tr.Store.IterVariables() {
		if name := path.Base(v.Path()); name != "weights" && name != "biases" {
			continue
		}
		x, err := v.Value()
		if err != nil {
			t.Fatal(err)
		}
		got := tensors.MustCopyFlatData[float32](x)
		switch path.Base(v.Path()) {
		case "weights":
			layer := path.Dir(path.Dir(v.Path())) // <layer>/dense/weights: the scope seedrand.He was given
			fanIn := v.Shape().Dimensions[0]
			want := tensors.MustCopyFlatData[float32](seedrand.NormalTensor(
				seedrand.Stream(cfg.Seed, layer, v.Shape().Dimensions...), math.Sqrt(2/float64(fanIn)), v.Shape()))
			for i := range want {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
					t.Fatalf("%s[%d] = %v, the host draw is %v", v.Path(), i, got[i], want[i])
				}
			}
			weights++
		case "biases":
			for i, b := range got {
				if b != 0 {
					t.Fatalf("%s[%d] = %v, want 0", v.Path(), i, b)
				}
			}
			biases++
		}
	}
	// Three modalities: an encoder layer (weights and biases) and a contra head (weights) each.
	if weights != 6 || biases != 3 {
		t.Fatalf("checked %d weights and %d biases, want 6 and 3", weights, biases)
	}
}
