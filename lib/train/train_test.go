package train

import (
	"math"
	"testing"

	"github.com/geoalign/geoalign/lib/backend"
	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/ml/model"
)

// refAdam is an independent float64 reference of Adam's update for one variable (the
// formula in the Adam doc comment, written out on slices).
type refAdam struct {
	m, v []float64
	t    int
}

func (r *refAdam) step(o *Adam, p, g []float64, globalScale float64) {
	if r.m == nil {
		r.m, r.v = make([]float64, len(p)), make([]float64, len(p))
	}
	for i := range g {
		g[i] *= globalScale
	}
	if o.MaxTensorGradNorm > 0 {
		n := 0.0
		for _, x := range g {
			n += x * x
		}
		f := math.Min(1, o.MaxTensorGradNorm/(math.Sqrt(n)+ClipEpsilon))
		for i := range g {
			g[i] *= f
		}
	}
	lr := o.LearningRate * o.Schedule.At(float64(r.t)/float64(o.TotalSteps))
	for i := range p {
		r.m[i] = o.Beta1*r.m[i] + (1-o.Beta1)*g[i]
		r.v[i] = o.Beta2*r.v[i] + (1-o.Beta2)*g[i]*g[i]
		m, v := r.m[i], r.v[i]
		if o.BiasCorrection {
			m /= 1 - math.Pow(o.Beta1, float64(r.t+1))
			v /= 1 - math.Pow(o.Beta2, float64(r.t+1))
		}
		u := m/(math.Sqrt(v)+o.Epsilon) + o.WeightDecay*p[i]
		p[i] -= lr * u
	}
	r.t++
}

// TestAdamMatchesFloat64Reference trains loss = Σ w·(p − target)² (gradient 2w(p − target))
// for a few steps with each configuration and compares every parameter with the reference.
func TestAdamMatchesFloat64Reference(t *testing.T) {
	target := []float64{3, -2, 0.5, 10}
	weights := []float64{1, 4, 0.1, 2}
	configs := map[string]*Adam{
		"BertAdam": BertAdam(0.05, 10),
		"AdamW":    AdamW(0.05, 10),
		"BertAdam+global": func() *Adam {
			a := BertAdam(0.05, 10)
			a.MaxGlobalGradNorm, a.Schedule = 0.5, WarmupCosine{Warmup: 0.2}
			return a
		}(),
	}
	for name, opt := range configs {
		t.Run(name, func(t *testing.T) {
			store := model.NewStore()
			start := []float64{1, 1, 1, 1}
			store.RootScope().In("lin").VariableWithValue("w", append([]float64(nil), start...))
			step, err := NewStep(backend.MustNew(), store, opt, func(scope *model.Scope, in []*graph.Node) []*graph.Node {
				p := scope.In("lin").VariableWithValue("w", start).NodeValue(in[0].Graph())
				d := graph.Sub(p, in[0])
				return []*graph.Node{graph.ReduceAllSum(graph.Mul(in[1], graph.Square(d)))}
			})
			if err != nil {
				t.Fatal(err)
			}
			ref := &refAdam{}
			p := append([]float64(nil), start...)
			for s := 0; s < 6; s++ {
				if _, err := step.Run(target, weights); err != nil {
					t.Fatal(err)
				}
				g := make([]float64, 4)
				gn := 0.0
				for i := range p {
					g[i] = 2 * weights[i] * (p[i] - target[i])
					gn += g[i] * g[i]
				}
				scale := 1.0
				if opt.MaxGlobalGradNorm > 0 {
					scale = math.Min(1, opt.MaxGlobalGradNorm/(math.Sqrt(gn)+ClipEpsilon))
				}
				ref.step(opt, p, g, scale)
			}
			got := store.GetVariable("/lin/w").MustValue().Value().([]float64)
			for i := range p {
				if math.Abs(got[i]-p[i]) > 1e-12*math.Max(1, math.Abs(p[i])) {
					t.Fatalf("param %d: got %.15g, reference %.15g", i, got[i], p[i])
				}
			}
			if gs := GlobalStep(store); gs != 6 {
				t.Fatalf("global step %d, want 6", gs)
			}
		})
	}
}

func TestNoDecayAndLRMultiplier(t *testing.T) {
	for _, p := range []string{"/enc/dense/bias", "/enc/layer_norm/gain", "/x/LayerNorm/beta"} {
		if !DefaultNoDecay(p) {
			t.Errorf("%s should be exempt from weight decay", p)
		}
	}
	if DefaultNoDecay("/enc/dense/weights") {
		t.Error("weights must decay")
	}
	// With a zero gradient, only weight decay moves a parameter; a 0 multiplier freezes it.
	opt := BertAdam(0.1, 1)
	opt.Schedule = Constant{}
	opt.LRMultiplier = func(path string) float64 {
		if path == "/frozen/weights" {
			return 0
		}
		return 1
	}
	store := model.NewStore()
	step, _ := NewStep(backend.MustNew(), store, opt, func(scope *model.Scope, in []*graph.Node) []*graph.Node {
		g := in[0].Graph()
		a := scope.In("frozen").VariableWithValue("weights", []float64{2}).NodeValue(g)
		free := scope.In("free")
		b := free.VariableWithValue("weights", []float64{2}).NodeValue(g)
		c := free.VariableWithValue("bias", []float64{2}).NodeValue(g)
		zero := graph.MulScalar(graph.ReduceAllSum(graph.Add(graph.Add(a, b), c)), 0)
		return []*graph.Node{graph.Add(zero, graph.ReduceAllSum(graph.MulScalar(in[0], 0)))}
	})
	if _, err := step.Run([]float64{1}); err != nil {
		t.Fatal(err)
	}
	get := func(p string) float64 { return store.GetVariable(p).MustValue().Value().([]float64)[0] }
	if get("/frozen/weights") != 2 || get("/free/bias") != 2 || math.Abs(get("/free/weights")-(2-0.1*0.01*2)) > 1e-15 {
		t.Fatalf("frozen %v, bias %v, weights %v", get("/frozen/weights"), get("/free/bias"), get("/free/weights"))
	}
}

func TestSchedulesGraphEqualsHost(t *testing.T) {
	xs := []float64{0, 0.005, 0.01, 0.05, 0.1, 0.5, 0.99, 1, 1.2}
	for _, s := range []Schedule{Constant{}, WarmupLinear{Warmup: 0.01}, WarmupCosine{Warmup: 0.1}, WarmupConstant{Warmup: 0.05}} {
		got := graph.MustExecOnce(backend.MustNew(), s.Graph, xs).Value().([]float64)
		for i, x := range xs {
			if math.Abs(got[i]-s.At(x)) > 1e-12 {
				t.Errorf("%T at %v: graph %v, host %v", s, x, got[i], s.At(x))
			}
		}
	}
	// Closed forms: warm-up ramps, linear decay reaches 0 at the end, cosine jumps after warm-up.
	if v := (WarmupLinear{Warmup: 0.01}).At(0.005); v != 0.5 {
		t.Errorf("warmup_linear(0.005) = %v", v)
	}
	if v := (WarmupLinear{Warmup: 0.01}).At(1); v != 0 {
		t.Errorf("warmup_linear(1) = %v", v)
	}
	if v := (WarmupCosine{Warmup: 0.1}).At(0.1); math.Abs(v-0.5*(1+math.Cos(0.1*math.Pi))) > 1e-15 {
		t.Errorf("warmup_cosine(0.1) = %v", v)
	}
	if a, b, c := (WarmupConstant{Warmup: 0.05}).At(0.01), (WarmupConstant{Warmup: 0.05}).At(0.05), (WarmupConstant{Warmup: 0.05}).At(1); math.Abs(a-0.2) > 1e-15 || b != 1 || c != 1 {
		t.Errorf("warmup_constant(0.01, 0.05, 1) = %v, %v, %v; want 0.2, 1, 1", a, b, c)
	}
}

func TestBlockSize(t *testing.T) {
	for _, c := range []struct{ n, k, want int }{{128, 48, 32}, {7, 4, 1}, {128, 16, 16}, {6, 4, 3}, {5, 9, 5}} {
		if got := BlockSize(c.n, c.k); got != c.want {
			t.Errorf("BlockSize(%d, %d) = %d, want %d", c.n, c.k, got, c.want)
		}
	}
}
