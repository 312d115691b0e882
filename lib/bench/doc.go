// Package bench holds the backend-level paired benchmarks of `make bench` and the runner's
// conventions. Workload benchmarks live next to the code they measure (lib/geom,
// lib/retrieval, lib/models/..., named BenchmarkPaired<Name>); this package adds the two
// reference workloads of docs/toolchain.md §3:
//
//   - MatMul1024: one 1024×1024 @ 1024×1024 float32 matmul (2.15 GFLOP), the peak probe;
//   - TransformerBlock: a training step (forward + backward) of 2 pre-LN transformer layers,
//     B=128, S=32, D=384, 6 heads, MLP 4×, exact GELU, MSE loss (≈88 GFLOP).
//
// Every paired benchmark has twins: lib/bench/torch/<Name>.py (run on PyTorch 2 from the venv that the
// first `make bench` makes in build/bench-venv from requirements.txt, exact versions and sha256 of every
// wheel, and on Debian's python3-torch 1.13) and lib/bench/jax/<Name>.py (jit-compiled, outputs waited
// for with block_until_ready). The runner (run.py, `make bench`) executes every Go benchmark in its own
// process (peak RSS from /usr/bin/time) once per geoalign backend — GOMLX_BACKEND=go, and XLA-CPU through
// the PJRT plugin of `make setup` (BENCH_XLA_BACKEND; a missing or failing plugin makes that column
// "not run: <reason>", lib/bench/backendinfo checks it loads) — and lib/bench's reference workloads once
// without SIMD; every process runs on BENCH_THREADS CPUs (affinity) with that many threads. Before timing, a
// check pass runs the benchmarks that take plain inputs with $BENCH_CHECK_DIR set: they write their inputs
// and one output (check.go, Dump), every twin recomputes from the same inputs and compares, and XLA-CPU's
// output is compared with the Go backend's. The table (figures/bench.md) gives each side's time and peak
// RSS, the ratio of geoalign's faster backend to the fastest current peer (PyTorch 2 or JAX), the fraction
// of the measured matmul peak per side on the matmul-bound rows, and who agrees in the check pass; then the
// streaming-evaluation curve and issue 11's table against the official code, re-timed on PyTorch 2 by
// lib/bench/official (the official GRAM, GARE and HLFormer code imported from its pinned checkouts under
// build/official, lib/crosscheck/README.md). The run's measurements are kept in figures/bench.json;
// `run.py --render-only` re-renders the table from them without measuring, and `run.py --quick` is a smoke
// run of the whole harness (reduced sizes, one repetition) that writes build/bench/quick.md only.
//
// `make profile` (profile_ops.py) runs the heavy benchmarks once under the Go CPU profiler and writes
// figures/profile.md: for each, the share of the backend's execution time per op family of GoMLX's
// Go backend (matmul micro-kernels, packing, transposes, element-wise ops, fused dense, RNG, ...),
// plus the Go collector and the time outside the backend.
//
// # What the profiles show (figures/profile.md, 2026-11-23, an AVX2-only EPYC host)
//
//   - Every heavy workload is matmul-bound: the matmul micro-kernels take 51–74 % of the execution
//     time (HLFormer evaluation 74 %, GARE 57–64 %, HLFormer training step 52 %) and packing another
//     4–7 %. Their speed is the Go backend's DotGeneral speed. With AVX-512 (the Zen 4 of make bench,
//     figures/bench.md) the 1024³ matmul reached 72 % of the measured peak (167 of 230 GFLOP/s). On the
//     AVX2-only host of figures/bench-avx2.md the float32 kernel is 4 rows × 16 columns (8 accumulator
//     registers) and gives 34 GFLOP/s on one thread against OpenBLAS's 68; a second thread adds
//     nothing to either (Go 33, OpenBLAS 63 GFLOP/s: that host's two vCPUs share one core's FMA
//     units), so every matmul-bound row runs at about half PyTorch's speed there. Upstream change: a
//     6 × 16 AVX2 float32 micro-kernel (12 accumulators, as BLIS and OpenBLAS use on Haswell and Zen).
//   - Transposes are the next cost: 25 % of the reference transformer step, 9–15 % of GARE. The Go
//     backend's DotGeneral wants its operands as [batch, cross, contracting] and materialises a
//     transposed copy otherwise (ops.execTranspose), and FusedDenseVJP transposes its 2-D weight on
//     every call (dense.transpose2D). Upstream change: read strided operands in the matmul's packing
//     step, which copies every panel anyway, so the transpose would cost nothing. In our graphs the
//     workaround is to keep tensors in the layout the next contraction wants.
//   - The HLFormer training step spends 7 % on dropout masks: the Go backend's RNGBitGenerator fills
//     its output one byte at a time from one PCG stream on one core. Upstream change: write whole
//     64-bit words and split the buffer over the worker pool with a counter-based generator (Philox,
//     as XLA does). It spends 9 % on element-wise binary ops, partly on the backend's generic
//     (non-SIMD) broadcasting path. Upstream change: SIMD broadcasting kernels, or element-wise
//     fusion (XLA fuses; the Go backend runs one op at a time, one memory pass each).
//   - The Go collector is below 1 % everywhere once the blocked steps release buffers between stages
//     (lib/train.ReleaseStageBuffers); nothing outside the backend (graph building, glue) exceeds 3 %.
package bench
