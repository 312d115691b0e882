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
//
// # Where XLA-CPU is slower than the fastest peer (2026-11-26, the AVX2-only EPYC of figures/bench.md)
//
// XLA-CPU is geoalign's faster backend on every row below 1.0× in figures/bench.md; the question is
// what XLA does with our graph that PyTorch 2 or JAX does not. Method: the optimized HLO
// (XLA_FLAGS="--xla_dump_to=DIR --xla_dump_hlo_as_text", the *.cpu_after_optimizations.txt files) of
// our benchmark beside the JAX twin's, and timed variants of the graph in one process on the plugin.
//
//   - MatMul1024: our graph and the JAX twin compile to the same single __ynn_fusion (XNNPACK's dot)
//     with identical debug options; neither the plugin's 4 virtual CPU devices (a 2-device client: no
//     change), nor transfers (device-resident inputs: no change), nor per-call overhead (13–17 µs)
//     explains the 0.85×: it is within the peers' own run-to-run spread (JAX 13.1 and 16.3 ms in two
//     runs on this host).
//   - TransformerBlock: our optimized HLO is JAX's — the same YNN fusions for the projections and MLP
//     (LayerNorm fused into them), the same 12 weight-gradient dots with a transposed left operand —
//     plus 2 batched dots of the attention's backward pass that GoMLX's Einsum gradient lays out as
//     [B, H, hd, S] (16 plain dots against JAX's 14). Timed in one process (median of 3, 5 steps each,
//     a SCHED_IDLE job beside it): our step 1.05 s, the JAX twin 1.02 s. The transposed-operand dots
//     are not the cost: [4096, 384]ᵀ @ [4096, 1536] runs at 137–142 GFLOP/s, an explicit transpose
//     first 135–138, the untransposed product 127–147. What separates XLA from PyTorch 2 (0.70 s,
//     oneDNN) is the work around the matmuls: the 88.2 nominal GFLOP take 0.63 s at 140 GFLOP/s;
//     without the two attention products and their softmax the step takes 0.83 s (they are 1.4 % of
//     the FLOPs but ≈ 0.22 s: 768 batched 32 × 32 × 64 products per einsum), without the softmax
//     alone 0.95 s, with ReLU instead of the exact (erf) GELU 0.99 s; the forward pass is 0.36 s.
//     Nothing here is ours to change without changing the workload the twins compute: it is XLA:CPU's
//     code for small batched dots and element-wise passes, and JAX inherits it (0.70× PyTorch 2 too).
//   - GareTrainStep (0.87×): that row times the memory-bounded chunked step (gare.DefaultTextChunk =
//     16 texts per chunk, the text side recomputed per chunk), an option; GARE's default step, the
//     single graph that trained every committed GARE result, is the next row, 1.62× the fastest peer.
//     On XLA-CPU, in one run (the same SCHED_IDLE job beside it; peak RSS of the test process): chunk
//     16 3.8–4.0 s at 1.17 GB, 32 3.2–3.4 s at 1.32 GB, 64 2.9–3.1 s at 1.32 GB, the single graph
//     2.0–2.2 s at 1.69 GB (PyTorch 2: 3.34 s at 1.63 GB). The chunk stays 16: it is the memory
//     bound the option exists for, and time is what the single graph is for.
//   - HLFormerEval (0.94×): timed by phase at half the row's size (667 videos, 1,860 queries), the
//     second of two repetitions in one process each, the same idle job beside them: XLA-CPU encodes
//     videos and queries in 32 s and scores in 4–6 s; the PyTorch 2 twin encodes in 39 s (videos 36.9,
//     queries 2.2) and scores, reads and ranks in 2.3 s. Encoding, 85–95 % of either side, is faster
//     on ours; scoring is slower: 84 video chunks × 30 query chunks of 8 videos × 64 queries are about
//     2,500 executions of a small graph (hlformer.EvalVideoChunk, EvalQueryChunk, sized for the Go
//     backend's memory), against PyTorch's 6 × 8 blocks of 128 videos × 256 queries. 32 videos per
//     chunk instead of 8 changed nothing on XLA-CPU (encode 31.9 s, score 4.1 s; 1.54 GB against 1.19
//     GB peak RSS). At this size ours is 1.0–1.1× the twin, so the row's 0.94× (one repetition per
//     side at 1,334 videos) is within run-to-run noise; scoring every query of a video chunk in one
//     execution would save the remaining seconds.
package bench
