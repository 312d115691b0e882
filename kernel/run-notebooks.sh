#!/usr/bin/env bash
# Executes notebooks headless with the GoNB kernel and fails when a notebook errors, times out,
# or lacks the outputs it must have (kernel/check_notebook.py).
# Executed copies go to build/notebooks/ (the committed notebooks are not rewritten;
# `--inplace` refreshes the committed outputs instead).
# Usage: kernel/run-notebooks.sh [--timeout SECONDS] [--inplace] [--outdir DIR] [--jobs N] UNIT...
# (--outdir: where executed copies go, build/notebooks by default; make test-xla uses build/notebooks-xla)
# A UNIT is a notebook, or several joined by '+' (a.ipynb+b.ipynb): they run one after the other,
# for notebooks where a later one reuses the runs an earlier one left in the run cache. --jobs N
# (1 by default) runs N units at a time, each lane taking the next unit in the order given, so put
# the longest first: the Go backend's training keeps about one core busy (docs/toolchain.md §4).
set -euo pipefail
cd "$(dirname "$0")/.."
timeout_s=1800; inplace=0; outdir=build/notebooks; jobs=1
while [ $# -gt 0 ]; do
  case "$1" in
    --timeout) timeout_s=$2; shift 2 ;;
    --inplace) inplace=1; shift ;;
    --outdir) outdir=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    *) break ;;
  esac
done
[ $# -gt 0 ] || { echo "run-notebooks: no notebooks given" >&2; exit 2; }
[[ $jobs =~ ^[1-9][0-9]*$ ]] || { echo "run-notebooks: --jobs $jobs: want a positive integer" >&2; exit 2; }
# Notebooks run with this checkout's kernel spec, not one another checkout's `make setup` installed.
/usr/bin/python3 kernel/kernelspec.py --check || exit 2
mkdir -p "$outdir"
units=("$@")
state=$(mktemp -d)
trap 'rm -rf "$state"' EXIT
echo 0 > "$state/next"

# say prints its lines as one block: lanes print whole results, never half of one.
say() { flock "$state/next" cat; }

# run_one executes one notebook; its status is 0 (ok), 1 (failed) or 2 (no such file: skipped).
run_one() {
  local nb=$1 name out start rc
  [ -f "$nb" ] || return 2
  name=$(basename "$nb")
  out="$outdir/$name"; [ $inplace -eq 1 ] && out="$nb"
  start=$(date +%s)
  if timeout --kill-after=30 "$timeout_s" jupyter nbconvert --to notebook --execute \
       --ExecutePreprocessor.timeout=-1 --ExecutePreprocessor.kernel_name=gonb \
       --output-dir "$(dirname "$out")" --output "$name" "$nb" > "$outdir/$name.log" 2>&1; then
    if check=$(/usr/bin/python3 kernel/check_notebook.py "$out" 2>&1); then
      echo "== notebook $nb ... ok ($(( $(date +%s) - start )) s)" | say
      return 0
    fi
    printf '== notebook %s ... FAILED check\n%s\n' "$nb" "$check" | say
  else
    rc=$?
    { echo "== notebook $nb ... FAILED (exit $rc after $(( $(date +%s) - start )) s; log: $outdir/$name.log)"
      tail -n 40 "$outdir/$name.log" | sed 's/^/    /'; } | say
  fi
  return 1
}

# lane takes the next unit until none is left, and counts each notebook's result in $state.
lane() {
  local i nb rc
  while :; do
    i=$(flock "$state/next" bash -c 'i=$(cat "$1"); echo $((i+1)) > "$1"; echo "$i"' _ "$state/next")
    [ "$i" -lt ${#units[@]} ] || return 0
    IFS=+ read -ra nbs <<< "${units[$i]}"
    for nb in "${nbs[@]}"; do
      rc=0; run_one "$nb" || rc=$?
      case $rc in 0) echo ok >> "$state/results" ;; 1) echo failed >> "$state/results" ;; esac
    done
  done
}

touch "$state/results"
pids=()
for _ in $(seq "$jobs"); do lane & pids+=($!); done
for p in "${pids[@]}"; do wait "$p"; done
passed=$(grep -c '^ok' "$state/results" || true)
failed=$(grep -c '^failed' "$state/results" || true)
echo "notebooks: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
