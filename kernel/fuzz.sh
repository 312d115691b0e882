#!/usr/bin/env bash
# Runs every Fuzz target under lib/ for FUZZTIME each and prints, per target, the executions
# per second (the total execs over the elapsed time of `go test -fuzz`'s last progress line).
# New inputs are minimised for at most FUZZMINIMIZE calls: the default 60 s per new input spends
# most of a short budget minimising instead of fuzzing. A crasher is written by `go test` to
# <package>/testdata/fuzz/<Target>/; fix it and commit that file as a regression seed.
# Real-data seeds are added where $GEOALIGN_CACHE points at `make data`'s cache.
# Usage: FUZZTIME=60s FUZZMINIMIZE=1000x FUZZPARALLEL=2 kernel/fuzz.sh [package-dir...]
set -uo pipefail
cd "$(dirname "$0")/.."
fuzztime=${FUZZTIME:-60s}
minimize=${FUZZMINIMIZE:-1000x}
parallel=${FUZZPARALLEL:-$(nproc)}
logdir=build/fuzz; mkdir -p "$logdir"
if [ $# -gt 0 ]; then pkgs=("$@"); else
  mapfile -t pkgs < <(grep -rl --include='*_test.go' '^func Fuzz' lib | xargs -n1 dirname | sort -u)
fi
summary=(); failed=0
for pkg in "${pkgs[@]}"; do
  for target in $(grep -h '^func Fuzz' "$pkg"/*_test.go | sed 's/func \(Fuzz[A-Za-z0-9_]*\).*/\1/'); do
    log="$logdir/$(echo "$pkg" | tr / _)-$target.log"
    printf '== %s %s (%s) ... ' "$pkg" "$target" "$fuzztime"
    if go test "./$pkg" -run '^$' -fuzz "^$target\$" -fuzztime "$fuzztime" \
         -fuzzminimizetime "$minimize" -parallel "$parallel" > "$log" 2>&1; then status=ok
    else status=FAIL; failed=1; fi
    # Last progress line: "fuzz: elapsed: 1m0s, execs: 1723404 (0/sec), new interesting: 244 (total: 248)".
    rate=$(grep '^fuzz: elapsed:' "$log" | tail -n1 | awk '{
      d = $3; sub(",", "", d); s = 0
      if (match(d, /[0-9.]+h/)) s += 3600 * substr(d, RSTART, RLENGTH - 1)
      if (match(d, /[0-9.]+m[^s]/) || match(d, /[0-9.]+m$/)) s += 60 * substr(d, RSTART, RLENGTH - 1)
      if (match(d, /[0-9.]+s/)) s += substr(d, RSTART, RLENGTH - 1)
      n = $5; sub(",", "", n)
      if (s > 0) printf "%d execs in %gs = %.0f execs/s", n, s, n / s; else print "no progress line"
    }')
    echo "$status: $rate"
    [ "$status" = ok ] || sed -n '/--- FAIL/,$p' "$log" | head -n 30
    summary+=("$(printf '%-8s %-22s %-26s %s' "$status" "$target" "$pkg" "$rate")")
  done
done
echo; echo "fuzz summary (FUZZTIME=$fuzztime, FUZZMINIMIZE=$minimize, $parallel worker(s); logs in $logdir):"
printf '%s\n' "${summary[@]}"
exit $failed
