#!/usr/bin/env bash
# kernel/gpu-check-bin.sh DIR [--xz] — the programs kernel/gpu-check.sh runs, built for a machine
# without Go (`make gpu-check-bin`: build/gpu-check-bin, xz-compressed): geoalign and the test
# binaries of lib/parity, lib/train, lib/models/hlformer and lib/models/gare, stripped (-s -w).
# They link only libc (cgo, for go-xla's dlopen of the plugin; symbols up to GLIBC_2.34), so they run
# on any x86-64 Linux with glibc >= 2.34; copy DIR there and point GPU_CHECK_BIN at it.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:?usage: kernel/gpu-check-bin.sh DIR [--xz]}
mkdir -p "$dir"
flags=(-trimpath -ldflags='-s -w')
go build "${flags[@]}" -o "$dir/geoalign" ./lib/cmd/geoalign
for pkg in parity:./lib/parity train:./lib/train hlformer:./lib/models/hlformer gare:./lib/models/gare; do
  go test -c "${flags[@]}" -o "$dir/${pkg%%:*}.test" "${pkg#*:}"
done
if [ "${2:-}" = --xz ]; then
  for f in "$dir"/geoalign "$dir"/*.test; do xz -T0 -9 -f "$f"; done
fi
ls -l "$dir"
