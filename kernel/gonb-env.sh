#!/usr/bin/env bash
# Runs the GoNB kernel with geoalign's environment (installed as argv[0] of the kernel spec
# by kernel/kernelspec.py). GOMLX_BACKEND keeps the caller's value (xla:cuda on a GPU box)
# and defaults to the Makefile's default (GEOALIGN_DEFAULT_BACKEND, written into the spec).
export GOMLX_BACKEND="${GOMLX_BACKEND:-$GEOALIGN_DEFAULT_BACKEND}"
export PATH="${GEOALIGN_KERNEL_PATH:+$GEOALIGN_KERNEL_PATH:}$PATH"
exec "$@"
