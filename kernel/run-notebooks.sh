#!/usr/bin/env bash
# Executes notebooks headless with the GoNB kernel and fails on the first notebook that
# errors, times out, or lacks the outputs it must have (kernel/check_notebook.py).
# Executed copies go to build/notebooks/ (the committed notebooks are not rewritten;
# `--inplace` refreshes the committed outputs instead).
# Usage: kernel/run-notebooks.sh [--timeout SECONDS] [--inplace] [--outdir DIR] NOTEBOOK.ipynb...
# (--outdir: where executed copies go, build/notebooks by default; make test-xla uses build/notebooks-xla)
set -euo pipefail
cd "$(dirname "$0")/.."
timeout_s=1200; inplace=0; outdir=build/notebooks
while [ $# -gt 0 ]; do
  case "$1" in
    --timeout) timeout_s=$2; shift 2 ;;
    --inplace) inplace=1; shift ;;
    --outdir) outdir=$2; shift 2 ;;
    *) break ;;
  esac
done
[ $# -gt 0 ] || { echo "run-notebooks: no notebooks given" >&2; exit 2; }
# Notebooks run with this checkout's kernel spec, not one another checkout's `make setup` installed.
/usr/bin/python3 kernel/kernelspec.py --check || exit 2
mkdir -p "$outdir"
failed=0; n=0
for nb in "$@"; do
  [ -f "$nb" ] || continue
  n=$((n+1))
  name=$(basename "$nb")
  out="$outdir/$name"; [ $inplace -eq 1 ] && out="$nb"
  start=$(date +%s)
  printf '== notebook %s ... ' "$nb"
  if timeout --kill-after=30 "$timeout_s" jupyter nbconvert --to notebook --execute \
       --ExecutePreprocessor.timeout=-1 --ExecutePreprocessor.kernel_name=gonb \
       --output-dir "$(dirname "$out")" --output "$name" "$nb" > "$outdir/$name.log" 2>&1; then
    if /usr/bin/python3 kernel/check_notebook.py "$out"; then
      echo "ok ($(( $(date +%s) - start )) s)"
    else
      echo "FAILED check"; failed=$((failed+1))
    fi
  else
    rc=$?
    echo "FAILED (exit $rc after $(( $(date +%s) - start )) s; log: $outdir/$name.log)"
    tail -n 40 "$outdir/$name.log" | sed 's/^/    /'
    failed=$((failed+1))
  fi
done
echo "notebooks: $((n-failed)) passed, $failed failed"
[ $failed -eq 0 ]
