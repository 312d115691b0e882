#!/usr/bin/env bash
# kernel/gpu-check.sh — `make gpu-check`: geoalign on an NVIDIA GPU through XLA's CUDA PJRT plugin.
#
# 1. Exits 2 on a machine without an NVIDIA GPU (nvidia-smi must list one).
# 2. Installs the pinned CUDA plugin and the NVIDIA libraries it needs from PyPI
#    (kernel/pjrt/cuda.txt, every wheel sha256-checked) into build/pjrt/cuda (pip --target: never
#    into a Python), once.
# 3. Runs the backend-equivalence tests (lib/parity: every model, Go backend vs this plugin) and
#    lib/train's data-parallel test on the GPU's devices.
# 4. Times one paper-scale HLFormer training step and one GARE step (their paired benchmarks) and
#    samples the device memory in use meanwhile.
# 5. Writes figures/gpu-check.md (device, driver, plugin, commit, results, times, peak memory).
# docs/xla.md §4 says what was run where.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v nvidia-smi >/dev/null 2>&1 || ! gpus=$(nvidia-smi -L 2>/dev/null) || [ -z "$gpus" ]; then
  echo "gpu-check: no NVIDIA GPU on this machine (nvidia-smi is missing or lists none): make gpu-check runs only where one is" >&2
  exit 2
fi

dest=build/pjrt/cuda
stamp="$dest/.installed-$(sha256sum kernel/pjrt/cuda.txt | cut -c1-16)"
if [ ! -f "$stamp" ]; then
  rm -rf "$dest"
  python3 -m pip install --quiet --no-deps --require-hashes --only-binary=:all: --target "$dest" -r kernel/pjrt/cuda.txt
  touch "$stamp"
fi
plugin=$(ls "$PWD/$dest"/jax_plugins/xla_cuda12/xla_cuda_plugin.so)
export GOMLX_BACKEND="xla:$plugin" GOMLX_NO_AUTO_INSTALL=1
# XLA finds ptxas and libdevice in the nvidia-cuda-nvcc wheel.
export XLA_FLAGS="${XLA_FLAGS:+$XLA_FLAGS }--xla_gpu_cuda_data_dir=$PWD/$dest/nvidia/cuda_nvcc"

out=build/gpu-check; mkdir -p "$out"
go run ./lib/cmd/geoalign version --json > "$out/version.json"

# Peak device memory: sampled every 0.5 s while the tests and benchmarks run.
(while true; do nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits; sleep 0.5; done) > "$out/memory.txt" 2>/dev/null &
sampler=$!
trap 'kill $sampler 2>/dev/null || true' EXIT

tests=ok
GEOALIGN_PARITY_BACKEND="$GOMLX_BACKEND" go test -count=1 -v ./lib/parity/ > "$out/parity.txt" 2>&1 || tests=FAILED
go test -count=1 -v -run 'Distribute' ./lib/train/ > "$out/distribute.txt" 2>&1 || tests=FAILED
HLFORMER_BENCH_VIDEOS=128 go test -run '^$' -bench 'BenchmarkPairedHLFormerTrainStep' -benchtime 3x ./lib/models/hlformer/ > "$out/hlformer-step.txt" 2>&1 || tests=FAILED
go test -run '^$' -bench 'BenchmarkPairedGareTrainStep' -benchtime 3x ./lib/models/gare/ > "$out/gare-step.txt" 2>&1 || tests=FAILED
kill $sampler 2>/dev/null || true

peak=$(sort -n "$out/memory.txt" | tail -n 1)
nsop() { awk '/^Benchmark/ { for (i = 1; i <= NF; i++) if ($(i+1) == "ns/op") printf "%.3f s", $i / 1e9 }' "$1"; }
{
  echo "# GPU check"
  echo
  echo "Written by \`make gpu-check\` (kernel/gpu-check.sh) on $(date -u +%Y-%m-%dT%H:%MZ) at commit $(git rev-parse --short HEAD)$(git diff --quiet || echo +dirty)."
  echo
  echo "| what | value |"
  echo "|---|---|"
  echo "| device | $(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1) |"
  echo "| driver | $(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -n 1) |"
  echo "| plugin | $(grep -o 'jax-cuda12-pjrt==[^ ]*' kernel/pjrt/cuda.txt) ($plugin) |"
  echo "| PJRT (geoalign version) | $(python3 -c 'import json,sys; p=json.load(open(sys.argv[1])).get("pjrt",{}); print("C API", p.get("api_version"), "platform", p.get("platform"), p.get("platform_version"), p.get("devices"), "device(s)")' "$out/version.json") |"
  echo "| equivalence tests (lib/parity, Go backend vs the GPU) and data-parallel test | $tests (logs under build/gpu-check/) |"
  echo "| paper-scale HLFormer training step (BenchmarkPairedHLFormerTrainStep, 128 videos) | $(nsop "$out/hlformer-step.txt") |"
  echo "| GARE training step (BenchmarkPairedGareTrainStep, 128 × 128) | $(nsop "$out/gare-step.txt") |"
  echo "| peak device memory in use while they ran (nvidia-smi, 0.5 s samples) | ${peak:-?} MiB |"
  echo
  echo "Equivalence tolerances and what each test compares: lib/parity/doc.go."
} > figures/gpu-check.md
cat figures/gpu-check.md
[ "$tests" = ok ]
