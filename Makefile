# geoalign — one entry point for setup, tests, data, benchmarks and reproductions.
#
#   make setup              install everything on a fresh machine (idempotent)
#   make test               go vet, go test (with lib/parity: every model on Go vs XLA), and every notebook executed headless and screenshot
#   make test-xla           go test ./lib/... (a train of each model among them) and a notebook on XLA's CPU plugin
#   make gpu-check          on a machine with an NVIDIA GPU: CUDA plugin from PyPI, equivalence tests, step times -> figures/gpu-check.md
#   make data               build the real data tracks into datasets/cache/
#   make bench              paired benchmarks: geoalign (Go, XLA-CPU) vs PyTorch 2, JAX, the official code -> figures/bench.md
#   make profile            CPU profiles of the heavy benchmarks by Go-backend op family -> figures/profile.md
#   make reproduce-table1   Table 1 analogues of the four papers -> figures/tables/ (PAPER=gram|hypergram|gare|hlformer)
#   make figures            regenerate every committed figure and table
#   make fuzz               every Fuzz target for FUZZTIME (60s) each, with execs/s per target
#   make crosscheck         official code vs ours on the same data: crosscheck-hlformer and crosscheck-gare
#   make crosscheck-hlformer  official HLFormer code vs ours trained at one configuration -> figures/crosscheck/hlformer.*
#   make crosscheck-gare    official GARE code vs ours: one training step to float32 tolerance, then a short
#                           training at one configuration -> figures/crosscheck/gare.*
#                           (both need build/official/...: see lib/crosscheck/README.md)
#
# Every go command below runs with the same environment, so nothing can be forgotten:
#   GOTOOLCHAIN=go1.27.0  Go 1.27 from the module proxy (gomlx v0.28.16 needs it; 1.7x faster
#                         training step than v0.28.8, see docs/toolchain.md §1)
#   GOEXPERIMENT=simd     GoMLX's Go backend matmul about 20x faster (docs/toolchain.md §2); changes every build-cache key,
#                         so it is set once here for builds, tests, notebooks and CI alike
#   GOMLX_BACKEND=go      default backend (pure Go); override on a GPU box: make test GOMLX_BACKEND=xla:cuda

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c

export GOTOOLCHAIN := go1.27.0
export GOEXPERIMENT ?= simd
export GOMLX_BACKEND ?= go
export GOFLAGS ?= -buildvcs=false
GOBIN := $(shell GOTOOLCHAIN=local go env GOPATH)/bin
export PATH := $(GOBIN):$(PATH)

# Per-notebook wall-clock limit (seconds) for headless execution: a guard against a hung kernel, with
# room for a notebook that shares the two cores with another lane (`notebooks`; the longest, 10-gram,
# took 521 s alone on CI).
NOTEBOOK_TIMEOUT ?= 1800
# FULL=1 makes notebooks and reproductions run their full (not CI-sized) configurations.
export FULL ?=
PAPER ?= all

.PHONY: test-xla gpu-check gpu-check-bin setup test vet gotest notebooks notebooks-html notebooks-inplace data bench profile reproduce-table1 figures crosscheck crosscheck-hlformer crosscheck-gare fuzz clean env

setup:
	bash kernel/setup.sh

# On a clean clone (CI) there is no data cache yet, and `go test`, which ran before `make data`, saw none:
# there it runs beside `make data` with GEOALIGN_CACHE at an empty folder, so it sees what it saw, while the
# data build (mostly one core: downloads, decoding, MiniLM) uses the core go test leaves (docs/toolchain.md §4);
# its output follows the data build's. With a data cache already there, go test runs first and sees it, as before.
DATA_CACHE := $(or $(GEOALIGN_CACHE),$(CURDIR)/datasets/cache)
NO_DATA_CACHE := $(CURDIR)/build/no-data-cache
test: vet
	@if [ -e "$(DATA_CACHE)" ]; then \
	  $(MAKE) --no-print-directory gotest && $(MAKE) --no-print-directory data; \
	else \
	  echo "test: no data cache at $(DATA_CACHE) yet: go test (GEOALIGN_CACHE=$(NO_DATA_CACHE), empty) beside make data"; \
	  rm -rf $(NO_DATA_CACHE) build/gotest.log && mkdir -p build; \
	  GEOALIGN_CACHE=$(NO_DATA_CACHE) $(MAKE) --no-print-directory gotest > build/gotest.log 2>&1 & gotest=$$!; \
	  data=0; $(MAKE) --no-print-directory data || data=$$?; \
	  status=0; wait $$gotest || status=$$?; \
	  echo "== go test (beside make data): exit $$status"; cat build/gotest.log; \
	  [ $$status -eq 0 ] && [ $$data -eq 0 ]; \
	fi
	$(MAKE) --no-print-directory test-xla
	$(MAKE) --no-print-directory notebooks
	$(MAKE) --no-print-directory notebooks-html

vet:
	go vet ./...

# `go test` runs up to two test binaries at a time and starts them in the order of its arguments (a
# package named twice runs once), so the longest packages go first, where they overlap the many short
# ones, instead of alphabetically last, alone (docs/toolchain.md §4).
GOTEST_FIRST := ./lib/parity ./lib/cmd/geoalign ./lib/encoders/minilm ./lib/models/hlformer ./lib/studies/gramstudy
gotest:
	go test -timeout 20m $(GOTEST_FIRST) ./...

# XLA through PJRT (issue 29, docs/xla.md §2): the same tests on XLA's CPU plugin, which `make setup`
# installs at a fixed path from PyPI (kernel/pjrt.sh). GOMLX_NO_AUTO_INSTALL=1: go-xla never
# downloads anything; the plugin is loaded from that file. Every test of ./lib/... (among them one
# `geoalign train` + `eval` of each model: the CLI's TestTrainEval* tests) and one notebook headless;
# the tests that are skipped on XLA, each with its reason, are listed in docs/xla.md §2.
PJRT_CPU_PLUGIN := $(CURDIR)/build/pjrt/pjrt_c_api_cpu_plugin.so
XLA_CPU := GOMLX_BACKEND=xla:$(PJRT_CPU_PLUGIN) GOMLX_NO_AUTO_INSTALL=1
# Alphabetical, not the longest first: two heavy XLA packages side by side slow each other far more than
# the package times alone predict (docs/toolchain.md §4, measured at 5208f41).
XLA_PACKAGES := ./lib/...
XLA_NOTEBOOK := notebooks/01-geometry.ipynb
test-xla:
	@[ -f $(PJRT_CPU_PLUGIN) ] || { echo "test-xla: $(PJRT_CPU_PLUGIN) missing: run make setup" >&2; exit 2; }
	$(XLA_CPU) go run ./lib/cmd/geoalign version
	$(XLA_CPU) go test -timeout 30m $(XLA_PACKAGES)
	$(XLA_CPU) GEOALIGN_FIGURES=$(CURDIR)/build/figures-xla bash kernel/run-notebooks.sh --timeout $(NOTEBOOK_TIMEOUT) --outdir build/notebooks-xla $(XLA_NOTEBOOK)

# The GPU check (issue 29, docs/xla.md §4): exits 2 on a machine without an NVIDIA GPU.
gpu-check:
	bash kernel/gpu-check.sh

# The programs of gpu-check for a GPU machine without Go (GPU_CHECK_BIN=build/gpu-check-bin there).
gpu-check-bin:
	bash kernel/gpu-check-bin.sh build/gpu-check-bin --xz

# A notebook saves its figures and tables under build/figures in either configuration
# (kernel/nb.OutDir): figures/ has one writer, `make figures`.
#
# Two lanes (NOTEBOOK_JOBS): a notebook's training on the Go backend keeps about one core of the two busy
# (at most ≈ 1.3), so two notebooks at a time take well under the wall time of one after the other
# (docs/toolchain.md §4).
# Notebooks joined by '+' run one after the other in one lane: 11-hypergram reuses 10-gram's runs
# from the run cache (13-hlformer's HLFormer reads GloVe tokens, 15-search's MiniLM tokens: other runs).
# The longest units come first (10-gram + 11-hypergram took 17 min on CI, 12-gare 7 min); every other
# notebook follows in name order.
NOTEBOOK_JOBS ?= 2
NOTEBOOK_CHAINS := notebooks/10-gram.ipynb+notebooks/11-hypergram.ipynb notebooks/13-hlformer.ipynb notebooks/12-gare.ipynb notebooks/15-search.ipynb notebooks/14-wordnet.ipynb
NOTEBOOK_UNITS := $(NOTEBOOK_CHAINS) $(filter-out $(subst +, ,$(NOTEBOOK_CHAINS)),$(wildcard notebooks/*.ipynb))
notebooks:
	GEOALIGN_FIGURES=$(CURDIR)/build/figures bash kernel/run-notebooks.sh --jobs $(NOTEBOOK_JOBS) --timeout $(NOTEBOOK_TIMEOUT) $(NOTEBOOK_UNITS)

# Every notebook executed by `make notebooks`, checked as a person sees it: exported to
# build/notebooks/<name>.html and screenshot full-page in headless Chromium (<name>.png);
# fails on a page without a figure, with an error output or a Go panic, or a blank screenshot.
notebooks-html:
	@executed=(); for nb in notebooks/*.ipynb; do \
	  out=build/notebooks/$$(basename $$nb); \
	  [ -f $$out ] || { echo "notebooks-html: $$out missing: run make notebooks first" >&2; exit 1; }; \
	  executed+=($$out); done; \
	jupyter nbconvert --to html --log-level WARN "$${executed[@]}" && \
	go run ./kernel/nbhtml "$${executed[@]/%.ipynb/.html}"

data:
	go run ./lib/cmd/geoalign data build

# The current peers (PyTorch 2, JAX) live in build/bench-venv, made once by the first `make bench`
# from lib/bench/requirements.txt (exact versions and sha256 of every wheel; lib/bench/pin.py regenerates
# it). PyPI's Linux torch wheel is the CUDA build: ≈ 4 GB of wheels, so it is kept out of `make setup` and CI.
# The venv's stamp depends on requirements.txt, so a re-pin rebuilds it.
BENCH_VENV := build/bench-venv
$(BENCH_VENV)/.installed: lib/bench/requirements.txt
	rm -rf $(BENCH_VENV)
	/usr/bin/python3 -m venv $(BENCH_VENV)
	$(BENCH_VENV)/bin/python -m pip install --no-cache-dir --require-hashes --only-binary=:all: -r lib/bench/requirements.txt
	touch $@

# Go benchmarks once per geoalign backend: GOMLX_BACKEND=go, and XLA-CPU through the PJRT plugin of
# `make setup` (BENCH_XLA_BACKEND overrides it; a missing or failing plugin gives a "not run" column).
# BENCH_ARGS passes options to run.py, e.g. BENCH_ARGS=--quick for a smoke run.
BENCH_XLA_BACKEND ?= xla:$(CURDIR)/build/pjrt/pjrt_c_api_cpu_plugin.so
BENCH_ARGS ?=
bench: $(BENCH_VENV)/.installed
	BENCH_XLA_BACKEND=$(BENCH_XLA_BACKEND) GOMLX_NO_AUTO_INSTALL=1 /usr/bin/python3 lib/bench/run.py --venv $(BENCH_VENV) --out figures/bench.md $(BENCH_ARGS)

# The Go backend by op family (Go CPU profiles); XLA-CPU's training steps by binary (perf), when the plugin loads.
profile:
	BENCH_XLA_BACKEND=$(BENCH_XLA_BACKEND) GOMLX_NO_AUTO_INSTALL=1 /usr/bin/python3 lib/bench/profile_ops.py --out figures/profile.md

reproduce-table1:
	go run ./lib/cmd/geoalign reproduce --paper $(PAPER) --out figures/tables

# WordNet (issue 10): run directories in build/wordnet/checkpoints (lib/train) make a re-run only
# re-evaluate and redraw, and an interrupted one continue where it stopped;
# the noun-closure run (21 min) is listed in figures/wordnet/README.md and not part of this target.
WORDNET := go run ./lib/cmd/geoalign wordnet --closure mammal --seeds 3 --out figures/wordnet --quiet
# Every paper's figures are the full configuration (FIGURES_FULL=true): from a clean clone that is
# many hours of training on 2 cores: GRAM + HyperGRAM 20 min; GARE ≈ 1.2 min idle (6.5 min under
# load 4–9) per stage-2 run × ≈ 100 runs + 40 synthetic runs of ≈ 0.6 min; HLFormer 15 main runs of 6.5–11 min,
# ≈ 20 ablation runs, the synthetic study and the WordNet cone (14 min); the WORDNET lines 43 min.
# Every run is checkpointed under
# build/, so an interrupted or repeated `make figures` only re-evaluates. FIGURES_FULL=false is the
# CI-sized smoke run (written under figures/ci/, never over the full results). Some sections only:
# `go run ./lib/cmd/geoalign figures --full --paper hlformer --sections table1,fig4` (the others are
# named as pending in REPORT.md).
FIGURES_FULL ?= true
figures: reproduce-table1
	$(WORDNET) --model lorentz,poincare,euclidean --dim 2,5,10
	$(WORDNET) --model lorentz,poincare --dim 10 --dtype float32 --tag float32 --disk=false --stability=false
	go run ./lib/cmd/geoalign figures --out figures --full=$(FIGURES_FULL)

# Issue 19: the official HLFormer code and ours trained at one identical reduced configuration on the
# same Charades-STA files, 4 seeds each (one thread per training, ≈ 2.5 min of CPU each, so ≈ 20 min
# in all; a finished seed under build/crosscheck is reused while its inputs are unchanged, ours also keyed by
# our source: lib/crosscheck/README.md). The official code is not fetched by make: clone it first (lib/crosscheck/README.md
# gives the two `git clone` lines at the pinned commits).
crosscheck: crosscheck-hlformer crosscheck-gare

crosscheck-hlformer: data
	/usr/bin/python3 lib/crosscheck/run.py --out figures/crosscheck

# The official GARE code (build/official/gare, README) and ours on the same Charades features: the loss
# terms, gradients and 3 optimizer steps of one batch from the same weights, then 10 epochs at one small
# configuration for 5 seeds per side from the same initial weights (one thread each, ≈ 1–1.5 min of CPU
# per training; finished runs under build/crosscheck/gare are reused while their inputs are unchanged).
crosscheck-gare: data
	/usr/bin/python3 lib/crosscheck/gare.py --out figures/crosscheck

# Fuzzing pass over every Fuzz target (FUZZTIME each, in memory), printing execs/s per target;
# real-data seeds come from the data cache when `make data` has built it (kernel/fuzz.sh).
FUZZTIME ?= 60s
FUZZMINIMIZE ?= 1000x
fuzz:
	FUZZTIME=$(FUZZTIME) FUZZMINIMIZE=$(FUZZMINIMIZE) GEOALIGN_CACHE=$(CURDIR)/datasets/cache bash kernel/fuzz.sh

env:
	@echo GOTOOLCHAIN=$(GOTOOLCHAIN) GOEXPERIMENT=$(GOEXPERIMENT) GOMLX_BACKEND=$(GOMLX_BACKEND); go version

clean:
	rm -rf build

# Re-execute the notebooks and store their outputs in the committed .ipynb files (the committed
# outputs are FULL=1's, read from the run cache of `make figures`); their figures and tables go to
# build/figures in either configuration — figures/ has one writer, `make figures`.
notebooks-inplace:
	bash kernel/run-notebooks.sh --inplace --timeout $(NOTEBOOK_TIMEOUT) notebooks/*.ipynb
