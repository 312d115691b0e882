// Package seedrand makes a model's initial weights a function of the run's seed and each variable's
// scope alone, so that one configuration and seed start from the same weights on the pure-Go backend,
// XLA-CPU and a GPU, whatever order a step layout creates the variables in (HLFormer's chunked and
// single-graph steps) and however many devices run it (docs/xla.md §5 says what is and is not
// identical across backends).
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
// A store that NewStore did not make draws as seed 0.
package seedrand
