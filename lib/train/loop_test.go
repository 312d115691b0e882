package train

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/geoalign/geoalign/lib/backend"
	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/ml/layers"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/gomlx/gomlx/ml/model/checkpoint"
)

// toy is a tiny regression model for the loop's tests: y ≈ dropout(x)·w + b on 4 features, with
// every kind of state a resume must restore — Adam's moments and counters, the store's random
// state (dropout), the loop's data order, and host state (a PCG that jitters the targets).
type toy struct {
	store          *model.Store
	step           *Step
	val            *model.Exec
	x, y, vx, vy   [][]float32
	jitter         *rand.PCG
	rng            *rand.Rand
	stepHook       func(step int) // called before every step (the kill test blocks in it)
	steps          int
	nanAt          int // Step returns NaN at this step (1-based; 0: never)
	scriptedMetric []float64
}

const toyTrain, toyVal, toyBatch, toyDim = 48, 16, 8, 4

func newToy(t testing.TB) *toy {
	data := rand.New(rand.NewPCG(3, 4))
	w := []float64{1.5, -2, 0.5, 3}
	rows := func(n int) (x, y [][]float32) {
		for range n {
			xi := make([]float32, toyDim)
			s := 0.3
			for j := range xi {
				xi[j] = float32(data.NormFloat64())
				s += w[j] * float64(xi[j])
			}
			x, y = append(x, xi), append(y, []float32{float32(s + 0.1*data.NormFloat64())})
		}
		return x, y
	}
	m := &toy{store: model.NewStore(), jitter: rand.NewPCG(5, 6)}
	m.rng = rand.New(m.jitter)
	m.x, m.y = rows(toyTrain)
	m.vx, m.vy = rows(toyVal)
	if err := m.store.SetRNGStateFromSeed(7); err != nil {
		t.Fatal(err)
	}
	opt := AdamW(0.05, 40)
	predict := func(scope *model.Scope, x *graph.Node) *graph.Node {
		g := x.Graph()
		lin := scope.In("linear")
		wv := lin.VariableWithValue("weights", [][]float32{{0}, {0}, {0}, {0}}).NodeValue(g)
		bv := lin.VariableWithValue("bias", [][]float32{{0}}).NodeValue(g)
		if TrainingPass(scope, g) {
			x = layers.DropoutStatic(scope, x, 0.1)
		}
		return graph.Add(graph.MatMul(x, wv), bv)
	}
	var err error
	m.step, err = NewStep(backend.MustNew(), m.store, opt, func(scope *model.Scope, in []*graph.Node) []*graph.Node {
		d := graph.Sub(predict(scope, in[0]), graph.Add(in[1], in[2]))
		mse := graph.ReduceAllMean(graph.Square(d))
		return []*graph.Node{mse, graph.Sqrt(mse)}
	})
	if err != nil {
		t.Fatal(err)
	}
	m.val, err = NewInferenceExec(backend.MustNew(), m.store, func(scope *model.Scope, in []*graph.Node) []*graph.Node {
		return []*graph.Node{graph.ReduceAllMean(graph.Square(graph.Sub(predict(scope, in[0]), in[1])))}
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func gather(rows [][]float32, idx []int) [][]float32 {
	out := make([][]float32, len(idx))
	for i, j := range idx {
		out[i] = rows[j]
	}
	return out
}

func (m *toy) task() Task[[]int] {
	return Task[[]int]{
		Store: m.store,
		Plan:  Shuffled(toyTrain, toyBatch),
		Terms: []string{"loss", "rmse"},
		Step: func(batch []int) ([]float64, error) {
			m.steps++
			if m.stepHook != nil {
				m.stepHook(m.steps)
			}
			jitter := float32(0.05 * m.rng.NormFloat64())
			outs, err := m.step.Run(gather(m.x, batch), gather(m.y, batch), jitter)
			if err != nil {
				return nil, err
			}
			defer FinalizeAll(outs)
			loss, rmse := float64(outs[0].Value().(float32)), float64(outs[1].Value().(float32))
			if m.steps == m.nanAt {
				loss = math.NaN()
			}
			return []float64{loss, rmse}, nil
		},
		Validate: func() (map[string]float64, error) {
			if m.scriptedMetric != nil {
				v := m.scriptedMetric[0]
				m.scriptedMetric = m.scriptedMetric[1:]
				return map[string]float64{"mse": v}, nil
			}
			outs, err := m.val.Exec(m.vx, m.vy)
			if err != nil {
				return nil, err
			}
			defer FinalizeAll(outs)
			return map[string]float64{"mse": float64(outs[0].Value().(float32))}, nil
		},
		Annotate: func(r *Record) (any, error) {
			return map[string]any{"bias": m.store.GetVariable("/linear/bias").MustValue().Value().([][]float32)[0][0]}, nil
		},
		Host: m.jitter,
	}
}

func toyConfig(dir string) Config {
	return Config{Epochs: 5, Seed: 11, Metric: "mse", Minimize: true, Dir: dir, Keep: 3, CheckpointEvery: 4, Quiet: true}
}

// runToy trains a new toy model on dir from scratch or from its checkpoint.
func runToy(t testing.TB, cfg Config) (*Result, *model.Store) {
	m := newToy(t)
	return m.run(t, cfg), m.store
}

func (m *toy) run(t testing.TB, cfg Config) *Result {
	loop, err := NewLoop(m.task(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	res, err := loop.Run()
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// sameRun fails unless two runs have the same records (times aside), end and weights, bit for bit.
func sameRun(t *testing.T, what string, a, b *Result, sa, sb *model.Store) {
	t.Helper()
	strip := func(rs []Record) []Record {
		out := slices.Clone(rs)
		for i := range out {
			out[i].Seconds, out[i].XLA = 0, nil // times, and what XLA compiled
		}
		return out
	}
	if !reflect.DeepEqual(strip(a.Records), strip(b.Records)) {
		t.Fatalf("%s: records differ:\n%+v\n%+v", what, strip(a.Records), strip(b.Records))
	}
	if a.Steps != b.Steps || a.Stopped != b.Stopped || a.Best.Step != b.Best.Step {
		t.Fatalf("%s: %d steps %q best %d vs %d steps %q best %d", what, a.Steps, a.Stopped, a.Best.Step, b.Steps, b.Stopped, b.Best.Step)
	}
	va, vb := variables(sa), variables(sb)
	if len(va) != len(vb) {
		t.Fatalf("%s: %d variables vs %d", what, len(va), len(vb))
	}
	for path, x := range va {
		if !bytes.Equal(x, vb[path]) {
			t.Fatalf("%s: variable %s differs", what, path)
		}
	}
}

func variables(s *model.Store) map[string][]byte {
	out := map[string][]byte{}
	for v := range s.IterVariables() {
		v.MustValue().ConstBytes(func(b []byte) { out[v.Path()] = slices.Clone(b) })
	}
	return out
}

// A run in a directory and a run in memory train the same weights, and the store ends with the
// best validation's weights (the best record's Annotate value is its bias).
func TestLoopTrainsAndKeepsBest(t *testing.T) {
	dir := t.TempDir()
	withDir, sd := runToy(t, toyConfig(dir))
	inMemory, sm := runToy(t, toyConfig(""))
	sameRun(t, "directory vs memory", withDir, inMemory, sd, sm)
	if n := len(withDir.Records); n != 5 || withDir.Steps != 30 || withDir.Stopped != "completed 5 epochs" {
		t.Fatalf("%d records, %d steps, %q", n, withDir.Steps, withDir.Stopped)
	}
	first, last := withDir.Records[0], withDir.Records[4]
	if !(last.Val["mse"] < first.Val["mse"]) || !(last.Loss < first.Loss) {
		t.Fatalf("no learning: val mse %v → %v, loss %v → %v", first.Val["mse"], last.Val["mse"], first.Loss, last.Loss)
	}
	var extra struct{ Bias float32 }
	if err := json.Unmarshal(withDir.Best.Extra, &extra); err != nil {
		t.Fatal(err)
	}
	if got := sd.GetVariable("/linear/bias").MustValue().Value().([][]float32)[0][0]; got != extra.Bias {
		t.Fatalf("store bias %v, the best record's %v", got, extra.Bias)
	}
	best, err := LoadStore(filepath.Join(dir, BestDir))
	if err != nil {
		t.Fatal(err)
	}
	if got := best.GetVariable("/linear/bias").MustValue().Value().([][]float32)[0][0]; got != extra.Bias {
		t.Fatalf("best checkpoint bias %v, the best record's %v", got, extra.Bias)
	}
	// The history file is the records, flat; the plot file has GoMLX's Point fields only.
	var hist []map[string]any
	b, _ := os.ReadFile(filepath.Join(dir, HistoryFile))
	if err := json.Unmarshal(b, &hist); err != nil || len(hist) != 5 || hist[4]["rmse"] == nil || hist[4]["bias"] == nil || hist[4]["step"] != 30.0 {
		t.Fatalf("history.json: %v %v", err, hist)
	}
	dec := json.NewDecoder(bytes.NewReader(must(os.ReadFile(filepath.Join(dir, PlotFile)))))
	dec.DisallowUnknownFields()
	n := 0
	for ; dec.More(); n++ {
		var p struct { // GoMLX ui/plot.Point
			MetricName, Short, MetricType string
			Step, Value                   float64
		}
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
	}
	if n != 5*3 { // loss, rmse, validation mse per record
		t.Fatalf("%d plot points, want 15", n)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// TestLoopEarlyStopping feeds scripted validation values: with patience 2 the run stops at the
// second validation without improvement, and the store holds the weights of the best one.
func TestLoopEarlyStopping(t *testing.T) {
	for _, dir := range []string{t.TempDir(), ""} {
		m := newToy(t)
		m.scriptedMetric = []float64{3, 1, 2, 1, 0.5}
		cfg := toyConfig(dir)
		cfg.Patience = 2
		res := m.run(t, cfg)
		if len(res.Records) != 4 || res.Best != &res.Records[1] || !strings.HasPrefix(res.Stopped, "early stop at step 24") {
			t.Fatalf("dir %q: %d records, best %+v, %q", dir, len(res.Records), res.Best, res.Stopped)
		}
		var extra struct{ Bias float32 }
		json.Unmarshal(res.Best.Extra, &extra)
		if got := m.store.GetVariable("/linear/bias").MustValue().Value().([][]float32)[0][0]; got != extra.Bias {
			t.Fatalf("dir %q: store bias %v, the best record's %v", dir, got, extra.Bias)
		}
		if dir != "" { // an early-stopped run does not train again, even with more epochs
			cfg.Epochs = 10
			m2 := newToy(t)
			if res2 := m2.run(t, cfg); m2.steps != 0 || res2.Stopped != res.Stopped {
				t.Fatalf("resumed early-stopped run: %d steps, %q", m2.steps, res2.Stopped)
			}
		}
	}
}

// TestLoopStopsOnNaN: a NaN loss stops training with an error naming the step and the value; the
// directory's last checkpoint is from before it.
func TestLoopStopsOnNaN(t *testing.T) {
	dir := t.TempDir()
	m := newToy(t)
	m.nanAt = 10
	loop, err := NewLoop(m.task(), toyConfig(dir))
	if err != nil {
		t.Fatal(err)
	}
	_, err = loop.Run()
	var nf *NonFiniteError
	if !errors.As(err, &nf) || nf.Step != 10 || nf.Epoch != 2 || nf.Batch != 4 || !strings.Contains(err.Error(), "loss is NaN at step 10 (epoch 2, batch 4 of 6)") {
		t.Fatalf("got %v", err)
	}
	names, _ := list(dir)
	if !strings.HasSuffix(names[len(names)-1], "-step-00000008") {
		t.Fatalf("newest checkpoint %s, want step 8", names[len(names)-1])
	}
}

// TestCheckpointFallback damages the newest checkpoint of a finished run (a 0-byte .json, or a
// truncated .bin): opening the directory moves it aside and loads the previous one, and the
// resumed run ends exactly as the undamaged one.
func TestCheckpointFallback(t *testing.T) {
	ref, refStore := runToy(t, toyConfig(t.TempDir()))
	for _, damage := range []string{"empty json", "truncated bin"} {
		t.Run(damage, func(t *testing.T) {
			dir := t.TempDir()
			cfg := toyConfig(dir)
			cfg.Epochs = 4 // checkpoints at steps 16, 20, 24; then 4 → 5 epochs resumes
			runToy(t, cfg)
			names, _ := list(dir)
			newest := filepath.Join(dir, names[len(names)-1])
			if damage == "empty json" {
				os.WriteFile(newest+".json", nil, 0o644)
			} else {
				b, _ := os.ReadFile(newest + ".bin")
				os.WriteFile(newest+".bin", b[:len(b)/2], 0o644)
			}
			m := newToy(t)
			loop, err := NewLoop(m.task(), toyConfig(dir))
			if err != nil {
				t.Fatal(err)
			}
			if loop.Step() != 20 || len(loop.notes) != 1 || !strings.Contains(loop.notes[0], "moved aside") {
				t.Fatalf("resumed at step %d, notes %q", loop.Step(), loop.notes)
			}
			if _, err := os.Stat(newest + ".json" + BrokenSuffix); err != nil {
				t.Fatal(err)
			}
			res, err := loop.Run()
			if err != nil {
				t.Fatal(err)
			}
			sameRun(t, damage, ref, res, refStore, m.store)
		})
	}
}

// TestLoadIntoSeededStore: loading a checkpoint overwrites variables the store already has (GoMLX's
// Config.Immediate would keep a seeded store's initial random state).
func TestLoadIntoSeededStore(t *testing.T) {
	dir := t.TempDir()
	saved := model.NewStore()
	saved.SetRNGStateFromSeed(1)
	saved.RootScope().VariableWithValue("w", []float32{5, 6})
	h, _ := checkpoint.Build(saved).Dir(dir).Done()
	if err := h.Save(); err != nil {
		t.Fatal(err)
	}
	s := model.NewStore()
	s.SetRNGStateFromSeed(2)
	s.RootScope().VariableWithValue("w", []float32{1, 2})
	if err := load(s, dir); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(variables(s), variables(saved)) {
		t.Fatal("loaded store differs from the saved one")
	}
	if rng := s.GetVariable("/" + model.RNGStateVariableName); rng.Trainable {
		t.Fatal("the random state must not be trainable after loading")
	}
}

// Kill points of TestResumeAfterKill: a step after several checkpoints, and every stage of a save.
var killPoints = []struct{ name, point string }{
	{"during step 14", "step:14"},
	{"save staged, nothing renamed", "staged:3"},
	{"checkpoint .bin renamed, .json not", "renamed.bin:3"},
	{"record checkpoint complete, history.json not written", "saved:2"},
	{"best checkpoint written, checkpoint not", "renamed.json:5"},
}

const killEnv = "GEOALIGN_TRAIN_KILL"

// TestResumeAfterKill trains the toy model in a child process (this test binary re-executed) that
// blocks at a kill point; the parent kills it with SIGKILL there, resumes the run from its
// directory, and compares the final records and every variable, bit for bit, with an
// uninterrupted run.
func TestResumeAfterKill(t *testing.T) {
	if spec := os.Getenv(killEnv); spec != "" {
		killChild(t, spec)
		return
	}
	ref, refStore := runToy(t, toyConfig(t.TempDir()))
	for _, kp := range killPoints {
		t.Run(kp.name, func(t *testing.T) {
			dir := t.TempDir()
			marker := filepath.Join(t.TempDir(), "blocked")
			cmd := exec.Command(os.Args[0], "-test.run=^TestResumeAfterKill$")
			cmd.Env = append(os.Environ(), killEnv+"="+kp.point+"|"+dir+"|"+marker)
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			for deadline := time.Now().Add(5 * time.Minute); ; time.Sleep(20 * time.Millisecond) {
				if _, err := os.Stat(marker); err == nil {
					break
				}
				select {
				case err := <-exited:
					t.Fatalf("the child ended (%v) before reaching %s:\n%s", err, kp.point, out.String())
				default:
				}
				if time.Now().After(deadline) {
					cmd.Process.Kill()
					t.Fatalf("the child did not reach %s:\n%s", kp.point, out.String())
				}
			}
			if err := cmd.Process.Kill(); err != nil { // SIGKILL
				t.Fatal(err)
			}
			<-exited
			m := newToy(t)
			loop, err := NewLoop(m.task(), toyConfig(dir))
			if err != nil {
				t.Fatal(err)
			}
			if loop.Step() == 0 {
				t.Fatalf("nothing to resume from")
			}
			var hist []map[string]any
			if err := json.Unmarshal(must(os.ReadFile(filepath.Join(dir, HistoryFile))), &hist); err != nil || len(hist) != len(loop.Records()) {
				t.Fatalf("history.json after resuming: %v, %d records, the checkpoint %d", err, len(hist), len(loop.Records()))
			}
			res, err := loop.Run()
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("killed at %s, resumed from step %d (notes %q)", kp.point, res.ResumedAt, res.Notes)
			sameRun(t, kp.name, ref, res, refStore, m.store)
			if err := json.Unmarshal(must(os.ReadFile(filepath.Join(dir, HistoryFile))), &hist); err != nil || len(hist) != len(ref.Records) {
				t.Fatalf("history.json: %v, %d records", err, len(hist))
			}
		})
	}
}

// killChild trains as TestResumeAfterKill's child: at the kill point ("name:n", the n-th time the
// point is reached) it creates the marker file and waits to be killed.
func killChild(t *testing.T, spec string) {
	parts := strings.Split(spec, "|")
	name, nth, _ := strings.Cut(parts[0], ":")
	n, _ := strconv.Atoi(nth)
	block := func() {
		os.WriteFile(parts[2], nil, 0o644)
		for {
			time.Sleep(time.Hour)
		}
	}
	seen := 0
	crashPoint = func(point string) {
		if point == name {
			if seen++; seen == n {
				block()
			}
		}
	}
	m := newToy(t)
	if name == "step" {
		m.stepHook = func(step int) {
			if step == n {
				block()
			}
		}
	}
	loop, err := NewLoop(m.task(), toyConfig(parts[1]))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := loop.Run(); err != nil {
		t.Fatal(err)
	}
	fmt.Println("the child finished without reaching its kill point")
}

func TestShuffled(t *testing.T) {
	plan := Shuffled(10, 3)
	b, err := plan(0, rand.New(rand.NewPCG(1, 2)))
	if err != nil || len(b) != 3 {
		t.Fatalf("%v %v", b, err)
	}
	seen := map[int]bool{}
	for _, batch := range b {
		for _, i := range batch {
			if seen[i] || i < 0 || i >= 10 {
				t.Fatalf("index %d repeated or out of range in %v", i, b)
			}
			seen[i] = true
		}
	}
	if _, err := Shuffled(2, 3)(0, rand.New(rand.NewPCG(1, 2))); err == nil {
		t.Fatal("2 examples make no batch of 3")
	}
}
