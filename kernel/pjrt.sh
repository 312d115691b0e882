#!/usr/bin/env bash
# kernel/pjrt.sh KIND — install the pinned PJRT plugin KIND (cpu | cuda) from PyPI into build/pjrt/.
#
#   cpu   build/pjrt/pjrt_c_api_cpu_plugin.so: XLA's CPU plugin, the file that
#         GOMLX_BACKEND=xla:$PWD/build/pjrt/pjrt_c_api_cpu_plugin.so loads (with
#         GOMLX_NO_AUTO_INSTALL=1 go-xla never downloads anything at run time).
#   cuda  build/pjrt/cuda/: the CUDA plugin and the NVIDIA libraries it needs (make gpu-check).
#
# Pins: kernel/pjrt/KIND.txt is a pip requirements file with one sha256 per wheel (pip refuses any
# other file), and kernel/pjrt/KIND.so.sha256 pins the extracted plugin itself, so an idempotent
# second run checks and skips. Why this wheel and not Google's `xla-cpu-pjrt` 0.0.1: docs/xla.md.
set -euo pipefail
cd "$(dirname "$0")/.."
kind=${1:?usage: kernel/pjrt.sh cpu|cuda}
req=kernel/pjrt/$kind.txt
[ -f "$req" ] || { echo "pjrt.sh: no pins for '$kind' ($req)" >&2; exit 2; }

case $kind in
  cpu)
    dest=build/pjrt/pjrt_c_api_cpu_plugin.so
    want=$(cut -d' ' -f1 kernel/pjrt/cpu.so.sha256)
    if [ -f "$dest" ] && [ "$(sha256sum "$dest" | cut -d' ' -f1)" = "$want" ]; then
      echo "  $dest: present (sha256 ${want:0:12}…)"
      exit 0
    fi
    wheels=build/pjrt/wheels
    mkdir -p "$wheels"
    /usr/bin/python3 -m pip download --quiet --no-deps --require-hashes --only-binary=:all: \
      --python-version 3.11 --platform manylinux_2_27_x86_64 -r "$req" -d "$wheels"
    member=$(sed -n 's/^# member: //p' "$req")
    wheel=$(ls "$wheels"/*.whl | head -n 1)
    tmp=$(mktemp "$dest.XXXXXX")
    /usr/bin/python3 - "$wheel" "$member" "$tmp" <<'PY'
import shutil, sys, zipfile
wheel, member, out = sys.argv[1:]
with zipfile.ZipFile(wheel) as z, z.open(member) as src, open(out, "wb") as dst:
    shutil.copyfileobj(src, dst)
PY
    got=$(sha256sum "$tmp" | cut -d' ' -f1)
    if [ "$got" != "$want" ]; then
      rm -f "$tmp"
      echo "pjrt.sh: $member in $wheel has sha256 $got, want $want (kernel/pjrt/cpu.so.sha256)" >&2
      exit 1
    fi
    chmod 0755 "$tmp"
    mv "$tmp" "$dest"
    rm -rf "$wheels"
    echo "  $dest: installed from $(basename "$wheel")"
    ;;
  *)
    echo "pjrt.sh: unknown kind '$kind' (cpu | cuda)" >&2; exit 2 ;;
esac
