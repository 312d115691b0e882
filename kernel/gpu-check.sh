#!/usr/bin/env bash
# kernel/gpu-check.sh — `make gpu-check`: geoalign on an NVIDIA GPU through XLA's CUDA PJRT plugin.
#
# 1. Exits 2 on a machine without an NVIDIA GPU (nvidia-smi must list one).
# 2. Installs the pinned CUDA plugin and the NVIDIA libraries it needs from PyPI
#    (kernel/pjrt/cuda.txt, every wheel sha256-checked) into build/pjrt/cuda (pip --target: never
#    into a Python), once — or takes the plugin named by GPU_CHECK_PLUGIN (below).
# 3. Runs the backend-equivalence tests (lib/parity: every model, Go backend vs this plugin, TF32
#    off so that float32 matmuls are float32) and lib/train's data-parallel test on the GPU's devices.
# 4. Times one paper-scale HLFormer training step and one GARE step (their paired benchmarks), each
#    with the chunked step (the default) and the single graph, with XLA's GPU default (TF32 on),
#    and samples the device memory in use meanwhile.
# 5. Runs the equivalence tests again with TF32 on, for information (their differences are logged;
#    this step does not fail the check).
# 6. Writes figures/gpu-check.md (device, driver, plugin, commit, one row per step: result, wall
#    time, step time, peak device memory) and keeps every log under build/gpu-check/.
# docs/xla.md §4 says what was run where.
#
# Environment, all optional:
#   GPU_CHECK_PLUGIN   a CUDA PJRT plugin already installed, e.g. the jax_plugins/xla_cuda13/
#                      xla_cuda_plugin.so of a JAX installation (its RPATH finds the NVIDIA libraries
#                      of that installation): used instead of installing kernel/pjrt/cuda.txt, for a
#                      machine that cannot reach PyPI. The report names its distribution and version.
#   GPU_CHECK_BIN      a folder holding the programs `make gpu-check-bin` builds (geoalign and the test
#                      binaries parity.test, train.test, hlformer.test, gare.test, possibly .xz-compressed):
#                      for a machine without Go. Default: they are built here with go test -c.
#   GPU_CHECK_COMMIT   the commit to report where the checkout has no .git.
#   GPU_CHECK_STEPS    the steps to run, space-separated (default: all, in the order below: parity
#                      distribute bench-hlformer-chunked bench-gare-chunked bench-hlformer-single
#                      bench-gare-single parity-tf32).
#   GPU_CHECK_TOTAL_S  the whole check's time budget in seconds (default 3600): a step gets at most what
#                      is left, and a step that cannot start in time is reported as not run.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

if ! command -v nvidia-smi >/dev/null 2>&1 || ! gpus=$(nvidia-smi -L 2>/dev/null) || [ -z "$gpus" ]; then
  echo "gpu-check: no NVIDIA GPU on this machine (nvidia-smi is missing or lists none): make gpu-check runs only where one is" >&2
  exit 2
fi
deadline=$((SECONDS + ${GPU_CHECK_TOTAL_S:-3600}))

# The plugin.
if [ -n "${GPU_CHECK_PLUGIN:-}" ]; then
  plugin=$(realpath "$GPU_CHECK_PLUGIN")
  [ -f "$plugin" ] || { echo "gpu-check: GPU_CHECK_PLUGIN=$GPU_CHECK_PLUGIN: no such file" >&2; exit 2; }
  # The distribution that installed it: site-packages/<name>-<version>.dist-info beside jax_plugins/.
  dist=$(ls -d "$(dirname "$(dirname "$(dirname "$plugin")")")"/jax_cuda*_pjrt-*.dist-info 2>/dev/null | head -n 1 || true)
  plugin_origin="$(basename "${dist:-unknown}" .dist-info | sed 's/-/ /') already installed on this machine (GPU_CHECK_PLUGIN), not kernel/pjrt/cuda.txt's pin"
else
  dest=build/pjrt/cuda
  stamp="$dest/.installed-$(sha256sum kernel/pjrt/cuda.txt | cut -c1-16)"
  if [ ! -f "$stamp" ]; then
    rm -rf "$dest"
    python3 -m pip install --quiet --no-deps --require-hashes --only-binary=:all: --target "$dest" -r kernel/pjrt/cuda.txt
    touch "$stamp"
  fi
  plugin=$(ls "$root/$dest"/jax_plugins/xla_cuda*/xla_cuda_plugin.so | head -n 1)
  plugin_origin="$(grep -o 'jax-cuda[0-9]*-pjrt==[^ ]*' kernel/pjrt/cuda.txt) from PyPI (kernel/pjrt/cuda.txt, sha256-checked)"
  # XLA finds ptxas and libdevice in the nvidia-cuda-nvcc wheel.
  export XLA_FLAGS="${XLA_FLAGS:+$XLA_FLAGS }--xla_gpu_cuda_data_dir=$root/$dest/nvidia/cuda_nvcc"
fi
export GOMLX_NO_AUTO_INSTALL=1
gpu="xla:$plugin"

out=build/gpu-check; rm -rf "$out"; mkdir -p "$out"

# The programs: prebuilt (GPU_CHECK_BIN) or built here.
bin=${GPU_CHECK_BIN:-$out/bin}
if [ -z "${GPU_CHECK_BIN:-}" ]; then
  bash kernel/gpu-check-bin.sh "$bin"
fi
bin=$(realpath "$bin")
for f in "$bin"/*.xz; do
  [ -e "$f" ] || continue
  python3 -c 'import lzma, shutil, sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2], "wb"))' "$f" "${f%.xz}"
  chmod +x "${f%.xz}"
done

# run_step NAME LIMIT_S DIR CMD...: runs CMD in DIR with at most LIMIT_S seconds (and never past the
# deadline), logs to $out/NAME.txt, samples the device memory every 0.5 s, and appends a report row.
rows=()
failed=0
run_step() {
  local name=$1 limit=$2 dir=$3; shift 3
  case " ${GPU_CHECK_STEPS:-$name} " in *" $name "*) ;; *) rows+=("| $name | not run (GPU_CHECK_STEPS) | | | |"); return ;; esac
  local left=$((deadline - SECONDS))
  if [ "$left" -lt 20 ]; then
    rows+=("| $name | not run (the check's time budget GPU_CHECK_TOTAL_S was spent) | | | |"); return
  fi
  [ "$limit" -le "$left" ] || limit=$left
  (while true; do nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits; sleep 0.5; done) > "$out/$name.mem" 2>/dev/null &
  local sampler=$! t0=$SECONDS rc=0
  echo "gpu-check: $name (at most ${limit} s)" >&2
  (cd "$dir" && timeout --kill-after=10 "$limit" "$@") > "$out/$name.txt" 2>&1 || rc=$?
  kill $sampler 2>/dev/null || true; wait $sampler 2>/dev/null || true
  local wall=$((SECONDS - t0)) peak result steptime
  peak=$(sort -n "$out/$name.mem" | tail -n 1)
  case $rc in
    0) result=ok ;;
    124|137) result="timed out after ${limit} s" ;;
    *) result="FAILED (exit $rc)" ;;
  esac
  steptime=$(awk '/^Benchmark/ { for (i = 1; i <= NF; i++) if ($(i+1) == "ns/op") printf "%.4f s", $i / 1e9 }' "$out/$name.txt")
  local detail
  detail=$(grep -cE '^--- PASS' "$out/$name.txt" || true)" passed, "$(grep -cE '^--- FAIL' "$out/$name.txt" || true)" failed, "$(grep -cE '^--- SKIP' "$out/$name.txt" || true)" skipped"
  case $name in bench-*) detail="" ;; esac
  rows+=("| $name | $result${detail:+ ($detail)} | ${wall} s | ${steptime:-} | ${peak:-?} MiB |")
  echo "gpu-check: $name: $result, ${wall} s ${steptime:+(step $steptime)}" >&2
  return 0
}
strict() { # the steps whose failure fails the check
  case "${rows[-1]}" in *"| ok"*|*"(GPU_CHECK_STEPS)"*) ;; *) failed=1 ;; esac
}

# Versions first: the plugin's C API version, platform and devices.
GOMLX_BACKEND=$gpu "$bin/geoalign" version --json > "$out/version.json" 2> "$out/version.err" || true

run_step parity "${GPU_CHECK_PARITY_S:-1200}" lib/parity env GEOALIGN_PARITY_BACKEND="$gpu,tf32=false" "$bin/parity.test" -test.count=1 -test.v; strict
if [ -x "$bin/train.test" ] || [ -n "${GPU_CHECK_STEPS:-}" ]; then
  run_step distribute 300 lib/train env GOMLX_BACKEND="$gpu" "$bin/train.test" -test.count=1 -test.v -test.run Distribute; strict
else
  rows+=("| distribute | not run: GPU_CHECK_BIN has no train.test | | | |")
fi
bench() { echo -test.run '^$' -test.bench "$1" -test.benchtime 3x; }
run_step bench-hlformer-chunked 900 lib/models/hlformer env GOMLX_BACKEND="$gpu" HLFORMER_BENCH_VIDEOS=128 "$bin/hlformer.test" $(bench BenchmarkPairedHLFormerTrainStep); strict
run_step bench-gare-chunked 600 lib/models/gare env GOMLX_BACKEND="$gpu" "$bin/gare.test" $(bench BenchmarkPairedGareTrainStep); strict
run_step bench-hlformer-single 900 lib/models/hlformer env GOMLX_BACKEND="$gpu" HLFORMER_BENCH_VIDEOS=128 HLFORMER_BENCH_VIDEO_CHUNK=-1 "$bin/hlformer.test" $(bench BenchmarkPairedHLFormerTrainStep); strict
run_step bench-gare-single 600 lib/models/gare env GOMLX_BACKEND="$gpu" GARE_BENCH_TEXT_CHUNK=-1 "$bin/gare.test" $(bench BenchmarkPairedGareTrainStep); strict
run_step parity-tf32 "${GPU_CHECK_PARITY_S:-1200}" lib/parity env GEOALIGN_PARITY_BACKEND="$gpu" "$bin/parity.test" -test.count=1 -test.v

commit=${GPU_CHECK_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}
dirty=
if [ -z "${GPU_CHECK_COMMIT:-}" ] && git rev-parse --git-dir >/dev/null 2>&1 && ! git diff --quiet; then dirty=+dirty; fi
{
  echo "# GPU check"
  echo
  echo "Written by \`make gpu-check\` (kernel/gpu-check.sh) on $(date -u +%Y-%m-%dT%H:%MZ) at commit $commit$dirty."
  echo
  echo "| what | value |"
  echo "|---|---|"
  echo "| device | $(nvidia-smi --query-gpu=name,memory.total --format=csv,noheader | head -n 1) |"
  echo "| driver | $(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -n 1) |"
  echo "| host | $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//') |"
  echo "| plugin | $plugin_origin ($plugin) |"
  echo "| PJRT (geoalign version) | $(python3 -c 'import json,sys
try: p=json.load(open(sys.argv[1])).get("pjrt",{})
except Exception as e: print("geoalign version failed:", e); sys.exit()
print("C API", p.get("api_version"), "· platform", p.get("platform"), p.get("platform_version"), "·", p.get("devices"), "device(s)")' "$out/version.json") |"
  echo
  echo "| step | result | wall time (compilation included) | one step (ns/op of 3) | peak device memory in use (nvidia-smi, 0.5 s samples) |"
  echo "|---|---|---|---|---|"
  printf '%s\n' "${rows[@]}"
  echo
  echo "Steps: *parity* is lib/parity (every model, Go backend vs the GPU, losses, gradients and weights after"
  echo "three optimizer steps; tolerances and why: lib/parity/doc.go) with the plugin's TF32 off (GOMLX_BACKEND option"
  echo "tf32=false), so float32 matmuls are float32; *parity-tf32* is the same with XLA's GPU default, TF32 on, for"
  echo "information only (TF32 rounds matmul inputs to 10-bit mantissas, ~1e-3 relative, beyond the float32 tolerances)."
  echo "*bench-hlformer-** is BenchmarkPairedHLFormerTrainStep (the paper-sized HLFormer, 128 videos, BertAdam step:"
  echo "forward, backward, update), *chunked* = blocks of hlformer.DefaultVideoChunk videos, *single* = one graph."
  echo "*bench-gare-** is BenchmarkPairedGareTrainStep (128 texts × 128 videos, forward + backward), chunked and single graph."
  echo "Benchmarks run with XLA's GPU default (TF32 on). Logs: build/gpu-check/."
  for step in parity parity-tf32; do
    [ -s "$out/$step.txt" ] || continue
    echo
    echo "### Largest differences, $step (kernel/parity-summary.py of build/gpu-check/$step.txt)"
    echo
    python3 kernel/parity-summary.py "$out/$step.txt"
  done
} > figures/gpu-check.md
cat figures/gpu-check.md
exit $failed
