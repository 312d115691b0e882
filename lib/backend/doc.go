// Package backend is the one place where geoalign obtains a GoMLX compute backend.
//
// The backend is always chosen by the GOMLX_BACKEND environment variable, exactly as
// compute.New does: "go" for GoMLX's pure-Go backend (the project default, set by the
// Makefile and by the notebook kernel spec), "xla:cuda" on a GPU machine, "xla:cpu" where
// the PJRT CPU plugin is installed. Library code never names a backend; it calls New or
// MustNew. The only thing this package adds is a clear error when GOMLX_BACKEND is unset:
// GoMLX would otherwise pick "xla" and try to download a PJRT plugin, which fails without
// internet access.
//
// The pure-Go backend is about 20× faster (a 1024³ matmul, a transformer training step) when
// the program is built with GOEXPERIMENT=simd (docs/toolchain.md §2); SIMD reports whether
// this binary was.
package backend
