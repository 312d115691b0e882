package backend

import "github.com/gomlx/compute"

// OnGPU reports whether b computes on an NVIDIA GPU: an XLA backend on a CUDA PJRT plugin
// (go-xla's Backend.IsCUDA; GOMLX_BACKEND=xla:cuda or a plugin path naming CUDA). The pure-Go
// backend and XLA's CPU plugin report false.
//
// Models use it for defaults that trade memory against time differently on a GPU: HLFormer's
// training step is chunked on the CPU backends (a paper-sized batch of 128 videos needs ≈ 22 GB
// as one graph) and one graph on a GPU, where the chunked step measured 4.7× slower
// (figures/gpu-check.md, docs/xla.md §4).
func OnGPU(b compute.Backend) bool {
	c, ok := b.(interface{ IsCUDA() bool })
	return ok && c.IsCUDA()
}
