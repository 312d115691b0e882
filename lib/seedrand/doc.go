// Package seedrand makes every random draw of a training run a function of the run's seed alone —
// the initial weights, the dropout masks and the negatives sampled inside the graphs — so that one
// configuration and seed give the same bits on the pure-Go backend, XLA-CPU and a GPU, whatever order
// a step layout creates the variables in (HLFormer's chunked and single-graph steps) and however many
// devices run it (docs/xla.md §6 says what is identical across backends, devices and CPUs).
//
// GoMLX's own initializers draw from the store's random state with the backend's generator (PCG on
// the Go backend, Philox on XLA), in the order the variables are created. Here every random variable
// is drawn on the host instead, from a ChaCha8 stream (math/rand/v2) keyed by
// sha256(seed, scope path, shape), and enters the initialization graph as a constant:
//
//	store := seedrand.NewStore(seed)
//	w := seedrand.Normal(scope, 0.02).VariableWithShape("weights", shapes.Make(dtypes.Float32, in, out))
//	h := layers.DenseWithBias(seedrand.He(scope), x, hidden) // GoMLX's default initializer, keyed
//
// Inside a training graph, draws come from a counter-based generator written in uint32 graph ops,
// which every backend evaluates identically (graph.go): Uniform replaces graph.RandomUniform on a state
// of the same layout, StepState keys a state by the seed, the drawing site and the global step, and
// Dropout keys each element by its index in the whole batch (SetExampleBlock, for steps that run a
// batch a block at a time).
//
// A store that NewStore did not make draws as seed 0.
package seedrand
