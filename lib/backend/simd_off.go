//go:build !goexperiment.simd

package backend

// SIMD is true when this binary was built with GOEXPERIMENT=simd.
const SIMD = false
