package train

import (
	"fmt"

	"github.com/gomlx/compute"
	"github.com/gomlx/compute/distributed"
	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/core/tensors/dtensor"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/gomlx/gomlx/ml/train/optimizer"
)

// LossFn builds a model's training objective from a batch: it returns the scalar loss first,
// followed by any auxiliary outputs the caller wants back (e.g. the learned α, a temperature).
type LossFn func(scope *model.Scope, inputs []*graph.Node) []*graph.Node

// Step is a compiled training step: loss, gradients and optimizer update in one executable per
// input shape (GoMLX caches them, so fixed batch shapes compile once).
type Step struct {
	backend compute.Backend
	store   *model.Store
	exec    *model.Exec
	mesh    *distributed.DeviceMesh // set by Distribute: the devices the batch is split over
}

// NewStep compiles lazily (at the first Run) the step of fn under opt on the store's variables.
// Dropout and other training-only behaviour see Store.IsTraining(g) = true.
func NewStep(backend compute.Backend, store *model.Store, opt optimizer.Interface, fn LossFn) (*Step, error) {
	exec, err := model.NewExec(backend, store, func(scope *model.Scope, inputs []*graph.Node) []*graph.Node {
		g := inputs[0].Graph()
		store.SetTraining(g, true)
		outs := fn(scope, inputs)
		if len(outs) == 0 || !outs[0].Shape().IsScalar() {
			panic("train.Step: the loss function must return the scalar loss first")
		}
		opt.UpdateGraph(scope, g, outs[0])
		return outs
	})
	if err != nil {
		return nil, fmt.Errorf("train: building step: %w", err)
	}
	return &Step{backend: backend, store: store, exec: exec}, nil
}

// BatchAxis names the one axis of the device mesh of a data-parallel step (Distribute).
const BatchAxis = "batch"

// Distribute makes the step data-parallel over the backend's first n devices (n ≤ 1: one device,
// as built). The step stays one program of the global batch: XLA partitions it (GoMLX's
// AutoSharding, XLA's Shardy partitioner) with every input of rank ≥ 1 whose leading axis n divides
// split along that axis, the variables and the outputs replicated, and it inserts the collectives
// (the all-reduce of the gradients, the all-gathers a contrastive loss needs to compare every text
// with every video) itself. So the loss, the gradients and the update are those of the global batch
// on one device, up to the order of floating-point sums. The Go backend has one device: it fails here.
// Call it before the first Run.
func (s *Step) Distribute(n int) error {
	if n <= 1 {
		return nil
	}
	if have := s.backend.NumDevices(); have < n {
		return fmt.Errorf("train: %d devices asked for, backend %s has %d (the XLA backend has several: "+
			"GOMLX_BACKEND=xla:…; docs/xla.md)", n, s.backend.Name(), have)
	}
	mesh, err := distributed.NewDeviceMesh([]int{n}, []string{BatchAxis})
	if err != nil {
		return fmt.Errorf("train: device mesh of %d: %w", n, err)
	}
	replicated := distributed.NewReplicatedShardingSpec(mesh)
	s.exec.AutoSharding(mesh).WithOutputShardingSpecs(replicated)
	if err := s.exec.SetDefaultShardingSpec(replicated); err != nil {
		return fmt.Errorf("train: replicating the variables over %d devices: %w", n, err)
	}
	// Variables created before this call replicate too. GoMLX v0.28.16 creates the store's RNG state
	// variable without a back-pointer to its store, so a graph reading it (dropout, HLFormer's random
	// triplet negatives) under AutoSharding dereferences nil in Variable.paramNode unless the
	// variable already has its sharding spec.
	for v := range s.store.IterVariables() {
		if v.ShardingSpec() == nil {
			if err := v.SetShardingSpec(replicated); err != nil {
				return fmt.Errorf("train: replicating %s over %d devices: %w", v.Path(), n, err)
			}
		}
	}
	s.mesh = mesh
	return nil
}

// Devices is the number of devices a step runs on (Distribute).
func (s *Step) Devices() int {
	if s.mesh == nil {
		return 1
	}
	return s.mesh.NumDevices()
}

// Run executes one step on a batch and returns the loss and the auxiliary outputs.
func (s *Step) Run(inputs ...any) ([]*tensors.Tensor, error) {
	if s.mesh == nil {
		return s.exec.Exec(inputs...)
	}
	args, specs, err := s.shard(inputs)
	if err != nil {
		return nil, err
	}
	// The specs are a function of the inputs' shapes only, and GoMLX caches one program per shape.
	s.exec.WithInputShardingSpecs(specs...)
	outs, err := s.exec.DistributedExec(args...)
	if err != nil {
		return nil, err
	}
	local := make([]*tensors.Tensor, len(outs))
	for i, o := range outs { // replicated: every device holds the whole output
		if got := len(o.Shards()); got != s.mesh.NumDevices() {
			return nil, fmt.Errorf("train: output %d came back from %d devices, want %d", i, got, s.mesh.NumDevices())
		}
		if local[i], err = o.Shards()[0].LocalClone(); err != nil {
			return nil, err
		}
		if err = o.Finalize(); err != nil {
			return nil, err
		}
	}
	return local, nil
}

// shard splits each input of a data-parallel step along its leading axis over the mesh, or
// replicates it (scalars, and leading axes the mesh size does not divide).
func (s *Step) shard(inputs []any) ([]any, []*distributed.ShardingSpec, error) {
	n := s.mesh.NumDevices()
	split, err := distributed.BuildSpec(s.mesh).S(BatchAxis).Done()
	if err != nil {
		return nil, nil, err
	}
	replicated := distributed.NewReplicatedShardingSpec(s.mesh)
	args, specs := make([]any, len(inputs)), make([]*distributed.ShardingSpec, len(inputs))
	for i, in := range inputs {
		t, ok := in.(*tensors.Tensor)
		if !ok {
			if t, err = tensors.FromAnyValue(in); err != nil {
				return nil, nil, fmt.Errorf("train: input %d: %w", i, err)
			}
		}
		specs[i] = replicated
		if t.Rank() >= 1 && t.Shape().Dimensions[0]%n == 0 {
			specs[i] = split
		}
		if args[i], err = dtensor.ShardTensor(specs[i], t); err != nil {
			return nil, nil, fmt.Errorf("train: input %d %s over %d devices: %w", i, t.Shape(), n, err)
		}
	}
	return args, specs, nil
}

// GlobalStep is the number of optimizer steps the store has taken (0 for a fresh model).
func GlobalStep(store *model.Store) int64 { return optimizer.GetGlobalStep(store) }
