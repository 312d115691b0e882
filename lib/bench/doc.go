// Package bench holds the backend-level paired benchmarks of `make bench` and the runner's
// conventions. Workload benchmarks live next to the code they measure (lib/geom,
// lib/retrieval, lib/models/..., named BenchmarkPaired<Name>); this package adds the two
// reference workloads of ../shared/research/toolchain.md §3:
//
//   - MatMul1024: one 1024×1024 @ 1024×1024 float32 matmul (2.15 GFLOP), the peak probe;
//   - TransformerBlock: a training step (forward + backward) of 2 pre-LN transformer layers,
//     B=128, S=32, D=384, 6 heads, MLP 4×, exact GELU, MSE loss (≈88 GFLOP).
//
// Each has a PyTorch twin in torch/<Name>.py that prints one go-bench line. The runner
// (run.py, `make bench`) executes every Go benchmark in its own process (peak RSS from
// /usr/bin/time), once with GOEXPERIMENT=simd and, for this package, once without, runs the
// torch twins with 2 threads, and writes the paired table to figures/bench.md.
package bench
