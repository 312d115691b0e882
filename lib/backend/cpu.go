package backend

import (
	"runtime"

	"golang.org/x/sys/cpu"
)

// InstructionSet names the widest SIMD instruction set this CPU offers: "AVX-512", "AVX2", "AVX" or
// "SSE2" on amd64, "SVE2", "SVE" or "NEON" on arm64, the architecture elsewhere. The pure-Go
// backend's SIMD kernels (and XLA's CPU code generation) follow it, and the width changes the order of
// floating-point sums, hence the last digits of a result (docs/xla.md §6).
func InstructionSet() string {
	// Each architecture's sets, widest first; the first the CPU has wins (every amd64 CPU has SSE2).
	type set struct {
		has  bool
		name string
	}
	var sets []set
	switch runtime.GOARCH {
	case "amd64":
		sets = []set{{cpu.X86.HasAVX512F, "AVX-512"}, {cpu.X86.HasAVX2, "AVX2"}, {cpu.X86.HasAVX, "AVX"}, {true, "SSE2"}}
	case "arm64":
		sets = []set{{cpu.ARM64.HasSVE2, "SVE2"}, {cpu.ARM64.HasSVE, "SVE"}, {cpu.ARM64.HasASIMD, "NEON"}}
	}
	for _, s := range sets {
		if s.has {
			return s.name
		}
	}
	return runtime.GOARCH
}
